# SPDX-License-Identifier: GPL-2.0
# make bench, sections "devices", "memchurn" and "connrate". Sourced by
# bench/guest/bench.sh, which provides section, prime, split_flows, memsnap,
# slab_bytes, scale_path_on, settle and the pktgen topology
# (bn_setup_pktgen: gen0 == trunk0 of the router, vlan22 and vlan2222).
#
# devices: device events under a big flow table. The router's trunk gets
#   DEVS more VLAN devices, dv3000 (id 3000) and on, each up with a /28 of
#   198.19.0.0/16 (ip -batch). The path is set up over all of them
#   (fasttrack: "ftctl enable" of vlan22, vlan2222 and "dv*"; the flowtable:
#   one flowtable per 250 devices, a kernel limit, the first with vlan22,
#   vlan2222 and the loaded VLANs, fed by "flow add" as the nfftc path of
#   the scale section does). DEVFLOWS pktgen flows are cached between
#   vlan22 and vlan2222 (the devices that stay), and 1 000 more (8 x 125
#   ports) through each of the first four extra VLANs (deleted with the
#   others). Then all DEVS extra devices are deleted, timed in guest time:
#   "ip -batch" of one "link del" per device (DEVDEL=batch: one RTNL
#   section each), or "ip link del group" of all of them in one request
#   (DEVDEL=group). Reported: the time, the time per device, the flows
#   kept of those that did not use a deleted device, those left of the
#   ones that did (must be 0). And, to tell what the table costs: the
#   time per device of the same with no flow cached, on a tenth of the
#   devices (at least 10); for fasttrack, the time of one walk of its flow
#   table ("ftctl flush dev" of a device without flows, less the same
#   with the table empty), so that the difference reads as walks per
#   device.
#   fs0 (conntrack alone, no offload) can be asked for as a floor.
#
# memchurn: fasttrack's memory per cached flow direction (as the scale
#   section measures it: slab + vmalloc growth since conntrack created the
#   entries) for MCFLOWS long-lived pktgen UDP flows, before and after
#   MCSECS seconds of churn: new TCP connections at up to MCRATE per second
#   (selftests/connflood.c, MCOPEN of them open at once, one data exchange
#   each: learned, then torn down by the FIN), the rate reached reported.
#   The closed connections' conntrack entries (TIME_WAIT) are deleted
#   before the last snapshot, the flows of the churn are gone by then.
#   The growth of conntrack's own slab is reported apart.
#
# connrate: connections per second through the router: CRCONNS short TCP
#   connections (connflood: handshake, ROUNDS data exchanges, FIN close;
#   each a new 5-tuple), per path of the pps section (fs0, fs50, nfftc,
#   fasttrack: conntrack, the 50-rule ruleset, the offload) and ROUNDS.
#   Reported: connections per second (guest time, generator and sink
#   included), frames the forward chain saw, and fasttrack's learned,
#   torn_down and expired counters per second ("ftctl -j stats").
#
# Settings (kernel command line; ft.quick=1, BENCH_QUICK, picks the
# defaults in brackets):
#   ft.devs=N            extra VLAN devices, at most 1 000 (1000) [100]
#   ft.devflows=N        flows cached through vlan22/vlan2222 (100000) [10000]
#   ft.devpaths=P,...    paths: fasttrack, nfftc, fs0 (fasttrack,nfftc)
#   ft.devdel=batch|group  how the devices are deleted (batch)
#   ft.mcflows=N         long-lived flows (100000) [10000]
#   ft.mcrate=N          churn: new connections per second at most (10000)
#   ft.mcsecs=N          churn: seconds of guest time (20) [5]
#   ft.mcopen=N          churn: connections open at once (1000)
#   ft.mcpaths=P,...     paths (fasttrack,nfftc)
#   ft.crconns=N         connections per run (5000) [1000]
#   ft.crreps=N          runs per path and ROUNDS (3) [1]
#   ft.crrounds=R,...    data exchanges per connection (1,8)
#   ft.crpaths=P,...     paths (fs0,fs50,nfftc,fasttrack)
# shellcheck shell=sh disable=SC3043,SC2086,SC2046,SC2013,SC2016 # dash has "local"; $(...) splits on purpose; sh -c '...' scripts

