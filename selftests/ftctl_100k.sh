#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "ftctl flows" lists 100 000 cached flow directions, each exactly once, in
# all three forms, also while other flows come and go during the dump. The
# flows are 50 000 IPv4 UDP connections made by udpflood (a helper in this
# directory): one datagram from each of 50 000 client ports, one reply to
# each, and one more datagram from each port (conntrack has seen the reply,
# so both directions are learned). During the last dump, IPv6 connections
# are learned and flushed in a loop.
#
# FTC_CONNS sets the number of connections (default 50000: 100 000 flow
# directions). In a one-vCPU TCG guest with 1.5 GB this takes about
# a minute or two; the conntrack and flow tables are raised for it.
# shellcheck disable=SC3043
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_ftctl.sh"

ftc_require flows
require_cmd udpflood
fp_init
T=$FP_TMP

N=${FTC_CONNS:-50000}
PORT0=10000		# client ports PORT0 .. PORT0 + N - 1
CHURN_PORT0=62000	# IPv6 connections learned and flushed during a dump,
CHURN_N=100		# CHURN_N per round
DPORT=9

# sysctl_raise NAME VALUE: set a global sysctl (init netns) to VALUE for
# the test, if it is lower, and put it back at the end.
sysctl_raise() {
	local old
	old=$(sysctl -n "$1") || ft_skip "no sysctl $1"
	[ "$old" -lt "$2" ] || return 0
	must sysctl -qw "$1=$2"
	defer sysctl -qw "$1=$old"
}

# flood NS SRC DST SPORT DPORT COUNT [-r]: udpflood in NS, timed.
flood() {
	local ns=$1 start out
	shift
	start=$(now_ms)
	out=$(ip netns exec "$ns" udpflood -s "$1" -d "$2" -p "$3" -P "$4" -n "$5" $6 2>&1) ||
		fail "udpflood in $ns" "command: udpflood $*" "$out"
	log_info "$out (in $(($(now_ms) - start)) ms wall)"
}

# connect PORT0 N: the three rounds: client, server (replies), client.
connect() {
	flood "$NS_CLIENT" "$CLIENT_IP4" "$SERVER_IP4" "$1" "$DPORT" "$2"
	flood "$NS_SERVER" "$SERVER_IP4" "$CLIENT_IP4" "$DPORT" "$1" "$2" -r
	flood "$NS_CLIENT" "$CLIENT_IP4" "$SERVER_IP4" "$1" "$DPORT" "$2"
}

# churn: until $T/stop exists (20 rounds at most), learn CHURN_N IPv6
# connections, then flush IPv6; the number of rounds done is in
# $T/churn.rounds.
churn() {
	local i=0 p
	while [ ! -e "$T/stop" ] && [ "$i" -lt 20 ]; do
		p=$((CHURN_PORT0 + i * CHURN_N))
		ip netns exec "$NS_CLIENT" udpflood -6 -s "$CLIENT_IP6" -d "$SERVER_IP6" -p "$p" -P "$DPORT" -n "$CHURN_N" &&
		ip netns exec "$NS_SERVER" udpflood -6 -s "$SERVER_IP6" -d "$CLIENT_IP6" -p "$DPORT" -P "$p" -n "$CHURN_N" -r &&
		ip netns exec "$NS_CLIENT" udpflood -6 -s "$CLIENT_IP6" -d "$SERVER_IP6" -p "$p" -P "$DPORT" -n "$CHURN_N" &&
		ftc flush ipv6 || return 1
		i=$((i + 1))
		echo "$i" >"$T/churn.rounds"
	done
}

nflows() { ftc -j stats | fp_jget flows; }

