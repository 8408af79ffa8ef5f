#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_port and
# fp_rand set variables by name; busywait and check call functions by name.
# A device that takes the ifindex of a deleted one inherits none of its
# flows (issue #35, S4). The fast path knows a flow's ingress device by
# its index; the flows of a deleted device stay in the table until the GC
# visits them. A UDP exchange per family is offloaded from the router's
# eth1; the GC is held off (debugfs fasttrack/gc_pause, FT_TEST_HOOKS
# builds), eth1 is deleted, and a device created in another netns with
# eth1's index is moved into the router, where it keeps it, and is enabled
# with eth1's addresses and the client behind it. The router's ruleset
# drops the test's ports from that device. The client goes on with the
# same connections: the stack drops what it sends, so the server must
# receive none of it, where the fast path would forward it under eth1's
# decision.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
require_cmd udpecho jq
fp_setup_plain
setup_ns NS_TMP

fp_debugfs gc_pause
gc_pause=$FP_DBG/gc_pause
defer sh -c "echo 0 >'$gc_pause'"

fp_port port4
port6=$((port4 + 1))
fp_rand sport 10000 60000

must ip netns exec "$NS_ROUTER" nft -f - <<-EOF
	table inet reuse {
		counter dropped { }
		chain forward {
			type filter hook forward priority filter - 1;
			iifname "newdev" udp dport { $port4, $port6 } counter name "dropped" drop
		}
	}
EOF
st_srv_count udp "$port4" "$port6"
fp_bg echo4 ip netns exec "$NS_SERVER" udpecho -s "$port4"
fp_bg echo6 ip netns exec "$NS_SERVER" udpecho -s "$port6"
must busywait 5000 fp_listening "$NS_SERVER" udp "$port4"
must busywait 5000 fp_listening "$NS_SERVER" udp "$port6"

# port FAMILY: the test's port of FAMILY.
port() { if [ "$1" = 4 ]; then echo "$port4"; else echo "$port6"; fi; }

# send FAMILY COUNT: COUNT datagrams on the family's connection; true if
# all were answered.
send() {
	ip netns exec "$NS_CLIENT" udpecho -c "$(fp_server_ip "$1")" "$(port "$1")" "$2" \
		"$(($(ft_secs 2) * 1000))" "$sport" >/dev/null 2>&1
}

# orig_cached PORT: the client's direction of the connection to PORT is cached.
orig_cached() {
	[ "$(ip netns exec "$NS_ROUTER" ftctl -j flows | jq --argjson p "$1" \
		'[.[] | select(.dir == "original" and .dport == $p)] | length')" -ge 1 ]
}

for fam in 4 6; do
	check "IPv$fam: 20 datagrams answered" send "$fam" 20
	check "IPv$fam: the client's direction is cached" busywait 5000 orig_cached "$(port "$fam")"
done

index=$(ip -n "$NS_ROUTER" -o link show eth1 | cut -d: -f1)
must sh -c "echo 1 >'$gc_pause'"
must ip -n "$NS_ROUTER" link del eth1
must ip -n "$NS_TMP" link add newdev index "$index" type veth peer name eth0 netns "$NS_CLIENT"
must ip -n "$NS_TMP" link set newdev netns "$NS_ROUTER"
check_eq "the device moved in has eth1's index" "$index" \
	"$(ip -n "$NS_ROUTER" -o link show newdev | cut -d: -f1)"
addr "$NS_ROUTER" newdev "$ROUTER_CLIENT_IP4/24" "$ROUTER_CLIENT_IP6/64"
host_side "$NS_CLIENT" eth0 "$CLIENT_IP4" "$CLIENT_IP6" "$ROUTER_CLIENT_IP4" "$ROUTER_CLIENT_IP6"
fp_enable newdev
topo_wait

for fam in 4 6; do
	srv0=$(st_srv_packets "$(port "$fam")")
	drop0=$(fp_num "$(fp_nft_packets "$NS_ROUTER" "inet reuse" dropped)")
	send "$fam" 5
	check_eq "IPv$fam: the server receives none of what enters the new device" \
		"$srv0" "$(st_srv_packets "$(port "$fam")")"
	check_eq "IPv$fam: the stack drops it, as its ruleset says" $((drop0 + 5)) \
		"$(fp_num "$(fp_nft_packets "$NS_ROUTER" "inet reuse" dropped)")"
done

fp_exit
