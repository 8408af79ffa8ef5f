#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_rand sets
# variables by name; busywait and check call functions by name.
# The kernel's own flowtable selftest (netfilter/nft_flowtable.sh), with
# fasttrack enabled on router 1's devices in place of "flow add @f1":
#
#   ns1 (MTU 9000) -- nsr1 (fasttrack) -- MTU 1500 -- nsr2 -- ns2 (MTU 2000)
#
# The link between the routers is smaller than either end, so the MSS both
# ends announce is too large: the routers fragment (no PMTU discovery) or
# send "fragmentation needed". Router 1's forward chain drops by default,
# marks the test's connection and counts its packets per direction. Each
# step sends a file both ways at once over one TCP connection and checks
# both copies. As in the kernel's test, with PMTU discovery on, what the
# forward chain counted must stay under the file's size (client to server)
# and a quarter of it (server to client): the rest took the fast path.
# Steps, as there:
#  - plain routing, no PMTU discovery (and IPv6, which is not in the
#    kernel's test);
#  - DSCP set by a netdev ingress chain, a netdev egress chain and the
#    forward chain, without and with PMTU discovery. The ends must see
#    what the full stack gives them: every packet with the DSCP set. (The
#    kernel's test expects some packets without it in the forward-chain
#    case: the flowtable skips that rule.) A kernel without netdev egress
#    hooks (5.10) skips that case;
#  - masquerade and DNAT, without and with PMTU discovery;
#  - router 1's client side as a bridge, then a VLAN device in the bridge;
#  - an ESP tunnel between the routers. fasttrack does not offload IPsec
#    (Documentation/admin-guide.md); the flowtable does. Here the transfer
#    must arrive intact, through the stack, and fasttrack must count the
#    refusal.
# Then, as the kernel's test does, all of it again with MTUs drawn at
# random between 1280 and 65535 (from FP_SEED); FT_KNF_MTUS="O L R" runs
# one pass with the originator's, link's and responder's MTUs given.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_require
dmesg_mark
setup_ns NS1 NS2 NSR1 NSR2
NS_ROUTER=$NSR1
PORT=12345
# shellcheck disable=SC2086 # three numbers
set -- ${FT_KNF_MTUS:-9000 1500 2000}
OMTU=$1 LMTU=$2 RMTU=$3
# The second pass names its checks by its MTUs.
T=
[ -z "$FT_KNF_MTUS" ] || T="mtu $OMTU/$LMTU/$RMTU: "

must ip link add veth0 netns "$NSR1" type veth peer name eth0 netns "$NS1"
must ip link add veth1 netns "$NSR1" type veth peer name veth0 netns "$NSR2"
must ip link add veth1 netns "$NSR2" type veth peer name eth0 netns "$NS2"
must ip -n "$NSR1" link set veth0 mtu "$OMTU"
must ip -n "$NS1" link set eth0 mtu "$OMTU"
must ip -n "$NSR1" link set veth1 mtu "$LMTU"
must ip -n "$NSR2" link set veth0 mtu "$LMTU"
must ip -n "$NSR2" link set veth1 mtu "$RMTU"
must ip -n "$NS2" link set eth0 mtu "$RMTU"

addr "$NSR1" veth0 198.18.1.1/24 2001:db8:1::1/64
addr "$NSR1" veth1 198.18.10.1/24 2001:db8:10::1/64
addr "$NSR2" veth0 198.18.10.2/24 2001:db8:10::2/64
addr "$NSR2" veth1 198.18.2.1/24 2001:db8:2::1/64
host_side "$NS1" eth0 198.18.1.99 2001:db8:1::99 198.18.1.1 2001:db8:1::1
host_side "$NS2" eth0 198.18.2.99 2001:db8:2::99 198.18.2.1 2001:db8:2::1
must ip -n "$NSR1" route add default via 198.18.10.2
must ip -n "$NSR1" -6 route add default via 2001:db8:10::2
must ip -n "$NSR2" route add default via 198.18.10.1
must ip -n "$NSR2" -6 route add default via 2001:db8:10::1
router_forwarding "$NSR1"
router_forwarding "$NSR2"
for ns in "$NS1" "$NS2"; do
	must ip netns exec "$ns" sysctl -qw net.ipv4.tcp_no_metrics_save=1
	# Routers fragment in the first steps: no DF bit.
	must ip netns exec "$ns" sysctl -qw net.ipv4.ip_no_pmtu_disc=1
