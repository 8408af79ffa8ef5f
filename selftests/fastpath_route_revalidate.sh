#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; busywait and check call functions by name.
# Revalidate, don't invalidate: a route change touches only the cached
# flows whose forwarding decision it can change.
#
# The client streams over TCP to a service address on the server's lo,
# SVC 198.18.250.2 (2001:db8:250::2), which the router reaches through
# its route NET 198.18.250.0/24 (2001:db8:250::/48) "nhid N1", nexthop N1
# via gateway G1. st_gateways makes the server G1 and G2 at once, on two
# MAC addresses, and counts the stream's frames per gateway; G3, used by
# unrelated routes only, has G2's MAC, so that a stream sent there by
# mistake counts as G2's. The streams are paced steadily (a frame every
# 6 ms), so that any 100 ms window holds frames of them.
#  - Unrelated changes, in the middle of a stream (one per family and
#    kind): routes: a more specific route beside SVC's (198.18.250.128/25)
#    added and deleted, another prefix (198.19.77.0/24) added, replaced
#    and deleted; multipath-nexthops: a multipath route prepended, then
#    appended to, a nexthop object and a group that other routes use
#    replaced; addresses: an address in an unrelated subnet added to and
#    removed from the server-side device. After each change, no flow is
#    removed for a route change (route_changed stays for 500 ms), the
#    stream's two flow directions are still cached (same ids, learned
#    before the change), and the fast path forwards more packets of the
#    same flow. No frame of the stream goes to G2.
#  - Changes that cover SVC, in the middle of one stream per family: a
#    more specific route via G2 added (the stream moves to G2), then
#    deleted (back to NET's G1); a policy rule to SVC into a table whose
#    NET is via G2 added (to G2), then deleted (to G1); NET replaced by a
#    route via G2. After each, the stream goes to the new gateway within
#    100 ms, no frame of it goes to the old one after that, and the fast
#    path carries it again. Rule changes may drop every flow, so only this
#    is asserted for them. A second flow to SVC (UDP), cached before the
#    first move and quiet during it, speaks again once the stream went on
#    past an unrelated change: it goes through G2, none of it through G1
#    (the server counts its frames per gateway too).
# Every stream completes intact (sha256). IPv4 and IPv6. The moves of a
# route's own nexthop object are fastpath_nexthop's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"
. "$(dirname "$0")/lib_ftctl.sh"

SVC4=198.18.250.2 SVC6=2001:db8:250::2
G3_IP4=198.18.222.5 G3_IP6=2001:db8:2222::5
# Policy rules send SVC to this table.
TABLE=100
# The quiet flow: udpecho, from this source port to this one.
QUIET_SPORT=40008 QUIET_PORT=40007

fp_init
require_cmd ethtool udpecho
fp_setup_stick
fp_csum_offload off
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV

if ! ip -n "$NS_ROUTER" nexthop list >/dev/null 2>&1; then
	ft_skip "no nexthop objects here (ip nexthop list fails)"
fi

must ip -n "$NS_SERVER" addr add "$SVC4/32" dev lo
must ip -n "$NS_SERVER" addr add "$SVC6/128" dev lo
st_gateways "$SVC4" "$SVC6"
must ip netns exec "$NS_SERVER" nft -f - <<EOF
table netdev quiet {
	counter q1 { }
	counter q2 { }
	chain in {
		type filter hook ingress device "eth0" priority 1;
		ether daddr $ST_MAC1 meta l4proto udp udp dport $QUIET_PORT counter name "q1"
		ether daddr $ST_MAC2 meta l4proto udp udp dport $QUIET_PORT counter name "q2"
	}
}
EOF
must ip -n "$NS_ROUTER" neigh replace "$G3_IP4" lladdr "$ST_MAC2" dev "$sdev" nud permanent
must ip -n "$NS_ROUTER" -6 neigh replace "$G3_IP6" lladdr "$ST_MAC2" dev "$sdev" nud permanent

# family FAMILY: the addresses, prefixes and nexthop ids of FAMILY.
family() {
	fam=$1
	if [ "$fam" = 4 ]; then
		f=-4 svc=$SVC4 host=$SVC4/32 g1=$ST_G1_IP4 g2=$ST_G2_IP4 g3=$G3_IP4
		net=198.18.250.0/24 cover=198.18.250.0/25 beside=198.18.250.128/25
		other=198.19.77.0/24 mp=198.19.78.0/24 nhnet=198.19.79.0/24
		grpnet=198.19.80.0/24 ifaddr=198.19.88.1/24
		n1=1 na=2 nb=3 ng=10
	else
		f=-6 svc=$SVC6 host=$SVC6/128 g1=$ST_G1_IP6 g2=$ST_G2_IP6 g3=$G3_IP6
		net=2001:db8:250::/48 cover=2001:db8:250::/49
		beside=2001:db8:250:8000::/49
		other=2001:db8:7777::/48 mp=2001:db8:7778::/48
		nhnet=2001:db8:7779::/48 grpnet=2001:db8:777a::/48
		ifaddr=2001:db8:8888::1/64
		n1=61 na=62 nb=63 ng=60
	fi
}

