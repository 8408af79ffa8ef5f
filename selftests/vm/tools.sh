#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the host-side programs that go into every guest: ftctl
# (make -C userspace) and each selftests/*.c helper, static, into
# $OUT/tools/<name>. A compiler warning in a helper fails the build.
set -eu
. "$(dirname "$0")/common.sh"

rm -rf "$OUT/tools"
mkdir -p "$OUT/tools"
log "building ftctl"
make -C "$REPO/userspace" >"$OUT/tools/ftctl.log" 2>&1 ||
	{ cat "$OUT/tools/ftctl.log" >&2; die "ftctl build failed"; }

for src in "$REPO"/selftests/*.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c)
	log "building selftests helper $name"
	if ! gcc -O2 -Wall -static -o "$OUT/tools/$name" "$src" >"$OUT/tools/$name.log" 2>&1 ||
		grep -q 'warning:' "$OUT/tools/$name.log"; then
		cat "$OUT/tools/$name.log" >&2
		die "building $src failed or warned"
	fi
done