done

must ip netns exec "$NSR1" nft -f - <<EOF
table inet filter {
	counter routed_orig { }
	counter routed_repl { }
	chain forward {
		type filter hook forward priority 0; policy drop;
		meta oif "veth1" tcp dport $PORT ct mark set 1 counter name routed_orig accept
		ct mark 1 counter name ct direction map { original : routed_orig, reply : routed_repl } accept
		ct state established,related accept
		meta nfproto ipv4 meta l4proto icmp accept
		meta nfproto ipv6 meta l4proto icmpv6 accept
	}
}
EOF
# What router 1 sends that the link cannot carry, veth drops and counts
# (tx_dropped). It would pass a GSO packet whatever its segments' size:
# router 1's veth1 segments GSO packets itself, so that the link carries
# what a wire would, and a fast path that ignored the MTU would show.
must ip netns exec "$NSR1" ethtool -K veth1 tso off gso off
link_drops() { ip -n "$NSR1" -s -j link show veth1 | jq '.[0].stats64.tx.dropped'; }
# ns2 counts the TCP packets that arrive, by DSCP.
must ip netns exec "$NS2" nft -f - <<EOF
table inet filter {
	counter ip4dscp0 { }
	counter ip4dscp3 { }
	chain input {
		type filter hook input priority 0; policy accept;
		ip dscp cs3 meta l4proto tcp counter name ip4dscp3
		ip dscp 0 meta l4proto tcp counter name ip4dscp0
	}
}
EOF
fp_enable veth0
fp_enable veth1
must busywait 10000 ping_ok "$NS1" 198.18.2.99
must busywait 10000 ping_ok "$NS2" 198.18.1.99
must busywait 10000 ping_ok "$NS1" 2001:db8:2::99

fp_rand size 2097152 4194304
IN=$(fp_mkfile in "$size")

# routed ORIG|REPL: the bytes router 1's forward chain counted.
routed() { fp_nft_counters "$NSR1" "inet filter" "routed_$1"; }

# xfer DESC FAMILY DST DPORT: the file both ways at once, as the kernel's
# nc pair does, over one connection from ns1 to DST:DPORT, which reaches
# ns2's server on PORT; both copies must arrive intact, and router 1 must
# have fragmented or refused (PMTU) what the link cannot carry.
xfer() {
	local desc="$T$1" fam="$2" out1="$FP_TMP/ns1out" out2="$FP_TMP/ns2out" srv drops0
	rm -f "$out1" "$out2"
	drops0=$(link_drops)
	ip netns exec "$NS2" socat -t 30 "TCP$fam-LISTEN:$PORT,reuseaddr" \
		"OPEN:$IN,rdonly!!OPEN:$out2,creat,trunc,wronly" </dev/null >/dev/null 2>&1 &
	srv=$!
	defer fp_kill "$srv"
	must busywait 5000 fp_listening "$NS2" tcp "$PORT"
	check "$desc: transfer $size B each way" ip netns exec "$NS1" timeout "$(ft_secs 60)" \
		socat -t 30 "OPEN:$IN,rdonly!!OPEN:$out1,creat,trunc,wronly" \
		"TCP$fam:$(fp_sockaddr "$3" "$4")"
	busywait 10000 fp_dead "$srv" || fp_kill "$srv"
	fp_check_same "$desc: ns1 -> ns2 intact" "$IN" "$out2"
	fp_check_same "$desc: ns1 <- ns2 intact" "$IN" "$out1"
	check_eq "$desc: router 1 sent nothing too big for the link (drops)" \
		"$drops0" "$(link_drops)"
}