# Everything is set up before the first stream: on a module that drops
# every flow on any change, setting up must not do it mid-stream.
for fam in 4 6; do
	family "$fam"
	must ip -n "$NS_ROUTER" $f nexthop add id "$n1" via "$g1" dev "$sdev"
	must ip -n "$NS_ROUTER" $f nexthop add id "$na" via "$g2" dev "$sdev"
	must ip -n "$NS_ROUTER" $f nexthop add id "$nb" via "$g3" dev "$sdev"
	must ip -n "$NS_ROUTER" nexthop add id "$ng" group "$na/$nb"
	must ip -n "$NS_ROUTER" $f route add "$net" nhid "$n1"
	must ip -n "$NS_ROUTER" $f route add "$nhnet" nhid "$na"
	must ip -n "$NS_ROUTER" $f route add "$grpnet" nhid "$ng"
	must ip -n "$NS_ROUTER" $f route add "$net" via "$g2" dev "$sdev" table "$TABLE"
done
must busywait 10000 ping_ok "$NS_CLIENT" "$SVC4"
must busywait 10000 ping_ok "$NS_CLIENT" "$SVC6"

# ---------------------------------------------------------------- flows --

# stream_flows FILE: the router's cached directions of the stream (TCP
# to or from port $FP_STREAM_PORT) as "ftctl flows dump" lines, in FILE.
stream_flows() {
	ftc flows dump "ipv$fam" | awk -F '\t' -v p="$FP_STREAM_PORT" '
		$3 == "tcp" && (($4 == "original" && $8 == p) || ($4 == "reply" && $6 == p))' >"$1"
}

# stream_ids FILE: "ORIGINAL_ID REPLY_ID" of the stream's directions in
# FILE (from stream_flows).
stream_ids() { echo "$(ftc_field "$1" original id) $(ftc_field "$1" reply id)"; }

# stream_cached: both directions of the stream are cached.
stream_cached() {
	stream_flows "$FP_TMP/cached"
	[ -n "$(ftc_field "$FP_TMP/cached" original id)" ] &&
		[ -n "$(ftc_field "$FP_TMP/cached" reply id)" ]
}

# learned_before FILE T DIR: the direction DIR in FILE, dumped just before
# now_ms, was learned before T: now - age_ms is before T. 20 ms cover
# the 10 ms steps of now_ms and a jiffy or two of age_ms; a stream's flow
# that was not dropped is over a second older than the change.
learned_before() {
	local age
	age=$(fp_num "$(ftc_field "$1" "$3" age_ms)")
	[ "$age" -gt 0 ] && [ $(($(now_ms) - age + 20)) -le "$2" ]
}

# flow_packets ID T: the fast path's packets of flow direction ID, if it
# was learned before T (now_ms), else nothing (id reused by a new flow).
# Fields 1, 17, 19 of a dump line are id, packets, age_ms (ftctl(8)).
flow_packets() {
	local t
	ftc flows dump "ipv$fam" >"$FP_TMP/packets"
	t=$(now_ms)
	awk -F '\t' -v id="$1" -v t="$t" -v t0="$2" '
		$1 == id && t - $19 + 20 <= t0 { print $17; exit }' "$FP_TMP/packets"
}

route_changed() { fp_stat route_changed; }

# ------------------------------------------------------- unrelated changes --

# kept DESC ARGS...: "ip ARGS" in the router, in the middle of the stream,
# must leave its cached flows alone.
kept() {
	local desc="IPv$fam $1" ids rc0 t0 pk
	shift
	if ! busywait 5000 stream_cached; then
		fail "$desc: the stream's two directions are cached before the change" \
			"ftctl flows: $(ftc flows 2>&1)" "ftctl -j stats: $(fp_stats)"
		return
	fi
	stream_flows "$FP_TMP/before"
	ids=$(stream_ids "$FP_TMP/before")
	rc0=$(fp_num "$(route_changed)")
	t0=$(now_ms)
	check "$desc: ip $*" ip -n "$NS_ROUTER" "$@"
	st_check_stays "$desc: no flow is removed for a route change (route_changed)" 500 "$rc0" \
		route_changed
	stream_flows "$FP_TMP/after"
	if [ "$(stream_ids "$FP_TMP/after")" = "$ids" ] &&
		learned_before "$FP_TMP/after" "$t0" original &&
		learned_before "$FP_TMP/after" "$t0" reply; then
		pass "$desc: the stream's flows stay cached (ids $ids)"
	else
		fail "$desc: the stream's flows stay cached (ids $ids)" \
			"before the change (at $t0 ms):" "$(cat "$FP_TMP/before")" \
			"after it (at $(now_ms) ms; age_ms is field 19):" "$(cat "$FP_TMP/after")"
	fi
	pk=$(fp_num "$(flow_packets "${ids%% *}" "$t0")")
	st_check_grows "$desc: the fast path forwards more of flow ${ids%% *}" 1000 "$pk" \
		flow_packets "${ids%% *}" "$t0"
}

