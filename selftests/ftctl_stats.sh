#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "ftctl stats" and "ftctl stats -s", text and JSON: every documented
# counter is there, the two forms agree, and the numbers agree with the
# rest of the kernel's view: forwarded packets and bytes equal the sums of
# "ftctl -j show" and of the flows' own counters, "flows" equals the lines
# of "ftctl flows dump", learned and torn_down count the directions of the
# transfers, and the per-CPU rows add up to the totals.
# shellcheck disable=SC3043
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_ftctl.sh"

ftc_require stats flows
require_cmd jq
fp_init
T=$FP_TMP

# The JSON members of "ftctl -j stats", ftctl(8).
TOP_KEYS="flows learned table_full expired torn_down ct_gone invalidated route_changed neigh_changed flushed"
PUNT_KEYS="no_entry fragment options ttl mtu tcp_flags not_writable malformed unknown stale"

# flat JSON: the JSON's numbers as "path value" lines ("forwarded.packets
# 12", "per_cpu.0.cpu 0"), sorted: one jq run per document (jq is slow to
# start in the guest).
flat() {
	jq -r 'del(.json_schema_version) | paths(scalars) as $p | "\($p | map(tostring) | join(".")) \(getpath($p))"' "$1" |
		sort
}

# text_flat TEXT: "ftctl stats" text as the same "path value" lines, the
# labels turned into the JSON's names: "flows:" counters at the top (with
# "cached" as "flows"), the others under their group, "-" as "_" in both.
text_flat() {
	sed '/^per-cpu:$/,$d' "$1" | awk '
		/^[a-z-]+:$/ { g = substr($1, 1, length($1) - 1); gsub("-", "_", g); next }
		{ k = $1; gsub("-", "_", k)
		  if (g == "flows") { if (k == "cached") k = "flows"; print k " " $2 }
		  else print g "." k " " $2 }' | sort
}

# check_keys DESC FLAT: the flattened JSON has every documented member.
check_keys() {
	local k missing=''
	for k in $TOP_KEYS forwarded.packets forwarded.bytes; do
		grep -q "^$k " "$2" || missing="$missing $k"
	done
	for k in $PUNT_KEYS; do
		grep -q "^punted.$k " "$2" || missing="$missing punted.$k"
	done
	check_eq "$1" "" "$missing"
}

# check_text_agrees DESC TEXT FLAT: the text has the same counters as the
# JSON (but punted.unknown, which neighbour discovery on the enabled
# devices may move between the two commands).
check_text_agrees() {
	check_eq "$1" "$(grep -v '^punted.unknown ' "$3")" \
		"$(text_flat "$2" | grep -v '^punted.unknown ')"
}

# jv KEY FLAT: one value of a flattened JSON.
jv() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }

# snapshot NAME: stats, -j stats, stats -s, -j stats -s, -j show and flows
# dump, one right after the other, in $T/NAME.*.
snapshot() {
	ftc_to "$T/$1.txt" stats
	ftc_to "$T/$1.json" -j stats
	ftc_to "$T/$1.pcpu.txt" stats -s
	ftc_to "$T/$1.pcpu.json" -j stats --per-cpu
	ftc_to "$T/$1.show.json" -j show
	ftc_to "$T/$1.dump" flows dump
	flat "$T/$1.json" >"$T/$1.flat"
}

fp_setup_stick
must ftc set udp-timeout 600 tcp-timeout 600
ftc_long_udp_ct

# ------------------------------------------------------ before traffic --

snapshot zero
check "stats: the JSON parses" jq -e 'type == "object"' "$T/zero.json"
check_keys "stats: every documented member is in the JSON" "$T/zero.flat"
check_text_agrees "stats: the text agrees with the JSON" "$T/zero.txt" "$T/zero.flat"
# (Punts may already count neighbour discovery on the enabled devices.)
check_eq "stats: nothing cached, learned or forwarded in a new namespace" "0 0 0 0" \
	"$(jv flows "$T/zero.flat") $(jv learned "$T/zero.flat") $(jv forwarded.packets "$T/zero.flat") $(jv forwarded.bytes "$T/zero.flat")"
check_eq "stats: no per_cpu without -s" "" "$(grep '^per_cpu' "$T/zero.flat")"
check_eq "stats: no per-cpu table without -s" "" "$(grep per-cpu "$T/zero.txt")"

# ------------------------------------------------------------ traffic --

for fam in 4 6; do
	file=$(fp_mkfile "udp$fam" 524288)
	fp_udp_transfer "IPv$fam UDP" "$fam" "$file"
done
# Both UDP connections stay cached (udp-timeout 600 s); nothing moves now.
ftc_wait_nflows "four UDP flow directions are cached" 4 5000
snapshot udp

F=$T/udp.flat
fwd_pkts=$(jv forwarded.packets "$F")
fwd_bytes=$(jv forwarded.bytes "$F")
log_info "forwarded $fwd_pkts packets, $fwd_bytes bytes"
check_ge "the fast path forwarded the transfers" "$fwd_pkts" 100
check_eq "forwarded is the sum of ftctl -j show's packets and bytes" "$fwd_pkts $fwd_bytes" \
	"$(jq -r '[([.[] | .ipv4.packets + .ipv6.packets] | add), ([.[] | .ipv4.bytes + .ipv6.bytes] | add)] | map(tostring) | join(" ")' "$T/udp.show.json")"
