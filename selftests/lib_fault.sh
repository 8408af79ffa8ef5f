# SPDX-License-Identifier: GPL-2.0
# Faults under load: helpers for the selftests/fault_*.sh. Source lib.sh
# and lib_fastpath.sh first, then this.
#
# A fault test builds the router-on-a-stick with fasttrack on vlan22 and
# vlan2222 (fault_setup), starts one iperf3 TCP stream per family from the
# client to the server (fault_streams_start), waits until the fast path
# carries both (fault_wait_offload), injects its fault while they run
# (often with fault_loop), and then asserts:
#   - no stuck traffic: each iperf3 client exits 0 having moved bytes
#     (fault_streams_check), unless the fault really took the path away;
#   - no leak: "rmmod fasttrack" succeeds, and afterwards its slab cache,
#     when it has one of its own in /proc/slabinfo, is gone (a cache that
#     still has objects cannot be destroyed) (fault_finish);
#   - no splat: nothing in the kernel log since the start matches
#     FAULT_SPLAT_RE (fault_finish).
# Each test takes about 30 s in a guest on a stock kernel.
# shellcheck shell=sh disable=SC3043 # dash has "local"

# How long each iperf3 stream runs, in seconds, and at what rate. Unpaced,
# two streams take the whole vCPU, and the test's own fault loop (and its
# checks) would barely run while they do. The streams start before
# fault_wait_offload, which took 22-24 s on a 7.2 guest of a loaded CI
# host: 25 s streams had ended before fault_flush's and
# fault_route_flap's loops began (0 and 1 rounds). 40 s leaves the fault
# loop its rounds even then. A slow kernel (FT_SLOWDOWN, lib.sh) needs as
# much longer to show the streams in the fast path, so they run that much
# longer.
FAULT_SECONDS=${FAULT_SECONDS:-$((40 * FT_SLOWDOWN))}
FAULT_RATE=${FAULT_RATE:-30M}
# A stream that only shows the path still works after a fault. It must
# outlast its own start and fault_wait_offload on a loaded host, which a
# fixed 5 s did not.
FAULT_SHORT=${FAULT_SHORT:-$((15 * FT_SLOWDOWN))}

# lib.sh's list, plus lockdep's and RCU's own words, debugobjects, a slab
# cache destroyed with objects, and a device whose references leaked.
FAULT_SPLAT_RE="$FT_SPLAT_RE|possible .* locking|inconsistent lock state|suspicious RCU|ODEBUG|still has objects|unregister_netdevice: waiting"

in_router() { ip netns exec "$NS_ROUTER" "$@"; }

# fault_t: milliseconds since fault_setup, for the log.
fault_t() { echo "t+$(($(now_ms) - ${FAULT_T0:-0}))ms"; }

# fault_setup: the topology of fp_setup_stick, iperf3 at hand, the kernel
# log marked. Short idle timeouts let flows of finished streams expire fast.
fault_setup() {
	require_cmd iperf3
	FAULT_T0=$(now_ms)
	fp_init
	dmesg_mark
	fp_setup_stick
	must in_router ftctl set tcp-timeout 2 udp-timeout 2
	# A cache of its own (not merged into another) is visible by name.
	FAULT_SLAB=
	if ft_slab_own; then
		FAULT_SLAB=1
	fi
}

# fault_iperf_server NAME FAMILY IP PORT: one iperf3 server in the server
# netns, for one test, on IP:PORT.
fault_iperf_server() {
	ip netns exec "$NS_SERVER" iperf3 -s -1 -B "$3" -p "$4" \
		</dev/null >"$FP_TMP/$1.srv" 2>&1 &
	defer fp_kill "$!"
	eval "FAULT_SRV_$1=\$!"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$4"
}

