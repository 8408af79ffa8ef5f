#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043 # dash has local
# The flow table grows and shrinks under flows that it keeps forwarding.
# 256 UDP connections of one family are cached in both directions, and a
# background udpflood keeps sending on them. Then, twice, a flood of UDP
# connections of the other family fills the table (both directions
# learned: the table grows, with a resize at each doubling), and "ftctl
# flush" of that family empties it again (it shrinks). A resize moves
# every entry from the old bucket array to the new one while packets are
# looked up. So:
#  - the table grew past its entries and shrank back (debugfs
#    fasttrack/buckets, FT_TEST_HOOKS builds only);
#  - no datagram of the busy connections missed its cached flow: no
#    "no-entry" punt of their family on either device, while the fast
#    path forwarded them throughout.
# Lookups race the resize only on another CPU: make check runs it with two
# vCPUs, on 6.12 under multi-threaded TCG, where they really run at once.
# RS_CONNS sets the connections per flood (default 4000: 8 000 directions).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_ftctl.sh"

require_cmd udpflood jq
fp_init
T=$FP_TMP
N=${RS_CONNS:-4000}
PORT0=20000		# flood client ports PORT0 .. PORT0 + N - 1
BUSY_PORT0=30000	# the busy connections' client ports
BUSY_N=256
DPORT=9
MIN_BUCKETS=64		# BIT(FT_HASH_MIN_LOG) in kmod/flowhash.c

fp_setup_plain
must ftc set max-flows 100000 udp-timeout 3600
ftc_long_udp_ct
# The end hosts drop the datagrams (no port unreachable storm).
for ns in "$NS_CLIENT" "$NS_SERVER"; do
	must ip netns exec "$ns" nft add table inet rs_drop
	must ip netns exec "$ns" nft add chain inet rs_drop input \
		'{ type filter hook input priority 0; policy accept; }'
	must ip netns exec "$ns" nft add rule inet rs_drop input udp dport "$DPORT" drop
	must ip netns exec "$ns" nft add rule inet rs_drop input udp sport "$DPORT" drop
done

fp_debugfs buckets

buckets() { ip netns exec "$NS_ROUTER" cat "$FP_DBG/buckets"; }
nflows() { ftc -j stats | fp_jget flows; }
# The table has as many buckets as entries at least: a grow has ended.
grown() { [ "$(buckets)" -ge "$(nflows)" ]; }
# It has at most four buckets per entry, or its least size: no shrink is
# due any more. (A straggler of the flood may be learned after the flush.)
shrunk() {
	local b n
	b=$(buckets) n=$(nflows)
	[ "$b" -le "$MIN_BUCKETS" ] || [ "$b" -le $((4 * n)) ]
}

# no_entry FAMILY: punts for want of a cached flow, of FAMILY on both
# devices together.
no_entry() {
	ip netns exec "$NS_ROUTER" ftctl -j show | jq --arg f "ipv$1" \
		'[.[] | .[$f].punted.no_entry // 0] | add'
}

# fast_packets FAMILY: what the fast path forwarded of FAMILY, received on
# the client's side.
fast_packets() {
	ip netns exec "$NS_ROUTER" ftctl -j show |
		fp_jget "ifname=$ROUTER_CLIENT_DEV.ipv$1.packets"
}

# fam_addrs FAMILY: six (udpflood's -6 or nothing), c and s (the client's
# and the server's address) for FAMILY.
fam_addrs() {
	six='' c=$CLIENT_IP4 s=$SERVER_IP4
	[ "$1" = 4 ] || six=-6 c=$CLIENT_IP6 s=$SERVER_IP6
}

# udp FAMILY PORT COUNT ARGS...: udpflood of FAMILY, client to server from
# ports PORT.., or with -r the server's replies.
udp() {
	local port=$2 n=$3 six c s out
	fam_addrs "$1"
	shift 3
	case " $* " in
	*" -r "*) set -- "$NS_SERVER" -s "$s" -d "$c" -p "$DPORT" -P "$port" "$@" ;;
	*) set -- "$NS_CLIENT" -s "$c" -d "$s" -p "$port" -P "$DPORT" "$@" ;;
	esac
	local ns=$1
	shift
	out=$(ip netns exec "$ns" udpflood $six -n "$n" "$@" 2>&1) ||
		fail "udpflood in $ns" "udpflood $six -n $n $*" "$out"
}

# connect FAMILY PORT COUNT: a datagram from each client port, a reply, and
# one more datagram: both directions of each connection are learned.
connect() {
	udp "$1" "$2" "$3"
	udp "$1" "$2" "$3" -r
	udp "$1" "$2" "$3"
}

for fam in 4 6; do
	other=$((10 - fam))
	desc="IPv$fam busy, IPv$other fills the table"
	connect "$fam" "$BUSY_PORT0" "$BUSY_N"
	check_eq "$desc: the busy connections are cached" $((2 * BUSY_N)) "$(nflows)"
	ne0=$(no_entry "$fam") fast0=$(fast_packets "$fam")
	# Paced a little, so that the floods get a CPU too. A lookup that
	# skipped the future missed 0 and 13 times (per family) with a 2 ms
	# pause per 16 datagrams, 54 and 37 with 0.5 ms (6.12, one run each).
	fam_addrs "$fam"
	# shellcheck disable=SC2086 # -6 or nothing
	ip netns exec "$NS_CLIENT" udpflood $six -s "$c" -d "$s" -p "$BUSY_PORT0" \
		-P "$DPORT" -n "$BUSY_N" -c 0 -b 16 -w 500 >"$T/busy.out" 2>&1 &
	busy=$!
	defer fp_kill "$busy"
	for round in 1 2; do
		t0=$(now_ms)
		connect "$other" "$PORT0" "$N"
		log_info "$desc, round $round: $(nflows) flow directions, $(buckets) buckets after $(($(now_ms) - t0)) ms"
		if busywait $(($(ft_secs 20) * 1000)) grown; then
			pass "$desc, round $round: the table grew to its $(nflows) entries ($(buckets) buckets)"
		else
			fail "$desc, round $round: the table grew to its entries" \
				"$(buckets) buckets for $(nflows) flow directions"
		fi
		check "$desc, round $round: flush ipv$other" ftc flush "ipv$other"
		if busywait $(($(ft_secs 20) * 1000)) shrunk; then
			pass "$desc, round $round: the table shrank back ($(buckets) buckets)"
		else
			fail "$desc, round $round: the table shrank back" \
				"$(buckets) buckets for $(nflows) flow directions"
		fi
	done
	check "$desc: the busy sender ran throughout" fp_alive "$busy"
	kill -TERM "$busy"
	wait "$busy"
	log_info "$desc: $(cat "$T/busy.out")"
	sent=$(sed -n 's/^udpflood: sent \([0-9]*\) datagrams.*/\1/p' "$T/busy.out")
	fast=$(($(fast_packets "$fam") - fast0))
	log_info "$desc: the fast path forwarded $fast of the $sent busy datagrams"
	check_eq "$desc: no datagram of the busy connections missed its flow" \
		"$ne0" "$(no_entry "$fam")"
	check_ge "$desc: the fast path forwarded them meanwhile" "$fast" $((${sent:-0} / 2 + 1))
	check "$desc: flush ipv$fam" ftc flush "ipv$fam"
done

fp_exit
