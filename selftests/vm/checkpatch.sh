#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make style`: checkpatch.pl --strict over the kernel code. checkpatch.pl
# and its data files come from Debian's linux-source tarball, extracted once
# into $CACHE/checkpatch. Any ERROR, WARNING or CHECK fails.
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

SRC_PKG=linux-source-6.1
TARBALL=/usr/src/$SRC_PKG.tar.xz
FILES="scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch"
dir=$CACHE/checkpatch

if [ ! -x "$dir/checkpatch.pl" ]; then
	if [ ! -f "$TARBALL" ]; then
		log "installing $SRC_PKG for checkpatch.pl"
		bash "$VM_DIR/deps.sh" "$SRC_PKG" || die "cannot install $SRC_PKG"
	fi
	mkdir -p "$dir"
	# shellcheck disable=SC2046,SC2086 # a list of members
	tar -xJf "$TARBALL" -C "$dir" --strip-components=2 $(printf "$SRC_PKG/%s " $FILES)
fi

cd "$REPO"
mapfile -t files < <(find kmod -name '*.[ch]' ! -name '*.mod.c' | sort; echo uapi/linux/fasttrack.h)
# Run from outside the git tree, or checkpatch leaves a camelcase cache file.
out=$(cd "$dir" && ./checkpatch.pl --strict --no-tree --color=never -f "${files[@]/#/$REPO/}" 2>&1) &&
	rc=0 || rc=$?
out=${out//$REPO\//}
if [ "$rc" -ne 0 ] || grep -qE '^(ERROR|WARNING|CHECK):' <<<"$out"; then
	echo "$out"
	die "checkpatch --strict found problems"
fi
echo "checkpatch --strict: ${#files[@]} files clean"