DV_QUICK=0
for arg in $(cat /proc/cmdline); do
	case $arg in ft.quick=1) DV_QUICK=1 ;; esac
done
DV_DEVS=1000 DV_FLOWS=100000 DV_PATHS=fasttrack,nfftc DV_DEL=batch
MC_FLOWS=100000 MC_RATE=10000 MC_SECS=20 MC_OPEN=1000 MC_PATHS=fasttrack,nfftc
CR_CONNS=5000 CR_REPS=3 CR_ROUNDS=1,8 CR_PATHS=fs0,fs50,nfftc,fasttrack
if [ "$DV_QUICK" = 1 ]; then
	DV_DEVS=100 DV_FLOWS=10000 MC_FLOWS=10000 MC_SECS=5 CR_CONNS=1000 CR_REPS=1
fi
for arg in $(cat /proc/cmdline); do
	case $arg in
	ft.devs=*) DV_DEVS=${arg#*=} ;;
	ft.devflows=*) DV_FLOWS=${arg#*=} ;;
	ft.devpaths=*) DV_PATHS=${arg#*=} ;;
	ft.devdel=*) DV_DEL=${arg#*=} ;;
	ft.mcflows=*) MC_FLOWS=${arg#*=} ;;
	ft.mcrate=*) MC_RATE=${arg#*=} ;;
	ft.mcsecs=*) MC_SECS=${arg#*=} ;;
	ft.mcopen=*) MC_OPEN=${arg#*=} ;;
	ft.mcpaths=*) MC_PATHS=${arg#*=} ;;
	ft.crconns=*) CR_CONNS=${arg#*=} ;;
	ft.crreps=*) CR_REPS=${arg#*=} ;;
	ft.crrounds=*) CR_ROUNDS=${arg#*=} ;;
	ft.crpaths=*) CR_PATHS=${arg#*=} ;;
	esac
done
DV_PATHS=$(echo "$DV_PATHS" | tr ',' ' ')
MC_PATHS=$(echo "$MC_PATHS" | tr ',' ' ')
CR_PATHS=$(echo "$CR_PATHS" | tr ',' ' ')
CR_ROUNDS=$(echo "$CR_ROUNDS" | tr ',' ' ')
# The extra VLANs that carry flows (and are deleted like the others).
DV_LOADED=4

# dv_elapsed T0 [T1]: seconds from T0 to T1 (now), as now() gives them.
dv_elapsed() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.2f", b - a }'; }

# dv_ft_stat KEY: one counter of "ftctl -j stats" in the router.
dv_ft_stat() { ip netns exec "$NS_ROUTER" ftctl -j stats | jq ".$1 // 0"; }

# dv_ft_stats: "learned torn_down expired flows" of fasttrack in the router.
dv_ft_stats() {
	ip netns exec "$NS_ROUTER" ftctl -j stats 2>/dev/null |
		jq -r '"\(.learned // 0) \(.torn_down // 0) \(.expired // 0) \(.flows // 0)"'
}

# dv_connflood ARGS...: selftests/connflood.c from gen0 to the router's trunk,
# client GEN_V4 on VLAN 22, server SINK_V4 on VLAN 2222. Sets CF_CONNS,
# CF_SENT, CF_BACK and CF_USEC from its report.
dv_connflood() {
	local out
	out=$(ip netns exec "$NS_GEN" connflood -i gen0 -m "$TRUNK_MAC" -c 22 -s 2222 \
		-a "$GEN_V4" -b "$SINK_V4" "$@") || bn_die "connflood $*: $out"
	# connflood: N connections, S frames sent, R back, T us
	set -- $out
	CF_CONNS=$2 CF_SENT=$4 CF_BACK=$7 CF_USEC=$9
}

# ------------------------------------------------------------ devices ----

# dv_batch add|del|group N: "ip -batch" lines for the first N extra VLANs:
# create, address and bring up each; delete each; put each in group 7.
# Extra VLAN i is dv<3000+i> with 198.19.<i/16>.<16(i%16)+1>/28; the
# generator is .2 of it (dv_gen_addr).
dv_batch() {
	awk -v what="$1" -v n="$2" 'BEGIN {
		for (i = 0; i < n; i++) {
			dev = "dv" (3000 + i)
			if (what == "add") {
				print "link add link trunk0 name " dev " type vlan id " 3000 + i
				print "address add 198.19." int(i / 16) "." (i % 16) * 16 + 1 "/28 dev " dev
				print "link set " dev " up"
			} else if (what == "del") {
				print "link del " dev
			} else {
				print "link set " dev " group 7"
			}
		}
	}'
}
dv_gen_addr() { echo "198.19.$(($1 / 16)).$(($1 % 16 * 16 + 2))"; }

