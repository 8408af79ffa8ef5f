#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Modelled cache misses per packet (make bench-cache): boots the bench guest
# (make bench, qemu -icount, one vCPU) with bench/prof/ftcache.c, a TCG
# plugin with qemu's contrib/plugins/cache.c model (L1d 32 KB 8-way, L1i
# 32 KB 8-way, unified L2 1 MB 16-way, 64-byte lines, LRU) that counts only
# while the guest holds a window open (bench/guest/cache.sh): per path
# (the L2 turnaround "ceiling", fasttrack, the flowtable with counter),
# family and flow count (1, 1 000 000), one window of pktgen frames.
# Misses per packet are the window's over the frames sent in it; what a
# path adds over the ceiling is the router's own. The plugin models
# everything from a boot's first window on (see ftcache.c): one flow's
# windows share a boot, the ceiling's with many flows another, and each
# path and family with many flows (their priming) a boot of its own.
#
# The same boots count, without a cache model, what each packet touches:
# distinct data lines (physical, reads and writes), code lines, atomic
# instructions (LOCK, xchg, and LOCK_PREFIX sites the one-CPU guest runs
# patched to DS) and instructions, from the start of one pktgen frame
# (mod_cur_headers()) to the next, for the whole guest, the module area,
# and each module (ftcache.c). These repeat across boots where the miss
# counts do not: the report's second table, medians over a window's
# packets, per boot; CACHE_COUNT=2000 is plenty for them.
#
# usage: bench/prof/cache.sh [--check] [WORD]
#   WORD: kernel word (6.12). CACHE_PATHS (ceiling,fasttrack,nfftc; ftxdp too),
#   CACHE_FLOWS (1,1000000), CACHE_COUNT (5000 frames per window),
#   CACHE_BOOTS (1): boots of each kind; the report takes medians. One
#   boot's whole-guest L1d counts move by several misses per packet with
#   where the harness's buffers land: compare paths over several.
#   CACHE_DUMP=K: the plugin also lists the data lines of each window's
#   K-th packet (win.N.lines), which report_cache.py --lines names, in
#   DIR/lines.txt (the kernel's symbols from the syms boot, fasttrack's
#   source lines from a build of the same tree).
#   --check: one short boot with ftcache.so modelling the whole run
#   (all=1) beside an unmodified cache.c: their totals must agree.
#   QEMU_SRC: a qemu source tree of the installed qemu (its plugin header
#   and cache.c); by default bench/prof/qemu-src.sh fetches it.
# Writes bench/prof/out/WORD/cache/: report.txt, and per boot a directory
# with its bench.log and win.N.
# The first run of a kernel boots once more, without the plugin, for the
# markers' addresses (nokaslr), kept in out/WORD/cachemarks, where the
# modules are (out/WORD/cachemods: every boot loads them in one order,
# bench/guest/cache.sh, and each is checked against that list) and the
# kernel's symbols (out/WORD/cacheksyms); again whenever kmod/ changes.
#
# e.g. one flow, every path and family, twice (about N minutes a boot):
#   CACHE_FLOWS=1 CACHE_BOOTS=2 CACHE_COUNT=2000 bash bench/prof/cache.sh 6.12
set -eu -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
check=0
[ "${1:-}" != --check ] || { check=1; shift; }
word=${1:-6.12}
out=$here/out/$word/cache
mkdir -p "$out"
# The plugin's build needs glib's headers; qemu-src.sh needs dpkg-source.
bash "$repo/selftests/vm/deps.sh" libglib2.0-dev pkg-config dpkg-dev
QEMU_SRC=${QEMU_SRC:-$(bash "$here/qemu-src.sh")}
cflags=(-O2 -shared -fPIC -Wall -I"$QEMU_SRC/include/qemu")
# shellcheck disable=SC2207 # pkg-config flags
cflags+=($(pkg-config --cflags glib-2.0))
gcc "${cflags[@]}" -o "$out/ftcache.so" "$here/ftcache.c"
skip=pps,tcp,scale,commits,churn,covering,bridge,devices,memchurn,connrate,l3dev

# boot DIR QEMU_ARGS GUEST_SETTINGS: make bench with only the cache
# section, its log in DIR; the record (bench/results.*) is put back.
boot() {
	local f dir=$1
	mkdir -p "$dir"
	for f in json md png; do cp "$repo/bench/results.$f" "$out/results.$f.keep"; done
	FT_QEMU_ARGS="$2" FT_OUT=$out/ftout BENCH_QUICK=1 BENCH_SKIP=$skip \
		BENCH_APPEND="nokaslr $3" make -C "$repo" bench KERNELS="$word" >"$dir/make.log" 2>&1 ||
		{ tail -n 30 "$dir/make.log"; exit 1; }
	for f in json md png; do mv "$out/results.$f.keep" "$repo/bench/results.$f"; done
	cp "$repo/bench/out/$word/bench.log" "$dir/bench.log"
}

