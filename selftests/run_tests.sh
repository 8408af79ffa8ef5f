#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run the fasttrack selftests and report in KTAP (kselftest exit codes:
# 0 pass, 1 fail, 4 skip). Each test's output follows its result line as
# "# " diagnostics. A last test, dmesg-clean, fails on any kernel splat.
#
# Every selftests/*.sh is a test, except run_tests.sh and lib*.sh. A test
# in a subdirectory (soak/soak.sh) runs only when named: it is not listed.
# usage: run_tests.sh [NAME...]    all listed tests by default
#        run_tests.sh --list
# KSFT_TIMEOUT: seconds per test (default 600); a test whose header has
# "# ksft-timeout: N" gets N times FT_SLOWDOWN instead.
set -u
cd "$(dirname "$0")" || exit 1
. ./lib.sh

list_tests() {
	for f in *.sh; do
		case $f in lib*.sh | run_tests.sh) ;; *) echo "${f%.sh}" ;; esac
	done
}

# test_path NAME: ./NAME.sh, or else ./DIR/NAME.sh.
test_path() {
	for f in "./$1.sh" ./*/"$1.sh"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

if [ "${1:-}" = --list ]; then
	list_tests
	exit 0
fi
tests=${*:-$(list_tests)}

for t in $tests; do
	test_path "$t" >/dev/null || { echo "Bail out! no such test: $t"; exit 1; }
done

timeout=${KSFT_TIMEOUT:-600}
out=/tmp/ktap.out
n=0 failed=0 splats=

echo "TAP version 13"
echo "1..$(($(echo "$tests" | wc -w) + 1))"
for t in $tests; do
	n=$((n + 1))
	dmesg_mark
	# Output goes to a file, not a pipe: a stray background process must not
	# keep the runner waiting for EOF.
	start=$(now_ms)
	t_timeout=$(sed -n 's/^# ksft-timeout: \([0-9]*\)$/\1/p' "$(test_path "$t")")
	t_timeout=${t_timeout:+$((t_timeout * ${FT_SLOWDOWN:-1}))}
	t_timeout=${t_timeout:-$timeout}
	timeout -k 10 "$t_timeout" "$(test_path "$t")" </dev/null >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	echo "# $t: exit $rc after $((($(now_ms) - start) / 1000)) s"
	case $rc in
	0) echo "ok $n $t" ;;
	4) echo "ok $n $t # SKIP $(sed -n "s/^SKIP: //p" "$out" | tail -n 1)" ;;
	124 | 137) echo "# timed out after ${t_timeout}s"; echo "not ok $n $t"; failed=1 ;;
	*) echo "not ok $n $t"; failed=1 ;;
	esac
	splat=$(dmesg_since | grep -E -A 20 "$FT_SPLAT_RE")
	[ -z "$splat" ] || splats="$splats
kernel splat during $t:
$splat"
done

n=$((n + 1))
if [ -n "$splats" ]; then
	printf '%s\n' "$splats" | sed '1d; s/^/# /'
	echo "not ok $n dmesg-clean"
	failed=1
else
	echo "ok $n dmesg-clean"
fi
exit $failed