# dv_ip_batch FILE: ip -batch in the router, or the end of the run.
dv_ip_batch() {
	local out
	out=$(ip -n "$NS_ROUTER" -batch "$1" 2>&1) || bn_die "ip -batch $1: $(printf '%s' "$out" | head -5)"
}

# dv_flowtables N: an nftables ruleset with the flowtable over vlan22,
# vlan2222 and the first N extra VLANs: table ft_fwd, flowtables f0, f1...
# of up to 250 devices each (the kernel takes 255 at most); f0 has vlan22,
# vlan2222 and the loaded VLANs and is the one "flow add" feeds.
dv_flowtables() {
	awk -v n="$1" 'BEGIN {
		print "table inet ft_fwd {"
		devs = "vlan22, vlan2222"; k = 2; f = 0
		for (i = 0; i < n; i++) {
			if (k == 250) {
				print "\tflowtable f" f " { hook ingress priority 0; devices = { " devs " }; counter; }"
				f++; k = 0; devs = ""
			}
			devs = devs (k ? ", " : "") "dv" (3000 + i); k++
		}
		print "\tflowtable f" f " { hook ingress priority 0; devices = { " devs " }; counter; }"
		print "\tchain bn_offload {"
		print "\t\ttype filter hook forward priority filter + 10; policy accept;"
		print "\t\tmeta l4proto { tcp, udp } flow add @f0"
		print "\t}"
		print "}"
	}'
}

# dv_path_off: bn_path_off, and the pattern of dv_path_on gone, so that
# the next devices are not enabled as they are created.
dv_path_off() {
	ip netns exec "$NS_ROUTER" ftctl disable 'dv*' >/dev/null 2>&1
	bn_path_off "$NS_ROUTER"
}

# dv_path_on PATH N: conntrack, and the offload over vlan22, vlan2222 and
# the N extra VLANs (all there are). Sets DV_ENABLE_S, the guest time it
# took.
dv_path_on() {
	local t0 n=$2
	bn_ct_on "$NS_ROUTER"
	t0=$(now)
	case $1 in
	fs0) ;;
	fasttrack)
		ip netns exec "$NS_ROUTER" ftctl set max-flows 4000000 udp-timeout 3600 >/dev/null ||
			bn_die "ftctl set"
		# The extra VLANs by a pattern, as an operator enables many: a
		# netns holds at most 256 names and patterns.
		for d in vlan22 vlan2222 'dv*'; do
			ip netns exec "$NS_ROUTER" ftctl enable "$d" >/dev/null ||
				bn_die "ftctl enable $d (over $((n + 2)) devices)"
		done
		;;
	nfftc)
		dv_flowtables "$n" >/tmp/dv_nft
		ip netns exec "$NS_ROUTER" nft -f /tmp/dv_nft || bn_die "nft: flowtables over $((n + 2)) devices"
		;;
	*) bn_die "devices: unknown path $1 (fs0, fasttrack, nfftc)" ;;
	esac
	DV_ENABLE_S=$(dv_elapsed "$t0")
}

