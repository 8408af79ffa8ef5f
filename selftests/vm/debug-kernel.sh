#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-debug`: the whole selftest suite on a debug kernel (KASAN,
# kmemleak, lockdep + PROVE_RCU, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, UBSAN),
# built once from Debian's linux-source and cached.
#
# usage: debug-kernel.sh build               build (or reuse) the kernel
#        debug-kernel.sh check [--test a,b]  build if needed, then run the suite
#                              [--shard a,b]... [--smp-shard a,b]...
#                                            or these tests, a guest per shard
#                                            (--smp-shard: two vCPUs only)
#        debug-kernel.sh check --if-cached   the same, but skip (exit 0) when
#                                            it would have to build
#        debug-kernel.sh check --no-build    the same, but fail when it would
#                                            have to build (CI: debug-ci.sh)
#        debug-kernel.sh check --no-skip     a skipped test fails the run
#        debug-kernel.sh pack DIR            a kernel built here, as a prebuilt
#                                            directory (below) in DIR
#
# Where the kernel comes from, printed either way:
# - prebuilt: a directory with the kernel built by this script elsewhere
#   (README.md, SHA256SUMS, vmlinuz-*, config-*, modules.tar.xz and
#   kbuild.tar.xz, the tree out-of-tree modules build against), taken when
#   its README names the sha256 of this debug.config and its SHA256SUMS
#   verify. Looked for in FT_DEBUG_KERNEL_DIR, then
#   ../shared/kernels/debug-6.1 beside the repository, then
#   /work/shared/kernels/debug-6.1 (for a clone elsewhere, as CI's).
#   Unpacked into $CACHE/debug-kernel/{root,kbuild} in seconds.
#   FT_DEBUG_KERNEL_DIR=none never takes one.
#   OOT_MODULES (below), which debug.config leaves out, are then built
#   against kbuild from the same source, out of tree.
# - built: the source from /usr/src/linux-source-6.1.tar.xz (the
#   linux-source-6.1 package; FT_DEBUG_KSRC=DIR|TARBALL takes another) is
#   unpacked into $CACHE/debug-kernel/linux, configured as `make allnoconfig`
#   plus selftests/vm/debug.config, and built there with `nice make`
#   (FT_JOBS, default nproc). The tree stays: out-of-tree modules build
#   against it (make -C $CACHE/debug-kernel/linux M=...). Editing
#   debug.config rebuilds incrementally. Its packages (compiler tools,
#   linux-source-6.1) come through deps.sh. OOT_MODULES that the config
#   lacks are built against the tree too.
# Either is registered as the kernel word "debug"
# ($CACHE/kernels/debug/env), so the usual harness (check.sh --kernels
# debug) builds fasttrack.ko against it, packs the initramfs and boots it.
#
# The run: check.sh with more guest memory (KASAN's shadow) and a long
# timeout (FT_TIMEOUT, default 5400 s), in FT_SHARDS guests at once. Any
# failed test fails the run, and so does any splat on the console
# (ktap.sh greps FT_SPLAT_RE). The guest's init scans kmemleak after the
# tests and prints its report on the console, so an "unreferenced object"
# fails the run too.
set -eu -o pipefail
. "$(dirname "$0")/common.sh"
FT_TAG=debug

DK=$CACHE/debug-kernel
SRC=$DK/linux
ROOT=$DK/root
FRAGMENT=$VM_DIR/debug.config
KSRC=${FT_DEBUG_KSRC:-/usr/src/linux-source-6.1.tar.xz}
KBUILD=$DK/kbuild
# What building the kernel needs besides the harness's own packages.
BUILD_DEPS="flex bison libelf-dev libssl-dev bc"
# Modules the tests need beyond debug.config, as CONFIG symbol:source file.
# Where the kernel's config has the symbol neither =y nor =m, oot_modules()
# builds them out of tree from the same source against the kernel's kbuild
# tree, so that the prebuilt kernel serves without a rebuild. Everything
# they call is exported by the built-in netfilter core, or modpost fails.
# nfnetlink_queue, nft_queue: fastpath_nfqueue (NFQUEUE verdicts reinject
# from process context); the test loads them. sch_prio: fastpath_tos's
# qdisc, which tc loads.
OOT_MODULES="NETFILTER_NETLINK_QUEUE:net/netfilter/nfnetlink_queue.c NFT_QUEUE:net/netfilter/nft_queue.c
	NET_SCH_PRIO:net/sched/sch_prio.c"

