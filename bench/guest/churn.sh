# SPDX-License-Identifier: GPL-2.0
# make bench, section "churn": route churn under live flows. Sourced by
# bench/guest/bench.sh, which provides section, prime, split_flows, settle
# and the pktgen topology (bn_setup_pktgen).
#
# The router gets a table of 90 000 IPv4 and 10 000 IPv6 routes (ip -batch,
# proto bgp) to prefixes no flow uses (10.0.0.0/24 .. 11.95.255.0/24 and
# 2001:db8:8000::/48 .. 2001:db8:a70f::/48), all via the sink, a permanent
# neighbour. 1 000 pktgen flows (8 x 125 ports) are cached, then measured
# while a background loop changes 0, 100 or 1 000 of those routes per
# second of guest time: selftests/linerate.c writes the commands, in a
# burst every 10 ms, into one "ip -force -batch -" (replace via another
# neighbour, delete, add back, in turn on 1 000 of the prefixes, one in
# ten IPv6). The rate it reached during each measurement is reported.
#
# Per path (fasttrack, and the nftables flowtable with counter) and family:
#   - the share of packets on the fast path: fasttrack's forwarded packets
#     over those received back (fasttrack); 1 - the forward chain's c2s
#     packets over those sent (both paths);
#   - pps, as in the scale section;
#   - flows torn down: fasttrack's route_changed counter (flow directions,
#     "ftctl -j stats"); for the flowtable, the calls of
#     flow_offload_teardown(), counted by a kprobe (kprobe_profile).
# And the CPU share the churn takes by itself (/proc/stat, no traffic):
# with one CPU, what it takes the packets lose.
#
# Settings (kernel command line; bench.sh's ft.quick=1 picks the smaller
# defaults in brackets):
#   ft.churnrates=R,...  route updates per second (0,100,1000)
#   ft.churnreps=N       pktgen runs per rate (3) [1]
#   ft.churncount=N      frames per run (40000) [30000]
#   ft.churnfams=F,...   flow families (4,6) [4]
#   ft.churnpaths=P,...  paths (fasttrack,nfftc; fs50, the stack alone,
#                        for comparison)
#   ft.churnroutes=N4,N6 routes in the table (90000,10000)
# shellcheck shell=sh disable=SC3043,SC2086,SC2046,SC2013 # dash has "local"; $(...) splits on purpose

CHURN_QUICK=0
for arg in $(cat /proc/cmdline); do
	case $arg in ft.quick=1) CHURN_QUICK=1 ;; esac
