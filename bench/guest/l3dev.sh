# SPDX-License-Identifier: GPL-2.0
# make bench, section "l3dev": the router's WAN is a layer-3 device, on the
# selftests' topologies (selftests/lib_l3dev.sh, L3_LAN=stick):
#
#   client eth0 -- switch -- trunk0 [router] vlan22 (LAN)
#                                     ppp0 or wg0 over vlan2222 -- switch -- ISP/peer -- server
#
# Sourced by bench/guest/bench.sh (say, bn_*, section, settle, now). Each
# device runs in a subshell of its own, with the selftests' libraries and
# their cleanup; a missing tool or module there is a skip of that device.
# Paths (ld_path_on): ceiling and ppp0tx (PPPoE only, see below), fs50 (the ~50-rule
# forward ruleset between vlan22 and the WAN device, conntrack), nfftc
# (fs50 + an nftables flowtable with counter; PPPoE: on vlan22 and trunk0,
# so that the flowtable resolves ppp0 -> PPPoE -> vlan2222 -> trunk0 and
# takes the session's frames straight from trunk0; it still transmits
# through ppp0: the kernel (6.12) transmits directly only with a bridge
# in the path or hardware offload; WireGuard: on vlan22 and wg0),
# fasttrack (fs50 + "ftctl enable" on vlan22 and the WAN device; it
# transmits through ppp0 / wg0 themselves).
#
# pppoe: router work per 64-byte UDP packet, LAN -> ppp0 (PPPoE session to
#   the ISP's pppoe-server), one flow, IPv4 and IPv6, routed (the ISP
#   routes the LAN's prefixes into the session; no NAT). pktgen runs on the
#   client's eth0 (64-byte frames, untagged: the switch tags them 22). The
#   flow is primed as the pps section primes it, one frame forward, one
#   reply from the server (pktgen on the server's eth0, through the ISP's
#   user-space PPPoE, the session and ppp0), one forward again, so that
#   conntrack has it established and the offload paths cache it. Then the
#   switch drops and counts (tc matchall on its trunk port's ingress) what
#   the router sends it: the PPPoE frames never reach the ISP's user-space
#   PPPoE, which would cost more than the router. ft.l3ppsreps runs of
#   ft.l3count frames per path and family; pps = frames the switch got / pktgen's run
#   time. The ceiling is the same chain with no IP work: tc on trunk0
#   turns the frames around (tag 22 -> 2222, out of trunk0), as the pps
#   section's ceiling does; router work per packet = 1/pps - 1/pps(ceiling)
#   (the host computes it from the medians). A second turnaround, ppp0tx,
#   redirects the frames (tag popped) into ppp0 instead: what ppp0's
#   transmit (its qdisc, ppp, pppoe, vlan2222) costs per packet, the most
#   that a direct PPPoE transmit could save (mirred may hand ppp0 the
#   frame with its Ethernet header: wrong bytes, the same work; the switch
#   drops them). Each run also counts what ppp0 transmitted.
#
# wireguard: iperf3 TCP, ft.l3tcp bytes per run, client -> server (upload:
#   the router encrypts into wg0) and server -> client (download, -R: the
#   router forwards what wg0 decrypted), IPv4 and IPv6 over an IPv4
#   underlay, REPS runs each. Throughput in guest time; the peer's
#   decryption (encryption), both TCP stacks and the switch run on the same
#   CPU, so the router's forwarding is a share of the total: the host
#   reports each path's time per byte against fs50's (what the offload
#   saves of the router's forwarding work).
#
# Settings (kernel command line):
#   ft.l3paths=P,...   paths (fs50,nfftc,fasttrack; PPPoE adds ceiling and
#                      ppp0tx)
#   ft.l3count=N       pktgen frames per PPPoE run (ft.count)
#   ft.l3ppsreps=N     PPPoE runs per path and family (ft.ppsreps)
#   ft.l3tcp=BYTES     bytes per WireGuard iperf3 run (ft.tcp)
#   ft.l3devs=D,...    devices: pppoe, wireguard (pppoe,wireguard)
# shellcheck shell=sh disable=SC3043,SC2086,SC2046,SC2154,SC2013,SC2015,SC2034,SC1091 # dash has "local"; $(...) splits on purpose; lib_l3dev.sh sets the topology's names; lib.sh reads FT_DEFER

