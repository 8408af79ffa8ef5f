# SPDX-License-Identifier: GPL-2.0
# Helpers for the "stale state" selftests: source lib.sh, lib_fastpath.sh,
# then this.
#
# These tests change something under an offloaded connection (conntrack
# deletes it, forwarding goes off, a nexthop, an IPsec policy, a route
# with encap) and prove that the fast path stops acting on what it had
# cached. The proof is in counters read right after the change:
#   - st_act runs the change in the router and reads the fast path's
#     per-device counters in the same process, so that nothing the test
#     does in between (starting tools in a TCG guest takes tens of ms) can
#     hide packets that the fast path forwarded after the change;
#   - st_srv_count counts, in the server, what arrives for a port;
#   - st_check_stays watches a counter for a while and fails as soon as it
#     passes a limit;
#   - st_gateways makes the server two gateways with two MAC addresses, so
#     that the server sees which one a stream takes (st_gw_bytes).
# shellcheck shell=sh disable=SC3043,SC2034,SC2154 # dash has "local"; the
# ST* variables are for the tests; lib.sh sets $ret, lib_fastpath.sh FP_*.

# ------------------------------------------------------------- counters --

# st_fast_json FAMILY: fast-path bytes of FAMILY on both router devices
# (client side + server side), from "ftctl -j show" on stdin.
st_fast_json() {
	fp_jget "ifname=$ROUTER_CLIENT_DEV.ipv$1.bytes" "ifname=$ROUTER_SERVER_DEV.ipv$1.bytes" |
		awk '{ print ($1 + 0) + ($2 + 0) }'
}

# st_fast FAMILY: the same, now.
st_fast() { ip netns exec "$NS_ROUTER" ftctl -j show | st_fast_json "$1"; }

# st_act NAME CMD...: run CMD in the router netns, then at once, in the
# same shell, read "ftctl -j show" there. CMD's output goes to
# $FP_TMP/NAME.out, its exit status to ST_ACT_RC, the counters to
# $FP_TMP/NAME.json (st_fast_json reads them). CMD may be "sh -c SCRIPT".
st_act() {
	local name="$1"
	shift
	quote "$@" >"$FP_TMP/$name.cmd"
	# shellcheck disable=SC2016 # expanded by that shell
	ip netns exec "$NS_ROUTER" sh -c '
		f=$1
		shift
		"$@" >"$f.out" 2>&1
		echo $? >"$f.rc"
		ftctl -j show >"$f.json" 2>&1' sh "$FP_TMP/$name" "$@"
	ST_ACT_RC=$(cat "$FP_TMP/$name.rc" 2>/dev/null || echo 255)
}

# st_check_act DESC NAME: the CMD of "st_act NAME" succeeded.
st_check_act() {
	if [ "$ST_ACT_RC" = 0 ]; then
		pass "$1"
	else
		fail "$1" "command (in $NS_ROUTER): $(cat "$FP_TMP/$2.cmd")" \
			"exit $ST_ACT_RC, output:" "$(cat "$FP_TMP/$2.out")"
	fi
}

# st_srv_count PROTO PORT...: count in the server, in table inet st_srv,
# what arrives for each PORT (counter pPORT), before anything else sees it.
# Replaces the counters of an earlier call.
st_srv_count() {
	local proto="$1" p rules='' counters=''
	shift
	for p in "$@"; do
		counters="$counters
			counter p$p { }"
		rules="$rules
				$proto dport $p counter name \"p$p\""
	done
	must ip netns exec "$NS_SERVER" nft -f - <<-EOF
		table inet st_srv
		delete table inet st_srv
		table inet st_srv {
			$counters
			chain pre {
				type filter hook prerouting priority -500;
				$rules
			}
		}
	EOF
}

# st_srv_bytes PORT / st_srv_packets PORT: what st_srv_count counted.
st_srv_bytes() { fp_num "$(fp_nft_counters "$NS_SERVER" "inet st_srv" "p$1")"; }
st_srv_packets() { fp_num "$(fp_nft_packets "$NS_SERVER" "inet st_srv" "p$1")"; }

# st_above LIMIT CMD...: the number CMD prints is above LIMIT; ST_VALUE is it.
st_above() {
	local limit="$1"
	shift
	ST_VALUE=$(fp_num "$("$@")")
	[ "$ST_VALUE" -gt "$limit" ]
}

