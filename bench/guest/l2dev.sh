# SPDX-License-Identifier: GPL-2.0
# make bench, section "bridge": the pps section's measurement (64-byte UDP
# frames of one flow from pktgen, bench/guest/bench.sh's prime and measure)
# through the router's own VLAN-aware bridge instead of a VLAN trunk:
#
#   [gen] gen0 ==veth== gport [router br0, vlan_filtering] br0.22 / br0.2222
#
# gport is a tagged member of VLANs 22 and 2222, and so is br0 itself; the
# router's L3 devices are the VLAN devices br0.22 and br0.2222 (as in
# selftests/fastpath_bridge.sh). pktgen sends VLAN-22-tagged frames to
# br0's MAC; the router forwards them out of br0.2222, the bridge sends
# them back out of gport tagged 2222 (static FDB entries for gen0's MAC).
# Paths: ceiling (tc vlan modify + mirred on gport: no bridge, no IP
# work), fs50, nfftc (the flowtable on br0.22 and br0.2222) and fasttrack
# (enabled on br0.22 and br0.2222). Results: sec=bridge rows, as sec=pps.
# Sourced by bench/guest/bench.sh after /selftests/lib.sh and
# /bench/guest/lib.sh; skipped with ft.skip=bridge.
# shellcheck shell=sh disable=SC3043,SC2154 # dash has "local"; bench.sh
# and lib.sh set the variables

L2B_PATHS="ceiling fs50 nfftc fasttrack"
L2B_DEVS="br0.22, br0.2222"

# l2b_setup: the generator and the router with its bridge (see the top).
# Sets what bn_pktgen needs: NS_GEN, NS_ROUTER, GEN_MAC, TRUNK_MAC.
l2b_setup() {
	local ip v
	setup_ns NS_GEN NS_ROUTER
	must ip netns exec "$NS_GEN" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	must ip netns exec "$NS_GEN" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	must ip -n "$NS_GEN" link add gen0 type veth peer name gport netns "$NS_ROUTER"
	must ip -n "$NS_GEN" link set gen0 up
	router_forwarding "$NS_ROUTER"
	bn_ct_settings "$NS_ROUTER"
	must ip -n "$NS_ROUTER" link add br0 type bridge vlan_filtering 1 vlan_default_pvid 0
	must ip -n "$NS_ROUTER" link set gport master br0 up
	GEN_MAC=$(ip netns exec "$NS_GEN" cat /sys/class/net/gen0/address)
	for v in 22 2222; do
		must bridge -n "$NS_ROUTER" vlan add dev gport vid "$v"
		must bridge -n "$NS_ROUTER" vlan add dev br0 vid "$v" self
		must bridge -n "$NS_ROUTER" fdb add "$GEN_MAC" dev gport vlan "$v" master static
	done
	must ip -n "$NS_ROUTER" link set br0 up
	must ip -n "$NS_ROUTER" link add link br0 name br0.22 type vlan id 22
	must ip -n "$NS_ROUTER" link add link br0 name br0.2222 type vlan id 2222
	addr "$NS_ROUTER" br0.22 198.18.22.1/24 2001:db8:22::1/64
	addr "$NS_ROUTER" br0.2222 198.18.222.1/24 2001:db8:2222::1/64
	TRUNK_MAC=$(ip netns exec "$NS_ROUTER" cat /sys/class/net/br0/address)
	for ip in $GEN_V4 $GEN_V6; do
		must ip -n "$NS_ROUTER" neigh replace "$ip" lladdr "$GEN_MAC" dev br0.22 nud permanent
	done
	for ip in $SINK_V4 $SINK_V6; do
		must ip -n "$NS_ROUTER" neigh replace "$ip" lladdr "$GEN_MAC" dev br0.2222 nud permanent
	done
	must ip netns exec "$NS_GEN" tc qdisc add dev gen0 clsact
	must ip netns exec "$NS_GEN" tc filter add dev gen0 ingress pref 1 protocol all matchall action drop
	modprobe pktgen || bn_die "modprobe pktgen"
}

# l2b_path_on PATH: one of L2B_PATHS; l2b_path_off undoes it. Returns 1
# when the kernel cannot do PATH here (the flowtable on these devices).
l2b_path_on() {
	local ns=$NS_ROUTER
	case $1 in
	ceiling)
		ip netns exec "$ns" tc qdisc add dev gport clsact &&
			ip netns exec "$ns" tc filter add dev gport ingress pref 1 protocol all \
				matchall action vlan modify id 2222 pipe \
				action mirred egress redirect dev gport ||
			bn_die "tc turnaround on gport"
		;;
	fs50) nft_forward_ruleset "$ns" br0.22 br0.2222 ;;
	nfftc)
		nft_forward_ruleset "$ns" br0.22 br0.2222
		bn_flowtable "$ns" 1 "$L2B_DEVS" || return 1
		;;
	fasttrack)
		nft_forward_ruleset "$ns" br0.22 br0.2222
		ip netns exec "$ns" ftctl enable br0.22 >/dev/null &&
			ip netns exec "$ns" ftctl enable br0.2222 >/dev/null ||
			bn_die "ftctl enable"
		;;
	*) bn_die "unknown path $1" ;;
	esac
}

l2b_path_off() {
	ip netns exec "$NS_ROUTER" ftctl disable br0.22 >/dev/null 2>&1
	ip netns exec "$NS_ROUTER" ftctl disable br0.2222 >/dev/null 2>&1
	ip netns exec "$NS_ROUTER" tc qdisc del dev gport clsact >/dev/null 2>&1
	bn_path_off "$NS_ROUTER"
}

section_bridge() {
	local path n
	section "64-byte pktgen frames, one flow, through the router's VLAN-aware bridge"
	l2b_setup
	for path in $L2B_PATHS; do
		if ! l2b_path_on "$path"; then
			say "  $path: the flowtable does not take $L2B_DEVS on this kernel: skipped"
			bn_result sec=bridge_skip path="$path" why=flowtable_devices
			l2b_path_off
			continue
		fi
		measure_one bridge "$path"
		if [ "$path" = fasttrack ]; then
			ip netns exec "$NS_ROUTER" ftctl -j stats | jq -cM '{flows, learned, forwarded, punted}'
		fi
		if [ "$path" = nfftc ]; then
			# Whether the flowtable took the flows (both families' are live).
			n=$(ip netns exec "$NS_ROUTER" conntrack -L 2>/dev/null | grep -c OFFLOAD)
			say "  nfftc: $n connections offloaded to the flowtable"
			bn_result sec=bridge_ft devs="$(echo "$L2B_DEVS" | tr -d ' ')" offloaded="$n"
		fi
		l2b_path_off
	done
	ft_cleanup
}
