#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: run the selftests in a qemu guest per kernel and report.
#
# usage: check.sh [--kernels "6.1 6.12"] [--test NAME[,NAME]] [--matrix] [--smp-only] [--shell]
#
# --matrix (make check with neither KERNELS nor T, as CI runs it): each
# kernel runs the core tests and one of four shards of the others, so
# that every test runs on one kernel and the whole run fits CI's time
# (MATRIX_SHARDS); any other kernel word (the
# other platforms: 6.1-rt, arm64-*, armhf-*) runs the smoke set, without
# the 2-vCPU boot. make check-full runs every test on every kernel.
#
# Installs host packages (deps.sh) and builds ftctl and the selftests'
# helpers (tools.sh); a foreign architecture's in the background, while the
# host's kernels run first (foreign_prep). Then per kernel: fetch it
# (kernels.sh), build fasttrack.ko (build.sh), pack the initramfs
# (initramfs.sh), FT_JOBS kernels at once; boot it once to run all
# selected tests (boot.sh), FT_JOBS guests at once, the longest boots
# first (guest_slot); and judge the guest's KTAP (ktap.sh). Prints one
# line per test and kernel, keeps the logs of a failed kernel in
# $CACHE/logs/, and ends with "N passed, N failed[, N skipped]".
#
# Each invocation works in its own $FT_OUT (under $CACHE/out/, removed at
# the end), so concurrent runs in one tree do not collide.
# Every kernel also gets a short second boot with two vCPUs for the tests
# in SMP_TESTS that are selected (module_load: load/unload;
# fastpath_acct_exact, whose two-CPU part skips on one vCPU; and
# fastpath_table_resize, where lookups then race a resize on the other
# CPU; fastpath_close_race, a reset on one CPU while the other learns,
# and fastpath_learn_window, a learn held up while the other forwards,
# which need two and so run only there); SMP=0 leaves it out.
# A third boot, on $MTTCG_KERNELS only, runs $MTTCG_TESTS on two vCPUs
# under multi-threaded TCG (boot.sh --mttcg): vCPUs that really run at
# once, so that a race fails a test, which single-threaded TCG never
# interleaves. There they leave the other two boots. Its tests set up
# before they race: a static key patched under traffic crashes such a
# guest (qemu 7.2). SMP=0 leaves it out too.
# --smp-only boots only with two vCPUs, for all the selected tests (the
# debug kernel in CI, debug-ci.sh: a race test's one-CPU run adds nothing
# there but minutes).
# Environment: SMP=0 (see above); FT_KEEP_LOGS=1 keeps the logs of a
# kernel that passed too;
# FT_TIMEOUT is the limit in seconds for one boot (default 3600, times
# FT_SLOWDOWN on arm);
# FT_JOBS is how many kernels prepare, and how many guests run, at once
# (default: the host's CPUs, as a TCG guest keeps one CPU busy and the
# tests' waits assume it gets one).
set -eu -o pipefail
. "$(dirname "$0")/common.sh"
# The whole script is one block, read before it runs: editing this file
# during a (long) run cannot derail that run.
{

kernels="6.1 6.12" tests='' shell='' matrix='' smp_only=''
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) kernels=$2; shift ;;
	--test) tests=$(tr ',' ' ' <<<"$2"); shift ;;
	--matrix) matrix=1 ;;
	--smp-only) smp_only=1 ;;
	--shell) shell=1 ;;
	*) die "usage: check.sh [--kernels \"6.1 6.12\"] [--test NAME] [--matrix] [--smp-only] [--shell]" ;;
	esac
	shift
done

all=$(sh "$REPO/selftests/run_tests.sh" --list | tr '\n' ' ')
for t in $tests; do
	[[ " $all" == *" $t "* ]] || die "no test named '$t'; tests: $all"
done
tests=$(xargs <<<"${tests:-$all}")