# st_check_stays DESC MS LIMIT CMD...: for MS ms (times FT_SLOWDOWN), the
# number CMD prints stays at most LIMIT; fails as soon as it is above.
st_check_stays() {
	local desc="$1" ms="$2" limit="$3" start
	shift 3
	start=$(now_ms)
	if busywait "$ms" st_above "$limit" "$@"; then
		fail "$desc" "$(quote "$@") printed $ST_VALUE, above $limit, $(($(now_ms) - start)) ms into the watch"
		return 1
	fi
	pass "$desc"
}

# st_check_grows DESC MS FROM CMD...: within MS ms (times FT_SLOWDOWN), the
# number CMD prints grows above FROM.
st_check_grows() {
	local desc="$1" ms="$2" from="$3" start
	shift 3
	start=$(now_ms)
	if busywait "$ms" st_above "$from" "$@"; then
		pass "$desc (after $(($(now_ms) - start)) ms)"
		return 0
	fi
	fail "$desc" "$(quote "$@") still prints $ST_VALUE (was $from) after $ms ms"
	return 1
}

# st_wait_until T_MS: let time pass until now_ms reaches T_MS: the end of
# an observation window, not a wait for an event (busywait is for those).
st_wait_until() {
	while [ "$(now_ms)" -lt "$1" ]; do
		sleep 0.05
	done
}

# st_check_quiet DESC T0 MS VALUE CMD...: from T0 + MS ms (times
# FT_SLOWDOWN) on, the number CMD prints is still VALUE.
st_check_quiet() {
	local desc="$1" t0="$2" ms="$3" want="$4" got
	shift 4
	st_wait_until $((t0 + ms * FT_SLOWDOWN))
	got=$(fp_num "$("$@")")
	if [ "$got" = "$want" ]; then
		pass "$desc"
	else
		fail "$desc" "$(quote "$@"): $want, then $got $((ms * FT_SLOWDOWN)) ms later (+$((got - want)))"
	fi
}

# st_check_grown DESC T0 MS FROM CMD...: at T0 + MS ms (times FT_SLOWDOWN),
# the number CMD prints is above FROM. Reading once at the end of the
# window, not polling, keeps the time a read takes out of the verdict. On
# failure, says whether it grew later (within 2 s) or not at all.
st_check_grown() {
	local desc="$1" t0="$2" ms="$3" from="$4" got late
	shift 4
	st_wait_until $((t0 + ms * FT_SLOWDOWN))
	got=$(fp_num "$("$@")")
	if [ "$got" -gt "$from" ]; then
		pass "$desc"
		return 0
	fi
	if busywait 2000 st_above "$from" "$@"; then
		late="it did after $(($(now_ms) - t0)) ms"
	else
		late="nor within 2 s"
	fi
	fail "$desc" "$(quote "$@") printed $got, not above $from, $((ms * FT_SLOWDOWN)) ms after; $late"
	return 1
}

# ------------------------------------------------------------ gateways --

