#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest (selftests/vm/bench.sh boots it under qemu -icount,
# one vCPU). Prints narration, and one "@RESULT key=value..." line per
# measurement for the host, which computes medians, ratios and the report.
#
# Settings from the kernel command line (bench.sh sets them):
#   ft.reps=N          repeats of every iperf3 measurement (3)
#   ft.ppsreps=N       repeats of every pktgen measurement (5)
#   ft.count=N         pktgen frames per measurement (30000)
#   ft.tcp=BYTES       bytes per iperf3 TCP run, as iperf3 -n takes them (32M)
#   ft.udp=BYTES       bytes per iperf3 UDP run (8M)
#   ft.tcppaths=P,...  paths of the iperf3 runs (fs0,fs50,nfftc,fasttrack)
#   ft.flows=A,B,...   flow counts of the scaling runs (1,1000,100000,1000000)
#   ft.scale=P[:MAX],...  paths of the scaling runs, each up to MAX flows
#                      (fasttrack,nfftc)
#   ft.scalecount=N    pktgen frames per scaling run from 100 000 flows up
#                      (100000)
#   ft.ppspaths=P,...  paths of the pps section (all of lib.sh's BN_PATHS)
#   ft.skip=S,...      sections to skip: tcp, pps, scale, commits, churn,
#                      covering, bridge, devices, memchurn, connrate, l3dev,
#                      nic
#   ft.profile=P,...   instruction profile windows of these pps paths, for
#                      bench/prof/profile.sh (bench/guest/profile.sh)
#   ft.cache=P,...     cache model windows of these paths, for
#                      bench/prof/cache.sh (bench/guest/cache.sh)
#   ft.nic=virtio      BENCH_NIC=virtio: the guest has two virtio-net NICs on
#                      a qemu hub; run the nic section on them
#   ft.nic=hostgen     BENCH_NIC=hostgen: the guest has one, the router's,
#                      and bench/hostgen.c on the host sends the frames
#   ft.nicpaths=P,...  paths of the nic section (bench/guest/nic.sh)
#   ft.quick=1         BENCH_QUICK: churn.sh, covering.sh and devices.sh take
#                      their smaller defaults (they document their own ft.*
#                      settings)
#
# Sections:
#   tcp    iperf3 TCP (1 and 4 streams) and UDP, client (VLAN 22) to server
#          (VLAN 2222) on the selftests' router-on-a-stick, per path and
#          family;
#   pps    pktgen, 64-byte UDP frames of one flow, per path and family;
#   scale  pktgen with 1..1M concurrent flows (IPv4), and fasttrack's memory
#          per cached flow direction;
#   devices  deleting 1 000 VLAN devices while 100 000 flows are cached on
#          others, fasttrack and the flowtable (bench/guest/devices.sh,
#          like the next two);
#   memchurn  memory per direction of 100 000 long-lived flows after 20 s
#          of short TCP connections coming and going;
#   connrate  new TCP connections per second, fasttrack on and off;
#   commits  fasttrack with 10 000 live IPv4 flows, with and without one
#          nftables commit per second (each sends every cached flow back
#          through the stack once).
#   churn  1 000 live IPv4 and IPv6 flows under 0, 100 and 1 000 updates
#          per second of a 100 000-route table, fasttrack and the flowtable
#          (bench/guest/churn.sh);
#   covering  route changes that do cover one cached flow: when its frames
#          take the new gateway (bench/guest/covering.sh);
#   bridge  the pps measurement through the router's own VLAN-aware bridge
#          (br0.22 / br0.2222 on br0), per path and family
#          (bench/guest/l2dev.sh);
#   nic    the pps measurement through two virtio-net NICs joined by a qemu
#          hub instead of a veth pair, or through the router's NIC alone
#          with frames from the host (ft.nic=hostgen), with native XDP: the
#          XDP tier and an XDP ceiling (bench/guest/nic.sh; only with
#          ft.nic);
#   l3dev  layer-3 WAN devices: router work per 64-byte UDP packet from the
#          LAN through a PPPoE session (ppp0), and iperf3 TCP through a
#          WireGuard tunnel, per path (bench/guest/l3dev.sh).
. /selftests/lib.sh
. /bench/guest/lib.sh
. /bench/guest/churn.sh
. /bench/guest/covering.sh
. /bench/guest/l2dev.sh
. /bench/guest/profile.sh
. /bench/guest/cache.sh
. /bench/guest/nic.sh

