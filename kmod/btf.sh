#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Give fasttrack.ko the BTF that kbuild could not: run after
# "make -C KDIR M=... modules" (dkms.conf's MAKE does).
#
# The XDP tier is a kfunc, which needs module BTF, split over the target
# kernel's own. kbuild makes it where the build tree has vmlinux (Debian's
# 6.12 on). Debian's 6.1 headers ship neither vmlinux nor resolve_btfids:
# the base then comes from the target kernel's image (FT_VMLINUZ, else
# /boot/vmlinuz-<release>; never /sys/kernel/btf/vmlinux, which is the
# running kernel's), and btf.py resolves the kfunc's ids. Kbuild compiled
# the tier in only where one of the two bases is there.
#
# Without pahole or python3, or with an image btf.py cannot read, the
# module keeps working with the skb tier only, and this says why; with
# FT_BTF_STRICT=1 (the selftests' builds) that fails the build instead.
#
# usage: btf.sh KDIR MODULE.ko
set -eu

kdir=${1:?usage: btf.sh KDIR MODULE.ko}
ko=${2:?usage: btf.sh KDIR MODULE.ko}
here=$(dirname "$0")

no_tier() {
	echo "fasttrack: no XDP tier for $release: $*" >&2
	[ "${FT_BTF_STRICT:-0}" != 1 ] || exit 1
	exit 0
}

has_section() { LC_ALL=C readelf -S -W "$ko" | grep -q " $1 "; }

# The kernel's own name (Debian's headers override kernel.release's).
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$kdir/include/generated/utsrelease.h")
# No tier compiled in, or kbuild made the BTF already.
has_section .BTF_ids || exit 0
has_section .BTF && exit 0

vmlinuz=${FT_VMLINUZ:-/boot/vmlinuz-$release}
[ -r "$vmlinuz" ] || no_tier "cannot read $vmlinuz"
PAHOLE=${PAHOLE:-pahole}
command -v "$PAHOLE" >/dev/null || no_tier "pahole is missing (install the pahole package)"
command -v python3 >/dev/null || no_tier "python3 is missing"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/btf.py" base "$vmlinuz" "$release" "$tmp/base" ||
	no_tier "no BTF in $vmlinuz"
# The flags kbuild gives pahole for this kernel (scripts/pahole-flags.sh
# until 6.6; kbuild made the BTF itself on later Debian kernels).
flags=
if [ -x "$kdir/scripts/pahole-flags.sh" ]; then
	flags=$(PAHOLE=$PAHOLE "$kdir/scripts/pahole-flags.sh")
fi
# shellcheck disable=SC2086 # flags are words
LLVM_OBJCOPY=${OBJCOPY:-objcopy} "$PAHOLE" -J $flags --btf_base "$tmp/base" "$ko" ||
	no_tier "pahole failed"
python3 "$here/btf.py" resolve "$tmp/base" "$ko" || {
	# A module with BTF but unresolved ids would offer a wrong kfunc.
	objcopy --remove-section=.BTF "$ko"
	no_tier "its BTF ids did not resolve"
}
echo "fasttrack: BTF for $release from $vmlinuz"
