#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own netlink tools, for selftests/ynl/ynl_cli.sh: the YNL
# CLI (tools/net/ynl/cli.py and its lib/) and the netlink schemas
# (Documentation/netlink/*.yaml, and specs/nlctrl.yaml for the family
# controller), extracted once from Debian's linux-source tarball into
# $CACHE/ynl-cli (linux-source-6.12 is installed with apt when the tarball is
# missing, as checkpatch.sh does for 6.1).
#
# usage: ynl-tools.sh [--tree DIR]
#   without --tree: make sure $CACHE/ynl-cli is there; print its path.
#   --tree DIR: also lay out in DIR what the guest gets, the layout ynl's
#   lib expects (the schema at <spec dir>/../genetlink.yaml):
#     DIR/tools/net/ynl/cli.py, DIR/tools/net/ynl/lib/
#     DIR/netlink/genetlink*.yaml
#     DIR/netlink/specs/fasttrack.yaml (this tree's), nlctrl.yaml
#     DIR/VERSION (the linux-source package it came from)
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

SRC_PKG=linux-source-6.12
TARBALL=/usr/src/$SRC_PKG.tar.xz
MEMBERS="tools/net/ynl/cli.py tools/net/ynl/lib Documentation/netlink/genetlink.yaml
	Documentation/netlink/genetlink-legacy.yaml Documentation/netlink/genetlink-c.yaml
	Documentation/netlink/specs/nlctrl.yaml"
dir=$CACHE/ynl-cli

tree=
case ${1:-} in
--tree) tree=${2:?usage: ynl-tools.sh [--tree DIR]} ;;
'') ;;
*) die "usage: ynl-tools.sh [--tree DIR]" ;;
esac

if [ ! -f "$dir/tools/net/ynl/cli.py" ]; then
	if [ ! -f "$TARBALL" ]; then
		log "installing $SRC_PKG for the YNL CLI"
		DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends "$SRC_PKG" >/dev/null ||
			{ apt-get -q update >/dev/null &&
				DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends "$SRC_PKG" >/dev/null; }
	fi
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	# shellcheck disable=SC2046,SC2086 # a list of members
	tar -xJf "$TARBALL" -C "$dir.tmp" --strip-components=1 $(printf "$SRC_PKG/%s " $MEMBERS)
	dpkg-query -W -f='${Package} ${Version}\n' "$SRC_PKG" >"$dir.tmp/VERSION" 2>/dev/null ||
		echo "$SRC_PKG" >"$dir.tmp/VERSION"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	log "YNL tools from $(cat "$dir/VERSION") in $dir"
fi

if [ -n "$tree" ]; then
	rm -rf "$tree"
	mkdir -p "$tree/tools/net/ynl" "$tree/netlink/specs"
	cp -r "$dir/tools/net/ynl/cli.py" "$dir/tools/net/ynl/lib" "$tree/tools/net/ynl/"
	find "$tree/tools" -name __pycache__ -prune -exec rm -rf {} +
	cp "$dir"/Documentation/netlink/*.yaml "$tree/netlink/"
	cp "$dir/Documentation/netlink/specs/nlctrl.yaml" "$tree/netlink/specs/"
	cp "$REPO/Documentation/netlink/specs/fasttrack.yaml" "$tree/netlink/specs/"
	cp "$dir/VERSION" "$tree/VERSION"
fi
echo "$dir"
