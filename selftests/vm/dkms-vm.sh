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
# On the kernels of FT_DEB_KERNELS (make: DEB_KERNELS, 6.12) the boot
# runs the Debian package test (selftests/vm/deb_install.sh) instead: the
# packages of this tree (make deb, lintian included) and of a previous
# version (the same tree as <version>~prev) are built here first and put
# in the archive. It needs a kernel the host root builds for (BUILD=host).
# Instead, not as well: each test builds the module with DKMS once, which
# takes minutes under TCG, and CI's time is short; the package test runs
# DKMS through dpkg, and make dkms-install stays tested on the other
# kernels (FT_DEB_KERNELS= runs it on all of them).
#
# On the kernels of YNL_KERNELS (make: YNL_KERNELS, "5.10 6.12": the
# compat route without split ops, and split ops; in different job slots of
# the default four kernels, so that the wall time grows by about one run
# of it, 65 s), the boot first runs selftests/ynl/ynl_cli.sh: the kernel's
# YNL CLI (ynl-tools.sh puts it in the archive, in /ynl) with that root's
# python3, against ftctl. These guests boot anyway, and have the root with
# python3. ynl_cli goes first: it uses the harness's module, which the
# DKMS tests remove.
#
# usage: dkms-vm.sh [--kernels "6.1 6.12"]
# FT_SRC=DIR takes the module's source (Kbuild, dkms.conf, kmod/, uapi/)
# from DIR instead of this tree, as build.sh does (not the packages').
# FT_DKMS_TESTS="deb_install" runs only these tests (make deb-vm; make
# ynl-vm: ynl_cli).
# FT_KEEP_LOGS=1 keeps the logs of a run that passed too.
# Prints one line per kernel and ends with "N passed, N failed".
set -eu -o pipefail
. "$(dirname "$0")/common.sh"
{

kernels=$(kernels_option "6.1 6.12" "$@")
deb_kernels=${FT_DEB_KERNELS-6.12}
ynl_kernels=${YNL_KERNELS-5.10 6.12}

# tests_for WORD: the tests the boot of kernel WORD runs.
tests_for() {
	local t=dkms_install
	case " $deb_kernels " in *" $1 "*) t=deb_install ;; esac
	case " $ynl_kernels " in *" $1 "*) t="ynl_cli $t" ;; esac
	echo "${FT_DKMS_TESTS:-$t}"
}

export FT_OUT=${FT_OUT:-$CACHE/out/dkms-$(date +%Y%m%d-%H%M%S)-$$}
OUT=$FT_OUT
trap 'rm -rf "$FT_OUT"' EXIT
mkdir -p "$OUT/run" "$CACHE/logs"
bash "$VM_DIR/deps.sh"
bash "$VM_DIR/tools.sh"

# The YNL CLI and our spec, once for every kernel that runs ynl_cli.
for word in $kernels; do
	case " $(tests_for "$word") " in
	*" ynl_cli "*)
		bash "$VM_DIR/ynl-tools.sh" --tree "$OUT/ynl" >/dev/null
		break
		;;
	esac
done

# build_debs: make deb of this tree into $OUT/deb/new, and of a copy of it
# as version <version>~prev (dkms.conf and a changelog entry) into
# $OUT/deb/old, for the upgrade. The log is $OUT/deb/build.log.
build_debs() {
	local ver old tree=$OUT/deb/src-old maint
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
	old=$ver~prev
	rm -rf "$OUT/deb"
	mkdir -p "$tree"
	{
		make -C "$REPO" deb DEB_OUT="$OUT/deb/new" &&
			tar -C "$REPO" -c --exclude='*.o' --exclude='*.ko' --exclude=userspace/ftctl \
				Kbuild Makefile dkms.conf README.md Documentation kmod uapi userspace debian \
				selftests/vm/deps.sh selftests/vm/common.sh | tar -C "$tree" -x &&
			sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$old\"/" "$tree/dkms.conf" &&
			maint=$(sed -n '0,/^ -- /s/^ -- \(.*>\).*/\1/p' "$tree/debian/changelog") &&
			{
				printf 'fasttrack (%s) unstable; urgency=medium\n\n' "$old"
				printf '  * The previous version, for the upgrade in deb_install.\n\n'
				printf ' -- %s  %s\n\n' "$maint" "$(date -R)"
				cat "$REPO/debian/changelog"
			} >"$tree/debian/changelog" &&
			make -C "$tree" deb DEB_OUT="$OUT/deb/old" LINTIAN=0
	} >"$OUT/deb/build.log" 2>&1 || return 1
	printf 'DEB_NEW=%s\nDEB_OLD=%s\n' "$ver" "$old" >"$OUT/deb/env"
}

