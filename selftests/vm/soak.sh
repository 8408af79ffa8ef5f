#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make soak`: boot a guest per kernel that runs only selftests/soak/soak.sh
# (the guest's runner finds it by name; it is not in `make check`), for
# SOAK_SECONDS (default 600) of mixed traffic with random toggles, and print
# its whole report (memory baselines, counts), pass or fail.
#
# usage: soak.sh [--kernels "6.1"]
# The guest gets SOAK_SECONDS and a matching KSFT_TIMEOUT on its kernel
# command line (the kernel hands NAME=VALUE words to init's environment),
# and slub_nomerge, so that the module's ft_flow slab cache is visible by
# name; FP_SEED=N repeats a run's random choices. The boot is killed after
# SOAK_SECONDS + 1200 s (FT_TIMEOUT).
# Logs stay in $CACHE/logs/soak-<kernel>-<date>/.
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

kernels=$(kernels_option "6.1" "$@")
secs=${SOAK_SECONDS:-600}
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || die "SOAK_SECONDS must be a number of seconds"

stamp=$(date +%Y%m%d-%H%M%S)
export FT_OUT=${FT_OUT:-$CACHE/out/soak-$stamp-$$}
OUT=$FT_OUT
trap 'rm -rf "$FT_OUT"' EXIT
mkdir -p "$OUT/run" "$CACHE/logs"

bash "$VM_DIR/deps.sh"
bash "$VM_DIR/tools.sh"

soak_job() {
	local word=$1 dir=$OUT/run/$1 rc=0 start=$SECONDS
	mkdir -p "$dir"
	if ! { bash "$VM_DIR/kernels.sh" "$word" && bash "$VM_DIR/build.sh" "$word" &&
		bash "$VM_DIR/initramfs.sh" "$word"; } 2>&1 | tee "$dir/prepare.log" >&2; then
		echo prepare >"$dir/rc"
		return
	fi
	FT_TAG=$word log "soaking for $secs s"
	FT_TIMEOUT=$((secs + 1200)) \
		FT_APPEND="SOAK_SECONDS=$secs KSFT_TIMEOUT=$((secs + 900)) slub_nomerge${FP_SEED:+ FP_SEED=$FP_SEED}" \
		bash "$VM_DIR/boot.sh" "$word" "$dir" --tests soak </dev/null || rc=$?
	echo "$rc" >"$dir/rc"
	FT_TAG=$word log "guest finished after $((SECONDS - start)) s"
}

for word in $kernels; do
	soak_job "$word" &
done
wait

for word in $kernels; do
	dir=$OUT/run/$word
	FT_TIMEOUT=$((secs + 1200)) judge "$word" "$dir" soak
	# The soak's own report, also when it passed.
	sed "s/^/[$word]    /" "$dir/diag.soak" 2>/dev/null || true
	keep=$CACHE/logs/soak-$word-$stamp
	mkdir -p "$keep"
	cp "$dir"/*.log "$keep/" 2>/dev/null || true
	echo "[$word]  logs: $keep"
done
[ "${TOTAL_FAILED:-0}" -eq 0 ] && echo "soak passed" || { echo "soak failed"; exit 1; }