LD_PATHS=fs50,nfftc,fasttrack LD_COUNT=$COUNT LD_REPS=$PPSREPS LD_TCP=$TCPN LD_DEVS=pppoe,wireguard
for arg in $(cat /proc/cmdline); do
	case $arg in
	ft.l3paths=*) LD_PATHS=${arg#*=} ;;
	ft.l3count=*) LD_COUNT=${arg#*=} ;;
	ft.l3ppsreps=*) LD_REPS=${arg#*=} ;;
	ft.l3tcp=*) LD_TCP=${arg#*=} ;;
	ft.l3devs=*) LD_DEVS=${arg#*=} ;;
	esac
done
LD_PATHS=$(echo "$LD_PATHS" | tr ',' ' ')
LD_DEVS=$(echo "$LD_DEVS" | tr ',' ' ')
LD_PORT_C=10000 LD_PORT_S=20000

# ld_libs: the selftests' topology helpers, in the device's subshell (they
# set names such as SERVER_IP4 that the other sections use otherwise).
ld_libs() {
	. /selftests/lib_fastpath.sh
	. /selftests/lib_l3dev.sh
	FT_DEFER=
	trap ft_cleanup EXIT
	FP_TMP=$(mktemp -d /tmp/l3bench-XXXXXX) || bn_die "mktemp"
	defer rm -rf "$FP_TMP"
}

# ld_slow_pkts: packets the forward chain's c2s + s2c counters saw.
ld_slow_pkts() {
	ip netns exec "$NS_ROUTER" nft -j list counters table inet ft_fwd 2>/dev/null |
		jq '[.nftables[] | select(.counter) | .counter.packets] | add // 0'
}
ld_slow_bytes() {
	ip netns exec "$NS_ROUTER" nft -j list counters table inet ft_fwd 2>/dev/null |
		jq '[.nftables[] | select(.counter) | .counter.bytes] | add // 0'
}
ld_ft_fwd() { ip netns exec "$NS_ROUTER" ftctl -j stats 2>/dev/null | jq '.forwarded.packets // 0'; }

# ld_path_on PATH WAN FTDEVS: the router's path between vlan22 and WAN;
# FTDEVS are the flowtable's devices. Fails (status 1) when the flowtable
# does not take them.
ld_path_on() {
	case $1 in
	ceiling)
		ip netns exec "$NS_ROUTER" tc qdisc add dev trunk0 clsact &&
			ip netns exec "$NS_ROUTER" tc filter add dev trunk0 ingress pref 1 protocol all \
				matchall action vlan modify id 2222 pipe \
				action mirred egress redirect dev trunk0 ||
			bn_die "tc turnaround on trunk0"
		;;
	ppp0tx)
		ip netns exec "$NS_ROUTER" tc qdisc add dev trunk0 clsact &&
			ip netns exec "$NS_ROUTER" tc filter add dev trunk0 ingress pref 1 protocol all \
				matchall action vlan pop pipe action mirred egress redirect dev ppp0 ||
			bn_die "tc redirect from trunk0 into ppp0"
		;;
	fs50) nft_forward_ruleset "$NS_ROUTER" vlan22 "$2" ;;
	nfftc)
		nft_forward_ruleset "$NS_ROUTER" vlan22 "$2"
		bn_flowtable "$NS_ROUTER" 1 "$3" || return 1
		;;
	fasttrack)
		nft_forward_ruleset "$NS_ROUTER" vlan22 "$2"
		ip netns exec "$NS_ROUTER" ftctl enable vlan22 >/dev/null &&
			ip netns exec "$NS_ROUTER" ftctl enable "$2" >/dev/null ||
			bn_die "ftctl enable vlan22 $2"
		;;
	*) bn_die "l3dev: unknown path $1 (ceiling, ppp0tx, fs50, nfftc, fasttrack)" ;;
	esac
}

# ld_path_off WAN: back to plain forwarding, no connection tracked.
ld_path_off() {
	ip netns exec "$NS_ROUTER" ftctl disable vlan22 >/dev/null 2>&1
	ip netns exec "$NS_ROUTER" ftctl disable "$1" >/dev/null 2>&1
	ip netns exec "$NS_ROUTER" tc qdisc del dev trunk0 clsact >/dev/null 2>&1
	ip netns exec "$NS_ROUTER" nft flush ruleset || bn_die "nft flush ruleset"
	ip netns exec "$NS_ROUTER" conntrack -F >/dev/null 2>&1
	busywait 20000 bn_ct_empty "$NS_ROUTER" || say "  (conntrack table not empty after flush)"
}

# ------------------------------------------------------------- PPPoE ----

