#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# NAT on the fast path. The router masquerades the client behind its
# server-VLAN address (to a port range, so ports are rewritten too), and
# forwards a port on its client-VLAN address to the server (DNAT). Data
# arrives intact in both directions, over TCP and UDP, the server sees the
# translated addresses, and the fast path carries the transfers: it
# rewrites addresses, ports and checksums itself. IPv4, and the same with
# NAT66 when nft accepts it.
# One transfer runs with the veths' checksum offload (GSO packets, partial
# checksums); the others without it, so that every receiver verifies the
# L4 checksums that the fast path rewrote. fastpath_nat_csum sweeps the
# masquerade's UDP checksums through every value.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
require_cmd ethtool
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV

# nat_rules FAMILY: the NAT table for FAMILY (ip or ip6) with a masquerade
# and a TCP and a UDP port forward to the server.
nat_rules() {
	local fam="$1" raddr="$2" saddr="$3"
	ip netns exec "$NS_ROUTER" nft -f - <<-EOF2
		table $fam ft_nat {
			chain pre {
				type nat hook prerouting priority dstnat;
				iifname "$cdev" $fam daddr $raddr tcp dport $fwd_tcp dnat to $saddr:$srv_tcp
				iifname "$cdev" $fam daddr $raddr udp dport $fwd_udp dnat to $saddr:$srv_udp
			}
			$(fp_masq_chain)
		}
	EOF2
}

for fam in 4 6; do
	fp_port fwd_tcp
	fp_port srv_tcp
	fp_port fwd_udp
	fp_port srv_udp
	if [ "$fam" = 4 ]; then
		nfam=ip raddr=$ROUTER_CLIENT_IP4 rsaddr=$ROUTER_SERVER_IP4 saddr=$SERVER_IP4
	else
		nfam=ip6 raddr=$ROUTER_CLIENT_IP6 rsaddr=$ROUTER_SERVER_IP6 saddr="[$SERVER_IP6]"
	fi
	if ! out=$(nat_rules "$nfam" "$raddr" "$saddr" 2>&1); then
		if [ "$fam" = 6 ]; then
			log_info "SKIP: NAT66: nft rejects the IPv6 NAT table: $out"
			continue
		fi
		fail "setup: IPv4 NAT table" "nft -f: $out"
		fp_exit
	fi
	pass "IPv$fam: NAT table loaded (masquerade to :20000-29999, TCP and UDP port forwards)"

	fp_rand size 2097152 4194304
	file=$(fp_mkfile "m$fam" "$size")
	ufile=$(fp_mkfile "u$fam" $((size / 2)))

	# Masquerade, client to server, with checksum offload (GSO).
	fp_begin
	fp_tcp_transfer "IPv$fam masquerade TCP upload, GSO" "$fam" "$file"
	fp_end
	fp_check_offload "IPv$fam masquerade TCP upload, GSO" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"

	# From here on, every receiver checks every checksum.
	fp_csum_offload off
	fp_begin
	fp_tcp_transfer "IPv$fam masquerade TCP upload" "$fam" "$file"
	fp_end
	fp_check_peer "IPv$fam masquerade TCP: the server saw the router's address and a mapped port" \
		"$rsaddr" '2[0-9]{4}'
	fp_check_offload "IPv$fam masquerade TCP upload" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"

	# Masquerade, server to client: the reverse (de-masquerade) rewrite.
	fp_begin
	fp_tcp_fetch "IPv$fam masquerade TCP download" "$fam" "$file"
	fp_end
	fast=$(fp_sdelta "$fam")
	fp_check_offload "IPv$fam masquerade TCP download" "$size" "$FPD_S2C" "$fast"

	fp_begin
	fp_udp_transfer "IPv$fam masquerade UDP" "$fam" "$ufile"
	fp_end
	fp_check_peer "IPv$fam masquerade UDP: the server saw the router's address and a mapped port" \
		"$rsaddr" '2[0-9]{4}'
	fp_check_offload "IPv$fam masquerade UDP" $((size / 2)) "$FPD_C2S" "$(fp_cdelta "$fam")"

	# Port forwards to the server: destination address and port rewritten,
	# and the source masqueraded as well.
	fp_begin
	fp_tcp_transfer "IPv$fam DNAT TCP :$fwd_tcp -> :$srv_tcp" "$fam" "$file" \
		"$raddr" "$fwd_tcp" "$srv_tcp"
	fp_end
	fp_check_offload "IPv$fam DNAT TCP" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"

	fp_begin
	fp_udp_transfer "IPv$fam DNAT UDP :$fwd_udp -> :$srv_udp" "$fam" "$ufile" \
		"$raddr" "$fwd_udp" "$srv_udp"
	fp_end
	fp_check_offload "IPv$fam DNAT UDP" $((size / 2)) "$FPD_C2S" "$(fp_cdelta "$fam")"
	fp_csum_offload on
done

fp_exit