# stats_flat: fasttrack's global counters, "name value" a line.
stats_flat() {
	fp_stats | jq -r 'paths(scalars) as $p | "\($p | map(tostring) | join(".")) \(getpath($p))"'
}

# stats_moved BEFORE: from stats_flat on stdin, the counters that moved
# since BEFORE (stats_flat's output), "name +delta".
stats_moved() {
	printf '%s\n' "$1" >"$FP_TMP/stats0"
	awk 'NR == FNR { b[$1] = $2; next }
		$2 != b[$1] { printf "%s%s +%d", sep, $1, $2 - b[$1]; sep = ", " }' "$FP_TMP/stats0" -
}

# xfer_counted DESC DST DPORT: xfer over IPv4 with the forward chain's
# counters reset first; most of each direction must skip it.
xfer_counted() {
	local fwd0 stats0 desc="$T$1"
	must ip netns exec "$NSR1" nft reset counters table inet filter >/dev/null
	fwd0=$(fp_num "$(fp_stat forwarded.bytes)")
	stats0=$(stats_flat)
	xfer "$1" 4 "$2" "$3"
	log_info "$desc: forward chain $(routed orig) B client to server," \
		"$(routed repl) B back; fast path $(($(fp_num "$(fp_stat forwarded.bytes)") - fwd0)) B;" \
		"fasttrack's counters that moved: $(stats_flat | stats_moved "$stats0")"
	check_le "$desc: the forward chain saw at most the file, client to server" \
		"$(routed orig)" "$size"
	check_le "$desc: the forward chain saw at most a quarter, server to client" \
		"$(routed repl)" $((size / 4))
	check_ge "$desc: the rest took the fast path" \
		$(($(routed orig) + $(routed repl) + $(fp_num "$(fp_stat forwarded.bytes)") - fwd0)) \
		$((2 * size))
}

# 1. Plain routing: router 1 fragments what is too big for the link.
xfer "routing, no PMTU discovery" 4 198.18.2.99 "$PORT"
xfer "routing, IPv6" 6 2001:db8:2::99 "$PORT"

dscp_count() { fp_num "$(fp_nft_packets "$NS2" "inet filter" "ip4dscp$1")"; }

# dscp_xfer DESC FAMILY HOOK: xfer with a chain of FAMILY in router 1 that
# sets DSCP cs3 at HOOK ("ingress device veth0", "forward"); every packet
# ns2 gets must carry it, as through the full stack.
dscp_xfer() {
	local desc="$T$1" out
	if ! out=$(ip netns exec "$NSR1" nft add table "$2" dscpmangle 2>&1 &&
		ip netns exec "$NSR1" nft add chain "$2" dscpmangle mangle \
			"{ type filter hook $3 priority -10; }" 2>&1); then
		ip netns exec "$NSR1" nft delete table "$2" dscpmangle 2>/dev/null
		log_info "$desc: skipped, this kernel cannot: $out"
		return
	fi
	must ip netns exec "$NSR1" nft add rule "$2" dscpmangle mangle ip dscp set cs3
	must ip netns exec "$NS2" nft reset counters table inet filter >/dev/null
	xfer "$1" 4 198.18.2.99 "$PORT"
	check_ge "$desc: packets with DSCP cs3 reached ns2" "$(dscp_count 3)" 1
	check_eq "$desc: no packet without it reached ns2" 0 "$(dscp_count 0)"
	must ip netns exec "$NSR1" nft delete table "$2" dscpmangle
}

# dscp_steps HOW: DSCP cs3 set in router 1 by a netdev ingress chain on
# veth0, a netdev egress chain on veth1, and a forward chain.
dscp_steps() {
	dscp_xfer "DSCP set on ingress, $1" netdev 'ingress device "veth0"'
	dscp_xfer "DSCP set on egress, $1" netdev 'egress device "veth1"'
	dscp_xfer "DSCP set in the forward chain, $1" inet forward
}

