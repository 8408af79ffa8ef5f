#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fault under load: "conntrack -F" in a loop in the router while an iperf3
# stream per family runs through the fast path. Each flush kills the
# connections that the cached flows hold; the flows must die with them and
# be learned again from the new conntrack entries. The streams complete.
#
# The flushes stop some seconds before the streams end. iperf3 ends a test
# on its idle control connection, where the server speaks right after the
# client. A flush between the two leaves the server's reply with no entry,
# and the firewall lets only the client open one: the reply is dropped
# until the client speaks again, which it never does. That is the
# firewall's rule at work, with or without fasttrack, and not the fault
# under test.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_fault.sh"

require_cmd conntrack
ct_flush() { in_router conntrack -F; sleep 0.2; }

fault_setup
FAULT_LOOP_UNTIL=$(($(now_ms) + (FAULT_SECONDS - 5 * FT_SLOWDOWN) * 1000))
fault_streams_start
fault_wait_offload
b4=$(fault_fast_bytes "$ROUTER_CLIENT_DEV" 4) b6=$(fault_fast_bytes "$ROUTER_CLIENT_DEV" 6)
fault_loop "conntrack -F" 2 ct_flush
# Flows are learned again after each flush: the fast path kept carrying.
check_ge "the fast path carried IPv4 between the conntrack flushes" "$(fault_fast_bytes "$ROUTER_CLIENT_DEV" 4)" $((b4 + 1))
check_ge "the fast path carried IPv6 between the conntrack flushes" "$(fault_fast_bytes "$ROUTER_CLIENT_DEV" 6)" $((b6 + 1))
fault_streams_check "conntrack -F in a loop"
check_ge "flows died with their connections (ct_gone)" "$(fp_stat ct_gone)" 1
fault_check_drained
fault_finish
