#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043 # dash has "local"
# Fault under load: change the MTU of the egress VLAN device (vlan2222) in a
# loop while an iperf3 stream per family runs through the fast path. The
# streams complete. Then the MTU drops once, mid-stream, with the client's
# path MTU cache empty: the client must learn the new path MTU from the
# router, which it would not if the fast path went on forwarding frames
# above the new MTU.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_fault.sh"

mtu_round=0
mtu_change() {
	local mtu
	mtu_round=$((mtu_round + 1))
	case $((mtu_round % 4)) in
	0) mtu=1500 ;;
	1) mtu=1400 ;;
	2) mtu=1280 ;;
	3) mtu=1480 ;;
	esac
	ip -n "$NS_ROUTER" link set dev "$ROUTER_SERVER_DEV" mtu "$mtu" && sleep 0.3
}

# pmtu FAMILY: the client's path MTU to the server, from its route cache.
pmtu() {
	ip -n "$NS_CLIENT" -"$1" route get "$(fp_server_ip "$1")" |
		sed -n 's/.* mtu \([0-9]*\).*/\1/p' | head -n 1
}

fault_setup
fault_streams_start
fault_wait_offload
fault_loop "MTU changes on $ROUTER_SERVER_DEV" 2 mtu_change
fault_streams_check "MTU changes in a loop"

# Flows learned at MTU 1500 must not outlive a drop to 1280: the client's
# path MTU cache is empty, so only the router's "fragmentation needed" and
# "packet too big" can teach it the new MTU, and a fast path that went on
# forwarding 1500-byte packets would send none.
must ip -n "$NS_ROUTER" link set dev "$ROUTER_SERVER_DEV" mtu 1500
must ip -n "$NS_CLIENT" -4 route flush cache
must ip -n "$NS_CLIENT" -6 route flush cache
fault_streams_start
fault_wait_offload
# A busy host can stall the guest until a stream is over; then the drop
# would not be mid-stream and nothing would teach the client.
check "both streams still run before the MTU drop" fault_streams_running
check "lower the MTU to 1280 mid-stream" ip -n "$NS_ROUTER" link set dev "$ROUTER_SERVER_DEV" mtu 1280
fault_streams_check "MTU lowered to 1280 mid-stream"
check_output "the client learned path MTU 1280 (IPv4)" 1280 pmtu 4
check_output "the client learned path MTU 1280 (IPv6)" 1280 pmtu 6
fault_check_drained
fault_finish