# The matrix: the shard each kernel runs besides the core tests. Every
# test that is not core is in one shard, dealt out by the order of its
# name: each runs on one kernel, so that the four boots fit CI's hour on
# two CPUs (a test on two kernels each made it about 80 minutes).
MATRIX_SHARDS="5.10:0 6.1:1 6.12:2 7.2:3"
MATRIX_CORE="module_load module_autoload fastpath_transfer fastpath_nat fastpath_accounting netlink_garbage"
# The other platforms': load, a transfer in both families with the offload
# proven, exact accounting, rmmod under load (and the clean log).
MATRIX_SMOKE="module_load fastpath_transfer fastpath_accounting fastpath_acct_exact fault_rmmod"

# Tests the matrix runs on one kernel, not dealt to a shard: the kernel's
# netfilter suite on the kernel whose turn it is (6.12 or 7.2, each its
# own version's scripts), where the matrix runs this commit's share of
# them (selftests/vm/knf.sh --plan; make check-netfilter and check-full
# run all of them); the XDP tier's on the other of the two (5.10 would
# only skip them), and on 6.1 (below): the suite's share and the
# tier's tests are the two longest pinned loads, and on one kernel they
# made its boot CI's last by ten minutes.
knf_kernel=$(bash "$VM_DIR/knf.sh" --kernel)
xdp_kernel=7.2
[ "$knf_kernel" != 7.2 ] || xdp_kernel=6.12
MATRIX_PINNED="kernel_netfilter:$knf_kernel"
# And on 6.1, whose tier is built another way (kmod/btf.sh) and runs
# without the 6.3 and 6.8 driver interfaces; its boot has the time.
for t in fastpath_xdp malformed_xdp fastpath_xdp_hooks fastpath_xdp_stale fastpath_xdp_redirect; do
	MATRIX_PINNED+=" $t:$xdp_kernel $t:6.1"
done

# matrix_pin TEST: the kernels TEST is pinned to in the matrix, or nothing.
matrix_pin() { xargs -n1 <<<"$MATRIX_PINNED" | sed -n "s/^$1://p" | xargs; }

# matrix_shard WORD: the shard WORD runs in the matrix, or nothing.
matrix_shard() { tr ' ' '\n' <<<"$MATRIX_SHARDS" | sed -n "s/^$1://p"; }

# kernel_tests WORD: the tests WORD runs on one vCPU, of $tests.
kernel_tests() {
	local shard shards t pin n=0 out=''
	if [ -z "$matrix" ]; then
		out=$tests
	elif shard=$(matrix_shard "$1") && [ -z "$shard" ]; then
		for t in $tests; do
			[[ " $MATRIX_SMOKE " != *" $t "* ]] || out+=" $t"
		done
	else
		shards=$(wc -w <<<"$MATRIX_SHARDS")
		for t in $tests; do
			if [[ " $MATRIX_CORE " == *" $t "* ]]; then
				out+=" $t"
				continue
			fi
			pin=$(matrix_pin "$t")
			if [ -n "$pin" ]; then
				[[ " $pin " != *" $1 "* ]] || out+=" $t"
				continue
			fi
			[ $((n % shards)) -ne "$shard" ] || out+=" $t"
			n=$((n + 1))
		done
	fi
	# What needs two CPUs runs in the 2-vCPU boot, not skipped here; what
	# races on purpose, with two vCPUs: in the multi-threaded boot, else
	# in the other (SMP_TESTS), here only if neither boots. If that leaves
	# nothing and another boot runs, this one is left out; otherwise the
	# tests stay (an empty list means every test to boot.sh).
	n=''
	for t in $out; do
		! smp_boot "$1" || [[ " $SMP_ONLY " != *" $t "* ]] || continue
		if [[ " $MTTCG_TESTS " == *" $t "* ]] &&
			{ [[ " $SMP_TESTS " != *" $t "* ]] || smp_boot "$1" || mttcg_boot "$1"; }; then
			continue
		fi
		n+=" $t"
	done
	if [ -n "$n" ] || smp_boot "$1" || mttcg_boot "$1"; then
		out=$n
	fi
	xargs <<<"$out"
}

