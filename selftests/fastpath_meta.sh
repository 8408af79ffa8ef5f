#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# What the ruleset sets on a packet, the fast path sets too. A forward rule
# marks the client->server packets of one connection, classifies them and
# sets their DSCP (meta mark set 0x42, meta priority set 1:3, dscp set
# cs4); the fast path skips the forward chain and sets all three as the
# stack set them on the packet it learned from, keeping each packet's ECN
# bits (the client negotiates ECN, so its data packets are ECT(0)). On the
# server-side VLAN device (vlan2222), a prio qdisc puts priority 1:3 in its
# class 1:3 (unclassified traffic goes to 1:2), and a clsact egress fw
# filter counts mark 0x42. For IPv4 and IPv6, a file goes from the client
# to the server, the fast path carries it, and:
#  - the class 1:3 counts at least 99% of the connection's packets that
#    the server received (counted by the server's kernel);
#  - the fw filter counts at least 99% of them;
#  - the server receives all of them with DSCP CS4, and at least 90% of
#    them with DSCP CS4 and ECT(0) (the handshake, the close and
#    retransmissions are not ECT; a fast path that cleared ECN would leave
#    next to none).
# A second connection that the rules do not match is offloaded too, and
# none of these counts its packets. A third one, whose TTL (hop limit) a
# forward rule sets to 65, is not learned (ftctl stats: not-learned
# mangled): the forward chain sees its bytes, and the server receives all
# of its packets with TTL 65.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_hooks.sh"

fp_init
fp_setup_stick
hk_srv_init
sdev=$ROUTER_SERVER_DEV
MIN_PCT=99
MARK=0x42

in_router() { ip netns exec "$NS_ROUTER" "$@"; }

# A VLAN device has no queue length: its prio qdisc's bands need one.
must in_router ip link set "$sdev" txqueuelen 1000
must in_router tc qdisc add dev "$sdev" root handle 1: prio
must in_router tc qdisc add dev "$sdev" clsact
must in_router tc filter add dev "$sdev" egress protocol all prio 1 \
	handle "$MARK" fw action pass

# class_pkts CLASS: the packets the prio qdisc's CLASS sent.
class_pkts() {
	in_router tc -s class show dev "$sdev" |
		awk -v c="$1" '$1 == "class" { on = $3 == c; next }
			on && $1 == "Sent" { print $4; exit }'
}

# fw_pkts: the packets the fw filter counted.
fw_pkts() {
	in_router tc -s filter show dev "$sdev" egress |
		awk '$1 == "Sent" { print $4; exit }'
}

# transfer DESC FAMILY NAME PORT [slow]: a file from the client to the
# server's PORT, offloaded (or, with "slow", all through the forward
# chain); the server counts it as NAME. Sets CLS and FW to what the class
# 1:3 and the fw filter counted meanwhile, SRV to what the server received.
transfer() {
	local desc="$1" fam="$2" name="$3" port="$4" cls0 fw0 size file
	fp_rand size 2097152 3145728
	hk_srv_count "$name" "$fam" "$port"
	cls0=$(fp_num "$(class_pkts 1:3)")
	fw0=$(fp_num "$(fw_pkts)")
	file=$(fp_mkfile "$name" "$size")
	fp_begin
	fp_tcp_transfer "$desc" "$fam" "$file" "" "" "$port"
	fp_end
	if [ "$5" = slow ]; then
		fp_check_slow "$desc" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
	else
		fp_check_offload "$desc" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
	fi
	CLS=$(($(fp_num "$(class_pkts 1:3)") - cls0))
	FW=$(($(fp_num "$(fw_pkts)") - fw0))
	SRV=$(hk_srv_pkts "$name")
	log_info "$desc: the server received $SRV packets; class 1:3 sent $CLS, the fw filter counted $FW"
}

# The client asks for ECN (the server's default accepts): its data packets
# are ECT(0).
must ip netns exec "$NS_CLIENT" sysctl -qw net.ipv4.tcp_ecn=1

for fam in 4 6; do
	l3=$(hk_l3 "$fam")
	if [ "$fam" = 4 ]; then ttl=ttl; else ttl=hoplimit; fi
	fp_port port
	fp_port other
	fp_port tport
	must in_router nft -f - <<-EOF
		table inet ft_meta {
			chain marks {
				type filter hook forward priority filter - 10;
				$(hk_saddr "$fam") tcp dport $port meta mark set $MARK meta priority set 1:3 $l3 dscp set cs4
				$(hk_saddr "$fam") tcp dport $tport $l3 $ttl set 65
			}
		}
	EOF

	d="IPv$fam, mark, priority and DSCP set in forward"
	hk_srv_count "cs4_$fam" "$fam" "$port" "$l3" dscp cs4
	hk_srv_count "ect_$fam" "$fam" "$port" "$l3" dscp cs4 "$l3" ecn ect0
	transfer "$d" "$fam" "m$fam" "$port"
	hk_pct_ge "$d: class 1:3 (priority 1:3) has >= $MIN_PCT% of them" "$CLS" "$SRV" "$MIN_PCT"
	hk_pct_ge "$d: the fw filter (mark $MARK) counts >= $MIN_PCT% of them" "$FW" "$SRV" "$MIN_PCT"
	check_eq "$d: the server got every packet with DSCP CS4" "$SRV" "$(hk_srv_pkts "cs4_$fam")"
	# Not all: the handshake, the close and retransmissions are not ECT.
	hk_pct_ge "$d: ... and >= 90% of them with ECT(0) as well" \
		"$(hk_srv_pkts "ect_$fam")" "$SRV" 90

	d="IPv$fam, a connection the rules do not match"
	hk_srv_count "cs4o_$fam" "$fam" "$other" "$l3" dscp cs4
	transfer "$d" "$fam" "o$fam" "$other"
	check_eq "$d: class 1:3 has none of it" 0 "$CLS"
	check_eq "$d: the fw filter counts none of it" 0 "$FW"
	check_eq "$d: the server got none of it with DSCP CS4" 0 "$(hk_srv_pkts "cs4o_$fam")"

	d="IPv$fam, $ttl set 65 in forward"
	hk_srv_count "t65_$fam" "$fam" "$tport" "$l3" "$ttl" 65
	mangled0=$(fp_num "$(fp_stat not_learned.mangled)")
	transfer "$d" "$fam" "t$fam" "$tport" slow
	check_ge "$d: not learned, counted as mangled" \
		"$(fp_num "$(fp_stat not_learned.mangled)")" $((mangled0 + 1))
	check_eq "$d: the server got every packet with $ttl 65" "$SRV" "$(hk_srv_pkts "t65_$fam")"

	must in_router nft delete table inet ft_meta
done

fp_exit
