#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# The fast path never bypasses what the operator attached to the egress
# device. Router-on-a-stick, for IPv4 and IPv6, one hook at a time on the
# server-side VLAN device (vlan2222), so that each is seen on its own:
#   nft    a netdev egress chain with a counter (Linux 5.16 and later; on
#          older kernels this one check is skipped, with a note)
#   tc     a clsact egress flower filter on the connection, with a counter
#   tap    an AF_PACKET capture (tcpdump -i vlan2222), and one on the trunk
#          (tcpdump -i trunk0, VLAN 2222), which the fast path reaches anyway
#   ct     clsact egress flower filters on conntrack state: one drops what
#          is not tracked (ct_state -trk), one counts the connection as
#          tracked and established (+trk+est): the stack's skb carries its
#          conntrack entry through egress, and so must the fast path's
#   ctreal the same on the trunk (VLAN 2222), where the fast path sends the
#          VLAN's frames itself while nothing is attached to vlan2222
# For each, a file goes from the client to the server, the fast path
# offloads it (device counters), and the hook counts at least 99% of the
# packets of the connection that the server received (counted by the
# server's kernel); the ct filters drop none. vlan2222's tx packet counter
# (ip -s link) grows by at least as many.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_hooks.sh"

require_cmd tcpdump
fp_init
fp_setup_stick
hk_srv_init
sdev=$ROUTER_SERVER_DEV
tdev=$ROUTER_TRUNK_DEV
MIN_PCT=99

# have_nft_egress: a netdev egress chain can be made on $sdev (the nf
# egress hook, Linux 5.16 and later); PROBE_ERR is what nft said if not.
have_nft_egress() {
	local rc=0
	PROBE_ERR=$(ip netns exec "$NS_ROUTER" nft add table netdev ft_hk_probe 2>&1 &&
		ip netns exec "$NS_ROUTER" nft add chain netdev ft_hk_probe out \
			"{ type filter hook egress device \"$sdev\" priority 0; }" 2>&1) || rc=$?
	ip netns exec "$NS_ROUTER" nft delete table netdev ft_hk_probe 2>/dev/null
	return "$rc"
}
nft_egress=1
if ! have_nft_egress; then
	nft_egress=
	if kver_ge 5 16; then
		fail "an nft netdev egress chain can be made on $sdev (Linux 5.16 and later)" "$PROBE_ERR"
	else
		log_info "Linux $(uname -r) has no nft egress hook (5.16 and later): the nft egress checks are skipped"
		log_info "(nft said: $(echo "$PROBE_ERR" | head -n 1))"
	fi
fi

# cap_start NAME DEV: tcpdump on DEV in the router, into $FP_TMP/NAME.pcap;
# CAP_PID is its pid.
cap_start() {
	fp_bg "$1" ip netns exec "$NS_ROUTER" tcpdump -Z root -i "$2" -nn -s 128 -B 16384 -U --immediate-mode \
		-w "$FP_TMP/$1.pcap"
	CAP_PID=$FP_PID
	must busywait 10000 grep -q "listening on" "$FP_TMP/$1.out"
}

PING_FILTER="icmp[icmptype] == icmp-echo or icmp6[icmp6type] == icmp6-echo"

# cap_has NAME FILTER: $FP_TMP/NAME.pcap has a packet that matches FILTER.
cap_has() { [ "$(cap_count "$1" "$2")" -gt 0 ]; }

# cap_stop NAME PID DESC [VLAN]: stop tcpdump NAME once it has written out
# all it captured: a ping from the client to the server (which takes the
# slow path) goes past both taps after the transfer, and tcpdump stops
# when it is in the file, so that no packet of the transfer is still in
# its ring.
cap_stop() {
	busywait 10000 cap_has "$1" "${4:+vlan $4 and }($PING_FILTER)" ||
		fail "$3: tcpdump captured the ping after the transfer" "$(cat "$FP_TMP/$1.out")"
	kill -INT "$2" 2>/dev/null
	busywait 10000 fp_dead "$2" || fail "$3: tcpdump ends on SIGINT" "$(cat "$FP_TMP/$1.out")"
	wait "$2" 2>/dev/null
	log_info "$3: tcpdump: $(grep -E 'captured|received|dropped' "$FP_TMP/$1.out" | xargs)"
}

# cap_count NAME FILTER: packets in $FP_TMP/NAME.pcap that match FILTER.
cap_count() {
	tcpdump -r "$FP_TMP/$1.pcap" -nn "$2" 2>/dev/null | wc -l | tr -d ' '
}

# tc_pkts [DEV [PRIO]]: the packets the (first) egress filter on DEV
# (default $sdev) of priority PRIO counted.
tc_pkts() {
	ip netns exec "$NS_ROUTER" tc -s filter show dev "${1:-$sdev}" egress ${2:+prio "$2"} |
		awk '$1 == "Sent" { print $4; exit }'
}

# ct_filters DEV MATCH...: on DEV's egress, prio 1 drops the TCP packets
# (of MATCH: flower words) that carry no conntrack entry, prio 2 counts
# the connection's packets that carry it, established.
ct_filters() {
	local dev="$1"
	shift
	must ip netns exec "$NS_ROUTER" tc qdisc add dev "$dev" clsact
	must ip netns exec "$NS_ROUTER" tc filter add dev "$dev" egress prio 1 "$@" \
		ip_proto tcp ct_state -trk action drop
	must ip netns exec "$NS_ROUTER" tc filter add dev "$dev" egress prio 2 "$@" \
		ip_proto tcp src_ip "$cip" dst_port "$port" ct_state +trk+est action pass
}

