#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One DKMS round trip for one kernel, in throwaway trees under WORK: dkms
# add, build, install against the given headers, check the installed module
# (its vermagic, depmod finds it), then dkms remove, and check that nothing
# is left in the DKMS tree, the source tree or the module tree. The host's
# /var/lib/dkms, /usr/src and /lib/modules are neither used nor changed.
# Runs on the host, or in the sid chroot for kernels the host cannot build
# for (dkms-test.sh decides).
#
# usage: dkms-one.sh SRC KVER KDIR WORK
#   SRC   a fasttrack tree (Kbuild, dkms.conf, kmod/, uapi/)
#   KDIR  the kernel's headers (the "build" directory)
# Prints "ok: ..." lines; exits non-zero at the first failed check.
set -eu

src=${1:?usage: dkms-one.sh SRC KVER KDIR WORK}
kver=${2:?} kdir=${3:?} work=${4:?}
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$src/dkms.conf")
[ -n "$ver" ] || { echo "no PACKAGE_VERSION in $src/dkms.conf" >&2; exit 1; }

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

rm -rf "$work"
mkdir -p "$work/dkms" "$work/src/fasttrack-$ver" "$work/root/lib/modules/$kver"
cp -r "$src/Kbuild" "$src/dkms.conf" "$src/kmod" "$src/uapi" "$work/src/fasttrack-$ver/"
# dkms uses the build link of the kernel's module directory for some checks.
ln -s "$kdir" "$work/root/lib/modules/$kver/build"
host_state() {
	ls -d /var/lib/dkms/fasttrack /usr/src/fasttrack-* /lib/modules/"$kver" 2>/dev/null || true
}
before=$(host_state)

dk() {
	dkms "$@" -m fasttrack -v "$ver" -k "$kver" --kernelsourcedir "$kdir" \
		--dkmstree "$work/dkms" --sourcetree "$work/src" \
		--installtree "$work/root/lib/modules" --no-depmod
}

dk add >"$work/add.log" 2>&1 || { cat "$work/add.log"; fail "dkms add"; }
ok "dkms add $ver"
dk build >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "dkms build for $kver"; }
# The build must be as clean as the W=1 one: no compiler warning.
makelog=$work/dkms/fasttrack/$ver/$kver/$(uname -m)/log/make.log
grep -q 'fasttrack.ko' "$makelog" || fail "no build log at $makelog"
if grep -qi 'warning:' "$makelog"; then
	grep -i -A3 'warning:' "$makelog"
	fail "dkms build for $kver has warnings"
fi
ok "dkms build for $kver"
dk install >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "dkms install for $kver"; }
ko=$(find "$work/root/lib/modules/$kver" -name 'fasttrack.ko*' -print)
[ -n "$ko" ] || fail "dkms install installed no fasttrack.ko*"
[ "$(wc -l <<<"$ko")" = 1 ] || fail "want one installed fasttrack.ko*, got '$ko'"
case $ko in */updates/*) ;; *) fail "$ko is not under updates/" ;; esac
ok "dkms install put ${ko#"$work/root"}"
vermagic=$(modinfo -F vermagic "$ko")
[ "${vermagic%% *}" = "$kver" ] || fail "vermagic '$vermagic' is not for $kver"
[ "$(modinfo -F version "$ko")" = "$ver" ] || fail "module version is not $ver"
ok "vermagic $kver, version $ver"
# The XDP tier's kfunc needs the module's BTF (kmod/btf.sh), which a strip
# at install must keep; FT_WANT_XDP=1: the tier must be there.
plain=$work/installed.ko
case $ko in
*.xz) xz -dc "$ko" >"$plain" ;;
*.zst) zstd -qdc "$ko" >"$plain" ;;
*.gz) gzip -dc "$ko" >"$plain" ;;
*) cp "$ko" "$plain" ;;
esac
sections=$(LC_ALL=C readelf -S -W "$plain")
if grep -q ' \.BTF_ids ' <<<"$sections"; then
	grep -q ' \.BTF ' <<<"$sections" || fail "the module has the XDP tier but no BTF"
	ok "the XDP tier, with the module's BTF"
elif [ "${FT_WANT_XDP:-0}" = 1 ]; then
	fail "no XDP tier in the module for $kver"
fi
depmod -b "$work/root" "$kver" 2>"$work/depmod.log" || { cat "$work/depmod.log"; fail "depmod"; }
[ "$(modprobe -d "$work/root" -S "$kver" -n -v fasttrack 2>/dev/null | grep -c 'fasttrack.ko')" = 1 ] ||
	fail "modprobe does not resolve fasttrack from the installed tree"
ok "depmod + modprobe -n resolve the installed module"
dkms status -m fasttrack --dkmstree "$work/dkms" --sourcetree "$work/src" \
	--installtree "$work/root/lib/modules" | grep -q "$kver.*installed" ||
	fail "dkms status does not say installed"
ok "dkms status: installed"

dk remove >"$work/remove.log" 2>&1 || { cat "$work/remove.log"; fail "dkms remove"; }
# dkms remove keeps the source tree it was given (make dkms-remove deletes it).
rm -rf "$work/src/fasttrack-$ver"
left=$(find "$work/dkms" "$work/src" "$work/root/lib/modules/$kver" -mindepth 1 \
	! -path "$work/root/lib/modules/$kver/build" ! -name 'modules.*' -print)
[ -z "$left" ] || fail "left after dkms remove: $left"
[ -z "$(find "$work/root/lib/modules/$kver" -name 'fasttrack.ko*')" ] || fail "module file left"
[ "$(host_state)" = "$before" ] || fail "the host's dkms, source or module trees changed"
ok "dkms remove left nothing behind"
rm -rf "$work"
