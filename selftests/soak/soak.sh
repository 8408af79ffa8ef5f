#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043 # dash has "local"
# Soak: SOAK_SECONDS (default 600) of mixed traffic through the fast path
# of a router-on-a-stick, both families: many short TCP connections and UDP
# exchanges, bulk iperf3 TCP and UDP runs, while a toggler randomly disables
# and enables devices (one family or both) and flushes flows. Run by
# `make soak` (selftests/vm/soak.sh), which boots a guest for it alone and
# passes SOAK_SECONDS on the kernel command line. It lives in a directory
# of its own so that run_tests.sh runs it only when named (`run_tests.sh
# soak`), never in `make check`; without SOAK_SECONDS it skips.
#
# Asserts:
#   - every short connection and every bulk run succeeds (none is lost to a
#     toggle or a flush: the slow path takes over);
#   - after the traffic, every flow expires (tcp-timeout and udp-timeout are
#     2 s): the flow count goes to 0, and the ft_flow slab cache (visible
#     when the guest boots with slub_nomerge) is back to its baseline;
#   - once the topology is gone and the module unloaded, the kernel's
#     unreclaimable slab memory is back to its baseline, taken after a
#     warm-up round of the same setup, within SOAK_SLAB_TOL_KB;
#   - no kernel splat.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib_fastpath.sh"

[ -n "${SOAK_SECONDS:-}" ] ||
	ft_skip "the soak runs with make soak (SOAK_SECONDS on the guest's command line)"
require_cmd iperf3 socat conntrack udpecho
SOAK_SLAB_TOL_KB=${SOAK_SLAB_TOL_KB:-2048}
# How long a client waits for its answers, in seconds. A guest on a host
# with more busy guests than CPUs stalls for up to 9 s at a time (the
# clock worker logs each stall); an answer that a stall delays is not lost.
SOAK_WAIT=${SOAK_WAIT:-30}
in_router() { ip netns exec "$NS_ROUTER" "$@"; }

# ---------------------------------------------------------------- memory --

# slab_settle: wait (up to 30 s) until SUnreclaim stops moving: freed
# namespaces, RCU callbacks and deferred work have run.
slab_settle() {
	local a b i=0
	b=$(slab_kb SUnreclaim)
	while [ "$i" -lt 30 ]; do
		sleep 1
		a=$b
		b=$(slab_kb SUnreclaim)
		[ $((a - b)) -gt 128 ] || [ $((b - a)) -gt 128 ] || return 0
		i=$((i + 1))
	done
}

# slab_kb FIELD: a /proc/meminfo field (Slab, SUnreclaim) in kB, after
# dropping the reclaimable caches (dentries, inodes).
slab_kb() {
	sync
	echo 2 >/proc/sys/vm/drop_caches
	awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo
}

# ft_slab: active ft_flow objects and objects per slab, or "" when the
# cache is merged into another one and not visible by name.
ft_slab() { awk '$1 == "ft_flow" { print $2, $5 }' /proc/slabinfo 2>/dev/null; }

# --------------------------------------------------------------- topology --

# soak_server LOG CMD...: CMD in the server netns, its output in LOG.
soak_server() {
	local log=$1
	shift
	ip netns exec "$NS_SERVER" "$@" </dev/null >"$log" 2>&1 &
	SOAK_SERVERS="$SOAK_SERVERS $!"
	defer fp_kill "$!"
}

