# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest: windows for bench/prof/cache.sh, which boots the
# bench guest with a QEMU plugin (bench/prof/ftcache.c) that models the
# caches while a window is open. A window is one pktgen run: pktgen.sh
# (BN_PKTGEN_MARK=1) opens it just before the run by reading
# /proc/sys/kernel/random/boot_id (proc_do_uuid()) and closes it just
# after by reading /proc/sys/kernel/domainname (proc_do_uts_string()); the
# first close only arms the plugin.
#
# Settings (kernel command line):
#   ft.cache=P,...      paths (ceiling, fasttrack, ftxdp, nfftc); "syms" prints the
#                       markers' addresses only; off unless set
#   ft.cacheflows=N,... flow counts (1,1000000)
#   ft.cachecount=N     pktgen frames per window (5000)
#   ft.cachefams=F,...  families (4,6)
#   ft.cacheksyms=1     with ft.cache=syms: print the kernel's symbols too
#   ft.cachewarm=N      a window of N frames of one flow first (500), not
#                       counted: the model starts empty at the first window
#                       of a boot (with many flows, the one flow is the
#                       first of the counted window's)
#
# Per flow count, path and family: the path as the scaling runs set it up
# (no ruleset: offloaded frames never reach it), the flows primed (not on
# the ceiling, which keeps no state), settled, then the windows. The
# plugin models everything from the first window on: a boot with a long
# priming has one path, family and flow count (bench/prof/cache.sh). Windows
# are numbered from 0 in this order, each with a "@RESULT sec=cache" line
# (kind=warm or kind=count).
#
# Per-packet counts (ftcache.c's pkt= and mods=): the plugin starts a
# packet at each entry of pktgen's mod_cur_headers() (once per frame built:
# clone_skb 0), and attributes accesses to the module whose text holds the
# instruction. Module addresses repeat across boots (nokaslr) only if the
# modules load in the same order: every boot first turns on and off every
# path (cache_preload), then prints the modules ("@CACHEMOD name addr size",
# /proc/modules) and their symbols ("@CACHESYM"); ft.cache=syms stops there
# (with ft.cacheksyms=1, after the kernel's: "@CACHEKSYM").
# shellcheck shell=sh disable=SC3043,SC2013,SC2086,SC2046 # dash has "local"; words

CACHE_PATHS='' CACHE_FLOWS='1 1000000' CACHE_COUNT=5000 CACHE_WARM=500 CACHE_FAMS='4 6' CACHE_KSYMS=0
for arg in $(cat /proc/cmdline); do
	case $arg in
	ft.cache=*) CACHE_PATHS=$(echo "${arg#*=}" | tr ',' ' ') ;;
	ft.cacheflows=*) CACHE_FLOWS=$(echo "${arg#*=}" | tr ',' ' ') ;;
	ft.cachecount=*) CACHE_COUNT=${arg#*=} ;;
	ft.cachewarm=*) CACHE_WARM=${arg#*=} ;;
	ft.cachefams=*) CACHE_FAMS=$(echo "${arg#*=}" | tr ',' ' ') ;;
	ft.cacheksyms=*) CACHE_KSYMS=${arg#*=} ;;
	esac
done

ksym() { awk -v s="$1" '$3 == s { print $1; exit }' /proc/kallsyms; }

# cache_window KIND FAM FRAMES NSRC NDST: one pktgen run in a window.
cache_window() {
	BN_PKTGEN_MARK=1
	export BN_PKTGEN_MARK
	bn_pktgen "$2" fwd "$3" "$4" "$5"
	unset BN_PKTGEN_MARK
	bn_result sec=cache window="$CACHE_WIN" kind="$1" path="$path" fam="$2" flows="$n" \
		usec="$BN_USEC" sent="$BN_SENT" rx="$BN_RX"
	CACHE_WIN=$((CACHE_WIN + 1))
}

# cache_preload: load what any path loads, in one order, whatever the boot
# measures, and print the module layout.
cache_preload() {
	local path
	for path in ceiling fasttrack nfftc; do
		scale_path_on "$path"
		bn_path_off "$NS_ROUTER"
	done
	awk '{ print "@CACHEMOD " $1 " " $6 " " $2 }' /proc/modules
	# Their symbols, to name what a packet touches (ftcache.c's dump=).
	awk '$4 ~ /^\[/ && $3 !~ /^__pfx_/ { print "@CACHESYM " $1 " " $2 " " $3 " " $4 }' /proc/kallsyms
}

section_cache() {
	local n path fam ns nd
	section "cache model windows: $CACHE_PATHS, $CACHE_FLOWS flows, $CACHE_COUNT frames"
	cache_preload
	bn_result sec=cachesyms start="$(ksym proc_do_uuid)" stop="$(ksym proc_do_uts_string)" \
		pkt="$(ksym mod_cur_headers)"
	if [ "$CACHE_PATHS" = syms ]; then
		# The kernel's own symbols (nokaslr: they repeat).
		[ "$CACHE_KSYMS" = 0 ] ||
			awk '$4 == "" && $3 !~ /^__pfx_/ { print "@CACHEKSYM " $1 " " $2 " " $3 }' /proc/kallsyms
		return 0
	fi
	read -r _ </proc/sys/kernel/domainname
	CACHE_WIN=0
	for n in $CACHE_FLOWS; do
		set -- $(split_flows "$n")
		ns=$1 nd=$2
		for path in $CACHE_PATHS; do
			for fam in $CACHE_FAMS; do
				scale_path_on "$path"
				[ "$path" = ceiling ] || prime "$fam" "$ns" "$nd"
				settle
				cache_window warm "$fam" "$CACHE_WARM" 1 1
				cache_window count "$fam" "$CACHE_COUNT" "$ns" "$nd"
				bn_path_off "$NS_ROUTER"
			done
		done
	done
}