NIC= REPS=3 PPSREPS=5 COUNT=30000 TCPN=32M UDPN=8M TCPPATHS=fs0,fs50,nfftc,fasttrack FLOWS=1,1000,100000,1000000 SCALE=fasttrack,nfftc SKIP= SCALE_COUNT=100000
for arg in $(cat /proc/cmdline); do
	case $arg in
	ft.reps=*) REPS=${arg#*=} ;;
	ft.ppsreps=*) PPSREPS=${arg#*=} ;;
	ft.count=*) COUNT=${arg#*=} ;;
	ft.tcp=*) TCPN=${arg#*=} ;;
	ft.udp=*) UDPN=${arg#*=} ;;
	ft.tcppaths=*) TCPPATHS=${arg#*=} ;;
	ft.flows=*) FLOWS=${arg#*=} ;;
	ft.scale=*) SCALE=${arg#*=} ;;
	ft.skip=*) SKIP=${arg#*=} ;;
	ft.ppspaths=*) BN_PATHS=$(echo "${arg#*=}" | tr ',' ' ') ;;
	ft.scalecount=*) SCALE_COUNT=${arg#*=} ;;
	ft.nic=*) NIC=${arg#*=} ;;
	ft.nicpaths=*) NIC_PATHS=$(echo "${arg#*=}" | tr ',' ' ') ;;
	esac
done
FLOWS=$(echo "$FLOWS" | tr ',' ' ')
SCALE=$(echo "$SCALE" | tr ',' ' ')
TCPPATHS=$(echo "$TCPPATHS" | tr ',' ' ')

skipped() { case ",$SKIP," in *",$1,"*) return 0 ;; esac; return 1; }
now() { cut -d' ' -f1 /proc/uptime; }
section() { printf '\n=== %s (guest time %ss)\n' "$*" "$(now)"; }

say "fasttrack bench: kernel $(uname -r), $(nproc) CPU, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MB"
say "repeats $PPSREPS (pktgen) / $REPS (iperf3), pktgen $COUNT frames, iperf3 -n $TCPN (TCP) / $UDPN (UDP) on $TCPPATHS," \
	"flows $FLOWS on $SCALE"
bn_result sec=meta kernel="$(uname -r)" cpus="$(nproc)" \
	mem_mb="$(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo)" \
	reps="$REPS" ppsreps="$PPSREPS" count="$COUNT" tcp_bytes="$TCPN" udp_bytes="$UDPN" tcp_paths="$(echo $TCPPATHS | tr ' ' ,)" flows="$(echo $FLOWS | tr ' ' ,)" \
	scale="$(echo $SCALE | tr ' ' ,)" clocksource="$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

modprobe fasttrack || bn_die "modprobe fasttrack"
# measure() counts the harness's slab slow paths where kprobes allow.
SLAB_PROBES=0 SLAB_RUNS=8
if bn_slab_probes; then SLAB_PROBES=1; else say "(no kprobes: slab slow paths not counted)"; fi

# ---------------------------------------------------------------- tcp ----

# iperf FAM METRIC: one iperf3 run from the client to the server; prints
# "GBPS BYTES" as the server received them.
iperf() {
	local fam=$1 metric=$2 ip opts out
	if [ "$fam" = 4 ]; then ip=$SERVER_IP4; else ip=$SERVER_IP6; fi
	case $metric in
	tcp1) opts="-n $TCPN" ;;
	tcp4) opts="-n $TCPN -P 4" ;;
	udp) opts="-n $UDPN -u -b 0 -l 1400" ;;
	esac
	# shellcheck disable=SC2086 # options
	out=$(ip netns exec "$NS_CLIENT" timeout 120 iperf3 -c "$ip" -J $opts) ||
		bn_die "iperf3 IPv$fam $metric: $(printf '%s' "$out" | jq -r '.error // empty' 2>/dev/null)"
	printf '%s' "$out" | jq -r '.end.sum_received | "\(.bits_per_second / 1e9) \(.bytes)"'
}

# fwd_bytes: bytes the forward chain's c2s + s2c counters saw (the slow path).
fwd_bytes() {
	ip netns exec "$NS_ROUTER" nft -j list counters table inet ft_fwd 2>/dev/null |
		jq '[.nftables[] | select(.counter) | .counter.bytes] | add // 0'
}
ft_fwd_pkts() {
	ip netns exec "$NS_ROUTER" ftctl -j stats 2>/dev/null | jq '.forwarded.packets // 0'
}

# iperf_listening: the iperf3 server listens on port 5201 (0x1451).
iperf_listening() {
	ip netns exec "$NS_SERVER" cat /proc/net/tcp6 /proc/net/tcp 2>/dev/null |
		awk '$2 ~ /:1451$/ && $4 == "0A" { found = 1 } END { exit !found }'
}

