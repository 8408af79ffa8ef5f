#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# A route with lightweight-tunnel encap: the router reaches the server
# through "ip route add SERVER encap mpls 100 via SERVER dev vlan2222"
# (mpls_iptunnel); the server pops the label and delivers the packet
# ("ip -f mpls route add 100 dev lo"). Only client->server is
# encapsulated; the server answers over the plain route. The fast path
# cannot replay the encap, so it must never take the encapsulated
# direction; the answers take a plain route, which it may offload as the
# stack would forward them:
#  - over a TCP upload and a TCP download, the fast path forwards nothing
#    that the client sends (received on the client-side device), and
#    learns at most the answering direction of each connection;
#  - "ftctl -j stats" counts what it did not learn: not_learned.lwtunnel
#    grows;
#  - the data still arrives intact, through the slow path and the encap:
#    the server's eth0 sees the client's packets as MPLS only, never as
#    plain IP (the server would accept those too).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
modprobe -q mpls_router 2>/dev/null
modprobe -q mpls_iptunnel 2>/dev/null
[ -d /proc/sys/net/mpls ] || ft_skip "no MPLS in this kernel (modprobe mpls_router)"
fp_setup_stick
sdev=$ROUTER_SERVER_DEV

must ip netns exec "$NS_SERVER" sysctl -qw net.mpls.platform_labels=1000
must ip netns exec "$NS_SERVER" sysctl -qw net.mpls.conf.eth0.input=1
must ip netns exec "$NS_SERVER" sysctl -qw net.ipv4.conf.all.rp_filter=0
must ip netns exec "$NS_SERVER" sysctl -qw net.ipv4.conf.lo.rp_filter=0

# What reaches the server's eth0 from the client: MPLS, or plain IP.
must ip netns exec "$NS_SERVER" nft -f - <<EOF
table netdev st_mpls {
	counter mpls { }
	counter plain4 { }
	counter plain6 { }
	chain in {
		type filter hook ingress device "eth0" priority 0;
		ether type 0x8847 counter name "mpls"
		ip saddr $CLIENT_IP4 ip daddr $SERVER_IP4 counter name "plain4"
		ip6 saddr $CLIENT_IP6 ip6 daddr $SERVER_IP6 counter name "plain6"
	}
}
EOF
srv_pkts() { fp_num "$(fp_nft_packets "$NS_SERVER" "netdev st_mpls" "$1")"; }

for fam in 4 6; do
	srv=$(fp_server_ip "$fam")
	label=$((100 + fam))
	if [ "$fam" = 4 ]; then f=-4 len=32; else f=-6 len=128; fi
	must ip -n "$NS_SERVER" -f mpls route add "$label" dev lo
	if ! out=$(ip -n "$NS_ROUTER" $f route add "$srv/$len" encap mpls "$label" \
		via "$srv" dev "$sdev" 2>&1); then
		ft_skip "ip route ... encap mpls fails (no mpls_iptunnel?): $out"
	fi
	pass "IPv$fam: route to the server with encap mpls $label"

	fp_rand size 1048576 2097152
	file=$(fp_mkfile "e$fam" "$size")
	lw0=$(fp_num "$(fp_stat not_learned.lwtunnel)")
	learned0=$(fp_num "$(fp_stat learned)")

	mpls0=$(srv_pkts mpls)
	plain0=$(srv_pkts "plain$fam")
	fp_begin
	fp_tcp_transfer "IPv$fam upload through encap mpls" "$fam" "$file"
	fp_end
	check_eq "IPv$fam upload: the fast path forwarded nothing the client sent (bytes)" \
		0 "$(fp_cdelta "$fam")"

	fp_begin
	fp_tcp_fetch "IPv$fam download, requests through encap mpls" "$fam" "$file"
	fp_end
	check_eq "IPv$fam download: the fast path forwarded nothing the client sent (bytes)" \
		0 "$(fp_cdelta "$fam")"

	# At least one per 64 KiB sent: GSO may make the segments that large.
	check_ge "IPv$fam: the client's packets reach the server as MPLS" \
		"$(srv_pkts mpls)" $((mpls0 + size / 65536))
	check_eq "IPv$fam: none of the client's packets reach the server as plain IP" \
		"$plain0" "$(srv_pkts "plain$fam")"
	check_le "IPv$fam: fasttrack learned at most the answering direction of each connection" \
		"$(fp_num "$(fp_stat learned)")" $((learned0 + 2))
	lw=$(fp_stat not_learned.lwtunnel)
	if [ "$(fp_num "$lw")" -gt "$lw0" ]; then
		pass "IPv$fam: ftctl -j stats: not_learned.lwtunnel grew ($lw0 -> $lw)"
	else
		fail "IPv$fam: ftctl -j stats: not_learned.lwtunnel grew" \
			"before: $lw0, after: $lw" "ftctl -j stats: $(fp_stats)"
	fi
	must ip -n "$NS_ROUTER" $f route del "$srv/$len"
done

fp_exit
