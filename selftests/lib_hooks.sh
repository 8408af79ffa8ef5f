# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests of "the fast path never bypasses what the operator
# configured" (fastpath_ingress_hooks, fastpath_egress_hooks,
# fastpath_ruleset_change): source lib.sh and lib_fastpath.sh, then this.
#
# What reached the server is counted in the server's kernel, by named nft
# counters in table "inet ft_hk_srv" of the server netns (hk_srv_count),
# not by the size of the file socat writes: a reader that the single vCPU
# schedules late must not look like a stream that stopped, or went on.
#
# hk_check_cut proves that an action cut a running stream within 100 ms
# (times FT_SLOWDOWN): the server's counter for the stream does not move
# between commit + 100 ms and about a second later.
# shellcheck shell=sh disable=SC3043,SC2154 # dash has "local"; lib.sh and
# lib_fastpath.sh set the NS_* and FP* variables.

HK_SRV_TABLE="inet ft_hk_srv"

# How soon an action must cut a stream, and how long after that the
# server's counter must stay still, in ms (both times FT_SLOWDOWN).
HK_CUT_MS=100
HK_QUIET_MS=1000

# hk_client_ip FAMILY / hk_saddr FAMILY: the client's address, and an nft
# match on it as source ("ip saddr 198.18.22.2").
hk_client_ip() { if [ "$1" = 4 ]; then echo "$CLIENT_IP4"; else echo "$CLIENT_IP6"; fi; }
hk_saddr() { if [ "$1" = 4 ]; then echo "ip saddr $CLIENT_IP4"; else echo "ip6 saddr $CLIENT_IP6"; fi; }

# hk_l3 FAMILY: the nft payload protocol of FAMILY (ip or ip6).
hk_l3() { if [ "$1" = 4 ]; then echo ip; else echo ip6; fi; }

# hk_srv_init: the server's counting table, a chain that sees every
# packet the server receives, before conntrack.
hk_srv_init() {
	must ip netns exec "$NS_SERVER" nft -f - <<-EOF
		table $HK_SRV_TABLE {
			chain pre {
				type filter hook prerouting priority raw - 10;
			}
		}
	EOF
}

# hk_srv_count NAME FAMILY PORT [MATCH...]: counter NAME in the server
# counts the client's packets to TCP PORT (that also match MATCH, nft
# words such as "ip dscp cs4").
hk_srv_count() {
	local name="$1" fam="$2" port="$3"
	shift 3
	# shellcheck disable=SC2086 # HK_SRV_TABLE is "FAMILY NAME"
	must ip netns exec "$NS_SERVER" nft add counter $HK_SRV_TABLE "$name"
	# shellcheck disable=SC2046,SC2068,SC2086 # nft words
	must ip netns exec "$NS_SERVER" nft add rule $HK_SRV_TABLE pre \
		$(hk_saddr "$fam") tcp dport "$port" $@ counter name "$name"
}

# hk_counter NS TABLE NAME: "PACKETS BYTES" of the named counter NAME of
# TABLE ("FAMILY NAME") in NS, "0 0" when it cannot be read.
hk_counter() {
	local out
	# shellcheck disable=SC2086 # TABLE is "FAMILY NAME"
	out=$(ip netns exec "$1" nft list counter $2 "$3" 2>/dev/null |
		awk '$1 == "packets" { print $2, $4; exit }')
	echo "${out:-0 0}"
}

# hk_srv_pkts NAME / hk_srv_bytes NAME: the server's counter NAME.
hk_srv_pkts() {
	# shellcheck disable=SC2046 # split into words
	set -- $(hk_counter "$NS_SERVER" "$HK_SRV_TABLE" "$1")
	echo "$1"
}
hk_srv_bytes() {
	# shellcheck disable=SC2046 # split into words
	set -- $(hk_counter "$NS_SERVER" "$HK_SRV_TABLE" "$1")
	echo "$2"
}

# hk_srv_grew NAME FROM: the server's counter NAME is above FROM bytes.
hk_srv_grew() { [ "$(hk_srv_bytes "$1")" -gt "$2" ]; }

