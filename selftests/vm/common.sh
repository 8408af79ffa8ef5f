# SPDX-License-Identifier: GPL-2.0
# Shared settings for the VM harness scripts. Source it; do not run it.
# shellcheck shell=bash

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/../.." && pwd)
CACHE=${FT_CACHE:-$REPO/.cache}
# Where one run's products go (tools, module builds, initramfs, guest logs).
# check.sh gives each invocation its own, so concurrent runs do not collide.
export OUT=${FT_OUT:-$CACHE}

# Every log line names the kernel it is about, so parallel runs stay readable.
log() { printf '[%s] %s\n' "${FT_TAG:-vm}" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# kernel_env WORD: the env file written by kernels.sh for a version word.
kernel_env() { printf '%s/kernels/%s/env\n' "$CACHE" "$1"; }

# load_kernel WORD: import KVER, ROOT, VMLINUZ, KDIR, MODDIR of a fetched kernel.
load_kernel() {
	local env
	env=$(kernel_env "$1")
	[ -f "$env" ] || die "kernel $1 is not fetched; run selftests/vm/kernels.sh $1"
	# shellcheck disable=SC1090
	. "$env"
}

# kernels_option DEFAULT ARG...: the list of a "--kernels LIST" among ARGs,
# else DEFAULT. Any other argument is a usage error.
kernels_option() {
	local list=$1
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--kernels)
			[ $# -ge 2 ] || die "--kernels needs a list of kernels"
			list=$2
			shift
			;;
		*) die "usage: $(basename "$0") [--kernels \"$list\"]" ;;
		esac
		shift
	done
	echo "$list"
}

# wait_for_slot: block until fewer than FT_JOBS (default: the host's CPUs)
# background jobs of this shell run. A TCG guest keeps one CPU busy, and
# the tests' waits assume that it gets one.
wait_for_slot() {
	while [ "$(jobs -pr | wc -l)" -ge "${FT_JOBS:-$(nproc)}" ]; do
		wait -n || true
	done
}

# take_slot DIR N PRIO: take one of N lock files in DIR and keep it on
# the open descriptor SLOT_FD, waiting for one to be free. The lock goes
# when every process that inherited the descriptor has exited. Waiters
# queue in DIR/wait: the highest PRIO (a boot's expected seconds) first,
# then the earliest, so that the longest boots start first and the short
# ones fill the end instead of one long boot ending the run alone beside
# an idle CPU. A waiter that died leaves the queue. Waiting costs a
# glob and a sleep a second: a queue of guests waits for most of a run.
take_slot() {
	local dir=$1 n=$2 me i w head pid=$BASHPID
	mkdir -p "$dir/wait"
	# Names sort as the queue: PRIO's complement, then the time.
	me=$(printf '%08d.%s.%s' "$((99999999 - $3))" "$(date +%s%N)" "$pid")
	while :; do
		# (Again, should another waiter have taken this one for dead.)
		: >>"$dir/wait/$me"
		head=''
		for w in "$dir"/wait/*; do
			w=${w##*/}
			[ "$w" = "$me" ] || [ -d "/proc/${w##*.}" ] || { rm -f "$dir/wait/$w"; continue; }
			head=$w
			break
		done
		if [ "$head" = "$me" ]; then
			for ((i = 0; i < n; i++)); do
				exec {SLOT_FD}>"$dir/slot$i"
				if flock -n "$SLOT_FD"; then
					rm -f "$dir/wait/$me"
					return 0
				fi
				exec {SLOT_FD}>&-
			done
		fi
		sleep 1
	done
}

# boot_estimate TESTS SCALE: the seconds a test boot of TESTS (comma-
# separated) is expected to take, for the guest queue's order: a minute to
# boot and 30 s a test, the long ones as they took on the release kernels
# under TCG in CI, times SCALE (a foreign architecture's or the debug
# kernel's slowdown). An empty TESTS is the whole suite.
BOOT_LONG_TESTS="kernel_netfilter:600 deb_install:640 dkms_install:590 kernel_nft_flowtable:180"
boot_estimate() {
	local t s=60 long
	for t in $(tr ',' ' ' <<<"${1:-$(sh "$REPO/selftests/run_tests.sh" --list | xargs)}"); do
		long=$(tr ' ' '\n' <<<"$BOOT_LONG_TESTS" | sed -n "s/^$t://p")
		s=$((s + ${long:-30}))
	done
	echo $((s * $2))
}

