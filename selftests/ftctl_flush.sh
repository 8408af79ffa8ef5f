#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "ftctl flush" empties the flow table (all of it, one family, the flows
# of one device, or one connection by its tuple, both directions of it,
# as conntrack -D deletes), counts what it dropped as "flushed", and the traffic goes
# on: a TCP stream flushed three times mid-transfer is learned again each
# time, the fast path carries it again, and its data arrives intact.
# shellcheck disable=SC3043
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_ftctl.sh"

ftc_require flush flows
fp_init
FP_SLOW_RATE=${FP_SLOW_RATE:-2mbit}

stat() { ftc -j stats | fp_jget "$1"; }
relearned() { [ "$(stat learned)" -ge $((learned + 2)) ]; }

# udp_flows: one idle UDP connection per family: four cached directions.
udp_flows() {
	local fam file
	for fam in 4 6; do
		file=$(fp_mkfile "udp$fam" 65536)
		fp_udp_transfer "IPv$fam UDP" "$fam" "$file"
	done
	ftc_wait_nflows "four idle UDP flow directions are cached" 4 5000
}

fp_setup_stick
must ftc set tcp-timeout 600 udp-timeout 600
ftc_long_udp_ct

# ------------------------------------------------------ idle flows --

udp_flows
check "flush ipv6" ftc flush ipv6
check_output "flush ipv6 leaves no IPv6 flow" 0 ftc_nflows ipv6
check_output "flush ipv6 leaves the IPv4 flows" 2 ftc_nflows ipv4
check_eq "flushed counts two directions" 2 "$(stat flushed)"
check "flush dev vlan2222 ipv4" ftc flush dev vlan2222 ipv4
check_output "... takes both directions of the connection that uses vlan2222" 0 ftc_nflows
check_eq "flushed counts four directions" 4 "$(stat flushed)"

udp_flows
check "flush dev vlan22 ipv6" ftc flush dev vlan22 ipv6
check_output "flush dev vlan22 ipv6 leaves the IPv4 flows" "2 0" \
	sh -c "echo \$(ip netns exec $NS_ROUTER ftctl flows dump ipv4 | wc -l) \$(ip netns exec $NS_ROUTER ftctl flows dump ipv6 | wc -l)"
check "flush (everything)" ftc flush
check_output "flush empties the table: flows dump" "" ftc flows dump
check_output "flush empties the table: flows" "" ftc flows
check_output "flush empties the table: -j flows" "[]" ftc -j flows
check_eq "flush empties the table: stats" 0 "$(stat flows)"
check_eq "flushed counts every direction" 8 "$(stat flushed)"
check "flush of an empty table" ftc flush
check_fail "flush dev of a missing device" "no such device: nosuchdev0" ftc flush dev nosuchdev0
check_eq "nothing else was removed" "0 0 0 0" "$(ftc -j stats | fp_jget expired torn_down ct_gone invalidated)"

# ---------------------------------------------- one connection --

# tuple FAMILY: "src A sport P proto X" of a cached direction of FAMILY.
tuple() {
	ftc flows dump "$1" | awk -F '\t' 'NR == 1 { print "src", $5, "sport", $6, "proto", $3 }'
}

must ftc flush
flushed=$(stat flushed)
udp_flows
t4=$(tuple ipv4)
check "flush of a tuple no flow has" ftc flush src 198.18.99.99 proto udp
check_output "... flushes nothing" 4 ftc_nflows
# shellcheck disable=SC2086 # the tuple's words
check "flush the IPv4 connection by one direction's tuple ($t4)" ftc flush $t4
check_output "... takes both its directions" 0 ftc_nflows ipv4
check_output "... and leaves the IPv6 connection" 2 ftc_nflows ipv6
check_eq "... counting two directions" $((flushed + 2)) "$(stat flushed)"
a6=$(ftc flows dump ipv6 | awk -F '\t' 'NR == 1 { print $7 }')
check "flush addr $a6 (source or destination)" ftc flush addr "$a6" proto udp
check_output "... takes the IPv6 connection" 0 ftc_nflows
check_eq "... counting two directions" $((flushed + 4)) "$(stat flushed)"

# ------------------------------------------------ under traffic --

file=$(fp_mkfile stream 8388608)
fp_stream_start stream 4 "$file"
ftc_wait_nflows "the stream's two directions are learned" 2 15000
for round in 1 2 3; do
	learned=$(stat learned)
	flushed=$(stat flushed)
	check "round $round: flush while the stream runs" ftc flush
	check_eq "round $round: both directions flushed" $((flushed + 2)) "$(stat flushed)"
	check "round $round: both directions are learned again" busywait 15000 relearned
	ftc_wait_nflows "round $round: two flows cached again" 2 5000
	fast=$(fp_dev_bytes vlan22 4)
	check "round $round: the fast path carries the stream again" \
		busywait 15000 fp_fast_ge vlan22 4 $((fast + 1))
done
fp_stream_running "flushes while streaming"
fp_stream_finish "flushed stream" stream "$file"

fp_exit
