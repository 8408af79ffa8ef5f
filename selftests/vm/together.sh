#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# together.sh CMD...: run each CMD (a shell command line) at once. The
# first one's output goes straight through; each other's is kept and
# printed after it, whole, under a header. Then one line with every
# exit status; the exit status is non-zero if any of them failed.
#
# They share a guest semaphore (boot.sh, FT_GUEST_SLOTS, made here unless
# set): at most FT_JOBS guests (the CPUs) boot at once between them, as the
# tests' waits assume. What they do on the host (fetches, builds, packages)
# runs at nice 10, and their guests at together.sh's own niceness
# (FT_GUEST_NICE, boot.sh) when the user may raise a priority back (root,
# as in CI): the builds then fill the CPUs' idle time instead of slowing
# the guests, and the guests of one command fill the gaps another leaves.
# A nested together.sh keeps the semaphore and the niceness it is given.
#
# make check runs the matrix beside the host checks and the DKMS tests;
# .ci/run runs make check beside make check-debug-ci.
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || die "usage: together.sh CMD..."
own_slots=''
if [ -z "${FT_GUEST_SLOTS:-}" ]; then
	FT_GUEST_SLOTS=$(mktemp -d)
	own_slots=$FT_GUEST_SLOTS
	export FT_GUEST_SLOTS
fi
logs=$(mktemp -d)
trap 'rm -rf "$logs" $own_slots' EXIT

lower=()
if [ -z "${FT_GUEST_NICE:-}" ] && [ "$(id -u)" = 0 ]; then
	FT_GUEST_NICE=$(nice)
	export FT_GUEST_NICE
	lower=(nice -n 10)
fi

pids=()
for ((i = 1; i < $#; i++)); do
	cmd=${*:i+1:1}
	"${lower[@]}" bash -c "$cmd" >"$logs/$i" 2>&1 </dev/null &
	pids[i]=$!
done
rcs=(0)
"${lower[@]}" bash -c "$1" || rcs[0]=$?

for ((i = 1; i < $#; i++)); do
	rcs[i]=0
	wait "${pids[i]}" || rcs[i]=$?
	echo "==== ${*:i+1:1} (run alongside ${1}) ===="
	cat "$logs/$i"
done
summary='' failed=0
for ((i = 0; i < $#; i++)); do
	summary+="${summary:+; }${*:i+1:1}: exit ${rcs[i]}"
	[ "${rcs[i]}" = 0 ] || failed=1
done
echo "together: $summary"
exit "$failed"
