#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fault under load: delete the router's netns while an iperf3 stream per
# family runs through its fast path, with flows cached and devices
# enabled. The netns is torn down (its devices disappear from the switch),
# the streams lose their path for good and are stopped, and the module then
# unloads cleanly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_fault.sh"

# The router's end of the trunk is gone once its netns is.
trunk_gone() { ! ip -n "$NS_SWITCH" link show swtrunk >/dev/null 2>&1; }

fault_setup
fault_streams_start
fault_wait_offload
check "delete the router netns mid-stream" ip netns del "$NS_ROUTER"
if busywait 30000 trunk_gone; then
	pass "the router netns is torn down"
else
	fail "the router netns is torn down" "swtrunk still exists in $NS_SWITCH 30 s later"
fi
# Both streams have lost their path; iperf3 would wait for it forever.
check "the client and server netns still work" ping_ok "$NS_CLIENT" 127.0.0.1
fault_stream_stop v4
fault_stream_stop v6
fault_finish
