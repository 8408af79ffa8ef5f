#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# conntrack's accounting of offloaded flows is exact, with
# nf_conntrack_acct=1 in the router.
# (a) More than 2^32 bytes at once. A UDP exchange is
#     offloaded, then left idle. Through the module's test hook (debugfs
#     fasttrack/acct_add, present when it is built with FT_TEST_HOOKS=1),
#     its client->server flow gets 3 packets and 5000000000 bytes more, as
#     if it had forwarded them. At once, conntrack's counters of that
#     direction have grown by exactly that, plus what the fast path
#     forwarded meanwhile (nothing: the test checks that the flow stayed
#     idle), and the other direction not at all. Without the hook file
#     this part fails: it cannot prove anything.
# (b) One direction driven from two CPUs at once (needs 2 vCPUs; skipped
#     with one): two pktgen threads, one per CPU, send the same UDP
#     5-tuple from the client, so the router's fast path updates the same
#     flow on both CPUs. conntrack's packet count of that direction then
#     matches what the router forwarded (its per-CPU device counters, plus
#     what the slow path saw) within 0.1 %.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

INJECT_BYTES=5000000000
INJECT_PACKETS=3
PG_COUNT=${PG_COUNT:-20000}	# packets per pktgen thread

fp_init
require_cmd udpecho jq
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV
must ip netns exec "$NS_ROUTER" sysctl -qw net.netfilter.nf_conntrack_acct=1

fp_debugfs ""
hook=$FP_DBG/acct_add

# flow_id FAMILY PORT DIR: the id of the cached flow of the UDP connection
# to PORT in direction DIR (original, reply), or nothing.
flow_id() {
	ip netns exec "$NS_ROUTER" ftctl -j flows | jq -r --arg f "ipv$1" --argjson p "$2" --arg d "$3" \
		'.[] | select(.family == $f and .proto == "udp" and .dir == $d and
			(if $d == "original" then .dport else .sport end) == $p) | .id' | head -n 1
}

# ct_orig_packets_ge FAMILY PORT N: conntrack counts at least N packets
# client->server on the UDP connection to PORT.
ct_orig_packets_ge() {
	set -- "$@" $(fp_ct_acct "$1" udp "$2")
	[ "$4" -ge "$3" ]
}

# exchange FAMILY PORT COUNT: COUNT datagrams to an echo server on PORT,
# all answered, offloaded in both directions.
exchange() {
	fp_bg "echo$1" ip netns exec "$NS_SERVER" udpecho -s "$2"
	ECHO_PID=$FP_PID
	must busywait 5000 fp_listening "$NS_SERVER" udp "$2"
	check "IPv$1: $3 datagrams answered" fp_run ip netns exec "$NS_CLIENT" \
		udpecho -c "$(fp_server_ip "$1")" "$2" "$3" "$(($(ft_secs 5) * 1000))"
}

# --------------------------------------- (a) above 2^32 bytes, at once --

