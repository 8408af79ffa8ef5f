#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046 # dash has local; lib.sh sets $ret;
# set -- $(...) splits on purpose.
# An IPv4 route change that the FIB notifier does not report reaches cached
# flows. The notifier reports only the first alias of a prefix: with
#   198.19.9.0/24 tos 0x10 via G2   (first: the higher TOS sorts first)
#   198.19.9.0/24 via G1
# "ip route replace 198.19.9.0/24 via G3" changes the TOS-0 route without a
# notifier event, although the route generation moves. Three gateways, G1,
# G2 and G3, are macvlan devices of the server's netns on the router's
# eth2 link, each with its own MAC, so the one a datagram was sent to is
# the one whose rx counter moves. For a TOS-0 UDP connection to 198.19.9.1:
#   - the full stack alone sends to G1, and after the replace to G3;
#   - with fasttrack the connection is cached through G1, and after the
#     replace its datagrams go to G3 as well (not to G1, the old decision).
# A second prefix, 198.19.8.0/24 via G1, keeps G1's neighbour in use.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

require_cmd ip ftctl conntrack udpecho
fp_init
ft_module_load
setup_ns NS_CLIENT NS_SERVER NS_ROUTER
nft_ct_ruleset "$NS_ROUTER"

SRV=198.19.9.1 OTHER=198.19.8.1
G1=198.18.2.11 G2=198.18.2.12 G3=198.18.2.13
PORT=7777

must ip -n "$NS_CLIENT" link add eth0 type veth peer name eth1 netns "$NS_ROUTER"
must ip -n "$NS_SERVER" link add eth0 type veth peer name eth2 netns "$NS_ROUTER"
router_forwarding "$NS_ROUTER"
addr "$NS_ROUTER" eth1 198.18.1.1/24 2001:db8:1::1/64
addr "$NS_ROUTER" eth2 198.18.2.1/24 2001:db8:2::1/64
host_side "$NS_CLIENT" eth0 198.18.1.2 2001:db8:1::2 198.18.1.1 2001:db8:1::1
must ip -n "$NS_SERVER" link set eth0 up
# Each gateway address answers ARP with its own MAC only, not eth0's.
must ip netns exec "$NS_SERVER" sysctl -qw net.ipv4.conf.all.arp_ignore=1
for g in 1 2 3; do
	must ip -n "$NS_SERVER" link add "g$g" link eth0 type macvlan mode bridge
	must ip -n "$NS_SERVER" addr add "198.18.2.1$g/24" dev "g$g"
	must ip -n "$NS_SERVER" link set "g$g" up
done
must ip -n "$NS_SERVER" addr add "$SRV/32" dev lo
must ip -n "$NS_SERVER" addr add "$OTHER/32" dev lo
must ip -n "$NS_SERVER" route add default via 198.18.2.1 dev g1
must ip -n "$NS_ROUTER" route add 198.19.9.0/24 tos 0x10 via "$G2"
must ip -n "$NS_ROUTER" route add 198.19.9.0/24 via "$G1"
must ip -n "$NS_ROUTER" route add 198.19.8.0/24 via "$G1"

ip netns exec "$NS_SERVER" udpecho -s "$PORT" >/dev/null 2>&1 &
defer kill $!
must busywait 10000 ping_ok "$NS_CLIENT" "$SRV"
must busywait 10000 ping_ok "$NS_CLIENT" "$OTHER"

rx() { ip netns exec "$NS_SERVER" cat "/sys/class/net/$1/statistics/rx_packets"; }

# gateway SPORT COUNT: send COUNT answered datagrams of the connection from
# SPORT and print the gateway they were sent to: g1, g2, g3, or the counts.
gateway() {
	local a1 a2 a3 d1 d2 d3
	a1=$(rx g1) a2=$(rx g2) a3=$(rx g3)
	ip netns exec "$NS_CLIENT" udpecho -c "$SRV" "$PORT" "$2" 10000 "$1" >/dev/null ||
		{ echo unanswered; return; }
	d1=$(($(rx g1) - a1)) d2=$(($(rx g2) - a2)) d3=$(($(rx g3) - a3))
	# A neighbour probe may add a frame beside the datagrams.
	if [ "$d1" -ge "$2" ] && [ "$d2" -lt "$2" ] && [ "$d3" -lt "$2" ]; then
		echo g1
	elif [ "$d2" -ge "$2" ] && [ "$d1" -lt "$2" ] && [ "$d3" -lt "$2" ]; then
		echo g2
	elif [ "$d3" -ge "$2" ] && [ "$d1" -lt "$2" ] && [ "$d2" -lt "$2" ]; then
		echo g3
	else
		echo "split:$d1/$d2/$d3"
	fi
}

# run SPORT: the connection's gateway before and after the replace, as
# "BEFORE AFTER"; the route is put back after.
run() {
	local before after
	before=$(gateway "$1" 3)
	must ip -n "$NS_ROUTER" route replace 198.19.9.0/24 via "$G3"
	after=$(gateway "$1" 3)
	must ip -n "$NS_ROUTER" route replace 198.19.9.0/24 via "$G1"
	echo "$before $after"
}

fp_port sport
check_eq "full stack: G1, then G3 after the replace" "g1 g3" "$(run "$sport")"

must ip netns exec "$NS_ROUTER" conntrack -F
fp_enable eth1 ipv4
fp_port sport
fwd0=$(fp_num "$(fp_dev_bytes eth1 4)")
set -- $(run "$sport")
check_eq "fasttrack: cached through G1" g1 "$1"
check_ge "fasttrack: the fast path forwarded the connection" \
	"$(fp_num "$(fp_dev_bytes eth1 4)")" $((fwd0 + 1))
check_eq "fasttrack: after the replace, G3 as the stack sends" g3 "$2"
fp_exit
