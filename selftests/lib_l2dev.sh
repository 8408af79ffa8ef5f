# SPDX-License-Identifier: GPL-2.0
# Router topologies over stacked Ethernet devices (bridges, bonds, QinQ),
# for the selftests and, with real endpoints (iperf3), the bench: source
# lib.sh, then this (and lib_fastpath.sh for l2_setup_fp, l2_transfers).
# Each l2_topo_* builds the client, server and router netns (and a switch
# netns where the topology has one), sets NS_* and the ROUTER_*, CLIENT_*
# and SERVER_* variables as setup_router_on_a_stick does, and waits until
# the client reaches the server over both families. Nothing is enabled and
# no ruleset is loaded: l2_setup_fp does that for the tests, the bench
# does its own. The client and the server talk through their eth0, as in
# lib.sh.
# shellcheck shell=sh disable=SC3043,SC2034,SC2154 # dash has "local"; the
# variables are for the callers; lib.sh sets NS_* by name.

# l2_stick_addrs: the addresses of router-on-a-stick (VLAN 22 and 2222).
l2_stick_addrs() {
	CLIENT_IP4=198.18.22.2 CLIENT_IP6=2001:db8:22::2
	SERVER_IP4=198.18.222.2 SERVER_IP6=2001:db8:2222::2
	ROUTER_CLIENT_IP4=198.18.22.1 ROUTER_CLIENT_IP6=2001:db8:22::1
	ROUTER_SERVER_IP4=198.18.222.1 ROUTER_SERVER_IP6=2001:db8:2222::1
}

# l2_router_l3 CDEV SDEV: the router's addresses on CDEV and SDEV, the
# hosts' addresses and default routes, then wait for reachability.
l2_router_l3() {
	ROUTER_CLIENT_DEV=$1 ROUTER_SERVER_DEV=$2
	router_forwarding "$NS_ROUTER"
	addr "$NS_ROUTER" "$1" "$ROUTER_CLIENT_IP4/24" "$ROUTER_CLIENT_IP6/64"
	addr "$NS_ROUTER" "$2" "$ROUTER_SERVER_IP4/24" "$ROUTER_SERVER_IP6/64"
	host_side "$NS_CLIENT" eth0 "$CLIENT_IP4" "$CLIENT_IP6" "$ROUTER_CLIENT_IP4" "$ROUTER_CLIENT_IP6"
	host_side "$NS_SERVER" eth0 "$SERVER_IP4" "$SERVER_IP6" "$ROUTER_SERVER_IP4" "$ROUTER_SERVER_IP6"
	topo_wait
}

# l2_topo_vbridge: the router's own VLAN-aware bridge is the switch. br0
# (vlan_filtering) has the ports swp22 (pvid 22 untagged, to the client)
# and swp2222 (pvid 2222 untagged, to the server), and is itself a tagged
# member of both VLANs; the router's L3 devices are br0.22 and br0.2222.
#
#   client eth0 --- swp22 [router br0] swp2222 --- eth0 server
#                     br0.22      br0.2222
l2_topo_vbridge() {
	setup_ns NS_CLIENT NS_SERVER NS_ROUTER
	NS_SWITCH=
	l2_stick_addrs
	must ip -n "$NS_ROUTER" link add br0 type bridge vlan_filtering 1 vlan_default_pvid 0
	l2_fix_mac br0
	must ip -n "$NS_CLIENT" link add eth0 type veth peer name swp22 netns "$NS_ROUTER"
	must ip -n "$NS_SERVER" link add eth0 type veth peer name swp2222 netns "$NS_ROUTER"
	l2_bridge_port swp22 22
	l2_bridge_port swp2222 2222
	must bridge -n "$NS_ROUTER" vlan add dev br0 vid 22 self
	must bridge -n "$NS_ROUTER" vlan add dev br0 vid 2222 self
	must ip -n "$NS_ROUTER" link set br0 up
	must ip -n "$NS_ROUTER" link add link br0 name br0.22 type vlan id 22
	must ip -n "$NS_ROUTER" link add link br0 name br0.2222 type vlan id 2222
	l2_router_l3 br0.22 br0.2222
}

