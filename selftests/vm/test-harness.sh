#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make harness-test` (and make check, before the guests): the VM harness's
# own failure handling, on the host, without a guest or the network.
#
#  - apt.sh, against a file: archive made here and a host apt setup
#    simulated through APT_CONFIG: the host's installed packages (a newer
#    linux-headers-amd64) and foreign architectures do not reach the
#    private setup; an index that fails to download (listed in Release,
#    missing: a mirror mid-sync) and an unreachable suite are not fatal by
#    themselves; a package that cannot be resolved is named, with the
#    suites.
#  - deps.sh, against a stand-in apt-get that fails, as dpkg does, when
#    another holds its lock: installs started at once (make check's parts,
#    side by side on a fresh machine) all succeed, one after the other, and
#    a package two of them lack is installed once.
#  - check.sh --matrix: the core tests on every kernel, each other test on
#    one of them, the shards apart; without it, every test everywhere.
#  - check.sh, dkms-vm.sh, soak.sh, in a copy of the harness whose fetch,
#    build and boot steps are stubs: when one kernel fails to prepare, the
#    other kernel's results are still printed, the failed one is a prepare
#    failure whose log is kept under $CACHE/logs, and the exit is non-zero.
#  - check.sh: a kernel splat or a kmemleak report on the console fails a
#    run whose tests all passed (what make check-debug and CI rely on).
#  - check.sh --matrix: the kernel with the longest boot prepares and
#    boots first.
#  - check.sh --matrix: kernel_netfilter on the kernel of its turn only,
#    the others dealt as without it; knf.sh --plan (its share in CI):
#    every script of the kernel's netfilter suite in one slot, none over
#    the share, the kernel and the slot picked by the first-parent count;
#    rotate.sh's turn (the platform of the matrix) by the same count.
#  - debug-ci.sh --plan (the debug kernel's share in CI): every listed test
#    is in one slot, no slot holds more than the share, the commit picks
#    its slot by its first-parent count; debug-kernel.sh check --no-build
#    fails, rather than builds, without a kernel.
#  - guest_slot (boot.sh, FT_GUEST_SLOTS): two runs sharing the slots boot
#    one at a time with FT_JOBS=1, both at once with 2; waiters go longest
#    first, then in the order they came, past a waiter that died.
#  - together.sh: its commands run at once, the others' output follows
#    the first's, and any failure fails it.
#  - boot.sh's watchdog, with a stand-in qemu: a boot silent before init
#    is killed and started again, once, then fails with 124; a boot that
#    reaches init is left alone however quiet it is after.
#
# Prints one line per check and exits non-zero if any failed.
set -eu -o pipefail
# make check runs this beside guests that share these (together.sh); the
# rotations are checked against the real commit count.
unset FT_GUEST_SLOTS FT_GUEST_NICE FT_COMMIT_INDEX
VM=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failed=0 checks=0

# check DESC CMD...: CMD must succeed.
check() {
	local desc=$1
	shift
	checks=$((checks + 1))
	if "$@"; then
		echo "ok    $desc"
	else
		echo "FAIL  $desc"
		failed=$((failed + 1))
	fi
}

# has FILE TEXT: FILE contains the fixed string TEXT.
has() { grep -qF -- "$2" "$1"; }
hasnt() { ! grep -qF -- "$2" "$1"; }

arch=$(dpkg --print-architecture)

# mkrepo DIR SUITE ARCH...: a file: archive with SUITE's main component for
# each ARCH, its index a copy of $T/Packages, all listed in the Release file.
mkrepo() {
	local d=$1/dists/$2 a f
	shift 2
	for a in "$@"; do
		mkdir -p "$d/main/binary-$a"
		cp "$T/Packages" "$d/main/binary-$a/Packages"
	done
	{
		printf 'Suite: %s\nCodename: %s\nArchitectures: %s\nComponents: main\n' \
			"$(basename "$d")" "$(basename "$d")" "$*"
		printf 'Date: %s\nSHA256:\n' "$(date -Ru)"
		for a in "$@"; do
			f=main/binary-$a/Packages
			printf ' %s %s %s\n' "$(sha256sum <"$d/$f" | cut -d' ' -f1)" "$(wc -c <"$d/$f")" "$f"
		done
	} >"$d/Release"
}

# ---- apt.sh
cat >"$T/Packages" <<EOF
Package: linux-headers-amd64
Version: 5.10.1
Architecture: $arch
Depends: linux-headers-5.10.0-1-amd64
Description: meta

