#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# malformed, with the XDP tier on the router's trunk (FP_XDP=1): every
# malformed frame meets the tier first. The kernel survives, the punt
# counters count each case by its reason (the tier passes what it does not
# fully understand up to the skb tier, which counts it), and the server
# receives what the stack alone gives it. Skips where there is no XDP tier.
FP_XDP=1
export FP_XDP
exec "$(dirname "$0")/malformed.sh"
