#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_* set
# variables by name; busywait and check call functions by name.
# The fast path across the router's own VLAN-aware bridge: br0
# (vlan_filtering) is the switch of router-on-a-stick, fasttrack on br0.22
# and br0.2222. TCP both ways and UDP, both families, are offloaded and
# intact. Then the server moves mid-stream to another port of br0 (its link
# goes down on swp2222, the same MAC and addresses come up on swp2222b):
# the bridge finds it on the new port, the fast path keeps carrying the
# stream (it leaves through br0, whose FDB picks the port per packet) and
# the data arrive intact.
# fastpath_bridge_port has plain bridges and a device that becomes a port.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"
. "$(dirname "$0")/lib_l2dev.sh"

fp_init
require_cmd jq bridge

# ------------------------------------------------- VLAN-aware bridge --

l2_setup_fp vbridge
l2_transfers vbridge

# The server's second link: eth1 in the server, swp2222b on br0 (pvid
# 2222), down until the server moves to it, with eth0's MAC address.
# swp2222b has the lowest MAC of br0's ports: br0 keeps its own all the
# same (l2_fix_mac), or the hosts would lose the router.
smac=$(ip netns exec "$NS_SERVER" cat /sys/class/net/eth0/address)
must ip -n "$NS_SERVER" link add eth1 type veth peer name swp2222b netns "$NS_ROUTER"
must ip -n "$NS_SERVER" link set eth1 address "$smac"
must ip -n "$NS_ROUTER" link set swp2222b address 02:00:00:00:00:01
rmac() { ip netns exec "$NS_ROUTER" cat /sys/class/net/br0.22/address; }
rmac0=$(rmac)
l2_bridge_port swp2222b 2222
check_eq "the router's MAC stays with a new port on br0" "$rmac0" "$(rmac)"

# move_server FROM TO: the server's link goes down on FROM and comes up on
# TO, with the same MAC and addresses, in one go.
move_server() {
	ip netns exec "$NS_SERVER" sh -c "
		ip link set $1 down &&
		ip addr flush dev $1 &&
		ip addr add $SERVER_IP4/24 dev $2 &&
		ip addr add $SERVER_IP6/64 dev $2 nodad &&
		ip link set $2 up &&
		ip route replace default via $ROUTER_SERVER_IP4 dev $2 &&
		ip -6 route replace default via $ROUTER_SERVER_IP6 dev $2"
}

# fdb_port: the port of br0 on which the FDB has the server's MAC.
fdb_port() {
	bridge -n "$NS_ROUTER" fdb show br br0 vlan 2222 |
		awk -v m="$smac" '$1 == m && $2 == "dev" { print $3; exit }'
}
fdb_is() { [ "$(fdb_port)" = "$1" ]; }

from=eth0 to=eth1 newport=swp2222b
for fam in 4 6; do
	d="IPv$fam FDB move"
	stream=$(fp_mkfile "move$fam" 6291456)
	fp_stream_start "move$fam" "$fam" "$stream"
	st_offloaded "$d" "$fam" || { st_stream_stop; continue; }
	tx0=$(l2_tx_bytes "$NS_ROUTER" "$newport")
	check "$d: the server moves from $from to $to" move_server "$from" "$to"
	fp_stream_running "$d"
	if busywait 10000 fdb_is "$newport"; then
		pass "$d: br0 finds the server on $newport"
	else
		fail "$d: br0 finds the server on $newport" "it is on '$(fdb_port)'" \
			"$(bridge -n "$NS_ROUTER" fdb show br br0)"
	fi
	l2_fast_grows "$d: the fast path carries the stream after the move" "$ROUTER_CLIENT_DEV" "$fam"
	if l2_tx_ge "$NS_ROUTER" "$newport" $((tx0 + 262144)); then
		pass "$d: the stream leaves through $newport"
	else
		fail "$d: the stream leaves through $newport" \
			"$newport sent $(($(l2_tx_bytes "$NS_ROUTER" "$newport") - tx0)) B since the move"
	fi
	st_stream_finish "$d" "move$fam" "$stream" 30000
	# And back, for the other family.
	from=eth1 to=eth0 newport=swp2222
done

fp_exit