for fam in 4 6; do
	fp_port port
	st_srv_count udp "$port"
	fast0=$(st_fast "$fam")
	exchange "$fam" "$port" 20
	check_ge "IPv$fam: the fast path carried part of the exchange" "$(st_fast "$fam")" $((fast0 + 1))
	id=$(flow_id "$fam" "$port" original)
	check "IPv$fam: the client->server flow is cached (ftctl -j flows)" test -n "$id"
	# At once: the fast path counts into conntrack as it forwards.
	if ct_orig_packets_ge "$fam" "$port" 20; then
		pass "IPv$fam: conntrack counts all 20 datagrams client->server at once"
	else
		fail "IPv$fam: conntrack counts all 20 datagrams client->server at once" \
			"conntrack: $(fp_ct_acct "$fam" udp "$port") (orig packets, bytes, reply packets, bytes)"
	fi
	read -r p0 b0 rp0 rb0 <<-EOF
		$(fp_ct_acct "$fam" udp "$port")
	EOF
	sp0=$(st_srv_packets "$port") sb0=$(st_srv_bytes "$port")
	log_info "IPv$fam: flow $id; conntrack before: orig $p0 packets $b0 B, reply $rp0 packets $rb0 B"

	if [ -e "$hook" ]; then
		pass "IPv$fam: debugfs fasttrack/acct_add is there"
		check "IPv$fam: add $INJECT_PACKETS packets, $INJECT_BYTES B to flow $id" \
			ip netns exec "$NS_ROUTER" sh -c "echo '$id $INJECT_PACKETS $INJECT_BYTES' >$hook"
	else
		fail "IPv$fam: debugfs fasttrack/acct_add is there" \
			"no $hook: the module must be built with FT_TEST_HOOKS=1 for this test"
	fi
	read -r p1 b1 rp1 rb1 <<-EOF
		$(fp_ct_acct "$fam" udp "$port")
	EOF
	sp1=$(st_srv_packets "$port") sb1=$(st_srv_bytes "$port")
	check_eq "IPv$fam: the flow stayed idle (the server got nothing more)" "$sp0 $sb0" "$sp1 $sb1"
	check_eq "IPv$fam: conntrack's orig bytes grew by exactly $INJECT_BYTES (plus what crossed meanwhile)" \
		$((b0 + INJECT_BYTES + sb1 - sb0)) "$b1"
	check_eq "IPv$fam: conntrack's orig packets grew by exactly $INJECT_PACKETS (plus what crossed meanwhile)" \
		$((p0 + INJECT_PACKETS + sp1 - sp0)) "$p1"
	check_eq "IPv$fam: conntrack's reply direction did not change" "$rp0 $rb0" "$rp1 $rb1"
	fp_kill "$ECHO_PID"
done

# ----------------------------------------- (b) one direction, two CPUs --

# pg NS SCRIPT ARGS...: run a pktgen script (sh) in NS.
pg() {
	local ns="$1"
	shift
	ip netns exec "$ns" sh -c "$@"
}

# pg_setup CPU: pktgen thread CPU sends PG_COUNT packets of the 5-tuple
# from the client's eth0 to the router.
pg_setup() {
	local dev="/proc/net/pktgen/eth0@$1" addrs
	if [ "$fam" = 4 ]; then
		addrs="echo 'src_min $CLIENT_IP4' >$dev; echo 'src_max $CLIENT_IP4' >$dev; echo 'dst $SERVER_IP4' >$dev"
	else
		addrs="echo 'src6 $CLIENT_IP6' >$dev; echo 'dst6 $SERVER_IP6' >$dev"
	fi
	pg "$NS_CLIENT" "set -e
		echo 'rem_device_all' >/proc/net/pktgen/kpktgend_$1
		echo 'add_device eth0@$1' >/proc/net/pktgen/kpktgend_$1
		echo 'count $PG_COUNT' >$dev
		echo 'clone_skb 0' >$dev
		echo 'pkt_size 128' >$dev
		echo 'delay 20000' >$dev
		echo 'dst_mac $rmac' >$dev
		$addrs
		echo 'udp_src_min $sport' >$dev
		echo 'udp_src_max $sport' >$dev
		echo 'udp_dst_min $port' >$dev
		echo 'udp_dst_max $port' >$dev
		echo 'flag UDPCSUM' >$dev"
}

# pg_sent CPU: what pktgen thread CPU sent.
pg_sent() {
	ip netns exec "$NS_CLIENT" cat "/proc/net/pktgen/eth0@$1" |
		sed -n 's/.*pkts-sofar: *\([0-9]*\).*/\1/p' | head -n 1
}

# dev_packets: fast-path packets of the family on the client-side device.
dev_packets() {
	fp_num "$(ip netns exec "$NS_ROUTER" ftctl -j show | fp_jget "ifname=$cdev.ipv$fam.packets")"
}

# cpu_forwarded CPU: fast-path packets forwarded on CPU (all flows).
cpu_forwarded() {
	ip netns exec "$NS_ROUTER" ftctl -j stats -s |
		jq -r --argjson c "$1" '.per_cpu[] | select(.cpu == $c) | .forwarded.packets'
}

ncpus=$(st_ncpus)
if [ "$ncpus" -lt 2 ]; then
	log_info "SKIP: (b) one direction from two CPUs: needs 2 CPUs (this guest has $ncpus)"
	fp_exit
fi
if ! modprobe pktgen 2>/dev/null || ! ip netns exec "$NS_CLIENT" test -d /proc/net/pktgen; then
	fail "(b): pktgen is there (modprobe pktgen)"
	fp_exit
