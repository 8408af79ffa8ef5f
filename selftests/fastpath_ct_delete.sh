#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# "conntrack -D" of one offloaded connection, and the fast path must not
# forward one more packet of it. The router does not pick up connections
# mid-stream (nf_conntrack_tcp_loose=0), so once its entry is gone a packet
# of the connection has no conntrack entry, is "ct state invalid", and the
# forward ruleset drops it: the connection cannot continue through the
# router. From the moment "conntrack -D" returns:
#  - the fast path's byte counters of the family (both router devices) do
#    not grow any more (read in the same shell as the delete, then watched
#    for a second);
#  - the stream stops: the server receives nothing more of it (after
#    100 ms for what was already on the wire);
#  - conntrack does not create a new entry for it, and fasttrack drops
#    both cached directions.
# Checksum offload is off on the veths, so that TSO is off too: the stream
# is a steady ~170 frames/s, not a 64 KB burst every few hundred ms that
# could fall between two reads.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
require_cmd ethtool
fp_setup_stick
fp_csum_offload off
must ip netns exec "$NS_ROUTER" sysctl -qw net.netfilter.nf_conntrack_tcp_loose=0

for fam in 4 6; do
	if [ "$fam" = 4 ]; then cip=$CLIENT_IP4; else cip=$CLIENT_IP6; fi
	fp_port port
	st_srv_count tcp "$port"
	stream=$(fp_mkfile "s$fam" 8388608)
	fp_stream_start "s$fam" "$fam" "$stream" "" "" "$port"
	st_offloaded "IPv$fam" "$fam"
	check_eq "IPv$fam: conntrack has one entry for the connection" 1 "$(st_ct_count "$fam" tcp "$port")"
	set -- $(fp_stat ct_gone)
	gone0=$1

	# Delete exactly this connection, and read the fast path's counters
	# in the same shell, right after.
	st_act del conntrack -D -f "ipv$fam" -p tcp --orig-src "$cip" --dport "$port"
	st_check_act "IPv$fam: conntrack -D of the connection" del
	check "IPv$fam: conntrack deleted one entry" grep -q '1 flow entries have been deleted' "$FP_TMP/del.out"
	fast0=$(st_fast_json "$fam" <"$FP_TMP/del.json")
	t0=$(now_ms)
	fp_stream_running "IPv$fam conntrack -D"
	# What was on the wire when the entry went has arrived after 100 ms.
	st_wait_until $((t0 + 100 * FT_SLOWDOWN))
	srv1=$(st_srv_bytes "$port")
	st_check_stays "IPv$fam: the fast path forwards nothing after conntrack -D (1 s)" \
		1000 "$fast0" st_fast "$fam"
	st_check_quiet "IPv$fam: the stream stops: the server receives nothing more (1 s)" \
		"$t0" 1100 "$srv1" st_srv_bytes "$port"
	check_eq "IPv$fam: conntrack did not pick the connection up again" 0 "$(st_ct_count "$fam" tcp "$port")"
	if busywait 1000 fp_stat_ge ct_gone $((gone0 + 2)); then
		pass "IPv$fam: fasttrack dropped both cached directions (ct_gone)"
	else
		fail "IPv$fam: fasttrack dropped both cached directions (ct_gone)" "ftctl -j stats: $(fp_stats)"
	fi
	log_info "IPv$fam: fast path after the delete: $(($(st_fast "$fam") - fast0)) B; server: $(st_srv_bytes "$port") B in all"
	st_stream_stop
done

fp_exit
