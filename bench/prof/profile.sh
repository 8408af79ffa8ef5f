#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where the guest's instructions go, per packet and per function, for the
# pps measurement's paths: boots the bench guest (make bench, qemu -icount)
# with bench/prof/ftprof.c, a TCG plugin that counts the instructions
# executed at each address while a window (one pktgen run,
# bench/guest/profile.sh) is open, and names the addresses with the guest's
# /proc/kallsyms and, in fasttrack.ko, its debug info (addr2line, inlined
# functions too).
#
# usage: bench/prof/profile.sh [WORD] [PATHS]
#   WORD: kernel word (6.12); PATHS: pps paths to profile
#   (ceiling,fasttrack,nfftc: the ceiling gives the router work).
#   QEMU_SRC: a qemu source tree of the installed qemu's version, for
#   include/qemu/qemu-plugin.h; by default bench/prof/qemu-src.sh fetches
#   it. The glib headers (libglib2.0-dev) are installed if missing.
# Writes bench/prof/out/WORD/: bench.log, win.N (pc count), report.txt.
# The first run of a kernel boots twice: the markers' addresses and the
# kernel's symbols (nokaslr) are learned from the first boot and kept in
# out/WORD/marks and ksyms.
set -eu -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
word=${1:-6.12} paths=${2:-ceiling,fasttrack,nfftc}
out=$here/out/$word
mkdir -p "$out"
# The plugin's build needs glib's headers; qemu-src.sh needs dpkg-source.
bash "$repo/selftests/vm/deps.sh" libglib2.0-dev pkg-config dpkg-dev
QEMU_SRC=${QEMU_SRC:-$(bash "$here/qemu-src.sh")}
so=$out/ftprof.so
# shellcheck disable=SC2046 # pkg-config flags
gcc -O2 -shared -fPIC -Wall -I"$QEMU_SRC/include/qemu" $(pkg-config --cflags glib-2.0) \
	-o "$so" "$here/ftprof.c"

boot() {
	local marks=$1 syms=$2
	rm -f "$out"/win.*
	FT_QEMU_ARGS="-plugin $so,$marks,out=$out/win" FT_OUT=${FT_OUT:-$out/ftout} \
		BENCH_QUICK=1 BENCH_SKIP=pps,tcp,scale,commits,churn,covering,bridge,devices,memchurn,connrate,l3dev \
		BENCH_APPEND="nokaslr ft.profile=$paths ft.profsyms=$syms ${PROF_APPEND:-}" \
		make -C "$repo" bench KERNELS="$word" >"$out/make.log" 2>&1 ||
		{ tail -n 30 "$out/make.log"; exit 1; }
	cp "$repo/bench/out/$word/bench.log" "$out/bench.log"
	git -C "$repo" checkout -q bench/results.json bench/results.md bench/results.png 2>/dev/null || true
}
if [ ! -s "$out/marks" ] || [ ! -s "$out/ksyms" ]; then
	boot start=0,stop=0 1
	sed -n 's/^@RESULT sec=profsyms .*start=\([0-9a-f]*\) stop=\([0-9a-f]*\).*/start=0x\1,stop=0x\2/p' \
		"$out/bench.log" >"$out/marks"
	grep '^@KSYM [0-9a-f]* [^ ]* *$' "$out/bench.log" >"$out/ksyms"
fi
boot "$(cat "$out/marks")" 0
# The module as the guest ran it, for addr2line: the same sources built again.
FT_OUT=$out/ftout bash "$repo/selftests/vm/build.sh" "$word" >/dev/null
ko=$(find "$out/ftout/build" -name fasttrack.ko | head -n 1)
python3 "$here/report.py" "$out" "$ko" | tee "$out/report.txt"
