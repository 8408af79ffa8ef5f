#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages the VM harness needs, only when some are missing.
#
# usage: deps.sh            the VM harness's packages (below)
#        deps.sh PKG...     these packages instead (make deb: the build
#                           dependencies of debian/control)
set -eu
. "$(dirname "$0")/common.sh"

# The guest's userland is copied from the host, so the tools the selftests
# use inside the guest are listed here too.
PACKAGES="
	qemu-system-x86 busybox-static dash coreutils findutils util-linux
	kmod cpio gzip xz-utils zstd
	gcc gcc-12 make libc6-dev pkg-config libmnl-dev pahole
	iproute2 nftables conntrack iperf3 socat jq iputils-ping tcpdump ethtool
	python3 python3-yaml python3-jsonschema debootstrap dkms
"
[ $# -eq 0 ] || PACKAGES="$*"

# shellcheck disable=SC2086
missing=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PACKAGES 2>/dev/null |
	awk '$2 == "installed" { ok[$1] = 1 }
	     END { n = split(pkgs, p, " "); for (i = 1; i <= n; i++) if (!ok[p[i]]) print p[i] }' \
	pkgs="$(xargs <<<"$PACKAGES")")
[ -n "$missing" ] || exit 0

log "installing host packages: $(xargs <<<"$missing")"
export DEBIAN_FRONTEND=noninteractive
apt-get -q update >/dev/null
# shellcheck disable=SC2086
apt-get -q install -y --no-install-recommends $missing >/dev/null