soak_setup() {
	fp_setup_stick
	must in_router ftctl set tcp-timeout 2 udp-timeout 2
	# Closed connections leave conntrack within SOAK_WAIT, so that its
	# table (and the memory it holds) does not grow with the number of
	# connections. Not sooner: after the client's FIN the entry is in
	# FIN_WAIT, and the echo server's answer comes from user space; if a
	# guest stall outlasts the entry, the answer meets no connection and
	# the forward chain drops it (policy drop, "new" only from the client
	# side). The same for a UDP answer. The fast path's own timeouts stay
	# at 2 s.
	for t in tcp_timeout_time_wait tcp_timeout_close tcp_timeout_fin_wait \
		tcp_timeout_close_wait tcp_timeout_last_ack udp_timeout udp_timeout_stream; do
		must in_router sysctl -qw "net.netfilter.nf_conntrack_$t=$SOAK_WAIT"
	done
	fp_port TCP_PORT
	fp_port UDP_PORT
	fp_port IPERF4_PORT
	fp_port IPERF6_PORT
	# Echo servers, both families on one IPv6 socket each, and an iperf3
	# server per family. (A process in a netns keeps it alive:
	# soak_teardown kills them.)
	# A TCP child waits up to 30 s (-t) for cat's answer after the
	# client's EOF; socat's default, 0.5 s, is less than a guest may stall
	# on a busy host (SOAK_WAIT). UDP: selftests/udpecho.c, which does not
	# fork.
	# The TCP server logs (-d -d) each connection it accepts and what
	# its child does, for soak_server_log.
	SOAK_SERVERS=
	soak_server "$FP_TMP/tcp-server.log" \
		socat -d -d -t "$SOAK_WAIT" "TCP6-LISTEN:$TCP_PORT,fork,reuseaddr,ipv6only=0" EXEC:cat
	soak_server "$FP_TMP/udp-server.log" udpecho -s "$UDP_PORT"
	soak_server /dev/null iperf3 -s -p "$IPERF4_PORT"
	soak_server /dev/null iperf3 -s -p "$IPERF6_PORT"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$TCP_PORT"
	must busywait 5000 fp_listening "$NS_SERVER" udp "$UDP_PORT"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$IPERF4_PORT"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$IPERF6_PORT"
}

# soak_teardown: delete the namespaces and unload the module now (the
# deferred cleanups then find nothing left to do).
soak_teardown() {
	local ns pid
	for pid in $SOAK_SERVERS; do
		fp_kill "$pid"
	done
	for pid in $SOAK_SERVERS; do
		busywait 10000 fp_dead "$pid"
	done
	for ns in "$NS_CLIENT" "$NS_SERVER" "$NS_SWITCH" "$NS_ROUTER"; do
		ip netns del "$ns" 2>/dev/null
	done
	rmmod fasttrack 2>/dev/null
	! ft_module_loaded
}

# ---------------------------------------------------------------- workers --

# soak_drops: every packet drop the kernel counted, to tell a datagram
# lost to congestion (a full backlog or socket buffer, counted) from one
# that vanished: softnet's backlog drops (all namespaces), each namespace's
# devices with dropped packets, and its UDP receive errors.
soak_drops() {
	local ns d total=0
	while read -r _ d _; do
		total=$((total + 0x$d))
	done </proc/net/softnet_stat
	echo "softnet backlog drops: $total"
	for ns in "$NS_CLIENT" "$NS_SWITCH" "$NS_ROUTER" "$NS_SERVER"; do
		ip netns exec "$ns" sh -c '
			for d in /sys/class/net/*; do
				rx=$(cat "$d/statistics/rx_dropped") tx=$(cat "$d/statistics/tx_dropped")
				[ "$rx$tx" = 00 ] || echo "$1 ${d##*/}: rx_dropped $rx tx_dropped $tx"
			done
			awk -v ns="$1" "/^Udp: [0-9]/ { print ns \" udp: InErrors \" \$4 \", RcvbufErrors \" \$6 }" /proc/net/snmp
			awk -v ns="$1" "/^Udp6(InErrors|RcvbufErrors) / && \$2 { print ns, \$1, \$2 }" /proc/net/snmp6
		' sh "${ns%%-*}" 2>/dev/null
	done
}

# soak_dump PORT: the router's state about connections to PORT, for a
# failure report.
soak_dump() {
	local pid
	for pid in $SOAK_SERVERS; do
		fp_alive "$pid" || echo "    server $pid is gone: $(cat "/proc/$pid/cmdline" 2>/dev/null | tr '\0' ' ')"
	done
	echo "    router conntrack entries with port $1:"
	in_router conntrack -L 2>/dev/null | grep -E "(^|[^0-9])$1([^0-9]|$)" | sed 's/^/      /'
	echo "    router flows with port $1:"
	in_router ftctl flows 2>/dev/null | grep -E "(^|[^0-9])$1([^0-9]|$)" | sed 's/^/      /'
	echo "    drops counted so far:"
	soak_drops | sed 's/^/      /'
}

