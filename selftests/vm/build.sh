#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build fasttrack.ko against the headers of a fetched kernel, from a clean
# copy of the tree in $OUT/build/<kver>, at W=1. Any compiler warning fails.
#
# The selftests' module has the test hooks (kmod/testhooks.c); DKMS and
# "make module" builds never do.
#
# usage: build.sh WORD
# FT_SRC=DIR builds another tree with the same layout (Kbuild, kmod/, ...).
set -eu
. "$(dirname "$0")/common.sh"
. "$VM_DIR/arch.sh"

word=${1:?usage: build.sh WORD}
export FT_TAG=$word
load_kernel "$word"
src=${FT_SRC:-$REPO}
out=$OUT/build/$KVER
log=$out.log

rm -rf "$out"
mkdir -p "$out"
# Sources only: build products of an in-tree build must not leak in.
tar -C "$src" -c --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' --exclude=modules.order \
	--exclude=Module.symvers --exclude='.tmp_*' Kbuild dkms.conf kmod uapi |
	tar -C "$out" -x

# How to build for this kernel: kernels.sh's BUILD column.
build_module() {
	local sid_src rc=0
	case ${BUILD:-host} in
	host) make -C "$KDIR" M="$out" W=1 FT_TEST_HOOKS=1 modules ;;
	gcc-12) make -C "$KDIR" M="$out" W=1 FT_TEST_HOOKS=1 CC=gcc-12 modules ;;
	cross)
		# The headers' own compiler (gcc-12) under the cross prefix;
		# their host tools are the amd64 kbuild package's.
		arch_info "$DEB_ARCH"
		make -C "$KDIR" M="$out" W=1 FT_TEST_HOOKS=1 ARCH="$KARCH" \
			CROSS_COMPILE="$CROSS" modules
		;;
	sid)
		# In the sid chroot, against the headers installed there.
		sid_src=$(mktemp -d "$CACHE/sid/root/tmp/build.XXXXXX")
		cp -r "$out/." "$sid_src/"
		bash "$VM_DIR/sidroot.sh" run make -C "/usr/src/linux-headers-$KVER" \
			M="/tmp/$(basename "$sid_src")" W=1 FT_TEST_HOOKS=1 modules || rc=$?
		cp -r "$sid_src/." "$out/"
		rm -rf "$sid_src"
		return "$rc"
		;;
	*) die "unknown BUILD '$BUILD' for $KVER" ;;
	esac
}

# The module's BTF where kbuild cannot make it (kmod/btf.sh), from the
# image the guest boots; a build that should have it and has not fails.
btf_module() {
	[ "${BUILD:-host}" != sid ] || return 0
	FT_BTF_STRICT=1 sh "$out/kmod/btf.sh" "$KDIR" "$out/kmod/fasttrack.ko"
}

log "building fasttrack.ko for $KVER (${BUILD:-host})"
export FT_VMLINUZ=$VMLINUZ
if ! { build_module && btf_module; } >"$log" 2>&1; then
	cat "$log" >&2
	die "module build failed for $KVER (log: $log)"
fi
if grep -qi 'warning:' "$log"; then
	grep -i -B2 -A4 'warning:' "$log" >&2
	die "module build for $KVER has warnings (log: $log)"
fi
[ -f "$out/kmod/fasttrack.ko" ] || die "no kmod/fasttrack.ko after building for $KVER"
