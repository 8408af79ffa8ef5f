#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154 # dash has local; fp_* set variables by name
# The fast path over QinQ: router-on-a-stick whose trunk carries S-VLAN 100
# (802.1ad), with the C-VLANs 22 and 2222 (802.1Q) inside it; fasttrack on
# the inner devices, trunk0.100.22 and trunk0.100.2222. TCP both ways and
# UDP, both families, are offloaded and intact. The switch's end strips
# both tags: a frame with the wrong stacking would not reach the hosts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_l2dev.sh"

fp_init
l2_setup_fp qinq

# What the router sends the server arrives in the switch on
# sw0.100.2222: S-tag 100 outside, C-tag 2222 inside.
rx() { fp_num "$(ip netns exec "$NS_SWITCH" cat /sys/class/net/sw0.100.2222/statistics/rx_bytes)"; }

rx0=$(rx)
l2_transfers qinq
check_ge "the switch got the uploads on sw0.100.2222" "$(rx)" $((rx0 + 4194304))

fp_exit