Package: linux-headers-5.10.0-1-amd64
Version: 5.10.1
Architecture: $arch
Description: headers
EOF
# The foreign architecture's index is listed but missing.
mkrepo "$T/repo" bullseye "$arch" fakearch
rm "$T/repo/dists/bullseye/main/binary-fakearch/Packages"
# The host: linux-headers-amd64 6.1 installed; or a foreign architecture.
cat >"$T/host-status" <<EOF
Package: linux-headers-amd64
Status: install ok installed
Priority: optional
Section: kernel
Maintainer: nobody <nobody@example.org>
Architecture: $arch
Version: 6.1.1
Depends: linux-headers-6.1.0-1-amd64
Description: meta
EOF
printf 'Acquire::AllowInsecureRepositories "true";\n' >"$T/insecure.conf"
printf 'Dir::State::status "%s";\n' "$T/host-status" | cat "$T/insecure.conf" - >"$T/host-status.conf"
printf 'APT::Architectures { "%s"; "fakearch"; };\n' "$arch" | cat "$T/insecure.conf" - >"$T/host-arch.conf"

# apt_case NAME HOST-CONF SUITE...: set up a private apt NAME for SUITEs
# (bullseye from the archive here; bullseye-security from one that does
# not exist) under the host apt configuration HOST-CONF, and look
# packages up in it. Output in $T/NAME.out.
apt_case() {
	local name=$1 conf=$2
	shift 2
	(
		export APT_CONFIG=$conf FT_CACHE=$T/apt-cache
		# shellcheck source=selftests/vm/common.sh
		. "$VM/common.sh"
		# shellcheck source=selftests/vm/apt.sh
		. "$VM/apt.sh"
		# shellcheck disable=SC2317 # called by apt.sh
		host_sources() {
			echo "file:$T/repo bullseye -"
			echo "file:$T/nowhere bullseye-security -"
		}
		apt_private_setup "$name" "$@" && echo setup-done
		apt_private "$name" apt-cache depends linux-headers-amd64
		apt_resolve "$name" "5.10 headers" linux-headers-amd64 '^linux-headers-5.10[.-]' | sed 's/^/resolved: /'
		(apt_resolve "$name" "5.10 image" linux-image-amd64 '^linux-image-5.10[.-]') && echo resolved-missing
		(apt_resolve "$name" "6.1 headers" linux-headers-amd64 '^linux-headers-6.1[.-]') && echo resolved-wrong
		true
	) >"$T/$name.out" 2>&1 || true
}

apt_case status "$T/host-status.conf" bullseye
check "apt: the host's installed linux-headers-amd64 does not count" \
	has "$T/status.out" "Depends: linux-headers-5.10.0-1-amd64"
check "apt: ... apt_resolve finds the 5.10 headers" has "$T/status.out" "resolved: linux-headers-5.10.0-1-amd64"

apt_case arch "$T/host-arch.conf" bullseye
check "apt: the host's foreign architecture's index is not fetched" hasnt "$T/arch.out" fakearch
check "apt: ... and cannot fail the refresh" has "$T/arch.out" setup-done
check "apt: ... apt_resolve finds the 5.10 headers" has "$T/arch.out" "resolved: linux-headers-5.10.0-1-amd64"

apt_case index "$T/host-arch.conf" bullseye bullseye-security
check "apt: an unreachable suite does not fail the refresh" has "$T/index.out" setup-done
check "apt: ... which reports the failed lists" has "$T/index.out" "failed to download"
check "apt: ... apt_resolve finds the 5.10 headers" has "$T/index.out" "resolved: linux-headers-5.10.0-1-amd64"
check "apt: a missing package fails" hasnt "$T/index.out" resolved-missing
check "apt: ... naming the package and the suites" has "$T/index.out" \
	"cannot resolve the 5.10 image: no package linux-image-amd64 in the package lists of bullseye bullseye-security ($arch); some failed to download"
check "apt: a dependency that does not match fails" hasnt "$T/index.out" resolved-wrong
check "apt: ... naming it, what it depends on and the suites" has "$T/index.out" \
	"cannot resolve the 6.1 headers: linux-headers-amd64 depends on no package matching ^linux-headers-6.1[.-], in the package lists of bullseye bullseye-security ($arch)"

# ---- deps.sh: installs at once, against dpkg's lock
D=$T/deps
mkdir -p "$D/bin" "$D/installed"
# dpkg-query -W -f FORMAT PKG...: what the stand-in apt-get installed.
cat >"$D/bin/dpkg-query" <<'EOF'
#!/bin/bash
shift 3
for p in "$@"; do
	[ ! -e "$FAKE_DPKG/installed/$p" ] || echo "$p installed"
done
EOF
# apt-get: it takes dpkg's lock or fails at once, as when the lock's
# holder is another run of ours (DPkg::Lock::Timeout is not told apart
# here); a second a call, so that runs started at once overlap.
cat >"$D/bin/apt-get" <<'EOF'
#!/bin/bash
mkdir "$FAKE_DPKG/lock" 2>/dev/null ||
	{ echo "E: Could not get lock $FAKE_DPKG/lock" >&2; exit 100; }
