#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: boot one guest per kernel under qemu -icount (one vCPU, guest
# time follows instructions executed), run bench/guest/bench.sh in it, and
# write bench/results.{json,md,png} with bench/report.py.
#
# usage: bench.sh [--kernels "6.12"] [--quick]
# Environment: BENCH_QUICK=1 is --quick (fewer frames and bytes, scaling up
# to 10 000 flows); BENCH_REPS (iperf3), BENCH_PPS_REPS (pktgen), BENCH_COUNT, BENCH_FLOWS, BENCH_SCALE,
# BENCH_SCALE_COUNT, BENCH_TCP, BENCH_UDP, BENCH_TCP_PATHS, BENCH_SKIP override the guest's
# settings (ft.* in bench/guest/bench.sh); BENCH_APPEND adds guest settings
# as they are (say "ft.churnrates=0,1000", see bench/guest/churn.sh, or
# "ft.devs=200", see bench/guest/devices.sh);
# BENCH_MEM is the guest RAM in MB (4096);
# BENCH_NIC=virtio adds two virtio-net NICs on a qemu hub to the guest
# (boot.sh --nic) and runs the "nic" section on them (bench/guest/nic.sh:
# frames through a real driver with native XDP; BENCH_APPEND
# "ft.nicpaths=..." picks its paths); BENCH_NIC=hostgen gives the guest
# the router's NIC alone, its frames sent and counted on the host by
# bench/hostgen.c (boot.sh --nic hostgen), so that the guest's instruction
# clock counts the router's work alone;
# FT_TIMEOUT the limit for one boot in seconds (3600).
# The guest's output is shown live and kept in bench/out/<word>/bench.log.
# A foreign-architecture word (arm64-6.12) boots as in make check (arch.sh,
# boot.sh), under -icount too; report.py keeps its rows apart from amd64's.
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

kernels=6.12 quick=${BENCH_QUICK:-0}
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) kernels=$2; shift ;;
	--quick) quick=1 ;;
	*) die "usage: bench.sh [--kernels \"6.12\"] [--quick]" ;;
	esac
	shift
done

if [ "$quick" = 1 ]; then
	reps=${BENCH_REPS:-3} count=${BENCH_COUNT:-10000} flows=${BENCH_FLOWS:-1,1000,10000}
	tcp=${BENCH_TCP:-4M} udp=${BENCH_UDP:-1M} scalecount=${BENCH_SCALE_COUNT:-10000}
else
	reps=${BENCH_REPS:-3} count=${BENCH_COUNT:-30000} flows=${BENCH_FLOWS:-1,1000,100000,1000000}
	tcp=${BENCH_TCP:-16M} udp=${BENCH_UDP:-2M} scalecount=${BENCH_SCALE_COUNT:-100000}
fi
scale=${BENCH_SCALE:-fasttrack,nfftc} tcppaths=${BENCH_TCP_PATHS:-fs0,fs50,nfftc,fasttrack}
skip=${BENCH_SKIP:-} ppsreps=${BENCH_PPS_REPS:-5}
out=$REPO/bench/out
start=$SECONDS
# Builds go to a work dir of this run (as in check.sh), so that a make check
# running meanwhile keeps its own.
export FT_OUT=${FT_OUT:-$CACHE/out/bench-$(date +%Y%m%d-%H%M%S)-$$}
OUT=$FT_OUT
trap 'rm -rf "$FT_OUT"' EXIT
mkdir -p "$OUT"

bash "$VM_DIR/deps.sh"
# A foreign-architecture word (arm64-6.12) needs its qemu, cross compiler
# and userland, as in check.sh; boot.sh boots it on arm's "virt" machine.
# shellcheck disable=SC2086 # a list of kernel words
arches=$(bash "$VM_DIR/kernels.sh" --arch $kernels | xargs)
foreign=$(xargs -n1 <<<"$arches" | { grep -vx amd64 || true; } | xargs)
# shellcheck disable=SC2086 # a list of architectures
[ -z "$foreign" ] || bash "$VM_DIR/deps.sh" --arch $foreign
# The chart: gnuplot from Debian, on the host only.
command -v gnuplot >/dev/null || bash "$VM_DIR/deps.sh" gnuplot-nox || die "cannot install gnuplot-nox"
# shellcheck disable=SC2086 # a list of architectures
bash "$VM_DIR/tools.sh" amd64 $foreign