# soak_server_log CLIENT_ERR: the TCP server's log of the connection whose
# client logged CLIENT_ERR (socat -d -d): the accept, and every line of the
# child that served it.
soak_server_log() {
	local port child
	port=$(sed -n 's/.*successfully connected from local address .*[]:]\([0-9]*\)$/\1/p' "$1")
	[ -n "$port" ] || { echo "    (no local port in the client's log)"; return; }
	echo "    the server's log of the connection from port $port:"
	# "accepting connection from AF=.. [ADDR]:PORT on ..." is followed by
	# "forked off child process PID" from the listener. A port may have
	# been used before: the last such connection is this one.
	child=$(awk -v p="$port" '
		$0 ~ ("accepting connection from .*[]:]" p " on ") { acc = $0; want = 1; next }
		want && /forked off child process/ { acc = acc "\n" $0; want = 0 }
		END { if (acc != "") print acc }' "$FP_TMP/tcp-server.log")
	echo "$child" | sed 's/^/      /'
	child=$(echo "$child" | sed -n 's/.*forked off child process \([0-9]*\).*/\1/p')
	[ -z "$child" ] || grep -F "socat[$child]" "$FP_TMP/tcp-server.log" | sed 's/^/      /'
}

# Each worker loops until $DEADLINE (ms since boot) and writes
# "ok N fail N" and its first failure to $FP_TMP/NAME.res.

worker_tcp() {
	local ok=0 failed=0 first='' n fam dst want got t0
	FP_RNG=$((FP_SEED + 1))
	while [ "$(now_ms)" -lt "$DEADLINE" ]; do
		fp_rand fam 0 1
		fam=$((4 + 2 * fam))
		fp_rand n 1 2000
		dst=$(fp_sockaddr "$(fp_server_ip "$fam")" "$TCP_PORT")
		want=$(seq "$n" | tr -d '\n' | wc -c)
		t0=$(now_ms)
		got=$(seq "$n" | ip netns exec "$NS_CLIENT" timeout $((2 * SOAK_WAIT)) \
			socat -d -d -t "$SOAK_WAIT" - "TCP$fam:$dst" 2>"$FP_TMP/tcp.err" | tr -d '\n' | wc -c)
		if [ "$got" -eq "$want" ]; then
			ok=$((ok + 1))
		else
			failed=$((failed + 1))
			[ -n "$first" ] || first="TCP$fam to $dst, seq $n: $got of $want bytes back"
			echo "FAILED at ${t0}-$(now_ms) ms: TCP$fam to $dst, seq $n: $got of $want bytes back"
			sed 's/^/    /' "$FP_TMP/tcp.err"
			soak_server_log "$FP_TMP/tcp.err"
			soak_dump "$TCP_PORT"
		fi
	done
	echo "ok $ok fail $failed $first" >"$FP_TMP/tcp.res"
}

# worker_udp N: UDP exchanges (worker N of several).
worker_udp() {
	local ok=0 failed=0 first='' fam dst t0 out
	FP_RNG=$((FP_SEED + 10 + $1))
	while [ "$(now_ms)" -lt "$DEADLINE" ]; do
		fp_rand fam 0 1
		fam=$((4 + 2 * fam))
		dst=$(fp_server_ip "$fam")
		# Five datagrams from one socket, one connection: the first
		# answer lets the flow be offloaded, the others may take the
		# fast path. The answers may take up to SOAK_WAIT.
		t0=$(now_ms)
		if out=$(ip netns exec "$NS_CLIENT" timeout $((2 * SOAK_WAIT)) \
			udpecho -c "$dst" "$UDP_PORT" 5 $((SOAK_WAIT * 1000)) 2>&1); then
			ok=$((ok + 1))
		else
			failed=$((failed + 1))
			[ -n "$first" ] || first="UDP$fam to $dst: $out"
			echo "FAILED at ${t0}-$(now_ms) ms: UDP$fam to $dst port $UDP_PORT: $out"
			soak_dump "$UDP_PORT"
		fi
	done
	echo "ok $ok fail $failed $first" >"$FP_TMP/udp$1.res"
}

worker_bulk() {
	local ok=0 failed=0 first='' fam port udp secs out
	FP_RNG=$((FP_SEED + 3))
	while [ "$(now_ms)" -lt "$DEADLINE" ]; do
		fp_rand fam 0 1
		fam=$((4 + 2 * fam))
		if [ "$fam" = 4 ]; then port=$IPERF4_PORT; else port=$IPERF6_PORT; fi
		fp_rand udp 0 1
		fp_rand secs 2 5
		# shellcheck disable=SC2046 # -u or nothing
		if out=$(ip netns exec "$NS_CLIENT" timeout 60 iperf3 -"$fam" \
			-c "$(fp_server_ip "$fam")" -p "$port" -t "$secs" -b 20M \
			--connect-timeout 10000 $([ "$udp" = 1 ] && echo -u) 2>&1); then
			ok=$((ok + 1))
		else
			failed=$((failed + 1))
			[ -n "$first" ] || first="iperf3 -$fam$([ "$udp" = 1 ] && echo " -u"): $(echo "$out" | tail -n 3)"
		fi
	done
	echo "ok $ok fail $failed $first" >"$FP_TMP/bulk.res"
}

# The toggler: every 0.5 to 3 s, one of: disable and re-enable a device
# (one family or both), or flush (everything, a device, a family).
worker_toggle() {
	local ok=0 failed=0 first='' what dev fam ms out rc
	FP_RNG=$((FP_SEED + 4))
	while [ "$(now_ms)" -lt "$DEADLINE" ]; do
		fp_rand ms 500 3000
		sleep "$((ms / 1000)).$((ms % 1000 / 100))"
		fp_rand what 0 5
		fp_rand dev 0 1
		if [ "$dev" = 0 ]; then dev=$ROUTER_CLIENT_DEV; else dev=$ROUTER_SERVER_DEV; fi
		fp_rand fam 0 2
		case $fam in 0) fam= ;; 1) fam=ipv4 ;; 2) fam=ipv6 ;; esac
		# shellcheck disable=SC2086 # an empty family means both
		case $what in
		0 | 1 | 2) out=$(in_router ftctl disable "$dev" $fam 2>&1 && sleep 0.3 &&
			in_router ftctl enable "$dev" $fam 2>&1) ;;
		3) out=$(in_router ftctl flush 2>&1) ;;
		4) out=$(in_router ftctl flush dev "$dev" 2>&1) ;;
		5) out=$(in_router ftctl flush ${fam:-ipv4} 2>&1) ;;
		esac
		rc=$?
		echo "$(now_ms) ms: toggle $what $dev $fam: exit $rc"
		if [ "$rc" -eq 0 ]; then
			ok=$((ok + 1))
		else
			failed=$((failed + 1))
			[ -n "$first" ] || first="toggle $what $dev $fam: $out"
		fi
	done
	echo "ok $ok fail $failed $first" >"$FP_TMP/toggle.res"
}