# ld_pg DIR FAM COUNT: COUNT 64-byte UDP frames of the one flow, fwd from
# the client's eth0 to the router, rev from the server's eth0 to the ISP.
# Sets BN_USEC and BN_SENT as bn_pktgen does.
ld_pg() {
	local out
	if [ "$1" = fwd ]; then
		set -- "$NS_CLIENT" "$LD_LAN_MAC" "$2" "$3" "$(ld_ip "$2" c)" "$(ld_ip "$2" s)" $LD_PORT_C $LD_PORT_S
	else
		set -- "$NS_SERVER" "$LD_ISP_MAC" "$2" "$3" "$(ld_ip "$2" s)" "$(ld_ip "$2" c)" $LD_PORT_S $LD_PORT_C
	fi
	out=$(ip netns exec "$1" sh /bench/guest/pktgen.sh eth0 "$2" - "$3" "$5" "$6" "$7" 1 "$8" 1 "$4") ||
		bn_die "pktgen: $out"
	set -- $out
	BN_USEC=$1 BN_SENT=$2
}
ld_ip() {
	case $1$2 in
	4c) echo "$CLIENT_IP4" ;;
	4s) echo "$SERVER_IP4" ;;
	6c) echo "$CLIENT_IP6" ;;
	6s) echo "$SERVER_IP6" ;;
	esac
}

# ld_replied FAM: the router's conntrack has the flow, and has seen its reply.
ld_replied() {
	ip netns exec "$NS_ROUTER" conntrack -L -f "ipv$1" -p udp --dport "$LD_PORT_S" 2>/dev/null |
		grep -v UNREPLIED | grep -q "dport=$LD_PORT_S"
}

# ld_prime FAM: the flow established (and cached by the offload paths).
ld_prime() {
	ld_pg fwd "$1" 1
	sleep 1
	ld_pg rev "$1" 1
	busywait 10000 ld_replied "$1" || say "  (IPv$1: the reply did not reach the router's conntrack)"
	ld_pg fwd "$1" 1
	settle
}

# ld_ppp_tx: packets the router's ppp0 transmitted (through its own xmit).
ld_ppp_tx() { ip netns exec "$NS_ROUTER" cat /sys/class/net/ppp0/statistics/tx_packets; }

ld_sink_rx() { ip netns exec "$NS_SWITCH" cat /sys/class/net/swtrunk/statistics/rx_packets; }

# ld_sink on|off: the switch drops what the router sends it (it counts it
# in swtrunk's rx_packets, before tc).
ld_sink() {
	if [ "$1" = on ]; then
		ip netns exec "$NS_SWITCH" tc qdisc add dev swtrunk clsact &&
			ip netns exec "$NS_SWITCH" tc filter add dev swtrunk ingress pref 1 protocol all \
				matchall action drop || bn_die "tc drop on swtrunk"
	else
		ip netns exec "$NS_SWITCH" tc qdisc del dev swtrunk clsact || bn_die "tc qdisc del swtrunk"
	fi
}

ld_pppoe() {
	local path fam rep rx0 s0 f0 t0 rx pps slow ft tx c
	ld_libs
	for c in pppd pppoe-server pppoe; do
		command -v "$c" >/dev/null || { say "  (no $c: PPPoE skipped)"; exit "$KSFT_SKIP"; }
	done
	l3_setup_lan
	l3_setup_pppoe
	# Routed: the ISP routes the LAN's IPv4 prefix into the session too.
	must ip -n "$NS_PEER" route replace "$CLIENT_NET4" dev "$PEER_DEV"
	bn_ct_settings "$NS_ROUTER"
	l3_wait
	LD_LAN_MAC=$(ip netns exec "$NS_ROUTER" cat /sys/class/net/vlan22/address)
	LD_ISP_MAC=$(ip netns exec "$NS_PEER" cat /sys/class/net/eth1/address)
	modprobe pktgen || bn_die "modprobe pktgen"
	say "  PPPoE session up: router ppp0 $PPP_IP4, ISP $PEER_DEV (user-space pppoe-server)"
	for path in ceiling ppp0tx $LD_PATHS; do
		if ! ld_path_on "$path" ppp0 "vlan22, trunk0"; then
			say "  (the flowtable does not take vlan22, trunk0 here: $path skipped)"
			ld_path_off ppp0
			continue
		fi
		for fam in 4 6; do
			case $path in ceiling | ppp0tx) ;; *) ld_prime "$fam" ;; esac
			ld_sink on
			for rep in $(seq "$LD_REPS"); do
				rx0=$(ld_sink_rx) s0=$(ld_slow_pkts) f0=$(ld_ft_fwd) t0=$(ld_ppp_tx)
				ld_pg fwd "$fam" "$LD_COUNT"
				rx=$(($(ld_sink_rx) - rx0)) slow=$(($(ld_slow_pkts) - s0)) ft=$(($(ld_ft_fwd) - f0))
				tx=$(($(ld_ppp_tx) - t0))
				pps=$(awk -v n="$rx" -v us="$BN_USEC" 'BEGIN { printf "%.1f", n * 1e6 / us }')
				say "  pppoe $path IPv$fam #$rep: $pps pps ($rx of $BN_SENT frames in $BN_USEC us;" \
					"forward chain saw $slow, fasttrack forwarded $ft, ppp0 transmitted $tx)"
				bn_result sec=l3dev dev=pppoe path="$path" fam="$fam" rep="$rep" usec="$BN_USEC" \
					sent="$BN_SENT" rx="$rx" pps="$pps" slow_pkts="$slow" ft_pkts="$ft" ppp_tx="$tx"
			done
			ld_sink off
		done
		if [ "$path" = fasttrack ]; then
			ip netns exec "$NS_ROUTER" ftctl -j stats | jq -cM '{flows, learned, forwarded, punted}'
		fi
		[ "$path" != nfftc ] || ip netns exec "$NS_ROUTER" conntrack -L 2>/dev/null | grep -c OFFLOAD |
			sed 's/^/  flowtable: offloaded connections: /'
		ld_path_off ppp0
	done
	say "  ppp0: $(ip -n "$NS_ROUTER" -s link show ppp0 | awk '/RX:/ { getline; rx = $2 } /TX:/ { getline; tx = $2 } END { print "rx", rx, "tx", tx, "packets" }')"
}