# unrelated_changes PART: the changes of PART that do not concern SVC.
# A stream lasts 30 s at most (fp_tcp_client), so each part has its own.
unrelated_changes() {
	case $1 in
	routes)
		kept "route add $beside via G2 (beside $net)" $f route add "$beside" via "$g2" dev "$sdev"
		kept "route add $other via G2" $f route add "$other" via "$g2" dev "$sdev"
		kept "route replace $other via G3" $f route replace "$other" via "$g3" dev "$sdev"
		kept "route del $other" $f route del "$other"
		kept "route del $beside" $f route del "$beside"
		;;
	multipath-nexthops)
		kept "route prepend $mp, multipath via G2 and G3" $f route prepend "$mp" \
			nexthop via "$g2" dev "$sdev" nexthop via "$g3" dev "$sdev"
		# IPv4 adds a second multipath route; IPv6 a nexthop to the route.
		if [ "$fam" = 4 ]; then
			kept "route append $mp, multipath via G3 and G2" $f route append "$mp" \
				nexthop via "$g3" dev "$sdev" nexthop via "$g2" dev "$sdev"
		else
			kept "route append $mp, a third nexthop via G1" $f route append "$mp" \
				nexthop via "$g1" dev "$sdev"
		fi
		kept "nexthop replace id $na ($nhnet) via G3" $f nexthop replace id "$na" \
			via "$g3" dev "$sdev"
		kept "nexthop replace id $ng ($grpnet) group $nb" nexthop replace id "$ng" group "$nb"
		;;
	addresses)
		kept "addr add $ifaddr dev $sdev" $f addr add "$ifaddr" dev "$sdev"
		kept "addr del $ifaddr dev $sdev" $f addr del "$ifaddr" dev "$sdev"
		;;
	esac
}

# unrelated FAMILY PART: the changes of PART, in the middle of one stream.
unrelated() {
	local name="u$1$2" desc="IPv$1 unrelated $2" stream g2b ids
	family "$1"
	stream=$(fp_mkfile "$name" $((16777216 * FT_SLOWDOWN)))
	g2b=$(st_gw_bytes 2 "$fam")
	st_stream_start_steady "$name" "$fam" "$stream" "$svc"
	st_offloaded "$desc" "$fam"
	stream_flows "$FP_TMP/first"
	ids=$(stream_ids "$FP_TMP/first")
	unrelated_changes "$2"
	fp_stream_running "$desc"
	stream_flows "$FP_TMP/last"
	check_eq "$desc: the stream has the same flows after all of them" "$ids" "$(stream_ids "$FP_TMP/last")"
	st_stream_finish "$desc" "$name" "$stream" 30000
	check_eq "$desc: no frame of the stream went through G2" "$g2b" "$(st_gw_bytes 2 "$fam")"
}

# ------------------------------------------------------ covering changes --

# moves OLD NEW DESC ARGS...: "ip ARGS" in the router, in the middle of
# the stream, moves it from gateway OLD to NEW.
moves() {
	local old="$1" new="$2" desc="IPv$fam $3" o n o1 fast1
	shift 3
	o=$(st_gw_bytes "$old" "$fam")
	st_check_grows "$desc: the stream goes through G$old before the change" 2000 "$o" \
		st_gw_bytes "$old" "$fam"
	n=$(st_gw_bytes "$new" "$fam")
	check "$desc: ip $*" ip -n "$NS_ROUTER" "$@"
	st_check_grown "$desc: the stream moves to G$new within 100 ms" "$(now_ms)" 100 "$n" \
		st_gw_bytes "$new" "$fam"
	o1=$(st_gw_bytes "$old" "$fam")
	fast1=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	if fp_wait_fast "$cdev" "$fam" $((fast1 + 262144)) 20000; then
		pass "$desc: the fast path carries the stream again"
	else
		fail "$desc: the fast path carries the stream again" "ftctl -j stats: $(fp_stats)"
	fi
	check_eq "$desc: no frame of the stream went through G$old after it moved" "$o1" \
		"$(st_gw_bytes "$old" "$fam")"
}

