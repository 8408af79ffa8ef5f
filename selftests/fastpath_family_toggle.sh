#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# "ftctl disable vlan22 ipv6": IPv6 arriving on VLAN 22 goes back to the slow
# path, at once for a connection in flight, while IPv4 stays fast; "ftctl
# enable vlan22 ipv6" restores the fast path.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV

fp_rand size 2097152 4194304
file=$(fp_mkfile v6 "$size")
file4=$(fp_mkfile v4 "$size")

# Both families enabled: IPv6 is fast.
fp_begin
fp_tcp_transfer "IPv6, both enabled" 6 "$file"
fp_end
fp_check_offload "IPv6, both enabled" "$size" "$FPD_C2S" "$FPD_CV6"

# Disable IPv6 on vlan22 in the middle of an offloaded IPv6 connection.
fp_rand size_s 6291456 8388608
stream=$(fp_mkfile stream "$size_s")
fp_begin
fp_stream_start s6 6 "$stream"
if fp_wait_fast "$cdev" 6 $((FP0_CV6 + 262144)) 20000; then
	pass "mid-stream: the IPv6 connection is offloaded"
else
	fail "mid-stream: the IPv6 connection is offloaded" \
		"fast-path IPv6 bytes on $cdev: $(fp_dev_bytes "$cdev" 6)"
fi
check "ftctl disable $cdev ipv6" ip netns exec "$NS_ROUTER" ftctl disable "$cdev" ipv6
fp_stream_running "mid-stream disable"
check_output "ftctl show: $cdev has ipv4 on, ipv6 off" "ipv4=true ipv6=false" \
	fp_state "$cdev"
fp_read
at_disable=$FP_CV6
fp_stream_finish "mid-stream disable" s6 "$stream"
fp_end
# The fast-path counter stops at the disable; every byte it did not carry
# went through the forward chain.
check_eq "mid-stream: no IPv6 byte on $cdev took the fast path after the disable" \
	"$at_disable" "$FP_CV6"
rest=$((size_s - FPD_CV6))
log_info "mid-stream: $FPD_CV6 B took the fast path before the disable; the forward chain saw $FPD_C2S B of the $rest B left"
check_ge "mid-stream: the forward chain saw the rest of the stream (>= $FP_FAST_MIN_PCT%)" \
	$((FPD_C2S * 100)) $((FP_FAST_MIN_PCT * rest))

# IPv6 off, IPv4 on.
fp_begin
fp_tcp_transfer "IPv6, vlan22 ipv6 disabled" 6 "$file"
fp_end
fp_check_slow "IPv6, vlan22 ipv6 disabled" "$size" "$FPD_C2S" "$FPD_CV6"
fp_begin
fp_tcp_transfer "IPv4, vlan22 ipv6 disabled" 4 "$file4"
fp_end
fp_check_offload "IPv4, vlan22 ipv6 disabled" "$size" "$FPD_C2S" "$FPD_CV4"

# Re-enabled: IPv6 is fast again.
check "ftctl enable $cdev ipv6" ip netns exec "$NS_ROUTER" ftctl enable "$cdev" ipv6
check_output "ftctl show: $cdev has both families on" "ipv4=true ipv6=true" \
	fp_state "$cdev"
fp_begin
fp_tcp_transfer "IPv6, re-enabled" 6 "$file"
fp_end
fp_check_offload "IPv6, re-enabled" "$size" "$FPD_C2S" "$FPD_CV6"

fp_exit
