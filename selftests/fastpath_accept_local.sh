#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2016 # dash has local; lib.sh sets $ret;
# awk programs are in single quotes.
# A sysctl that changes the stack's decision and is seen only through the
# route generation. The plain router owns the client's address too (on
# dummy0) and accepts it as a source on eth1 (accept_local=1, rp_filter
# off), so that it forwards the client's UDP to the server. Then
# accept_local goes to 0: the stack calls the client's packets martians and
# drops them. No route changes and no netlink message says so; only
# rt_genid moves (rt_cache_flush()). The fast path must see that move at
# the next packet: the debugfs test hook fasttrack/fresh_hold keeps a flow
# fresh past its jiffy, so only the generation can send it to its dst
# check. For the full stack and fasttrack alike, the server receives
# nothing more of the connection.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

require_cmd ip ftctl conntrack udpecho
fp_init
fp_require
ft_module_load
setup_plain_router
nft_ct_ruleset "$NS_ROUTER"
PORT=7777
must ip -n "$NS_ROUTER" link add dummy0 type dummy
must ip -n "$NS_ROUTER" link set dummy0 up
must ip -n "$NS_ROUTER" addr add "$CLIENT_IP4/32" dev dummy0

fp_debugfs ""
hold=$FP_DBG/fresh_hold
if [ ! -w "$hold" ]; then
	fail "debugfs fasttrack/fresh_hold is there" "missing: $hold"
	exit "$KSFT_FAIL"
fi
defer sh -c "echo N > $hold"

ip netns exec "$NS_SERVER" udpecho -s "$PORT" >/dev/null 2>&1 &
defer kill $!

accept_local() {
	local dev
	for dev in all eth1; do
		must ip netns exec "$NS_ROUTER" sysctl -qw \
			"net.ipv4.conf.$dev.rp_filter=0" \
			"net.ipv4.conf.$dev.accept_local=$1"
	done
}

for mode in stack fasttrack; do
	if [ "$mode" = fasttrack ]; then
		fp_enable eth1 ipv4
		fwd0=$(fp_num "$(fp_dev_bytes eth1 4)")
		echo Y >"$hold"
	fi
	fp_port sport
	accept_local 1
	must ip netns exec "$NS_ROUTER" conntrack -F
	check_ge "$mode: the connection is set up" "$(fp_udp_send4 "$PORT" "$sport" 5)" 5
	[ "$mode" = stack ] ||
		check_ge "fasttrack: the connection was offloaded" \
			"$(fp_num "$(fp_dev_bytes eth1 4)")" $((fwd0 + 1))
	accept_local 0
	check_eq "$mode: accept_local off, the server receives nothing of it" \
		0 "$(fp_udp_send4 "$PORT" "$sport" 5)"
done

fp_exit
