#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: set everything up as make check does (host packages, kernel,
# module, initramfs), boot one guest under qemu -icount and play
# bench/guest/demo.sh, narrated on the terminal. Exits non-zero if a step of
# the story broke.
#
# usage: demo.sh [--kernel 6.12]
# Environment: DEMO_TCP=BYTES per iperf3 run (16M, three runs per number);
# FT_TIMEOUT (900).
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

word=6.12
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) word=$2; shift ;;
	*) die "usage: demo.sh [--kernel 6.12]" ;;
	esac
	shift
done
FT_TAG=$word
dir=$REPO/bench/out/demo-$word
mkdir -p "$dir"
start=$SECONDS
# Builds go to a work dir of this run (as in check.sh), so that a make check
# running meanwhile keeps its own.
export FT_OUT=${FT_OUT:-$CACHE/out/demo-$(date +%Y%m%d-%H%M%S)-$$}
OUT=$FT_OUT
trap 'rm -rf "$FT_OUT"' EXIT
mkdir -p "$OUT"

log "setting up: host packages, ftctl, kernel $word, fasttrack.ko, initramfs (log: $dir/prepare.log)"
if ! { bash "$VM_DIR/deps.sh" && bash "$VM_DIR/tools.sh" && bash "$VM_DIR/kernels.sh" "$word" &&
	bash "$VM_DIR/build.sh" "$word" && bash "$VM_DIR/initramfs.sh" "$word"; } >"$dir/prepare.log" 2>&1; then
	cat "$dir/prepare.log" >&2
	die "setting up the demo guest failed"
fi
log "ready after $((SECONDS - start)) s; booting the guest"
play=$SECONDS
# The guest's CPU time (qemu's user + system) is the wall time the story
# takes on an otherwise idle core; "times" reports the finished children.
times >"$dir/times0"
rc=0
FT_TIMEOUT=${FT_TIMEOUT:-900} bash "$VM_DIR/boot.sh" "$word" "$dir" --mode demo --icount \
	--append "quiet ft.tcp=${DEMO_TCP:-16M}" </dev/null |
	sed -u 's/\r$//' | tee "$dir/demo.log" | grep --line-buffered -v '^@DONE' || rc=$?
if [ "$rc" != 0 ] || ! grep -q '^@DONE' "$dir/demo.log"; then
	log "the demo FAILED (exit $rc). Guest console: $dir/console.log"
	tail -n 20 "$dir/console.log" >&2 || true
	exit 1
fi
times >"$dir/times1"
cpu=$(awk 'NR == 2 { gsub(/[ms]/, " "); t = $1 * 60 + $2 + $3 * 60 + $4 }
	NR == 4 { gsub(/[ms]/, " "); printf "%.0f", $1 * 60 + $2 + $3 * 60 + $4 - t }' \
	"$dir/times0" "$dir/times1")
log "demo played in $((SECONDS - play)) s, the guest used $cpu s of CPU (setup $((play - start)) s)"