# oot_key: what the out-of-tree modules depend on besides the kernel.
oot_key() {
	echo "$OOT_MODULES $KSRC $(stat -c %s "$KSRC" 2>/dev/null || echo 0)" |
		sha256sum | cut -d' ' -f1
}

# cache_key: what the kernel built here depends on.
cache_key() {
	{
		sha256sum <"$FRAGMENT"
		echo "$KSRC $(stat -c %s "$KSRC" 2>/dev/null || echo 0)"
		oot_key
	} | sha256sum | cut -d' ' -f1
}

# prebuilt_key DIR: what a kernel unpacked from DIR depends on.
prebuilt_key() {
	echo "prebuilt $(sha256sum <"$1/SHA256SUMS" | cut -d' ' -f1) $(oot_key)"
}

# fragment_sum: the sha256 of debug.config, as a prebuilt README names it.
fragment_sum() { sha256sum <"$FRAGMENT" | cut -d' ' -f1; }

# prebuilt_dir: the first prebuilt kernel directory found for this
# debug.config, or nothing. Says why it passes over one.
prebuilt_dir() {
	local d sum seen=' '
	[ "${FT_DEBUG_KERNEL_DIR:-}" != none ] || return 0
	sum=$(fragment_sum)
	for d in ${FT_DEBUG_KERNEL_DIR:+"$FT_DEBUG_KERNEL_DIR"} \
		"$REPO/../shared/kernels/debug-6.1" /work/shared/kernels/debug-6.1; do
		[ -f "$d/SHA256SUMS" ] || continue
		d=$(cd "$d" && pwd -P)
		[[ $seen != *" $d "* ]] || continue
		seen+="$d "
		if ! grep -Eq "debug\.config.*sha256: *$sum\b" "$d/README.md" 2>/dev/null; then
			log "prebuilt kernel in $d is not built from this debug.config ($sum)"
			continue
		fi
		echo "$d"
		return 0
	done
}

cached() {
	local stamp pre
	[ -f "$DK/stamp" ] && [ -f "$(kernel_env debug)" ] || return 1
	stamp=$(cat "$DK/stamp")
	[ "$stamp" != "$(cache_key)" ] || return 0
	pre=$(prebuilt_dir 2>/dev/null)
	[ -n "$pre" ] && [ "$stamp" = "$(prebuilt_key "$pre")" ]
}

# register KVER VMLINUZ KDIR: make it the kernel word "debug".
register() {
	mkdir -p "$CACHE/kernels/debug"
	cat >"$(kernel_env debug).tmp" <<-EOF
		KVER=$1
		ROOT=$ROOT
		VMLINUZ=$2
		KDIR=$3
		MODDIR=$ROOT/lib/modules/$1
	EOF
	mv "$(kernel_env debug).tmp" "$(kernel_env debug)"
}

