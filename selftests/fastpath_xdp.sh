#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; busywait and check call functions by name.
# The XDP tier carries a router-on-a-stick's flows, VLAN to VLAN on one
# trunk ("ftctl xdp on trunk0", lib_xdp.sh), and keeps the books as the
# full stack would. With nf_conntrack_acct=1, for IPv4 and IPv6, TCP
# uploads and downloads: plain, masqueraded, and to a port forward (DNAT,
# masqueraded too). For each transfer, the data arrives intact, and
# xdp_judge (lib_xdp.sh) checks the books: the XDP tier forwarded at least
# 80 % of the bytes, conntrack's bytes of each direction are exactly the
# forward chain's plus fasttrack's, and the VLAN devices' rx and tx bytes
# hold them. Then plain again with the VLAN tags in the frames rather
# than beside them (xdp_tag_in_frame). Before 6.8, which tells XDP of a
# tag beside the frame, all of it runs with tags in the frames, and plain
# transfers with tags beside them are passed up to the skb tier, whole.
# Skipped, with ftctl's reason, where the kernel or the module has no XDP
# tier (fastpath_xdp_fallback tests that refusal).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_hooks.sh"
. "$(dirname "$0")/lib_xdp.sh"

fp_init
require_cmd conntrack
fp_setup_stick
xdp_setup
cdev=$ROUTER_CLIENT_DEV
must ip netns exec "$NS_ROUTER" sysctl -qw net.netfilter.nf_conntrack_acct=1

# nat_rules FAMILY RADDR SADDR FWDPORT SRVPORT: masquerade, and a port
# forward on the router's client-side address to the server.
nat_rules() {
	must ip netns exec "$NS_ROUTER" nft -f - <<-EOF2
		table $1 ft_xdp_nat {
			chain pre {
				type nat hook prerouting priority dstnat;
				iifname "$cdev" $1 daddr $2 tcp dport $4 dnat to $3:$5
			}
			$(fp_masq_chain)
		}
	EOF2
}

for fam in 4 6; do
	xdp_transfers "$fam" plain
	fp_port fwd
	fp_port srv
	if [ "$fam" = 4 ]; then
		nat_rules ip "$ROUTER_CLIENT_IP4" "$SERVER_IP4" "$fwd" "$srv"
		raddr=$ROUTER_CLIENT_IP4
	else
		nat_rules ip6 "$ROUTER_CLIENT_IP6" "[$SERVER_IP6]" "$fwd" "$srv"
		raddr=$ROUTER_CLIENT_IP6
	fi
	xdp_transfers "$fam" masquerade
	fp_rand size 2097152 4194304
	file=$(fp_mkfile "d$fam" "$size")
	xdp_snap "$fam"
	fp_tcp_transfer "IPv$fam DNAT TCP :$fwd -> :$srv" "$fam" "$file" "$raddr" "$fwd" "$srv"
	xdp_judge "IPv$fam DNAT TCP" "$fam" "$size" c2s "$fwd"
	must ip netns exec "$NS_ROUTER" nft delete table "$([ "$fam" = 4 ] && echo ip || echo ip6)" ft_xdp_nat
done

# VLAN to VLAN with the tags in the frames (XDP_TX, the tag rewritten in
# place).
xdp_tag_in_frame on
for fam in 4 6; do
	xdp_transfers "$fam" tag-in-frame
done

# Before 6.8 the tier cannot know of a tag beside the frame: the skb tier
# carries those flows, and the books hold all the same.
if ! xdp_reads_beside; then
	xdp_tag_in_frame off
	XDP_PASSED=1
	for fam in 4 6; do
		xdp_transfers "$fam" tag-beside
	done
	XDP_PASSED=0
fi

fp_exit
