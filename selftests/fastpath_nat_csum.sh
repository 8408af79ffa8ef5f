#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_port sets a
# variable by name; busywait and check call functions by name.
# The masquerade's UDP checksums, through every value. In each family,
# 65536 datagrams go through the router's masquerade (fastpath_nat's, to
# a port range) to an echo server and back, and their UDP checksums take
# every value (udpecho -w), so that the one value each rewrite brings to
# 0 on the way is among them. All are answered, the fast path carries
# them, and no receiver sees a UDP checksum of 0 (IPv6 drops it; IPv4
# takes it for "no checksum"), counted in the client and the server
# before anything else sees the packet. The veths' checksum offload is
# off, so that every receiver verifies the checksums the fast path wrote.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
require_cmd ethtool udpecho
fp_setup_stick
fp_csum_offload off
SWEEP=65536

# zero_count_init NS: counter "zero" in NS counts the UDP datagrams that
# arrive with a checksum of 0; zero_count NS reads it.
zero_count_init() {
	must ip netns exec "$1" nft -f - <<-EOF2
		table inet ft_zero {
			counter zero { }
			chain pre {
				type filter hook prerouting priority raw - 10;
				udp checksum 0 counter name zero
			}
		}
	EOF2
}
zero_count() {
	ip netns exec "$1" nft list counter inet ft_zero zero |
		awk '$1 == "packets" { print $2; exit }'
}
zero_count_init "$NS_CLIENT"
zero_count_init "$NS_SERVER"

# masquerade FAMILY: fastpath_nat's masquerade, in a table of FAMILY.
masquerade() {
	ip netns exec "$NS_ROUTER" nft -f - <<-EOF2
		table $1 ft_nat {
			$(fp_masq_chain)
		}
	EOF2
}

# sweep FAMILY DESC: the checksum sweep to an echo server through the
# masquerade; every answer comes back, no checksum of 0 on the way.
sweep() {
	local fam="$1" desc="$2" port z0c z0s echo
	fp_port port
	z0c=$(fp_num "$(zero_count "$NS_CLIENT")")
	z0s=$(fp_num "$(zero_count "$NS_SERVER")")
	fp_bg "sweep$fam" ip netns exec "$NS_SERVER" udpecho -s "$port"
	echo=$FP_PID
	must busywait 5000 fp_listening "$NS_SERVER" udp "$port"
	fp_begin
	check "$desc: all $SWEEP datagrams answered" fp_run ip netns exec "$NS_CLIENT" \
		udpecho -w "$(fp_server_ip "$fam")" "$port" "$SWEEP" "$(($(ft_secs 10) * 1000))"
	fp_end
	fp_kill "$echo"
	check_eq "$desc: no UDP checksum of 0 reached the server" \
		"$z0s" "$(fp_num "$(zero_count "$NS_SERVER")")"
	check_eq "$desc: no UDP checksum of 0 reached the client" \
		"$z0c" "$(fp_num "$(zero_count "$NS_CLIENT")")"
	fp_check_offload "$desc" $((SWEEP * 4)) "$FPD_C2S" "$(fp_cdelta "$fam")"
}

for fam in 4 6; do
	nfam=ip
	[ "$fam" = 4 ] || nfam=ip6
	if ! out=$(masquerade "$nfam" 2>&1); then
		if [ "$fam" = 6 ]; then
			log_info "SKIP: NAT66: nft rejects the IPv6 NAT table: $out"
			continue
		fi
		fail "setup: IPv4 masquerade" "nft -f: $out"
		fp_exit
	fi
	sweep "$fam" "IPv$fam masquerade UDP checksum sweep"
done

fp_exit
