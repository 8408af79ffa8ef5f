#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_* set
# variables by name; busywait and check call functions by name.
# The fast path and the router's bridges, beside fastpath_bridge's
# VLAN-aware one:
#  - plain bridges (no VLAN filtering) as the router's L3 devices: br0
#    (port swp1, to the client) and br1, whose port is a VLAN device
#    (swp2.50, to the server). TCP both ways and UDP, both families, are
#    offloaded and intact;
#  - an enabled device that becomes a bridge port mid-stream (its addresses
#    move to the bridge): the stream's flows through it go, the enable
#    moves to the bridge (the device to enable: it receives the port's
#    traffic), which offloads the stream again; enabling the port itself
#    is refused. Out of the bridge, the device is enabled again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"
. "$(dirname "$0")/lib_l2dev.sh"

fp_init
require_cmd jq bridge

l2_setup_fp pbridge
l2_transfers pbridge
l2_teardown

# ------------------------------------------ an enabled device becomes a port --

# stream_flows DEV: the cached flows of the stream that entered through DEV.
stream_flows() {
	ip netns exec "$NS_ROUTER" ftctl -j flows |
		jq --argjson p "$FP_STREAM_PORT" --arg d "$1" \
			'[.[] | select((.sport == $p or .dport == $p) and .iif_name == $d)] | length'
}
no_stream_flows() { [ "$(stream_flows "$1")" = 0 ]; }

fp_setup_plain
cdev=$ROUTER_CLIENT_DEV
for fam in 4 6; do
	d="IPv$fam $cdev becomes a port"
	# Long enough at FP_SLOW_RATE to outlast the checks on a busy host.
	stream=$(fp_mkfile "port$fam" 6291456)
	fp_stream_start "port$fam" "$fam" "$stream"
	st_offloaded "$d" "$fam" || { st_stream_stop; continue; }
	check_ge "$d: the stream has a flow through $cdev" "$(stream_flows "$cdev")" 1
	# Its addresses move to the bridge, which takes its MAC address: the
	# client sees no change. (Its link-local address stays: without one,
	# it could not send neighbour solicitations once it is back.)
	check "$d: $cdev joins br9, its addresses move to br9" ip netns exec "$NS_ROUTER" sh -c "
		ip link add br9 type bridge &&
		ip link set $cdev master br9 &&
		ip addr del $ROUTER_CLIENT_IP4/24 dev $cdev &&
		ip addr del $ROUTER_CLIENT_IP6/64 dev $cdev &&
		ip addr add $ROUTER_CLIENT_IP4/24 dev br9 &&
		ip addr add $ROUTER_CLIENT_IP6/64 dev br9 nodad &&
		ip link set br9 up"
	fp_stream_running "$d"
	fast0=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	if busywait 2000 no_stream_flows "$cdev"; then
		pass "$d: the stream's flows through $cdev are gone"
	else
		fail "$d: the stream's flows through $cdev are gone" \
			"$(stream_flows "$cdev") left; ftctl -j flows: $(ip netns exec "$NS_ROUTER" ftctl -j flows)"
	fi
	log_info "$d: ftctl -j show: $(ip netns exec "$NS_ROUTER" ftctl -j show | tr -d ' \n')"
	# The master receives what the port did: the enable moves there.
	check_eq "$d: $cdev, a port now, is no longer enabled" "ipv4=null ipv6=null" "$(fp_state "$cdev")"
	check_eq "$d: br9 is enabled in its place" "ipv4=true ipv6=true" "$(fp_state br9)"
	check_fail "$d: enabling the port $cdev is refused, naming br9" "port of (br9|a bridge)" \
		ip netns exec "$NS_ROUTER" ftctl enable "$cdev"
	l2_fast_grows "$d: br9 offloads the stream" br9 "$fam"
	check_le "$d: the fast path forwards nothing more received on $cdev" \
		"$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")" "$fast0"
	st_stream_finish "$d" "port$fam" "$stream" 30000
	# Back to where it was, for the other family: a port no more, $cdev
	# is enabled again by its rule.
	must ip netns exec "$NS_ROUTER" sh -c "
		ip link del br9 &&
		ip addr add $ROUTER_CLIENT_IP4/24 dev $cdev &&
		ip addr add $ROUTER_CLIENT_IP6/64 dev $cdev nodad &&
		ip link set $cdev up"
	check_eq "$d: out of br9, $cdev is enabled again" "ipv4=true ipv6=true" "$(fp_state "$cdev")"
	topo_wait
done

fp_exit
