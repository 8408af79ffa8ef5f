#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ksft-timeout: 21600
# shellcheck disable=SC3043 # dash has local
# The kernel's own netfilter selftests (tools/testing/selftests/net/
# netfilter/ of Debian's linux-source of this kernel's version, 6.12 or
# 7.2, at /knf in the guest: selftests/vm/knf.sh), each run twice in this
# boot, unchanged:
#  1. on the full stack alone (fasttrack loaded, enabled nowhere);
#  2. with fasttrack on for both families on every device of every netns
#     the script makes: the test hook netns_enable (kmod/testhooks.c)
#     gives each new netns the rule "*", as "ftctl enable '*'" would.
# Both runs must end with the same exit code and the same PASS/FAIL/SKIP
# lines (numbers and netns names stripped). An XFAIL (exit 2, kselftest's
# "expected failure": the script could not provoke the race it tests) on
# one side only is run again, both sides, once. Per script, one line:
#   same       ... and fasttrack forwarded packets in run 2: a pass;
#   not exercised  the same, but fasttrack forwarded nothing (not a pass,
#              nor a failure);
#   not run    the script skipped (a missing tool or kernel feature);
#   differs    a failure: both outputs follow;
#   full stack fails  run 1 failed: a failure (the script must be listed
#              in knf.sh's KNF_EXCLUDE with why, or the setup fixed).
# The forwarded count is the test hook netns_forwarded: the packets of
# every netns, those gone too, read when none is between its removal from
# the list and its exit.
#
# The scripts run with KSFT_MACHINE_SLOW=yes, as kselftest's runners run
# them on a slow machine (an emulator is one): their own smaller workloads
# (nft_zones_many: 500 zones, not 2000; fewer packets in br_netfilter,
# nft_nat_zones, nft_queue), the same checks.
# The scripts see the kernel's taint without the bits that loading
# fasttrack (out of tree, unsigned) set: br_netfilter* and nft_queue skip
# on a tainted kernel. In their place this test fails a script after which
# the kernel has a taint it did not have before. What a script leaves
# running in its namespaces is killed once it exits, so that they go.
#
# The scripts: KNF_SCRIPTS (space-separated), else those in /knf/scripts
# (knf.sh writes this run's share there; make check-netfilter: all).
# A script is given KNF_SECONDS (default 600) per run. Each script's
# times also go to the kernel log, so that a long run shows its progress
# on the console.
. "$(dirname "$0")/lib.sh"

KNF=/knf
NF=$KNF/net/netfilter
PARAM=/sys/module/fasttrack/parameters/netns_enable
FWD=/sys/kernel/debug/fasttrack/netns_forwarded

# knf.sh puts a suite only where one runs: that of this kernel's version.
[ -d "$NF" ] || ft_skip "no kernel netfilter selftests at $NF for $(uname -r) (selftests/vm/knf.sh)"
suite=$(sed -n 's/^VERSION=\([0-9]*\) PATCHLEVEL=\([0-9]*\) .*/\1.\2/p' "$KNF/VERSION")
case $(uname -r) in
"$suite".*) ;;
*) fail "the suite at $KNF is $suite's, for Linux $(uname -r)"; ft_exit ;;
esac
dmesg_mark
ft_module_load
if [ ! -w "$PARAM" ] || [ ! -r "$FWD" ]; then
	ft_skip "fasttrack built without test hooks (FT_TEST_HOOKS=1)"
fi
defer sh -c "echo N >$PARAM"
# Modules the scripts load stay after them: br_netfilter would send every
# bridged packet of the later tests through the IP hooks of new netns.
# Unloaded again at the end, those that nothing else holds.
awk '{ print $1 }' /proc/modules >/tmp/knf.mods0
defer unload_new_modules

# unload_new_modules: rmmod what was loaded since the start, in rounds for
# their dependencies; says what stays, and why (a deferred cleanup's
# output goes nowhere: the end of the test calls it too).
unload_new_modules() {
	local _ m left
	for _ in 1 2 3 4 5 6; do
		left=$(awk '{ print $1 }' /proc/modules | grep -vxF -f /tmp/knf.mods0)
		[ -n "$left" ] || return 0
		for m in $left; do
			rmmod "$m" 2>/dev/null
		done
	done
	for m in $left; do
		log_info "module $m stays loaded: $(rmmod "$m" 2>&1)" \
			"(holders: $(find "/sys/module/$m/holders" -mindepth 1 -printf "%f " 2>/dev/null))"
	done
}
scripts=${KNF_SCRIPTS:-$(cat "$KNF/scripts" 2>/dev/null)}
[ -n "$scripts" ] || ft_skip "no scripts listed in $KNF/scripts"
secs=$(ft_secs "${KNF_SECONDS:-600}")
OUT=$(mktemp -d)
defer rm -rf "$OUT"
log_info "suite: $(cat "$KNF/VERSION"), scripts: $scripts"

# fwd_field N: field N of netns_forwarded (1: packets, 2: netns fasttrack
# has state for, 3: those of them listed).
fwd_field() { cut -d' ' -f"$1" "$FWD"; }
# No netns between leaving the list and its exit: the packets are exact.
fwd_settled() { [ "$(fwd_field 2)" = "$(fwd_field 3)" ]; }

# normalise: the result lines of a script's output, with what differs from
# run to run (numbers, random netns suffixes, timings) stripped.
normalise() {
	grep -E 'PASS|FAIL|SKIP|ERROR|\[ *OK *\]|\[XFAIL\]|\bok\b|not ok' |
		sed -E 's/-[A-Za-z0-9]{6,}\b/-X/g; s/[0-9]+/N/g; s/[[:space:]]+/ /g'
}

