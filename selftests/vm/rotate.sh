#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rotate.sh WORD...: the WORD whose turn this commit is (commit_index()
# mod the number of WORDs), for what CI runs one of in turn: the
# Makefile's PLATFORM_KERNELS. Nothing when no WORD is given.
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || exit 0
commit_index
words=("$@")
echo "${words[INDEX % $#]}"
