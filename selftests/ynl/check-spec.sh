#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make spec-check`: the YNL spec against the kernel's genetlink schema, and
# the uapi header and the module's policies against what the kernel's
# ynl-gen-c.py generates from it (selftests/ynl/check_spec.py). The ynl
# tools and schemas come from Debian's linux-source-6.12, extracted once
# into $CACHE/ynl (selftests/vm/ynl-tools.sh).
set -eu -o pipefail
. "$(dirname "$0")/../vm/common.sh"

ynl=$(bash "$VM_DIR/ynl-tools.sh")
/usr/bin/python3 "$REPO/selftests/ynl/check_spec.py" "$REPO" \
	"$ynl/tools/net/ynl" "$ynl/Documentation/netlink"