# The NIC path's own XDP programs (bench/xdp/*.bpf.c: bytecode, whatever the
# guest), built with the host's clang as ftctl's is, into /bench/xdp of an
# archive appended to the guest's initramfs.
if [ -n "${BENCH_NIC:-}" ]; then
	case $BENCH_NIC in
	virtio) ;;
	hostgen)
		# The host's generator (boot.sh --nic hostgen).
		gcc -O2 -Wall -Wextra -Werror -o "$OUT/hostgen" "$REPO/bench/hostgen.c" ||
			die "building bench/hostgen.c failed"
		export FT_HOSTGEN=$OUT/hostgen
		;;
	*) die "BENCH_NIC is virtio or hostgen" ;;
	esac
	rm -rf "$OUT/bench-xdp"
	mkdir -p "$OUT/bench-xdp/bench/xdp"
	for src in "$REPO"/bench/xdp/*.bpf.c; do
		clang -target bpf -O2 -g -Wall -Werror -I"/usr/include/$(gcc -print-multiarch)" \
			-c -o "$OUT/bench-xdp/bench/xdp/$(basename "$src" .c).o" "$src" ||
			die "building $src failed"
	done
	(cd "$OUT/bench-xdp" && find bench | cpio -o -H newc --quiet) | gzip >"$OUT/bench-xdp.cpio.gz"
fi

# children_cpu: set CHILD_CPU to the user + system seconds of this shell's
# finished children. (In a pipe or $(...), "times" would run in a subshell
# and see none: go through a file.)
children_cpu() {
	local f
	f=$(mktemp)
	times >"$f"
	CHILD_CPU=$(awk 'NR == 2 { gsub(/[ms]/, " "); printf "%.0f\n", $1 * 60 + $2 + $3 * 60 + $4 }' "$f")
	rm -f "$f"
}

# bench_job WORD: prepare WORD, boot it, keep its output in $out/WORD.
bench_job() {
	local word=$1 dir=$out/$1 rc=0 cpu0 nicopts=()
	rm -rf "$dir"
	mkdir -p "$dir"
	if ! { bash "$VM_DIR/kernels.sh" "$word" && bash "$VM_DIR/build.sh" "$word" &&
		bash "$VM_DIR/initramfs.sh" "$word"; } >"$dir/prepare.log" 2>&1; then
		cat "$dir/prepare.log" >&2
		FT_TAG=$word log "preparing the guest failed"
		return 1
	fi
	[ -z "${BENCH_NIC:-}" ] ||
		nicopts=(--nic "$BENCH_NIC" --initrd-extra "$OUT/bench-xdp.cpio.gz")
	FT_TAG=$word log "booting the bench guest (qemu -icount shift=2,sleep=off, 1 vCPU)"
	children_cpu
	cpu0=$CHILD_CPU
	# slab_nomerge: fasttrack's kmem cache keeps its own line in /proc/slabinfo.
	FT_TIMEOUT=${FT_TIMEOUT:-3600} bash "$VM_DIR/boot.sh" "$word" "$dir" --mode bench --icount \
		--mem "${BENCH_MEM:-4096}" "${nicopts[@]}" \
		--append "slab_nomerge ft.reps=$reps ft.ppsreps=$ppsreps ft.count=$count ft.flows=$flows ft.tcp=$tcp ft.udp=$udp ft.tcppaths=$tcppaths ft.scale=$scale ft.scalecount=$scalecount${skip:+ ft.skip=$skip} ft.quick=$quick${BENCH_NIC:+ ft.nic=$BENCH_NIC}${BENCH_APPEND:+ $BENCH_APPEND}" \
		</dev/null | sed -u 's/\r$//' | tee "$dir/bench.log" |
		grep --line-buffered -v '^@RESULT' | sed -u "s/^/[$word] /" || rc=$?
	# CPU seconds the guest took (qemu's user + system time): the wall time
	# the bench needs on an otherwise idle core.
	children_cpu
	echo $((CHILD_CPU - cpu0)) >"$dir/cpu_s"
	if [ "$rc" != 0 ] || ! grep -q '^@DONE' "$dir/bench.log"; then
		FT_TAG=$word log "the bench did not finish (exit $rc); console: $dir/console.log"
		tail -n 30 "$dir/console.log" >&2 || true
		return 1
	fi
}

pids=
for word in $kernels; do
	bench_job "$word" &
	pids+=" $!"
done
failed=0
for p in $pids; do
	wait "$p" || failed=1
done
[ "$failed" = 0 ] || die "make bench failed"

logs= cpu=
for word in $kernels; do
	logs+=" $word=$out/$word/bench.log"
	cpu+="${cpu:+,}$word=$(cat "$out/$word/cpu_s" 2>/dev/null)"
done
# A full run is the record: it also refreshes the record's tables in
# Documentation/performance.md and the summary table in README.md.
# shellcheck disable=SC2086
python3 "$REPO/bench/report.py" --outdir "$REPO/bench" --wall "$((SECONDS - start))" --cpu "$cpu" \
	$([ "$quick" = 1 ] || echo "--record $REPO/Documentation/performance.md --summary $REPO/README.md") \
	--command "make bench${kernels:+ KERNELS=\"$kernels\"}$([ "$quick" = 1 ] && echo ' BENCH_QUICK=1')" $logs
log "make bench took $((SECONDS - start)) s"
