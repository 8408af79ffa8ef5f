#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Make sure $CLANG can build a libFuzzer target with ASan and UBSan; install
# Debian's clang and its runtime libraries when it cannot.
set -eu
CLANG=${CLANG:-clang}
probe() {
	dir=$(mktemp -d)
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >"$dir/p.c"
	"$CLANG" -fsanitize=fuzzer,address,undefined "$dir/p.c" -o "$dir/p" >/dev/null 2>&1
	rc=$?
	rm -rf "$dir"
	return $rc
}
probe && exit 0
echo "fuzz: installing clang and libFuzzer (Debian packages)" >&2
# Through the VM harness's deps.sh, which takes one install at a time.
deps=$(dirname "$0")/../vm/deps.sh
bash "$deps" clang libclang-rt-dev || bash "$deps" clang-14 libclang-rt-14-dev
probe || { echo "fuzz: $CLANG still cannot build -fsanitize=fuzzer targets" >&2; exit 1; }
