#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# The fast path carries TCP and UDP, IPv4 and IPv6, from VLAN 22 to VLAN
# 2222 on a router-on-a-stick: a transfer of several MB arrives intact, the
# router's forward chain sees only a small fraction of its bytes, and
# "ftctl -j show" counts the rest on the receiving VLAN device.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_stick

for fam in 4 6; do
	other=$((10 - fam))
	fp_rand size 4194304 8388608
	file=$(fp_mkfile "tcp$fam" "$size")

	fp_begin
	fp_tcp_transfer "IPv$fam TCP upload" "$fam" "$file"
	fp_end
	fp_check_offload "IPv$fam TCP upload" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
	check_eq "IPv$fam TCP upload: nothing counted as IPv$other" 0 "$(fp_cdelta "$other")"

	fp_begin
	fp_tcp_fetch "IPv$fam TCP download" "$fam" "$file"
	fp_end
	fast=$(fp_sdelta "$fam")
	fp_check_offload "IPv$fam TCP download" "$size" "$FPD_S2C" "$fast"
done

for fam in 4 6; do
	fp_rand size 2097152 4194304
	file=$(fp_mkfile "udp$fam" "$size")
	fp_begin
	fp_udp_transfer "IPv$fam UDP" "$fam" "$file"
	fp_end
	fp_check_offload "IPv$fam UDP" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
done

fp_exit