# use_prebuilt DIR: unpack the prebuilt kernel in DIR, after checking its
# files against its SHA256SUMS.
use_prebuilt() {
	local dir=$1 vmlinuz kver
	log "prebuilt debug kernel in $dir: verifying SHA256SUMS"
	(cd "$dir" && sha256sum --quiet -c SHA256SUMS) >&2 ||
		die "prebuilt debug kernel in $dir does not match its SHA256SUMS"
	vmlinuz=$(find "$dir" -maxdepth 1 -name 'vmlinuz-*' | head -n 1)
	[ -n "$vmlinuz" ] || die "no vmlinuz-* in $dir"
	kver=${vmlinuz##*/vmlinuz-}
	# objtool in kbuild.tar.xz links libelf.
	bash "$VM_DIR/deps.sh" libelf1
	mkdir -p "$DK"
	rm -f "$DK/stamp" "$(kernel_env debug)"
	rm -rf "$ROOT" "$KBUILD"
	mkdir -p "$ROOT/boot" "$KBUILD"
	cp "$vmlinuz" "$ROOT/boot/"
	cp "$dir/config-$kver" "$ROOT/boot/"
	tar -C "$ROOT" -xJf "$dir/modules.tar.xz"
	tar -C "$KBUILD" -xJf "$dir/kbuild.tar.xz"
	[ -d "$ROOT/lib/modules/$kver" ] || die "no lib/modules/$kver in $dir/modules.tar.xz"
	[ -f "$KBUILD/Makefile" ] || die "no kernel Makefile in $dir/kbuild.tar.xz"
	[ -f "$ROOT/lib/modules/$kver/modules.dep" ] || depmod -b "$ROOT" "$kver"
	oot_modules "$kver" "$KBUILD"
	register "$kver" "$ROOT/boot/vmlinuz-$kver" "$KBUILD"
	prebuilt_key "$dir" >"$DK/stamp"
	log "debug kernel $kver: prebuilt, from $dir"
}

# need_ksrc: the kernel source, installed if it is the package's.
need_ksrc() {
	if [ ! -e "$KSRC" ] && [ -z "${FT_DEBUG_KSRC:-}" ]; then
		bash "$VM_DIR/deps.sh" linux-source-6.1 || die "cannot install linux-source-6.1"
	fi
	[ -e "$KSRC" ] || die "no kernel source at $KSRC"
}

# oot_modules KVER KDIR: build the OOT_MODULES that KDIR's .config lacks,
# from $SRC when the kernel was built there, else from $KSRC, against KDIR
# in $DK/oot; install them where an in-tree build would
# ($ROOT/lib/modules/KVER/kernel/...), so that the initramfs takes them
# (initramfs.sh's MODULE_DIRS) and the guest's modprobe finds them.
oot_modules() {
	local kver=$1 kdir=$2 dir=$DK/oot m sym path names='' paths=() tmp
	for m in $OOT_MODULES; do
		sym=${m%%:*} path=${m#*:}
		grep -Eq "^CONFIG_$sym=[ym]" "$kdir/.config" && continue
		paths+=("$path")
		names+=" $(basename "$path" .c)"
	done
	[ ${#paths[@]} -gt 0 ] || return 0
	log "building out of tree, against $kdir:$names"
	rm -rf "$dir"
	mkdir -p "$dir"
	if [ "$kdir" = "$SRC" ]; then
		for path in "${paths[@]}"; do cp "$SRC/$path" "$dir/"; done
	else
		need_ksrc
		if [ -d "$KSRC" ]; then
			for path in "${paths[@]}"; do cp "$KSRC/$path" "$dir/"; done
		else
			tmp=$dir/src
			mkdir "$tmp"
			tar -C "$tmp" -xf "$KSRC" --wildcards "${paths[@]/#/*/}"
			for path in "${paths[@]}"; do
				find "$tmp" -path "*/$path" -exec cp {} "$dir/" \;
			done
			rm -rf "$tmp"
		fi
	fi
	echo "obj-m :=$(for m in $names; do printf ' %s.o' "$m"; done)" >"$dir/Kbuild"
	if ! make -C "$kdir" M="$dir" modules >"$dir/build.log" 2>&1; then
		tail -n 30 "$dir/build.log" >&2
		die "out-of-tree modules failed to build (log: $dir/build.log)"
	fi
	for path in "${paths[@]}"; do
		m=$(basename "$path" .c)
		mkdir -p "$ROOT/lib/modules/$kver/kernel/$(dirname "$path")"
		cp "$dir/$m.ko" "$ROOT/lib/modules/$kver/kernel/$(dirname "$path")/"
	done
	depmod -b "$ROOT" "$kver"
}

unpack() {
	local tmp=$DK/unpack.tmp top
	need_ksrc
	rm -rf "$tmp" "$SRC"
	mkdir -p "$tmp"
	if [ -d "$KSRC" ]; then
		log "copying the kernel source from $KSRC"
		cp -a "$KSRC" "$tmp/src"
	else
		log "unpacking $KSRC"
		tar -C "$tmp" -xf "$KSRC"
	fi
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[ -f "$top/Makefile" ] || die "no kernel tree in $KSRC"
	mv "$top" "$SRC"
	rm -rf "$tmp"
}

# configure: allnoconfig + the fragment, then check that every line of the
# fragment made it (Kconfig silently drops what it cannot satisfy).
configure() {
	local line sym want got bad=
	make -C "$SRC" -s ARCH=x86_64 KCONFIG_ALLCONFIG="$FRAGMENT" allnoconfig
	make -C "$SRC" -s ARCH=x86_64 olddefconfig
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) sym=${line%%=*} want=$line ;;
		"# CONFIG_"*" is not set") sym=${line#\# } sym=${sym%% *} want= ;;
		*) continue ;;
		esac
		got=$(grep -E "^$sym=" "$SRC/.config" || true)
		[ "$got" = "$want" ] || bad+=" $sym (want '${want:-unset}', got '${got:-unset}')"
	done <"$FRAGMENT"
	[ -z "$bad" ] || die "debug.config did not apply:$bad"
}

build() {
	local start=$SECONDS kver pre
	if cached; then
		# shellcheck disable=SC2153 # KVER comes from the env file
		kver=$(load_kernel debug && echo "$KVER")
		grep -q '^prebuilt ' "$DK/stamp" && pre=prebuilt || pre='built here'
		log "debug kernel cached: $kver ($pre)"
		return 0
	fi
	pre=$(prebuilt_dir)
	if [ -n "$pre" ]; then
		use_prebuilt "$pre"
		return 0
	fi
	log "no prebuilt debug kernel for this debug.config: building it"
	# shellcheck disable=SC2086 # a list of packages
	bash "$VM_DIR/deps.sh" $BUILD_DEPS
	mkdir -p "$DK"
	rm -f "$DK/stamp" "$(kernel_env debug)"
	[ -f "$SRC/Makefile" ] || unpack
	log "configuring (allnoconfig + debug.config)"
	configure
	log "building with $(nproc) CPUs at nice 15 (log: $DK/build.log); this takes long"
	if ! nice -n 15 make -C "$SRC" ARCH=x86_64 -j"${FT_JOBS:-$(nproc)}" all >"$DK/build.log" 2>&1; then
		tail -n 40 "$DK/build.log" >&2
		die "kernel build failed (log: $DK/build.log)"
	fi
	kver=$(make -C "$SRC" -s kernelrelease)
	rm -rf "$ROOT"
	mkdir -p "$ROOT/boot"
	make -C "$SRC" -s ARCH=x86_64 INSTALL_MOD_PATH="$ROOT" modules_install >>"$DK/build.log" 2>&1 ||
		die "modules_install failed (log: $DK/build.log)"
	cp "$SRC/arch/x86/boot/bzImage" "$ROOT/boot/vmlinuz-$kver"
	cp "$SRC/.config" "$ROOT/boot/config-$kver"
	[ -f "$ROOT/lib/modules/$kver/modules.dep" ] || depmod -b "$ROOT" "$kver"
	oot_modules "$kver" "$SRC"
	register "$kver" "$ROOT/boot/vmlinuz-$kver" "$SRC"
	echo "$((SECONDS - start))" >"$DK/build-seconds"
	cache_key >"$DK/stamp"
	log "debug kernel $kver: built here in $((SECONDS - start)) s"
}

# deal TESTS: the tests (comma-separated) dealt round-robin to FT_SHARDS
# guests (default: the host's CPUs), one guest's list a line. A guest of
# this kernel keeps one CPU busy for an hour or more: one per CPU halves
# the wall time on a 2-CPU host without slowing the tests' streams.
deal() {
	local n=${FT_SHARDS:-$(nproc)} i=0 t
	local -a part
	for t in $(tr ',' ' ' <<<"$1"); do
		part[i % n]+="$t,"
		i=$((i + 1))
	done
	for i in "${!part[@]}"; do
		echo "${part[i]%,}"
	done
}

# run_shards SHARD...: a guest per SHARD, all at once, each a check.sh of
# its own with its own kmemleak scan at the end; one summary line for
# all. A SHARD is a list of tests (one vCPU, then the 2-vCPU boot for
# check.sh's SMP_TESTS among them), or "smp:" and a list (two vCPUs only).
# With NO_SKIP, a skipped test fails the run: CI's list holds only tests
# that run on this kernel.
run_shards() {
	local -a shards=("$@") opt
	local i t dir rc=0 p f s passed=0 failed=0 skipped=0
	dir=$(mktemp -d)
	for i in "${!shards[@]}"; do
		t=${shards[i]} opt=()
		if [[ $t == smp:* ]]; then
			t=${t#smp:} opt=(--smp-only)
		fi
		sleep 1 # check.sh names its kept logs by the second
		log "shard $((i + 1)) of ${#shards[@]}${opt[*]:+, two vCPUs}: $t"
		# A work dir each: check.sh builds, boots and judges in its
		# FT_OUT, under the same names for every shard, and removes it.
		FT_OUT=${FT_OUT:+$FT_OUT/shard-$i} \
			bash "$VM_DIR/check.sh" --kernels debug --test "$t" "${opt[@]}" |
			tee "$dir/$i.out" &
	done
	for i in "${!shards[@]}"; do
		wait -n || rc=1
	done
	for i in "${!shards[@]}"; do
		p=0 f=1 s=0 # a shard that printed no summary failed
		if [[ $(tail -n 1 "$dir/$i.out") =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
			p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
		fi
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	done
	echo "debug kernel, all shards: $passed passed, $failed failed, $skipped skipped"
	if [ -n "${NO_SKIP:-}" ] && [ "$skipped" -gt 0 ]; then
		grep -h '^\[debug[a-z-]*\]  skip ' "$dir"/*.out || true
		echo "a skipped test fails this run: it is listed to run on the debug kernel"
		rc=1
	fi
	rm -rf "$dir"
	return "$rc"
}

# pack DIR: the kernel built here, in DIR as a prebuilt kernel that
# use_prebuilt() takes. kbuild.tar.xz is the file set of Debian's
# linux-headers packages (scripts/package/builddeb of 6.1).
pack() {
	local dir=$1 kver tmp
	[ -n "$dir" ] || die "usage: debug-kernel.sh pack DIR"
	[ "$(cat "$DK/stamp" 2>/dev/null)" = "$(cache_key)" ] ||
		die "no kernel built here for this debug.config: run 'debug-kernel.sh build' with FT_DEBUG_KERNEL_DIR=none"
	kver=$(load_kernel debug && echo "$KVER")
	mkdir -p "$dir"
	tmp=$(mktemp -d)
	cp "$ROOT/boot/vmlinuz-$kver" "$ROOT/boot/config-$kver" "$dir/"
	tar -C "$ROOT" --exclude="lib/modules/$kver/build" --exclude="lib/modules/$kver/source" \
		-cJf "$dir/modules.tar.xz" lib
	mkdir "$tmp/kbuild"
	(
		cd "$SRC"
		{
			find . arch/x86 -maxdepth 1 -name 'Makefile*'
			find include scripts -type f -o -type l
			find arch/x86 -name Kbuild.platforms -o -name Platform
			# shellcheck disable=SC2046 # directories without blanks
			find $(find arch/x86 -name include -o -name scripts -type d) -type f
		} | tar -c -T - | tar -C "$tmp/kbuild" -x
		{
			! grep -q '^CONFIG_OBJTOOL=y' .config || echo tools/objtool/objtool
			find arch/x86/include Module.symvers include scripts -type f
		} | tar -c -T - | tar -C "$tmp/kbuild" -x
		cp .config "$tmp/kbuild/.config"
	)
	tar -C "$tmp/kbuild" -cJf "$dir/kbuild.tar.xz" .
	rm -rf "$tmp"
	cat >"$dir/README.md" <<-EOF
		# Debug kernel $kver

		Built by \`selftests/vm/debug-kernel.sh build\` and packed by \`debug-kernel.sh pack\`
		at commit $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown):
		- source: $KSRC ($(stat -c %s "$KSRC" 2>/dev/null || echo '?') bytes);
		- \`selftests/vm/debug.config\` sha256: $(fragment_sum)
		- build time: $(cat "$DK/build-seconds" 2>/dev/null || echo '?') s.

		\`kbuild.tar.xz\` is the tree fasttrack.ko builds against:
		\`make -C <extracted> M=<module source> modules\`.
	EOF
	(cd "$dir" && sha256sum "vmlinuz-$kver" "config-$kver" kbuild.tar.xz modules.tar.xz >SHA256SUMS)
	log "packed debug kernel $kver into $dir"
}

# The main part is one block, read before it runs: editing this file
# during a (long) run cannot derail that run.
{
cmd=${1:-check}
[ $# -eq 0 ] || shift
case $cmd in
build)
	build
	;;
pack)
	pack "${1:-}"
	;;
check)
	tests='' if_cached='' no_build='' shards=()
	while [ $# -gt 0 ]; do
		case $1 in
		--test) tests=$2; shift ;;
		--shard) shards+=("$2"); shift ;;
		--smp-shard) shards+=("smp:$2"); shift ;;
		--if-cached) if_cached=1 ;;
		--no-build) no_build=1 ;;
		--no-skip) NO_SKIP=1 ;;
		*) die "usage: debug-kernel.sh check [--test a,b] [--shard a,b]... [--smp-shard a,b]... [--if-cached | --no-build] [--no-skip]" ;;
		esac
		shift
	done
	# Skip, or fail, only what would mean the long build: a prebuilt
	# kernel is unpacked in seconds.
	if [ -n "$if_cached$no_build" ] && ! cached && [ -z "$(prebuilt_dir)" ]; then
		if [ -n "$no_build" ]; then
			die "no debug kernel for this debug.config ($(fragment_sum)) without building it" \
				"(25 minutes or more): a changed debug.config needs a new prebuilt kernel," \
				"'FT_DEBUG_KERNEL_DIR=none $0 build', then '$0 pack DIR' (README-debug.md)"
		fi
		log "SKIP: no cached debug kernel in $DK and no prebuilt one (run 'make check-debug' once to build it)"
		exit 0
	fi
	build
	# KASAN's shadow takes an eighth of the memory, kmemleak and lockdep
	# more; everything runs several times slower than on a stock kernel,
	# so each test gets 15 minutes (KSFT_TIMEOUT, handed to the guest's
	# init through the kernel command line) instead of 10, and the tests'
	# own timeouts are multiplied by FT_SLOWDOWN (selftests/lib.sh), and
	# a boot's expected length by FT_GUEST_SCALE (the guest queue's order,
	# boot.sh: about 4 times a release kernel's, fault_dev_delete's 179 s
	# against 39 s).
	export FT_MEM=${FT_MEM:-3072} FT_TIMEOUT=${FT_TIMEOUT:-5400} FT_GUEST_SCALE=${FT_GUEST_SCALE:-4}
	export FT_APPEND=${FT_APPEND:-KSFT_TIMEOUT=900 FT_SLOWDOWN=${FT_SLOWDOWN:-4}}
	if [ -n "$tests" ] || [ ${#shards[@]} -eq 0 ]; then
		[ "${FT_SHARDS:-1}" -ge 1 ] 2>/dev/null || die "FT_SHARDS must be a number of guests, 1 or more"
		mapfile -t -O ${#shards[@]} shards < <(deal "${tests:-$(sh "$REPO/selftests/run_tests.sh" --list)}")
	fi
	[ ${#shards[@]} -gt 0 ] || die "no test to run"
	run_shards "${shards[@]}"
	;;
*)
	die "usage: debug-kernel.sh build | check [--test a,b] [--shard a,b]... [--smp-shard a,b]... [--if-cached | --no-build] [--no-skip] | pack DIR"
	;;
esac
exit
}
