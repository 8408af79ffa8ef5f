#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; busywait and check call functions by name.
# The XDP tier redirects a flow that leaves by another device than it came
# in on (FASTTRACK_XDP_REDIRECT: bpf_redirect() to that device), and keeps
# the books as the full stack would. The client is on VLAN 22 of the
# router's trunk0, the server behind the router's untagged wan0
# (setup_stick_wan); the tier runs on both ("ftctl xdp on", lib_xdp.sh).
# With nf_conntrack_acct=1, for IPv4 and IPv6, TCP uploads (VLAN in,
# untagged out: the tag comes off) and downloads (untagged in, VLAN out:
# a tag is pushed), plain and masqueraded. The plain ones run with the
# switch's tag beside the frame, as veth passes a tag by default
# (xmo_rx_vlan_tag: nothing to pop), the masqueraded ones with the tag in
# the frame (the switch's txvlan off: the tier pops it, head_adjust 4).
# For each transfer, the data arrives intact, and xdp_judge checks the
# books: the XDP tier forwarded at least 80 % of the bytes, conntrack's
# bytes of each direction are exactly the forward chain's plus
# fasttrack's, and vlan22's rx and tx bytes hold them.
# Then, on an IPv4 stream from the client, what applies to the device a
# frame is redirected to:
#  - a tbf qdisc on wan0 (xdp_check_shaper): within 100 ms the tier
#    forwards none of the stream and the shaper shapes it; once it is
#    removed, the tier carries the stream again;
#  - the server's eth0 without an XDP program (nor GRO), so that wan0 takes
#    no redirected frames (no NETDEV_XDP_ACT_NDO_XMIT): within 100 ms the
#    tier forwards none of the stream, which goes on; with the program
#    back, the tier carries it again.
# Before 6.3 (no xdp_features), the plain transfers only, each passed up
# whole to the skb tier. Skipped, with ftctl's reason, where the kernel or
# the module has no XDP tier.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_hooks.sh"
. "$(dirname "$0")/lib_xdp.sh"

fp_init
require_cmd conntrack
fp_setup_stick_wan
xdp_setup
hk_srv_init
sdev=$ROUTER_SERVER_DEV
# 1 to 2 MB a transfer, half fastpath_xdp's: eight of them fit the guest
# time CI has for the test.
XDP_SIZE=1048576
must ip netns exec "$NS_ROUTER" sysctl -qw net.netfilter.nf_conntrack_acct=1

# Before 6.3 no driver says it takes redirected frames: the tier passes
# these flows up, and the skb tier carries them whole.
if ! xdp_redirects; then
	XDP_PASSED=1
	for fam in 4 6; do
		xdp_transfers "$fam" passed-up
	done
	fp_exit
fi

for fam in 4 6; do
	l3=$(hk_l3 "$fam")
	xdp_tag_in_frame off
	xdp_transfers "$fam" plain
	must ip netns exec "$NS_ROUTER" nft -f - <<-EOF
		table $l3 ft_xdp_masq {
			$(fp_masq_chain)
		}
	EOF
	xdp_tag_in_frame on
	log_info "IPv$fam masquerade: VLAN 22's tag comes in the frame"
	xdp_transfers "$fam" masquerade
	must ip netns exec "$NS_ROUTER" nft delete table "$l3" ft_xdp_masq
done
xdp_tag_in_frame off

fam=4
xdp_stream_start "$fam"

xdp_check_shaper "IPv$fam tbf on $sdev" "$fam" "$sdev" "s$fam"

d="IPv$fam the server's eth0 without XDP"
must ip netns exec "$NS_SERVER" ethtool -K eth0 gro off
must ip netns exec "$NS_SERVER" ftctl xdp off eth0
t0=$(now_ms)
xdp_check_steps_aside "$d: the XDP tier steps aside within $((HK_CUT_MS * FT_SLOWDOWN)) ms" "$fam" "$t0"
hk_check_flowing "$d: the stream goes on" "s$fam"
must ip netns exec "$NS_SERVER" ftctl xdp on eth0
xdp_check_carries "$d: the XDP tier carries the stream again once it has one" "$fam"

fp_stream_finish "IPv$fam" "s$fam" "$stream"

fp_exit