done
CHURN_RATES=0,100,1000 CHURN_REPS=3 CHURN_COUNT=40000 CHURN_FAMS=4,6 CHURN_PATHS=fasttrack,nfftc
CHURN_ROUTES=90000,10000
[ "$CHURN_QUICK" = 0 ] || CHURN_REPS=1 CHURN_COUNT=30000 CHURN_FAMS=4
for arg in $(cat /proc/cmdline); do
	case $arg in
	ft.churnrates=*) CHURN_RATES=${arg#*=} ;;
	ft.churnreps=*) CHURN_REPS=${arg#*=} ;;
	ft.churncount=*) CHURN_COUNT=${arg#*=} ;;
	ft.churnfams=*) CHURN_FAMS=${arg#*=} ;;
	ft.churnpaths=*) CHURN_PATHS=${arg#*=} ;;
	ft.churnroutes=*) CHURN_ROUTES=${arg#*=} ;;
	esac
done

CH_DIR=/tmp/churn
# The routes' gateway is the sink; "replace" moves a route to ALT and back.
CH_ALT4=198.18.222.3 CH_ALT6=2001:db8:2222::3
CH_PROBE=bn_flow_teardown

# churn_files N4 N6: the table ($CH_DIR/table, ip -batch) and the cycle of
# updates ($CH_DIR/cycle, for linerate: replace, del, add on each of the
# first 1 000 prefixes, one in ten IPv6; it ends as it began).
churn_files() {
	mkdir -p "$CH_DIR"
	awk -v n4="$1" -v n6="$2" -v g4="$SINK_V4" -v g6="$SINK_V6" -v a4="$CH_ALT4" -v a6="$CH_ALT6" \
		-v table="$CH_DIR/table" -v cycle="$CH_DIR/cycle" '
		function p4(i) { return sprintf("%d.%d.%d.0/24", 10 + int(i / 65536), int(i / 256) % 256, i % 256) }
		function p6(i) { return sprintf("2001:db8:%x::/48", 32768 + i) }
		BEGIN {
			for (i = 0; i < n4; i++)
				printf "route add %s via %s proto bgp\n", p4(i), g4 > table
			for (i = 0; i < n6; i++)
				printf "route add %s via %s proto bgp\n", p6(i), g6 > table
			i4 = i6 = 0
			for (k = 0; k < 1000; k++) {
				if (k % 10 == 9 && i6 < n6) {
					p = p6(i6++); g = g6; a = a6
				} else if (i4 < n4) {
					p = p4(i4++); g = g4; a = a4
				} else
					continue
				printf "route replace %s via %s proto bgp\n", p, a > cycle
				printf "route del %s\n", p > cycle
				printf "route add %s via %s proto bgp\n", p, g > cycle
			}
		}'
}

# churn_start RATE: RATE route updates per second into the router, in the
# background, until churn_stop. Rate 0: nothing.
churn_start() {
	CH_PACER='' CH_IP=''
	[ "$1" -gt 0 ] || return 0
	rm -f "$CH_DIR/fifo" "$CH_DIR/rate.log" "$CH_DIR/ip.log"
	mkfifo "$CH_DIR/fifo" || bn_die "mkfifo"
	ip -n "$NS_ROUTER" -force -batch - <"$CH_DIR/fifo" >"$CH_DIR/ip.log" 2>&1 &
	CH_IP=$!
	linerate -r "$1" "$CH_DIR/cycle" >"$CH_DIR/fifo" 2>"$CH_DIR/rate.log" &
	CH_PACER=$!
}

# churn_mark: CH_T and CH_N, the pacer's clock and lines written by now
# (0 0 without a pacer).
churn_mark() {
	local n
	CH_T=0 CH_N=0
	[ -n "$CH_PACER" ] || return 0
	n=$(grep -c . "$CH_DIR/rate.log")
	kill -USR1 "$CH_PACER"
	busywait 5000 churn_marked "$n" || bn_die "linerate does not answer SIGUSR1"
	set -- $(tail -n 1 "$CH_DIR/rate.log" | sed 's/.*t=\([0-9.]*\) lines=\([0-9]*\).*/\1 \2/')
	CH_T=$1 CH_N=$2
}
churn_marked() { [ "$(grep -c . "$CH_DIR/rate.log")" -gt "$1" ]; }

# churn_stop: end the pacer and let ip finish what it read; CH_ERRORS is
# what ip complained about (0: every update applied).
churn_stop() {
	CH_ERRORS=0
	[ -n "$CH_PACER" ] || return 0
	kill "$CH_PACER"
	wait "$CH_PACER"
	wait "$CH_IP" || say "  (ip -batch exited with $?)"
	CH_ERRORS=$(grep -c . "$CH_DIR/ip.log")
	[ "$CH_ERRORS" = 0 ] || say "  ip -batch: $(head -n 3 "$CH_DIR/ip.log")"
	CH_PACER='' CH_IP=''
}

cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }

# churn_cpu RATE: the CPU share RATE updates per second take, no traffic.
churn_cpu() {
	local t0 i0 t1 i1
	churn_start "$1"
	sleep 0.5
	churn_mark
	set -- "$1" "$CH_T" "$CH_N" $(cpu_ticks)
	sleep 3
	churn_mark
	set -- "$@" $(cpu_ticks)
	churn_stop
	# $1 rate, $2 $3 mark, $4 $5 ticks (all, idle) before; $6 $7 after
	t0=$4 i0=$5 t1=$6 i1=$7
	set -- "$1" "$(awk -v a="$2" -v n="$3" -v b="$CH_T" -v m="$CH_N" \
		'BEGIN { printf "%.1f", (b > a ? (m - n) / (b - a) : 0) }')" \
		"$(awk -v t="$((t1 - t0))" -v i="$((i1 - i0))" 'BEGIN { printf "%.4f", t ? 1 - i / t : 0 }')"
	say "  $1 updates/s asked, $2 reached, no traffic: the CPU is busy $(awk -v b="$3" 'BEGIN { printf "%.1f", b * 100 }') % of the time"
	bn_result sec=churn_cpu rate="$1" achieved="$2" busy="$3" errors="$CH_ERRORS"
}

# churn_probe_on: count flow_offload_teardown() calls (the flowtable's) with
# a kprobe; CH_TRACE is empty when the kernel cannot.
churn_probe_on() {
	CH_TRACE=/sys/kernel/tracing
	[ -e "$CH_TRACE/kprobe_events" ] || mount -t tracefs tracefs "$CH_TRACE" 2>/dev/null
	modprobe nf_flow_table 2>/dev/null
	if ! echo "p:$CH_PROBE flow_offload_teardown" >>"$CH_TRACE/kprobe_events" 2>/dev/null ||
		! echo 1 >"$CH_TRACE/events/kprobes/$CH_PROBE/enable"; then
		say "  (no kprobe on flow_offload_teardown: the flowtable's teardowns are not counted)"
		CH_TRACE=
		return 0
	fi
	# Only the hit count matters: keep the ring buffer out of it.
	echo 0 >"$CH_TRACE/tracing_on"
}

churn_probe_off() {
	[ -n "$CH_TRACE" ] || return 0
	echo 0 >"$CH_TRACE/events/kprobes/$CH_PROBE/enable"
	echo "-:$CH_PROBE" >>"$CH_TRACE/kprobe_events"
	echo 1 >"$CH_TRACE/tracing_on"
}

