#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_port and
# fp_rand set variables by name; check calls functions by name.
# An offloaded connection's conntrack entry does not run out while its
# packets flow, however late the GC comes (follow-up of 0b8d653). The
# stack refreshes the entry at every packet; the fast path leaves that to
# the GC, whose visit may be a sweep (8 s) away on a big table, so it
# refreshes an entry itself when the entry comes close to expiry. The
# router's UDP timeouts are 3 s, shorter than the GC's way back, as a
# timeout policy or sysctl can make them; the GC is held off (debugfs
# fasttrack/gc_pause, FT_TEST_HOOKS builds) while a UDP exchange goes on
# for 25 s, a datagram every 50 ms. Conntrack must keep one entry for it
# all along, as it does on the stack: one entry that counts every
# datagram.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
require_cmd udpecho conntrack
fp_setup_plain

fp_debugfs gc_pause
gc_pause=$FP_DBG/gc_pause
defer sh -c "echo 0 >'$gc_pause'"

for s in nf_conntrack_udp_timeout nf_conntrack_udp_timeout_stream; do
	must ip netns exec "$NS_ROUTER" sysctl -qw "net.netfilter.$s=3"
done
must ip netns exec "$NS_ROUTER" sysctl -qw net.netfilter.nf_conntrack_acct=1

for fam in 4 6; do
	fp_port port
	fp_rand sport 10000 60000
	fp_bg "echo$fam" ip netns exec "$NS_SERVER" udpecho -s "$port"
	srv=$FP_PID
	must busywait 5000 fp_listening "$NS_SERVER" udp "$port"
	# send COUNT: COUNT datagrams on the connection, all answered.
	send() {
		ip netns exec "$NS_CLIENT" udpecho -c "$(fp_server_ip "$fam")" "$port" "$1" 10000 "$sport"
	}
	check "IPv$fam: the first exchange is answered" send 10
	gone0=$(fp_num "$(fp_stat ct_gone)")
	fast0=$(fp_num "$(fp_stat forwarded.packets)")
	must sh -c "echo 1 >'$gc_pause'"
	check "IPv$fam: 25 s of datagrams, the GC held off, are answered" send 500
	check_ge "IPv$fam: the fast path forwards them" \
		$(($(fp_num "$(fp_stat forwarded.packets)") - fast0)) 800
	check_le "IPv$fam: entries that ran out under the live connection (ct_gone)" \
		$(($(fp_num "$(fp_stat ct_gone)") - gone0)) 0
	acct=$(fp_ct_acct "$fam" udp "$port")
	if [ "$(echo "$acct" | cut -d' ' -f1,3)" = "510 510" ]; then
		pass "IPv$fam: one conntrack entry counts all 510 datagrams each way"
	else
		fail "IPv$fam: one conntrack entry counts all 510 datagrams each way" \
			"packets and bytes, original and reply: $acct"
	fi
	must sh -c "echo 0 >'$gc_pause'"
	fp_kill "$srv"
done

fp_exit