# 2. ns2 loses its default route: only the masqueraded address answers.
must ip -n "$NS2" route del default via 198.18.2.1
must ip -n "$NS2" -6 route del default via 2001:db8:2::1
must ip -n "$NS2" route add 198.18.10.1 via 198.18.2.1

# nat_rules DEV: DNAT of 198.19.6.6:1666 arriving on DEV to ns2's server,
# and masquerade towards router 2.
nat_rules() {
	must ip netns exec "$NSR1" nft -f - <<-EOF
		table ip nat
		delete table ip nat
		table ip nat {
			chain prerouting {
				type nat hook prerouting priority 0; policy accept;
				meta iif "$1" ip daddr 198.19.6.6 tcp dport 1666 counter dnat ip to 198.18.2.99:$PORT
			}
			chain postrouting {
				type nat hook postrouting priority 0; policy accept;
				meta oifname "veth1" counter masquerade
			}
		}
	EOF
}

nat_rules veth0
dscp_steps "no PMTU discovery"
xfer "masquerade" 4 198.18.2.99 "$PORT"
xfer "dnat" 4 198.19.6.6 1666

# 3. The same with PMTU discovery: the ends shrink their segments, and
# the fast path carries them.
must ip netns exec "$NS1" sysctl -qw net.ipv4.ip_no_pmtu_disc=0
must ip netns exec "$NS2" sysctl -qw net.ipv4.ip_no_pmtu_disc=0
dscp_steps "PMTU discovery"
xfer_counted "masquerade, PMTU discovery" 198.18.2.99 "$PORT"
xfer_counted "dnat, PMTU discovery" 198.19.6.6 1666

# 4. Router 1's client side becomes a bridge, fasttrack moves to br0.
must ip netns exec "$NSR1" ftctl disable veth0
must ip -n "$NSR1" link add name br0 type bridge
must ip -n "$NSR1" addr flush dev veth0
must ip -n "$NSR1" link set veth0 master br0
must ip -n "$NSR1" addr add 198.18.1.1/24 dev br0
must ip -n "$NSR1" addr add 2001:db8:1::1/64 dev br0 nodad
must ip -n "$NSR1" link set br0 up
# br_netfilter, if anything loaded it (another test, Docker), sends the
# bridge's frames through the IP hooks at the port, DNAT and routing
# included, before br0 and its fasttrack hook: the stack then forwards
# them all, and the forward chain's count here is of the bridge alone.
must ip netns exec "$NSR1" sh -c 'for f in /proc/sys/net/bridge/bridge-nf-call-*; do
	[ ! -e "$f" ] || echo 0 >"$f" || exit 1; done'
fp_enable br0
nat_rules br0
must busywait 10000 ping_ok "$NS1" 198.18.10.1
xfer_counted "bridge, masquerade" 198.18.2.99 "$PORT"
xfer_counted "bridge, dnat" 198.19.6.6 1666

# 5. ns1 reaches the bridge through VLAN 10: router 1's veth0.10 is the
# bridge port.
must ip -n "$NSR1" link set veth0 nomaster
must ip -n "$NSR1" link add link veth0 name veth0.10 type vlan id 10
must ip -n "$NSR1" link set veth0.10 up
must ip -n "$NSR1" link set veth0.10 master br0
must ip -n "$NS1" addr flush dev eth0
# The link-local address keeps IPv6's default route alive.
must ip -n "$NS1" -6 route del default
must ip -n "$NS1" link add link eth0 name eth0.10 type vlan id 10
host_side "$NS1" eth0.10 198.18.1.99 2001:db8:1::99 198.18.1.1 2001:db8:1::1
must busywait 10000 ping_ok "$NS1" 198.18.10.1
xfer_counted "bridge and VLAN, masquerade" 198.18.2.99 "$PORT"
xfer_counted "bridge and VLAN, dnat" 198.19.6.6 1666

