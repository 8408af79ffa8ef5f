#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "ftctl monitor" and "ftctl -j monitor" print the flow events of a short
# TCP connection as they happen: "new" for each direction when it is
# learned, then "del" with reason torn-down when the connection closes; a
# flush shows as "del ... reason flush". The JSON form is one object per
# line, and agrees with the text. Both monitors end cleanly (exit 0) on
# SIGTERM and SIGINT.
# shellcheck disable=SC3043
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_ftctl.sh"

ftc_require monitor flush
require_cmd jq
fp_init
T=$FP_TMP

fp_setup_stick
must ftc set tcp-timeout 600 udp-timeout 600
ftc_long_udp_ct

# Both monitors in the background, as long as the test runs.
ip netns exec "$NS_ROUTER" ftctl monitor </dev/null >"$T/mon.txt" 2>"$T/mon.err" &
MON=$!
defer fp_kill "$MON"
ip netns exec "$NS_ROUTER" ftctl -j monitor </dev/null >"$T/mon.json" 2>"$T/monj.err" &
MONJ=$!
defer fp_kill "$MONJ"

# has FILE REGEX: a line of FILE matches.
has() { grep -qE -- "$2" "$1"; }
both_have() { has "$T/mon.txt" "$1" && has "$T/mon.json" "$2"; }

# Joining the multicast group takes a moment after the start: warm up with
# short connections until both monitors have printed an event.
ready=
for i in 1 2 3 4 5; do
	file=$(fp_mkfile "warm$i" 65536)
	fp_tcp_transfer "warm-up connection $i" 4 "$file"
	if busywait 3000 both_have '^new ' '"event":"new"'; then
		ready=1
		break
	fi
done
[ -n "$ready" ] || {
	fail "both monitors print events" "text:" "$(cat "$T/mon.txt" "$T/mon.err")" \
		"JSON:" "$(cat "$T/mon.json" "$T/monj.err")"
	fp_exit
}
pass "both monitors print events"

# ---------------------------------------------- a short TCP connection --

file=$(fp_mkfile short 262144)
fp_port port
fp_tcp_transfer "short IPv4 TCP connection" 4 "$file" "$SERVER_IP4" "$port" "$port"
cport=$(ftc_peer_port)
orig="$CLIENT_IP4:$cport -> $SERVER_IP4:$port "
reply="$SERVER_IP4:$port -> $CLIENT_IP4:$cport "
log_info "connection $CLIENT_IP4:$cport -> $SERVER_IP4:$port"

# The events come while the monitors run: they write each line at once.
check "text: both del events arrive" busywait 10000 sh -c \
	"[ \$(grep -cE '^del ipv4 tcp ($orig|$reply)' '$T/mon.txt') = 2 ]"
check "JSON: both del events arrive" busywait 10000 sh -c \
	"[ \$(grep -cE '\"event\":\"del\".*\"(sport|dport)\":$port,' '$T/mon.json') = 2 ]"
check "the monitors are still running" fp_alive "$MON"

grep -F -e "$orig" -e "$reply" "$T/mon.txt" >"$T/conn.txt"
check_eq "text: four events for the connection" 4 "$(wc -l <"$T/conn.txt" | tr -d ' ')"
ftc_check_grep "text: new, original direction" "$T/conn.txt" \
	"new ipv4 tcp ${orig}in vlan22 vid 22 out vlan2222 vid 2222 dir original id "
ftc_check_grep "text: new, reply direction" "$T/conn.txt" \
	"new ipv4 tcp ${reply}in vlan2222 vid 2222 out vlan22 vid 22 dir reply id "
check_eq "text: the original direction was removed as torn-down" 1 \
	"$(grep -c "^del ipv4 tcp ${orig}in vlan22 vid 22 out vlan2222 vid 2222 dir original packets [0-9]* bytes [0-9]* age [0-9.hmsd]* idle [0-9.hmsd]* id [0-9]* reason torn-down$" "$T/conn.txt")"
