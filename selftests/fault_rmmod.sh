#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fault under load: rmmod fasttrack while an iperf3 stream per family runs
# through the fast path. The streams go on through the slow path (conntrack
# must accept their packets after the fast path moved their sequence
# numbers), and complete; the forward chain sees them again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_fault.sh"

fault_setup
fault_streams_start
fault_wait_offload

fp_begin
check "rmmod fasttrack mid-stream" rmmod fasttrack
fault_check_unloaded
if fault_streams_running; then
	pass "both streams still run after the rmmod"
else
	fail "both streams still run after the rmmod" "the streams ended too early to test anything"
fi
# The slow path carries them now: the forward chain counts their bytes.
slow_ge() { fp_read; [ $((FP_C2S - FP0_C2S)) -ge "$1" ]; }
if busywait 10000 slow_ge 100000; then
	pass "the forward chain carries the streams after the rmmod"
else
	fp_read
	fail "the forward chain carries the streams after the rmmod" \
		"forward chain client->server: $((FP_C2S - FP0_C2S)) B since the rmmod"
fi
fault_streams_check "after rmmod"
fault_finish