# churn_snap PATH: "FT_FWD ROUTE_CHANGED C2S TEARDOWNS RX" now (one jq:
# it takes longer to start than anything else here).
churn_snap() {
	local ft='' td=-1
	[ "$1" != fasttrack ] || ft="ftctl -j stats;"
	[ -z "$CH_TRACE" ] || td=$(awk -v p="$CH_PROBE" '$1 == p { print $2 }' "$CH_TRACE/kprobe_profile")
	echo "$(ip netns exec "$NS_ROUTER" sh -c "$ft nft -j list counter inet ft_fwd c2s" | jq -rs '
		(map(select(.forwarded?)) | .[0] // {}) as $s |
		([.[] | .nftables? // empty | .[] | select(.counter) | .counter.packets] | .[0] // 0) as $c |
		"\($s.forwarded.packets // 0) \($s.route_changed // 0) \($c)"') $td $(bn_gen_rx)"
}

# churn_run PATH FAM RATE: CHURN_REPS measurements of the cached flows
# under RATE updates per second.
churn_run() {
	local path=$1 fam=$2 rate=$3 rep a b t0 n0 achieved pps fwd rc c2s td fast
	churn_start "$rate"
	sleep 0.5
	for rep in $(seq "$CHURN_REPS"); do
		churn_mark
		t0=$CH_T n0=$CH_N
		a=$(churn_snap "$path")
		bn_pktgen "$fam" fwd "$CHURN_COUNT" 8 125
		b=$(churn_snap "$path")
		churn_mark
		achieved=$(awk -v a="$t0" -v n="$n0" -v b="$CH_T" -v m="$CH_N" \
			'BEGIN { printf "%.1f", (b > a ? (m - n) / (b - a) : 0) }')
		set -- $a $b
		fwd=$(($6 - $1)) rc=$(($7 - $2)) c2s=$(($8 - $3)) td=$(($9 - $4))
		# The kprobe counts the flowtable's teardowns: none on other paths.
		case $path in nfft | nfftc) [ "$4" -ge 0 ] || td= ;; *) td= ;; esac
		pps=$(awk -v n="$BN_RX" -v us="$BN_USEC" 'BEGIN { printf "%.1f", n * 1e6 / us }')
		if [ "$path" = fasttrack ]; then
			fast=$(awk -v f="$fwd" -v n="$BN_RX" 'BEGIN { printf "%.4f", n ? f / n : 0 }')
			say "  $path IPv$fam $rate/s ($achieved reached) #$rep: $pps pps, $fast of the packets" \
				"on the fast path, $rc flow directions removed for a route change"
		else
			fast=$(awk -v s="$c2s" -v n="$BN_SENT" 'BEGIN { printf "%.4f", n ? 1 - s / n : 0 }')
			say "  $path IPv$fam $rate/s ($achieved reached) #$rep: $pps pps, $fast of the packets" \
				"on the fast path, ${td:-?} flows torn down"
		fi
		bn_result sec=churn path="$path" fam="$fam" rate="$rate" achieved="$achieved" rep="$rep" \
			flows=1000 sent="$BN_SENT" rx="$BN_RX" usec="$BN_USEC" pps="$pps" ft_fwd="$fwd" \
			route_changed="$rc" c2s="$c2s" teardowns="$td" fast="$fast"
	done
	churn_stop
	[ "$CH_ERRORS" = 0 ] || bn_result sec=churn_errors path="$path" fam="$fam" rate="$rate" errors="$CH_ERRORS"
}

section_churn() {
	local n4 n6 t0 path fam rate
	n4=${CHURN_ROUTES%,*} n6=${CHURN_ROUTES#*,}
	section "Route churn: 1 000 live flows, $n4 + $n6 routes, $(echo "$CHURN_RATES" | tr , ' ') updates/s"
	churn_files "$n4" "$n6"
	must ip -n "$NS_ROUTER" neigh replace "$CH_ALT4" lladdr "$GEN_MAC" dev vlan2222 nud permanent
	must ip -n "$NS_ROUTER" neigh replace "$CH_ALT6" lladdr "$GEN_MAC" dev vlan2222 nud permanent
	t0=$(now)
	ip -n "$NS_ROUTER" -batch "$CH_DIR/table" || bn_die "loading $n4 + $n6 routes"
	t0=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	say "  $n4 IPv4 + $n6 IPv6 routes loaded in $t0 s of guest time"
	bn_result sec=churn_table routes4="$n4" routes6="$n6" load_s="$t0" reps="$CHURN_REPS" count="$CHURN_COUNT"
	settle
	for rate in $(echo "$CHURN_RATES" | tr , ' '); do
		churn_cpu "$rate"
	done
	churn_probe_on
	for path in $(echo "$CHURN_PATHS" | tr , ' '); do
		for fam in $(echo "$CHURN_FAMS" | tr , ' '); do
			bn_path_on "$NS_ROUTER" "$path"
			[ "$path" != fasttrack ] ||
				ip netns exec "$NS_ROUTER" ftctl set udp-timeout 3600 >/dev/null || bn_die "ftctl set"
			prime "$fam" 8 125
			settle
			for rate in $(echo "$CHURN_RATES" | tr , ' '); do
				churn_run "$path" "$fam" "$rate"
			done
			bn_path_off "$NS_ROUTER"
		done
	done
	churn_probe_off
	ip -n "$NS_ROUTER" -4 route flush proto bgp
	ip -n "$NS_ROUTER" -6 route flush proto bgp
	ip -n "$NS_ROUTER" neigh del "$CH_ALT4" dev vlan2222
	ip -n "$NS_ROUTER" neigh del "$CH_ALT6" dev vlan2222
}
