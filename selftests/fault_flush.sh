#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fault under load: "ftctl flush" in a loop, of everything, of one device and
# of one family, while an iperf3 stream per family runs through the fast
# path. Flushed flows are learned again; the streams complete.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_fault.sh"

require_cmd ftctl
ftctl --help 2>&1 | grep -q '^ *flush' ||
	ft_skip "this ftctl has no flush command (ftctl --help)"

flush_round=0
flush() {
	flush_round=$((flush_round + 1))
	case $((flush_round % 4)) in
	0) in_router ftctl flush ;;
	1) in_router ftctl flush dev "$ROUTER_CLIENT_DEV" ;;
	2) in_router ftctl flush ipv6 ;;
	3) in_router ftctl flush dev "$ROUTER_SERVER_DEV" ipv4 ;;
	esac && sleep 0.2
}

fault_setup
fault_streams_start
fault_wait_offload
b4=$(fault_fast_bytes "$ROUTER_CLIENT_DEV" 4) b6=$(fault_fast_bytes "$ROUTER_CLIENT_DEV" 6)
fault_loop "ftctl flush" 2 flush
# Flows are learned again after each flush: the fast path kept carrying.
check_ge "the fast path carried IPv4 between the flushes" "$(fault_fast_bytes "$ROUTER_CLIENT_DEV" 4)" $((b4 + 1))
check_ge "the fast path carried IPv6 between the flushes" "$(fault_fast_bytes "$ROUTER_CLIENT_DEV" 6)" $((b6 + 1))
fault_streams_check "flush in a loop"
check_ge "flows were flushed (flushed counter)" "$(fp_stat flushed)" 1
fault_check_drained
fault_finish