# st_gateways DST4 DST6: two gateways on the server VLAN that are both the
# server, answering on two MAC addresses: G1 (ST_G1_IP4 .3, ST_G1_IP6 ::3)
# on its eth0's (ST_MAC1), G2 (ST_G2_IP4 .4, ST_G2_IP6 ::4) on a macvlan
# on eth0 (ST_MAC2; no address: the server accepts what arrives on it).
# The router has permanent neighbour entries for both, so no change waits
# for ARP or ND. The server counts, on eth0's ingress, the frames to DST4
# and DST6 per destination MAC, that is per gateway: st_gw_bytes.
st_gateways() {
	ST_G1_IP4=198.18.222.3 ST_G2_IP4=198.18.222.4
	ST_G1_IP6=2001:db8:2222::3 ST_G2_IP6=2001:db8:2222::4
	ST_MAC1=$(ip netns exec "$NS_SERVER" cat /sys/class/net/eth0/address)
	ST_MAC2=02:00:5e:$(od -An -N3 -tx1 /dev/urandom | sed 's/^ //; s/ /:/g')
	must ip -n "$NS_SERVER" link add link eth0 name nmac type macvlan mode bridge
	must ip -n "$NS_SERVER" link set nmac address "$ST_MAC2" up
	must ip netns exec "$NS_SERVER" sysctl -qw net.ipv4.conf.all.rp_filter=0
	must ip netns exec "$NS_SERVER" sysctl -qw net.ipv4.conf.nmac.rp_filter=0
	log_info "gateways: G1 = $ST_MAC1 (server eth0), G2 = $ST_MAC2 (macvlan nmac)"
	must ip netns exec "$NS_SERVER" nft -f - <<-EOF
		table netdev st_gw {
			counter g1_4 { }
			counter g2_4 { }
			counter g1_6 { }
			counter g2_6 { }
			chain in {
				type filter hook ingress device "eth0" priority 0;
				ether daddr $ST_MAC1 ip daddr $1 counter name "g1_4"
				ether daddr $ST_MAC2 ip daddr $1 counter name "g2_4"
				ether daddr $ST_MAC1 ip6 daddr $2 counter name "g1_6"
				ether daddr $ST_MAC2 ip6 daddr $2 counter name "g2_6"
			}
		}
	EOF
	must ip -n "$NS_ROUTER" neigh replace "$ST_G1_IP4" lladdr "$ST_MAC1" \
		dev "$ROUTER_SERVER_DEV" nud permanent
	must ip -n "$NS_ROUTER" neigh replace "$ST_G2_IP4" lladdr "$ST_MAC2" \
		dev "$ROUTER_SERVER_DEV" nud permanent
	must ip -n "$NS_ROUTER" -6 neigh replace "$ST_G1_IP6" lladdr "$ST_MAC1" \
		dev "$ROUTER_SERVER_DEV" nud permanent
	must ip -n "$NS_ROUTER" -6 neigh replace "$ST_G2_IP6" lladdr "$ST_MAC2" \
		dev "$ROUTER_SERVER_DEV" nud permanent
}

# st_gw_bytes GW FAMILY: bytes to st_gateways' DST of FAMILY that the
# server received through gateway GW (1, 2).
st_gw_bytes() { fp_num "$(fp_nft_counters "$NS_SERVER" "netdev st_gw" "g$1_$2")"; }

# ----------------------------------------------------------- conntrack --

# st_ct FAMILY PROTO PORT: the router's conntrack entries (conntrack -L
# lines) of the connections to PORT.
st_ct() {
	ip netns exec "$NS_ROUTER" conntrack -L -f "ipv$1" -p "$2" --dport "$3" 2>/dev/null
}

# st_ct_count FAMILY PROTO PORT: how many there are.
st_ct_count() { st_ct "$@" | grep -c "dport=$3 "; }

# st_flows_of PORT: the cached directions of connections to or from PORT.
st_flows_of() {
	ip netns exec "$NS_ROUTER" ftctl -j flows |
		jq --argjson p "$1" '[.[] | select(.dport == $p or .sport == $p)] | length'
}

# st_ct_tcp_state FAMILY PORT: "STATE TIMEOUT" of the TCP entry to PORT,
# or "gone 0".
st_ct_tcp_state() {
	st_ct "$1" tcp "$2" | awk '$1 == "tcp" { print $4, $3; f = 1; exit } END { if (!f) print "gone 0" }'
}

# st_ct_state_is FAMILY PORT STATE: conntrack's TCP entry to PORT is in
# STATE. ST_CT is "STATE TIMEOUT".
st_ct_state_is() {
	ST_CT=$(st_ct_tcp_state "$1" "$2")
	[ "${ST_CT%% *}" = "$3" ]
}

# st_ct_timeout_max STATE: the longest timeout conntrack gives a TCP entry
# in STATE (nf_conntrack_tcp_timeout_*, in the router), in seconds.
st_ct_timeout_max() {
	ip netns exec "$NS_ROUTER" sysctl -n \
		"net.netfilter.nf_conntrack_tcp_timeout_$(echo "$1" | tr '[:upper:]' '[:lower:]')" 2>/dev/null
}

# ------------------------------------------------------------- streams --

# st_srv_fin FAMILY PORT OUT: a server that writes what arrives on PORT to
# OUT and sends nothing; it half-closes (FIN) when FP_HOLD ends: socat
# reads what it sends from a FIFO that FP_HOLD holds open.
st_srv_fin() {
	local fifo="$FP_TMP/fifo$2"
	must mkfifo "$fifo"
	ip netns exec "$NS_SERVER" socat -d -d -t 60 "TCP$1-LISTEN:$2,reuseaddr" \
		"OPEN:$fifo,rdonly!!OPEN:$3,creat,trunc,wronly" </dev/null >/dev/null 2>"$3.log" &
	FP_SRV=$!
	defer fp_kill "$FP_SRV"
	sleep 600 >"$fifo" &
	FP_HOLD=$!
	defer fp_kill "$FP_HOLD"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$2"
}

