#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "ftctl flows" lists exactly the flow directions of a transfer, with the
# right tuples, NAT and devices, in all three forms: text, JSON (which
# parses and agrees with the text) and "flows dump" (20 tab-separated
# fields, ftctl(8)). Three transfers: IPv4 TCP between two VLANs of a
# router-on-a-stick, IPv6 UDP on the same router, and IPv4 TCP through a
# plain router that masquerades.
# shellcheck disable=SC3043
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_ftctl.sh"

ftc_require flows
require_cmd jq
fp_init
T=$FP_TMP
# The streams run slowly enough to be looked at for a minute, then finish
# fast (fp_stream_finish).
FP_SLOW_RATE=${FP_SLOW_RATE:-1mbit}

# snapshot NAME [FILTER...]: the three forms of "ftctl flows", as
# $T/NAME.dump, $T/NAME.json and $T/NAME.txt.
snapshot() {
	local name=$1
	shift
	ftc_to "$T/$name.dump" flows dump "$@"
	ftc_to "$T/$name.json" -j flows "$@"
	ftc_to "$T/$name.txt" flows "$@"
}

# check_forms DESC NAME N: the snapshot NAME has N flows in each form, the
# dump has 20 fields per line, ids are unique, and the JSON parses and has
# the same flows (id, tuple, NAT, devices) as the dump.
check_forms() {
	local desc=$1 name=$2 n=$3
	check_eq "$desc: flows dump has $n lines" "$n" "$(wc -l <"$T/$name.dump" | tr -d ' ')"
	check_eq "$desc: text has $n lines" "$n" "$(wc -l <"$T/$name.txt" | tr -d ' ')"
	ftc_check_nfields "$desc: each dump line has $FTC_NFIELDS fields" "$T/$name.dump" "$FTC_NFIELDS"
	ftc_check_unique "$desc: flow ids are unique" "$T/$name.dump" 1
	check "$desc: the JSON parses" jq -e 'type == "array"' "$T/$name.json"
	check_eq "$desc: the JSON has $n flows" "$n" "$(jq length "$T/$name.json")"
	check_eq "$desc: the JSON agrees with the dump (ids, tuples, NAT, devices)" \
		"$(cut -f 1-16 "$T/$name.dump" | sort)" "$(ftc_json_tsv "$T/$name.json" | sort)"
	check_eq "$desc: JSON counters are numbers" "$n" \
		"$(jq '[.[] | select(all(.packets, .bytes, .age_ms, .idle_ms, .iif, .oif; type == "number"))] | length' "$T/$name.json")"
}

# check_tuple DESC NAME DIR EXPECTED: fields 2-16 of the DIR line.
check_tuple() {
	check_output "$1" "$4" ftc_tuple "$T/$2.dump" "$3"
}

# ----------------------------------------------- IPv4 TCP, VLAN to VLAN --

log_info "router-on-a-stick, IPv4 TCP from vlan22 to vlan2222"
fp_setup_stick
must ftc set tcp-timeout 600 udp-timeout 600
ftc_long_udp_ct

snapshot empty
check_eq "no flows before any traffic: text" "" "$(cat "$T/empty.txt")"
check_eq "no flows before any traffic: dump" "" "$(cat "$T/empty.dump")"
check_eq "no flows before any traffic: JSON" "[]" "$(jq -c . "$T/empty.json")"

file=$(fp_mkfile tcp4 8388608)
fp_stream_start tcp4 4 "$file"
port=$FP_STREAM_PORT
must busywait 10000 ftc_have_peer
cport=$(ftc_peer_port)
log_info "connection $CLIENT_IP4:$cport -> $SERVER_IP4:$port"
ftc_wait_nflows "both directions are learned" 2 15000
snapshot tcp4
check_forms "IPv4 TCP" tcp4 2

