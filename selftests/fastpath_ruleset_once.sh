#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154 # dash has local; lib.sh sets $ret.
# An nftables commit sends each cached flow back through the stack once,
# not twice. The commit is live when its messages arrive, so one bump of
# the ruleset generation is enough; a second one, a grace period later,
# would tear down again each flow learned in between; and a commit sends
# several messages (its rules, then NFT_MSG_NEWGEN), of which one counts.
# The plain router, a paced IPv4 TCP stream (both directions cached):
#   - 10 commits (5 times a counter rule added to the forward chain, then
#     deleted) log the ruleset change once per commit and family: 20
#     entries of the route change logs (a kprobe on ft_route_log_append());
#   - the stream's directions are torn down at most once per commit
#     ("ruleset_changed" grows by at most 2 per commit), learned again and
#     forwarded by the fast path, and the stream completes intact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

TR=/sys/kernel/debug/tracing
[ -w "$TR/kprobe_events" ] || ft_skip "no kprobe events under $TR (CONFIG_KPROBE_EVENTS)"
NCOMMIT=5

fp_init
fp_setup_plain

fp_rand size 6291456 8388608
file=$(fp_mkfile stream "$size")
fp_stream_start stream 4 "$file"
must busywait 20000 fp_fast_ge eth1 4 1
must busywait 20000 fp_fast_ge eth2 4 1

tag=ft$(ft_rand)
T=$TR/instances/$tag
# The log also takes the routing changes of the namespace (IPv6's own
# routes as its addresses settle, for one): only the entries of a ruleset
# commit count, struct ft_route_change's "ruleset" (offset 18, after the
# 16-byte address, plen and all). A NULL change (covers all) reads as a
# fault, never as 1.
must sh -c "echo 'p:${tag}_log ft_route_log_append fam=\$arg2:u32 all=+17(\$arg3):u8 ruleset=+18(\$arg3):u8 dst=+19(\$arg3):u8' >>'$TR/kprobe_events'"
defer sh -c "echo '-:${tag}_log' >>'$TR/kprobe_events'"
must mkdir "$T"
defer rmdir "$T"
must sh -c "echo 1 >'$T/events/kprobes/${tag}_log/enable'"
defer sh -c "echo 0 >'$T/events/kprobes/${tag}_log/enable'"

rc0=$(fp_num "$(fp_stat ruleset_changed)")
i=0
while [ "$i" -lt "$NCOMMIT" ]; do
	# One transaction each: add a rule, then delete it by its handle.
	must ip netns exec "$NS_ROUTER" nft add rule inet ft_fwd forward counter comment '"once"'
	h=$(ip netns exec "$NS_ROUTER" nft -a list chain inet ft_fwd forward |
		sed -n 's/.*comment "once" # handle \([0-9]*\).*/\1/p')
	must ip netns exec "$NS_ROUTER" nft delete rule inet ft_fwd forward handle "$h"
	# Time for the stream to be torn down, learned again, and for a
	# second bump, if there were one (a grace period).
	sleep 0.3
	i=$((i + 1))
done
fp_stream_running "$NCOMMIT commits"
logs=$(grep -c "${tag}_log:.* ruleset=1 " "$T/trace")
if [ "$logs" = $((NCOMMIT * 2 * 2)) ]; then
	pass "each commit is logged once per family"
else
	fail "each commit is logged once per family" \
		"expected $((NCOMMIT * 2 * 2)) ruleset entries, got $logs; the log:" \
		"$(grep "${tag}_log:" "$T/trace")"
fi
check_le "each direction goes back to the stack at most once per commit" \
	$(($(fp_num "$(fp_stat ruleset_changed)") - rc0)) $((NCOMMIT * 2 * 2))
fast0=$(fp_num "$(fp_dev_bytes eth1 4)")
must busywait 20000 fp_fast_ge eth1 4 $((fast0 + 1))
pass "the stream is offloaded again after the commits"
fp_stream_finish "IPv4 stream" stream "$file"

fp_exit