# smp_kernel_tests WORD: the tests of WORD's 2-vCPU boot: $smp_tests but
# those that the multi-threaded boot of WORD runs.
smp_kernel_tests() {
	local t out=''
	for t in $smp_tests; do
		! mttcg_boot "$1" || [[ " $mttcg_tests " != *" $t "* ]] || continue
		out+=" $t"
	done
	xargs <<<"$out"
}

# smp_boot WORD: does WORD get the 2-vCPU boot?
smp_boot() {
	[ -n "$(smp_kernel_tests "$1")" ] &&
		{ [ -z "$matrix" ] || [ -n "$(matrix_shard "$1")" ]; }
}

# mttcg_boot WORD: does WORD get the multi-threaded TCG boot?
mttcg_boot() {
	[ -n "$mttcg_tests" ] && [[ " $MTTCG_KERNELS " == *" $1 "* ]] &&
		{ [ -z "$matrix" ] || [ -n "$(matrix_shard "$1")" ]; }
}

# The tests of the 2-vCPU boot, of those selected.
SMP_TESTS="module_load fastpath_acct_exact fastpath_table_resize fastpath_close_race fastpath_learn_window"
# Those of them that need two CPUs, and would only skip on one.
SMP_ONLY="fastpath_close_race fastpath_learn_window"
smp_tests=''
if [ -n "$smp_only" ]; then
	if [ "${SMP:-1}" = 0 ] || [ -n "$matrix" ]; then
		die "--smp-only goes with neither SMP=0 nor --matrix"
	fi
	smp_tests=$tests
elif [ "${SMP:-1}" != 0 ]; then
	for t in $SMP_TESTS; do
		[[ " $tests " != *" $t "* ]] || smp_tests+=" $t"
	done
fi
smp_tests=$(xargs <<<"$smp_tests")

# The tests of the multi-threaded TCG boot, and the kernels it runs on:
# those it was shown stable on (three boots each).
MTTCG_TESTS="fastpath_acct_race fastpath_table_resize fastpath_close_race"
MTTCG_KERNELS="6.12"
mttcg_tests=''
if [ "${SMP:-1}" != 0 ] && [ -z "$smp_only" ]; then
	for t in $MTTCG_TESTS; do
		[[ " $tests " != *" $t "* ]] || mttcg_tests+=" $t"
	done
fi
mttcg_tests=$(xargs <<<"$mttcg_tests")

stamp=$(date +%Y%m%d-%H%M%S)
export FT_OUT=${FT_OUT:-$CACHE/out/$stamp-$$}
OUT=$FT_OUT
trap 'rm -rf "$FT_OUT"' EXIT
mkdir -p "$OUT/run" "$CACHE/logs"
# Work dirs of runs that were killed outright.
find "$CACHE/out" -mindepth 1 -maxdepth 1 -mmin +1440 -exec rm -rf {} + 2>/dev/null || true

bash "$VM_DIR/deps.sh"
# The kernel's netfilter suite goes in the initramfs only for a run of
# kernel_netfilter (FT_KNF, initramfs.sh): preparing it fetches and
# unpacks a kernel source package. The matrix runs this commit's share of
# it; all of it takes a boot about half an hour more.
if [[ " $tests " == *" kernel_netfilter "* ]]; then
	export FT_KNF=1
	if [ -n "$matrix" ]; then
		export FT_KNF_ROTATE=1
	else
		export FT_TIMEOUT=${FT_TIMEOUT:-7200}
	fi
fi
# shellcheck disable=SC2086 # a list of kernel words
arches=$(bash "$VM_DIR/kernels.sh" --arch $kernels | xargs)
foreign=$(xargs -n1 <<<"$arches" | { grep -vx amd64 || true; } | xargs)
bash "$VM_DIR/tools.sh" amd64