check_eq "forwarded.packets is the sum of the flows' packets" "$fwd_pkts" \
	"$(awk -F '\t' '{ s += $17 } END { print s + 0 }' "$T/udp.dump")"
check_eq "forwarded.bytes is the sum of the flows' bytes" "$fwd_bytes" \
	"$(awk -F '\t' '{ s += $18 } END { print s + 0 }' "$T/udp.dump")"
check_eq "flows equals the lines of ftctl flows dump" \
	"$(wc -l <"$T/udp.dump" | tr -d ' ')" "$(jv flows "$F")"
check_eq "learned counts the four directions" 4 "$(jv learned "$F")"
check_ge "punted.no_entry counts the packets before learning" \
	"$(jv punted.no_entry "$F")" 2
check_text_agrees "stats after traffic: the text agrees with the JSON" \
	"$T/udp.txt" "$F"

# -------------------------------------------------------------- per CPU --

ncpus=$(ftc_possible_cpus)
pj=$T/udp.pcpu.json
flat "$pj" >"$T/pcpu.flat"
check "stats -s: the JSON parses" jq -e '.per_cpu | type == "array"' "$pj"
check_eq "stats -s: one per_cpu entry per possible CPU, CPUs distinct" "$ncpus" \
	"$(grep '^per_cpu\.[0-9]*\.cpu ' "$T/pcpu.flat" | cut -d' ' -f2 | sort -u | wc -l | tr -d ' ')"
check_eq "stats -s: per_cpu has no flows (not per CPU)" "" \
	"$(grep '^per_cpu\.[0-9]*\.flows ' "$T/pcpu.flat")"
check_eq "stats -s: per_cpu entries have the members of the totals" "" \
	"$(jq -r '(del(.per_cpu, .flows, .json_schema_version) | [paths(numbers)]) as $want |
		.per_cpu[] | ([paths(numbers)] - [["cpu"]]) as $have |
		select($have != $want) | .cpu' "$pj")"
check_eq "stats -s: per-CPU counters add up to the totals" "" \
	"$(jq -r '. as $t | del(.per_cpu, .flows, .json_schema_version) | paths(numbers) as $p |
		select(($t | getpath($p)) != ([$t.per_cpu[] | getpath($p)] | add)) |
		$p | join(".")' "$pj")"
check_eq "stats -s: the totals equal those of stats" \
	"$(jq -c 'del(.per_cpu, .punted.unknown)' "$pj")" "$(jq -c 'del(.punted.unknown)' "$T/udp.json")"

pt=$T/udp.pcpu.txt
check_output "stats -s: the text starts with the totals" "$(grep -v '^  unknown ' "$T/udp.txt")" \
	sh -c "sed '/^per-cpu:\$/,\$d' '$pt' | grep -v '^  unknown '"
sed '1,/^per-cpu:$/d' "$pt" >"$T/rows"
check_eq "stats -s: a header and one row per CPU" $((ncpus + 1)) "$(wc -l <"$T/rows" | tr -d ' ')"
# One column for the CPU and one per counter the JSON has per CPU.
cols=$(jq '[.per_cpu[0] | paths(numbers)] | length' "$pj")
check_eq "stats -s: $cols columns in every row, as per_cpu has members" "" \
	"$(awk -v n="$cols" 'NF != n { print NR ": " NF }' "$T/rows")"
check_eq "stats -s: the first column is the CPU" "cpu" "$(awk 'NR == 1 { print $1 }' "$T/rows")"
check_eq "stats -s: the learned column adds up to learned" "$(jv learned "$F")" \
	"$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "learned") c = i; next }
		{ s += $c } END { print s }' "$T/rows")"
check_eq "stats -s: the fwd-packets column adds up to forwarded.packets" "$fwd_pkts" \
	"$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "fwd-packets") c = i; next }
		{ s += $c } END { print s }' "$T/rows")"

# ------------------------------------------------- TCP: torn down --

file=$(fp_mkfile tcp4 1048576)
fp_tcp_transfer "IPv4 TCP" 4 "$file"
ftc_wait_nflows "the TCP flows are gone after the close" 4 10000
snapshot tcp
F=$T/tcp.flat
check_eq "learned counts the two TCP directions too" 6 "$(jv learned "$F")"
check_eq "torn_down counts both directions of the closed connection" 2 "$(jv torn_down "$F")"
check_eq "flows is back to the four UDP directions" 4 "$(jv flows "$F")"
check_eq "forwarded.packets is still the sum of ftctl -j show's" \
	"$(jv forwarded.packets "$F")" \
	"$(jq '[.[] | .ipv4.packets + .ipv6.packets] | add' "$T/tcp.show.json")"

# ------------------------------------------------------ flush counter --

must ftc flush ipv6
check_eq "flushed counts the two IPv6 directions" 2 "$(ftc -j stats | fp_jget flushed)"
check_eq "flows counts what is left" 2 "$(ftc -j stats | fp_jget flows)"

check "nobody may read stats" ftc_nobody stats -s
check "nobody may read stats as JSON" ftc_nobody -j stats --per-cpu

fp_exit
