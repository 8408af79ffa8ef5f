#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fault under load: the route to the server's service address flaps between
# two next hops (the server on VLAN 2222 and, through a second link, on VLAN
# 2223), by replace and by del + add, while an iperf3 stream per family to
# that address runs through the fast path. Cached flows must follow the
# route: the streams complete; then flows learned through the second next
# hop must follow the route back to the first one at once.
#
#   client --- vlan22 [router] vlan2222 --- eth0 server  lo: 198.18.250.2
#                              vlan2223 --- eth1         2001:db8:250::2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_fault.sh"

SVC4=198.18.250.2 SVC6=2001:db8:250::2
ALT4=198.18.223.2 ALT6=2001:db8:2223::2

setup_second_link() {
	must ip -n "$NS_SERVER" link add eth1 type veth peer name swp2223 netns "$NS_SWITCH"
	must ip -n "$NS_SWITCH" link set swp2223 master br0 up
	must bridge -n "$NS_SWITCH" vlan add dev swp2223 vid 2223 pvid untagged
	must bridge -n "$NS_SWITCH" vlan add dev swtrunk vid 2223
	must ip -n "$NS_ROUTER" link add link trunk0 name vlan2223 type vlan id 2223
	addr "$NS_ROUTER" vlan2223 198.18.223.1/24 2001:db8:2223::1/64
	addr "$NS_SERVER" eth1 "$ALT4/24" "$ALT6/64"
	must ip -n "$NS_SERVER" addr add "$SVC4/32" dev lo
	must ip -n "$NS_SERVER" addr add "$SVC6/128" dev lo
	must in_router ftctl enable vlan2223
	must in_router nft add rule inet ft_fwd forward \
		iifname "$ROUTER_CLIENT_DEV" oifname vlan2223 ct state new accept
	must in_router ip route add "$SVC4/32" via "$SERVER_IP4"
	must in_router ip -6 route add "$SVC6/128" via "$SERVER_IP6"
	must busywait 10000 ping_ok "$NS_CLIENT" "$SVC4"
	must busywait 10000 ping_ok "$NS_CLIENT" "$SVC6"
	# Both next hops resolved, so that no flap waits for ARP or ND.
	must busywait 10000 ping_ok "$NS_ROUTER" "$ALT4"
	must busywait 10000 ping_ok "$NS_ROUTER" "$ALT6"
}

flap() {
	in_router ip route replace "$SVC4/32" via "$ALT4" &&
		in_router ip -6 route replace "$SVC6/128" via "$ALT6" &&
		sleep 0.3 &&
		in_router ip route del "$SVC4/32" &&
		in_router ip route add "$SVC4/32" via "$SERVER_IP4" &&
		in_router ip -6 route del "$SVC6/128" &&
		in_router ip -6 route add "$SVC6/128" via "$SERVER_IP6" &&
		sleep 0.3
}

alt_rx() { ip netns exec "$NS_SERVER" cat /sys/class/net/eth1/statistics/rx_bytes; }

fault_setup
setup_second_link
rx0=$(alt_rx)
fault_stream_start v4 4 "$SVC4"
fault_stream_start v6 6 "$SVC6"
fault_wait_offload
fault_loop "route flaps" 2 flap
fault_streams_check "route flaps"
check_ge "the streams went through the second next hop too" $(($(alt_rx) - rx0)) 100000
check_ge "flows followed the route changes (route_changed)" "$(fp_stat route_changed)" 1

# Flows learned through the second next hop must not outlive the route:
# once it is back on the first, nothing may take the second.
must in_router ip route replace "$SVC4/32" via "$ALT4"
must in_router ip -6 route replace "$SVC6/128" via "$ALT6"
rx0=$(alt_rx)
fault_stream_start v4 4 "$SVC4" "$FAULT_SHORT"
fault_stream_start v6 6 "$SVC6" "$FAULT_SHORT"
fault_wait_offload
check_ge "the streams take the second next hop" $(($(alt_rx) - rx0)) 100000
check "move the route back to the first next hop" in_router ip route replace "$SVC4/32" via "$SERVER_IP4"
check "move the IPv6 route back to the first next hop" in_router ip -6 route replace "$SVC6/128" via "$SERVER_IP6"
sleep 0.5
rx0=$(alt_rx)
fault_streams_check "after the flaps"
check_le "no stream byte through the second next hop after the move" $(($(alt_rx) - rx0)) 10000
fault_check_drained
fault_finish