# l2_fix_mac DEV: give the router's DEV a MAC address of its own (random,
# locally administered), which it keeps. A bridge takes its lowest port's
# otherwise: a port added later (fastpath_bridge's second server port)
# would change the router's MAC under the hosts, and they would send to the
# old one until their neighbour entries expire. A new address, not the
# current one set again: only a change makes 5.10 add the bridge's local
# FDB entry for it.
l2_fix_mac() {
	must ip -n "$NS_ROUTER" link set "$1" address \
		"02:$(od -An -N5 -tx1 /dev/urandom | sed 's/^ //; s/ /:/g')"
}

# l2_bridge_port PORT VID: PORT of the router's br0, an untagged member of
# VLAN VID (its pvid), up.
l2_bridge_port() {
	must ip -n "$NS_ROUTER" link set "$1" master br0
	must bridge -n "$NS_ROUTER" vlan add dev "$1" vid "$2" pvid untagged
	must ip -n "$NS_ROUTER" link set "$1" up
}

# l2_topo_pbridge: two plain bridges (no VLAN filtering) as the router's
# L3 devices: br0 with port swp1 to the client, br1 with a VLAN device as
# its port, swp2.50 (VLAN 50 on swp2), to the server, whose eth0 is VLAN 50
# on its trunk0; the addresses of lib.sh's plain router.
#
#   client eth0 --- swp1 [br0] router [br1] swp2.50 ~~ trunk0 (eth0) server
l2_topo_pbridge() {
	local b port
	setup_ns NS_CLIENT NS_SERVER NS_ROUTER
	NS_SWITCH=
	CLIENT_IP4=198.18.1.2 CLIENT_IP6=2001:db8:1::2
	SERVER_IP4=198.18.2.2 SERVER_IP6=2001:db8:2::2
	ROUTER_CLIENT_IP4=198.18.1.1 ROUTER_CLIENT_IP6=2001:db8:1::1
	ROUTER_SERVER_IP4=198.18.2.1 ROUTER_SERVER_IP6=2001:db8:2::1
	must ip -n "$NS_CLIENT" link add eth0 type veth peer name swp1 netns "$NS_ROUTER"
	must ip -n "$NS_SERVER" link add trunk0 type veth peer name swp2 netns "$NS_ROUTER"
	must ip -n "$NS_SERVER" link set trunk0 up
	must ip -n "$NS_SERVER" link add link trunk0 name eth0 type vlan id 50
	must ip -n "$NS_ROUTER" link set swp2 up
	must ip -n "$NS_ROUTER" link add link swp2 name swp2.50 type vlan id 50
	for b in 0 1; do
		port=swp1
		[ "$b" = 0 ] || port=swp2.50
		must ip -n "$NS_ROUTER" link add "br$b" type bridge
		l2_fix_mac "br$b"
		must ip -n "$NS_ROUTER" link set "$port" master "br$b" up
	done
	l2_router_l3 br0 br1
}