# quiet_exchange DESC: datagrams of the quiet flow (udpecho from port
# QUIET_SPORT to SVC), all answered.
quiet_exchange() {
	check "$1: 5 datagrams of the quiet flow answered" fp_run ip netns exec "$NS_CLIENT" \
		udpecho -c "$svc" "$QUIET_PORT" 5 "$(($(ft_secs 5) * 1000))" "$QUIET_SPORT"
}

quiet_cached() {
	ftc flows dump "ipv$fam" | awk -F '\t' -v p="$QUIET_PORT" '
		$3 == "udp" && $4 == "original" && $8 == p { found = 1 } END { exit !found }'
}

# quiet_bytes GW: bytes of the quiet flow, of either family, that the
# server received through gateway GW (1, 2).
quiet_bytes() { fp_num "$(fp_nft_counters "$NS_SERVER" "netdev quiet" "q$1")"; }

# quiet_start: a second flow to SVC, cached through G1, then quiet while
# the stream moves.
quiet_start() {
	local q1
	fp_bg "quiet$fam" ip netns exec "$NS_SERVER" udpecho -s "$QUIET_PORT"
	QUIET_PID=$FP_PID
	must busywait 5000 fp_listening "$NS_SERVER" udp "$QUIET_PORT"
	q1=$(quiet_bytes 1)
	quiet_exchange "IPv$fam quiet flow"
	check "IPv$fam quiet flow: cached" busywait 2000 quiet_cached
	check "IPv$fam quiet flow: it went through G1" st_above "$q1" quiet_bytes 1
}

# quiet_moves: after the stream moved to G2 and went on reading the route
# change log past an unrelated change, the quiet flow, which learned its
# route before the move, speaks again: through G2, none of it through G1.
# Whatever the fast path remembers of what the stream read in the log
# must not hide the move from a flow that has not read that far.
quiet_moves() {
	local desc="IPv$fam quiet flow after the move" g2b q1 q2
	g2b=$(st_gw_bytes 2 "$fam")
	check "$desc: ip $f route add $other via G3" ip -n "$NS_ROUTER" $f route add "$other" \
		via "$g3" dev "$sdev"
	st_check_grows "$desc: the stream goes on through G2" 2000 "$g2b" st_gw_bytes 2 "$fam"
	q1=$(quiet_bytes 1) q2=$(quiet_bytes 2)
	quiet_exchange "$desc"
	check_eq "$desc: none of it went through G1" "$q1" "$(quiet_bytes 1)"
	check "$desc: it went through G2" st_above "$q2" quiet_bytes 2
	must ip -n "$NS_ROUTER" $f route del "$other"
	fp_kill "$QUIET_PID"
	# Gone now, not at its idle timeout (30 s): no_flows waits 10 s.
	must ftc flush "ipv$fam" proto udp sport "$QUIET_SPORT"
}

# covering FAMILY: each change that concerns SVC, mid-stream.
covering() {
	local name="c$1" desc="IPv$1 covering changes" stream
	family "$1"
	stream=$(fp_mkfile "$name" $((16777216 * FT_SLOWDOWN)))
	st_stream_start_steady "$name" "$fam" "$stream" "$svc"
	st_offloaded "$desc" "$fam"

	quiet_start
	moves 1 2 "route add $cover via G2 (over $net)" $f route add "$cover" via "$g2" dev "$sdev"
	quiet_moves
	moves 2 1 "route del $cover (back to $net)" $f route del "$cover"
	moves 1 2 "rule add to $host table $TABLE ($net via G2)" $f rule add to "$host" \
		table "$TABLE" pref 100
	moves 2 1 "rule del to $host table $TABLE" $f rule del to "$host" table "$TABLE" pref 100
	moves 1 2 "route replace $net via G2" $f route replace "$net" via "$g2" dev "$sdev"

	fp_stream_running "$desc"
	st_stream_finish "$desc" "$name" "$stream" 30000
}

# no_flows: no flow is cached (those of the last stream are gone), so that
# the counters of the next part count its stream only.
no_flows() {
	busywait 10000 fp_stat_eq flows 0 ||
		fail "no flow is left from the last stream" "ftctl flows: $(ftc flows 2>&1)"
}

for fam in 4 6; do
	for part in routes multipath-nexthops addresses; do
		no_flows
		unrelated "$fam" "$part"
	done
	no_flows
	covering "$fam"
done

fp_exit
