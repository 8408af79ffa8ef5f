#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# TTL 1 / hop limit 1 on an offloaded flow: while a UDP flow runs on the
# fast path, the client sends some of its datagrams with TTL (hop limit) 1.
# The fast path must not forward those: it punts them (punted.ttl), the
# router's stack answers with ICMP time exceeded, and the client gets it.
# The flow itself stays offloaded.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV

must ip netns exec "$NS_CLIENT" nft -f - <<EOF2
table inet ft_ttl {
	counter ttl1 { }
	counter te { }
	chain out {
		type filter hook output priority 0;
	}
	chain in {
		type filter hook input priority 0;
		icmp type time-exceeded counter name "te"
		icmpv6 type time-exceeded counter name "te"
	}
}
EOF2

te_ge() { [ "$(fp_nft_counters "$NS_CLIENT" "inet ft_ttl" te)" -ge "$1" ]; }

for fam in 4 6; do
	if [ "$fam" = 4 ]; then
		nfproto=ipv4 set_ttl="ip ttl set 1" what="TTL"
	else
		nfproto=ipv6 set_ttl="ip6 hoplimit set 1" what="hop limit"
	fi
	fp_port port
	file=$(fp_mkfile "u$fam" 8388608)
	out=$file.rx

	fp_udp_server "$fam" "$port" "$out"
	fp_pace "$NS_CLIENT" eth0 "$FP_SLOW_RATE"
	fp_read
	fast0=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	fp_bg "udp$fam" fp_udp_client "$fam" "$(fp_server_ip "$fam")" "$port" "$file"
	FP_STREAM=$FP_PID
	if fp_wait_fast "$cdev" "$fam" $((fast0 + 65536)) 20000; then
		pass "IPv$fam UDP: the flow is offloaded"
	else
		fail "IPv$fam UDP: the flow is offloaded" "fast path: $(fp_dev_bytes "$cdev" "$fam") B" \
			"ftctl -j stats: $(fp_stats)"
	fi

	ttl0=$(fp_stat punted.ttl)
	te0=$(fp_nft_counters "$NS_CLIENT" "inet ft_ttl" te)
	snmp0=$(fp_snmp "$NS_ROUTER" "$fam" OutTimeExcds)
	fast1=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	# Every 8th datagram of the flow leaves the client with TTL 1.
	check "IPv$fam: client sends every 8th datagram with $what 1" \
		ip netns exec "$NS_CLIENT" nft add rule inet ft_ttl out meta nfproto "$nfproto" \
		udp dport "$port" numgen inc mod 8 == 0 counter name ttl1 "$set_ttl"
	if busywait 10000 te_ge $((te0 + 3)); then
		pass "IPv$fam: ICMP time exceeded reaches the client"
	else
		fail "IPv$fam: ICMP time exceeded reaches the client" \
			"time exceeded received: $(($(fp_nft_counters "$NS_CLIENT" "inet ft_ttl" te) - te0))" \
			"$what-1 datagrams sent: $(fp_nft_packets "$NS_CLIENT" "inet ft_ttl" ttl1)" \
			"ftctl -j stats: $(fp_stats)"
	fi
	must ip netns exec "$NS_CLIENT" nft flush chain inet ft_ttl out
	fp_stream_running "IPv$fam $what 1"
	# The client counts a datagram before its shaper: wait for the last ones
	# to reach the router.
	sent=$(fp_nft_packets "$NS_CLIENT" "inet ft_ttl" ttl1)
	busywait 10000 fp_stat_ge punted.ttl $((ttl0 + sent))
	punted=$(($(fp_stat punted.ttl) - ttl0))
	snmp=$(($(fp_snmp "$NS_ROUTER" "$fam" OutTimeExcds) - snmp0))
	fast2=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	log_info "IPv$fam: $sent datagrams with $what 1 sent, $punted punted for TTL, router sent $snmp time exceeded"
	check_ge "IPv$fam: the fast path punted every $what-1 datagram (punted.ttl)" "$punted" "$sent"
	check_ge "IPv$fam: the router sent ICMP time exceeded" "$snmp" 1
	check_ge "IPv$fam: the rest of the flow stayed on the fast path meanwhile" "$fast2" $((fast1 + 1))
	must ip netns exec "$NS_CLIENT" nft reset counter inet ft_ttl ttl1

	fp_stream_speedup
	fp_bg_wait "IPv$fam UDP: the client finishes" "udp$fam" "$FP_STREAM" 30000
	fp_unpace "$NS_CLIENT" eth0
	fp_kill "$FP_SRV"
done

fp_exit