# 6. Back to plain routing, then an ESP tunnel between the routers for
# ns1's and ns2's networks.
must ip netns exec "$NSR1" ftctl disable br0
must ip -n "$NSR1" link del veth0.10
must ip -n "$NSR1" link del br0
must ip -n "$NS1" link del eth0.10
addr "$NSR1" veth0 198.18.1.1/24 2001:db8:1::1/64
host_side "$NS1" eth0 198.18.1.99 2001:db8:1::99 198.18.1.1 2001:db8:1::1
fp_enable veth0
must ip netns exec "$NSR1" nft delete table ip nat
must ip -n "$NS2" route del 198.18.10.1 via 198.18.2.1
must ip -n "$NS2" route add default via 198.18.2.1
must busywait 10000 ping_ok "$NS1" 198.18.2.99

modprobe -a -q xfrm_user esp4 authenc echainiv 2>/dev/null
ENC_KEY=0x$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
AUTH_KEY=0x$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')

# esp NS ME PEER LNET RNET SPI_OUT SPI_IN: a tunnel-mode SA pair and the
# out and fwd policies between LNET and RNET, as the kernel's test sets up.
esp() {
	ip -n "$1" xfrm state add src "$3" dst "$2" proto esp spi "$7" mode tunnel \
		enc 'cbc(aes)' "$ENC_KEY" auth 'hmac(sha256)' "$AUTH_KEY" sel src "$5" dst "$4" &&
		ip -n "$1" xfrm state add src "$2" dst "$3" proto esp spi "$6" mode tunnel \
			enc 'cbc(aes)' "$ENC_KEY" auth 'hmac(sha256)' "$AUTH_KEY" sel src "$4" dst "$5" &&
		ip -n "$1" xfrm policy add src "$4" dst "$5" dir out \
			tmpl src "$2" dst "$3" proto esp mode tunnel priority 1 action allow &&
		ip -n "$1" xfrm policy add src "$5" dst "$4" dir fwd \
			tmpl src "$3" dst "$2" proto esp mode tunnel priority 1 action allow
}

if ! out=$(esp "$NSR1" 198.18.10.1 198.18.10.2 198.18.1.0/24 198.18.2.0/24 0x1001 0x1002 2>&1); then
	log_info "no ESP tunnel on this kernel, its step skipped: $out"
else
	must esp "$NSR2" 198.18.10.2 198.18.10.1 198.18.2.0/24 198.18.1.0/24 0x1002 0x1001
	must busywait 10000 ping_ok "$NS1" 198.18.2.99
	xfrm0=$(fp_num "$(fp_stat not_learned.xfrm)")
	fwd0=$(fp_num "$(fp_stat forwarded.bytes)")
	must ip netns exec "$NSR1" nft reset counters table inet filter >/dev/null
	xfer "ipsec tunnel" 4 198.18.2.99 "$PORT"
	check_ge "${T}ipsec tunnel: fasttrack refused the connection (not_learned.xfrm)" \
		"$(fp_num "$(fp_stat not_learned.xfrm)")" $((xfrm0 + 1))
	check_eq "${T}ipsec tunnel: nothing of it took the fast path" "$fwd0" \
		"$(fp_num "$(fp_stat forwarded.bytes)")"
	check_ge "${T}ipsec tunnel: the forward chain saw the whole file, client to server" \
		"$(routed orig)" "$size"
fi

check_dmesg_clean "${T}no kernel splat"

if [ -z "$FT_KNF_MTUS" ]; then
	fp_rand o 1280 65535
	fp_rand l 1280 65535
	fp_rand r 1280 65535
	log_info "again with random MTUs: FT_KNF_MTUS=\"$o $l $r\""
	FT_KNF_MTUS="$o $l $r" FP_SEED=$FP_SEED "$0" || ret=$KSFT_FAIL
fi
fp_exit