check_eq "text: the reply direction was removed as torn-down" 1 \
	"$(grep -c "^del ipv4 tcp ${reply}in vlan2222 vid 2222 out vlan22 vid 22 dir reply packets [0-9]* bytes [0-9]* age [0-9.hmsd]* idle [0-9.hmsd]* id [0-9]* reason torn-down$" "$T/conn.txt")"
check_eq "text: each direction is new before it is del" "new del new del" \
	"$(for d in "$orig" "$reply"; do grep -F -- "$d" "$T/conn.txt" | cut -d' ' -f1; done | tr '\n' ' ' | sed 's/ $//')"
check_ge "text: the original direction forwarded packets before the close" \
	"$(sed -n "s/^del .*dir original packets \([0-9]*\) .*/\1/p" "$T/conn.txt")" 1
check_eq "text: new and del of a direction have the same id" "" \
	"$(for d in "$orig" "$reply"; do grep -F -- "$d" "$T/conn.txt" |
		sed 's/.* id \([0-9]*\).*/\1/' | uniq | sed -n 2p; done)"

# JSON: every line is one object; the connection's agree with the text.
check "JSON: every line parses" jq -e . "$T/mon.json"
check_eq "JSON: one object per line" "$(wc -l <"$T/mon.json" | tr -d ' ')" \
	"$(jq -s length "$T/mon.json")"
jq -c --argjson p "$port" 'select(.sport == $p or .dport == $p)' "$T/mon.json" >"$T/conn.json"
check_eq "JSON: four events for the connection" \
	"new original -
new reply -
del original torn-down
del reply torn-down" \
	"$(jq -r '[.event, .dir, (.reason // "-")] | join(" ")' "$T/conn.json" | sort -k1,1r -k2,2 -s)"
check_eq "JSON: the connection's tuple" \
	"ipv4 tcp $CLIENT_IP4 $cport $SERVER_IP4 $port vlan22 22 vlan2222 2222" \
	"$(jq -r 'select(.event == "new" and .dir == "original") |
		[.family, .proto, .src, .sport, .dst, .dport, .iif_name, .iif_vlan,
		 .oif_name, .oif_vlan] | map(tostring) | join(" ")' "$T/conn.json")"
check_eq "JSON and text name the same flow ids" \
	"$(sed 's/.* id \([0-9]*\).*/\1/' "$T/conn.txt" | sort -n | tr '\n' ' ')" \
	"$(jq '.id' "$T/conn.json" | sort -n | tr '\n' ' ')"

# ------------------------------------------------------------- flush --

file=$(fp_mkfile udp 131072)
fp_port uport
fp_udp_transfer "IPv6 UDP" 6 "$file" "$SERVER_IP6" "$uport" "$uport"
ftc_wait_nflows "the UDP flows are cached" 2 5000 ipv6
must ftc flush ipv6
check "text: two del events with reason flush" busywait 10000 sh -c \
	"[ \$(grep -c '^del ipv6 udp .*:$uport .* reason flush\$' '$T/mon.txt') = 2 ]"
check "JSON: two del events with reason flush" busywait 10000 sh -c \
	"[ \$(grep -cE '\"event\":\"del\".*port\":$uport,.*\"reason\":\"flush\"' '$T/mon.json') = 2 ]"

# ----------------------------------------------------------- the end --

check_eq "text monitor: nothing on stderr" "" "$(cat "$T/mon.err")"
check_eq "JSON monitor: nothing on stderr" "" "$(cat "$T/monj.err")"

# stopped SIGNAL PID: PID exits 0 within 5 s of SIGNAL.
stopped() {
	local rc
	kill -s "$1" "$2"
	if ! busywait 5000 fp_dead "$2"; then
		fail "monitor exits on SIG$1" "still running 5 s after SIG$1"
		return
	fi
	wait "$2"
	rc=$?
	check_eq "monitor exits 0 on SIG$1" 0 "$rc"
}
stopped TERM "$MON"
stopped INT "$MONJ"

fp_exit
