#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; busywait and check call functions by name.
# What the TOS (traffic class) decides per packet, for UDP flows that the
# client sends with a TOS it changes mid-flow; each part runs on the full
# stack (fasttrack disabled) and on the fast path, and asserts the same.
#  - The priority: ip_forward() sets it from each packet's TOS (while
#    net.ipv4.ip_forward_update_priority is on, the default), ip6_forward()
#    leaves it. A prio qdisc on the router's server-side device (vlan2222)
#    puts priority 6 (TOS 0x10) in class 1:1, priority 2 (TOS 0x08) in
#    1:3, any other in 1:2. A flow sent with TOS 0x10, then 0x08: its
#    datagrams go to 1:1, then 1:3; with ip_forward_update_priority=0, to
#    neither. IPv6, traffic class 0x10 then 0x08: to neither.
#  - The route: a prerouting rule sets DSCP 4 (TOS 0x10) on the flow to
#    SVC, an address of the server; "ip rule add tos 0x10 table 100" routes
#    it by table 100. SVC is via G2 in both tables (lib_stale.sh's
#    st_gateways: the server answers as G1 and G2 on two MAC addresses and
#    counts what arrives through each). Then table 100's route to SVC
#    moves to G1: the flow's next datagrams go through G1, none through
#    G2. A fast path that looked the route up with the TOS as it arrived
#    (0) would find main's route, the same G2, and stay there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

SVC4=198.18.251.2 SVC6=2001:db8:251::2
TABLE=100
N=20

require_cmd udpflood
fp_init
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV
fp_port uport

in_router() { ip netns exec "$NS_ROUTER" "$@"; }

# A VLAN device has no queue length: its prio qdisc's bands need one.
must in_router ip link set "$sdev" txqueuelen 1000
must in_router tc qdisc add dev "$sdev" root handle 1: prio bands 3 \
	priomap 1 1 2 1 1 1 0 1 1 1 1 1 1 1 1 1

must ip -n "$NS_SERVER" addr add "$SVC4/32" dev lo
must ip -n "$NS_SERVER" addr add "$SVC6/128" dev lo
st_gateways "$SVC4" "$SVC6"
# The server counts the test's datagrams and drops them: no port
# unreachable for each.
must ip netns exec "$NS_SERVER" nft -f - <<EOF
table inet ft_tos {
	counter got { }
	chain pre {
		type filter hook prerouting priority -500;
		udp dport $uport counter name "got" drop
	}
}
EOF
must in_router nft -f - <<EOF
table inet ft_tos {
	chain pre {
		type filter hook prerouting priority mangle;
		ip daddr $SVC4 udp dport $uport ip dscp set 4
		ip6 daddr $SVC6 udp dport $uport ip6 dscp set 4
	}
}
EOF
defer ip netns exec "$NS_ROUTER" sysctl -qw net.ipv4.ip_forward_update_priority=1

# family FAMILY: the addresses and names of FAMILY.
family() {
	fam=$1
	if [ "$fam" = 4 ]; then
		six='' f=-4 c=$CLIENT_IP4 s=$SERVER_IP4 svc=$SVC4 g1=$ST_G1_IP4 g2=$ST_G2_IP4
	else
		six=-6 f=-6 c=$CLIENT_IP6 s=$SERVER_IP6 svc=$SVC6 g1=$ST_G1_IP6 g2=$ST_G2_IP6
	fi
}

# udp ARGS...: udpflood of the family, its output kept for a failure.
udp() {
	local ns="$1" out
	shift
	# shellcheck disable=SC2086 # -6 or nothing
	out=$(ip netns exec "$ns" udpflood $six -n 1 "$@" 2>&1) ||
		fail "udpflood in $ns" "udpflood $six -n 1 $*" "$out"
}

got() { fp_num "$(fp_nft_packets "$NS_SERVER" "inet ft_tos" got)"; }
got_ge() { [ "$(got)" -ge "$1" ]; }

# send DST SPORT TOS [COUNT]: COUNT (N) datagrams to DST from SPORT; the
# server got them all (and what counts them on the way counted them).
send() {
	local got0 n="${4:-$N}"
	got0=$(got)
	udp "$NS_CLIENT" -s "$c" -d "$1" -p "$2" -P "$uport" -t "$3" -c "$n"
	busywait 5000 got_ge $((got0 + n)) ||
		fail "the server got $n datagrams from port $2" "it got $(($(got) - got0))"
}