# The guest's own clock check: a vCPU that the host leaves unscheduled for
# seconds makes every timer fire late at once, and a client may then give
# up before its answer is processed. Log such stalls, to tell them from
# real losses.
worker_clock() {
	local last now
	last=$(now_ms)
	while [ "$last" -lt "$DEADLINE" ]; do
		sleep 0.2
		now=$(now_ms)
		[ $((now - last)) -lt 1200 ] || echo "STALL: ${last}-${now} ms: $((now - last)) ms between two 0.2 s sleeps"
		last=$now
	done
	echo "ok 1 fail 0" >"$FP_TMP/clock.res"
}

# soak_traffic SECONDS: run all workers for SECONDS and wait for them.
soak_traffic() {
	local pids='' w
	DEADLINE=$(($(now_ms) + $1 * 1000))
	for w in tcp "udp 1" "udp 2" bulk toggle clock; do
		# shellcheck disable=SC2086 # a worker and its argument
		worker_$w </dev/null >"$FP_TMP/$(echo $w | tr -d ' ').log" 2>&1 &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086 # a list of pids
	wait $pids
}

# soak_result NAME DESC: the worker's result as a check.
soak_result() {
	local ok failed first
	read -r _ ok _ failed first <"$FP_TMP/$1.res" 2>/dev/null
	log_info "$2: ${ok:-?} succeeded, ${failed:-?} failed"
	if [ "${failed:-1}" -eq 0 ] && [ "${ok:-0}" -gt 0 ]; then
		pass "$2: every one succeeded"
	else
		fail "$2: every one succeeded" "${ok:-?} succeeded, ${failed:-?} failed; the first: $first" \
			"$(grep -A 30 FAILED "$FP_TMP/$1.log" 2>/dev/null | head -n 60)"
	fi
}