# foreign_prep: a foreign architecture's qemu and cross compilers, its
# userland and tools, when one of its kernels is to run; its output in
# $OUT/foreign.log, its exit status in $OUT/foreign.rc once done.
foreign_prep() {
	local rc=0
	# shellcheck disable=SC2086 # a list of architectures
	{ bash "$VM_DIR/deps.sh" --arch $foreign && bash "$VM_DIR/tools.sh" $foreign; } \
		>"$OUT/foreign.log" 2>&1 || rc=$?
	echo "$rc" >"$OUT/foreign.rc.new"
	mv "$OUT/foreign.rc.new" "$OUT/foreign.rc"
}

# foreign_ready: wait for foreign_prep; show its output; true if it worked.
foreign_ready() {
	while [ ! -e "$OUT/foreign.rc" ]; do
		sleep 2
	done
	cat "$OUT/foreign.log" >&2
	[ "$(cat "$OUT/foreign.rc")" = 0 ]
}

# The foreign kernels come after the host's, so their preparation runs in
# the background while the first guests boot, outside the preparing lanes;
# they wait for it (foreign_ready).
if [ -n "$foreign" ]; then
	if [ -n "$shell" ]; then
		foreign_prep
	else
		foreign_prep &
	fi
fi

# prepare WORD: everything a boot of WORD needs.
prepare() {
	if [ "$(bash "$VM_DIR/kernels.sh" --arch "$1")" != amd64 ]; then
		foreign_ready || { log "preparing the foreign architectures failed"; return 1; }
	fi
	bash "$VM_DIR/kernels.sh" "$1" &&
		bash "$VM_DIR/build.sh" "$1" &&
		bash "$VM_DIR/initramfs.sh" "$1"
}

if [ -n "$shell" ]; then
	word=${kernels%% *}
	prepare "$word"
	bash "$VM_DIR/boot.sh" "$word" "$OUT/run/$word" --shell
	exit
fi

# kernel_job WORD: prepare a kernel, boot it to run the tests in
# $OUT/run/WORD (not with --smp-only) and, unless SMP=0, boot it again
# with two vCPUs to run $smp_tests in $OUT/run/WORD-smp. Each run dir gets
# ktap.log, console.log, prepare.log and rc (the boot's exit status, or
# "prepare").
kernel_job() {
	local word=$1 dir=$OUT/run/$1 smp=$OUT/run/$1-smp mttcg=$OUT/run/$1-mttcg
	local run_tests
	run_tests=$(kernel_tests "$word")
	mkdir -p "$dir" "$smp" "$mttcg"
	if ! FT_TAG=$word prepare "$word" 2>&1 | tee "$dir/prepare.log" >&2; then
		echo prepare | tee "$smp/rc" "$mttcg/rc" >"$dir/rc"
		cp "$dir/prepare.log" "$smp/"
		cp "$dir/prepare.log" "$mttcg/"
		return
	fi
	# The preparing lane the loop below took for this job.
	exec {SLOT_FD}>&-
	if [ -z "$smp_only" ] && [ -n "$run_tests" ]; then
		boot_run "$word" "$word" "$run_tests" "booting: $(wc -w <<<"$run_tests") tests"
	fi
	! smp_boot "$word" ||
		boot_run "$word" "$word-smp" "$(smp_kernel_tests "$word")" "booting with 2 vCPUs" --smp
	! mttcg_boot "$word" ||
		boot_run "$word" "$word-mttcg" "$mttcg_tests" "booting with 2 vCPUs, multi-threaded TCG" --mttcg
}

