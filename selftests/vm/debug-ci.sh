#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-debug-ci` (.ci/run): the debug kernel of make check-debug
# (KASAN, lockdep, kmemleak; debug-kernel.sh) on the lifetime and
# concurrency tests, a fixed share of them per commit, so that a CI run
# keeps to its hour and every listed test runs within a few landings.
#
# usage: debug-ci.sh [--plan] [--slot N]
#   --plan    print the list, the rotation and this commit's slot; boot
#             nothing
#   --slot N  run slot N, not this commit's (also FT_DEBUG_CI_SLOT=N)
#
# The list: every fault_* test, the never-stale tests (those built on
# lib_stale.sh) and CI_NAMED, less CI_EXCLUDE.
# The rotation: each slot is CI_SLOT_GUESTS guests (one: CI's other CPU
# runs make check's guests meanwhile, .ci/run), each given at most
# CI_GUEST_SECONDS of tests by their time on this kernel (CI_SECONDS),
# heaviest first to the lightest guest; as few slots as that allows. The
# tests of check.sh's SMP_TESTS get guests of their own that boot with
# two vCPUs only: their races are what this kernel is for, and their
# one-vCPU run would add minutes and nothing else. A commit
# runs slot (first-parent commits mod slots): each merge moves to the next
# slot, so as many merges in a row as there are slots run every test. A
# shallow clone, whose count is its depth, takes a hash of HEAD instead.
#
# The slot runs as `debug-kernel.sh check --no-build --no-skip`: any failed
# or skipped test, splat or kmemleak report fails it, and so does a debug
# kernel that would have to be built first (debug.config changed and no
# prebuilt kernel matches it).
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

# Besides fault_* and the never-stale tests: the table's resize, rules
# applied from the device notifier, device and netns teardown, rmmod with
# devices enabled, netlink garbage, malformed frames, NFQUEUE reinjection.
CI_NAMED="fastpath_table_resize fastpath_dev_events ftctl_rules
	ftctl_rules_disable dev_delete rmmod_enabled netlink_garbage
	ftctl_errors malformed fastpath_nfqueue"
# Not listed, with why. Each of the skipping ones comes back with a
# prebuilt kernel whose debug.config has what it needs.
# - fastpath_route_revalidate takes 340 s on a stock kernel, the suite's
#   longest (its route changes and their 500 ms windows); on this kernel
#   it reached KSFT_TIMEOUT (900 s) after 118 passing checks: more than a
#   slot. make check-debug runs it.
# - these skip on this kernel, which lacks what they test:
#   ftctl_rules_disable (kprobe events), fastpath_bond (bonding),
#   fastpath_encap (MPLS, lwtunnel), fastpath_xfrm (XFRM, ESP),
#   fastpath_hw_forwarded (switchdev).
# - fastpath_learn_window skipped here: the learn it holds ran on CPU 1,
#   not on CPU 0, where RPS steers the client's receive work on Debian's
#   kernels (make check runs it on two vCPUs).
CI_EXCLUDE="fastpath_route_revalidate ftctl_rules_disable fastpath_bond
	fastpath_encap fastpath_xfrm fastpath_hw_forwarded fastpath_learn_window"
# Seconds of tests a guest gets in a slot, unless one test alone takes
# more: with 400, a slot of two 2-vCPU guests took 15 min on a host that
# ran other guests too (README-debug.md), more than CI's margin after
# make check.
CI_GUEST_SECONDS=${FT_DEBUG_CI_SECONDS:-300}
# Guests a slot. Each pays the debug kernel's boot and kmemleak scan under
# TCG, minutes of CI's CPUs: two a slot made CI's CPU time itself over
# its hour (stop 44: 4070 s), so a run boots one, beside make check.
CI_SLOT_GUESTS=${FT_DEBUG_CI_GUESTS:-1}
# What each test took on this kernel (one vCPU; the SMP_TESTS: two), in a
# guest beside another on a 2-CPU host, FT_SLOWDOWN=4. A test not here
# counts CI_DEFAULT_SECONDS.
CI_SECONDS="
	fault_ct_flush 219	fault_dev_delete 196	fault_flush 229
	fault_mtu 415		fault_netns_delete 48	fault_rmmod 197
	fault_route_flap 283	fault_table_full 237	fault_toggle 324
	fastpath_table_resize 153	fastpath_acct_exact 177	fastpath_close_race 66
	fastpath_dev_events 396	fastpath_bridge 144	fastpath_bridge_port 182
	fastpath_close_oneside 57	fastpath_close_timeout 213	fastpath_ct_delete 119
	fastpath_forwarding_off 161	fastpath_halfclose 58	fastpath_ifindex_reuse 76
	fastpath_nat_reuse 114	fastpath_nexthop 210	fastpath_route_expires 222
	ftctl_rules 66		rmmod_enabled 45	dev_delete 32
	netlink_garbage 46	ftctl_errors 20		malformed 370
	fastpath_nfqueue 115		fastpath_tos 194
"
CI_DEFAULT_SECONDS=200

# ci_tests: the list, one a line, sorted.
ci_tests() {
	local all t
	all=$(sh "$REPO/selftests/run_tests.sh" --list)
	{
		grep '^fault_' <<<"$all" || true
		for t in $all; do
			! grep -qs 'lib_stale\.sh' "$REPO/selftests/$t.sh" || echo "$t"
		done
		for t in $CI_NAMED; do
			grep -qx -- "$t" <<<"$all" || die "CI_NAMED has $t, which is no test"
			echo "$t"
		done
	} | sort -u | grep -vxF -f <(xargs -n1 <<<"$CI_EXCLUDE") || true
}

