#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2016 # dash has local; lib.sh sets $ret;
# awk programs are in single quotes.
# Reverse-path filtering applies to offloaded packets as the stack applies
# it to every packet. The plain router, fasttrack on eth1 (the client's
# side), IPv4 UDP from the client to the server. The route back to the
# client moves to dummy0 (198.18.1.2/32 dev dummy0), so that with rp_filter
# on (strict) the client's packets arriving on eth1 fail the check; the
# server's answers are lost either way, so what counts is what the server
# receives. In both orders, and for the full stack and fasttrack alike:
#   - rp_filter on, then the route moves (a change of the source's prefix,
#     which is not the flow's destination);
#   - the route moves, then rp_filter goes on (a sysctl whose only trace is
#     a netconf message);
# after both, the server receives nothing more of the connection.
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

ip netns exec "$NS_SERVER" udpecho -s "$PORT" >/dev/null 2>&1 &
defer kill $!

rpf() {
	must ip netns exec "$NS_ROUTER" sysctl -qw "net.ipv4.conf.all.rp_filter=$1"
	must ip netns exec "$NS_ROUTER" sysctl -qw "net.ipv4.conf.eth1.rp_filter=$1"
}
moved() {
	if [ "$1" = 1 ]; then
		must ip -n "$NS_ROUTER" route add "$CLIENT_IP4/32" dev dummy0
	else
		must ip -n "$NS_ROUTER" route del "$CLIENT_IP4/32" dev dummy0
	fi
}

# case NAME FIRST SECOND: a connection is set up (and with fasttrack
# cached), then FIRST and SECOND change; the server must receive nothing.
case_run() {
	local name="$1" sport
	fp_port sport
	must ip netns exec "$NS_ROUTER" conntrack -F
	check_ge "$name: the connection is set up" "$(fp_udp_send4 "$PORT" "$sport" 3)" 3
	$2
	$3
	check_eq "$name: the server receives nothing of it" 0 "$(fp_udp_send4 "$PORT" "$sport" 5)"
	rpf 0
	moved 0
}
rpf_on() { rpf 1; }
route_moves() { moved 1; }

for mode in stack fasttrack; do
	if [ "$mode" = fasttrack ]; then
		fp_enable eth1 ipv4
		fwd0=$(fp_num "$(fp_dev_bytes eth1 4)")
	fi
	case_run "$mode: rp_filter on, then the route back moves" rpf_on route_moves
	case_run "$mode: the route back moves, then rp_filter on" route_moves rpf_on
	[ "$mode" = stack ] ||
		check_ge "fasttrack: the connections were offloaded" \
			"$(fp_num "$(fp_dev_bytes eth1 4)")" $((fwd0 + 1))
done

fp_exit