# boot_run WORD TAG TESTS TEXT [OPTION]: boot WORD (boot.sh OPTION) to run
# TESTS in $OUT/run/TAG, telling TEXT. The run dir gets rc and seconds:
# the guest's, from boot.sh's "started", after its wait for a slot.
boot_run() {
	local dir=$OUT/run/$2 rc=0 secs

	FT_TAG=$2 log "$4${5:+: $3}"
	bash "$VM_DIR/boot.sh" "$1" "$dir" --tests "${3// /,}" ${5:+"$5"} </dev/null || rc=$?
	echo "$rc" >"$dir/rc"
	secs=$(($(date +%s) - $(cat "$dir/started" 2>/dev/null || date +%s)))
	echo "$secs" >"$dir/seconds"
	FT_TAG=$2 log "guest finished after $secs s"
}

# start_order: $kernels, the longest main boot first (boot_estimate).
start_order() {
	local w
	for w in $kernels; do
		echo "$(boot_estimate "$(kernel_tests "$w" | tr ' ' ,)" 1) $w"
	done | sort -s -k1,1nr | cut -d' ' -f2 | xargs
}

# The kernels' jobs start in that order, each once it has one of FT_JOBS
# lanes for preparing, which is host work; it frees its lane when ready to
# boot. The guest slots pace the boots (boot.sh), longest first, shared
# with the runs beside this one when FT_GUEST_SLOTS is given (together.sh):
# a kernel prepares while others boot, and the last of them is not held
# up by a long boot before it.
[ -n "${FT_GUEST_SLOTS:-}" ] || export FT_GUEST_SLOTS=$OUT/slots
for word in $(start_order); do
	take_slot "$OUT/prep" "${FT_JOBS:-$(nproc)}" 0
	kernel_job "$word" &
	exec {SLOT_FD}>&-
done
runs=''
for word in $kernels; do
	[ -n "$smp_only" ] || [ -z "$(kernel_tests "$word")" ] || runs+=" $word"
	! smp_boot "$word" || runs+=" $word-smp"
	! mttcg_boot "$word" || runs+=" $word-mttcg"
done
wait

failures='' fails=''
# A Markdown table of the kernels, for "Kernels tested" in
# Documentation/testing.md.
table="| kernel | release | Debian version | passed | failed | wall time |
| --- | --- | --- | ---: | ---: | ---: |"
for run in $runs; do
	dir=$OUT/run/$run
	expect=$(kernel_tests "$run")
	[[ $run != *-smp ]] || expect=$(smp_kernel_tests "${run%-smp}")
	[[ $run != *-mttcg ]] || expect=$mttcg_tests
	# shellcheck disable=SC2086 # a list of test names
	judge "$run" "$dir" $expect
	if [ "$JUDGED_FAILED" -ne 0 ] || [ "${FT_KEEP_LOGS:-0}" = 1 ]; then
		keep_logs "$dir" "$CACHE/logs/$run-$stamp.log"
	fi
	# A kernel that failed to fetch has no env file.
	env=${run%-smp}
	env=$(kernel_env "${env%-mttcg}")
	table+=$'\n'"| $run | $(sed -n 's/^KVER=//p' "$env" 2>/dev/null || true) |"
	table+=" $(sed -n 's/^PKG_VERSION=//p' "$env" 2>/dev/null || true) |"
	table+=" $JUDGED_PASSED | $JUDGED_FAILED |"
	table+=" $(cat "$dir/seconds" 2>/dev/null || echo '?') s |"
	# Each failure, its first failed checks and the first lines of their
	# details, repeated at the end where a truncated CI log still shows them.
	fails=$(awk '/^\[.*\]  FAIL / { print; n = 0; d = 0; next }
		/\[FAIL\]$/ { d = 0; if (n++ < 3) { print; d = 2 }; next }
		d > 0 && /^ +\| \t/ { print; d--; next }
		{ d = 0 }' <<<"$JUDGED")
	[ -z "$fails" ] || failures+=$fails$'\n'
done

echo "$table"
[ -z "$failures" ] || printf 'failed:\n%s' "$failures"
judge_summary
exit
}
