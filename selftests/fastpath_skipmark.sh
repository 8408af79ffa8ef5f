#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# The skip mark keeps chosen connections on the slow path. With
# "ftctl set skip-mark 0x10/0xff", a connection whose ct mark (set by an nft
# rule) or packet mark matches 0x10 under the mask 0xff is never learned:
# all its bytes go through the forward chain and the fast-path counters do
# not move. A connection whose mark does not match is offloaded as usual.
# A skip mark set through ctnetlink ("conntrack -U --mark") on a connection
# that is offloaded sends it back to the stack at its next packet: over a
# second of its stream afterwards, the fast path forwards nothing of it and
# the forward chain sees it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_stick

check "ftctl set skip-mark 0x10/0xff" ip netns exec "$NS_ROUTER" ftctl set skip-mark 0x10/0xff
check_output "ftctl get shows the skip mark and mask" "0x10 0xff" \
	sh -c "ip netns exec '$NS_ROUTER' ftctl -j get | tr -d ' \n' |
		sed 's/.*\"skip_mark\":\"\\([^\"]*\\)\".*\"skip_mask\":\"\\([^\"]*\\)\".*/\\1 \\2/'"

fp_port p_ct
fp_port p_ctmask
fp_port p_meta
fp_port p_other
fp_port p_plain
# Marks are set before the ruleset's forward chain (priority filter). A
# packet mark is per packet: it is set on both directions.
must ip netns exec "$NS_ROUTER" nft -f - <<EOF2
table inet ft_mark {
	chain set_marks {
		type filter hook forward priority filter - 10;
		tcp dport $p_ct ct mark set 0x10
		tcp dport $p_ctmask ct mark set 0x7710
		tcp dport $p_meta meta mark set 0x10
		tcp sport $p_meta meta mark set 0x10
		tcp dport $p_other ct mark set 0x11
	}
}
EOF2

fp_rand size 2097152 3145728

# transfer DESC FAMILY PORT slow|fast
transfer() {
	local desc="$1" fam="$2" port="$3" learned0 file
	file=$(fp_mkfile "f$port" "$size")
	learned0=$(fp_stat learned)
	fp_begin
	fp_tcp_transfer "$desc" "$fam" "$file" "" "" "$port"
	fp_end
	if [ "$4" = slow ]; then
		fp_check_slow "$desc" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
		check_eq "$desc: the fast path forwarded nothing of it" 0 \
			$(($(fp_cdelta "$fam") + FPD_SV4 + FPD_SV6))
		check_eq "$desc: nothing was learned" "$learned0" "$(fp_stat learned)"
	else
		fp_check_offload "$desc" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
	fi
}

transfer "IPv4, ct mark 0x10" 4 "$p_ct" slow
transfer "IPv6, ct mark 0x7710 (matches under 0xff)" 6 "$p_ctmask" slow
transfer "IPv4, packet mark 0x10 both ways" 4 "$p_meta" slow
transfer "IPv6, ct mark 0x11 (no match)" 6 "$p_other" fast
transfer "IPv4, no mark" 4 "$p_plain" fast

for fam in 4 6; do
	fp_port p_upd
	file=$(fp_mkfile "upd$fam" "$size")
	fp_stream_start "upd$fam" "$fam" "$file" "" "" "$p_upd"
	must busywait 20000 fp_fast_ge vlan22 "$fam" 1
	fp_stream_running "IPv$fam, ct mark set by conntrack -U"
	check "IPv$fam: conntrack -U sets the skip mark on the connection" \
		ip netns exec "$NS_ROUTER" conntrack -U -f "$(fp_ipfam "$fam")" -p tcp \
			--dport "$p_upd" --mark 0x10
	# Its next packet goes to the stack; then a second of the stream.
	sleep 0.2
	fp_begin
	sleep 1
	fp_end
	check_eq "IPv$fam, skip mark set by conntrack -U: the fast path forwards nothing more of it" \
		0 "$(fp_cdelta "$fam")"
	check_ge "IPv$fam, skip mark set by conntrack -U: the forward chain sees it" \
		"$FPD_C2S" 1
	fp_stream_finish "IPv$fam, skip mark set by conntrack -U" "upd$fam" "$file"
done

fp_exit
