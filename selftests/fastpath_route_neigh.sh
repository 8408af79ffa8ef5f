#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# Route and neighbour changes in the middle of an offloaded stream. The
# server answers on two MAC addresses: its eth0 (OLD) and a macvlan on it
# (NEW, no address: the server still accepts its traffic). The server
# counts, on eth0's ingress, the stream's frames by destination MAC.
#  - neighbour: the router's entry for the server changes from OLD to NEW;
#  - route: a /32 (/128) route to the server via a second next hop whose
#    MAC is NEW replaces the connected route.
# Either way, the stream follows within one second, not one more frame of it
# goes to OLD, the fast path keeps carrying it, and it completes intact.
# With FP_XDP=1 (fastpath_xdp_stale), the XDP tier carries it before and
# after the change.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV
NEXTHOP4=198.18.222.3 NEXTHOP6=2001:db8:2222::3

old=$(ip netns exec "$NS_SERVER" cat /sys/class/net/eth0/address)
new=02:00:5e:$(od -An -N3 -tx1 /dev/urandom | sed 's/^ //; s/ /:/g')
must ip -n "$NS_SERVER" link add link eth0 name nmac type macvlan mode bridge
must ip -n "$NS_SERVER" link set nmac address "$new" up
must ip netns exec "$NS_SERVER" sysctl -qw net.ipv4.conf.all.rp_filter=0
must ip netns exec "$NS_SERVER" sysctl -qw net.ipv4.conf.nmac.rp_filter=0
log_info "server MACs: OLD $old (eth0), NEW $new (macvlan nmac)"

must ip netns exec "$NS_SERVER" nft -f - <<EOF2
table netdev ft_mac {
	counter old4 { }
	counter new4 { }
	counter old6 { }
	counter new6 { }
	chain in {
		type filter hook ingress device "eth0" priority 0;
		ether daddr $old ip daddr $SERVER_IP4 counter name "old4"
		ether daddr $new ip daddr $SERVER_IP4 counter name "new4"
		ether daddr $old ip6 daddr $SERVER_IP6 counter name "old6"
		ether daddr $new ip6 daddr $SERVER_IP6 counter name "new6"
	}
}
EOF2

macs() { fp_nft_counters "$NS_SERVER" "netdev ft_mac" "old$1" "new$1"; }
new_gt() { set -- "$1" "$2" $(macs "$1"); [ "$4" -gt "$2" ]; }

# change NAME FAMILY CMD...: run CMD in the router in the middle of an
# offloaded stream; the stream follows to NEW within 1 s and never goes
# back to OLD.
change() {
	local name="$1" fam="$2" stream o n o1 fast1
	shift 2
	stream=$(fp_mkfile "$name$fam" 8388608)
	fp_stream_start "$name$fam" "$fam" "$stream"
	if fp_wait_fast "$cdev" "$fam" $(($(fp_dev_bytes "$cdev" "$fam") + 262144)) 20000; then
		pass "IPv$fam $name: the stream is offloaded"
		[ "${FP_XDP:-0}" != 1 ] ||
			xdp_check_carries "IPv$fam $name: the XDP tier carries the stream" "$fam"
	else
		fail "IPv$fam $name: the stream is offloaded" "ftctl -j stats: $(fp_stats)"
	fi
	read -r o n <<-EOF2
		$(macs "$fam")
	EOF2
	check_ge "IPv$fam $name: the stream reaches the server at OLD before the change" "$o" 262144
	check "IPv$fam $name: ip $*" ip -n "$NS_ROUTER" "$@"
	start=$(now_ms)
	if busywait 1000 new_gt "$fam" "$n"; then
		pass "IPv$fam $name: the stream goes to NEW within 1 s (after $(($(now_ms) - start)) ms)"
	else
		fail "IPv$fam $name: the stream goes to NEW within 1 s" \
			"frames to OLD / NEW since: $(macs "$fam") (before: $o $n)" "ftctl -j stats: $(fp_stats)"
	fi
	fp_stream_running "IPv$fam $name"
	read -r o1 _ <<-EOF2
		$(macs "$fam")
	EOF2
	fast1=$(fp_dev_bytes "$cdev" "$fam")
	# Let 256 KB more go through the fast path, then look again.
	if fp_wait_fast "$cdev" "$fam" $((fast1 + 262144)) 20000; then
		pass "IPv$fam $name: the fast path carries the stream after the change"
		[ "${FP_XDP:-0}" != 1 ] ||
			xdp_check_carries "IPv$fam $name: the XDP tier carries it after the change" "$fam"
	else
		fail "IPv$fam $name: the fast path carries the stream after the change" "ftctl -j stats: $(fp_stats)"
	fi
	fp_stream_finish "IPv$fam $name" "$name$fam" "$stream"
	read -r o n <<-EOF2
		$(macs "$fam")
	EOF2
	check_eq "IPv$fam $name: no frame of the stream went to OLD after it moved to NEW" "$o1" "$o"
}

for fam in 4 6; do
	srv=$(fp_server_ip "$fam")
	if [ "$fam" = 4 ]; then nh=$NEXTHOP4 f=-4 len=32; else nh=$NEXTHOP6 f=-6 len=128; fi

	# The server's MAC changes: the router learns it (as if by ARP/ND).
	must ip -n "$NS_ROUTER" $f neigh replace "$srv" lladdr "$old" dev "$sdev" nud permanent
	change neigh "$fam" $f neigh replace "$srv" lladdr "$new" dev "$sdev" nud permanent
	must ip -n "$NS_ROUTER" $f neigh replace "$srv" lladdr "$old" dev "$sdev" nud permanent

	# A route to the server via another next hop, whose MAC is NEW.
	must ip -n "$NS_ROUTER" $f neigh replace "$nh" lladdr "$new" dev "$sdev" nud permanent
	change route "$fam" $f route add "$srv/$len" via "$nh" dev "$sdev"
	must ip -n "$NS_ROUTER" $f route del "$srv/$len" via "$nh" dev "$sdev"
done

fp_exit