# extra_cpio WORD KDIR TESTS: the source tree, the tests and their settings,
# and the packages if deb_install is among TESTS.
extra_cpio() {
	local x=$OUT/dkms/$1 v
	rm -rf "$x"
	mkdir -p "$x/src/fasttrack" "$x/selftests"
	tar -C "${FT_SRC:-$REPO}" -c --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' --exclude=modules.order \
		--exclude=Module.symvers Kbuild dkms.conf kmod uapi |
		tar -C "$x/src/fasttrack" -x
	cp "$REPO/Makefile" "$x/src/fasttrack/"
	install -m 0755 "$VM_DIR/dkms_install.sh" "$x/selftests/dkms_install.sh"
	install -m 0755 "$VM_DIR/deb_install.sh" "$x/selftests/deb_install.sh"
	install -m 0644 "$VM_DIR/lib_dkmsroot.sh" "$x/selftests/lib_dkmsroot.sh"
	printf 'KDIR=%s\n' "$2" >"$x/selftests/dkms.env"
	case " $3 " in *" ynl_cli "*) cp -r "$OUT/ynl" "$x/ynl" ;; esac
	case " $3 " in
	*" deb_install "*)
		for v in new old; do
			mkdir -p "$x/debs/$v"
			cp "$OUT/deb/$v"/fasttrack-dkms_*.deb "$OUT/deb/$v"/fasttrack-tools_*.deb "$x/debs/$v/"
		done
		cat "$OUT/deb/env" >>"$x/selftests/dkms.env"
		;;
	esac
	(cd "$x" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$OUT/dkms/$1.cpio.gz"
}

job() {
	local word=$1 dir=$OUT/run/$1 root kdir rc=0 tests
	tests=$(tests_for "$word")
	mkdir -p "$dir"
	{
		bash "$VM_DIR/kernels.sh" "$word" &&
			bash "$VM_DIR/build.sh" "$word" &&
			bash "$VM_DIR/initramfs.sh" "$word"
	} >"$dir/prepare.log" 2>&1 || { echo prepare >"$dir/rc"; return; }
	load_kernel "$word"
	case " $tests " in
	*" deb_install "*)
		if [ "${BUILD:-host}" != host ]; then
			echo "deb_install needs a kernel the host root builds for, not ${BUILD}" >>"$dir/prepare.log"
			echo prepare >"$dir/rc"
			return
		fi
		if [ ! -f "$OUT/deb/env" ]; then
			cat "$OUT/deb/build.log" >>"$dir/prepare.log" 2>/dev/null
			echo "make deb failed" >>"$dir/prepare.log"
			echo prepare >"$dir/rc"
			return
		fi
		;;
	esac
	if [ "${BUILD:-host}" = sid ]; then
		# shellcheck disable=SC2046 # package names
		bash "$VM_DIR/sidroot.sh" install make dkms kmod "$HEADERS_PKG" \
			$(case " $tests " in *" ynl_cli "*) echo python3 python3-yaml python3-jsonschema ;; esac) \
			>>"$dir/prepare.log" 2>&1 ||
			{ echo prepare >"$dir/rc"; return; }
		root=$CACHE/sid/root kdir=/usr/src/linux-headers-$KVER
	else
		# shellcheck disable=SC2153 # KDIR comes from load_kernel
		root=/ kdir=$KDIR
	fi
	extra_cpio "$word" "$kdir" "$tests"
	FT_TAG=$word log "booting: $tests"
	# A DKMS build under TCG takes minutes: each test gets 20 (KSFT_TIMEOUT,
	# which the kernel hands to the guest's init in its environment).
	bash "$VM_DIR/boot.sh" "$word" "$dir" --tests "${tests// /,}" --append "KSFT_TIMEOUT=1200" \
		--initrd-extra "$OUT/dkms/$word.cpio.gz" --virtfs "$root" </dev/null || rc=$?
	echo "$rc" >"$dir/rc"
}

# The packages, once for every kernel that runs deb_install.
for word in $kernels; do
	case " $(tests_for "$word") " in
	*" deb_install "*)
		log "make deb, and the previous version's packages"
		t0=$SECONDS
		build_debs || log "make deb failed (log: $OUT/deb/build.log)"
		log "packages built in $((SECONDS - t0)) s"
		break
		;;
	esac
done

for word in $kernels; do
	wait_for_slot
	FT_TAG=$word job "$word" &
done
wait

for word in $kernels; do
	dir=$OUT/run/$word
	# shellcheck disable=SC2046 # a list of test names
	judge "$word" "$dir" $(tests_for "$word")
	[ "$JUDGED_FAILED" -eq 0 ] && [ "${FT_KEEP_LOGS:-0}" != 1 ] ||
		keep_logs "$dir" "$CACHE/logs/dkms-$word-$(date +%Y%m%d-%H%M%S).log"
done
judge_summary
exit
}
