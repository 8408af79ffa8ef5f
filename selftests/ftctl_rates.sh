#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "ftctl -j top" (show -r): live rates are exact deltas of the kernel's
# counters. A UDP transfer per family runs entirely inside the time
# "ftctl -j top 0.5 vlan22 vlan2222" measures, with nothing else
# forwarded before or after it, so that:
#  - per device and family, the packets and bytes of all intervals add up
#    exactly to what "ftctl -j show" counted from before to after;
#  - "forwarded" adds up exactly to the change of "ftctl -j stats", and
#    equals the sum over the devices (both enabled devices are measured);
#  - "rx" is the device's netdev counters, as "ip -s -j link" reads them
#    over the same time: never more than ip's change, at least what the
#    fast path forwarded of them; the difference is what arrived between
#    ip's reads and top's first and last (neighbour discovery), a few
#    packets at most;
#  - every line has the schema version, an interval of at least 0.5 s as
#    CLOCK_MONOTONIC measured it, and rates and shares computed from its
#    own deltas and interval.
# Then the text form, the device filter and the argument errors.
# shellcheck disable=SC3043
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_ftctl.sh"

require_cmd jq
fp_init
T=$FP_TMP

fp_setup_stick
must ftc set udp-timeout 600
ftc_long_udp_ct
C=$ROUTER_CLIENT_DEV S=$ROUTER_SERVER_DEV

# ip_rx DEV: "packets bytes" received on DEV, from ip -s -j link.
ip_rx() {
	ip -n "$NS_ROUTER" -s -j link show dev "$1" |
		jq -r '.[0].stats64.rx | "\(.packets) \(.bytes)"'
}

# snap NAME: ftctl -j show, ftctl -j stats and ip's rx counters of both
# devices, one right after the other.
snap() {
	ftc_to "$T/$1.show" -j show
	ftc_to "$T/$1.stats" -j stats
	ip_rx "$C" >"$T/$1.rx.$C"
	ip_rx "$S" >"$T/$1.rx.$S"
}

# lines: how many lines top has printed.
lines() { wc -l <"$T/top.json" | tr -d ' '; }
lines_ge() { [ "$(lines)" -ge "$1" ]; }

snap before
ip netns exec "$NS_ROUTER" ftctl -j top 0.5 "$C" "$S" >"$T/top.json" 2>"$T/top.err" &
TOP=$!
defer fp_kill "$TOP"
# The first line means the first sample is taken: traffic from now on.
must busywait 10000 lines_ge 1
for fam in 4 6; do
	file=$(fp_mkfile "udp$fam" 262144)
	fp_udp_transfer "IPv$fam UDP" "$fam" "$file"
done
# Two more lines: a sample was taken after the last packet was forwarded.
n=$(lines)
must busywait 10000 lines_ge $((n + 2))
kill "$TOP"
wait "$TOP"
check_eq "top ends on SIGTERM with exit 0" 0 $?
snap after
log_info "top printed $(lines) lines; stderr: $(cat "$T/top.err")"

J=$T/top.json
check "every line is a JSON object with json_schema_version 1" \
	jq -e -s 'length > 2 and all(.[]; type == "object" and .json_schema_version == 1)' "$J"
# Samples are due every 0.5 s from the first one: an interval after a late
# sample is shorter, but the Nth sample is never early.
check "the Nth interval ends at least N * 0.5 s after the start (CLOCK_MONOTONIC)" \
	jq -e -s '[foreach .[] as $l (0; . + $l.elapsed_ns)] | to_entries |
		all(.value >= (.key + 1) * 500000000)' "$J"
check "every interval is above 0 and below 5 s" \
	jq -e -s 'all(.[]; .elapsed_ns > 0 and .elapsed_ns < 5000000000)' "$J"
check_eq "only the two devices asked for, in every line" "$C $S" \
	"$(jq -r -s '[.[] | [.devices[].ifname] | join(" ")] | unique | join("|")' "$J")"

# sum PATH: the sum over the lines of a device's counter (DEV.PATH).
sum() {
	jq -r -s --arg d "$1" --arg p "$2" \
		'[.[] | .devices[] | select(.ifname == $d) | getpath($p | split("."))] | add' "$J"
}
# show_delta DEV FAM KEY: after - before of ftctl -j show.
show_delta() {
	echo $(($(jq --arg d "$1" --arg f "$2" --arg k "$3" '.[] | select(.ifname == $d) | .[$f][$k]' "$T/after.show") -
		$(jq --arg d "$1" --arg f "$2" --arg k "$3" '.[] | select(.ifname == $d) | .[$f][$k]' "$T/before.show")))
}

fast_total=0
for dev in $C $S; do
	for fam in ipv4 ipv6; do
		for k in packets bytes; do
			check_eq "$dev $fam $k: the intervals add up to ftctl show's change" \
				"$(show_delta "$dev" "$fam" "$k")" "$(sum "$dev" "$fam.$k")"
		done
		fast_total=$((fast_total + $(sum "$dev" "$fam.packets")))
	done
done
log_info "the fast path forwarded $fast_total packets in the window"
check_ge "the transfers went through the fast path" "$fast_total" 200

