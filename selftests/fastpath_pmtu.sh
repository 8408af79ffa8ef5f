#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# Path MTU discovery through the fast path. The router's server-side VLAN
# device gets a lower MTU (1280 for IPv6, 1000 for IPv4):
#  - before a connection: its flows are learned with the low MTU, the
#    client's first full-size segments are too big for it, and the fast path
#    must punt them (punted.mtu) so that the stack sends the ICMP
#    "fragmentation needed" / "packet too big" to the client;
#  - in the middle of an offloaded connection: the ICMP is still generated,
#    the transfer completes intact, and the fast path carries the rest.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV

must ip netns exec "$NS_CLIENT" nft -f - <<EOF2
table inet ft_pmtu {
	counter ptb { }
	chain in {
		type filter hook input priority 0;
		icmp type destination-unreachable icmp code frag-needed counter name "ptb"
		icmpv6 type packet-too-big counter name "ptb"
	}
}
EOF2

ptb() { fp_nft_counters "$NS_CLIENT" "inet ft_pmtu" ptb; }
ptb_gt() { [ "$(ptb)" -gt "$1" ]; }

# set_mtu MTU: the router's server-side device MTU; the client forgets
# what it learned about the path.
set_mtu() {
	must ip -n "$NS_ROUTER" link set "$sdev" mtu "$1"
	must ip -n "$NS_CLIENT" route flush cache
	must ip -n "$NS_CLIENT" -6 route flush cache
}

# IPv6 first: an MTU below 1280 takes IPv6 off the device.
for fam in 6 4; do
	if [ "$fam" = 4 ]; then mtu=1000 icmp="fragmentation needed"; else mtu=1280 icmp="packet too big"; fi

	# The MTU is low before the connection starts.
	set_mtu "$mtu"
	fp_rand size 2097152 4194304
	file=$(fp_mkfile "pre$fam" "$size")
	ptb0=$(ptb)
	mtu0=$(fp_stat punted.mtu)
	fp_begin
	fp_tcp_transfer "IPv$fam, $sdev mtu $mtu before the connection" "$fam" "$file"
	fp_end
	check_ge "IPv$fam, mtu $mtu before: the client got ICMP $icmp" "$(ptb)" $((ptb0 + 1))
	check_ge "IPv$fam, mtu $mtu before: the fast path punted too-big packets (punted.mtu)" \
		"$(fp_stat punted.mtu)" $((mtu0 + 1))
	fp_check_offload "IPv$fam, mtu $mtu before" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"

	# The MTU drops in the middle of an offloaded connection.
	set_mtu 1500
	stream=$(fp_mkfile "mid$fam" 8388608)
	fp_stream_start "s$fam" "$fam" "$stream"
	if fp_wait_fast "$cdev" "$fam" $(($(fp_dev_bytes "$cdev" "$fam") + 262144)) 20000; then
		pass "IPv$fam mid-stream: the connection is offloaded"
	else
		fail "IPv$fam mid-stream: the connection is offloaded" "ftctl -j stats: $(fp_stats)"
	fi
	ptb0=$(ptb)
	check "IPv$fam mid-stream: ip link set $sdev mtu $mtu" ip -n "$NS_ROUTER" link set "$sdev" mtu "$mtu"
	if busywait 10000 ptb_gt "$ptb0"; then
		pass "IPv$fam mid-stream: the client got ICMP $icmp"
	else
		fail "IPv$fam mid-stream: the client got ICMP $icmp" "ftctl -j stats: $(fp_stats)"
	fi
	fp_stream_running "IPv$fam mid-stream mtu $mtu"
	fp_read
	fast1=$((FP_CV4 + FP_CV6)) slow1=$FP_C2S
	fp_stream_finish "IPv$fam mid-stream mtu $mtu" "s$fam" "$stream"
	fp_read
	fast=$((FP_CV4 + FP_CV6 - fast1)) slow=$((FP_C2S - slow1))
	log_info "IPv$fam mid-stream: after the ICMP, $fast B took the fast path and $slow B the forward chain"
	check_ge "IPv$fam mid-stream: the fast path carried the rest, with the new MTU (>= $FP_FAST_MIN_PCT%)" \
		$((fast * 100)) $((FP_FAST_MIN_PCT * (fast + slow)))
done

fp_exit