check_tuple "original direction: tuple, no NAT, VLAN devices" tcp4 original \
	"ipv4 tcp original $CLIENT_IP4 $cport $SERVER_IP4 $port $CLIENT_IP4 $cport $SERVER_IP4 $port vlan22 22 vlan2222 2222"
check_tuple "reply direction: tuple, no NAT, VLAN devices" tcp4 reply \
	"ipv4 tcp reply $SERVER_IP4 $port $CLIENT_IP4 $cport $SERVER_IP4 $port $CLIENT_IP4 $cport vlan2222 2222 vlan22 22"
check_eq "JSON iif is the ifindex of vlan22" "$(ftc_ifindex "$NS_ROUTER" vlan22)" \
	"$(jq '.[] | select(.dir == "original") | .iif' "$T/tcp4.json")"
check_eq "JSON oif is the ifindex of vlan2222" "$(ftc_ifindex "$NS_ROUTER" vlan2222)" \
	"$(jq '.[] | select(.dir == "original") | .oif' "$T/tcp4.json")"
ftc_check_grep "text: original direction" "$T/tcp4.txt" \
	"ipv4 tcp $CLIENT_IP4:$cport -> $SERVER_IP4:$port in vlan22 vid 22 out vlan2222 vid 2222 dir original packets "
ftc_check_grep "text: reply direction" "$T/tcp4.txt" \
	"ipv4 tcp $SERVER_IP4:$port -> $CLIENT_IP4:$cport in vlan2222 vid 2222 out vlan22 vid 22 dir reply packets "
check_eq "text: no NAT shown without NAT" "" "$(grep ' nat ' "$T/tcp4.txt")"
check_eq "text: no padding when not a terminal" "" "$(grep '  ' "$T/tcp4.txt")"
check_eq "text and dump list the same ids" \
	"$(cut -f1 "$T/tcp4.dump" | sort)" \
	"$(sed -n 's/.* id \([0-9]*\)$/\1/p' "$T/tcp4.txt" | sort)"

# Filters: ingress device and family.
check_output "flows dev vlan22: the original direction only" original \
	sh -c "ip netns exec $NS_ROUTER ftctl flows dump dev vlan22 | cut -f4"
check_output "flows dev vlan2222: the reply direction only" reply \
	sh -c "ip netns exec $NS_ROUTER ftctl flows dump dev vlan2222 | cut -f4"
check_output "flows ipv6: none" 0 ftc_nflows ipv6
check_output "flows ipv4: both" 2 ftc_nflows ipv4
check_output "flows dev vlan22 ipv6: none" 0 ftc_nflows dev vlan22 ipv6

# The counters move while the stream runs.
p0=$(ftc_field "$T/tcp4.dump" original packets)
a0=$(ftc_field "$T/tcp4.dump" original age_ms)
fwd_more() { [ "$(ftc flows dump dev vlan22 | cut -f17)" -gt "$p0" ]; }
check "the original direction's packets grow" busywait 10000 fwd_more
snapshot tcp4b
check_ge "age grows" "$(ftc_field "$T/tcp4b.dump" original age_ms)" $((a0 + 1))
check_le "idle stays short under traffic" "$(ftc_field "$T/tcp4b.dump" original idle_ms)" 2000
check_eq "ids are stable while the flow lives" \
	"$(cut -f1 "$T/tcp4.dump" | sort)" "$(cut -f1 "$T/tcp4b.dump" | sort)"
fp_stream_running "IPv4 TCP: all of the above"

fp_stream_finish "IPv4 TCP" tcp4 "$file"
ftc_wait_nflows "the closed connection leaves no flow" 0 10000

# ---------------------------------------------------------- IPv6 UDP --

