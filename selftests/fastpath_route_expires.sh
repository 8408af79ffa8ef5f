#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_mkfile and
# st_gateways set variables; busywait and check call functions by name.
# An IPv6 route that expires under an offloaded stream. IPv6 routes may
# carry an expiry time (Router Advertisements give them one); once it has
# passed, the stack's lookups skip the route, although it stays in the
# table until the route GC deletes it (net.ipv6.route.gc_interval, an hour
# here), and nothing is notified and no serial number moves: the fast path
# must see the time pass by itself, at a flow's first packet of a jiffy.
# The client streams to SVC 2001:db8:250::2 on the server's lo, which the
# router reaches through NET 2001:db8:250::/48 via G1. In the middle of the
# offloaded stream, SVC/128 via G2 is added, to expire EXPIRES s later:
# the stream moves to G2 and is offloaded there, and nothing of it goes
# through G1 until the expiry; within a second of it, the stream goes
# through G1 again, the fast path carries it, no frame of it goes through
# G2 any more, and it completes intact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

SVC6=2001:db8:250::2 NET6=2001:db8:250::/48
EXPIRES=$((10 * FT_SLOWDOWN))

fp_init
fp_setup_stick
fp_csum_offload off
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV

must ip -n "$NS_SERVER" addr add "$SVC6/128" dev lo
st_gateways 198.18.250.2 "$SVC6"
must ip netns exec "$NS_ROUTER" sysctl -qw net.ipv6.route.gc_interval=3600
must ip -n "$NS_ROUTER" -6 route add "$NET6" via "$ST_G1_IP6" dev "$sdev"
must busywait 10000 ping_ok "$NS_CLIENT" "$SVC6"

stream=$(fp_mkfile expires $((16777216 * FT_SLOWDOWN)))
st_stream_start_steady expires 6 "$stream" "$SVC6"
st_offloaded "IPv6 via NET" 6
st_check_grows "IPv6 via NET: the stream goes through G1" 2000 "$(st_gw_bytes 1 6)" \
	st_gw_bytes 1 6

desc="IPv6 SVC/128 via G2, expires $EXPIRES"
g2=$(st_gw_bytes 2 6)
t_add=$(now_ms)
# The route expires at the earliest EXPIRES s after this.
t_exp=$((t_add + EXPIRES * 1000))
check "$desc: ip -6 route add" ip -n "$NS_ROUTER" -6 route add "$SVC6/128" \
	via "$ST_G2_IP6" dev "$sdev" expires "$EXPIRES"
st_check_grown "$desc: the stream moves to G2 within 1 s" "$t_add" 1000 "$g2" st_gw_bytes 2 6
g1=$(st_gw_bytes 1 6)
fast1=$(fp_num "$(fp_dev_bytes "$cdev" 6)")
check "$desc: the fast path carries the stream again" \
	fp_wait_fast "$cdev" 6 $((fast1 + 262144)) $((EXPIRES * 1000))
if [ "$(now_ms)" -ge $((t_exp - 1000)) ]; then
	fail "$desc: the stream was offloaded a second before the expiry" \
		"it took until $(($(now_ms) - t_add)) ms of $((EXPIRES * 1000))"
fi
# Two seconds ahead, times FT_SLOWDOWN: reading a counter can take most
# of a second in a guest on a loaded host, several on the debug kernel,
# and must end before the route may expire.
st_wait_until $((t_exp - 2000 * FT_SLOWDOWN))
g1_now=$(st_gw_bytes 1 6)
if [ "$(now_ms)" -ge "$t_exp" ]; then
	fail "$desc: none of the stream went through G1 before the expiry" \
		"reading G1's counter ended after the expiry: the guest is too slow"
else
	check_eq "$desc: none of the stream went through G1 before the expiry" "$g1" "$g1_now"
fi

# The expiry is at t_exp, plus what "ip route add" took: a second covers it.
st_check_grown "$desc: the stream moves back to G1 within 1 s of the expiry" "$t_exp" \
	1000 "$g1" st_gw_bytes 1 6
fast1=$(fp_num "$(fp_dev_bytes "$cdev" 6)")
check "$desc: the fast path carries the stream again after the expiry" \
	fp_wait_fast "$cdev" 6 $((fast1 + 262144)) 20000
g2=$(st_gw_bytes 2 6)
st_check_grows "$desc: the stream goes on through G1" 2000 "$(st_gw_bytes 1 6)" st_gw_bytes 1 6
check_eq "$desc: no frame of it went through G2 after it moved back" "$g2" \
	"$(st_gw_bytes 2 6)"
fp_stream_running "$desc"
st_stream_finish "$desc" expires "$stream" 30000

fp_exit