# l2_topo_bond [MODE]: router-on-a-stick over a bond. The router's trunk is
# bond0 (MODE, default active-backup, miimon 100) of the veths rb0 and rb1;
# their peers sb0 and sb1 are the slaves of the switch's bond, swbond0, a
# tagged port of the switch's vlan_filtering bridge. rb0/sb0 are primary,
# so that both ends pick the same link. The router's L3 devices are
# bond0.22 and bond0.2222.
#
#   client eth0 --- swp22 [switch br0] swp2222 --- eth0 server
#                           swbond0 (sb0, sb1)
#                            ||  tagged 22 + 2222
#                 router bond0 (rb0, rb1): bond0.22, bond0.2222
l2_topo_bond() {
	local mode="${1:-active-backup}" i opts
	setup_ns NS_CLIENT NS_SERVER NS_SWITCH NS_ROUTER
	l2_stick_addrs
	ROUTER_TRUNK_DEV=bond0
	opts="mode $mode miimon 100"
	[ "$mode" != 802.3ad ] || opts="$opts lacp_rate fast"
	# shellcheck disable=SC2086 # OPTS are words
	must ip -n "$NS_ROUTER" link add bond0 type bond $opts
	# shellcheck disable=SC2086
	must ip -n "$NS_SWITCH" link add swbond0 type bond $opts
	for i in 0 1; do
		must ip -n "$NS_ROUTER" link add "rb$i" type veth peer name "sb$i" netns "$NS_SWITCH"
		must ip -n "$NS_ROUTER" link set "rb$i" master bond0
		must ip -n "$NS_SWITCH" link set "sb$i" master swbond0
	done
	if [ "$mode" = active-backup ]; then
		must ip -n "$NS_ROUTER" link set bond0 type bond primary rb0
		must ip -n "$NS_SWITCH" link set swbond0 type bond primary sb0
	fi
	for i in 0 1; do
		must ip -n "$NS_ROUTER" link set "rb$i" up
		must ip -n "$NS_SWITCH" link set "sb$i" up
	done

	stick_switch "$NS_SERVER" swbond0

	must ip -n "$NS_ROUTER" link set bond0 up
	must ip -n "$NS_ROUTER" link add link bond0 name bond0.22 type vlan id 22
	must ip -n "$NS_ROUTER" link add link bond0 name bond0.2222 type vlan id 2222
	l2_router_l3 bond0.22 bond0.2222
}

# l2_active_slave NS BOND: the bond's active slave ("" if none).
l2_active_slave() {
	ip netns exec "$1" cat "/sys/class/net/$2/bonding/active_slave" 2>/dev/null
}

# l2_lacp_ports NS BOND: the ports in the active aggregator of an 802.3ad
# bond (0 if none).
l2_lacp_ports() {
	ip netns exec "$1" cat "/proc/net/bonding/$2" 2>/dev/null | awk '
		/^Active Aggregator Info/ { a = 1 }
		a && /Number of ports:/ { n = $NF; exit }
		END { print n + 0 }'
}