section_tcp() {
	local path fam metric rep res gbps bytes slow0 slow ft0 ft
	section "TCP and UDP through the router-on-a-stick (iperf3 -n $TCPN, UDP -n $UDPN)"
	setup_router_on_a_stick
	bn_ct_settings "$NS_ROUTER"
	ip netns exec "$NS_SERVER" iperf3 -s -D || bn_die "iperf3 server"
	busywait 5000 iperf_listening ||
		bn_die "the iperf3 server does not listen"
	for path in $TCPPATHS; do
		bn_path_on "$NS_ROUTER" "$path"
		for fam in 4 6; do
			for metric in tcp1 tcp4 udp; do
				for rep in $(seq "$REPS"); do
					slow0=$(fwd_bytes) ft0=$(ft_fwd_pkts)
					res=$(iperf "$fam" "$metric") || exit 1
					set -- $res
					gbps=$1 bytes=$2
					slow=$(($(fwd_bytes) - slow0)) ft=$(($(ft_fwd_pkts) - ft0))
					say "  $path IPv$fam $metric #$rep: $(printf '%.3f' "$gbps") Gbit/s" \
						"(forward chain saw $slow of $bytes bytes; fasttrack forwarded $ft packets)"
					bn_result sec=tcp path="$path" fam="$fam" metric="$metric" rep="$rep" \
						gbps="$gbps" bytes="$bytes" slow_bytes="$slow" ft_pkts="$ft"
				done
			done
		done
		bn_path_off "$NS_ROUTER"
	done
	ft_cleanup
}

# ---------------------------------------------------------------- pps ----

# prime FAM NSRC NDST: make NSRC*NDST UDP flows established and, on the
# offload paths, cached in both directions: one frame of each flow forward
# (conntrack: new), one back (established; the reply direction is offloaded)
# and one forward again (the original direction is learned).
prime() {
	local n=$(($2 * $3)) t0
	t0=$(now)
	bn_pktgen "$1" fwd "$n" "$2" "$3"
	[ "$BN_RX" -ge "$n" ] || say "  (priming: $BN_RX of $n frames came back)"
	bn_pktgen "$1" rev "$n" "$2" "$3"
	bn_pktgen "$1" fwd "$n" "$2" "$3"
	PRIME_S=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
}

# measure_one SEC PATH: each family's one flow primed, settled and measured
# (measure, COUNT frames a run), saying when priming got no frame back.
measure_one() {
	local fam
	for fam in 4 6; do
		prime "$fam" 1 1
		[ "$BN_RX" -gt 0 ] || say "  ($2 IPv$fam: no frame came back while priming)"
		settle
		measure "$1" "$2" "$fam" 1 1 "$COUNT"
	done
}

# measure SEC PATH FAM NSRC NDST COUNT: PPSREPS pktgen runs of COUNT frames.
# A run in which the harness's frames took the slab allocator's slow paths
# (see "the harness's slab" in lib.sh) is run again, after holding 1, 2...
# frames, up to SLAB_RUNS runs; the last is kept either way, and its record
# has the runs it took (slab_runs) and the slow paths it counted (slab_slow,
# "-" without kprobes).
measure() {
	local sec=$1 path=$2 fam=$3 ns=$4 nd=$5 count=$6 rep pps runs
	[ "$SLAB_PROBES" = 0 ] || bn_slab_count on
	for rep in $(seq "$PPSREPS"); do
		runs=0
		while :; do
			[ "$runs" = 0 ] || bn_hold "$fam" "$runs"
			BN_PKTGEN_SLOW=$SLAB_PROBES BN_MEASURE=1
			export BN_PKTGEN_SLOW
			bn_pktgen "$fam" fwd "$count" "$ns" "$nd"
			unset BN_PKTGEN_SLOW BN_MEASURE
			[ "$runs" = 0 ] || bn_unhold
			runs=$((runs + 1))
			if ! bn_slab_clean; then
				say "  ($path IPv$fam #$rep: $BN_SLOW slab slow paths in $BN_RX frames: again)"
				[ "$runs" -ge "$SLAB_RUNS" ] || continue
			fi
			break
		done
		pps=$(awk -v n="$BN_RX" -v us="$BN_USEC" 'BEGIN { printf "%.1f", n * 1e6 / us }')
		say "  $path IPv$fam $((ns * nd)) flows #$rep: $pps pps ($BN_RX of $BN_SENT frames in $BN_USEC us)"
		bn_result sec="$sec" path="$path" fam="$fam" flows=$((ns * nd)) rep="$rep" \
			usec="$BN_USEC" idle_usec="$BN_IDLE_USEC" sent="$BN_SENT" rx="$BN_RX" pps="$pps" \
			slab_slow="$BN_SLOW" slab_runs="$runs"
	done
	bn_slab_count off
}

