#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# What the operator attaches applies to the XDP tier's flows at once, and
# the tier carries them again once it is gone. Router-on-a-stick with the
# tier on trunk0 (lib_xdp.sh), IPv4 and IPv6: an offloaded TCP stream from
# the client runs through the XDP tier, then one at a time:
#  tap   tcpdump on vlan22: within 100 ms the XDP tier forwards none of the
#        stream, and the capture holds the stream's packets;
#  nft   an nft netdev ingress chain on vlan22 that counts the stream:
#        within 100 ms the XDP tier forwards none of it; then a rule that
#        drops it: the server receives none of it within 100 ms, and the
#        rule counts the drops;
#  tbf   a tbf qdisc on trunk0 at a quarter of the stream's rate: within
#        100 ms the XDP tier forwards none of the stream, and over 2 s the
#        server receives no more than the shaper lets through
#        (xdp_check_shaper).
# Each is then removed: the stream goes on and the XDP tier carries it
# again. Skipped where the kernel or the module has no XDP tier.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_hooks.sh"
. "$(dirname "$0")/lib_xdp.sh"

require_cmd tcpdump
fp_init
fp_setup_stick
xdp_setup
hk_srv_init
cdev=$ROUTER_CLIENT_DEV
tdev=$ROUTER_TRUNK_DEV

# cap_pkts FILE PORT: packets to PORT in the capture FILE.
cap_pkts() { tcpdump -nn -r "$1" "tcp dst port $2" 2>/dev/null | wc -l; }

for fam in 4 6; do
	xdp_stream_start "$fam"

	# ---------------------------------------------------------- tap --
	d="IPv$fam tcpdump on $cdev"
	by0=$(xdp_bypassed)
	fp_bg "cap$fam" ip netns exec "$NS_ROUTER" tcpdump -Z root -i "$cdev" -nn -s 96 -U \
		--immediate-mode -w "$FP_TMP/cap$fam.pcap"
	cap=$FP_PID
	must busywait 10000 grep -q "listening on" "$FP_TMP/cap$fam.out"
	t0=$(now_ms)
	xdp_check_steps_aside "$d: the XDP tier steps aside within $((HK_CUT_MS * FT_SLOWDOWN)) ms" "$fam" "$t0"
	check_ge "$d: counted as xdp_bypassed" $(($(xdp_bypassed) - by0)) 1
	fp_stream_running "$d"
	kill -INT "$cap" 2>/dev/null
	fp_bg_wait "$d: tcpdump ends" "cap$fam" "$cap" 10000
	check_ge "$d: the capture holds the stream's packets" "$(cap_pkts "$FP_TMP/cap$fam.pcap" "$port")" 50
	xdp_check_carries "$d: the XDP tier carries the stream again once tcpdump ends" "$fam"

	# --------------------------------------------------------- drop --
	# A counting chain first: a commit sends the flow to the skb tier,
	# which arms it again at once; only the tier's own check keeps it off.
	d="IPv$fam nft ingress chain on $cdev"
	hk_check_flowing "$d: the stream flows before the commit" "s$fam"
	must ip netns exec "$NS_ROUTER" nft -f - <<-EOF
		table netdev ft_xdp_in {
			chain in {
				type filter hook ingress device "$cdev" priority 0;
				$(hk_saddr "$fam") tcp dport $port counter
			}
		}
	EOF
	t0=$(now_ms)
	xdp_check_steps_aside "$d: the XDP tier steps aside within $((HK_CUT_MS * FT_SLOWDOWN)) ms" "$fam" "$t0"
	hk_check_flowing "$d: the stream flows through the chain" "s$fam"
	d="IPv$fam nft ingress drop on $cdev"
	must ip netns exec "$NS_ROUTER" nft add rule netdev ft_xdp_in in \
		$(hk_saddr "$fam") tcp dport "$port" counter drop
	t0=$(now_ms)
	hk_check_cut "$d: the stream stops within $((HK_CUT_MS * FT_SLOWDOWN)) ms" "s$fam" "$t0"
	n=$(ip netns exec "$NS_ROUTER" nft list table netdev ft_xdp_in |
		awk '/drop/ { for (i = 1; i < NF; i++) if ($i == "packets") { print $(i + 1); exit } }')
	check_ge "$d: the chain dropped the stream's packets" "$(fp_num "$n")" 1
	fp_stream_running "$d"
	must ip netns exec "$NS_ROUTER" nft delete table netdev ft_xdp_in
	hk_check_recovers "$d: the stream goes on once the table is deleted" "s$fam"
	xdp_check_carries "$d: the XDP tier carries the stream again" "$fam"

	# ---------------------------------------------------------- tbf --
	xdp_check_shaper "IPv$fam tbf on $tdev" "$fam" "$tdev" "s$fam"

	fp_stream_finish "IPv$fam" "s$fam" "$stream"
done

fp_exit