# guest_slot PRIO: with FT_GUEST_SLOTS=DIR, take one of FT_JOBS (default:
# the host's CPUs) guest slots there, for a boot of PRIO expected seconds
# (boot_estimate; take_slot's queue): runs that share DIR (make check's
# matrix and DKMS tests, .ci/run's check-debug-ci) then boot at most
# FT_JOBS guests at once between them, as the tests' waits assume, the
# longest first.
guest_slot() {
	take_slot "$FT_GUEST_SLOTS" "${FT_JOBS:-$(nproc)}" "$1"
}

# keep_logs RUNDIR FILE: a failed run's prepare, console and KTAP logs, in
# one file that outlives the run dir; says where.
keep_logs() {
	local part
	for part in prepare.log console.log ktap.log; do
		echo "==== $part"
		cat "$1/$part" 2>/dev/null || true
	done >"$2"
	echo "[$(basename "$1")]  log: $2"
}

# judge LABEL RUNDIR TEST...: ktap.sh's verdict on one guest run. Prints
# its result lines and sets JUDGED to them, and JUDGED_PASSED,
# JUDGED_FAILED and JUDGED_SKIPPED, and adds these to TOTAL_PASSED,
# TOTAL_FAILED and TOTAL_SKIPPED. A judge that fails itself is a failure
# of that run, never the end of the caller: the other runs still report.
judge() {
	local rc=0 last
	JUDGED=$(bash "$VM_DIR/ktap.sh" "$@") || rc=$?
	last=$(tail -n 1 <<<"$JUDGED")
	if [ "$rc" = 0 ] && [[ $last =~ ^=\ [0-9]+\ [0-9]+\ [0-9]+$ ]]; then
		read -r _ JUDGED_PASSED JUDGED_FAILED JUDGED_SKIPPED <<<"$last"
		JUDGED=$(sed '$d' <<<"$JUDGED")
	else
		JUDGED=${JUDGED:+$JUDGED$'\n'}$(printf '[%s]  %-7s %s' "$1" FAIL "judge: ktap.sh failed (status $rc) on $2")
		JUDGED_PASSED=0 JUDGED_FAILED=1 JUDGED_SKIPPED=0
	fi
	[ -z "$JUDGED" ] || echo "$JUDGED"
	TOTAL_PASSED=$((${TOTAL_PASSED:-0} + JUDGED_PASSED))
	TOTAL_FAILED=$((${TOTAL_FAILED:-0} + JUDGED_FAILED))
	TOTAL_SKIPPED=$((${TOTAL_SKIPPED:-0} + JUDGED_SKIPPED))
}

# judge_summary: "N passed, N failed[, N skipped]" over every judge call;
# true when none failed and some passed.
judge_summary() {
	local s="${TOTAL_PASSED:-0} passed, ${TOTAL_FAILED:-0} failed"
	[ "${TOTAL_SKIPPED:-0}" -eq 0 ] || s+=", $TOTAL_SKIPPED skipped"
	echo "$s"
	[ "${TOTAL_FAILED:-0}" -eq 0 ] && [ "${TOTAL_PASSED:-0}" -gt 0 ]
}

# commit_index: a number that moves by one with each merge: the count of
# first-parent commits, or a hash of HEAD in a shallow clone. Sets INDEX
# and INDEX_FROM. What CI runs in turn (debug-ci.sh, knf.sh, rotate.sh)
# picks by it. FT_COMMIT_INDEX=N runs what commit N's CI ran.
# shellcheck disable=SC2034 # INDEX_FROM is the callers'
commit_index() {
	local head
	if [ -n "${FT_COMMIT_INDEX:-}" ]; then
		INDEX=$((10#$FT_COMMIT_INDEX)) INDEX_FROM="FT_COMMIT_INDEX=$INDEX"
	elif ! head=$(git -C "$REPO" rev-parse HEAD 2>/dev/null); then
		INDEX=0 INDEX_FROM="no git repository: 0"
	elif [ "$(git -C "$REPO" rev-parse --is-shallow-repository)" = true ]; then
		INDEX=$((16#${head:0:7})) INDEX_FROM="shallow clone: HEAD ${head:0:12} as a number"
	else
		INDEX=$(git -C "$REPO" rev-list --count --first-parent HEAD)
		INDEX_FROM="${head:0:12}, first-parent commit $INDEX"
	fi
}