fi
rmac=$(ip netns exec "$NS_ROUTER" cat "/sys/class/net/$cdev/address")
# Two threads at once must not lose packets to a full backlog on the way.
backlog=$(sysctl -n net.core.netdev_max_backlog)
must sysctl -qw net.core.netdev_max_backlog=100000
defer sysctl -qw "net.core.netdev_max_backlog=$backlog"

for fam in 4 6; do
	fp_port port
	st_srv_count udp "$port"
	exchange "$fam" "$port" 5
	fp_kill "$ECHO_PID"
	# The server drops what pktgen sends, after counting it.
	must ip netns exec "$NS_SERVER" nft -f - <<-EOF
		table inet st_drop
		delete table inet st_drop
		table inet st_drop {
			chain pre {
				type filter hook prerouting priority -400;
				udp dport $port drop
			}
		}
	EOF
	sport=$(st_ct "$fam" udp "$port" |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^sport=/) { print substr($i, 7); exit } }')
	if [ -z "$sport" ] || [ -z "$(flow_id "$fam" "$port" original)" ]; then
		fail "IPv$fam (b): the exchange is cached" "conntrack: $(st_ct "$fam" udp "$port")" \
			"ftctl -j flows: $(ip netns exec "$NS_ROUTER" ftctl -j flows)"
		continue
	fi
	busywait 3000 ct_orig_packets_ge "$fam" "$port" 5
	read -r p0 _ <<-EOF
		$(fp_ct_acct "$fam" udp "$port")
	EOF
	d0=$(dev_packets)
	s0=$(fp_num "$(fp_nft_packets "$NS_ROUTER" "inet ft_fwd" c2s)")
	c0=$(fp_num "$(cpu_forwarded 0)") c1=$(fp_num "$(cpu_forwarded 1)")

	must pg_setup 0
	must pg_setup 1
	check "IPv$fam (b): two pktgen threads (CPU 0 and 1) send $PG_COUNT packets each" \
		pg "$NS_CLIENT" "timeout $(ft_secs 60) sh -c 'echo start >/proc/net/pktgen/pgctrl'"
	sent=$(($(fp_num "$(pg_sent 0)") + $(fp_num "$(pg_sent 1)")))
	d1=$(dev_packets)
	s1=$(fp_num "$(fp_nft_packets "$NS_ROUTER" "inet ft_fwd" c2s)")
	fwd=$((d1 - d0 + s1 - s0))
	c0=$(($(fp_num "$(cpu_forwarded 0)") - c0)) c1=$(($(fp_num "$(cpu_forwarded 1)") - c1))
	log_info "IPv$fam (b): pktgen sent $sent; the router forwarded $fwd ($((d1 - d0)) fast: CPU 0 $c0, CPU 1 $c1; $((s1 - s0)) slow); the server got $(st_srv_packets "$port")"
	log_info "IPv$fam (b): ftctl -j stats: $(fp_stats)"
	check_ge "IPv$fam (b): the fast path forwarded on CPU 0 (>= 10%)" $((c0 * 10)) "$fwd"
	check_ge "IPv$fam (b): the fast path forwarded on CPU 1 (>= 10%)" $((c1 * 10)) "$fwd"
	check_ge "IPv$fam (b): the router forwarded >= 99% of what pktgen sent" $((fwd * 100)) $((sent * 99))
	# The GC pushes the counts into conntrack within a second.
	busywait 3000 ct_orig_packets_ge "$fam" "$port" $((p0 + fwd))
	read -r p1 _ <<-EOF
		$(fp_ct_acct "$fam" udp "$port")
	EOF
	got=$((p1 - p0))
	off=$((got - fwd))
	[ "$off" -ge 0 ] || off=$((-off))
	if [ "$fwd" -gt 0 ] && [ $((off * 1000)) -le "$fwd" ]; then
		pass "IPv$fam (b): conntrack counts what the router forwarded, within 0.1% ($got of $fwd)"
	else
		fail "IPv$fam (b): conntrack counts what the router forwarded, within 0.1%" \
			"forwarded $fwd, conntrack counted $got (off by $off)"
	fi
	ip netns exec "$NS_SERVER" nft delete table inet st_drop
done

fp_exit
