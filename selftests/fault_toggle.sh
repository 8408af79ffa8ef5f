#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043 # dash has "local"
# Fault under load: "ftctl enable/disable" in a loop on both VLAN devices,
# for both families and one family at a time, while an iperf3 stream per
# family runs through the fast path. The streams complete, and the fast
# path carries them again once everything is enabled.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_fault.sh"

toggle_round=0
toggle() {
	local fam
	toggle_round=$((toggle_round + 1))
	case $((toggle_round % 3)) in
	0) fam= ;;
	1) fam=ipv4 ;;
	2) fam=ipv6 ;;
	esac
	# shellcheck disable=SC2086 # no family means both
	in_router ftctl disable "$ROUTER_CLIENT_DEV" $fam &&
		in_router ftctl disable "$ROUTER_SERVER_DEV" $fam &&
		sleep 0.1 &&
		in_router ftctl enable "$ROUTER_CLIENT_DEV" $fam &&
		in_router ftctl enable "$ROUTER_SERVER_DEV" $fam &&
		sleep 0.2
}

fault_setup
fault_streams_start
fault_wait_offload
fault_loop "ftctl disable/enable" 2 toggle
fault_streams_check "enable/disable in a loop"
check_output "both devices enabled for both families at the end" "ipv4=true ipv6=true" \
	ft_state "$NS_ROUTER" "$ROUTER_CLIENT_DEV"
# And the fast path still works: a new pair of streams is offloaded.
fault_streams_start "$FAULT_SHORT"
fault_wait_offload
fault_streams_check "after the toggling"
fault_check_drained
fault_finish
