#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch the Debian source of the installed qemu (its plugin header,
# include/qemu/qemu-plugin.h, and contrib/plugins/cache.c) and print the
# tree's path. The machine's own apt sources are turned into deb-src ones in
# a private apt directory: no file of the system's apt is changed.
#
# usage: bench/prof/qemu-src.sh [DIR]   (DIR: bench/prof/out/qemu-src)
# A tree already fetched for the same version is reused.
set -eu -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-$here/out/qemu-src}
# The source version of the installed binaries (not the binNMU's "+bN").
ver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null) ||
	{ echo "qemu-src.sh: qemu-system-x86 is not installed" >&2; exit 1; }
tree() { find "$dest" -mindepth 5 -maxdepth 5 -path '*/include/qemu/qemu-plugin.h' | head -n 1; }
if [ "$(cat "$dest/version" 2>/dev/null)" = "$ver" ] && [ -n "$(tree)" ]; then
	dirname "$(dirname "$(dirname "$(tree)")")"
	exit 0
fi
command -v dpkg-source >/dev/null || {
	echo "qemu-src.sh: dpkg-source is missing (apt-get install dpkg-dev)" >&2
	exit 1
}
rm -rf "$dest"
apt=$dest/apt
mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$apt/cache/archives/partial" "$dest/src"
# deb lines become deb-src; deb822 stanzas become "Types: deb-src".
: >"$apt/sources.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	sed -n 's/^[[:space:]]*deb[[:space:]]\+/deb-src /p' "$f" >>"$apt/sources.list"
done
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	sed 's/^Types:.*/Types: deb-src/I' "$f" >"$apt/sources.list.d/$(basename "$f")"
done
opts=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o "Dir::Etc::sourceparts=$apt/sources.list.d"
	-o "Dir::State::lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
# A third-party source without deb-src fails its part of the update: qemu's
# comes from the distribution's, and apt-get source says so if it is not.
apt-get "${opts[@]}" -q update >"$dest/update.log" 2>&1 ||
	echo "qemu-src.sh: apt-get update had errors (see $dest/update.log)" >&2
(cd "$dest/src" && apt-get "${opts[@]}" -q source "qemu=$ver") >"$dest/source.log" 2>&1 ||
	{ tail -n 20 "$dest/source.log" >&2; exit 1; }
[ -n "$(tree)" ] || { echo "qemu-src.sh: no include/qemu/qemu-plugin.h under $dest" >&2; exit 1; }
echo "$ver" >"$dest/version"
dirname "$(dirname "$(dirname "$(tree)")")"