# --------------------------------------------------------- WireGuard ----

# ld_iperf FAM DIR: one iperf3 run; prints "GBPS BYTES" as the receiver got them.
ld_iperf() {
	local ip out r=
	ip=$(ld_ip "$1" s)
	[ "$2" = up ] || r=-R
	out=$(ip netns exec "$NS_CLIENT" timeout 300 iperf3 -c "$ip" -J -n "$LD_TCP" $r) ||
		bn_die "iperf3 IPv$1 $2: $(printf '%s' "$out" | jq -r '.error // empty' 2>/dev/null)"
	printf '%s' "$out" | jq -r '.end.sum_received | "\(.bits_per_second / 1e9) \(.bytes)"'
}

ld_wireguard() {
	local path fam dir rep res s0 f0 slow ft
	ld_libs
	command -v wg >/dev/null || { say "  (no wg: WireGuard skipped)"; exit "$KSFT_SKIP"; }
	l3_setup_lan
	l3_setup_wireguard
	bn_ct_settings "$NS_ROUTER"
	l3_wait
	fp_bg iperf3 ip netns exec "$NS_SERVER" iperf3 -s
	busywait 5000 iperf_listening || bn_die "the iperf3 server does not listen"
	for path in $LD_PATHS; do
		if ! ld_path_on "$path" wg0 "vlan22, wg0"; then
			say "  (the flowtable does not take vlan22, wg0 here: $path skipped)"
			ld_path_off wg0
			continue
		fi
		for fam in 4 6; do
			for dir in up down; do
				for rep in $(seq "$REPS"); do
					s0=$(ld_slow_bytes) f0=$(ld_ft_fwd)
					res=$(ld_iperf "$fam" "$dir") || exit 1
					set -- $res
					slow=$(($(ld_slow_bytes) - s0)) ft=$(($(ld_ft_fwd) - f0))
					say "  wireguard $path IPv$fam $dir #$rep: $(printf '%.3f' "$1") Gbit/s" \
						"(forward chain saw $slow of $2 bytes; fasttrack forwarded $ft packets)"
					bn_result sec=l3dev dev=wireguard path="$path" fam="$fam" dir="$dir" rep="$rep" \
						gbps="$1" bytes="$2" slow_bytes="$slow" ft_pkts="$ft"
				done
			done
		done
		ld_path_off wg0
	done
}

section_l3dev() {
	local d rc
	section "Layer-3 WAN devices: PPPoE (pktgen, 64-byte UDP), WireGuard (iperf3 TCP)"
	bn_result sec=l3dev_meta paths="$(echo $LD_PATHS | tr ' ' ,)" count="$LD_COUNT" reps="$LD_REPS" \
		tcp_reps="$REPS" tcp_bytes="$LD_TCP"
	for d in $LD_DEVS; do
		case $d in
		pppoe) (ld_pppoe) ;;
		wireguard) (ld_wireguard) ;;
		*) bn_die "l3dev: unknown device $d (pppoe, wireguard)" ;;
		esac
		rc=$?
		if [ "$rc" = "$KSFT_SKIP" ]; then
			bn_result sec=l3dev_skip dev="$d"
		elif [ "$rc" != 0 ]; then
			bn_die "l3dev: $d (exit $rc)"
		fi
		settle
	done
}
