#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-debug`: the whole selftest suite on a debug kernel (KASAN,
# kmemleak, lockdep + PROVE_RCU, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, UBSAN),
# built once from Debian's linux-source and cached.
#
# usage: debug-kernel.sh build               build (or reuse) the kernel
#        debug-kernel.sh check [--test a,b]  build if needed, then run the suite
#        debug-kernel.sh check --if-cached   the same, but skip (exit 0) when
#                                            no kernel is cached (for CI)
#
# The build: the source from /usr/src/linux-source-6.1.tar.xz (the
# linux-source-6.1 package; FT_DEBUG_KSRC=DIR|TARBALL takes another) is
# unpacked into $CACHE/debug-kernel/linux, configured as `make allnoconfig`
# plus selftests/vm/debug.config, and built there with `nice make`
# (FT_JOBS, default nproc). The tree stays: out-of-tree modules build
# against it (make -C $CACHE/debug-kernel/linux M=...). Editing
# debug.config rebuilds incrementally. The result is registered as the
# kernel word "debug" ($CACHE/kernels/debug/env), so the usual harness
# (check.sh --kernels debug) builds fasttrack.ko against it, packs the
# initramfs and boots it.
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

# cache_key: what the cached kernel depends on.
cache_key() {
	{
		sha256sum <"$FRAGMENT"
		echo "$KSRC $(stat -c %s "$KSRC" 2>/dev/null || echo 0)"
	} | sha256sum | cut -d' ' -f1
}

cached() {
	[ -f "$DK/stamp" ] && [ "$(cat "$DK/stamp")" = "$(cache_key)" ] &&
		[ -f "$(kernel_env debug)" ]
}

unpack() {
	local tmp=$DK/unpack.tmp top
	if [ ! -e "$KSRC" ] && [ -z "${FT_DEBUG_KSRC:-}" ]; then
		log "installing linux-source-6.1 (for $KSRC)"
		DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
			linux-source-6.1 >/dev/null || die "cannot install linux-source-6.1"
	fi
	[ -e "$KSRC" ] || die "no kernel source at $KSRC"
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
	local start=$SECONDS kver
	if cached; then
		log "debug kernel cached: $(. "$(kernel_env debug)" && echo "$KVER")"
		return 0
	fi
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
	mkdir -p "$CACHE/kernels/debug"
	cat >"$(kernel_env debug).tmp" <<-EOF
		KVER=$kver
		ROOT=$ROOT
		VMLINUZ=$ROOT/boot/vmlinuz-$kver
		KDIR=$SRC
		MODDIR=$ROOT/lib/modules/$kver
	EOF
	mv "$(kernel_env debug).tmp" "$(kernel_env debug)"
	echo "$((SECONDS - start))" >"$DK/build-seconds"
	cache_key >"$DK/stamp"
	log "debug kernel $kver built in $((SECONDS - start)) s"
}

# run_shards TESTS: the tests split over FT_SHARDS guests (default: the
# host's CPUs) that run at once, each a check.sh of its own with its own
# kmemleak scan at the end; one summary line for all. A guest of this
# kernel keeps one CPU busy for an hour or more: one per CPU halves the
# wall time on a 2-CPU host without slowing the tests' streams.
run_shards() {
	local n=${FT_SHARDS:-$(nproc)} i=0 t dir rc=0 p f passed=0 failed=0
	local -a part
	[ "$n" -ge 1 ] 2>/dev/null || die "FT_SHARDS must be a number of guests, 1 or more"
	for t in $(tr ',' ' ' <<<"$1"); do
		part[i % n]+="$t,"
		i=$((i + 1))
	done
	dir=$(mktemp -d)
	for i in "${!part[@]}"; do
		sleep 1 # check.sh names its kept logs by the second
		log "shard $((i + 1)) of ${#part[@]}: ${part[i]%,}"
		bash "$VM_DIR/check.sh" --kernels debug --test "${part[i]%,}" |
			tee "$dir/$i.out" &
	done
	for i in "${!part[@]}"; do
		wait -n || rc=1
	done
	for i in "${!part[@]}"; do
		p=0 f=1 # a shard that printed no summary failed
		if [[ $(tail -n 1 "$dir/$i.out") =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
			p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
		fi
		passed=$((passed + p)) failed=$((failed + f))
	done
	rm -rf "$dir"
	echo "debug kernel, all shards: $passed passed, $failed failed"
	return "$rc"
}

cmd=${1:-check}
[ $# -eq 0 ] || shift
case $cmd in
build)
	build
	;;
check)
	tests= if_cached=
	while [ $# -gt 0 ]; do
		case $1 in
		--test) tests=$2; shift ;;
		--if-cached) if_cached=1 ;;
		*) die "usage: debug-kernel.sh check [--test a,b] [--if-cached]" ;;
		esac
		shift
	done
	if [ -n "$if_cached" ] && ! cached; then
		log "SKIP: no cached debug kernel in $DK (run 'make check-debug' once to build it)"
		exit 0
	fi
	build
	# KASAN's shadow takes an eighth of the memory, kmemleak and lockdep
	# more; everything runs several times slower than on a stock kernel,
	# so each test gets 15 minutes (KSFT_TIMEOUT, handed to the guest's
	# init through the kernel command line) instead of 10, and the tests'
	# own timeouts are multiplied by FT_SLOWDOWN (selftests/lib.sh).
	export FT_MEM=${FT_MEM:-3072} FT_TIMEOUT=${FT_TIMEOUT:-5400}
	export FT_APPEND=${FT_APPEND:-KSFT_TIMEOUT=900 FT_SLOWDOWN=${FT_SLOWDOWN:-4}}
	run_shards "${tests:-$(sh "$REPO/selftests/run_tests.sh" --list)}"
	;;
*)
	die "usage: debug-kernel.sh build | check [--test a,b] [--if-cached]"
	;;
esac