# l2_topo_qinq: router-on-a-stick over QinQ. The trunk carries S-VLAN 100
# (802.1ad); inside it, C-VLANs 22 and 2222 (802.1Q). The router's L3
# devices are trunk0.100.22 and trunk0.100.2222; the switch stacks the
# same on its end, sw0, and bridges each C-VLAN device to its host's
# port. The trunk's MTU is 1508, room for both tags; every other device
# has 1500.
#
#   client eth0 --- swp22 [br22]  [br2222] swp2222 --- eth0 server
#                sw0.100.22  sw0.100.2222
#                      sw0.100 (802.1ad) on sw0
#                           |
#     router trunk0 - trunk0.100 - trunk0.100.22, trunk0.100.2222
l2_topo_qinq() {
	local ns t v
	setup_ns NS_CLIENT NS_SERVER NS_SWITCH NS_ROUTER
	l2_stick_addrs
	ROUTER_TRUNK_DEV=trunk0
	must ip -n "$NS_ROUTER" link add trunk0 type veth peer name sw0 netns "$NS_SWITCH"
	must ip -n "$NS_CLIENT" link add eth0 type veth peer name swp22 netns "$NS_SWITCH"
	must ip -n "$NS_SERVER" link add eth0 type veth peer name swp2222 netns "$NS_SWITCH"
	for t in "$NS_ROUTER trunk0" "$NS_SWITCH sw0"; do
		ns=${t% *} t=${t#* }
		must ip -n "$ns" link set "$t" mtu 1508 up
		must ip -n "$ns" link add link "$t" name "$t.100" type vlan proto 802.1ad id 100
		must ip -n "$ns" link set "$t.100" up
		for v in 22 2222; do
			must ip -n "$ns" link add link "$t.100" name "$t.100.$v" type vlan proto 802.1Q id "$v"
			must ip -n "$ns" link set "$t.100.$v" mtu 1500
		done
	done
	for v in 22 2222; do
		must ip -n "$NS_SWITCH" link add "br$v" type bridge
		must ip -n "$NS_SWITCH" link set "sw0.100.$v" master "br$v" up
		must ip -n "$NS_SWITCH" link set "swp$v" master "br$v" up
		must ip -n "$NS_SWITCH" link set "br$v" up
	done
	l2_router_l3 trunk0.100.22 trunk0.100.2222
}

# ------------------------------------------------------------- selftests --

# l2_setup_fp TOPOLOGY [ARGS]: l2_topo_TOPOLOGY ARGS, then the forward
# ruleset of lib.sh and fasttrack on the router's client and server devices,
# as fp_setup_stick does. The module is loaded once per test.
l2_setup_fp() {
	local topo="$1"
	shift
	fp_require
	ft_module_loaded || ft_module_load
	"l2_topo_$topo" "$@"
	nft_forward_ruleset "$NS_ROUTER"
	fp_enable "$ROUTER_CLIENT_DEV"
	fp_enable "$ROUTER_SERVER_DEV"
}

# l2_transfers NAME: over the current topology, for both families, a TCP
# upload, a TCP download and a UDP upload of a few MB: each arrives intact
# and the fast path carries it (fp_check_offload). NAME (no spaces) names
# the checks and the files.
l2_transfers() {
	local name="$1" fam size file fast
	for fam in 4 6; do
		fp_rand size 1572864 3145728
		file=$(fp_mkfile "$name-tcp$fam" "$size")
		fp_begin
		fp_tcp_transfer "$name: IPv$fam TCP upload" "$fam" "$file"
		fp_end
		fp_check_offload "$name: IPv$fam TCP upload" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"

		fp_begin
		fp_tcp_fetch "$name: IPv$fam TCP download" "$fam" "$file"
		fp_end
		fast=$(fp_sdelta "$fam")
		fp_check_offload "$name: IPv$fam TCP download" "$size" "$FPD_S2C" "$fast"

		fp_rand size 1048576 1572864
		file=$(fp_mkfile "$name-udp$fam" "$size")
		fp_begin
		fp_udp_transfer "$name: IPv$fam UDP upload" "$fam" "$file"
		fp_end
		fp_check_offload "$name: IPv$fam UDP upload" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
	done
}

# l2_teardown: delete the current topology's netns now (their deferred
# deletion at exit then does nothing), so that the next one starts clean.
l2_teardown() {
	local ns
	for ns in "$NS_CLIENT" "$NS_SERVER" "$NS_SWITCH" "$NS_ROUTER"; do
		[ -z "$ns" ] || ip netns del "$ns" 2>/dev/null
	done
	NS_SWITCH=
}

# l2_tx_bytes NS DEV: bytes DEV has sent.
l2_tx_bytes() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_bytes"; }

# l2_tx_ge NS DEV MIN: DEV has sent at least MIN bytes.
l2_tx_ge() { [ "$(fp_num "$(l2_tx_bytes "$1" "$2")")" -ge "$3" ]; }

# l2_fast_grows DESC DEV FAMILY: within 20 s, the fast path forwards 256 KB
# more received on DEV.
l2_fast_grows() {
	local from
	from=$(fp_num "$(fp_dev_bytes "$2" "$3")")
	if fp_wait_fast "$2" "$3" $((from + 262144)) 20000; then
		pass "$1"
	else
		fail "$1" "fast path bytes on $2 stayed at $(fp_dev_bytes "$2" "$3") (from $from)" \
			"ftctl -j stats: $(fp_stats)"
	fi
}
