#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make dkms-vm`: the user's DKMS install flow in a guest per kernel
# (selftests/vm/dkms_install.sh): make dkms-install, modprobe, ftctl enable,
# an offloaded transfer, make dkms-remove. The guest gets the fasttrack
# source and the test in a second initramfs archive, and a Debian root with
# dkms, make and gcc over 9p: the host's own root for kernels the host
# builds for (the headers are under $CACHE, inside it), the sid chroot for
# 7.x (with dkms and the kernel's headers installed in it).
#
# usage: dkms-vm.sh [--kernels "6.1 6.12"]
# FT_SRC=DIR takes the module's source (Kbuild, dkms.conf, kmod/, uapi/)
# from DIR instead of this tree, as build.sh does.
# Prints one line per kernel and ends with "N passed, N failed".
set -eu -o pipefail
. "$(dirname "$0")/common.sh"
{

kernels=$(kernels_option "6.1 6.12" "$@")

export FT_OUT=${FT_OUT:-$CACHE/out/dkms-$(date +%Y%m%d-%H%M%S)-$$}
OUT=$FT_OUT
trap 'rm -rf "$FT_OUT"' EXIT
mkdir -p "$OUT/run" "$CACHE/logs"
bash "$VM_DIR/deps.sh"
bash "$VM_DIR/tools.sh"

# extra_cpio WORD KDIR: the source tree, the test and its settings.
extra_cpio() {
	local x=$OUT/dkms/$1
	rm -rf "$x"
	mkdir -p "$x/src/fasttrack" "$x/selftests"
	tar -C "${FT_SRC:-$REPO}" -c --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' --exclude=modules.order \
		--exclude=Module.symvers Kbuild dkms.conf kmod uapi |
		tar -C "$x/src/fasttrack" -x
	cp "$REPO/Makefile" "$x/src/fasttrack/"
	install -m 0755 "$VM_DIR/dkms_install.sh" "$x/selftests/dkms_install.sh"
	install -m 0644 "$VM_DIR/lib_dkmsroot.sh" "$x/selftests/lib_dkmsroot.sh"
	printf 'KDIR=%s\n' "$2" >"$x/selftests/dkms.env"
	(cd "$x" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$OUT/dkms/$1.cpio.gz"
}

job() {
	local word=$1 dir=$OUT/run/$1 root kdir rc=0
	mkdir -p "$dir"
	{
		bash "$VM_DIR/kernels.sh" "$word" &&
			bash "$VM_DIR/build.sh" "$word" &&
			bash "$VM_DIR/initramfs.sh" "$word"
	} >"$dir/prepare.log" 2>&1 || { echo prepare >"$dir/rc"; return; }
	load_kernel "$word"
	if [ "${BUILD:-host}" = sid ]; then
		bash "$VM_DIR/sidroot.sh" install make dkms kmod "$HEADERS_PKG" >>"$dir/prepare.log" 2>&1 ||
			{ echo prepare >"$dir/rc"; return; }
		root=$CACHE/sid/root kdir=/usr/src/linux-headers-$KVER
	else
		# shellcheck disable=SC2153 # KDIR comes from load_kernel
		root=/ kdir=$KDIR
	fi
	extra_cpio "$word" "$kdir"
	FT_TAG=$word log "booting: dkms_install"
	bash "$VM_DIR/boot.sh" "$word" "$dir" --tests dkms_install \
		--initrd-extra "$OUT/dkms/$word.cpio.gz" --virtfs "$root" </dev/null || rc=$?
	echo "$rc" >"$dir/rc"
}

for word in $kernels; do
	wait_for_slot
	FT_TAG=$word job "$word" &
done
wait

for word in $kernels; do
	dir=$OUT/run/$word
	judge "$word" "$dir" dkms_install
	[ "$JUDGED_FAILED" -eq 0 ] || keep_logs "$dir" "$CACHE/logs/dkms-$word-$(date +%Y%m%d-%H%M%S).log"
done
judge_summary
exit
}
