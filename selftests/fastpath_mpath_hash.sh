#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2086 # dash has local; lib.sh sets $ret;
# set -- $list splits on purpose.
# A change of the multipath hash policy (net.ipv4.fib_multipath_hash_policy,
# net.ipv6.fib_multipath_hash_policy) moves cached flows to the ECMP member
# the stack now picks. The router reaches the server's address over an ECMP
# route with two members, r1 and r2 (one veth each to the server's netns);
# fasttrack is enabled on r0, the client's side. Per family:
#   - the full stack alone: 16 UDP connections (one source port each) under
#     policy 1 and then policy 0; the member of each, seen by which of r1 and
#     r2 transmitted its datagrams, is what the stack picks;
#   - with fasttrack: 16 connections are learned under policy 1, the policy
#     changes to 0, and each connection's next datagrams must leave by the
#     member the full stack picks under policy 0, through the fast path
#     where the member stayed the same.
# Policy 1 (layer 4) takes the hash a forwarded packet carries from its
# sender's socket, which is random per socket, so connections spread over
# both members; policy 0 hashes the addresses only (the client sends no
# IPv6 flow label), so all go by one member, the same in both runs. At
# least one connection must change member, or the test proves nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

require_cmd ip ftctl conntrack udpecho
fp_init
ft_module_load
setup_ns NS_CLIENT NS_SERVER NS_ROUTER
nft_ct_ruleset "$NS_ROUTER"

SRV4=198.18.39.9 SRV6=2001:db8:39::9
PORT=7777
NCONN=16
# Datagrams a connection sends per measurement (member()).
NDGRAM=4

must ip -n "$NS_CLIENT" link add eth0 type veth peer name r0 netns "$NS_ROUTER"
must ip -n "$NS_SERVER" link add s1 type veth peer name r1 netns "$NS_ROUTER"
must ip -n "$NS_SERVER" link add s2 type veth peer name r2 netns "$NS_ROUTER"
router_forwarding "$NS_ROUTER"
addr "$NS_ROUTER" r0 198.18.30.1/24 2001:db8:30::1/64
addr "$NS_ROUTER" r1 198.18.31.1/24 2001:db8:31::1/64
addr "$NS_ROUTER" r2 198.18.32.1/24 2001:db8:32::1/64
host_side "$NS_CLIENT" eth0 198.18.30.2 2001:db8:30::2 198.18.30.1 2001:db8:30::1
# No flow label: IPv6's policy 0 would hash it, and it is random per socket.
must ip netns exec "$NS_CLIENT" sysctl -qw net.ipv6.auto_flowlabels=0
addr "$NS_SERVER" s1 198.18.31.2/24 2001:db8:31::2/64
addr "$NS_SERVER" s2 198.18.32.2/24 2001:db8:32::2/64
must ip -n "$NS_SERVER" addr add "$SRV4/32" dev lo
must ip -n "$NS_SERVER" addr add "$SRV6/128" dev lo
# Answers all go back by s1; only the client's direction is ECMP-routed.
must ip -n "$NS_SERVER" route add default via 198.18.31.1
must ip -n "$NS_SERVER" -6 route add default via 2001:db8:31::1
must ip -n "$NS_ROUTER" route add "$SRV4/32" \
	nexthop via 198.18.31.2 dev r1 nexthop via 198.18.32.2 dev r2
must ip -n "$NS_ROUTER" -6 route add "$SRV6/128" \
	nexthop via 2001:db8:31::2 dev r1 nexthop via 2001:db8:32::2 dev r2

ip netns exec "$NS_SERVER" udpecho -s "$PORT" >/dev/null 2>&1 &
defer kill $!
must busywait 10000 ping_ok "$NS_CLIENT" "$SRV4"
must busywait 10000 ping_ok "$NS_CLIENT" "$SRV6"

tx() { ip netns exec "$NS_ROUTER" cat "/sys/class/net/$1/statistics/tx_packets"; }

# member FAM SPORT COUNT: send COUNT datagrams of the connection from SPORT
# (all answered) and print the member that transmitted them: r1, r2, or
# "both" / "none" (with the counts).
member() {
	local srv a1 a2 b1 b2 d1 d2
	if [ "$1" = 4 ]; then srv=$SRV4; else srv=$SRV6; fi
	a1=$(tx r1) a2=$(tx r2)
	ip netns exec "$NS_CLIENT" udpecho -c "$srv" "$PORT" "$3" 10000 "$2" >/dev/null ||
		{ echo "unanswered"; return; }
	b1=$(tx r1) b2=$(tx r2)
	d1=$((b1 - a1)) d2=$((b2 - a2))
	# Neighbour probes may add a frame or two beside the datagrams: COUNT
	# must be larger (a reference of 2 datagrams once read as "split:2/2"
	# on 5.10, two probes on the other member).
	if [ "$d1" -ge "$3" ] && [ "$d2" -lt "$3" ]; then
		echo r1
	elif [ "$d2" -ge "$3" ] && [ "$d1" -lt "$3" ]; then
		echo r2
	else
		echo "split:$d1/$d2"
	fi
}

policy() {
	must ip netns exec "$NS_ROUTER" sysctl -qw "net.ipv$1.fib_multipath_hash_policy=$2"
}

for fam in 4 6; do
	fp_port sport0
	[ "$sport0" -le $((65535 - NCONN)) ] || sport0=20000

	# The full stack: the member of each connection under each policy.
	must ip netns exec "$NS_ROUTER" conntrack -F
	stack0='' stack1='' moved=0 i=0
	policy "$fam" 1
	while [ "$i" -lt "$NCONN" ]; do
		stack0="$stack0 $(member "$fam" $((sport0 + i)) "$NDGRAM")"
		i=$((i + 1))
	done
	policy "$fam" 0
	i=0
	while [ "$i" -lt "$NCONN" ]; do
		stack1="$stack1 $(member "$fam" $((sport0 + i)) "$NDGRAM")"
		i=$((i + 1))
	done
	set -- $stack1
	for m0 in $stack0; do
		[ "$m0" = "$1" ] || moved=$((moved + 1))
		shift
	done
	check_ge "IPv$fam: policy 0 moves connections to the other member (full stack: $stack0 ->$stack1)" \
		"$moved" 1

	# fasttrack: learned under policy 1, checked under policy 0.
	must ip netns exec "$NS_ROUTER" conntrack -F
	policy "$fam" 1
	fp_enable r0 "$(fp_ipfam "$fam")"
	i=0
	while [ "$i" -lt "$NCONN" ]; do
		member "$fam" $((sport0 + i)) "$NDGRAM" >/dev/null
		i=$((i + 1))
	done
	cached=$(ip netns exec "$NS_ROUTER" ftctl -j flows | grep -o '"proto":"udp"' | wc -l)
	check_eq "IPv$fam: the $NCONN connections are cached" "$NCONN" "$cached"
	fwd0=$(fp_num "$(fp_dev_bytes r0 "$fam")")
	policy "$fam" 0
	fast=''
	i=0
	while [ "$i" -lt "$NCONN" ]; do
		fast="$fast $(member "$fam" $((sport0 + i)) "$NDGRAM")"
		i=$((i + 1))
	done
	check_eq "IPv$fam: with fasttrack, each connection leaves by the stack's member" \
		"$stack1" "$fast"
	check_ge "IPv$fam: the fast path forwarded after the change" \
		"$(fp_num "$(fp_dev_bytes r0 "$fam")")" $((fwd0 + 1))
	must ip netns exec "$NS_ROUTER" ftctl disable r0
	policy "$fam" 0
done

fp_exit
