#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's ynl tools (tools/net/ynl: ynl-gen-c.py, cli.py, lib/) and
# netlink schemas (Documentation/netlink/*.yaml) from Debian's
# linux-source-6.12, extracted once into $CACHE/ynl; prints that directory.
# The source package is fetched with apt-get download when its tarball is
# not installed, and nothing is installed on the host but python3-yaml and
# python3-jsonschema (deps.sh).
#
# usage: ynl-tools.sh [--tree DIR]
# --tree DIR also lays out in DIR what a guest needs to run cli.py on our
# spec (selftests/ynl/ynl_cli.sh), as ynl's lib expects it (the schema at
# <spec dir>/../genetlink.yaml):
#   DIR/tools/net/ynl/cli.py, DIR/tools/net/ynl/lib/
#   DIR/netlink/genetlink*.yaml
#   DIR/netlink/specs/fasttrack.yaml (this tree's), nlctrl.yaml
#   DIR/VERSION (the source package)
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

SRC_PKG=linux-source-6.12
dir=$CACHE/ynl

tree=
case ${1:-} in
--tree) tree=${2:?usage: ynl-tools.sh [--tree DIR]} ;;
'') ;;
*) die "usage: ynl-tools.sh [--tree DIR]" ;;
esac

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
		ver=$(dpkg-deb -f "$(ls "$CACHE"/debs/"$SRC_PKG"_*.deb | tail -1)" Version)
	else
		ver=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null || echo unknown)
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		"$SRC_PKG/tools/net/ynl" "$SRC_PKG/Documentation/netlink/*.yaml" >&2
	echo "$SRC_PKG $ver" >"$dir/VERSION"
	touch "$dir/.done"
fi

if [ -n "$tree" ]; then
	rm -rf "$tree"
	mkdir -p "$tree/tools/net/ynl" "$tree/netlink/specs"
	cp -r "$dir/tools/net/ynl/cli.py" "$dir/tools/net/ynl/lib" "$tree/tools/net/ynl/"
	find "$tree/tools" -name __pycache__ -prune -exec rm -rf {} +
	cp "$dir"/Documentation/netlink/*.yaml "$tree/netlink/"
	cp "$dir/Documentation/netlink/specs/nlctrl.yaml" "$tree/netlink/specs/"
	cp "$REPO/Documentation/netlink/specs/fasttrack.yaml" "$tree/netlink/specs/"
	cat "$dir/VERSION" 2>/dev/null >"$tree/VERSION" || echo "$SRC_PKG" >"$tree/VERSION"
fi
echo "$dir"