section_pps() {
	local path
	section "64-byte pktgen frames, one flow, per path"
	for path in $BN_PATHS; do
		bn_path_on "$NS_ROUTER" "$path"
		measure_one pps "$path"
		if [ "$path" = fasttrack ]; then
			ip netns exec "$NS_ROUTER" ftctl -j stats | jq -cM '{flows, learned, forwarded, punted}'
		fi
		[ "$path" = nfft ] || [ "$path" = nfftc ] && bn_result sec=flowtable_devs devs="$(echo "$BN_FT_DEVS" | tr -d ' ')"
		bn_path_off "$NS_ROUTER"
	done
}

# ------------------------------------------------------------ scaling ----

# Flow counts as NSRC*NDST with coprime factors (pktgen steps both ports
# by one per frame, so coprime counts visit every pair).
split_flows() {
	case $1 in
	1) echo "1 1" ;;
	1000) echo "8 125" ;;
	10000) echo "16 625" ;;
	100000) echo "32 3125" ;;
	1000000) echo "64 15625" ;;
	*) bn_die "no port split for $1 flows (use 1, 1000, 10000, 100000, 1000000)" ;;
	esac
}

meminfo_kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# slab_bytes RE: the bytes of the objects of the slab caches whose whole
# name matches the extended regular expression RE, summed.
slab_bytes() {
	awk -v re="^($1)\$" '$1 ~ re { n += $3 * $4 } END { print n + 0 }' /proc/slabinfo
}
slab_objs() {
	awk -v c="$1" '$1 == c { print $2 }' /proc/slabinfo
}

# memsnap: free memory and the slab caches fasttrack allocates from (its
# flows have a cache per family, with or without a NAT rewrite and a mark).
memsnap() {
	echo "$(meminfo_kb MemFree) $(meminfo_kb Slab) $(slab_bytes 'ft_flow.*') $(slab_bytes radix_tree_node) $(meminfo_kb VmallocUsed)"
}

# scale_path_on PATH: the path for scaling runs: conntrack and the offload,
# without the 50-rule ruleset (it costs priming time; offloaded frames
# never reach it).
scale_path_on() {
	case $1 in
	fasttrack)
		bn_ct_on "$NS_ROUTER"
		ip netns exec "$NS_ROUTER" ftctl set max-flows 4000000 udp-timeout 3600 >/dev/null &&
			ip netns exec "$NS_ROUTER" ftctl enable vlan22 >/dev/null &&
			ip netns exec "$NS_ROUTER" ftctl enable vlan2222 >/dev/null ||
			bn_die "ftctl set/enable"
		;;
	nfft | nfftc)
		bn_ct_on "$NS_ROUTER"
		ip netns exec "$NS_ROUTER" nft add table inet ft_fwd || bn_die "nft"
		c=0
		[ "$1" = nfft ] || c=1
		bn_flowtable "$NS_ROUTER" "$c" "$BN_FT_DEVS" || bn_die "nft flowtable"
		;;
	fs0) bn_ct_on "$NS_ROUTER" ;;
	*) bn_path_on "$NS_ROUTER" "$1" ;;
	esac
}