# hk_check_flowing DESC NAME: the stream counted by NAME is moving now:
# its counter grows within 3 s. Before an action that must cut a stream,
# so that "it did not grow afterwards" does not pass for a stream that had
# already stopped.
hk_check_flowing() {
	local b0
	b0=$(hk_srv_bytes "$2")
	if busywait 3000 hk_srv_grew "$2" "$b0"; then
		pass "$1"
	else
		fail "$1" "the server's counter $2 stayed at $b0 B for 3 s" \
			"ftctl -j stats: $(fp_stats)"
	fi
}

# hk_sleep_until MS: wait until now_ms reaches MS. This is not a wait for
# a condition (busywait does those) but the edge of a measurement window.
hk_sleep_until() {
	while [ "$(now_ms)" -lt "$1" ]; do
		sleep 0.01
	done
}

# hk_check_cut DESC NAME T0: the stream that the server's counter NAME
# counts was cut by an action that completed at T0 (now_ms): the counter
# does not grow from T0 + HK_CUT_MS to about HK_QUIET_MS later.
hk_check_cut() {
	local desc="$1" name="$2" t0="$3" a b ta tb
	hk_sleep_until $((t0 + HK_CUT_MS * FT_SLOWDOWN))
	ta=$(($(now_ms) - t0))
	a=$(hk_srv_bytes "$name")
	hk_sleep_until $((t0 + (HK_CUT_MS + HK_QUIET_MS) * FT_SLOWDOWN))
	tb=$(($(now_ms) - t0))
	b=$(hk_srv_bytes "$name")
	log_info "$desc: the server had $a B at +$ta ms, $b B at +$tb ms"
	if [ "$a" = "$b" ]; then
		pass "$desc"
	else
		fail "$desc" "the server received $((b - a)) B between +$ta ms and +$tb ms" \
			"after the action (it must stop within $((HK_CUT_MS * FT_SLOWDOWN)) ms)" \
			"ftctl -j stats: $(fp_stats)"
	fi
}

# hk_check_recovers DESC NAME: after the action is undone, the stream
# moves again: the server's counter NAME grows within 10 s (TCP retransmits
# after its backoff).
hk_check_recovers() {
	local b0
	b0=$(hk_srv_bytes "$2")
	if busywait 10000 hk_srv_grew "$2" "$b0"; then
		pass "$1"
	else
		fail "$1" "the server's counter $2 stayed at $b0 B for 10 s" \
			"ftctl -j stats: $(fp_stats)"
	fi
}

# hk_check_fast_again DESC FAMILY: the fast path carries the stream again:
# it forwards another 64 KiB received on the client-side device within 10 s
# (the stream sends 250 KB/s).
hk_check_fast_again() {
	local cdev="$ROUTER_CLIENT_DEV" f0
	f0=$(fp_num "$(fp_dev_bytes "$cdev" "$2")")
	if fp_wait_fast "$cdev" "$2" $((f0 + 65536)) 10000; then
		pass "$1"
	else
		fail "$1" "the fast path forwarded $(($(fp_num "$(fp_dev_bytes "$cdev" "$2")") - f0)) B in 10 s" \
			"ftctl -j stats: $(fp_stats)"
	fi
}

# hk_wait_offloaded DESC FAMILY: the stream started with fp_stream_start
# is offloaded: the fast path forwards 256 KiB of it.
hk_wait_offloaded() {
	local cdev="$ROUTER_CLIENT_DEV"
	if fp_wait_fast "$cdev" "$2" $(($(fp_num "$(fp_dev_bytes "$cdev" "$2")") + 262144)) 20000; then
		pass "$1"
	else
		fail "$1" "ftctl -j stats: $(fp_stats)"
	fi
}

# hk_pct_ge DESC PART WHOLE PCT: PART is at least PCT % of WHOLE, and
# WHOLE is not 0.
hk_pct_ge() {
	if [ "$3" -gt 0 ] && [ $(($2 * 100)) -ge $(($3 * $4)) ]; then
		pass "$1"
	else
		fail "$1" "$2 of $3 ($(fp_pct "$2" "$3")); at least $4% expected"
	fi
}

# hk_tx_packets NS DEV: DEV's tx packet counter (ip -s link).
hk_tx_packets() {
	ip -n "$1" -s link show dev "$2" | awk '
		$1 == "TX:" { getline; print $2; exit }'
}
