#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# The plain two-interface router, no VLANs: fasttrack on eth1 (client side)
# and eth2 (server side). TCP transfers in both directions and a UDP
# transfer, IPv4 and IPv6, arrive intact, mostly via the fast path.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_plain

for fam in 4 6; do
	fp_rand size 4194304 8388608
	file=$(fp_mkfile "tcp$fam" "$size")

	fp_begin
	fp_tcp_transfer "IPv$fam TCP upload" "$fam" "$file"
	fp_end
	fp_check_offload "IPv$fam TCP upload" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"

	fp_begin
	fp_tcp_fetch "IPv$fam TCP download" "$fam" "$file"
	fp_end
	fast=$(fp_sdelta "$fam")
	fp_check_offload "IPv$fam TCP download" "$size" "$FPD_S2C" "$fast"

	fp_rand size 1048576 2097152
	file=$(fp_mkfile "udp$fam" "$size")
	fp_begin
	fp_udp_transfer "IPv$fam UDP" "$fam" "$file"
	fp_end
	fp_check_offload "IPv$fam UDP" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
done

fp_exit
