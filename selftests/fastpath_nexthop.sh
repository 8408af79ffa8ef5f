#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# Routes through nexthop objects ("ip nexthop"), changed under an offloaded
# stream. The router reaches the server through one of two gateways on
# the server VLAN, G1 (.3 / ::3) and G2 (.4 / ::4). Both are the server
# itself, answering on two MAC addresses: its eth0 (G1's) and a macvlan on
# it (G2's), as in fastpath_route_neigh. The server counts, on eth0's
# ingress, the stream's frames per destination MAC, that is per gateway.
#  - single: route to the server "nhid 1", nexthop 1 via G1; then
#    "ip nexthop replace id 1 via G2";
#  - group: route "nhid 10", group 10 = 1/2 (the stream hashes to one
#    member); then "ip nexthop replace id 10 group OTHER", the member it
#    did not use.
# Either way the stream moves to the new gateway within 100 ms, no frame
# of it goes to the old one after that, the fast path carries it again,
# and it completes intact. IPv4 and IPv6 ("ip -6 nexthop").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
require_cmd ethtool
fp_setup_stick
fp_csum_offload off
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV

if ! ip -n "$NS_ROUTER" nexthop list >/dev/null 2>&1; then
	ft_skip "no nexthop objects here (ip nexthop list fails)"
fi

st_gateways "$SERVER_IP4" "$SERVER_IP6"

# change_cmd HOW NEW: the "ip" arguments that move the stream to gateway
# NEW: "single" replaces nexthop n1 (via G1) by one via G2; "group"
# replaces group ng by the member the stream did not use.
change_cmd() {
	if [ "$1" = single ]; then
		echo "$f nexthop replace id $n1 via $g2 dev $sdev"
	elif [ "$2" = 1 ]; then
		echo "nexthop replace id $ng group $n1"
	else
		echo "nexthop replace id $ng group $n2"
	fi
}

# moved HOW FAMILY DESC: in the middle of an offloaded stream, find the
# gateway it uses, change the route's nexthop object in the router (HOW,
# see change_cmd); the stream must move to the other gateway within 100 ms
# and stay there.
moved() {
	local how="$1" fam="$2" desc="$3" stream old new a1 a2 base o0 n0 o1 fast1
	a1=$(st_gw_bytes 1 "$fam")
	a2=$(st_gw_bytes 2 "$fam")
	stream=$(fp_mkfile "$how$fam" 8388608)
	st_stream_start_steady "$how$fam" "$fam" "$stream"
	st_offloaded "$desc" "$fam"
	if [ $(($(st_gw_bytes 1 "$fam") - a1)) -ge $(($(st_gw_bytes 2 "$fam") - a2)) ]; then
		old=1 new=2
	else
		old=2 new=1
	fi
	o0=$(st_gw_bytes "$old" "$fam")
	n0=$(st_gw_bytes "$new" "$fam")
	if [ "$old" = 1 ]; then base=$a1; else base=$a2; fi
	check_ge "$desc: the server receives the stream through G$old" $((o0 - base)) 262144
	set -- $(change_cmd "$how" "$new")
	check "$desc: ip $*" ip -n "$NS_ROUTER" "$@"
	st_check_grown "$desc: the stream moves to G$new within 100 ms" "$(now_ms)" 100 "$n0" \
		st_gw_bytes "$new" "$fam"
	fp_stream_running "$desc"
	o1=$(st_gw_bytes "$old" "$fam")
	fast1=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	if fp_wait_fast "$cdev" "$fam" $((fast1 + 262144)) 20000; then
		pass "$desc: the fast path carries the stream after the change"
	else
		fail "$desc: the fast path carries the stream after the change" "ftctl -j stats: $(fp_stats)"
	fi
	st_stream_finish "$desc" "$how$fam" "$stream" 30000
	check_eq "$desc: no frame of the stream went through G$old after it moved" "$o1" "$(st_gw_bytes "$old" "$fam")"
}

for fam in 4 6; do
	srv=$(fp_server_ip "$fam")
	if [ "$fam" = 4 ]; then
		f=-4 len=32 g1=$ST_G1_IP4 g2=$ST_G2_IP4
	else
		f=-6 len=128 g1=$ST_G1_IP6 g2=$ST_G2_IP6
	fi
	# Nexthop ids per family: 1, 2, 10 for IPv4; 61, 62, 60 for IPv6.
	if [ "$fam" = 4 ]; then n1=1 n2=2 ng=10; else n1=61 n2=62 ng=60; fi
	must ip -n "$NS_ROUTER" $f nexthop add id "$n1" via "$g1" dev "$sdev"
	must ip -n "$NS_ROUTER" $f nexthop add id "$n2" via "$g2" dev "$sdev"

	# A single nexthop, replaced.
	must ip -n "$NS_ROUTER" $f route add "$srv/$len" nhid "$n1"
	moved single "$fam" "IPv$fam route nhid $n1, nexthop $n1 via G1 -> via G2"
	must ip -n "$NS_ROUTER" $f nexthop replace id "$n1" via "$g1" dev "$sdev"

	# A group of both, replaced by the member the stream did not use.
	must ip -n "$NS_ROUTER" nexthop add id "$ng" group "$n1/$n2"
	must ip -n "$NS_ROUTER" $f route replace "$srv/$len" nhid "$ng"
	moved group "$fam" "IPv$fam route nhid $ng, group $n1/$n2 -> the other member"
	must ip -n "$NS_ROUTER" $f route del "$srv/$len"
	must ip -n "$NS_ROUTER" nexthop del id "$ng"
	must ip -n "$NS_ROUTER" nexthop del id "$n1"
	must ip -n "$NS_ROUTER" nexthop del id "$n2"
done

fp_exit