# dv_prime_loaded: 1 000 flows (8 x 125 ports) through each of the first
# DV_LOADED extra VLANs to the sink, cached both ways as prime() does.
dv_prime_loaded() {
	local i ga dir
	for i in $(seq 0 $((DV_LOADED - 1))); do
		ga=$(dv_gen_addr "$i")
		must ip -n "$NS_ROUTER" neigh replace "$ga" lladdr "$GEN_MAC" dev "dv$((3000 + i))" nud permanent
		for dir in fwd rev fwd; do
			if [ "$dir" = fwd ]; then
				set -- $((3000 + i)) "$ga" "$SINK_V4" 10000 8 20000 125
			else
				set -- 2222 "$SINK_V4" "$ga" 20000 125 10000 8
			fi
			ip netns exec "$NS_GEN" sh /bench/guest/pktgen.sh gen0 "$TRUNK_MAC" "$1" 4 "$2" "$3" \
				"$4" "$5" "$6" "$7" 1000 >/dev/null || bn_die "pktgen on VLAN $((3000 + i))"
		done
	done
}

# dv_flush_ms DEV: milliseconds per "ftctl flush dev DEV", the mean of
# twenty (DEV without flows: the walk of fasttrack's flow table that it
# makes removes nothing). Less the same with an empty table, it is the
# time of one walk.
dv_flush_ms() {
	ip netns exec "$NS_ROUTER" sh -c '
		t() { cut -d" " -f1 /proc/uptime; }
		a=$(t); i=0
		while [ $i -lt 20 ]; do ftctl flush dev "$1" || exit 1; i=$((i + 1)); done
		awk -v a="$a" -v b="$(t)" "BEGIN { printf \"%.1f\", (b - a) * 50 }"' sh "$1"
}

# dv_kept: for fasttrack "KEPT LEFT": cached flow directions from or to
# the generator's vlan22 address (the flows that stay) and the others
# (through a deleted VLAN); for the flowtable the same, in offloaded
# connections (conntrack's [OFFLOAD]).
dv_kept() {
	case $1 in
	fasttrack)
		ip netns exec "$NS_ROUTER" ftctl flows dump |
			awk -v g="$GEN_V4" '$5 == g || $7 == g { k++; next } { l++ } END { print k + 0, l + 0 }'
		;;
	nfftc)
		ip netns exec "$NS_ROUTER" conntrack -L 2>/dev/null | awk -v g="src=$GEN_V4" '/\[OFFLOAD\]/ {
				for (i = 1; i <= NF && $i !~ /^src=/; i++)
					;
				if ($i == g) k++; else l++
			} END { print k + 0, l + 0 }'
		;;
	*) echo "0 0" ;;
	esac
}

# dv_delete N: delete the first N extra VLANs (DV_DEL); sets DV_DEL_S, the
# guest time it took.
dv_delete() {
	local t0
	if [ "$DV_DEL" = group ]; then
		dv_batch group "$1" >/tmp/dv_group
		dv_ip_batch /tmp/dv_group
		t0=$(now)
		ip -n "$NS_ROUTER" link del group 7 || bn_die "ip link del group 7"
	else
		dv_batch del "$1" >/tmp/dv_del
		t0=$(now)
		dv_ip_batch /tmp/dv_del
	fi
	DV_DEL_S=$(dv_elapsed "$t0")
}

# dv_per_dev SECONDS N: milliseconds per device.
dv_per_dev() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.1f", s * 1000 / n }'; }

