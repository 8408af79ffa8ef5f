#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# The fast path keeps the books. With nf_conntrack_acct=1 in the router:
#  - in the middle of an offloaded stream, conntrack's byte count catches up
#    with what crossed the router within one second;
#  - after the transfer, conntrack's per-direction bytes ("conntrack -L -o
#    extended") match what the client and the server sent on the connection,
#    as nft counts it in the hosts themselves, within 5 %;
#  - the VLAN devices' netdev counters ("ip -s link": rx on the ingress
#    VLAN, tx on the egress VLAN) match what the client's and the server's
#    own interfaces sent and received, within 5 %.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV
must ip netns exec "$NS_ROUTER" sysctl -qw net.netfilter.nf_conntrack_acct=1

# ct_bytes PORT: "ORIG REPLY" bytes of the router's conntrack entry for
# the TCP connection to PORT.
ct_bytes() {
	ip netns exec "$NS_ROUTER" conntrack -L -o extended -p tcp --dport "$1" 2>/dev/null |
		awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^bytes=/) b[++n] = substr($i, 7) }
		     END { print (b[1] == "" ? 0 : b[1]), (b[2] == "" ? 0 : b[2]) }'
}
ct_orig_ge() { set -- "$1" "$2" $(ct_bytes "$1"); [ "$3" -ge "$2" ]; }

# devstat NS DEV rx|tx bytes|packets: a netdev counter (as "ip -s link"
# shows it) of DEV in NS.
devstat() {
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/${3}_$4"
}

# snap_links PREFIX: the netdev counters of the router's VLAN devices and of
# the client's and the server's eth0, in PREFIX_crx, PREFIX_ktxb and so on.
snap_links() {
	local prefix="$1" v
	for v in "crx $NS_ROUTER $cdev rx bytes" "ctx $NS_ROUTER $cdev tx bytes" \
		"srx $NS_ROUTER $sdev rx bytes" "stx $NS_ROUTER $sdev tx bytes" \
		"ktxb $NS_CLIENT eth0 tx bytes" "ktxp $NS_CLIENT eth0 tx packets" \
		"krxb $NS_CLIENT eth0 rx bytes" \
		"htxb $NS_SERVER eth0 tx bytes" "htxp $NS_SERVER eth0 tx packets" \
		"hrxb $NS_SERVER eth0 rx bytes"; do
		# shellcheck disable=SC2086 # split into words
		set -- $v
		eval "${prefix}_$1=\$(devstat $2 $3 $4 $5)"
	done
}

for fam in 4 6; do
	fp_port port
	must ip netns exec "$NS_CLIENT" nft -f - <<-EOF2
		table inet ft_acct
		delete table inet ft_acct
		table inet ft_acct {
			counter up { }
			chain out {
				type filter hook output priority 0;
				tcp dport $port counter name "up"
			}
		}
	EOF2
	must ip netns exec "$NS_SERVER" nft -f - <<-EOF2
		table inet ft_acct
		delete table inet ft_acct
		table inet ft_acct {
			counter down { }
			chain out {
				type filter hook output priority 0;
				tcp sport $port counter name "down"
			}
		}
	EOF2
	snap_links a

	stream=$(fp_mkfile "s$fam" 8388608)
	fp_begin
	fp_stream_start "s$fam" "$fam" "$stream" "" "" "$port"
	if fp_wait_fast "$cdev" "$fam" $(($(fp_dev_bytes "$cdev" "$fam") + 1048576)) 30000; then
		pass "IPv$fam: the stream is offloaded"
	else
		fail "IPv$fam: the stream is offloaded" "ftctl -j stats: $(fp_stats)"
	fi

	# Mid-stream: what has crossed the router by now, conntrack counts
	# within a second.
	fp_end
	crossed=$((FPD_C2S + $(fp_cdelta "$fam")))
	start=$(now_ms)
	if busywait 1000 ct_orig_ge "$port" "$crossed"; then
		pass "IPv$fam mid-stream: conntrack counts the fast path's bytes within 1 s (after $(($(now_ms) - start)) ms)"
	else
		fail "IPv$fam mid-stream: conntrack counts the fast path's bytes within 1 s" \
			"crossed the router: $crossed B; conntrack (orig reply): $(ct_bytes "$port")"
	fi
	fp_stream_running "IPv$fam accounting"
	fp_stream_finish "IPv$fam accounting" "s$fam" "$stream"
	fp_end
	fp_check_offload "IPv$fam" 8388608 "$FPD_C2S" "$(fp_cdelta "$fam")"

	# After the close, with the last counters pushed to conntrack.
	up=$(fp_nft_counters "$NS_CLIENT" "inet ft_acct" up)
	upp=$(fp_nft_packets "$NS_CLIENT" "inet ft_acct" up)
	down=$(fp_nft_counters "$NS_SERVER" "inet ft_acct" down)
	downp=$(fp_nft_packets "$NS_SERVER" "inet ft_acct" down)
	busywait 1000 ct_orig_ge "$port" "$up"
	read -r corig crep <<-EOF2
		$(ct_bytes "$port")
	EOF2
	snap_links b
	log_info "IPv$fam: on the connection, the client sent $up B in $upp packets, the server $down B in $downp packets (nft, from the IP header)"
	log_info "IPv$fam: conntrack orig $corig B, reply $crep B"
	check_within "IPv$fam: conntrack orig bytes match what the client sent" "$up" "$corig" 5
	check_within "IPv$fam: conntrack reply bytes match what the server sent" "$down" "$crep" 5

	# Everything the client and the server sent or received on their eth0
	# crossed the router's VLAN devices (ARP and ND included). A VLAN
	# device's rx counts from the IP header, its tx and a veth's counters
	# from the Ethernet header (14 bytes per frame).
	crx=$((b_crx - a_crx)) ctx=$((b_ctx - a_ctx)) srx=$((b_srx - a_srx)) stx=$((b_stx - a_stx))
	ksent=$((b_ktxb - a_ktxb - 14 * (b_ktxp - a_ktxp))) krcvd=$((b_krxb - a_krxb))
	hsent=$((b_htxb - a_htxb - 14 * (b_htxp - a_htxp))) hrcvd=$((b_hrxb - a_hrxb))
	log_info "IPv$fam: client eth0 sent $ksent B (IP), received $krcvd B (Ethernet); server eth0 sent $hsent B, received $hrcvd B"
	log_info "IPv$fam: ip -s link: $cdev rx $crx B tx $ctx B, $sdev rx $srx B tx $stx B"
	check_within "IPv$fam: $cdev rx bytes match what the client sent" "$ksent" "$crx" 5
	check_within "IPv$fam: $sdev tx bytes match what the server received" "$hrcvd" "$stx" 5
	check_within "IPv$fam: $sdev rx bytes match what the server sent" "$hsent" "$srx" 5
	check_within "IPv$fam: $cdev tx bytes match what the client received" "$krcvd" "$ctx" 5
done

fp_exit