# weigh TEST...: "SECONDS TEST" per test, heaviest first (then by name).
weigh() {
	xargs -n2 <<<"$CI_SECONDS" | awk -v d="$CI_DEFAULT_SECONDS" -v tests="$*" '
		{ w[$1] = $2 }
		END { n = split(tests, t, " ")
		      for (i = 1; i <= n; i++) print (t[i] in w ? w[t[i]] : d), t[i] }' |
		sort -k1,1nr -k2,2
}

# pack N: the "SECONDS TEST" lines on stdin into N guests, each test to
# the guest with the fewest seconds so far (the first of those); prints
# "SECONDS TEST..." per guest. Fails if a guest got more than
# CI_GUEST_SECONDS and held more than one test.
pack() {
	awk -v n="$1" -v max="$CI_GUEST_SECONDS" '
		{ b = 0
		  for (i = 1; i < n; i++) if (sum[i] < sum[b]) b = i
		  sum[b] += $1; list[b] = list[b] " " $2; cnt[b]++ }
		END { bad = 0
		      for (i = 0; i < n; i++) {
			      print sum[i] + 0 list[i]
			      if (sum[i] > max && cnt[i] > 1) bad = 1
		      }
		      exit bad }'
}

# plan: GUESTS, "SECONDS [smp] TEST..." per guest, CI_SLOT_GUESTS a slot
# (the last slot may have fewer); the SMP_TESTS' guests first.
plan() {
	local smp_list t m k normal=() smp=() out ws wn
	# check.sh's race tests (MTTCG_TESTS) need two vCPUs as well.
	smp_list=$(sed -n 's/^\(SMP\|MTTCG\)_TESTS="\(.*\)"$/\2/p' "$VM_DIR/check.sh" | xargs)
	[ -n "$smp_list" ] || die "no SMP_TESTS in check.sh"
	for t in "${tests[@]}"; do
		if [[ " $smp_list " == *" $t "* ]]; then smp+=("$t"); else normal+=("$t"); fi
	done
	GUESTS=()
	m=0
	if [ ${#smp[@]} -gt 0 ]; then
		ws=$(weigh "${smp[@]}")
		m=1
		until out=$(pack "$m" <<<"$ws"); do m=$((m + 1)); done
		while read -r t out; do GUESTS+=("$t smp $out"); done <<<"$out"
	fi
	wn=$(weigh "${normal[@]}")
	# As few slots as the seconds allow, each full but the last.
	k=$(((m + CI_SLOT_GUESTS) / CI_SLOT_GUESTS))
	until out=$(pack $((CI_SLOT_GUESTS * k - m)) <<<"$wn"); do k=$((k + 1)); done
	mapfile -t -O ${#GUESTS[@]} GUESTS <<<"$out"
}

# describe GUEST: "[~SECONDS s] TEST..." or "[~SECONDS s, 2 vCPUs] TEST...".
describe() {
	local -a w
	read -ra w <<<"$1"
	if [ "${w[1]}" = smp ]; then
		echo "[~${w[0]} s, 2 vCPUs] ${w[*]:2}"
	else
		echo "[~${w[0]} s] ${w[*]:1}"
	fi
}

# run_args GUEST: debug-kernel.sh's option for GUEST's shard.
run_args() {
	local -a w
	read -ra w <<<"$1"
	if [ "${w[1]}" = smp ]; then
		local IFS=,
		echo "--smp-shard ${w[*]:2}"
	else
		local IFS=,
		echo "--shard ${w[*]:1}"
	fi
}

show='' slot=${FT_DEBUG_CI_SLOT:-}
while [ $# -gt 0 ]; do
	case $1 in
	--plan) show=1 ;;
	--slot) slot=${2:-}; shift ;;
	*) die "usage: debug-ci.sh [--plan] [--slot N]" ;;
	esac
	shift
done
[ "$CI_GUEST_SECONDS" -ge 1 ] 2>/dev/null || die "FT_DEBUG_CI_SECONDS must be a number of seconds"
[ "$CI_SLOT_GUESTS" -ge 1 ] 2>/dev/null || die "FT_DEBUG_CI_GUESTS must be a number of guests"

mapfile -t tests < <(ci_tests)
[ ${#tests[@]} -gt 0 ] || die "no test in the list"
plan
g=$CI_SLOT_GUESTS
slots=$(((${#GUESTS[@]} + g - 1) / g))
commit_index
if [ -z "$slot" ]; then
	slot=$((INDEX % slots))
	from=$INDEX_FROM
elif ! [ "$slot" -ge 0 ] 2>/dev/null || [ "$slot" -ge "$slots" ]; then
	die "--slot must be 0 to $((slots - 1))"
else
	from="slot chosen"
fi

echo "debug kernel in CI: ${#tests[@]} tests, $slots slots of $g guest(s) with up to ~$CI_GUEST_SECONDS s of tests each"
echo "not listed: $(xargs <<<"$CI_EXCLUDE")"
args=()
for ((s = 0; s < slots; s++)); do
	line='' mark=' '
	[ "$s" != "$slot" ] || mark='*'
	for ((i = g * s; i < g * s + g && i < ${#GUESTS[@]}; i++)); do
		line+="${line:+ | }$(describe "${GUESTS[i]}")"
		# shellcheck disable=SC2207 # "--shard LIST", no blanks in LIST
		[ "$mark" = ' ' ] || args+=($(run_args "${GUESTS[i]}"))
	done
	[ "$mark" = ' ' ] || this=$line
	echo "$mark slot $s: $line"
done
echo "this run: slot $slot of $slots ($from): $this"
[ -z "$show" ] || exit 0

exec bash "$VM_DIR/debug-kernel.sh" check --no-build --no-skip "${args[@]}"
