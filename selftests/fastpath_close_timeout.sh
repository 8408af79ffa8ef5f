#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# A connection closes through the direction the fast path does not carry,
# and conntrack's timeout must follow the close. fasttrack is enabled on
# the client-side device only, so only client->server is cached; the
# server's packets always take the slow path, where conntrack sees them.
# Mid-stream, the server
#  - half-closes (FIN; the client goes on sending through the fast path),
#  - or resets the connection (RST, socat with linger=0 killed).
# From then on (after a half-close: once the client has sent on for 0.5 s
# and its stream is held, so that no answer of the server sets the timeout
# anew meanwhile), for 2 s (four GC runs), the router's conntrack entry is
# in a closing state (FIN_WAIT, CLOSE_WAIT, LAST_ACK, TIME_WAIT, CLOSE) and
# "conntrack -L" shows a timeout of at most that state's
# nf_conntrack_tcp_timeout_* sysctl, not the ~5 days of ESTABLISHED. After
# the half-close the stream still completes intact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
fp_require
require_cmd ethtool mkfifo
ft_module_load
setup_router_on_a_stick
nft_forward_ruleset "$NS_ROUTER"
fp_enable "$ROUTER_CLIENT_DEV"
fp_csum_offload off
cdev=$ROUTER_CLIENT_DEV

for s in ESTABLISHED FIN_WAIT CLOSE_WAIT LAST_ACK TIME_WAIT CLOSE; do
	eval "max_$s=\$(st_ct_timeout_max $s)"
done
log_info "conntrack TCP timeouts (s): established $max_ESTABLISHED fin_wait $max_FIN_WAIT close_wait $max_CLOSE_WAIT last_ack $max_LAST_ACK time_wait $max_TIME_WAIT close $max_CLOSE"

# srv_rst FAMILY PORT OUT: a server that resets the connection (SO_LINGER
# 0) when it is killed.
srv_rst() {
	ip netns exec "$NS_SERVER" socat -d -d -u "TCP$1-LISTEN:$2,reuseaddr,linger=0" \
		"OPEN:$3,creat,trunc" </dev/null >/dev/null 2>"$3.log" &
	FP_SRV=$!
	defer fp_kill "$FP_SRV"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$2"
}

# ct_closing FAMILY PORT: conntrack has seen the close: the entry is in
# another state than ESTABLISHED (or gone). ST_CT is "STATE TIMEOUT".
ct_closing() {
	ST_CT=$(st_ct_tcp_state "$1" "$2")
	[ "${ST_CT%% *}" != ESTABLISHED ]
}

# ct_overdue FAMILY PORT: the entry's timeout is longer than its state
# allows, or it is back to ESTABLISHED.
ct_overdue() {
	local max
	ct_closing "$1" "$2" || return 0
	# shellcheck disable=SC2086 # "STATE TIMEOUT" into two words
	set -- $ST_CT
	[ "$1" != gone ] || return 1
	eval "max=\${max_$1:-}"
	[ -n "$max" ] && [ "$2" -gt "$max" ]
}

# close_case HOW FAMILY: a stream, then the server closes it (fin | rst).
close_case() {
	local how="$1" fam="$2" port stream fast1 desc="IPv$2 server $1"
	fp_port port
	stream=$(fp_mkfile "$how$fam" 8388608)
	FP_OUT=$stream.rx$port
	if [ "$how" = fin ]; then
		st_srv_fin "$fam" "$port" "$FP_OUT"
	else
		srv_rst "$fam" "$port" "$FP_OUT"
	fi
	fp_pace "$NS_CLIENT" eth0 "$FP_SLOW_RATE"
	fp_bg "$how$fam" fp_tcp_client_for 90 "$fam" "$(fp_server_ip "$fam")" "$port" "$stream"
	FP_STREAM=$FP_PID
	st_offloaded "$desc" "$fam"
	check_eq "$desc: only client->server is cached" 1 "$(st_flows_of "$port")"
	check_eq "$desc: conntrack: ESTABLISHED before the close" ESTABLISHED \
		"$(st_ct_tcp_state "$fam" "$port" | cut -d' ' -f1)"
	fp_stream_running "$desc"

	fast1=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	if [ "$how" = fin ]; then fp_kill "$FP_HOLD"; else fp_kill "$FP_SRV"; fi
	if busywait 2000 ct_closing "$fam" "$port"; then
		pass "$desc: conntrack sees the close ($ST_CT)"
	else
		fail "$desc: conntrack sees the close" "conntrack -L: $(st_ct "$fam" tcp "$port")"
	fi
	# Each packet of the server sets conntrack's timeout anew: hold the
	# client's, so that no answer hides what is left when it is quiet.
	# (After a half-close, the client's data goes on first.)
	if [ "$how" = fin ]; then
		st_wait_until $(($(now_ms) + 500))
		st_stream_pause
	fi
	start=$(now_ms)
	if busywait 2000 ct_overdue "$fam" "$port"; then
		fail "$desc: conntrack's timeout follows the closing state (2 s)" \
			"after $(($(now_ms) - start)) ms: state and timeout $ST_CT; the most for that state: $(eval "echo \${max_${ST_CT%% *}:-?}") s" \
			"conntrack -L: $(st_ct "$fam" tcp "$port")"
	else
		pass "$desc: conntrack's timeout follows the closing state (2 s; now $ST_CT)"
	fi
	log_info "$desc: the fast path forwarded $(($(fp_num "$(fp_dev_bytes "$cdev" "$fam")") - fast1)) B after the close"

	if [ "$how" = fin ]; then
		st_stream_finish "$desc" "$how$fam" "$stream" 30000
	else
		st_stream_stop
	fi
}

for fam in 4 6; do
	close_case fin "$fam"
	close_case rst "$fam"
done

fp_exit
