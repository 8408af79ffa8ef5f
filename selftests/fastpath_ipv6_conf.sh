#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; busywait and check call functions by name.
# The IPv6 settings of a device that the stack reads per packet, and whose
# change raises no event a cached flow would see, changed under an
# offloaded UDP flow of the plain router (client eth1, server eth2):
#  - "sysctl net.ipv6.conf.eth2.mtu=1280", the egress device staying at
#    1500 (a router advertisement's MTU option sets the same value):
#    ip6_forward() drops the next 1400-byte datagrams and sends the client
#    "packet too big"; none reaches the server. First on the full stack
#    (fasttrack disabled), then on a flow the fast path carries at 1500.
#    Back at 1500, the flow's datagrams reach the server through the fast
#    path again.
#  - "sysctl net.ipv6.conf.eth1.disable_ipv6=1" on the ingress device:
#    ipv6_rcv() drops what arrives there; none reaches the server.
# The client (udpflood) sends its datagrams whole whatever "packet too
# big" says.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

require_cmd udpflood
fp_init
fp_setup_plain
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV
N=20
LEN=1392		# a 1440-byte packet: above 1280, below 1500
fp_port uport

in_router() { ip netns exec "$NS_ROUTER" "$@"; }

# The server counts what arrives for $uport, and drops it (no port
# unreachable for each); the client counts "packet too big".
must ip netns exec "$NS_SERVER" nft -f - <<EOF
table inet ft_v6conf {
	counter got { }
	chain pre {
		type filter hook prerouting priority -500;
		udp dport $uport counter name "got" drop
	}
}
EOF
must ip netns exec "$NS_CLIENT" nft -f - <<EOF
table inet ft_v6conf {
	counter ptb { }
	chain in {
		type filter hook input priority 0;
		icmpv6 type packet-too-big counter name "ptb"
	}
}
EOF

got() { fp_nft_packets "$NS_SERVER" "inet ft_v6conf" got; }
ptb() { fp_nft_packets "$NS_CLIENT" "inet ft_v6conf" ptb; }
fast() { fp_num "$(in_router ftctl -j show | fp_jget "ifname=$cdev.ipv6.packets")"; }

# send SPORT COUNT LEN: COUNT datagrams of LEN bytes from the client's SPORT.
send() {
	local out
	out=$(ip netns exec "$NS_CLIENT" udpflood -6 -s "$CLIENT_IP6" -d "$SERVER_IP6" \
		-p "$1" -P "$uport" -n 1 -c "$2" -l "$3" 2>&1) ||
		fail "udpflood from port $1" "$out"
}

# connect SPORT: a datagram, the server's reply, one more: learned.
connect() {
	local out
	send "$1" 1 16
	out=$(ip netns exec "$NS_SERVER" udpflood -6 -s "$SERVER_IP6" -d "$CLIENT_IP6" \
		-p "$uport" -P "$1" -n 1 -r 2>&1) || fail "udpflood reply to port $1" "$out"
	send "$1" 1 16
}

# got_is WANT: the server counted WANT datagrams.
got_is() { [ "$(got)" = "$1" ]; }

# none_got DESC GOT0: the server got nothing since it had counted GOT0:
# an IPv4 datagram sent after the others, which the stack forwards, is
# all it gets; any forwarded earlier one would be there before it.
none_got() {
	local out
	out=$(ip netns exec "$NS_CLIENT" udpflood -s "$CLIENT_IP4" -d "$SERVER_IP4" \
		-p "$uport" -P "$uport" -n 1 2>&1) || fail "udpflood IPv4" "$out"
	busywait 5000 got_is $(($2 + 1)) || true
	check_eq "$1: none of the $N datagrams reached the server" $(($2 + 1)) "$(got)"
}

# sent_through DESC SPORT MIN_FAST: N datagrams from SPORT all reach the
# server, at least MIN_FAST of them through the fast path.
sent_through() {
	local got0 fast0
	got0=$(got) fast0=$(fast)
	send "$2" "$N" "$LEN"
	if busywait 5000 got_is $((got0 + N)); then
		pass "$1: the server got all $N datagrams of $((LEN + 48)) bytes"
	else
		fail "$1: the server got all $N datagrams of $((LEN + 48)) bytes" "it got $(($(got) - got0))"
	fi
	check_ge "$1: the fast path carried >= $3 of them" $(($(fast) - fast0)) "$3"
}

# too_big DESC SPORT: with net.ipv6.conf.$sdev.mtu=1280, N datagrams from
# SPORT: dropped, the client told "packet too big".
too_big() {
	local got0 ptb0
	check "$1: sysctl net.ipv6.conf.$sdev.mtu=1280" in_router sysctl -qw "net.ipv6.conf.$sdev.mtu=1280"
	got0=$(got) ptb0=$(ptb)
	send "$2" "$N" "$LEN"
	if busywait 5000 st_ptb_gt "$ptb0"; then
		pass "$1: the client got ICMPv6 packet too big"
	else
		fail "$1: the client got ICMPv6 packet too big" "ftctl -j stats: $(fp_stats)"
	fi
	none_got "$1" "$got0"
	check "$1: sysctl net.ipv6.conf.$sdev.mtu=1500" in_router sysctl -qw "net.ipv6.conf.$sdev.mtu=1500"
}
st_ptb_gt() { [ "$(ptb)" -gt "$1" ]; }

# The full stack, for reference.
must in_router ftctl disable "$cdev"
must in_router ftctl disable "$sdev"
fp_port sport
connect "$sport"
sent_through "full stack, mtu 1500" "$sport" 0
too_big "full stack" "$sport"
fp_enable "$cdev"
fp_enable "$sdev"

fp_port sport
connect "$sport"
sent_through "fast path, mtu 1500" "$sport" "$N"
too_big "fast path, a flow learned at mtu 1500" "$sport"
sent_through "fast path, the flow back at mtu 1500" "$sport" "$N"

# disable_ipv6 on the ingress device takes its addresses and routes, not
# the flow's route: only a per-packet check stops it.
fp_port sport
connect "$sport"
sent_through "fast path, before disable_ipv6" "$sport" "$N"
got0=$(got)
check "sysctl net.ipv6.conf.$cdev.disable_ipv6=1" in_router sysctl -qw "net.ipv6.conf.$cdev.disable_ipv6=1"
defer ip netns exec "$NS_ROUTER" sysctl -qw "net.ipv6.conf.$cdev.disable_ipv6=0"
send "$sport" "$N" "$LEN"
none_got "disable_ipv6 on $cdev" "$got0"

fp_exit