# ct_check DESC DEV: the ct filters on DEV dropped nothing and counted the
# connection; then they go.
ct_check() {
	local drop n
	drop=$(fp_num "$(tc_pkts "$2" 1)")
	n=$(fp_num "$(tc_pkts "$2" 2)")
	log_info "$1: the server received $srv packets; the filters on $2 dropped $drop untracked, counted $n established"
	check_eq "$1: the ct_state -trk filter dropped nothing" 0 "$drop"
	hk_pct_ge "$1: the ct_state +trk+est filter counts >= $MIN_PCT% of them" "$n" "$srv" "$MIN_PCT"
	must ip netns exec "$NS_ROUTER" tc qdisc del dev "$2" clsact
}

for fam in 4 6; do
	cip=$(hk_client_ip "$fam")
	if [ "$fam" = 4 ]; then proto=ip; else proto=ipv6; fi
	for hook in nft tc tap ct ctreal; do
		d="IPv$fam, $hook on $sdev egress"
		[ "$hook" != ctreal ] || d="IPv$fam, ct on $tdev egress (VLAN 2222)"
		if [ "$hook" = nft ] && [ -z "$nft_egress" ]; then
			log_info "$d: skipped (no nft egress hook on this kernel)"
			continue
		fi
		fp_rand size 2097152 3145728
		fp_port port
		hk_srv_count "$hook$fam" "$fam" "$port"
		case $hook in
		nft)
			fp_rand prio -1000 1000
			must ip netns exec "$NS_ROUTER" nft -f - <<-EOF
				table netdev ft_hk_eg {
					counter eg { }
					chain out {
						type filter hook egress device "$sdev" priority $prio;
						$(hk_saddr "$fam") tcp dport $port counter name "eg"
					}
				}
			EOF
			;;
		tc)
			must ip netns exec "$NS_ROUTER" tc qdisc add dev "$sdev" clsact
			must ip netns exec "$NS_ROUTER" tc filter add dev "$sdev" egress \
				protocol "$proto" prio 1 flower ip_proto tcp src_ip "$cip" \
				dst_port "$port" action pass
			;;
		ct) ct_filters "$sdev" protocol "$proto" flower ;;
		ctreal)
			ct_filters "$tdev" protocol 802.1q flower vlan_id 2222 \
				vlan_ethtype "$proto"
			;;
		tap)
			cap_start "vlan$fam" "$sdev"
			vpid=$CAP_PID
			cap_start "trunk$fam" "$tdev"
			tpid=$CAP_PID
			;;
		esac

		tx0=$(hk_tx_packets "$NS_ROUTER" "$sdev")
		file=$(fp_mkfile "$hook$fam" "$size")
		fp_begin
		fp_tcp_transfer "$d" "$fam" "$file" "" "" "$port"
		fp_end
		fp_check_offload "$d" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
		tx=$(($(hk_tx_packets "$NS_ROUTER" "$sdev") - tx0))
		srv=$(hk_srv_pkts "$hook$fam")

		case $hook in
		nft)
			set -- $(hk_counter "$NS_ROUTER" "netdev ft_hk_eg" eg)
			n=$1
			log_info "$d: the server received $srv packets, the egress chain (priority $prio) counted $n"
			hk_pct_ge "$d: the nft egress chain counts >= $MIN_PCT% of them" "$n" "$srv" "$MIN_PCT"
			must ip netns exec "$NS_ROUTER" nft delete table netdev ft_hk_eg
			;;
		tc)
			n=$(fp_num "$(tc_pkts)")
			log_info "$d: the server received $srv packets, the tc egress filter counted $n"
			hk_pct_ge "$d: the tc egress filter counts >= $MIN_PCT% of them" "$n" "$srv" "$MIN_PCT"
			must ip netns exec "$NS_ROUTER" tc qdisc del dev "$sdev" clsact
			;;
		ct) ct_check "$d" "$sdev" ;;
		ctreal) ct_check "$d" "$tdev" ;;
		tap)
			must ping_ok "$NS_CLIENT" "$(fp_server_ip "$fam")"
			cap_stop "vlan$fam" "$vpid" "$d, capture on $sdev"
			cap_stop "trunk$fam" "$tpid" "$d, capture on $tdev" 2222
			log_info "$d: on $tdev, $(cap_count "trunk$fam" "") packets in all, $(cap_count "trunk$fam" "vlan 2222") in VLAN 2222, $(cap_count "trunk$fam" "vlan and src host $cip") from the client"
			n=$(cap_count "vlan$fam" "src host $cip and tcp dst port $port")
			t=$(cap_count "trunk$fam" "vlan 2222 and src host $cip and tcp dst port $port")
			log_info "$d: the server received $srv packets; captured on $sdev: $n, on $tdev: $t"
			hk_pct_ge "$d: the capture on $sdev has >= $MIN_PCT% of them" "$n" "$srv" "$MIN_PCT"
			hk_pct_ge "$d: the capture on $tdev has >= $MIN_PCT% of them" "$t" "$srv" "$MIN_PCT"
			;;
		esac
		log_info "$d: $sdev's tx packets grew by $tx"
		check_ge "$d: $sdev's tx packets grew by at least the server's $srv" "$tx" "$srv"
	done
done

fp_exit
