#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages the VM harness needs, only when some are missing.
#
# usage: deps.sh            the VM harness's packages (below)
#        deps.sh PKG...     these packages instead (make deb: the build
#                           dependencies of debian/control)
#        deps.sh --arch ARCH...  what guests of a foreign architecture
#                           (arm64, armhf) need on the host: qemu and a
#                           cross compiler (their userland is not installed
#                           here: userland.sh unpacks it into the cache)
set -eu
. "$(dirname "$0")/common.sh"

# The guest's userland is copied from the host, so the tools the selftests
# use inside the guest are listed here too.
PACKAGES="
	qemu-system-x86 busybox-static dash coreutils findutils util-linux
	kmod cpio gzip xz-utils zstd
	gcc gcc-12 make libc6-dev pkg-config libmnl-dev pahole
	clang llvm libbpf-dev bpftool
	iproute2 nftables conntrack iperf3 socat jq iputils-ping tcpdump ethtool
	python3 python3-yaml python3-jsonschema debootstrap dkms
	ppp pppoe wireguard-tools
	bash iptables ebtables ipvsadm sendip netbase
"
# Per foreign architecture: its qemu, and the cross compiler and C library
# for the module, ftctl and the selftests' helpers.
# shellcheck disable=SC2034 # read by name below
ARCH_PACKAGES_arm64="qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
# shellcheck disable=SC2034
ARCH_PACKAGES_armhf="qemu-system-arm gcc-arm-linux-gnueabihf libc6-dev-armhf-cross"
if [ "${1:-}" = --arch ]; then
	shift
	PACKAGES=
	for a in "$@"; do
		v=ARCH_PACKAGES_$a
		[ -n "${!v:-}" ] || die "deps.sh: no packages known for architecture '$a'"
		PACKAGES+=" ${!v}"
	done
elif [ $# -gt 0 ]; then
	PACKAGES="$*"
fi

# missing_pkgs: the packages of $PACKAGES that are not installed.
missing_pkgs() {
	# shellcheck disable=SC2086
	dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PACKAGES 2>/dev/null |
		awk '$2 == "installed" { ok[$1] = 1 }
		     END { n = split(pkgs, p, " "); for (i = 1; i <= n; i++) if (!ok[p[i]]) print p[i] }' \
		pkgs="$(xargs <<<"$PACKAGES")"
}

missing=$(missing_pkgs)
[ -n "$missing" ] || exit 0

# make check's parts run side by side (together.sh), and each installs what
# it lacks: on a fresh machine two apt-get installs at once, and the second
# fails on dpkg's lock. One at a time here, each looking again once it has
# the lock; other apt users (unattended-upgrades) are waited for by apt.
exec 9>"${FT_DEPS_LOCK:-/run/lock/fasttrack-deps.lock}"
flock 9
missing=$(missing_pkgs)
[ -n "$missing" ] || exit 0

log "installing host packages: $(xargs <<<"$missing")"
export DEBIAN_FRONTEND=noninteractive
apt-get -q -o DPkg::Lock::Timeout=600 update >/dev/null
# shellcheck disable=SC2086
apt-get -q -o DPkg::Lock::Timeout=600 install -y --no-install-recommends $missing >/dev/null