# st_stream_stop: end the stream of fp_stream_start (client and server),
# when a test leaves it stuck on purpose.
st_stream_stop() {
	fp_kill "$FP_STREAM"
	fp_kill "$FP_SRV"
	wait "$FP_STREAM" "$FP_SRV" 2>/dev/null
	fp_unpace "$NS_CLIENT" eth0
}

# st_stream_pause: hold the stream of fp_stream_start in the client's
# qdisc (nothing leaves it), until fp_stream_speedup.
st_stream_pause() {
	must ip netns exec "$NS_CLIENT" tc qdisc change dev eth0 root tbf \
		rate 8bit burst 2kb limit 8mb
}

# st_stream_start_steady NAME FAMILY FILE [DST]: fp_stream_start, for a
# steady stream. TCP hands the client's tbf GSO packets of 32-64 KB, and
# tbf sends each whole once it has the tokens for it: at FP_SLOW_RATE, a
# burst every 130-260 ms, with nothing in between. A bucket smaller than
# those packets makes tbf segment them and send a frame every 6 ms, so that
# a window of 100 ms always holds frames of the stream. The bucket is set
# before the client starts: a packet tbf already held that is larger than
# the bucket would never leave, and the stream would stall until
# fp_stream_speedup gives the bucket back.
st_stream_start_steady() {
	fp_stream_start "$1" "$2" "$3" "${4:-}" "" "" 4kb
}

# st_stuck_info DESC: what a stuck stream's ends and the router show, for
# the log: both ends' TCP sockets (/proc: the guest has no ss), conntrack's
# TCP entries, the client's qdisc and fasttrack's counters.
st_stuck_info() {
	log_info "$1: client sockets: $(ip netns exec "$NS_CLIENT" cat /proc/net/tcp /proc/net/tcp6 2>&1 | tr '\n' ' ')"
	log_info "$1: server sockets: $(ip netns exec "$NS_SERVER" cat /proc/net/tcp /proc/net/tcp6 2>&1 | tr '\n' ' ')"
	log_info "$1: conntrack: $(ip netns exec "$NS_ROUTER" conntrack -L -p tcp 2>&1 | tr '\n' ' ')"
	log_info "$1: client qdisc: $(ip netns exec "$NS_CLIENT" tc -s qdisc show dev eth0 2>&1 | tr '\n' ' ')"
	log_info "$1: ftctl stats: $(ip netns exec "$NS_ROUTER" ftctl -j stats 2>&1)"
}

# st_stream_finish DESC NAME FILE TIMEOUT_MS: fp_stream_finish with a
# shorter limit, for a stream that a failed check may have left stuck;
# FILE and its received copy are removed.
st_stream_finish() {
	fp_stream_speedup
	if fp_bg_wait "$1: transfer completes" "$2" "$FP_STREAM" "$4"; then
		fp_wait_srv "$1"
		fp_check_same "$1: data intact (sha256)" "$3" "$FP_OUT"
	else
		st_stuck_info "$1"
		fp_kill "$FP_SRV"
	fi
	fp_unpace "$NS_CLIENT" eth0
	# The guest's /tmp is a tmpfs of half its memory, and streams grow with
	# FT_SLOWDOWN: fastpath_route_revalidate's eight (48 MB and its copy
	# each on arm) filled it.
	rm -f "$3" "$FP_OUT"
}

# st_offloaded DESC FAMILY: the fast path carries the stream: 256 KB more
# through the client-side device within 20 s; with FP_XDP=1, the XDP tier
# then carries it (xdp_check_carries).
st_offloaded() {
	if fp_wait_fast "$ROUTER_CLIENT_DEV" "$2" \
		$(($(fp_num "$(fp_dev_bytes "$ROUTER_CLIENT_DEV" "$2")") + 262144)) 20000; then
		pass "$1: the stream is offloaded"
		[ "${FP_XDP:-0}" != 1 ] || xdp_check_carries "$1: the XDP tier carries the stream" "$2"
		return 0
	fi
	fail "$1: the stream is offloaded" "ftctl -j stats: $(fp_stats)"
	return 1
}

# st_ncpus: the CPUs online in the guest.
st_ncpus() { grep -c '^processor' /proc/cpuinfo; }