sleep 1
args=() skip=0
for a in "$@"; do
	if [ "$skip" = 1 ]; then skip=0; continue; fi
	case $a in -o) skip=1 ;; -*) ;; *) args+=("$a") ;; esac
done
if [ "${args[0]}" = install ]; then
	for p in "${args[@]:1}"; do
		touch "$FAKE_DPKG/installed/$p"
		echo "$p" >>"$FAKE_DPKG/installs"
	done
fi
rmdir "$FAKE_DPKG/lock"
EOF
chmod +x "$D/bin/dpkg-query" "$D/bin/apt-get"
# deps_run NAME PKG...: deps.sh for PKGs; output in $D/NAME.out, status
# in $D/NAME.rc.
deps_run() {
	local rc=0
	PATH=$D/bin:$PATH FAKE_DPKG=$D FT_DEPS_LOCK=$D/deps.lock FT_TAG=$1 \
		bash "$VM/deps.sh" "${@:2}" >"$D/$1.out" 2>&1 || rc=$?
	echo "$rc" >"$D/$1.rc"
}
deps_run a pkga common &
deps_run b pkgb common &
deps_run c pkgc &
wait
for r in a b c; do
	check "deps.sh: installs started at once: run $r succeeds" \
		test "$(cat "$D/$r.rc")" = 0
done
check "deps.sh: ... and installs what each lacks" \
	test "$(cd "$D/installed" && echo *)" = "common pkga pkgb pkgc"
check "deps.sh: ... a package two lack once" \
	test "$(grep -cx common "$D/installs")" = 1

# ---- check.sh, dkms-vm.sh, soak.sh with one kernel that fails to prepare
R=$T/tree
mkdir -p "$R/selftests/vm" "$R/kmod" "$R/uapi"
touch "$R/Kbuild" "$R/dkms.conf" "$R/Makefile"
cp "$VM/../lib.sh" "$R/selftests/"
for f in check.sh common.sh ktap.sh dkms-vm.sh soak.sh dkms_install.sh deb_install.sh lib_dkmsroot.sh; do
	cp "$VM/$f" "$R/selftests/vm/"
done
# shellcheck disable=SC2016 # the stub's own $1
printf '#!/bin/sh\n[ "$1" = --list ] && printf "%%s\\n" ${STUB_TESTS:-alpha beta}\n' >"$R/selftests/run_tests.sh"
for f in deps.sh tools.sh build.sh initramfs.sh; do
	echo 'exit 0' >"$R/selftests/vm/$f"
done
# The netfilter suite's turn: 7.2's (STUB_KNF_KERNEL).
# shellcheck disable=SC2016 # the stub's own variable
echo 'echo "${STUB_KNF_KERNEL:-7.2}"' >"$R/selftests/vm/knf.sh"
# Kernels named bad* fail to fetch; the others get an env file.
cat >"$R/selftests/vm/kernels.sh" <<'EOF'
. "$(dirname "$0")/common.sh"
[ "$1" != --arch ] || { echo amd64; exit 0; }
for w in "$@"; do
	case $w in bad*) FT_TAG=$w die "stub: cannot fetch $w" ;; esac
	mkdir -p "$CACHE/kernels/$w"
	printf 'KVER=%s-stub\nBUILD=host\nKDIR=/nonexistent\nPKG_VERSION=0\n' "$w" >"$(kernel_env "$w")"
