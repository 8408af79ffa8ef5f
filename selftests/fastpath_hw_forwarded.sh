#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_port and
# fp_rand set variables by name; busywait and check call functions by name.
# A packet a switch ASIC forwarded already is not forwarded again (issue
# #35, S8). Such a packet reaches the CPU with skb->offload_l3_fwd_mark,
# and the stack consumes it after the forward hook (ip_forward_finish(),
# ip6_forward_finish()). The test hook (debugfs fasttrack/hw_forwarded,
# FT_TEST_HOOKS builds) marks the datagrams of one UDP port entering the
# router's client device, ahead of the fast path:
#  - on a connection nothing is cached for, the stack consumes them: the
#    server receives none;
#  - on an offloaded connection, the fast path must do as the stack: the
#    server receives none of them, and the fast path forwards none.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
require_cmd udpecho
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV

fp_debugfs hw_forwarded
hook=$FP_DBG/hw_forwarded

# mark PORT: mark what enters the client device for PORT; "-": stop.
mark() {
	local v="$cdev $1"
	[ "$1" != - ] || v=-
	ip netns exec "$NS_ROUTER" sh -c "echo '$v' >'$hook'"
}
defer mark -
# A kernel without switchdev has no such mark (skb->offload_l3_fwd_mark),
# and the hook refuses to start (EOPNOTSUPP): the debug kernel's case.
mark 9 2>/dev/null || ft_skip "no switchdev here (CONFIG_NET_SWITCHDEV): nothing can mark a packet as forwarded by a switch"
must mark -

# send FAMILY PORT SPORT COUNT: COUNT datagrams from SPORT; true if all
# were answered.
send() {
	ip netns exec "$NS_CLIENT" udpecho -c "$(fp_server_ip "$1")" "$2" "$4" \
		"$(($(ft_secs 2) * 1000))" "$3" >/dev/null 2>&1
}

for fam in 4 6; do
	fp_port port
	fp_rand sport 10000 60000
	st_srv_count udp "$port"
	fp_bg "echo$fam" ip netns exec "$NS_SERVER" udpecho -s "$port"
	must busywait 5000 fp_listening "$NS_SERVER" udp "$port"

	# The stack alone, on a connection nothing is cached for.
	must mark "$port"
	send "$fam" "$port" $((sport + 1)) 3
	check_eq "IPv$fam: the stack consumes what the switch forwarded" 0 "$(st_srv_packets "$port")"
	must mark -

	check "IPv$fam: 20 datagrams answered" send "$fam" "$port" "$sport" 20
	fast0=$(st_fast "$fam")
	check "IPv$fam: 10 more answered" send "$fam" "$port" "$sport" 10
	check_ge "IPv$fam: the fast path carried part of them" "$(st_fast "$fam")" $((fast0 + 1))

	must mark "$port"
	srv0=$(st_srv_packets "$port")
	fast0=$(st_fast "$fam")
	send "$fam" "$port" "$sport" 5
	check_eq "IPv$fam: the server receives none of what the switch forwarded" \
		"$srv0" "$(st_srv_packets "$port")"
	check_eq "IPv$fam: the fast path forwards none of it" "$fast0" "$(st_fast "$fam")"
	must mark -
	fp_kill "$FP_PID"
done

fp_exit
