#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Judge one guest run: read RUNDIR/ktap.log (the guest's KTAP), rc (the
# boot's exit status) and console.log, and print one line per test:
#   [6.1]  ok      name
#   [6.1]  FAIL    name          followed by the test's diagnostics
#   [6.1]  skip    name: reason
# A test that was expected but never reported counts as failed (MISSING), as
# do a boot that timed out or failed, a kernel panic, and a kernel splat on
# the console. A run whose rc is "prepare" (the kernel was not fetched,
# built or packed) is one failure with the end of RUNDIR/prepare.log. The
# last line is "= PASSED FAILED SKIPPED".
#
# usage: ktap.sh LABEL RUNDIR TEST...   (dmesg-clean is always expected)
set -eu
. "$(dirname "$0")/common.sh"
. "$REPO/selftests/lib.sh" # FT_SPLAT_RE

label=$1 dir=$2
shift 2
expected="$* dmesg-clean"
passed=0 failed=0 skipped=0
rc=$(cat "$dir/rc" 2>/dev/null || echo none)

line() { printf '[%s]  %-7s %s\n' "$label" "$1" "$2"; }
# took NAME: " (N s)", from the runner's "NAME: exit RC after N s" line.
took() { sed -n "s/^$1: exit [0-9]* after \([0-9]*\) s$/ (\1 s)/p" "$dir/diag.$1" 2>/dev/null; }
failure() {
	line FAIL "$1"
	failed=$((failed + 1))
	[ $# -lt 2 ] || head -n 80 <<<"$2" | sed 's/^/        | /'
}

# digest FILE: a failed test's output; when long, its failed checks (with
# their indented details) and its last lines.
digest() {
	[ -f "$1" ] || return 0
	if [ "$(wc -l <"$1")" -le 60 ]; then
		cat "$1"
		return
	fi
	awk '/\[FAIL\]$/ { show = 1; print; next }
	     show && /^[\t ]/ { print; next }
	     { show = 0 }' "$1" | head -n 50
	echo "..."
	tail -n 10 "$1"
}

# A kernel that was not prepared (fetch, build or initramfs failed) never
# booted: one failure, with the end of its prepare log, and no other lines.
if [ "$rc" = prepare ]; then
	failure "prepare: fetching, building or packing failed; no test ran" \
		"$(tail -n 30 "$dir/prepare.log" 2>/dev/null || echo "no prepare log in $dir")"
	echo "= 0 1 0"
	exit 0
fi

# results: "STATUS<TAB>NAME<TAB>REASON" per KTAP result line; the "# " lines
# before a result are its diagnostics, kept in diag.<NAME>.
rm -f "$dir"/diag.*
tr -d '\r' 2>/dev/null <"$dir/ktap.log" | awk -v dir="$dir" '
	/^# / { diag = diag substr($0, 3) "\n"; next }
	/^Bail out!/ { print "bail\t-\t" $0; next }
	/^(not )?ok [0-9]+ / {
		status = ($1 == "not") ? "fail" : "ok"
		name = ($1 == "not") ? $4 : $3
		reason = ""
		if (match($0, / # [Ss][Kk][Ii][Pp]/)) { status = "skip"; reason = substr($0, RSTART + 8) }
		print status "\t" name "\t" reason
		printf "%s", diag > (dir "/diag." name)
		close(dir "/diag." name)
		diag = ""
	}' >"$dir/results.tsv"

case $rc in
0) ;;
124 | 137) failure "boot: timed out after ${FT_TIMEOUT:-3600} s" ;;
*) failure "boot: boot.sh (qemu) exited with status $rc" ;;
esac
if grep -q 'Kernel panic' "$dir/console.log" 2>/dev/null; then
	failure "boot: kernel panic" "$(grep -A 30 'Kernel panic' "$dir/console.log")"
fi

while IFS=$'\t' read -r status name reason; do
	case $status in
	ok) line ok "$name$(took "$name")"; passed=$((passed + 1)) ;;
	skip) line skip "$name: $reason"; skipped=$((skipped + 1)) ;;
	bail) failure "runner: $reason" ;;
	*) failure "$name" "$(digest "$dir/diag.$name")" ;;
	esac
done <"$dir/results.tsv"

missing=0
for t in $expected; do
	cut -f2 "$dir/results.tsv" | grep -qx -- "$t" && continue
	failure "$t: MISSING (no result from the guest)"
	missing=1
done
if [ "$missing" = 1 ] && [ -s "$dir/console.log" ]; then
	echo "[$label]  the guest stopped early; the end of its console:"
	tr -d '\r' <"$dir/console.log" | tail -n 15 | sed 's/^/        | /'
fi

# A splat after the runner's own dmesg check (or in a hung guest).
if ! grep -qP '^fail\tdmesg-clean\t' "$dir/results.tsv" &&
	splat=$(tr -d '\r' 2>/dev/null <"$dir/console.log" | grep -E -A 20 "$FT_SPLAT_RE"); then
	failure "console: kernel splat" "$splat"
fi

echo "= $passed $failed $skipped"
