#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch a Debian kernel (image + headers) without installing it on the host:
# apt-get download + dpkg-deb -x into $CACHE/kernels/<word>/root, then write
# $CACHE/kernels/<word>/env with KVER, ROOT, VMLINUZ, KDIR and MODDIR.
#
# usage: kernels.sh WORD...       e.g. kernels.sh 6.1 6.12
#        kernels.sh --list        the known version words
#        kernels.sh --arch WORD... their architectures (amd64, arm64, armhf)
#        kernels.sh --source WORD  its source tarball, fetched (a path)
#
# A fetched kernel is reused; FT_KERNEL_REFRESH=1 resolves the newest again.
set -eu
. "$(dirname "$0")/common.sh"
. "$VM_DIR/apt.sh"
. "$VM_DIR/arch.sh"

# WORD        ARCH   SUITES (comma separated)     IMAGE META              HEADERS META              BUILD
# The image and headers of the newest kernel are what the metapackages of the
# listed suites depend on; a word's version is the part before any "-"
# (6.1-rt: 6.1), after "ARCH-" for a kernel of a foreign architecture
# (arm64-6.1: 6.1; booted on qemu's "virt" machine, see arch.sh). ARCH is
# the kernel's Debian architecture. BUILD says how to build modules for it:
#   host       the host's make and the headers' own compiler
#   gcc-12     the host, with CC=gcc-12 (5.10 wants gcc-10, which bookworm
#              lacks; gcc-12 builds it without a warning)
#   sid        in the sid chroot of sidroot.sh, with the headers installed
#              there: 7.x's kbuild tools need glibc 2.38 and a newer gcc
#   cross      the host's cross compiler for ARCH, with the host's (amd64)
#              kbuild tools of the same version
# 6.1-rt is bookworm's PREEMPT_RT flavour: spinlocks are sleeping locks and
# softirqs run in preemptible threads there.
KERNEL_TABLE='
5.10        amd64  bullseye,bullseye-security   linux-image-amd64       linux-headers-amd64       gcc-12
6.1         amd64  bookworm,bookworm-security   linux-image-amd64       linux-headers-amd64       host
6.1-rt      amd64  bookworm,bookworm-security   linux-image-rt-amd64    linux-headers-rt-amd64    host
6.12        amd64  bookworm-backports           linux-image-amd64       linux-headers-amd64       host
7.2         amd64  sid                          linux-image-amd64       linux-headers-amd64       sid
arm64-6.1   arm64  bookworm,bookworm-security   linux-image-arm64       linux-headers-arm64       cross
arm64-6.12  arm64  bookworm-backports           linux-image-arm64       linux-headers-arm64       cross
armhf-6.1   armhf  bookworm,bookworm-security   linux-image-armmp-lpae  linux-headers-armmp-lpae  cross
armhf-6.12  armhf  bookworm-backports           linux-image-armmp-lpae  linux-headers-armmp-lpae  cross
'

table_row() {
	awk -v w="$1" '$1 == w' <<<"$KERNEL_TABLE"
}

# fixup_tree ROOT KVER: make the extracted headers usable where they are.
fixup_tree() {
	local root=$1 kver=$2 f
	# The headers' Makefiles include the -common tree by absolute path.
	for f in "$root"/usr/src/linux-headers-*/Makefile; do
		sed -i "s#^\(-\?include[[:space:]]\+\)/usr/src/#\1$root/usr/src/#" "$f"
	done
	# Newer packages ship modules under /usr/lib only; bookworm's kmod reads
	# <root>/lib/modules.
	[ -e "$root/lib" ] || ln -s usr/lib "$root/lib"
	[ -d "$root/lib/modules/$kver" ] || die "no modules for $kver in $root"
	# The package's postinst would generate modules.dep; do it here.
	depmod -b "$root" "$kver"
}

