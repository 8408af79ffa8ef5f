#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fault under load: delete the ingress VLAN device (vlan22), and then the
# egress one (vlan2222), each while an iperf3 stream per family runs
# through the fast path and while flows through it are cached. The flows
# must let go of the device at once (a reference left behind shows as
# "unregister_netdevice: waiting"), nothing may be forwarded through the
# deleted device, and when the device comes back (a new one, re-enabled)
# the streams resume and complete: they fail only while the path is gone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_fault.sh"

# readd DEV VID IP4 IP6: the VLAN device again, addressed and enabled.
readd() {
	must ip -n "$NS_ROUTER" link add link trunk0 name "$1" type vlan id "$2"
	addr "$NS_ROUTER" "$1" "$3/24" "$4/64"
	must in_router ftctl enable "$1"
}

fault_setup
for side in ingress egress; do
	if [ "$side" = ingress ]; then
		dev=$ROUTER_CLIENT_DEV vid=22 ip4=$ROUTER_CLIENT_IP4 ip6=$ROUTER_CLIENT_IP6
	else
		dev=$ROUTER_SERVER_DEV vid=2222 ip4=$ROUTER_SERVER_IP4 ip6=$ROUTER_SERVER_IP6
	fi
	fault_streams_start "$FAULT_SHORT"
	fault_wait_offload
	check "$side: delete $dev mid-stream" ip -n "$NS_ROUTER" link del "$dev"
	check_output "$side: $dev is gone from ftctl show" absent ft_state "$NS_ROUTER" "$dev"
	# Nothing goes out through a device that does not exist: every flow
	# that used it is gone. (The other direction's flows die with them.)
	check_output "$side: no cached flow left" 0 fault_flows
	sleep 1
	readd "$dev" "$vid" "$ip4" "$ip6"
	fault_streams_check "$side: $dev deleted and re-added"
done
fault_check_drained
fault_finish