section_scale() {
	local path n ns nd m0 m1 cached t0 t1 max count
	section "Scaling: 1 to 1M concurrent IPv4 flows"
	for path in $SCALE; do
		max=${path#*:}
		[ "$max" != "$path" ] || max=
		path=${path%%:*}
		for n in $FLOWS; do
			[ -z "$max" ] || [ "$n" -le "$max" ] || continue
			set -- $(split_flows "$n")
			ns=$1 nd=$2
			scale_path_on "$path"
			say "  $path: priming $n flows..."
			t0=$(now)
			bn_pktgen 4 fwd "$n" "$ns" "$nd"
			m0=$(memsnap)
			bn_pktgen 4 rev "$n" "$ns" "$nd"
			bn_pktgen 4 fwd "$n" "$ns" "$nd"
			m1=$(memsnap)
			t1=$(now)
			say "  $path: $(bn_ct_count "$NS_ROUTER") connections tracked, guest time $(now)s"
			cached=
			if [ "$path" = fasttrack ]; then
				cached=$(ip netns exec "$NS_ROUTER" ftctl -j stats | jq .flows)
				say "  fasttrack caches $cached flow directions;" \
					"ft_flow: $(slab_objs ft_flow) objects of $(awk '$1 == "ft_flow" { print $4 }' /proc/slabinfo) bytes"
			fi
			# shellcheck disable=SC2086
			bn_result sec=mem path="$path" flows="$n" cached="$cached" \
				objsize="$(awk '$1 == "ft_flow" { print $4 }' /proc/slabinfo)" \
				prime_s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" before="$(echo $m0 | tr ' ' ,)" after="$(echo $m1 | tr ' ' ,)"
			settle
			count=$COUNT
			[ "$n" -lt 100000 ] || [ "$SCALE_COUNT" -le "$COUNT" ] || count=$SCALE_COUNT
			measure scale "$path" 4 "$ns" "$nd" "$count"
			bn_path_off "$NS_ROUTER"
		done
	done
}

# commit_loop: one nftables commit per second of guest time, a set element
# added each time, until killed.
commit_loop() {
	local i=0
	ip netns exec "$NS_ROUTER" nft add table inet bn_churn '{ set s { type ipv4_addr; }; }' ||
		bn_die "nft: churn table"
	while :; do
		i=$((i + 1))
		ip netns exec "$NS_ROUTER" nft add element inet bn_churn s "{ 198.19.$((i / 250 % 250)).$((i % 250 + 1)) }"
		sleep 1
	done
}

section_commits() {
	local n=10000 mode rep pps t0 l0 loop
	section "fasttrack with $n live flows, with and without one nft commit per second"
	scale_path_on fasttrack
	set -- $(split_flows "$n")
	prime 4 "$1" "$2"
	settle
	for mode in quiet commits; do
		loop=
		if [ "$mode" = commits ]; then
			commit_loop &
			loop=$!
		fi
		for rep in $(seq "$PPSREPS"); do
			t0=$(now) l0=$(ip netns exec "$NS_ROUTER" ftctl -j stats | jq .learned)
			bn_pktgen 4 fwd "$SCALE_COUNT" "$1" "$2"
			pps=$(awk -v n="$BN_RX" -v us="$BN_USEC" 'BEGIN { printf "%.1f", n * 1e6 / us }')
			l0=$(($(ip netns exec "$NS_ROUTER" ftctl -j stats | jq .learned) - l0))
			say "  $mode #$rep: $pps pps, $l0 flow directions learned again in $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
			bn_result sec=commits mode="$mode" flows="$n" rep="$rep" pps="$pps" \
				relearned="$l0" secs="$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')"
		done
		[ -z "$loop" ] || kill "$loop"
		wait 2>/dev/null
	done
	bn_path_off "$NS_ROUTER"
}

# settle: let deferred work finish (netns cleanup, RCU callbacks, conntrack
# and flowtable GC after a flush) before the next measurement; it would
# otherwise run in the middle of one. Idle time costs nothing (sleep=off).
settle() { sleep 2; }

if ! skipped tcp; then section_tcp; fi
settle
if ! skipped pps || ! skipped scale || ! skipped commits || ! skipped churn || ! skipped covering ||
	[ -n "$PROF_PATHS" ] || [ -n "$CACHE_PATHS" ]; then
	bn_setup_pktgen
	BN_FT_DEVS="vlan22, vlan2222"
	if ! skipped pps; then section_pps; fi
	if ! skipped scale; then section_scale; fi
	if ! skipped commits; then section_commits; fi
	if ! skipped churn; then section_churn; fi
	if ! skipped covering; then section_covering; fi
	if [ -n "$PROF_PATHS" ]; then section_profile; fi
	if [ -n "$CACHE_PATHS" ]; then section_cache; fi
fi
ft_cleanup
if [ -n "$NIC" ] && ! skipped nic; then
	settle
	section_nic
fi
if ! skipped bridge; then
	settle
	section_bridge
fi
# The sections of bench/guest/devices.sh, on a pktgen topology of their own.
if ! skipped devices || ! skipped memchurn || ! skipped connrate; then
	. /bench/guest/devices.sh
	bn_setup_pktgen
	BN_FT_DEVS="vlan22, vlan2222"
	if ! skipped devices; then section_devices; fi
	if ! skipped memchurn; then section_memchurn; fi
	if ! skipped connrate; then section_connrate; fi
	ft_cleanup
fi
# The layer-3 devices, on the selftests' topologies (selftests/lib_l3dev.sh).
if ! skipped l3dev; then
	. /bench/guest/l3dev.sh
	section_l3dev
fi
if dmesg | grep -E "$FT_SPLAT_RE" >/dev/null; then
	dmesg | grep -E -A 20 "$FT_SPLAT_RE" | head -60
	bn_die "kernel splat during the bench"
fi
section "done"
echo "@DONE"
