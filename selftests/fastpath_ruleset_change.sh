#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# The fast path never bypasses a change of the forward ruleset. Router-on-a-
# stick, for IPv4 and IPv6, on one offloaded stream each:
#
# 1. "nft insert rule inet ft_fwd forward ip saddr CLIENT tcp dport PORT
#    counter drop" cuts the stream within 100 ms of the commit (the server's
#    kernel counts no more of its bytes from commit + 100 ms to a second
#    later), the rule's counter sees the packets it drops, and the
#    "ruleset_changed" counter of "ftctl -j stats" grows. Deleting the rule
#    by its handle lets the connection go on: the fast path learns it
#    again (learned grows) and carries it.
# 2. The same with a named set: the forward chain drops "ip saddr
#    @blocked4" (ip6 saddr @blocked6), empty at first. Adding the client
#    to the set cuts the stream within 100 ms; deleting the element lets it
#    be learned again.
# The stream then completes intact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_hooks.sh"

fp_init
fp_setup_stick
hk_srv_init

nft_r() { must ip netns exec "$NS_ROUTER" nft "$@"; }

# The block lists, empty, checked before anything else in the chain.
nft_r add set inet ft_fwd blocked4 "{ type ipv4_addr; }"
nft_r add set inet ft_fwd blocked6 "{ type ipv6_addr; }"
nft_r insert rule inet ft_fwd forward ip6 saddr @blocked6 counter drop comment '"hk-set6"'
nft_r insert rule inet ft_fwd forward ip saddr @blocked4 counter drop comment '"hk-set4"'

# rule_field COMMENT packets|handle: of the forward chain's rule with
# comment COMMENT, the packets its counter counted, or its handle.
rule_field() {
	ip netns exec "$NS_ROUTER" nft -a list chain inet ft_fwd forward | awk -v c="\"$1\"" -v f="$2" '
		index($0, "comment " c " ") || $0 ~ ("comment " c "$") {
			for (i = 1; i < NF; i++) if ($i == f) { print $(i + 1); exit } }'
}

# check_ruleset_changed DESC R0: "ruleset_changed" of ftctl -j stats is
# above R0 within a second.
check_ruleset_changed() {
	if busywait 1000 fp_stat_ge ruleset_changed $(($2 + 1)); then
		pass "$1"
	else
		fail "$1" "ruleset_changed: $(fp_stat ruleset_changed) (was $2; null: ftctl does not report it)" \
			"ftctl -j stats: $(fp_stats)"
	fi
}

# check_learned_again DESC L0: the connection is learned again: learned
# grows from L0 within 5 s. It runs once the stream moves again
# (hk_check_recovers), when its packets go through the slow path, which
# learns them at once. (By at least one: a reply-direction flow learned
# from an ACK the server sent during the cut may still be cached.)
check_learned_again() {
	if busywait 5000 fp_stat_ge learned $(($2 + 1)); then
		pass "$1"
	else
		fail "$1" "learned: $(fp_stat learned), was $2" "ftctl -j stats: $(fp_stats)"
	fi
}

for fam in 4 6; do
	cip=$(hk_client_ip "$fam")
	fp_port port
	hk_srv_count "s$fam" "$fam" "$port"
	stream=$(fp_mkfile "s$fam" 8388608)
	fp_stream_start "s$fam" "$fam" "$stream" "" "" "$port"
	hk_wait_offloaded "IPv$fam: the stream is offloaded" "$fam"

	# ------------------------------------------- a rule inserted, deleted --
	d="IPv$fam, nft insert rule ... drop"
	hk_check_flowing "$d: the stream flows before the commit" "s$fam"
	r0=$(fp_num "$(fp_stat ruleset_changed)")
	nft_r insert rule inet ft_fwd forward $(hk_saddr "$fam") tcp dport "$port" \
		counter drop comment "\"hk-$port\""
	t0=$(now_ms)
	hk_check_cut "$d: the stream stops within $((HK_CUT_MS * FT_SLOWDOWN)) ms" "s$fam" "$t0"
	check_ruleset_changed "$d: ftctl stats ruleset_changed grows" "$r0"
	n=$(fp_num "$(rule_field "hk-$port" packets)")
	check_ge "$d: the rule dropped the stream's packets ($n)" "$n" 1
	fp_stream_running "$d"
	handle=$(rule_field "hk-$port" handle)
	learned0=$(fp_num "$(fp_stat learned)")
	nft_r delete rule inet ft_fwd forward handle "$handle"
	d="IPv$fam, the rule deleted (handle $handle)"
	hk_check_recovers "$d: the stream goes on" "s$fam"
	check_learned_again "$d: the connection is learned again" "$learned0"
	hk_check_fast_again "$d: the fast path carries it again" "$fam"

	# ---------------------------------------- an element added, deleted --
	d="IPv$fam, nft add element inet ft_fwd blocked$fam { $cip }"
	hk_check_flowing "$d: the stream flows before the commit" "s$fam"
	r0=$(fp_num "$(fp_stat ruleset_changed)")
	nft_r add element inet ft_fwd "blocked$fam" "{ $cip }"
	t0=$(now_ms)
	hk_check_cut "$d: the stream stops within $((HK_CUT_MS * FT_SLOWDOWN)) ms" "s$fam" "$t0"
	check_ruleset_changed "$d: ftctl stats ruleset_changed grows" "$r0"
	n=$(fp_num "$(rule_field "hk-set$fam" packets)")
	check_ge "$d: the set's rule dropped the stream's packets ($n)" "$n" 1
	fp_stream_running "$d"
	learned0=$(fp_num "$(fp_stat learned)")
	nft_r delete element inet ft_fwd "blocked$fam" "{ $cip }"
	d="IPv$fam, the element deleted"
	hk_check_recovers "$d: the stream goes on" "s$fam"
	check_learned_again "$d: the connection is learned again" "$learned0"
	hk_check_fast_again "$d: the fast path carries it again" "$fam"

	fp_stream_finish "IPv$fam ruleset change" "s$fam" "$stream"
done

fp_exit