# connect DST SPORT TOS: a datagram, the reply, one more: learned.
connect() {
	send "$1" "$2" "$3" 1
	udp "$NS_SERVER" -s "$1" -d "$c" -p "$uport" -P "$2" -r
	send "$1" "$2" "$3" 1
}

fast() { fp_num "$(in_router ftctl -j show | fp_jget "ifname=$cdev.ipv$fam.packets")"; }

# class_pkts CLASS: the packets the prio qdisc's CLASS sent.
class_pkts() {
	fp_num "$(in_router tc -s class show dev "$sdev" |
		awk -v c="$1" '$1 == "class" { on = $3 == c; next }
			on && $1 == "Sent" { print $4; exit }')"
}

# classes DESC SPORT TOS WANT1 WANT3 [FAST]: N datagrams from SPORT with
# TOS; classes 1:1 and 1:3 send WANT1 and WANT3 of them; on the fast path,
# it carried FAST (N) of them.
classes() {
	local a0 b0 f0
	a0=$(class_pkts 1:1) b0=$(class_pkts 1:3) f0=$(fast)
	send "$s" "$2" "$3"
	check_eq "$1: class 1:1 sent $4 of $N" "$4" $(($(class_pkts 1:1) - a0))
	check_eq "$1: class 1:3 sent $5 of $N" "$5" $(($(class_pkts 1:3) - b0))
	[ "$mode" = stack ] ||
		check_ge "$1: the fast path carried them" $(($(fast) - f0)) "${6:-$N}"
}

# gateways DESC SPORT GW [FAST]: N datagrams from SPORT to SVC go through
# GW, none through the other; on the fast path, it carried FAST (0) of them.
gateways() {
	local other=$((3 - $3)) g0 o0 f0
	g0=$(st_gw_bytes "$3" "$fam") o0=$(st_gw_bytes "$other" "$fam") f0=$(fast)
	send "$svc" "$2" 0
	check_ge "$1: they go through G$3" $(($(st_gw_bytes "$3" "$fam") - g0)) 1
	check_eq "$1: none through G$other" "$o0" "$(st_gw_bytes "$other" "$fam")"
	[ "$mode" = stack ] || [ -z "$4" ] ||
		check_ge "$1: the fast path carried them" $(($(fast) - f0)) "$4"
}

for fam in 4 6; do
	family "$fam"
	must in_router ip "$f" rule add tos 0x10 table "$TABLE" pref 100
	must in_router ip "$f" route add "$svc" via "$g2" dev "$sdev"
done

for mode in stack fast; do
	if [ "$mode" = stack ]; then
		must in_router ftctl disable "$cdev"
		must in_router ftctl disable "$sdev"
	else
		fp_enable "$cdev"
		fp_enable "$sdev"
	fi
	for fam in 4 6; do
		family "$fam"
		d="$mode, IPv$fam"
		fp_port sport
		connect "$s" "$sport" 16
		if [ "$fam" = 4 ]; then
			classes "$d, TOS 0x10" "$sport" 16 "$N" 0
			classes "$d, then TOS 0x08" "$sport" 8 0 "$N"
			check "$d: sysctl net.ipv4.ip_forward_update_priority=0" \
				in_router sysctl -qw net.ipv4.ip_forward_update_priority=0
			# Its first datagram finds the flow stale: the stack
			# learns it again.
			classes "$d, ip_forward_update_priority=0" "$sport" 8 0 0 $((N - 1))
			must in_router sysctl -qw net.ipv4.ip_forward_update_priority=1
		else
			classes "$d, traffic class 0x10" "$sport" 16 0 0
			classes "$d, then traffic class 0x08" "$sport" 8 0 0
		fi

		must in_router ip "$f" route replace "$svc" via "$g2" dev "$sdev" table "$TABLE"
		fp_port sport
		connect "$svc" "$sport" 0
		gateways "$d, DSCP 4 set in prerouting, table $TABLE via G2" "$sport" 2 "$N"
		check "$d: ip route replace $svc via G1 table $TABLE" \
			in_router ip "$f" route replace "$svc" via "$g1" dev "$sdev" table "$TABLE"
		gateways "$d, table $TABLE via G1" "$sport" 1
	done
done

fp_exit
