#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The userland of a foreign-architecture guest: the Debian packages of the
# tools the selftests use, with their dependencies, for that architecture,
# downloaded by a private apt setup (with its own empty dpkg status, so
# nothing is installed or added on the host) and unpacked with dpkg-deb -x
# into $CACHE/userland/<arch>/root. initramfs.sh takes the guest's binaries
# and libraries from there, tools.sh links ftctl against its libmnl.
#
# usage: userland.sh ARCH        e.g. userland.sh arm64
# A root once made is reused; FT_USERLAND_REFRESH=1 makes it again.
set -eu
. "$(dirname "$0")/common.sh"
. "$VM_DIR/apt.sh"

# What HOST_BINS of initramfs.sh come from, plus libmnl-dev and
# libbpf-dev for ftctl (its headers, and libbpf1, libelf1 and zlib1g, which
# initramfs.sh copies with ftctl).
PACKAGES="busybox-static dash kmod iproute2 nftables conntrack iperf3 socat jq
	tcpdump ethtool iputils-ping util-linux coreutils findutils ppp pppoe
	wireguard-tools libmnl-dev libbpf-dev"
SUITES="bookworm bookworm-security"

arch=${1:?usage: userland.sh ARCH}
export FT_TAG=userland-$arch
dir=$CACHE/userland/$arch
mkdir -p "$CACHE/userland"
exec 9>"$CACHE/userland/.$arch.lock"
flock 9
# The root is made again when the package list changes.
want=$(xargs <<<"$PACKAGES")
if [ "$(cat "$dir/done" 2>/dev/null)" = "$want" ] && [ "${FT_USERLAND_REFRESH:-0}" != 1 ]; then
	exit 0
fi

# shellcheck disable=SC2086 # a list of suites
apt_private_setup --arch "$arch" "u$arch" $SUITES
archives=$CACHE/apt/u$arch/cache/archives
log "resolving and downloading $(wc -w <<<"$PACKAGES") packages for $arch"
# shellcheck disable=SC2086 # a list of packages
apt_private "u$arch" apt-get -q -y --no-install-recommends --download-only \
	install $PACKAGES >"$CACHE/apt/u$arch/download.log" 2>&1 ||
	{ cat "$CACHE/apt/u$arch/download.log" >&2; die "cannot download the $arch userland"; }
rm -rf "$dir"
mkdir -p "$dir/root"
# The newest downloaded version of each package.
for p in $(find "$archives" -maxdepth 1 -name '*.deb' -printf '%f\n' | sed 's/_.*//' | sort -u); do
	# shellcheck disable=SC2012 # package file names are tame
	dpkg-deb -x "$(ls -t "$archives/${p}_"*.deb | head -n1)" "$dir/root"
done
# Absolute symlinks (/sbin/ip -> /bin/ip) would lead out of the root: make
# them relative, within it.
find "$dir/root" -type l -lname '/*' -print0 |
	while IFS= read -r -d '' l; do
		ln -sfnr "$dir/root$(readlink "$l")" "$l"
	done
echo "$want" >"$dir/done"
log "userland for $arch: $(find "$archives" -maxdepth 1 -name '*.deb' | wc -l) packages in $dir/root"
