#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A Debian sid chroot in $CACHE/sid/root, for kernels the host cannot build
# for: 7.x's kbuild tools need a newer glibc than bookworm's, and its flags a
# newer gcc. Made once with debootstrap (minbase, the archive taken from the
# host's apt sources), then kept; packages are added on demand.
#
# usage: sidroot.sh install PKG...   make the chroot if needed, install PKGs
#        sidroot.sh run CMD...       run CMD in it with /proc mounted
#                                    (objtool reads it), unmounted after
# One user at a time: both take a lock on the chroot.
set -eu
. "$(dirname "$0")/common.sh"
. "$VM_DIR/apt.sh"

SID=$CACHE/sid
C=$SID/root

make_root() {
	local uri key
	[ -f "$SID/ready" ] && return 0
	command -v debootstrap >/dev/null || die "no debootstrap (selftests/vm/deps.sh installs it)"
	read -r uri key <<<"$(suite_source sid)"
	[ -n "$uri" ] || die "no apt source on this host can serve sid"
	log "debootstrap sid (minbase) into $C"
	rm -rf "$C"
	mkdir -p "$SID"
	debootstrap --variant=minbase ${key:+$([ "$key" = - ] || echo "--keyring=$key")} \
		sid "$C" "$uri" >"$SID/debootstrap.log" 2>&1 ||
		{ tail -n 30 "$SID/debootstrap.log" >&2; die "debootstrap failed"; }
	# The host's own apt policy on archive dates (a mirror snapshot whose
	# Release file is past Valid-Until) holds in the chroot too.
	apt-config dump Acquire::Check-Valid-Until Acquire::Check-Date |
		grep -E '^Acquire::Check-(Valid-Until|Date) ' >"$C/etc/apt/apt.conf.d/99host" || true
	touch "$SID/ready"
}

# in_root CMD...: run CMD in the chroot with /proc mounted for its duration.
in_root() {
	local rc=0
	mount -t proc proc "$C/proc"
	chroot "$C" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@" || rc=$?
	umount "$C/proc"
	return "$rc"
}

install_pkgs() {
	local missing
	# shellcheck disable=SC2016 # dpkg-query's format, not shell
	missing=$(in_root dpkg-query -W -f='${Package} ${db:Status-Status}\n' "$@" 2>/dev/null |
		awk '$2 == "installed" { ok[$1] = 1 }
		     END { n = split(pkgs, p, " "); for (i = 1; i <= n; i++) if (!ok[p[i]]) print p[i] }' \
		pkgs="$*")
	[ -n "$missing" ] || return 0
	log "sid chroot: installing $(xargs <<<"$missing")"
	# shellcheck disable=SC2086 # a list of package names
	in_root sh -c "apt-get -q update && apt-get -q install -y --no-install-recommends $(xargs <<<"$missing")" \
		>"$SID/install.log" 2>&1 || { tail -n 30 "$SID/install.log" >&2; die "apt-get install in the sid chroot failed"; }
}

cmd=${1:?usage: sidroot.sh install PKG... | run CMD...}
shift
mkdir -p "$SID"
exec 9>"$SID/.lock"
flock 9
make_root
case $cmd in
install) install_pkgs "$@" ;;
run) in_root "$@" ;;
*) die "usage: sidroot.sh install PKG... | run CMD..." ;;
esac
