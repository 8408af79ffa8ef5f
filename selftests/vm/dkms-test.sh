#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make dkms-test`: a DKMS add/build/install/remove round trip
# (dkms-one.sh) against the headers of each kernel, in throwaway trees.
# Bookworm builds for 5.10, 6.1 and 6.12; 7.x runs in the sid chroot
# (sidroot.sh), with the headers and dkms installed there.
#
# usage: dkms-test.sh [--kernels "5.10 6.1 6.12 7.2"]
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

kernels=$(kernels_option "5.10 6.1 6.12 7.2" "$@")

command -v dkms >/dev/null || die "no dkms on the host (apt-get install dkms)"
work=$(mktemp -d "${TMPDIR:-/tmp}/ft-dkms.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

# one WORD: the round trip of one kernel, its output tagged with WORD.
one() {
	local word=$1
	export FT_TAG=$word
	bash "$VM_DIR/kernels.sh" "$word"
	# DKMS builds for the machine it runs on: a foreign-architecture
	# kernel's module is cross-built by build.sh, and tested in its guest.
	if grep -qx 'BUILD=cross' "$(kernel_env "$word")"; then
		log "dkms round trip skipped: a foreign architecture"
		return 0
	fi
	(
		load_kernel "$word"
		case ${BUILD:-host} in
		host)
			# The kernel's image stands in for /boot's (kmod/btf.sh).
			FT_VMLINUZ=$VMLINUZ FT_WANT_XDP=1 \
				bash "$VM_DIR/dkms-one.sh" "$REPO" "$KVER" "$KDIR" "$work/$word"
			;;
		gcc-12)
			# The 5.10 headers ask for gcc-10, which bookworm lacks and
			# a bullseye machine has; gcc-12 stands in for it here.
			mkdir -p "$work/bin"
			ln -sf "$(command -v gcc-12)" "$work/bin/gcc-10"
			PATH=$work/bin:$PATH bash "$VM_DIR/dkms-one.sh" "$REPO" "$KVER" "$KDIR" "$work/$word"
			;;
		sid)
			bash "$VM_DIR/sidroot.sh" install dkms kmod "$HEADERS_PKG"
			in=$(mktemp -d "$CACHE/sid/root/tmp/dkms.XXXXXX")
			cp -r "$REPO/Kbuild" "$REPO/dkms.conf" "$REPO/kmod" "$REPO/uapi" "$VM_DIR/dkms-one.sh" "$in/"
			rc=0
			bash "$VM_DIR/sidroot.sh" run bash "/tmp/${in##*/}/dkms-one.sh" "/tmp/${in##*/}" \
				"$KVER" "/usr/src/linux-headers-$KVER" "/tmp/${in##*/}/work" || rc=$?
			rm -rf "$in"
			exit "$rc"
			;;
		*)
			echo "no dkms round trip for BUILD=$BUILD"
			exit 1
			;;
		esac
	) | sed "s/^/[$word] /" || { log "dkms round trip FAILED"; return 1; }
	log "dkms round trip passed"
}

# The kernels at once, in throwaway trees of their own: the builds share
# the host's CPUs, not their files. Each one's output then, in order.
mkdir -p "$work/bin"
declare -A pid
for word in $kernels; do
	one "$word" >"$work/$word.out" 2>&1 &
	pid[$word]=$!
done
for word in $kernels; do
	wait "${pid[$word]}" || failed=$((failed + 1))
	cat "$work/$word.out"
done
[ "$failed" -eq 0 ] || die "$failed kernel(s) failed the dkms round trip"
