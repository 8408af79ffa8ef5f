#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_rand sets
# variables by name; busywait calls functions by name.
# Path MTU discovery inside a tunnel, IPv4. The GRE tunnel gre1 of
# lib_l3dev.sh (MTU 1476) runs over an underlay (VLAN 2222) whose MTU
# drops to 1300 in the middle of an upload: gre1 keeps its MTU, and a
# packet that fits it but not the underlay is too big only for the tunnel,
# which records the path MTU in the packet's route and sends the ICMP
# "fragmentation needed" itself (icmp_ndo_send(): nothing for a packet
# without a route). The client sends full-size segments, no TSO or GSO
# (the tunnel answers those with the ICMP; a GSO packet only updates the
# route). The drop comes mid-stream, once the connection is offloaded:
# before it, the stack has nothing to discover.
# The same upload runs twice: on the full stack (fasttrack disabled on
# vlan22), then with fasttrack. Both times the client gets the tunnel's
# ICMP (an MTU below gre1's) and the upload completes intact; with
# fasttrack the fast path carries most of what follows.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_l3dev.sh"

UNDERLAY_MTU=1300

fp_init
require_cmd ethtool
l3_require
dmesg_mark
l3_setup_lan
l3_setup_gre
l3_finish
cdev=$ROUTER_CLIENT_DEV tdev=$ROUTER_SERVER_DEV
tmtu=$(ip -n "$NS_ROUTER" -o link show "$tdev" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')

must ip netns exec "$NS_CLIENT" ethtool -K eth0 tso off gso off

# The client counts the ICMP "fragmentation needed" with an MTU below the
# tunnel's: the tunnel's, not the router's forwarding's (gre1's MTU).
must ip netns exec "$NS_CLIENT" nft -f - <<-EOF2
	table ip ft_tpmtu {
		counter ptb { }
		chain in {
			type filter hook input priority 0;
			icmp type destination-unreachable icmp code frag-needed icmp mtu < $tmtu counter name "ptb"
		}
	}
EOF2
ptb() { fp_nft_counters "$NS_CLIENT" "ip ft_tpmtu" ptb; }
ptb_gt() { [ "$(ptb)" -gt "$1" ]; }
fp_size_ge() { [ "$(fp_size "$1" 2>/dev/null || echo 0)" -ge "$2" ]; }

# forget: both ends forget the path MTU they learned (the router's route
# exception, the client's), so that each upload meets the tunnel's.
forget() {
	must ip -n "$NS_ROUTER" route flush cache
	must ip -n "$NS_CLIENT" route flush cache
}

# underlay MTU: the underlay's MTU, both ends.
underlay() {
	must ip -n "$NS_ROUTER" link set "$ROUTER_WAN_DEV" mtu "$1"
	must ip -n "$NS_PEER" link set eth0 mtu "$1"
}

for mode in stack fasttrack; do
	d="IPv4 through $tdev, underlay mtu $UNDERLAY_MTU mid-stream, $mode"
	if [ "$mode" = stack ]; then
		must ip netns exec "$NS_ROUTER" ftctl disable "$cdev"
	else
		fp_enable "$cdev"
	fi
	underlay 1500
	forget
	file=$(fp_mkfile "up$mode" 4194304)
	fp_stream_start "s$mode" 4 "$file"
	if [ "$mode" = stack ]; then
		check "$d: the stream runs" busywait 20000 fp_size_ge "$FP_OUT" 262144
	elif fp_wait_fast "$cdev" 4 $(($(fp_num "$(fp_dev_bytes "$cdev" 4)") + 262144)) 20000; then
		pass "$d: the connection is offloaded"
	else
		fail "$d: the connection is offloaded" "ftctl -j stats: $(fp_stats)"
	fi
	p0=$(ptb)
	underlay "$UNDERLAY_MTU"
	if busywait 10000 ptb_gt "$p0"; then
		pass "$d: the client got the tunnel's ICMP fragmentation needed"
	else
		fail "$d: the client got the tunnel's ICMP fragmentation needed" \
			"$tdev: $(ip -n "$NS_ROUTER" -s -s link show "$tdev")" "ftctl -j stats: $(fp_stats)"
	fi
	fp_stream_running "$d"
	fp_read
	fast1=$FP_CV4 slow1=$FP_C2S
	fp_stream_finish "$d" "s$mode" "$file"
	fp_read
	fast=$((FP_CV4 - fast1)) slow=$((FP_C2S - slow1))
	log_info "$d: after the ICMP, $fast B took the fast path and $slow B the forward chain"
	if [ "$mode" = fasttrack ]; then
		check_ge "$d: the fast path carried the rest (>= $FP_FAST_MIN_PCT%)" \
			$((fast * 100)) $((FP_FAST_MIN_PCT * (fast + slow)))
	fi
done
check_dmesg_clean "no kernel splat"
fp_exit