stat_delta() {
	echo $(($(fp_jget "$1" <"$T/after.stats") - $(fp_jget "$1" <"$T/before.stats")))
}
check_eq "forwarded.packets add up to the change of ftctl stats" \
	"$(stat_delta forwarded.packets)" "$(jq -s '[.[].forwarded.packets] | add' "$J")"
check_eq "forwarded.bytes add up to the change of ftctl stats" \
	"$(stat_delta forwarded.bytes)" "$(jq -s '[.[].forwarded.bytes] | add' "$J")"
check_eq "forwarded is the sum over the devices" "$fast_total" \
	"$(jq -s '[.[].forwarded.packets] | add' "$J")"
check_le "punted.no_entry: no more than ftctl stats' change" \
	"$(jq -s '[.[].punted.no_entry] | add' "$J")" "$(stat_delta punted.no_entry)"

for dev in $C $S; do
	read -r p0 b0 <"$T/before.rx.$dev"
	read -r p1 b1 <"$T/after.rx.$dev"
	rxp=$(sum "$dev" rx.packets)
	rxb=$(sum "$dev" rx.bytes)
	fastp=$(($(sum "$dev" ipv4.packets) + $(sum "$dev" ipv6.packets)))
	log_info "$dev: rx $rxp packets $rxb bytes in the window, ip: $((p1 - p0)) $((b1 - b0)); fast path $fastp"
	check_le "$dev rx packets: at most ip -s link's change" "$rxp" $((p1 - p0))
	check_le "$dev rx bytes: at most ip -s link's change" "$rxb" $((b1 - b0))
	check_le "$dev rx packets: ip's change is at most 20 more (outside the window)" \
		$((p1 - p0 - rxp)) 20
	check_ge "$dev rx packets: at least what the fast path forwarded of them" "$rxp" "$fastp"
done

# Each line's rates are its deltas over its own interval, to 1e-3 of the
# rate (the JSON has three decimals), and its shares likewise.
check_eq "pps and bit/s are the deltas over elapsed_ns" "" \
	"$(jq -r '. as $l | .devices[] | (.rx, .ipv4, .ipv6) | select(. != null) |
		select((.pps - .packets * 1e9 / $l.elapsed_ns | if . < 0 then 0 - . else . end) > 0.001 + .pps * 1e-9 or
		       (.bit_s - .bytes * 8e9 / $l.elapsed_ns | if . < 0 then 0 - . else . end) > 0.001 + .bit_s * 1e-9) |
		tostring' "$J")"
check_eq "share_pct is the family's packets of the device's rx packets" "" \
	"$(jq -r '.devices[] | . as $d | (.ipv4, .ipv6) | select(.share_pct != null) |
		select((.share_pct - 100 * .packets / $d.rx.packets | if . < 0 then 0 - . else . end) > 0.006) | tostring' "$J")"
check "the busiest interval: the fast path carried most of what $C received" \
	jq -e -s --arg d "$C" '[.[] | .devices[] | select(.ifname == $d) | .ipv4.share_pct // 0] | max > 50' "$J"

# ------------------------------------------------- text, filter, errors --

ftc_to "$T/top.txt" top 0.2 -c 2 "$C"
check_eq "top -c 2 DEV: two frames, one device each" "2 2 0" \
	"$(grep -c '^fasttrack rates over' "$T/top.txt") $(grep -c "^$C (ifindex" "$T/top.txt") $(grep -c "^$S " "$T/top.txt")"
ftc_check_grep "top: the families, each with its fast path rate" "$T/top.txt" "  ipv6 on  fast path"
ftc_check_grep "top: punts, namespace-wide" "$T/top.txt" "punted, all devices:"
ftc_to "$T/show-r.json" -j show -r 0.2 -c 3
check_eq "show -r 0.2 -c 3: three lines, every enabled device" "3 $C $S" \
	"$(wc -l <"$T/show-r.json" | tr -d ' ') $(jq -r -s '[.[] | [.devices[].ifname] | join(" ")] | unique | join("|")' "$T/show-r.json")"

# Punts per device and family: each one is also the namespace's, so with
# every device that ever punted still enabled, they add up exactly.
check_eq "the punts of each device and family add up to the namespace's" \
	"$(ftc -j stats | jq -S -c '.punted')" \
	"$(ftc -j show | jq -S -c '[.[] | .ipv4.punted, .ipv6.punted] |
		reduce .[] as $p ({}; reduce ($p | keys[]) as $k (.; .[$k] += $p[$k]))')"
check "$C's IPv4 punted packets without a flow (the first ones)" \
	sh -c "ip netns exec $NS_ROUTER ftctl -j show $C | jq -e '.[0].ipv4.punted.no_entry > 0'"
check "top -j: per family punts, by reason" \
	jq -e -s '[.[] | .devices[] | .ipv4.punted_pps.no_entry | numbers] | length > 0' "$J"
ftc_check_grep "top: punts per family" "$T/top.txt" "  punted: "

must ftc disable "$S"
check_fail "top of a device that is not enabled" "$S: fasttrack is not enabled" ftc top -c 1 "$S"
check_fail "top -c 0" "invalid count '0'" ftc top -c 0
check_fail "top with an interval of 0" "invalid interval '0'" ftc top 0
check_fail "top of a missing device" "no such device: ftnosuch0" ftc top ftnosuch0

fp_exit