# fault_stream_start NAME FAMILY [DST [SECONDS [IPERF3 OPTION...]]]: an
# iperf3 TCP stream from the client to DST (default: the server) for
# SECONDS (default FAULT_SECONDS), at FAULT_RATE, in the background.
# FAULT_PID_<NAME> is the client's pid; its JSON report goes to
# $FP_TMP/NAME.out.
fault_stream_start() {
	local name=$1 fam=$2 dst=${3:-$(fp_server_ip "$2")} secs=${4:-$FAULT_SECONDS} port
	shift 2
	[ $# -eq 0 ] || shift
	[ $# -eq 0 ] || shift
	fp_port port
	fault_iperf_server "$name" "$fam" "$dst" "$port"
	# The watchdog ends a client whose path is gone for good.
	fp_bg "$name" ip netns exec "$NS_CLIENT" timeout -k 5 $((secs + 30)) \
		iperf3 -"$fam" -c "$dst" -p "$port" -t "$secs" -b "$FAULT_RATE" -J \
		--connect-timeout 10000 "$@"
	eval "FAULT_PID_$name=\$FP_PID"
	log_info "stream $name started at $(fault_t)"
}

# fault_streams_start [SECONDS]: one stream per family, named v4 and v6.
fault_streams_start() {
	fault_stream_start v4 4 "" "${1:-$FAULT_SECONDS}"
	fault_stream_start v6 6 "" "${1:-$FAULT_SECONDS}"
}

# fault_streams_running: both stream clients still run.
# shellcheck disable=SC2154 # FAULT_PID_* are set by eval
fault_streams_running() { fp_alive "$FAULT_PID_v4" && fp_alive "$FAULT_PID_v6"; }
fault_streams_any() { fp_alive "$FAULT_PID_v4" || fp_alive "$FAULT_PID_v6"; }

# fault_fast_bytes DEV FAMILY: fast-path bytes received on DEV (0 if the
# device is not enabled).
fault_fast_bytes() {
	in_router ftctl -j show 2>/dev/null | jq -r --arg d "$1" --arg f "ipv$2" \
		'[.[] | select(.ifname == $d) | .[$f].bytes // 0] | add // 0'
}
fault_fast_ge() { [ "$(fault_fast_bytes "$1" "$2")" -ge "$3" ]; }

# fault_poll TIMEOUT_MS CMD...: busywait (TIMEOUT_MS times FT_SLOWDOWN) at a
# slower pace, for a CMD that costs a few processes, so that the polling
# does not take the CPU away from the streams it watches.
fault_poll() {
	local timeout=$(($1 * FT_SLOWDOWN)) start
	shift
	start=$(now_ms)
	until "$@"; do
		[ $(($(now_ms) - start)) -lt "$timeout" ] || return 1
		sleep 0.25
	done
}

# fault_wait_offload [DEV]: from now on, the fast path carries 100 kB more
# of each family, received on DEV (default: the client-side VLAN), within
# 10 s.
fault_wait_offload() {
	local dev=${1:-$ROUTER_CLIENT_DEV} fam base base4 base6
	log_info "waiting for the fast path at $(fault_t)"
	base4=$(fault_fast_bytes "$dev" 4)
	base6=$(fault_fast_bytes "$dev" 6)
	for fam in 4 6; do
		if [ "$fam" = 4 ]; then base=$base4; else base=$base6; fi
		if fault_poll 10000 fault_fast_ge "$dev" "$fam" $((base + 100000)); then
			pass "IPv$fam stream runs in the fast path ($dev)"
		else
			fail "IPv$fam stream runs in the fast path ($dev)" \
				"fast-path bytes on $dev: $base, then $(fault_fast_bytes "$dev" "$fam")" \
				"ftctl -j stats: $(in_router ftctl -j stats 2>&1)" \
				"$(fault_why_slow "$fam")"
		fi
	done
	log_info "the fast path carries both at $(fault_t)"
}

# fault_why_slow FAMILY: what the router knows of a stream that did not
# show in the fast path: is its client alive, its connections, neighbours
# and cached flows.
# shellcheck disable=SC2154 # FAULT_PID_* are set by eval
fault_why_slow() {
	local pid
	eval "pid=\$FAULT_PID_v$1"
	echo "client of the IPv$1 stream: $(fp_alive "$pid" && echo running || echo gone)"
	echo "router conntrack -f ipv$1:"
	in_router conntrack -L -f "ipv$1" 2>&1 | head -n 8
	echo "router neighbours (IPv$1):"
	in_router ip -"$1" neigh show 2>&1
	echo "ftctl flows:"
	in_router ftctl flows 2>&1 | head -n 8
}

# fault_bytes NAME: the bytes the server received, from the client's report.
fault_bytes() {
	jq -r '.end.sum_received.bytes // 0 | floor' "$FP_TMP/$1.out" 2>/dev/null || echo 0
}

# fault_stream_check DESC NAME [TIMEOUT_MS]: stream NAME ends within
# TIMEOUT_MS, its client exits 0, and the server received bytes.
fault_stream_check() {
	local desc=$1 name=$2 pid bytes
	eval "pid=\$FAULT_PID_$name"
	log_info "$desc: waiting for the client at $(fault_t)"
	fp_bg_wait "$desc: iperf3 exits 0" "$name" "$pid" "${3:-$(((FAULT_SECONDS + 30) * 1000))}"
	bytes=$(fault_bytes "$name")
	log_info "$desc: the server received $bytes B"
	check_ge "$desc: the server received bytes" "$bytes" 1
}

fault_streams_check() {
	fault_stream_check "${1:+$1: }IPv4 stream" v4
	fault_stream_check "${1:+$1: }IPv6 stream" v6
}

# fault_stream_stop NAME: end stream NAME whatever its state (its path may be
# gone for good) and report how it ended.
fault_stream_stop() {
	local pid rc=0
	eval "pid=\$FAULT_PID_$1"
	fp_kill "$pid"
	wait "$pid" 2>/dev/null || rc=$?
	log_info "stream $1 ended with exit $rc; the server received $(fault_bytes "$1") B"
}

# fault_loop DESC MIN CMD...: run CMD over and over while either stream
# runs, and, when FAULT_LOOP_UNTIL is set, until that time (now_ms); a CMD
# that fails is reported with its output, and the loop must have run at
# least MIN times, so the fault happened mid-stream. FAULT_ITER is the
# number of rounds.
fault_loop() {
	local desc=$1 min=$2 errs=0 out first=
	shift 2
	FAULT_ITER=0
	while fault_streams_any; do
		[ -z "${FAULT_LOOP_UNTIL:-}" ] || [ "$(now_ms)" -lt "$FAULT_LOOP_UNTIL" ] || break
		if ! out=$("$@" 2>&1); then
			errs=$((errs + 1))
			[ -n "$first" ] || first="command: $(quote "$@")
output: $out"
		fi
		FAULT_ITER=$((FAULT_ITER + 1))
	done
	log_info "$desc: $FAULT_ITER rounds, until $(fault_t)"
	if [ "$errs" -eq 0 ]; then
		pass "$desc: every round succeeded"
	else
		fail "$desc: every round succeeded" "$errs of $FAULT_ITER rounds failed; the first:" "$first"
	fi
	check_ge "$desc: at least $min rounds while the streams ran" "$FAULT_ITER" "$min"
}

# fault_flows: the router's cached flow count.
fault_flows() { in_router ftctl -j stats | jq -r '.flows'; }
fault_flows_le() { [ "$(fault_flows)" -le "$1" ]; }

# fault_check_drained: once the streams are over, every flow expires.
fault_check_drained() {
	if fault_poll 15000 fault_flows_le 0; then
		pass "the flow table drains after the streams"
	else
		fail "the flow table drains after the streams" \
			"flows: $(fault_flows)" "$(in_router ftctl flows 2>&1 | head -n 20)"
	fi
}

# fault_check_dmesg DESC: no kernel splat since fault_setup.
fault_check_dmesg() {
	local splat
	splat=$(dmesg_since | grep -E -A 25 "$FAULT_SPLAT_RE")
	if [ -z "$splat" ]; then
		pass "$1"
	else
		fail "$1" "kernel log:" "$splat"
	fi
}

# fault_check_unloaded: fasttrack is gone, and so is its slab cache.
fault_check_unloaded() {
	check "fasttrack is unloaded" test ! -e /sys/module/fasttrack
	if [ -n "$FAULT_SLAB" ]; then
		check "the ft_flow slab caches are destroyed (no object left)" \
			sh -c "! awk '$FT_SLAB_AWK { found = 1 } END { exit !found }' /proc/slabinfo"
	else
		log_info "ft_flow shares a slab cache with others here; its count is not visible"
	fi
}

# fault_finish: unload the module (it must go), check for leaks and splats,
# and exit.
fault_finish() {
	if ft_module_loaded; then
		check "rmmod fasttrack" rmmod fasttrack
	fi
	fault_check_unloaded
	fault_check_dmesg "no kernel splat"
	fp_exit
}