# The taint bits of an out-of-tree and of an unsigned module.
TAINT_MODULE=$(((1 << 12) | (1 << 13)))
mynet=$(readlink /proc/self/ns/net)

# kill_leftovers: kill what runs in a netns other than this one.
kill_leftovers() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/net" 2>/dev/null)" = "$mynet" ] ||
			kill -9 "${p#/proc/}" 2>/dev/null
	done
}

# run NAME MODE: run script NAME with netns_enable=MODE (N or Y); leaves
# its output in $OUT/NAME.MODE, exit code in .rc, forwarded packets in .fwd.
run() {
	local name="$1" mode="$2" f="$OUT/$1.$2" fwd0 start rc
	echo "$mode" >"$PARAM"
	busywait 60000 fwd_settled || log_info "$name: netns_forwarded not settled"
	fwd0=$(fwd_field 1)
	start=$(now_ms)
	echo $(($(cat /proc/sys/kernel/tainted) & ~TAINT_MODULE)) >"$OUT/tainted"
	cat /proc/sys/kernel/tainted >"$f.taint0"
	# shellcheck disable=SC2016 # the inner shell's arguments
	unshare -m sh -c 'mount --bind "$1" /proc/sys/kernel/tainted && cd "$2" &&
		KSFT_MACHINE_SLOW=yes exec timeout -k 10 "$3" bash "./$4.sh"' - \
		"$OUT/tainted" "$NF" "$secs" "$name" \
		</dev/null >"$f" 2>&1
	rc=$?
	cat /proc/sys/kernel/tainted >"$f.taint"
	echo N >"$PARAM"
	kill_leftovers
	# Its namespaces go in the background: their counts come with the exit.
	busywait 60000 fwd_settled ||
		log_info "$name: a netns still between its list and its exit 60 s later"
	echo "$rc" >"$f.rc"
	echo $(($(fwd_field 1) - fwd0)) >"$f.fwd"
	echo $((($(now_ms) - start) / 1000)) >"$f.secs"
}

# pair NAME: run NAME on the full stack, then with fasttrack; sets a and b
# (the outputs), rca, rcb, fwd, logs the outcome and fails a run after
# which the kernel has a taint it did not have before.
pair() {
	local msg m t0 t
	run "$1" N
	run "$1" Y
	a=$OUT/$1.N b=$OUT/$1.Y
	rca=$(cat "$a.rc") rcb=$(cat "$b.rc") fwd=$(cat "$b.fwd")
	normalise <"$a" >"$a.norm"
	normalise <"$b" >"$b.norm"
	msg="$1: full stack exit $rca in $(cat "$a.secs") s; with fasttrack exit $rcb in $(cat "$b.secs") s, $fwd packets forwarded by it"
	log_info "$msg"
	echo "kernel_netfilter: $msg" >/dev/kmsg
	for m in N Y; do
		t0=$(cat "$OUT/$1.$m.taint0") t=$(cat "$OUT/$1.$m.taint")
		[ "$t" = "$t0" ] ||
			fail "$1: the kernel's taint stays (netns_enable=$m)" "$t0 before, $t after"
	done
}

# differ: the two runs' results differ.
differ() { [ "$rca" != "$rcb" ] || ! cmp -s "$a.norm" "$b.norm"; }

same=0 unexercised='' notrun='' bad=0
for name in $scripts; do
	if [ ! -f "$NF/$name.sh" ]; then
		fail "$name: no such script in $NF"
		continue
	fi
	pair "$name"
	# An XFAIL (exit 2) is a script's word that it could not provoke what
	# it tests, a race that timing decides (conntrack_clash: "clash
	# resolution did not trigger"). Such a difference is run again, both
	# sides; one that fasttrack causes comes back and still fails.
	if differ && { [ "$rca" = "$KSFT_XFAIL" ] || [ "$rcb" = "$KSFT_XFAIL" ]; }; then
		log_info "$name: an XFAIL on one side only: a race the script could not provoke there; both runs again"
		pair "$name"
	fi
	if [ "$rca" -ne 0 ] && [ "$rca" -ne "$KSFT_SKIP" ] && [ "$rca" -ne "$KSFT_XFAIL" ]; then
		fail "$name: full stack fails it (exit $rca): fix the setup or list it in KNF_EXCLUDE" \
			"full stack:" "$(cat "$a")"
		bad=$((bad + 1))
	elif differ; then
		fail "$name: same result with fasttrack on every device" \
			"exit $rca on the full stack, $rcb with fasttrack" \
			"result lines that differ (< full stack, > fasttrack):" \
			"$(diff "$a.norm" "$b.norm")" \
			"full stack's output:" "$(cat "$a")" \
			"with fasttrack:" "$(cat "$b")"
		bad=$((bad + 1))
	elif [ "$rca" -eq "$KSFT_SKIP" ]; then
		log_info "$name: not run: $(grep -m1 SKIP "$a")"
		notrun="$notrun $name"
	elif [ "$fwd" -eq 0 ]; then
		log_info "$name: not exercised: the same result, but fasttrack forwarded nothing"
		unexercised="$unexercised $name"
	else
		pass "$name: same result with fasttrack on every device ($fwd packets fast)"
		same=$((same + 1))
	fi
done

log_info "the same: $same; differ or fail: $bad;" \
	"not exercised:${unexercised:- none}; not run:${notrun:- none}"
unload_new_modules
check_dmesg_clean "no kernel splat"
ft_exit
