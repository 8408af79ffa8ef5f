#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's ynl tools (tools/net/ynl: ynl-gen-c.py, cli.py, lib/) and
# netlink schemas (Documentation/netlink/*.yaml) from Debian's
# linux-source-6.12, extracted once into $CACHE/ynl; prints that directory.
# The source package is fetched with apt-get download when its tarball is
# not installed, and nothing is installed on the host but python3-yaml and
# python3-jsonschema (deps.sh).
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

SRC_PKG=linux-source-6.12
dir=$CACHE/ynl

if [ ! -f "$dir/.done" ]; then
	bash "$VM_DIR/deps.sh"
	tarball=/usr/src/$SRC_PKG.tar.xz
	if [ ! -f "$tarball" ]; then
		log "fetching $SRC_PKG for the ynl tools"
		mkdir -p "$CACHE/debs"
		(cd "$CACHE/debs" && apt-get -q download "$SRC_PKG" >/dev/null) ||
			{ apt-get -q update >/dev/null &&
				(cd "$CACHE/debs" && apt-get -q download "$SRC_PKG" >/dev/null); }
		rm -rf "$CACHE/debs/$SRC_PKG"
		dpkg-deb -x "$(ls "$CACHE"/debs/"$SRC_PKG"_*.deb | tail -1)" "$CACHE/debs/$SRC_PKG"
		tarball=$CACHE/debs/$SRC_PKG/usr/src/$SRC_PKG.tar.xz
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		"$SRC_PKG/tools/net/ynl" "$SRC_PKG/Documentation/netlink/*.yaml" >&2
	touch "$dir/.done"
fi
echo "$dir"
