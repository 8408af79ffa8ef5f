#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# The XDP tier carries a router-on-a-stick's flows, VLAN to VLAN on one
# trunk ("ftctl xdp on trunk0", lib_xdp.sh), and keeps the books as the
# full stack would. With nf_conntrack_acct=1, for IPv4 and IPv6, TCP
# uploads and downloads: plain, masqueraded, and to a port forward (DNAT,
# masqueraded too). For each transfer:
#  - the data arrives intact, the forward chain sees at most 10 % of the
#    bytes (the handshakes), and the XDP tier forwarded at least 80 % of
#    them, by its own counters (ftctl show: xdp bytes);
#  - conntrack's bytes and packets of each direction are exactly what the
#    forward chain counted plus what fasttrack forwarded (both tiers):
#    every packet counted once, as the stack counts it;
#  - the VLAN devices count the frames: rx of the ingress VLAN holds
#    conntrack's bytes of that direction, tx of the egress VLAN those bytes
#    and an Ethernet header per packet, and neither more than 1 % over
#    (neighbour traffic).
# Skipped, with ftctl's reason, where the kernel or the module has no XDP
# tier (fastpath_xdp_fallback tests that refusal).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_hooks.sh"
. "$(dirname "$0")/lib_xdp.sh"

fp_init
require_cmd conntrack
fp_setup_stick
xdp_setup
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV
must ip netns exec "$NS_ROUTER" sysctl -qw net.netfilter.nf_conntrack_acct=1

# ct_acct PORT: "OBYTES RBYTES OPKTS RPKTS" of the router's conntrack entry
# of the TCP connection of $fam to PORT (as the client sent it).
ct_acct() {
	ip netns exec "$NS_ROUTER" conntrack -L -f "ipv$fam" -o extended -p tcp 2>/dev/null |
		awk -v p="dport=$1" '
		{ hit = 0; for (i = 1; i <= NF; i++) if ($i == p) hit = 1 }
		hit { n = 0; m = 0
		      for (i = 1; i <= NF; i++) {
			if ($i ~ /^bytes=/) b[++n] = substr($i, 7)
			if ($i ~ /^packets=/) k[++m] = substr($i, 9) }
		      print b[1], b[2], k[1], k[2]; exit }'
}

# dev_bytes DEV rx|tx: DEV's byte counter in the router (ip -s link).
dev_bytes() {
	ip -n "$NS_ROUTER" -s link show dev "$1" | awk -v d="$2" '
		$1 == "RX:" && d == "rx" { getline; print $1; exit }
		$1 == "TX:" && d == "tx" { getline; print $1; exit }'
}

# snap: the counters a transfer is judged by, before it.
snap() {
	fp_begin
	X0_C=$(xdp_bytes "$cdev" "$fam") X0_S=$(xdp_bytes "$sdev" "$fam")
	D0_CRX=$(dev_bytes "$cdev" rx) D0_STX=$(dev_bytes "$sdev" tx)
	D0_SRX=$(dev_bytes "$sdev" rx) D0_CTX=$(dev_bytes "$cdev" tx)
}