section_devices() {
	local path t0 create_s empty_s flush0 flush1 walk kept0 kept1 ct0 ct1 ns nd nloaded n0
	if [ "$DV_DEVS" -lt "$DV_LOADED" ] || [ "$DV_DEVS" -gt 1000 ]; then
		bn_die "ft.devs=$DV_DEVS: from $DV_LOADED to 1000"
	fi
	section "Device events: deleting $DV_DEVS VLAN devices ($DV_DEL) with $DV_FLOWS flows cached on others"
	set -- $(split_flows "$DV_FLOWS")
	ns=$1 nd=$2
	nloaded=$((DV_LOADED * 1000))
	# The same with an empty table, on a tenth of the devices: what a
	# device costs the path by itself.
	n0=$((DV_DEVS / 10))
	[ "$n0" -ge 10 ] || n0=10
	for path in $DV_PATHS; do
		dv_batch add "$n0" >/tmp/dv_add
		dv_ip_batch /tmp/dv_add
		dv_path_on "$path" "$n0"
		settle
		flush0=
		[ "$path" != fasttrack ] || flush0=$(dv_flush_ms "dv$((3000 + n0 - 1))")
		dv_delete "$n0"
		empty_s=$DV_DEL_S
		say "  $path, no flow cached: deleting $n0 devices took ${empty_s}s ($(dv_per_dev "$empty_s" "$n0") ms each)"
		dv_path_off

		dv_batch add "$DV_DEVS" >/tmp/dv_add
		t0=$(now)
		dv_ip_batch /tmp/dv_add
		create_s=$(dv_elapsed "$t0")
		dv_path_on "$path" "$DV_DEVS"
		say "  $path: $DV_DEVS VLAN devices created in ${create_s}s, the path set up over them in ${DV_ENABLE_S}s"
		prime 4 "$ns" "$nd"
		dv_prime_loaded
		settle
		flush1="" walk=""
		if [ "$path" = fasttrack ]; then
			flush1=$(dv_flush_ms "dv$((3000 + DV_DEVS - 1))")
			walk=$(awk -v a="$flush0" -v b="$flush1" 'BEGIN { printf "%.1f", b - a }')
		fi
		kept0=$(dv_kept "$path") ct0=$(bn_ct_count "$NS_ROUTER")
		say "  $path: $ct0 connections tracked; cached (kept, on deleted devices): $kept0${walk:+; one walk of the flow table ${walk} ms}"
		dv_delete "$DV_DEVS"
		settle
		kept1=$(dv_kept "$path") ct1=$(bn_ct_count "$NS_ROUTER")
		say "  $path: deleting $DV_DEVS devices took ${DV_DEL_S}s ($(dv_per_dev "$DV_DEL_S" "$DV_DEVS") ms each);" \
			"cached after (kept, on deleted devices): $kept1; $ct1 connections tracked"
		set -- $kept0 $kept1
		bn_result sec=devices path="$path" devs="$DV_DEVS" mode="$DV_DEL" flows="$DV_FLOWS" loaded="$nloaded" \
			create_s="$create_s" enable_s="$DV_ENABLE_S" del_s="$DV_DEL_S" empty_devs="$n0" empty_del_s="$empty_s" \
			flush_empty_ms="$flush0" flush_ms="$flush1" walk_ms="$walk" kept_before="$1" left_before="$2" kept_after="$3" left_after="$4" \
			ct_before="$ct0" ct_after="$ct1"
		dv_path_off
		settle
	done
}

# ----------------------------------------------------------- memchurn ----

# mc_memsnap: memsnap, and the bytes of conntrack's slab.
mc_memsnap() { echo "$(memsnap) $(slab_bytes nf_conntrack)"; }

# mc_cached PATH: fasttrack's cached flow directions; for the flowtable,
# the connections tracked.
mc_cached() {
	if [ "$1" = fasttrack ]; then dv_ft_stat flows; else bn_ct_count "$NS_ROUTER"; fi
}

