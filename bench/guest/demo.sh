#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo, in the guest: the story of fasttrack on a router-on-a-stick,
# narrated. A show, not a test, but any broken step (an ftctl error, a fast
# path that forwards nothing) ends it with "FAILED" and a non-zero exit.
#
# Settings from the kernel command line: ft.tcp=BYTES per iperf3 run (16M);
# each measurement is the median of three runs.
. /selftests/lib.sh
. /bench/guest/lib.sh

TCPN=16M
for arg in $(cat /proc/cmdline); do
	case $arg in
	ft.tcp=*) TCPN=${arg#*=} ;;
	esac
done

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
r() { xrun "$NS_ROUTER" "$@"; }

# tput FAM: upload from the client to the server with iperf3, three times;
# sets GBPS to the median.
tput() {
	local fam=$1 ip out i all=
	if [ "$fam" = 4 ]; then ip=$SERVER_IP4; else ip=$SERVER_IP6; fi
	printf '  client# iperf3 -c %s -n %s     (3 times)\n' "$ip" "$TCPN"
	for i in 1 2 3; do
		out=$(ip netns exec "$NS_CLIENT" timeout 120 iperf3 -c "$ip" -n "$TCPN" -J) ||
			bn_die "iperf3 to $ip: $(printf '%s' "$out" | jq -r '.error // empty' 2>/dev/null)"
		all="$all $(printf '%s' "$out" | jq -r '.end.sum_received.bits_per_second / 1e9 | . * 1000 | round / 1000')"
	done
	# shellcheck disable=SC2086 # a list of numbers
	GBPS=$(bn_median $all)
	printf '    IPv%s TCP: %s Gbit/s (runs:%s)\n' "$fam" "$GBPS" "$all"
}

# ft_pkts DEV FAMILY: packets fasttrack forwarded that came in on DEV.
ft_pkts() { ft_counter "$NS_ROUTER" "$1" "$2" packets; }
# slow_bytes: bytes the forward chain saw, both directions.
slow_bytes() { echo $(($(nft_counter_bytes "$NS_ROUTER" c2s) + $(nft_counter_bytes "$NS_ROUTER" s2c))); }

say ""
say "fasttrack demo on Linux $(uname -r) (qemu guest, 1 vCPU; guest time follows"
say "instructions executed, so the numbers below repeat from run to run)."

step "1. A router-on-a-stick with a firewall"
say ""
say "     client --- VLAN 22 ---+"
say "     198.18.22.2           |                  tagged 22 + 2222"
say "     2001:db8:22::2     [switch] ================================ trunk0 [router]"
say "                           |                                     vlan22   .1 / ::1"
say "     server --- VLAN 2222 -+                                     vlan2222 .1 / ::1"
say "     198.18.222.2"
say "     2001:db8:2222::2"
say ""
say "  Every packet between the VLANs goes up the trunk and back down it, through"
say "  conntrack and a forward chain of about 50 rules with a drop policy."
modprobe fasttrack || bn_die "modprobe fasttrack"
setup_router_on_a_stick
nft_forward_ruleset "$NS_ROUTER"
say "  router# nft list chain inet ft_fwd forward | wc -l"
say "    $(ip netns exec "$NS_ROUTER" nft list chain inet ft_fwd forward | wc -l) lines"
ip netns exec "$NS_SERVER" iperf3 -s -D || bn_die "iperf3 server"
busywait 5000 sh -c "ip netns exec $NS_SERVER cat /proc/net/tcp6 | grep -q ':1451 .* 0A '" ||
	bn_die "iperf3 server not listening"
r ftctl show
say "  (no output: no device has fasttrack enabled yet)"

step "2. Throughput with fasttrack off: every packet crosses conntrack and the rules"
slow0=$(slow_bytes)
tput 4
OFF4=$GBPS
tput 6
OFF6=$GBPS
say "  The forward chain saw $(($(slow_bytes) - slow0)) bytes: all of them."

step "3. Turn fasttrack on for both VLANs"
r ftctl enable vlan22
r ftctl enable vlan2222
r ftctl show

step "4. Throughput with fasttrack on: after the handshake, packets skip the stack"
slow0=$(slow_bytes)
f4=$(ft_pkts vlan22 ipv4) f6=$(ft_pkts vlan22 ipv6)
tput 4
ON4=$GBPS
tput 6
ON6=$GBPS
slow=$(($(slow_bytes) - slow0))
d4=$(($(ft_pkts vlan22 ipv4) - f4)) d6=$(($(ft_pkts vlan22 ipv6) - f6))
say "  The forward chain saw only $slow bytes (handshakes, first packets);"
say "  fasttrack forwarded $d4 IPv4 and $d6 IPv6 packets (TSO: up to 64 KB each) from vlan22."
[ "$d4" -gt 0 ] && [ "$d6" -gt 0 ] || bn_die "fasttrack forwarded nothing from vlan22"
r ftctl show

step "5. The flow cache: two slow transfers in flight, IPv4 and IPv6"
say "  Each iperf3 test has a control and a data connection; each connection is"
say "  cached as two directions, learned from conntrack once it is established."
ip netns exec "$NS_SERVER" iperf3 -s -D -p 5202 || bn_die "second iperf3 server"
busywait 5000 sh -c "ip netns exec $NS_SERVER cat /proc/net/tcp6 | grep -q ':1452 .* 0A '" ||
	bn_die "second iperf3 server not listening"
ip netns exec "$NS_CLIENT" iperf3 -c "$SERVER_IP4" -b 20M -t 2 >/dev/null 2>&1 &
p4=$!
ip netns exec "$NS_CLIENT" iperf3 -c "$SERVER_IP6" -p 5202 -b 20M -t 2 >/dev/null 2>&1 &
p6=$!
sleep 1
r ftctl flows
wait "$p4" || bn_die "background IPv4 transfer failed"
wait "$p6" || bn_die "background IPv6 transfer failed"
say "  (Finished connections leave the cache at their FIN; the rest age out.)"
r ftctl stats

step "6. Per-family switch: ftctl disable vlan22 ipv6"
r ftctl disable vlan22 ipv6
r ftctl show
f4=$(ft_pkts vlan22 ipv4) f6=$(ft_pkts vlan22 ipv6)
tput 6
DIS6=$GBPS
tput 4
DIS4=$GBPS
d4=$(($(ft_pkts vlan22 ipv4) - f4)) d6=$(($(ft_pkts vlan22 ipv6) - f6))
say "  From vlan22, fasttrack forwarded $d6 IPv6 packets (the uploads took the full"
say "  stack) and $d4 IPv4 packets. The server's ACKs enter vlan2222, where IPv6 is"
say "  still on, so they stay fast."
[ "$d6" -eq 0 ] || bn_die "IPv6 from vlan22 still fasttracked after 'ftctl disable vlan22 ipv6'"
[ "$d4" -gt 0 ] || bn_die "IPv4 from vlan22 no longer fasttracked"
r ftctl show vlan22

step "7. The router's own cost: 64-byte frames with pktgen"
say "  TCP above is mostly the endpoints' work (they share the guest's CPU). pktgen"
say "  sends small UDP frames straight into the router's trunk, so the rate shows"
say "  what routing costs per packet."
ft_cleanup
bn_setup_pktgen
for path in fs50 fasttrack; do
	bn_path_on "$NS_ROUTER" "$path"
	for fam in 4 6; do
		bn_pktgen "$fam" fwd 10 1 1
		bn_pktgen "$fam" rev 10 1 1
		bn_pktgen "$fam" fwd 10 1 1
		bn_pktgen "$fam" fwd 10000 1 1
		[ "$BN_RX" -eq 10000 ] || bn_die "pktgen: $BN_RX of 10000 frames came back"
		pps=$((BN_RX * 1000000 / BN_USEC))
		say "  $path IPv$fam: $pps packets/s"
		eval "PPS_${path}_$fam=$pps"
	done
	bn_path_off "$NS_ROUTER"
done

step "Summary"
gain() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.0f %%", (b / a - 1) * 100 }'; }
printf '\n  %-34s %14s %14s %8s\n' "" "fasttrack off" "fasttrack on" "gain"
printf '  %-34s %14s %14s %8s\n' "IPv4 TCP, Gbit/s" "$OFF4" "$ON4" "$(gain "$OFF4" "$ON4")"
printf '  %-34s %14s %14s %8s\n' "IPv6 TCP, Gbit/s" "$OFF6" "$ON6" "$(gain "$OFF6" "$ON6")"
printf '  %-34s %14s %14s\n' "  after ftctl disable vlan22 ipv6:" "" ""
printf '  %-34s %14s %14s\n' "  IPv6 TCP, Gbit/s" "" "$DIS6"
printf '  %-34s %14s %14s\n' "  IPv4 TCP, Gbit/s" "" "$DIS4"
printf '  %-34s %14s %14s %8s\n' "IPv4 64-byte, packets/s" "$PPS_fs50_4" "$PPS_fasttrack_4" "$(gain "$PPS_fs50_4" "$PPS_fasttrack_4")"
printf '  %-34s %14s %14s %8s\n' "IPv6 64-byte, packets/s" "$PPS_fs50_6" "$PPS_fasttrack_6" "$(gain "$PPS_fs50_6" "$PPS_fasttrack_6")"
say ""
say "  The full record (flowtable, 1M flows, memory): make bench."
if dmesg | grep -E "$FT_SPLAT_RE" >/dev/null; then
	dmesg | grep -E -A 20 "$FT_SPLAT_RE" | head -40
	bn_die "kernel splat"
fi
ft_cleanup
echo "@DONE"