# judge DESC SIZE c2s|s2c PORT: the checks above, for a transfer of SIZE
# bytes in that direction to the server's PORT.
judge() {
	local desc="$1" size="$2" dir="$3" slow fast xdp ob rb op rp
	fp_end
	set -- $(ct_acct "$4")
	ob=$(fp_num "$1") rb=$(fp_num "$2") op=$(fp_num "$3") rp=$(fp_num "$4")
	if [ "$dir" = c2s ]; then
		slow=$FPD_C2S fast=$(fp_cdelta "$fam")
		xdp=$(($(xdp_bytes "$cdev" "$fam") - X0_C))
	else
		slow=$FPD_S2C fast=$(fp_sdelta "$fam")
		xdp=$(($(xdp_bytes "$sdev" "$fam") - X0_S))
	fi
	fp_check_offload "$desc" "$size" "$slow" "$fast"
	hk_pct_ge "$desc: the XDP tier forwarded >= 80% of the bytes ($xdp B)" "$xdp" "$size" 80
	check_eq "$desc: conntrack's bytes client to server = forward chain + fasttrack" \
		"$ob" $((FPD_C2S + $(fp_cdelta "$fam")))
	check_eq "$desc: conntrack's bytes server to client = forward chain + fasttrack" \
		"$rb" $((FPD_S2C + $(fp_sdelta "$fam")))
	in_range "$desc: $cdev rx bytes hold conntrack's client-to-server bytes" \
		$(($(dev_bytes "$cdev" rx) - D0_CRX)) "$ob"
	in_range "$desc: $sdev tx bytes hold them, with an Ethernet header each" \
		$(($(dev_bytes "$sdev" tx) - D0_STX)) $((ob + 14 * op))
	in_range "$desc: $sdev rx bytes hold conntrack's server-to-client bytes" \
		$(($(dev_bytes "$sdev" rx) - D0_SRX)) "$rb"
	in_range "$desc: $cdev tx bytes hold them, with an Ethernet header each" \
		$(($(dev_bytes "$cdev" tx) - D0_CTX)) $((rb + 14 * rp))
}

check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1 ($2 B)"
	else
		fail "$1" "conntrack: $2 B; forward chain + fasttrack: $3 B" \
			"ftctl -j stats: $(fp_stats)"
	fi
}

# in_range DESC GOT WANT: WANT <= GOT <= WANT + 1 %.
in_range() {
	if [ "$2" -ge "$3" ] && [ $(($2 * 100)) -le $(($3 * 101)) ]; then
		pass "$1 ($2 B, conntrack $3 B)"
	else
		fail "$1" "device: $2 B; from conntrack: $3 B (at most 1 % more expected)"
	fi
}

# transfers FAMILY WHAT [ADDR FWDPORT]: an upload and a download, judged.
transfers() {
	local what="$2" port
	fp_rand size 2097152 4194304
	file=$(fp_mkfile "x$fam$what" "$size")
	fp_port port
	snap
	fp_tcp_transfer "IPv$fam $what TCP upload" "$fam" "$file" "$3" "${4:-$port}" "$port"
	judge "IPv$fam $what TCP upload" "$size" c2s "$port"
	if [ -z "$3" ]; then
		snap
		fp_tcp_fetch "IPv$fam $what TCP download" "$fam" "$file"
		judge "IPv$fam $what TCP download" "$size" s2c "$FP_FETCH_PORT"
	fi
}

# nat_rules FAMILY RADDR SADDR FWDPORT SRVPORT: masquerade, and a port
# forward on the router's client-side address to the server.
nat_rules() {
	must ip netns exec "$NS_ROUTER" nft -f - <<-EOF2
		table $1 ft_xdp_nat {
			chain pre {
				type nat hook prerouting priority dstnat;
				iifname "$cdev" $1 daddr $2 tcp dport $4 dnat to $3:$5
			}
			$(fp_masq_chain)
		}
	EOF2
}

for fam in 4 6; do
	transfers "$fam" plain
	fp_port fwd
	fp_port srv
	if [ "$fam" = 4 ]; then
		nat_rules ip "$ROUTER_CLIENT_IP4" "$SERVER_IP4" "$fwd" "$srv"
		raddr=$ROUTER_CLIENT_IP4
	else
		nat_rules ip6 "$ROUTER_CLIENT_IP6" "[$SERVER_IP6]" "$fwd" "$srv"
		raddr=$ROUTER_CLIENT_IP6
	fi
	transfers "$fam" masquerade
	fp_rand size 2097152 4194304
	file=$(fp_mkfile "d$fam" "$size")
	snap
	fp_tcp_transfer "IPv$fam DNAT TCP :$fwd -> :$srv" "$fam" "$file" "$raddr" "$fwd" "$srv"
	judge "IPv$fam DNAT TCP" "$size" c2s "$fwd"
	must ip netns exec "$NS_ROUTER" nft delete table "$([ "$fam" = 4 ] && echo ip || echo ip6)" ft_xdp_nat
done

fp_exit