fetch() {
	local word=$1 row arch suites image_meta headers_meta build image headers pkgs kdir vmlinuz f pkgver
	local ver apt_arch=() kbuild
	local dir=$CACHE/kernels/$word env
	env=$(kernel_env "$word")
	if [ -f "$env" ] && [ "${FT_KERNEL_REFRESH:-0}" != 1 ]; then
		return 0
	fi
	# The debug kernel is built from source (debug-kernel.sh), not fetched.
	if [ "$word" = debug ]; then
		[ -f "$env" ] || die "the debug kernel is not built: run 'make check-debug'"
		return 0
	fi
	row=$(table_row "$word")
	[ -n "$row" ] || die "unknown kernel '$word'; known: $(awk 'NF { printf "%s ", $1 }' <<<"$KERNEL_TABLE")"
	read -r _ arch suites image_meta headers_meta build <<<"$row"
	ver=${word#"$arch"-}
	ver=${ver%%-*}
	# A foreign kernel's setup sees its architecture (native) and the
	# host's, whose kbuild tools build for it.
	! is_foreign "$arch" || apt_arch=(--arch "$arch,amd64")

	# shellcheck disable=SC2046 # split the suite list on commas
	apt_private_setup "${apt_arch[@]}" "k$word" $(tr ',' ' ' <<<"$suites")
	image=$(apt_resolve "k$word" "$word image" "$image_meta" "^linux-image-${ver}[.-]")
	headers=$(apt_resolve "k$word" "$word headers" "$headers_meta" "^linux-headers-${ver}[.-]")
	# The headers package needs its -common tree and the kbuild tools; newer
	# images keep the kernel and the modules in packages of their own.
	pkgs="$image $headers $(apt_depends "k$word" "$headers" '^linux-(headers|kbuild)-')"
	pkgs+=" $(apt_depends "k$word" "$image" '^linux-(binary|modules|base|image)-')"
	pkgs=$(xargs -n1 <<<"$pkgs" | sort -u | xargs)
	if is_foreign "$arch"; then
		# The kbuild tools run on the host: the amd64 package, of the
		# version the headers were built with.
		kbuild=$(xargs -n1 <<<"$pkgs" | grep '^linux-kbuild-') ||
			die "no kbuild package among $pkgs"
		pkgs="$(xargs -n1 <<<"$pkgs" | grep -v '^linux-kbuild-' | xargs)"
		pkgs+=" $kbuild:amd64=$(apt_private "k$word" apt-cache show --no-all-versions "$headers" |
			sed -n 's/^Version: //p')"
	fi
	log "kernel $word: ${pkgs//$'\n'/ }"

	mkdir -p "$CACHE/debs"
	# shellcheck disable=SC2086
	(cd "$CACHE/debs" && apt_private "k$word" apt-get -q download $pkgs >/dev/null) ||
		die "apt-get download failed for $pkgs"
	rm -rf "$dir"
	mkdir -p "$dir/root"
	for p in $pkgs; do
		p=${p%%[:=]*}
		# shellcheck disable=SC2012 # package file names are tame
		dpkg-deb -x "$(ls -t "$CACHE/debs/${p}_"*.deb | head -n1)" "$dir/root"
	done

	kdir=$(ls -d "$dir/root/usr/src/$headers" 2>/dev/null) ||
		die "no headers tree for $headers"
	kver=${headers#linux-headers-}
	fixup_tree "$dir/root" "$kver"
	# 7.x has no /boot: the kernel sits with its modules.
	vmlinuz=$dir/root/boot/vmlinuz-$kver
	for f in vmlinuz vmlinuz.unsigned; do
		[ -f "$vmlinuz" ] || vmlinuz=$dir/root/usr/lib/modules/$kver/$f
	done
	[ -f "$vmlinuz" ] || die "no vmlinuz for $kver in $pkgs"
	# shellcheck disable=SC2012 # package file names are tame
	pkgver=$(dpkg-deb -f "$(ls -t "$CACHE/debs/${headers}_"*.deb | head -n1)" Version)
	[ "$build" != sid ] || bash "$VM_DIR/sidroot.sh" install make "$headers"
	cat >"$env.tmp" <<-EOF
		KVER=$kver
		ROOT=$dir/root
		VMLINUZ=$vmlinuz
		KDIR=$kdir
		MODDIR=$dir/root/lib/modules/$kver
		BUILD=$build
		HEADERS_PKG=$headers
		PKG_VERSION=$pkgver
		DEB_ARCH=$arch
	EOF
	mv "$env.tmp" "$env"
	log "kernel $word: $kver ready"
}

if [ "${1:-}" = --list ]; then
	awk 'NF { print $1 }' <<<"$KERNEL_TABLE"
	exit 0
fi
# --arch WORD...: the Debian architectures of these words, once each; an
# unknown word has none (fetching it fails, in its own prepare step).
if [ "${1:-}" = --arch ]; then
	shift
	for w in "$@"; do
		[ "$w" != debug ] || { echo amd64; continue; }
		table_row "$w" | awk '{ print $2 }'
	done | sort -u
	exit 0
fi
# --source WORD: the kernel source tarball of WORD's version (Debian's
# linux-source-VER, from WORD's suites), fetched and extracted under
# $CACHE/debs once; prints its path.
if [ "${1:-}" = --source ]; then
	w=${2:?usage: kernels.sh --source WORD}
	row=$(table_row "$w")
	[ -n "$row" ] || die "unknown kernel '$w'"
	read -r _ _ suites _ <<<"$row"
	pkg=linux-source-${w%%-*}
	dest=$CACHE/debs/$pkg
	if [ ! -f "$dest/usr/src/$pkg.tar.xz" ]; then
		# shellcheck disable=SC2046 # split the suite list on commas
		apt_private_setup "k$w" $(tr ',' ' ' <<<"$suites")
		mkdir -p "$CACHE/debs"
		log "fetching $pkg"
		(cd "$CACHE/debs" && apt_private "k$w" apt-get -q download "$pkg" >/dev/null) ||
			die "apt-get download failed for $pkg $(apt_where "k$w")"
		# shellcheck disable=SC2012 # package file names are tame
		dpkg-deb -x "$(ls -t "$CACHE/debs/${pkg}_"*.deb | head -n1)" "$dest"
	fi
	echo "$dest/usr/src/$pkg.tar.xz"
	exit 0
fi
[ $# -gt 0 ] || die "usage: kernels.sh WORD... (see --list)"
mkdir -p "$CACHE/kernels"
for w in "$@"; do
	# One fetch per word at a time, should two runs start together.
	exec 9>"$CACHE/kernels/.$w.lock"
	flock 9
	FT_TAG=$w fetch "$w"
	exec 9>&-
done
