#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the host-side programs that go into every guest: ftctl
# (make -C userspace) and each selftests/*.c helper, static, into
# $OUT/tools/<name>. A compiler warning in a helper fails the build.
#
# usage: tools.sh [ARCH...]   by default the host's (amd64) tools; a foreign
#                             architecture's (arm64, armhf) go to
#                             $OUT/tools-<arch>/, cross-built, ftctl linked
#                             against the libmnl of userland.sh's root
set -eu
. "$(dirname "$0")/common.sh"
. "$VM_DIR/arch.sh"

# helpers DIR CC: each selftests/*.c helper, static, into DIR.
helpers() {
	local dir=$1 cc=$2 src name
	for src in "$REPO"/selftests/*.c; do
		[ -f "$src" ] || continue
		name=$(basename "$src" .c)
		log "building selftests helper $name"
		if ! "$cc" -O2 -Wall -static -o "$dir/$name" "$src" >"$dir/$name.log" 2>&1 ||
			grep -q 'warning:' "$dir/$name.log"; then
			cat "$dir/$name.log" >&2
			die "building $src failed or warned"
		fi
	done
}

host_tools() {
	rm -rf "$OUT/tools"
	mkdir -p "$OUT/tools"
	log "building ftctl"
	make -C "$REPO/userspace" >"$OUT/tools/ftctl.log" 2>&1 ||
		{ cat "$OUT/tools/ftctl.log" >&2; die "ftctl build failed"; }
	helpers "$OUT/tools" gcc
}

# foreign_tools ARCH: ftctl out of tree (userspace/'s Makefile finds its
# sources by its own path) and the helpers, with the cross compiler.
foreign_tools() {
	local arch=$1 dir=$OUT/tools-$1 u=$CACHE/userland/$1/root
	arch_info "$arch"
	bash "$VM_DIR/userland.sh" "$arch"
	rm -rf "$dir"
	mkdir -p "$dir/ftctl.build" "$dir/ftctl.lib"
	# -L: the two libraries ftctl links, alone. The root's own directory
	# also has libc6-dev's libc.so (libbpf-dev pulls it in), a linker
	# script naming /lib/$TRIPLET/libc.so.6 on this host, which has none.
	ln -s "$u/usr/lib/$TRIPLET/libmnl.so" "$u/usr/lib/$TRIPLET/libbpf.so" "$dir/ftctl.lib/"
	log "building ftctl for $arch"
	# The XDP program is bpf bytecode, built with the host's clang and
	# embedded as on the host (XDP=1: a cross-built ftctl has the tier too).
	make -C "$dir/ftctl.build" -f "$REPO/userspace/Makefile" CC="${CROSS}gcc" \
		PKG_CONFIG=false CPPFLAGS="-I$u/usr/include" XDP=1 \
		LDFLAGS="-L$dir/ftctl.lib -Wl,-rpath-link,$u/usr/lib/$TRIPLET:$u/lib/$TRIPLET" \
		ftctl >"$dir/ftctl.log" 2>&1 ||
		{ cat "$dir/ftctl.log" >&2; die "ftctl build for $arch failed"; }
	mv "$dir/ftctl.build/ftctl" "$dir/ftctl"
	rm -rf "$dir/ftctl.build" "$dir/ftctl.lib"
	helpers "$dir" "${CROSS}gcc"
}

[ $# -gt 0 ] || set -- amd64
for arch in "$@"; do
	if is_foreign "$arch"; then
		FT_TAG=$arch foreign_tools "$arch"
	else
		host_tools
	fi
done
