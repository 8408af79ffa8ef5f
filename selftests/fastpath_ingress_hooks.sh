#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# The fast path never bypasses an nft netdev ingress chain, whatever its
# priority. Router-on-a-stick, for IPv4 and IPv6:
#
# 1. An offloaded stream runs from the client. A table "netdev ft_hk_in"
#    with an ingress chain on the client-side VLAN device (vlan22), at a
#    priority drawn from FP_SEED in [-1000, 1000], then at -500 and 500
#    (IPv4) or 0 and 500 (IPv6), one after the other, drops the client's
#    packets to the server port. The stream stops within 100 ms of the
#    commit: the server's kernel counts no more of its bytes from commit +
#    100 ms to a second later, and the chain's own counter sees the
#    packets it drops. Deleting the table lets the stream go on, and the
#    fast path carries it again; it completes intact.
# 2. An ingress chain on vlan22 sets DSCP CS4 on the client's packets to
#    the server. A transfer that the fast path offloads reaches the server
#    with CS4 on every packet: the server counts as many packets with
#    "ip dscp cs4" (ip6 dscp cs4) as packets of the connection.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_hooks.sh"

fp_init
fp_setup_stick
hk_srv_init
cdev=$ROUTER_CLIENT_DEV

# in_chain_pkts: the packets the drop rule of table netdev ft_hk_in counted.
in_chain_pkts() {
	ip netns exec "$NS_ROUTER" nft list table netdev ft_hk_in 2>/dev/null |
		awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") { print $(i + 1); exit } }'
}

for fam in 4 6; do
	# ------------------------------------------ drop at ingress, mid-stream --
	fp_rand prio -1000 1000
	if [ "$fam" = 4 ]; then prios="$prio -500 500"; else prios="$prio 0 500"; fi
	fp_port port
	hk_srv_count "s$fam" "$fam" "$port"
	stream=$(fp_mkfile "s$fam" 8388608)
	fp_stream_start "s$fam" "$fam" "$stream" "" "" "$port"
	hk_wait_offloaded "IPv$fam: the stream is offloaded" "$fam"

	for p in $prios; do
		d="IPv$fam, ingress drop at priority $p"
		hk_check_flowing "$d: the stream flows before the commit" "s$fam"
		must ip netns exec "$NS_ROUTER" nft -f - <<-EOF
			table netdev ft_hk_in {
				chain in {
					type filter hook ingress device "$cdev" priority $p;
					$(hk_saddr "$fam") tcp dport $port counter drop
				}
			}
		EOF
		t0=$(now_ms)
		hk_check_cut "$d: the stream stops within $((HK_CUT_MS * FT_SLOWDOWN)) ms" "s$fam" "$t0"
		n=$(fp_num "$(in_chain_pkts)")
		check_ge "$d: the chain dropped the stream's packets ($n)" "$n" 1
		fp_stream_running "$d"
		must ip netns exec "$NS_ROUTER" nft delete table netdev ft_hk_in
		hk_check_recovers "$d: the stream goes on once the table is deleted" "s$fam"
		hk_check_fast_again "$d: the fast path carries the stream again" "$fam"
	done
	fp_stream_finish "IPv$fam ingress drop" "s$fam" "$stream"

	# ----------------------------------------------- DSCP set at ingress --
	fp_rand prio -1000 1000
	fp_rand size 2097152 3145728
	fp_port port
	hk_srv_count "all$fam" "$fam" "$port"
	hk_srv_count "cs4_$fam" "$fam" "$port" "$(hk_l3 "$fam")" dscp cs4
	must ip netns exec "$NS_ROUTER" nft -f - <<-EOF
		table netdev ft_hk_dscp {
			chain in {
				type filter hook ingress device "$cdev" priority $prio;
				$(hk_saddr "$fam") tcp dport $port $(hk_l3 "$fam") dscp set cs4
			}
		}
	EOF
	d="IPv$fam, ingress DSCP set cs4 at priority $prio"
	file=$(fp_mkfile "d$fam" "$size")
	fp_begin
	fp_tcp_transfer "$d" "$fam" "$file" "" "" "$port"
	fp_end
	fp_check_offload "$d" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
	all=$(hk_srv_pkts "all$fam")
	cs4=$(hk_srv_pkts "cs4_$fam")
	log_info "$d: the server received $all packets of the connection, $cs4 with DSCP CS4"
	check_ge "$d: the server received the connection's packets" "$all" 1
	check_eq "$d: every packet reached the server with DSCP CS4" "$all" "$cs4"
	must ip netns exec "$NS_ROUTER" nft delete table netdev ft_hk_dscp
done

fp_exit