done
EOF
# Every test passes; STUB_CONSOLE is added to the console.
cat >"$R/selftests/vm/boot.sh" <<'EOF'
echo "$1" >>"$FT_CACHE/boots"
dir=$2 n=0
shift 2
while [ $# -gt 0 ]; do [ "$1" = --tests ] && tests=$2; shift; done
printf 'booted\n%s\n' "${STUB_CONSOLE:-}" >"$dir/console.log"
{
	echo "TAP version 13"
	for t in $(tr ',' ' ' <<<"$tests") dmesg-clean; do
		n=$((n + 1))
		echo "ok $n $t"
	done
} >"$dir/ktap.log"
EOF

# run NAME SCRIPT ARGS...: the stub tree's SCRIPT, output in $T/NAME.out,
# exit status in $T/NAME.rc, its cache $T/NAME.
run() {
	local name=$1 script=$2 rc=0
	shift 2
	mkdir -p "$T/$name"
	FT_CACHE=$T/$name SMP=${SMP:-0} FT_DEB_KERNELS='' YNL_KERNELS='' SOAK_SECONDS=1 \
		bash "$R/selftests/vm/$script" "$@" >"$T/$name.out" 2>&1 </dev/null || rc=$?
	echo "$rc" >"$T/$name.rc"
}
rc_is() { [ "$(cat "$T/$1.rc")" = "$2" ]; }
rc_not() { [ "$(cat "$T/$1.rc")" != "$2" ]; }
# kept NAME GLOB TEXT: a log under NAME's $CACHE/logs matching GLOB has TEXT.
# shellcheck disable=SC2086 # GLOB
kept() { grep -qF -- "$3" "$T/$1/logs/"$2 2>/dev/null; }

run good check.sh --kernels good
check "check.sh: a kernel that passes passes" rc_is good 0
check "check.sh: ... with its results" has "$T/good.out" "[good]  ok      beta"
check "check.sh: ... and its summary" has "$T/good.out" "3 passed, 0 failed"

run check check.sh --kernels "bad good"
check "check.sh: a kernel that failed to prepare fails the run" rc_not check 0
check "check.sh: ... with a prepare failure line" has "$T/check.out" "[bad]  FAIL    prepare:"
check "check.sh: ... showing its error" has "$T/check.out" "| [bad] error: stub: cannot fetch bad"
check "check.sh: ... its prepare log kept in \$CACHE/logs" kept check 'bad-*.log' "stub: cannot fetch bad"
check "check.sh: the other kernel's results are printed" has "$T/check.out" "[good]  ok      alpha"
check "check.sh: ... and in the table" has "$T/check.out" "| good | good-stub | 0 | 3 | 0 |"
check "check.sh: ... and counted" has "$T/check.out" "3 passed, 1 failed"
check "check.sh: no missing files on the way" hasnt "$T/check.out" "No such file"

# The matrix: the core tests on every kernel, each other test on exactly
# one of them.
STUB_TESTS="alpha beta gamma delta module_load fault_rmmod fastpath_xdp" run matrix check.sh --matrix --kernels "5.10 6.1 6.12 7.2 other"
check "check.sh --matrix: passes" rc_is matrix 0
# on TEST: the kernels that ran TEST, in order.
on() { sed -n "s/^\[\([0-9a-z.]*\)\]  ok      $1\$/\1/p" "$T/matrix.out" | xargs; }
check "check.sh --matrix: a core test runs on every kernel" test "$(on module_load)" = "5.10 6.1 6.12 7.2 other"
check "check.sh --matrix: a pinned test runs on its kernels only" test "$(on fastpath_xdp)" = "6.1 6.12"
check "check.sh --matrix: another platform runs the smoke set" test "$(on fault_rmmod)" = "5.10 other"
check "check.sh --matrix: ... only" test "$(on gamma)" != "other"
for t in alpha beta gamma delta; do
	check "check.sh --matrix: $t runs on one kernel" \
		grep -qxE '5\.10|6\.1|6\.12|7\.2' <<<"$(on "$t")"
done
check "check.sh --matrix: the shards differ" \
	test "$(for t in alpha beta gamma delta; do on "$t"; done | sort -u | wc -l)" = 4
check "check.sh --matrix: ... and are counted" has "$T/matrix.out" "18 passed, 0 failed"
# One at a time (FT_JOBS=1): 7.2, with the netfilter suite, the longest
# boot, prepares and boots first, not left to the end.
STUB_TESTS="alpha beta module_load kernel_netfilter fastpath_xdp" FT_JOBS=1 run order check.sh --matrix --kernels "5.10 6.1 6.12 7.2 other"
check "check.sh --matrix: the kernel with the longest boot (the netfilter suite) boots first" \
	test "$(head -n 1 "$T/order/boots")" = 7.2
# A pinned test (the kernel's netfilter suite, on the kernel whose turn
# knf.sh says it is) runs on its kernel only, and the others are dealt as
# before.
pinned_tests="alpha beta gamma kernel_netfilter delta module_load fault_rmmod fastpath_xdp"
STUB_TESTS=$pinned_tests run pin check.sh --matrix --kernels "5.10 6.1 6.12 7.2 other"
pinned() { sed -n "s/^\[\([0-9a-z.]*\)\]  ok      $1\$/\1/p" "$T/${2:-pin}.out" | xargs; }
check "check.sh --matrix: kernel_netfilter runs on the kernel of its turn only" \
	test "$(pinned kernel_netfilter)" = 7.2
STUB_KNF_KERNEL=6.12 STUB_TESTS=$pinned_tests run pin612 check.sh --matrix --kernels "5.10 6.1 6.12 7.2 other"
check "check.sh --matrix: ... 6.12 when it is 6.12's turn" test "$(pinned kernel_netfilter pin612)" = 6.12
check "check.sh --matrix: the XDP tier's tests run on 6.1 and the other of 6.12 and 7.2" \
	test "$(pinned fastpath_xdp) $(pinned fastpath_xdp pin612)" = "6.1 6.12 6.1 7.2"
check "check.sh --matrix: ... and deals the others as without it" \
	test "$(for t in alpha beta gamma delta; do pinned "$t"; done)" = \
	"$(for t in alpha beta gamma delta; do on "$t"; done)"
run full check.sh --kernels "5.10 6.1"
check "check.sh without --matrix: every test on every kernel" test "$(sed -n 's/^\[\([0-9.]*\)\]  ok      beta$/\1/p' "$T/full.out" | xargs)" = "5.10 6.1"
# The boots with two vCPUs: a race test runs on every kernel, in the
# multi-threaded boot where there is one and in no other boot there.
STUB_TESTS="module_load alpha fastpath_table_resize fastpath_close_race" SMP=1 \
	run cpus check.sh --matrix --kernels "5.10 6.1 6.12 7.2"
check "check.sh, 2 vCPUs: passes" rc_is cpus 0
# runs TEST: the runs of TEST, in order.
runs() { sed -n "s/^\[\([0-9a-z.-]*\)\]  ok      $1\$/\1/p" "$T/cpus.out" | xargs; }
check "check.sh, 2 vCPUs: a resize in the 2-vCPU boot, multi-threaded on 6.12" \
	test "$(runs fastpath_table_resize)" = "5.10-smp 6.1-smp 6.12-mttcg 7.2-smp"
check "check.sh, 2 vCPUs: ... the close race too" \
	test "$(runs fastpath_close_race)" = "5.10-smp 6.1-smp 6.12-mttcg 7.2-smp"
check "check.sh, 2 vCPUs: module_load in both single-threaded boots" \
	test "$(runs module_load | wc -w)" = 8
STUB_TESTS="module_load fastpath_table_resize" SMP=1 \
	run cpus1 check.sh --kernels 6.12 --test fastpath_table_resize
check "check.sh, 2 vCPUs: one race test on 6.12 boots only the multi-threaded guest" \
	test "$(sed -n 's/^\[\([0-9a-z.-]*\)\]  ok      fastpath_table_resize$/\1/p' "$T/cpus1.out" | xargs)" = 6.12-mttcg
STUB_TESTS="module_load fastpath_table_resize" run cpus0 check.sh --kernels 6.12
check "check.sh, SMP=0: the resize runs on one vCPU then" \
	has "$T/cpus0.out" "[6.12]  ok      fastpath_table_resize"

# A splat, a kmemleak report: the tests passed, the run fails.
STUB_CONSOLE="[ 64.3] WARNING: CPU: 0 PID: 13 at kmod/table.c:1 stub+0x1/0x2 [fasttrack]" \
	run splat check.sh --kernels good
check "check.sh: a splat on the console fails a run whose tests passed" rc_not splat 0
check "check.sh: ... as a console splat, with its line" has "$T/splat.out" "[good]  FAIL    console: kernel splat"
check "check.sh: ... and shows it" has "$T/splat.out" "WARNING: CPU: 0 PID: 13 at kmod/table.c:1"
STUB_CONSOLE="unreferenced object 0xffff888004b6c000 (size 64):" run leak check.sh --kernels good
check "check.sh: a kmemleak report fails the run" rc_not leak 0
check "check.sh: ... as a console splat" has "$T/leak.out" "[good]  FAIL    console: kernel splat"

# The debug kernel in CI: the real list and rotation, no guest.
plan() {
	local name=$1 rc=0
	shift
	FT_CACHE=$T/ci bash "$VM/debug-ci.sh" --plan "$@" >"$T/$name.out" 2>&1 || rc=$?
	echo "$rc" >"$T/$name.rc"
}
plan ci
plan ci-slot --slot 1
FT_DEBUG_CI_SECONDS=100000 FT_DEBUG_CI_GUESTS=2 plan ci-one
# guests NAME: each guest of each slot, "SECONDS TEST...", one a line.
guests() {
	sed -n 's/^[ *] slot [0-9]*: //p' "$T/$1.out" | tr '|' '\n' |
		sed 's/^ *\[~\([0-9]*\) s[^]]*\] */\1 /'
}
slot_tests() { guests "$1" | cut -d' ' -f2- | xargs -n1; }
slots=$(sed -n 's/^debug kernel in CI: [0-9]* tests, \([0-9]*\) slots.*/\1/p' "$T/ci.out")
listed=$(sed -n 's/^debug kernel in CI: \([0-9]*\) tests.*/\1/p' "$T/ci.out")
budget=$(sed -n 's/.* up to ~\([0-9]*\) s of tests each$/\1/p' "$T/ci.out")
count=$(git -C "$VM" rev-list --count --first-parent HEAD 2>/dev/null || echo none)
check "debug-ci.sh --plan: prints the rotation" rc_is ci 0
check "debug-ci.sh: every listed test is in exactly one slot" \
	test "$(slot_tests ci | sort -u | wc -l)" = "$listed" -a "$(slot_tests ci | wc -l)" = "$listed"
check "debug-ci.sh: ... among them the fault tests, NFQUEUE and the resize" \
	test "$(slot_tests ci | grep -cxE 'fault_rmmod|fault_netns_delete|fastpath_nfqueue|fastpath_table_resize')" = 4
check "debug-ci.sh: ... and the never-stale tests" test "$(slot_tests ci | grep -cx fastpath_ct_delete)" = 1
check "debug-ci.sh: ... but not one that is excluded" test "$(slot_tests ci | grep -cx fastpath_route_revalidate)" = 0
check "debug-ci.sh: no guest gets more than its seconds, unless one test does" \
	test "$(guests ci | awk -v b="$budget" '$1 > b && NF > 2' | wc -l)" = 0
check "debug-ci.sh: the race tests boot with two vCPUs" \
	grep -qE '\[~[0-9]+ s, 2 vCPUs\][a-z_ ]* fastpath_table_resize' "$T/ci.out"
check "debug-ci.sh: the commit's first-parent count picks the slot" \
	has "$T/ci.out" "this run: slot $((count % ${slots:-1})) of $slots ("
check "debug-ci.sh: ... and the run is that slot's" \
	test "$(sed -n 's/^this run: [^)]*): //p' "$T/ci.out")" = "$(sed -n 's/^\* slot [0-9]*: //p' "$T/ci.out")"
check "debug-ci.sh: --slot takes another" has "$T/ci-slot.out" "this run: slot 1 of $slots (slot chosen)"
check "debug-ci.sh: all in one slot of two guests when the seconds allow" has "$T/ci-one.out" "this run: slot 0 of 1 "
check "debug-ci.sh: one guest a slot, beside make check" \
	test "$(grep -c '^[ *] slot [0-9]*: .*|' "$T/ci.out")" = 0 -a "$(guests ci | wc -l)" = "$slots"
nobuild_rc=0
FT_CACHE=$T/nobuild FT_DEBUG_KERNEL_DIR=none bash "$VM/debug-kernel.sh" check --no-build \
	--test fault_rmmod >"$T/nobuild.out" 2>&1 || nobuild_rc=$?
check "debug-kernel.sh check --no-build: no kernel without a build fails" test "$nobuild_rc" != 0
check "debug-kernel.sh check --no-build: ... and says why" has "$T/nobuild.out" \
	"no debug kernel for this debug.config"
check "debug-kernel.sh check --no-build: ... before any build" hasnt "$T/nobuild.out" ": building it"

# The kernel's netfilter suite in CI: the real scripts and rotation.
knf_rc=0
bash "$VM/knf.sh" --plan >"$T/knf.out" 2>&1 || knf_rc=$?
knf_slots() { sed -n 's/^  slot [0-9]*: [0-9]* //p' "$T/knf.out" | xargs -n1; }
knf_budget=$(sed -n 's/.* slots of at most \([0-9]*\) s .*/\1/p' "$T/knf.out")
check "knf.sh --plan: prints the rotation" test "$knf_rc" = 0
knf_out_of_ci() { sed -n "s/^not in CI's rotation (make check-netfilter runs them): //p" "$T/knf.out" | sed 's/^none$//' | xargs -r -n1; }
check "knf.sh: every script of the suite is in exactly one slot, or named as not in CI's" \
	test "$( (knf_slots; knf_out_of_ci) | sort)" = "$(bash "$VM/knf.sh" --list 2>/dev/null)"
check "knf.sh: ... among them the ICMP errors and NAT" \
	test "$(knf_slots | grep -cxE 'conntrack_icmp_related|nft_nat')" = 2
check "knf.sh: no slot over its seconds, unless one script is" \
	test "$(sed -n 's/^  slot [0-9]*: //p' "$T/knf.out" | awk -v b="$knf_budget" '$1 > b && NF > 2' | wc -l)" = 0
knf_kernels=$(bash "$VM/knf.sh" --kernels)
knf_nk=$(wc -w <<<"$knf_kernels")
check "knf.sh: the commit's first-parent count picks the kernel" \
	has "$T/knf.out" "one a commit; this commit: $(cut -d' ' -f$((count % knf_nk + 1)) <<<"$knf_kernels")"
check "knf.sh: ... and, past the kernel's turn, the slot" \
	has "$T/knf.out" "this commit: slot $((count / knf_nk % $(sed -n 's/.* in \([0-9]*\) slots .*/\1/p' "$T/knf.out")))"
check "rotate.sh: the commit's first-parent count picks one word in turn" \
	test "$(bash "$VM/rotate.sh" a b c)" = "$(cut -d' ' -f$((count % 3 + 1)) <<<"a b c")"
check "rotate.sh: ... and nothing of no word" test -z "$(bash "$VM/rotate.sh")"
# make_var VAR ARGS...: the Makefile's VAR with make's ARGS alone. Under
# make the caller's MAKEFLAGS would pass on its "w", whose "Entering
# directory" lines would be read as the value, and its command line's
# variables, which make also exports.
make_var() {
	local v=$1
	shift
	printf 'print:\n\t@echo $(%s)\n' "$v" |
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u T -u FULL -u KERNELS -u DKMS_KERNELS \
			make -s --no-print-directory -C "$VM/../.." -f Makefile -f - print "$@"
}
check "make check: the matrix boots one DKMS guest a commit, in turn" \
	test "$(FT_COMMIT_INDEX=0 make_var CHECK_DKMS_KERNELS) $(FT_COMMIT_INDEX=1 make_var CHECK_DKMS_KERNELS)" = "5.10 6.12"
check "make check-full: ... both" test "$(make_var CHECK_DKMS_KERNELS FULL=1)" = "5.10 6.12"
check "knf.sh: FT_KNF_SLOT=1 runs slot 1's scripts" \
	test "$(FT_KNF_ROTATE=1 FT_KNF_SLOT=1 bash "$VM/knf.sh" --scripts 2>/dev/null | xargs)" = \
	"$(sed -n 's/^  slot 1: [0-9]* //p' "$T/knf.out")"

run dkms dkms-vm.sh --kernels "bad good"
check "dkms-vm.sh: a kernel that failed to prepare fails the run" rc_not dkms 0
check "dkms-vm.sh: ... with a prepare failure line" has "$T/dkms.out" "[bad]  FAIL    prepare:"
check "dkms-vm.sh: ... its prepare log kept in \$CACHE/logs" kept dkms 'dkms-bad-*.log' "stub: cannot fetch bad"
check "dkms-vm.sh: the other kernel's results are printed" has "$T/dkms.out" "[good]  ok      dkms_install"
check "dkms-vm.sh: ... and counted" has "$T/dkms.out" "2 passed, 1 failed"

run soak soak.sh --kernels "bad good"
check "soak.sh: a kernel that failed to prepare fails the run" rc_not soak 0
check "soak.sh: ... with a prepare failure line" has "$T/soak.out" "[bad]  FAIL    prepare:"
check "soak.sh: ... its prepare log kept in \$CACHE/logs" kept soak 'soak-bad-*/prepare.log' "stub: cannot fetch bad"
check "soak.sh: the other kernel's results are printed" has "$T/soak.out" "[good]  ok      soak"
check "soak.sh: ... and the verdict" has "$T/soak.out" "soak failed"

# slot_user N LOG [PRIO]: takes a guest slot for a boot of PRIO seconds
# (default 0), then logs "N start", holds it for three seconds (waiters
# look once a second) and logs "N end" as it lets go.
slot_user() {
	(
		# shellcheck source=selftests/vm/common.sh
		. "$VM/common.sh"
		guest_slot "${3:-0}"
		echo "$1 start" >>"$2"
		sleep 3
		echo "$1 end" >>"$2"
	)
}
# serial LOG: no user started while another held its slot.
serial() { awk '$2 == "start" && held { bad = 1 } $2 == "start" { held = 1 } $2 == "end" { held = 0 } END { exit bad }' "$1"; }
overlap() { ! serial "$1"; }
slots=$T/slots
FT_GUEST_SLOTS=$slots FT_JOBS=1 slot_user 1 "$T/slot1.log" &
FT_GUEST_SLOTS=$slots FT_JOBS=1 slot_user 2 "$T/slot1.log" &
wait
check "guest_slot: runs sharing FT_GUEST_SLOTS with FT_JOBS=1 boot one at a time" serial "$T/slot1.log"
check "guest_slot: ... and both run" test "$(grep -c end "$T/slot1.log")" = 2
rm -rf "$slots"
FT_GUEST_SLOTS=$slots FT_JOBS=2 slot_user 1 "$T/slot2.log" &
FT_GUEST_SLOTS=$slots FT_JOBS=2 slot_user 2 "$T/slot2.log" &
wait
check "guest_slot: with FT_JOBS=2, two at once" overlap "$T/slot2.log"
# The queue: while 1 holds the one slot, 2 (a short boot) queues, then 3
# (a long one) and 4 (as long, later); a waiter that died, longer still,
# is passed over. The long boots go first, in the order they came.
rm -rf "$slots"
mkdir -p "$slots/wait"
sleep 0 &
dead=$!
wait "$dead"
: >"$slots/wait/00000000.1.$dead"
FT_GUEST_SLOTS=$slots FT_JOBS=1 slot_user 1 "$T/slotq.log" &
sleep 0.5
FT_GUEST_SLOTS=$slots FT_JOBS=1 slot_user 2 "$T/slotq.log" 100 &
sleep 0.5
FT_GUEST_SLOTS=$slots FT_JOBS=1 slot_user 3 "$T/slotq.log" 900 &
sleep 0.5
FT_GUEST_SLOTS=$slots FT_JOBS=1 slot_user 4 "$T/slotq.log" 900 &
wait
check "guest_slot: the longest boot waiting goes first, then as they came" \
	test "$(awk '$2 == "start" { print $1 }' "$T/slotq.log" | xargs)" = "1 3 4 2"
check "guest_slot: ... one at a time" serial "$T/slotq.log"

# together.sh: the second command waits for a file the first makes after
# it started, so they must run at once.
rc=0
timeout 20 bash "$VM/together.sh" "sleep 1; echo first; touch $T/tg-first" \
	"while [ ! -e $T/tg-first ]; do sleep 0.1; done; echo second; exit 3" \
	>"$T/together.out" 2>&1 || rc=$?
check "together.sh: a failing command fails it" test "$rc" = 1
check "together.sh: ... its commands ran at once" has "$T/together.out" "second"
check "together.sh: ... the second one's output after the first's" \
	test "$(grep -vx '==== .*' "$T/together.out" | head -n 2 | xargs)" = "first second"
check "together.sh: ... and each exit status" has "$T/together.out" ": exit 0;"
check "together.sh: ... the failed one's too" has "$T/together.out" ": exit 3"
rc=0
bash "$VM/together.sh" true true >/dev/null 2>&1 || rc=$?
check "together.sh: commands that pass pass" test "$rc" = 0

# boot.sh against a stand-in qemu-system-x86_64 that behaves as
# $T/qemu-mode says: "hang" prints a line and sleeps, "init" reaches init,
# stays silent 4 s and exits 0. It counts its starts in $T/qemu-starts.
mkdir -p "$T/qbin" "$T/qcache/kernels/fake" "$T/qout/initramfs"
cat >"$T/qbin/qemu-system-x86_64" <<'QEMU'
#!/bin/bash
console=
for a in "$@"; do
	case $a in file:*console.log) console=${a#file:} ;; esac
done
echo start >>"$QDIR/qemu-starts"
echo "[    1.117304] Running RCU-tasks wait API self tests" >"$console"
case $(cat "$QDIR/qemu-mode") in
hang) exec sleep 60 ;;
init) echo "[    2.000000] Run /init as init process" >>"$console"; sleep 4 ;;
esac
QEMU
chmod +x "$T/qbin/qemu-system-x86_64"
printf 'KVER=fake\nVMLINUZ=/dev/null\n' >"$T/qcache/kernels/fake/env"
: >"$T/qout/initramfs/fake.cpio.gz"
# fake_boot MODE: boot.sh with the stand-in in MODE; its status in
# $T/boot-MODE.rc, its output in $T/boot-MODE.out.
fake_boot() {
	local rc=0
	echo "$1" >"$T/qemu-mode"
	rm -f "$T/qemu-starts"
	PATH=$T/qbin:$PATH QDIR=$T FT_CACHE=$T/qcache FT_OUT=$T/qout FT_BOOT_SILENCE=4 \
		bash "$VM/boot.sh" fake "$T/boot-$1" --tests a >"$T/boot-$1.out" 2>&1 || rc=$?
	echo "$rc" >"$T/boot-$1.rc"
	cp "$T/qemu-starts" "$T/boot-$1.starts"
}
fake_boot hang
check "boot.sh: a boot silent before init is started again, once" test "$(wc -l <"$T/boot-hang.starts")" = 2
check "boot.sh: ... then fails as a timeout (124)" test "$(cat "$T/boot-hang.rc")" = 124
check "boot.sh: ... saying so" has "$T/boot-hang.out" "the guest hung before init twice"
check "boot.sh: ... and keeps both consoles" test -s "$T/boot-hang/console-hung2.log"
fake_boot init
check "boot.sh: a boot that reached init is not killed for silence" test "$(cat "$T/boot-init.rc")" = 0
check "boot.sh: ... nor started again" test "$(wc -l <"$T/boot-init.starts")" = 1

# bench/hostgen.c, make bench's generator on the host (BENCH_NIC=hostgen),
# against a stand-in for qemu (hostgen-test.py): one check a finding.
hostgen_rc=0
{ gcc -O2 -Wall -Wextra -Werror -o "$T/hostgen" "$VM/../../bench/hostgen.c" &&
	python3 "$VM/hostgen-test.py" "$T/hostgen"; } >"$T/hostgen.out" 2>&1 || hostgen_rc=$?
check "hostgen: builds, and its test runs to the end (exit $hostgen_rc)" \
	test "$hostgen_rc" = 0 -a "$(grep -c '^ok' "$T/hostgen.out")" -ge 10
while IFS=$'\t' read -r verdict finding _; do
	check "hostgen: $finding" test "$verdict" = ok
done < <(grep -E $'^(ok|FAIL)\t' "$T/hostgen.out")

if [ "$failed" -ne 0 ]; then
	for f in "$T"/*.out; do
		echo "==== $(basename "$f")"
		cat "$f"
	done
	echo "harness: $failed of $checks checks failed"
	exit 1
fi
echo "harness: all $checks checks passed"
