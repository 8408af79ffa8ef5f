#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# Forwarding switched off under an offloaded stream: "sysctl
# net.ipv4.ip_forward=0" (IPv6: net.ipv6.conf.all.forwarding=0) in the
# router. The router is no router any more, for the fast path too:
#  - from the moment sysctl returns, the fast path's byte counters of the
#    family (both router devices) do not grow (read in the same shell,
#    then watched for a second);
#  - the stream stops on both paths: from 100 ms on, the server receives
#    nothing more of it;
# and forwarding back on lets the stream continue: it completes intact.
# Checksum offload (and with it TSO) is off, so that the stream is a steady
# flow of MTU-sized frames.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
require_cmd ethtool
fp_setup_stick
fp_csum_offload off
defer ip netns exec "$NS_ROUTER" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1

for fam in 4 6; do
	if [ "$fam" = 4 ]; then key=net.ipv4.ip_forward; else key=net.ipv6.conf.all.forwarding; fi
	fp_port port
	st_srv_count tcp "$port"
	stream=$(fp_mkfile "s$fam" 8388608)
	fp_stream_start "s$fam" "$fam" "$stream" "" "" "$port"
	st_offloaded "IPv$fam" "$fam"

	st_act off sysctl -w "$key=0"
	st_check_act "IPv$fam: sysctl $key=0" off
	fast0=$(st_fast_json "$fam" <"$FP_TMP/off.json")
	t0=$(now_ms)
	fp_stream_running "IPv$fam $key=0"
	st_wait_until $((t0 + 100 * FT_SLOWDOWN))
	srv1=$(st_srv_bytes "$port")
	st_check_stays "IPv$fam: the fast path forwards nothing with forwarding off (1 s)" \
		1000 "$fast0" st_fast "$fam"
	st_check_quiet "IPv$fam: the stream stops within 100 ms: the server receives nothing more (1 s)" \
		"$t0" 1100 "$srv1" st_srv_bytes "$port"
	log_info "IPv$fam: with forwarding off: fast path $(($(st_fast "$fam") - fast0)) B, server $(($(st_srv_bytes "$port") - srv1)) B"

	check "IPv$fam: sysctl $key=1" ip netns exec "$NS_ROUTER" sysctl -qw "$key=1"
	# TCP retransmits with back-off: the next try is a few seconds away.
	srv2=$(st_srv_bytes "$port")
	st_check_grows "IPv$fam: the stream continues with forwarding back on" 10000 "$srv2" \
		st_srv_bytes "$port"
	st_stream_finish "IPv$fam forwarding back on" "s$fam" "$stream" 30000
done

fp_exit