section_memchurn() {
	local path ns nd m0 m1 m2 s0 s1 c1 c2 t0 churn_s n
	section "Memory of $MC_FLOWS long-lived flows, before and after ${MC_SECS}s of up to $MC_RATE new TCP connections/s"
	set -- $(split_flows "$MC_FLOWS")
	ns=$1 nd=$2
	for path in $MC_PATHS; do
		scale_path_on "$path"
		say "  $path: priming $MC_FLOWS flows..."
		bn_pktgen 4 fwd "$MC_FLOWS" "$ns" "$nd"
		m0=$(mc_memsnap)
		bn_pktgen 4 rev "$MC_FLOWS" "$ns" "$nd"
		bn_pktgen 4 fwd "$MC_FLOWS" "$ns" "$nd"
		settle
		m1=$(mc_memsnap) c1=$(mc_cached "$path")
		s0=$(dv_ft_stats)
		t0=$(now)
		dv_connflood -n $((MC_RATE * MC_SECS)) -r "$MC_RATE" -t "$MC_SECS" -k "$MC_OPEN" -d 1
		churn_s=$(dv_elapsed "$t0")
		s1=$(dv_ft_stats)
		say "  $path: churn: $CF_CONNS connections ($(awk -v n="$CF_CONNS" -v us="$CF_USEC" 'BEGIN { printf "%.0f", n * 1e6 / us }')/s)," \
			"$CF_SENT frames, $CF_BACK back, in ${churn_s}s"
		# The closed connections wait in TIME_WAIT (120 s); their flows
		# are gone already.
		ip netns exec "$NS_ROUTER" conntrack -D -p tcp >/dev/null 2>&1
		busywait 30000 mc_settled "$path" "$c1" || say "  (cached flows: $(mc_cached "$path"), not back to $c1)"
		settle
		settle
		m2=$(mc_memsnap) c2=$(mc_cached "$path")
		set -- $s0 $s1
		n=$((2 * MC_FLOWS))
		say "  $path: cached $c1 before, $c2 after; slab + vmalloc growth per direction" \
			"$(mc_bpd "$m0" "$m1" "$n") B before the churn, $(mc_bpd "$m0" "$m2" "$n") B after"
		bn_result sec=memchurn path="$path" flows="$MC_FLOWS" rate="$MC_RATE" secs="$MC_SECS" open="$MC_OPEN" \
			conns="$CF_CONNS" sent="$CF_SENT" back="$CF_BACK" usec="$CF_USEC" \
			learned=$(($5 - $1)) torn_down=$(($6 - $2)) expired=$(($7 - $3)) cached_before="$c1" cached_after="$c2" \
			objsize="$(awk '$1 == "ft_flow" { print $4 }' /proc/slabinfo)" \
			before="$(echo $m0 | tr ' ' ,)" mid="$(echo $m1 | tr ' ' ,)" after="$(echo $m2 | tr ' ' ,)"
		bn_path_off "$NS_ROUTER"
		settle
	done
}

# mc_settled PATH N: the churn's flows are gone: N cached again.
mc_settled() { [ "$(mc_cached "$1")" -le "$2" ]; }

# mc_bpd BEFORE AFTER DIRS: slab + vmalloc growth per direction, bytes.
mc_bpd() {
	echo "$1 $2" | awk -v n="$3" '{ printf "%.0f", (($8 - $2) + ($11 - $5)) * 1024 / n }'
}

# ----------------------------------------------------------- connrate ----

# cr_slow_pkts: packets the forward chain's c2s + s2c counters saw.
cr_slow_pkts() {
	ip netns exec "$NS_ROUTER" nft -j list counters table inet ft_fwd 2>/dev/null |
		jq '[.nftables[] | select(.counter) | .counter.packets] | add // 0'
}

section_connrate() {
	local path rounds rep s0 s1 p0 slow cps first=0
	section "New TCP connections per second, $CR_CONNS per run, handshake + $CR_ROUNDS data exchanges + FIN close"
	for path in $CR_PATHS; do
		bn_path_on "$NS_ROUTER" "$path"
		for rounds in $CR_ROUNDS; do
			for rep in $(seq "$CR_REPS"); do
				s0=$(dv_ft_stats) p0=$(cr_slow_pkts)
				dv_connflood -n "$CR_CONNS" -o "$first" -d "$rounds"
				first=$((first + CR_CONNS))
				s1=$(dv_ft_stats)
				slow=$(($(cr_slow_pkts) - p0))
				cps=$(awk -v n="$CF_CONNS" -v us="$CF_USEC" 'BEGIN { printf "%.1f", n * 1e6 / us }')
				set -- $s0 $s1
				say "  $path, $rounds exchanges #$rep: $cps connections/s ($CF_SENT frames, $CF_BACK back," \
					"$slow through the forward chain; learned $(($5 - $1)), torn down $(($6 - $2)) directions)"
				bn_result sec=connrate path="$path" rounds="$rounds" rep="$rep" conns="$CF_CONNS" \
					sent="$CF_SENT" back="$CF_BACK" usec="$CF_USEC" cps="$cps" slow_pkts="$slow" \
					learned=$(($5 - $1)) torn_down=$(($6 - $2)) expired=$(($7 - $3))
			done
		done
		bn_path_off "$NS_ROUTER"
	done
}