# summary DUMP: one pass of awk over a "flows dump", with nothing but
# per-line tests (a pass takes seconds in the guest; arrays and sort take
# much longer). Sets S (all of it) and lines, badnf (lines without 20
# fields), badid (ids that do not increase), v4 (IPv4 lines), other (lines
# neither IPv4 nor a churn flow), orig and reply (the generated
# connections' directions), min and max (of their client ports).
summary() {
	lines='' badnf='' badid='' v4='' other='' orig='' reply='' min='' max=''
	S=$(awk -F '\t' -v c="$CLIENT_IP4" -v s="$SERVER_IP4" -v d="$DPORT" '
		NF != 20 { badnf++ }
		NR > 1 && $1 + 0 <= prev { badid++ }
		{ prev = $1 + 0 }
		$2 == "ipv4" { v4++ }
		$2 != "ipv4" && !($2 == "ipv6" && ($6 == d || $8 == d)) { other++ }
		$2 == "ipv4" && $4 == "original" && $5 == c && $7 == s && $8 == d {
			o++
			if (min == "" || $6 + 0 < min) min = $6 + 0
			if (max == "" || $6 + 0 > max) max = $6 + 0
		}
		$2 == "ipv4" && $4 == "reply" && $5 == s && $6 == d && $7 == c { r++ }
		END {
			printf "lines=%d badnf=%d badid=%d v4=%d other=%d", NR, badnf, badid, v4, other
			printf " orig=%d reply=%d min=%s max=%s\n", o, r, min, max
		}' "$1")
	eval "$S"
}

stats_line() { ftc -j stats | fp_jget flows learned table_full punted.no_entry forwarded.packets; }

# A plain router whose ruleset only turns conntrack on: the slow path is
# conntrack and routing.
ft_module_load
setup_plain_router
nft_ct_ruleset "$NS_ROUTER"
must ftc enable "$ROUTER_CLIENT_DEV"
must ftc enable "$ROUTER_SERVER_DEV"
must ftc set max-flows 200000 udp-timeout 3600
ftc_long_udp_ct
sysctl_raise net.netfilter.nf_conntrack_max 300000
# The senders outrun the router: let the backlog queue what they send.
sysctl_raise net.core.netdev_max_backlog 200000
# The end hosts drop the datagrams they get (no port unreachable storm).
for ns in "$NS_CLIENT" "$NS_SERVER"; do
	must ip netns exec "$ns" nft add table inet ftc_drop
	must ip netns exec "$ns" nft add chain inet ftc_drop input \
		'{ type filter hook input priority 0; policy accept; }'
	must ip netns exec "$ns" nft add rule inet ftc_drop input meta l4proto udp drop
done

want=$((2 * N))
log_info "$N UDP connections, $want flow directions"
start=$(now_ms)
connect "$PORT0" "$N"
# A datagram the guest dropped leaves a connection half learned: send
# both rounds again, a few times at most; learned flows are not touched.
for again in 1 2 3; do
	[ "$(nflows)" -lt "$want" ] || break
	log_info "$(nflows) of $want flows after the rounds; again ($again)"
	flood "$NS_SERVER" "$SERVER_IP4" "$CLIENT_IP4" "$DPORT" "$PORT0" "$N" -r
	flood "$NS_CLIENT" "$CLIENT_IP4" "$SERVER_IP4" "$PORT0" "$DPORT" "$N"
done
log_info "flows learned in $(($(now_ms) - start)) ms; flows learned table_full no_entry forwarded: $(stats_line)"
check_eq "$want flow directions are cached" "$want" "$(nflows)"
check_eq "none was refused for a full table" 0 "$(ftc -j stats | fp_jget table_full)"
# What a cached direction costs: a plain IPv4 one fits in a 96-byte slab
# object, so that with its hash bucket and id it stays within 128 bytes.
if ft_slab_own; then
	log_info "$(awk '$1 == "ft_flow" { printf "ft_flow slab: %d objects of %d bytes, %d per %d page(s)", $2, $4, $5, $6 }' /proc/slabinfo)"
	check_le "a plain IPv4 flow direction's slab object is at most 96 bytes" \
		"$(awk '$1 == "ft_flow" { print $4 }' /proc/slabinfo)" 96
fi

# ------------------------------------------------------------- dump --

start=$(now_ms)
ftc_to "$T/all.dump" flows dump
log_info "flows dump: $(wc -l <"$T/all.dump") lines in $(($(now_ms) - start)) ms"
summary "$T/all.dump"
log_info "flows dump: $S"
check_eq "flows dump lists every flow: as many lines as stats counts" "$(nflows)" "$lines"
check_eq "flows dump: $FTC_NFIELDS fields on every line" 0 "$badnf"
# The kernel dumps in id order, and an id names one flow: increasing ids
# mean that no flow is listed twice.
check_eq "flows dump: ids increase, no flow twice" 0 "$badid"
# N of each, from N distinct flows, within N ports: one of each per port.
check_eq "flows dump: one original and one reply per client port" \
	"$N $N $PORT0 $((PORT0 + N - 1))" "$orig $reply $min $max"

start=$(now_ms)
ftc_to "$T/all.json" -j flows
log_info "-j flows: $(wc -c <"$T/all.json") bytes in $(($(now_ms) - start)) ms"
# One array of flat objects: a "{" per flow, the first and last ids those
# of the dump. (The JSON itself is parsed, with jq, in ftctl_flows.)
check_eq "-j flows: one array" "[ ]" \
	"$(head -c 1 "$T/all.json") $(tail -c 2 "$T/all.json" | head -c 1)"
check_eq "-j flows: one object per flow" "$want" "$(tr -cd '{' <"$T/all.json" | wc -c | tr -d ' ')"
check_eq "-j flows: the first and last ids of the dump" \
	"$(head -n 1 "$T/all.dump" | cut -f1) $(tail -n 1 "$T/all.dump" | cut -f1)" \
	"$(head -c 40 "$T/all.json" | sed -n 's/^\[{"id":\([0-9]*\),.*/\1/p') $(tail -c 600 "$T/all.json" | sed -n 's/.*{"id":\([0-9]*\),.*/\1/p')"

# ----------------------------------------- dump while flows come and go --

log_info "dumping while IPv6 connections are learned and flushed"
churn >"$T/churn.log" 2>&1 &
churn_pid=$!
defer fp_kill "$churn_pid"
busywait 10000 test -e "$T/churn.rounds"
r0=$(cat "$T/churn.rounds" 2>/dev/null)
ftc_to "$T/churn.dump" flows dump
r1=$(cat "$T/churn.rounds" 2>/dev/null)
touch "$T/stop"
wait "$churn_pid"
check_eq "the churn ran without error" 0 "$?"
log_info "churn rounds (learn $CHURN_N IPv6 connections, flush ipv6) during the dump: $((r1 - r0))"
check_ge "flows came and went during the dump" $((r1 - r0)) 1
summary "$T/churn.dump"
log_info "dump during churn: $S"
check_eq "dump during churn: ids increase, no flow twice" 0 "$badid"
check_eq "dump during churn: every IPv4 flow, which stayed, is listed" "$want" "$v4"
cut -f1-8 "$T/all.dump" >"$T/all.v4"
grep -F "$(printf '\tipv4\t')" "$T/churn.dump" | cut -f1-8 >"$T/churn.v4"
check "dump during churn: the IPv4 flows are those of the quiet dump" \
	cmp "$T/all.v4" "$T/churn.v4"
check_eq "dump during churn: anything else is a churn flow" 0 "$other"

# A flushed flow's memory comes back at run time, not only at rmmod: the
# slab objects in use fall from $want to at most a few slabs' worth.
# shellcheck disable=SC2317 # busywait calls it
ft_slab_freed() { [ "$(ft_slab_objs)" -le 1024 ]; }
if ft_slab_own; then
	check "flush all" ftc flush
	busywait 10000 ft_slab_freed
	check_le "the flushed flows' slab objects are freed" "$(ft_slab_objs)" 1024
else
	log_info "ft_flow shares a slab cache: its objects are not counted"
fi

fp_exit
