#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154 # dash has local; lib.sh sets $ret.
# The flow table's garbage collector runs only while flows are cached.
# Seen through the workqueue tracepoint (each run of ft_gc_work):
#   - with the module loaded and devices enabled in several namespaces, but
#     nothing cached, it does not run at all;
#   - a UDP transfer caches flows, and the GC then runs: it expires them
#     after the UDP timeout (2 s), so the table empties without a flush;
#   - once the table is empty it stops again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

TR=/sys/kernel/debug/tracing
[ -d "$TR/events/workqueue/workqueue_execute_start" ] ||
	ft_skip "no workqueue tracepoint under $TR (CONFIG_TRACEPOINTS)"

fp_init
fp_setup_plain

# A trace instance of our own, so that nothing else's tracing is touched.
GCT=$TR/instances/ftgc-$(ft_rand)
must mkdir "$GCT"
defer rmdir "$GCT"
must sh -c "echo 1 >'$GCT/events/workqueue/workqueue_execute_start/enable'"
defer sh -c "echo 0 >'$GCT/events/workqueue/workqueue_execute_start/enable'"

# gc_runs: runs of the GC since the trace was last cleared.
gc_runs() { grep -c 'function ft_gc_work' "$GCT/trace"; }
gc_clear() { : >"$GCT/trace"; }
cached() { fp_stat flows; }
table_empty() { [ "$(cached)" = 0 ]; }

# More namespaces where the module has state, none with flows.
setup_ns NS_IDLE1 NS_IDLE2

gc_clear
sleep "$(ft_secs 2)"
check_eq "no GC run in 2 s while no flow is cached" 0 "$(gc_runs)"

must ip netns exec "$NS_ROUTER" ftctl set udp-timeout 2
fp_rand size 262144 524288
file=$(fp_mkfile udp4 "$size")
fp_begin
fp_udp_transfer "IPv4 UDP" 4 "$file"
fp_end
fp_check_offload "IPv4 UDP" "$size" "$FPD_C2S" "$(fp_cdelta 4)"

# The GC expires the idle flows: nothing else removes them.
if busywait 10000 table_empty; then
	pass "the GC expires the idle flows"
else
	fail "the GC expires the idle flows" "flows still cached: $(cached)"
fi
check_ge "the GC ran while flows were cached" "$(gc_runs)" 1

# The run that found the table empty may still be under way: let it end.
sleep "$(ft_secs 1)"
gc_clear
sleep "$(ft_secs 2)"
check_eq "no GC run in 2 s once the table is empty again" 0 "$(gc_runs)"

fp_exit