syms=$here/out/$word/cachemarks mods=$here/out/$word/cachemods ksyms=$here/out/$word/cacheksyms
# Module addresses move when fasttrack.ko's size does (pktgen's marker too,
# loaded after it): the syms boot is redone when kmod/ changed.
stamp=$(cat "$repo"/kmod/*.[ch] "$repo"/kmod/Kbuild | sha1sum | cut -d' ' -f1)
if ! grep -q pkt=0x "$syms" 2>/dev/null || [ ! -s "$mods" ] || [ ! -s "$ksyms" ] ||
	[ "$(cat "$syms.kmod" 2>/dev/null)" != "$stamp" ]; then
	# The kernel's symbols (minutes of console output) only once.
	ks=0
	[ -s "$ksyms" ] || ks=1
	boot "$out/syms" "" "ft.cache=syms ft.cacheksyms=$ks"
	sed -n 's/^@RESULT sec=cachesyms start=\([0-9a-f]*\) stop=\([0-9a-f]*\) pkt=\([0-9a-f]*\).*/start=0x\1,stop=0x\2,pkt=0x\3/p' \
		"$out/syms/bench.log" >"$syms"
	sed -n 's/^@CACHEMOD //p' "$out/syms/bench.log" >"$mods"
	[ "$ks" = 0 ] || sed -n 's/^@CACHEKSYM //p' "$out/syms/bench.log" >"$ksyms"
	echo "$stamp" >"$syms.kmod"
	if ! grep -q pkt=0x "$syms" || [ ! -s "$mods" ]; then
		echo "cache.sh: no marker or module addresses in $out/syms/bench.log" >&2
		rm -f "$syms"
		exit 1
	fi
fi
marks="$(cat "$syms"),mods=$mods${CACHE_DUMP:+,dump=$CACHE_DUMP}"
if [ "$check" = 1 ]; then
	gcc "${cflags[@]}" -o "$out/cache.so" "$QEMU_SRC/contrib/plugins/cache.c"
	rm -rf "$out/check"
	mkdir -p "$out/check"
	boot "$out/check" "-plugin $out/ftcache.so,$marks,out=$out/check/win,all=1 -plugin $out/cache.so,dcachesize=32768,icachesize=32768,l2cachesize=1048576 -d plugin -D $out/check/cache.c.log" \
		"ft.cache=${CACHE_PATHS:-ceiling} ft.cacheflows=1 ft.cachecount=${CACHE_COUNT:-500}"
	python3 "$here/report_cache.py" --check "$out/check" | tee "$out/check.txt"
	exit
fi
# window DIR PATHS FLOWS FAMS: CACHE_BOOTS boots, in DIR.1, DIR.2...
dirs=()
window() {
	local i d
	for i in $(seq "${CACHE_BOOTS:-1}"); do
		d=$out/$1.$i
		dirs+=("$d")
		rm -rf "${d:?}"
		boot "$d" "-plugin $out/ftcache.so,$marks,out=$d/win" \
			"ft.cache=$2 ft.cacheflows=$3 ft.cachefams=$4 ft.cachecount=${CACHE_COUNT:-5000}"
		sed -n 's/^@CACHEMOD //p' "$d/bench.log" | cmp -s - "$mods" ||
			echo "cache.sh: $d: modules not where $mods has them: per-module columns are wrong" >&2
	done
}
paths=${CACHE_PATHS:-ceiling,fasttrack,nfftc}
for n in $(tr , ' ' <<<"${CACHE_FLOWS:-1,1000000}"); do
	if [ "$n" = 1 ]; then
		window "w-1" "$paths" 1 4,6
		continue
	fi
	for p in $(tr , ' ' <<<"$paths"); do
		if [ "$p" = ceiling ]; then
			window "w-$n-$p" "$p" "$n" 4,6
		else
			window "w-$n-$p-4" "$p" "$n" 4
			window "w-$n-$p-6" "$p" "$n" 6
		fi
	done
done
python3 "$here/report_cache.py" "${dirs[@]}" | tee "$out/report.txt"
if [ -n "${CACHE_DUMP:-}" ]; then
	# fasttrack.ko as the guest ran it, for addr2line: the same sources
	# built again (as bench/prof/profile.sh does).
	FT_OUT=$out/ftout bash "$repo/selftests/vm/build.sh" "$word" >/dev/null
	ko=$(find "$out/ftout/build" -name fasttrack.ko | head -n 1)
	for d in "${dirs[@]}"; do
		python3 "$here/report_cache.py" --lines "$d" --ksyms "$ksyms" --ko "$ko" >"$d/lines.txt"
	done
fi