log_info "router-on-a-stick, IPv6 UDP"
file=$(fp_mkfile udp6 262144)
fp_port port
fp_udp_transfer "IPv6 UDP" 6 "$file" "$SERVER_IP6" "$port" "$port"
uport=$(ftc_peer_port)
log_info "datagrams [$CLIENT_IP6]:$uport -> [$SERVER_IP6]:$port"
# UDP flows stay until they are idle for udp-timeout (600 s here).
ftc_wait_nflows "both directions are cached after the transfer" 2 5000 ipv6
snapshot udp6 ipv6
check_forms "IPv6 UDP" udp6 2
check_tuple "IPv6 original direction" udp6 original \
	"ipv6 udp original $CLIENT_IP6 $uport $SERVER_IP6 $port $CLIENT_IP6 $uport $SERVER_IP6 $port vlan22 22 vlan2222 2222"
check_tuple "IPv6 reply direction" udp6 reply \
	"ipv6 udp reply $SERVER_IP6 $port $CLIENT_IP6 $uport $SERVER_IP6 $port $CLIENT_IP6 $uport vlan2222 2222 vlan22 22"
ftc_check_grep "text: IPv6 endpoints in brackets" "$T/udp6.txt" \
	"ipv6 udp [$CLIENT_IP6]:$uport -> [$SERVER_IP6]:$port in vlan22 vid 22 out vlan2222 vid 2222 dir original"
check_ge "the fast path forwarded the datagrams" "$(ftc_field "$T/udp6.dump" original packets)" 1
check_output "flows ipv4 lists none of them" 0 ftc_nflows ipv4
must ftc flush

# -------------------------------------------- IPv4 TCP with masquerade --

log_info "plain router with masquerade on eth2, IPv4 TCP"
fp_setup_plain
must ftc set tcp-timeout 600
must ip netns exec "$NS_ROUTER" nft -f - <<-EOF
	table ip ft_masq {
		chain post {
			type nat hook postrouting priority srcnat; policy accept;
			oifname "eth2" masquerade
		}
	}
EOF
file=$(fp_mkfile nat4 8388608)
fp_stream_start nat4 4 "$file"
port=$FP_STREAM_PORT
must busywait 10000 ftc_have_peer
nport=$(ftc_peer_port)
cport=$(ftc_local_port "$NS_CLIENT" "$port")
log_info "connection $CLIENT_IP4:$cport -> $SERVER_IP4:$port, masqueraded as $ROUTER_SERVER_IP4:$nport"
ftc_wait_nflows "both NAT directions are learned" 2 15000
snapshot nat4
check_forms "masquerade" nat4 2
check_tuple "original direction: source translated to the router" nat4 original \
	"ipv4 tcp original $CLIENT_IP4 $cport $SERVER_IP4 $port $ROUTER_SERVER_IP4 $nport $SERVER_IP4 $port eth1 - eth2 -"
check_tuple "reply direction: destination translated back to the client" nat4 reply \
	"ipv4 tcp reply $SERVER_IP4 $port $ROUTER_SERVER_IP4 $nport $SERVER_IP4 $port $CLIENT_IP4 $cport eth2 - eth1 -"
ftc_check_grep "text: original with nat" "$T/nat4.txt" \
	"ipv4 tcp $CLIENT_IP4:$cport -> $SERVER_IP4:$port nat $ROUTER_SERVER_IP4:$nport -> $SERVER_IP4:$port in eth1 out eth2 dir original"
ftc_check_grep "text: reply with nat" "$T/nat4.txt" \
	"ipv4 tcp $SERVER_IP4:$port -> $ROUTER_SERVER_IP4:$nport nat $SERVER_IP4:$port -> $CLIENT_IP4:$cport in eth2 out eth1 dir reply"
check_eq "JSON: no VLAN on plain devices" "false false" \
	"$(jq -r '[.[] | has("iif_vlan") or has("oif_vlan")] | map(tostring) | join(" ")' "$T/nat4.json")"
fp_stream_running "masqueraded IPv4 TCP: all of the above"
fp_stream_finish "masqueraded IPv4 TCP" nat4 "$file"
ftc_wait_nflows "the closed NAT connection leaves no flow" 0 10000

fp_exit
