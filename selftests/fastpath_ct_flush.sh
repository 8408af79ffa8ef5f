#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# "conntrack -F" in the middle of an offloaded stream: conntrack destroys
# the connection's entry, so the fast path must drop its entries within one
# second (ct_gone) and hand the next packets to the slow path, where
# conntrack picks the connection up again. The stream continues and
# completes intact, and the fast path learns it again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV

for fam in 4 6; do
	stream=$(fp_mkfile "s$fam" 8388608)
	fp_stream_start "s$fam" "$fam" "$stream"
	if fp_wait_fast "$cdev" "$fam" $(($(fp_dev_bytes "$cdev" "$fam") + 262144)) 20000; then
		pass "IPv$fam: the stream is offloaded"
	else
		fail "IPv$fam: the stream is offloaded" "ftctl -j stats: $(fp_stats)"
	fi
	set -- $(fp_stat flows ct_gone learned)
	flows0=$1 gone0=$2 learned0=$3
	check_ge "IPv$fam: both directions are cached" "$flows0" 2
	check "IPv$fam: conntrack -F" ip netns exec "$NS_ROUTER" conntrack -F
	start=$(now_ms)
	if busywait 1000 fp_stat_ge ct_gone $((gone0 + 2)); then
		pass "IPv$fam: both entries are gone within 1 s (ct_gone, after $(($(now_ms) - start)) ms)"
	else
		fail "IPv$fam: both entries are gone within 1 s (ct_gone)" "ftctl -j stats: $(fp_stats)"
	fi
	fp_stream_running "IPv$fam conntrack -F"
	# The connection goes on: conntrack picks it up mid-stream and the fast
	# path learns it again.
	if busywait 20000 fp_stat_ge learned $((learned0 + 2)); then
		pass "IPv$fam: the stream is learned again"
	else
		fail "IPv$fam: the stream is learned again" "ftctl -j stats: $(fp_stats)" \
			"$(ip netns exec "$NS_ROUTER" conntrack -L 2>&1)"
	fi
	fast1=$(fp_dev_bytes "$cdev" "$fam")
	fp_stream_finish "IPv$fam conntrack -F" "s$fam" "$stream"
	check_ge "IPv$fam: the fast path carries the stream again" "$(fp_dev_bytes "$cdev" "$fam")" $((fast1 + 1))
done

fp_exit