# ------------------------------------------------------------------- run --

dmesg_mark
fp_init

# Warm-up: the same setup and a little traffic, then all gone. Whatever the
# kernel allocates once and keeps (module caches, hash tables) is then part
# of the baseline.
log_info "warm-up round"
soak_setup
soak_traffic 5
soak_teardown || fail "warm-up: teardown" "the namespaces or the module did not go"
slab_settle
base_unrec=$(slab_kb SUnreclaim)
base_slab=$(slab_kb Slab)
log_info "baseline: Slab $base_slab kB, SUnreclaim $base_unrec kB"

soak_setup
ft_base=$(ft_slab)
log_info "ft_flow slab (active objects, per slab) at start: ${ft_base:-not visible}"
log_info "soak: $SOAK_SECONDS s from $(date +%T)"
soak_traffic "$SOAK_SECONDS"
log_info "soak done at $(date +%T)"
in_router ftctl -j stats | sed 's/^/INFO: stats: /'
soak_drops | sed 's/^/INFO: drops: /'

soak_result tcp "short TCP connections"
for i in 1 2; do
	soak_result "udp$i" "short UDP exchanges (worker $i)"
done
soak_result bulk "iperf3 bulk runs"
soak_result toggle "toggles and flushes"

# The toggler may have left a device disabled for a family: it does not
# matter for the expiry.
flows() { in_router ftctl -j stats | jq -r '.flows'; }
flows_zero() { [ "$(flows)" -eq 0 ]; }
if busywait 20000 flows_zero; then
	pass "every flow expires after the traffic"
else
	fail "every flow expires after the traffic" "flows: $(flows)" \
		"$(in_router ftctl flows 2>&1 | head -n 20)"
fi

if [ -n "$ft_base" ]; then
	# SLUB counts the free objects of a CPU's current slab as active: allow
	# two slabs of slack.
	ft_back() {
		# shellcheck disable=SC2046,SC2086 # split into numbers
		set -- $ft_base $(ft_slab)
		log_info "ft_flow active objects: $1 at start, $3 now"
		[ "$3" -le $(($1 + 2 * $2)) ]
	}
	if busywait 10000 ft_back >/dev/null; then
		ft_back
		pass "ft_flow slab objects back to the baseline"
	else
		fail "ft_flow slab objects back to the baseline" "$(ft_back)"
	fi
else
	log_info "ft_flow shares a slab cache with others (boot with slub_nomerge to see it)"
fi

check "teardown: namespaces deleted, module unloaded" soak_teardown
slab_settle
unrec_back() {
	UNREC=$(slab_kb SUnreclaim)
	[ "$UNREC" -le $((base_unrec + SOAK_SLAB_TOL_KB)) ]
}
# Namespaces are freed by a worker, after RCU grace periods: give it time.
if busywait 60000 unrec_back; then
	pass "unreclaimable slab back to the baseline (+$SOAK_SLAB_TOL_KB kB)"
else
	fail "unreclaimable slab back to the baseline (+$SOAK_SLAB_TOL_KB kB)" \
		"SUnreclaim: $base_unrec kB before, $UNREC kB after"
fi
log_info "after: Slab $(slab_kb Slab) kB (baseline $base_slab), SUnreclaim $UNREC kB (baseline $base_unrec)"
check_dmesg_clean "no kernel splat"
if [ "$ret" = "$KSFT_FAIL" ]; then
	echo "guest stalls (ms since boot):"
	cat "$FP_TMP/clock.log"
	echo "the toggles (ms since boot):"
	cat "$FP_TMP/toggle.log"
	echo "reproduce: make soak SOAK_SECONDS=$SOAK_SECONDS (and FP_SEED=$FP_SEED in the guest)"
fi
ft_exit
