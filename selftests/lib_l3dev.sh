# SPDX-License-Identifier: GPL-2.0
# Topologies through a layer-3 device (no link-layer header): PPPoE,
# WireGuard, GRE. Source lib.sh and lib_fastpath.sh, then this.
#
#   client eth0 --- LAN --- ROUTER --- WAN underlay --- PEER eth1 --- eth0 server
#                          l3 dev ======(tunnel)====== l3 dev
#
# The LAN (L3_LAN): "stick" (default): the client on VLAN 22 of the switch
# of lib.sh's router-on-a-stick, the router on its trunk0 (vlan22 to the
# LAN, vlan2222 the WAN underlay, the peer's eth0 untagged on VLAN 2222);
# "plain": veths, client eth0 --- eth1 router eth2 --- eth0 peer.
# The peer (ISP / tunnel end) routes to the server behind it.
#
# After l3_setup_lan and one of l3_setup_pppoe / l3_setup_wireguard /
# l3_setup_gre, ROUTER_CLIENT_DEV is the LAN device and ROUTER_SERVER_DEV
# the layer-3 device, so that lib_fastpath.sh's counters (fp_begin, fp_end)
# and the forward ruleset (nft_forward_ruleset) work as on the other
# topologies; l3_finish loads the ruleset, enables fasttrack and waits until
# the client reaches the server over both families.
#
# Addresses:
#   LAN      198.18.22.0/24  2001:db8:22::/64   (plain: 198.18.1.0/24, 2001:db8:1::/64)
#   underlay 198.18.222.0/24 2001:db8:2222::/64 router .1, peer .2 (not for PPPoE)
#   tunnel   198.18.100.0/24 2001:db8:100::/64  router .1, peer .2 (PPP: the
#            peer is .1 and gives the router an address from .2 on; IPv6
#            link-local fe80::2 (router), fe80::1 (peer) by IPV6CP)
#   server   198.18.2.0/24   2001:db8:2::/64    peer .1, server .2
# shellcheck shell=sh disable=SC3043,SC2034,SC2154 # dash has "local"; the
# variables are for the tests; lib.sh sets $ret.

L3_LAN=${L3_LAN:-stick}

L3_TUN_NET4=198.18.100
L3_TUN_NET6=2001:db8:100
ROUTER_TUN_IP4=$L3_TUN_NET4.1 PEER_TUN_IP4=$L3_TUN_NET4.2
ROUTER_TUN_IP6=$L3_TUN_NET6::1 PEER_TUN_IP6=$L3_TUN_NET6::2
ROUTER_WAN_IP4=198.18.222.1 PEER_WAN_IP4=198.18.222.2
ROUTER_WAN_IP6=2001:db8:2222::1 PEER_WAN_IP6=2001:db8:2222::2
SERVER_IP4=198.18.2.2 SERVER_IP6=2001:db8:2::2
PEER_SERVER_IP4=198.18.2.1 PEER_SERVER_IP6=2001:db8:2::1
SERVER_NET4=198.18.2.0/24 SERVER_NET6=2001:db8:2::/64

# l3_kill_ns NS: end every process that runs in NS (pppd, pppoe-server),
# so that deleting NS really frees it.
l3_kill_ns() {
	local p
	for p in $(ip netns pids "$1" 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
}

# l3_modules MODULE...: load kernel modules the topology needs; a missing
# one is a skip, with its name.
l3_modules() {
	local m
	for m in "$@"; do
		modprobe -q "$m" 2>/dev/null || [ -d "/sys/module/$m" ] ||
			ft_skip "kernel module $m is not available"
	done
}

# l3_setup_lan: the netns (NS_CLIENT, NS_SWITCH for the stick, NS_ROUTER,
# NS_PEER, NS_SERVER), the LAN, the underlay link (no address yet), and the
# server behind the peer.
l3_setup_lan() {
	local p
	setup_ns NS_CLIENT NS_ROUTER NS_PEER NS_SERVER
	defer l3_kill_ns "$NS_PEER"
	defer l3_kill_ns "$NS_ROUTER"
	router_forwarding "$NS_ROUTER"
	router_forwarding "$NS_PEER"
	if [ "$L3_LAN" = plain ]; then
		NS_SWITCH=
		ROUTER_CLIENT_DEV=eth1 ROUTER_WAN_DEV=eth2
		CLIENT_IP4=198.18.1.2 CLIENT_IP6=2001:db8:1::2
		ROUTER_CLIENT_IP4=198.18.1.1 ROUTER_CLIENT_IP6=2001:db8:1::1
		CLIENT_NET4=198.18.1.0/24 CLIENT_NET6=2001:db8:1::/64
		must ip -n "$NS_CLIENT" link add eth0 type veth peer name eth1 netns "$NS_ROUTER"
		must ip -n "$NS_PEER" link add eth0 type veth peer name eth2 netns "$NS_ROUTER"
		must ip -n "$NS_ROUTER" link set eth2 up
	else
		setup_ns NS_SWITCH
		ROUTER_CLIENT_DEV=vlan22 ROUTER_WAN_DEV=vlan2222 ROUTER_TRUNK_DEV=trunk0
		CLIENT_IP4=198.18.22.2 CLIENT_IP6=2001:db8:22::2
		ROUTER_CLIENT_IP4=198.18.22.1 ROUTER_CLIENT_IP6=2001:db8:22::1
		CLIENT_NET4=198.18.22.0/24 CLIENT_NET6=2001:db8:22::/64
		stick_switch "$NS_PEER"
		must ip -n "$NS_ROUTER" link set trunk0 up
		must ip -n "$NS_ROUTER" link add link trunk0 name vlan22 type vlan id 22
		must ip -n "$NS_ROUTER" link add link trunk0 name vlan2222 type vlan id 2222
		must ip -n "$NS_ROUTER" link set vlan2222 up
	fi
	must ip -n "$NS_PEER" link set eth0 up
	addr "$NS_ROUTER" "$ROUTER_CLIENT_DEV" "$ROUTER_CLIENT_IP4/24" "$ROUTER_CLIENT_IP6/64"
	host_side "$NS_CLIENT" eth0 "$CLIENT_IP4" "$CLIENT_IP6" "$ROUTER_CLIENT_IP4" "$ROUTER_CLIENT_IP6"
	must ip -n "$NS_SERVER" link add eth0 type veth peer name eth1 netns "$NS_PEER"
	addr "$NS_PEER" eth1 "$PEER_SERVER_IP4/24" "$PEER_SERVER_IP6/64"
	host_side "$NS_SERVER" eth0 "$SERVER_IP4" "$SERVER_IP6" "$PEER_SERVER_IP4" "$PEER_SERVER_IP6"
}

# l3_underlay_addr: addresses on the underlay link, for the tunnels.
l3_underlay_addr() {
	addr "$NS_ROUTER" "$ROUTER_WAN_DEV" "$ROUTER_WAN_IP4/24" "$ROUTER_WAN_IP6/64"
	addr "$NS_PEER" eth0 "$PEER_WAN_IP4/24" "$PEER_WAN_IP6/64"
	must busywait 5000 ping_ok "$NS_ROUTER" "$PEER_WAN_IP4"
}

# l3_tunnel_routes DEV: addresses on both ends of the tunnel device DEV
# (in the router and the peer), the server's prefixes routed into it by
# the router, the LAN's by the peer.
l3_tunnel_routes() {
	local dev="$1"
	addr "$NS_ROUTER" "$dev" "$ROUTER_TUN_IP4/24" "$ROUTER_TUN_IP6/64"
	addr "$NS_PEER" "$dev" "$PEER_TUN_IP4/24" "$PEER_TUN_IP6/64"
	must ip -n "$NS_ROUTER" route add "$SERVER_NET4" via "$PEER_TUN_IP4" dev "$dev"
	must ip -n "$NS_ROUTER" -6 route add "$SERVER_NET6" via "$PEER_TUN_IP6" dev "$dev"
	must ip -n "$NS_PEER" route add "$CLIENT_NET4" via "$ROUTER_TUN_IP4" dev "$dev"
	must ip -n "$NS_PEER" -6 route add "$CLIENT_NET6" via "$ROUTER_TUN_IP6" dev "$dev"
}

# l3_tunnel_pair DEV ROUTER_END PEER_END TYPE...: the point-to-point tunnel
# DEV ("ip link add DEV TYPE...") between the router and the peer, each end
# local to itself and remote to the other, with its addresses and routes.
l3_tunnel_pair() {
	local dev="$1" r="$2" p="$3"
	shift 3
	ROUTER_SERVER_DEV=$dev PEER_DEV=$dev
	must ip -n "$NS_ROUTER" link add "$dev" "$@" local "$r" remote "$p"
	must ip -n "$NS_PEER" link add "$dev" "$@" local "$p" remote "$r"
	l3_tunnel_routes "$dev"
}

# l3_setup_gre: a GRE tunnel (ip_gre) gre1 over the IPv4 underlay,
# carrying IPv4 and IPv6.
l3_setup_gre() {
	l3_modules ip_gre
	l3_underlay_addr
	l3_tunnel_pair gre1 "$ROUTER_WAN_IP4" "$PEER_WAN_IP4" type gre ttl 64
}

# l3_setup_sit: a SIT tunnel (the sit driver, as 6in4 tunnel brokers use)
# sit1 over the IPv4 underlay, in mode any: IPv6 and IPv4 inside IPv4.
l3_setup_sit() {
	l3_modules sit
	l3_underlay_addr
	l3_tunnel_pair sit1 "$ROUTER_WAN_IP4" "$PEER_WAN_IP4" type sit mode any ttl 64
}

# l3_setup_ip6tnl: an IPv6 tunnel (ip6_tunnel) tnl1 over the IPv6
# underlay, in mode any: IPv4 and IPv6 inside IPv6, as DS-Lite carries
# IPv4 to an IPv6-only access network.
l3_setup_ip6tnl() {
	l3_modules ip6_tunnel
	l3_underlay_addr
	must busywait 5000 ping_ok "$NS_ROUTER" "$PEER_WAN_IP6"
	l3_tunnel_pair tnl1 "$ROUTER_WAN_IP6" "$PEER_WAN_IP6" type ip6tnl mode any hoplimit 64
}

# l3_nbma_tunnel DEV TYPE...: the tunnel DEV ("ip link add DEV TYPE...")
# in the router and the peer, each local to its own underlay address and
# without a remote address (NBMA): the outer destination of a packet is
# the gateway of its route, which the tunnel takes from the packet's dst.
# No addresses inside; the routes are the caller's.
l3_nbma_tunnel() {
	local dev="$1"
	shift
	must ip -n "$NS_ROUTER" link add "$dev" "$@" local "$ROUTER_WAN_IP4"
	must ip -n "$NS_PEER" link add "$dev" "$@" local "$PEER_WAN_IP4"
	must ip -n "$NS_ROUTER" link set "$dev" up
	must ip -n "$NS_PEER" link set "$dev" up
}

# l3_setup_ipip_nbma: an IPIP tunnel t4 without a remote address ("mode
# ipip" without "remote") over the IPv4 underlay, carrying IPv4: the
# server's prefix routed onlink via the peer's underlay address, the
# LAN's back via the router's. After l3_underlay_addr.
l3_setup_ipip_nbma() {
	l3_modules ipip
	l3_nbma_tunnel t4 type ipip ttl 64
	ROUTER_SERVER_DEV=t4 PEER_DEV=t4
	must ip -n "$NS_ROUTER" route add "$SERVER_NET4" via "$PEER_WAN_IP4" dev t4 onlink
	must ip -n "$NS_PEER" route add "$CLIENT_NET4" via "$ROUTER_WAN_IP4" dev t4 onlink
}

# l3_setup_sit_nbma: a SIT tunnel s6 without a remote address, as 6rd and
# ISATAP run it, carrying IPv6: routed via the IPv4-compatible address of
# the other end (::198.18.222.2), as a 6rd CE routes to its border relay.
# After l3_underlay_addr.
l3_setup_sit_nbma() {
	l3_modules sit
	l3_nbma_tunnel s6 type sit ttl 64
	ROUTER_SERVER_DEV=s6 PEER_DEV=s6
	must ip -n "$NS_ROUTER" -6 route add "$SERVER_NET6" via "::$PEER_WAN_IP4" dev s6 onlink
	must ip -n "$NS_PEER" -6 route add "$CLIENT_NET6" via "::$ROUTER_WAN_IP4" dev s6 onlink
}

# l3_setup_wireguard: a WireGuard tunnel wg0 over the IPv4 underlay (UDP
# 51820 both ways), carrying IPv4 and IPv6.
l3_setup_wireguard() {
	local k
	require_cmd wg
	l3_modules wireguard
	l3_underlay_addr
	ROUTER_SERVER_DEV=wg0 PEER_DEV=wg0
	k=$FP_TMP/wg
	mkdir -p "$k"
	if ! (umask 077 && wg genkey >"$k/router" && wg genkey >"$k/peer" &&
		wg pubkey <"$k/router" >"$k/router.pub" &&
		wg pubkey <"$k/peer" >"$k/peer.pub"); then
		ft_skip "wg genkey / wg pubkey fail"
	fi
	must ip -n "$NS_ROUTER" link add wg0 type wireguard
	must ip -n "$NS_PEER" link add wg0 type wireguard
	must ip netns exec "$NS_ROUTER" wg set wg0 listen-port 51820 private-key "$k/router" \
		peer "$(cat "$k/peer.pub")" endpoint "$PEER_WAN_IP4:51820" \
		allowed-ips "0.0.0.0/0,::/0"
	must ip netns exec "$NS_PEER" wg set wg0 listen-port 51820 private-key "$k/peer" \
		peer "$(cat "$k/router.pub")" endpoint "$ROUTER_WAN_IP4:51820" \
		allowed-ips "$ROUTER_TUN_IP4/32,$ROUTER_TUN_IP6/128,$CLIENT_NET4,$CLIENT_NET6"
	l3_tunnel_routes wg0
}

# ------------------------------------------------------------------ PPPoE --

# l3_pppd_plugin: the path of pppd's kernel-mode PPPoE plugin.
l3_pppd_plugin() {
	local f
	for f in /usr/lib/pppd/*/pppoe.so /usr/lib/pppd/*/rp-pppoe.so \
		/usr/lib/*/ppp/pppoe.so; do
		[ -e "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# l3_setup_pppoe: a PPPoE server in the peer netns, the ISP, on its eth0:
# pppoe-server with pppd (Debian builds it without kernel-mode PPPoE: its
# sessions run through the user-space pppoe over a pty, asynchronous PPP:
# with synchronous PPP, its reads from N_HDLC fail with EOVERFLOW);
# the router's pppd with the kernel-mode PPPoE plugin on the underlay is
# the client: ppp0, with IPCP (the address 198.18.100.2 or the next) and
# IPV6CP (link-local addresses). No NAT here: the test masquerades (or
# routes) as it wants; the ISP has no route to the LAN's IPv4 prefix.
# l3_pppoe_up starts the session.
l3_setup_pppoe() {
	local plugin
	require_cmd pppd pppoe-server pppoe
	l3_modules ppp_generic pppoe ppp_async
	[ -c /dev/ppp ] || ft_skip "no /dev/ppp"
	plugin=$(l3_pppd_plugin) || ft_skip "no PPPoE plugin for pppd under /usr/lib/pppd"
	ROUTER_SERVER_DEV=ppp0
	L3_PPP_OPTS=$FP_TMP/ppp
	mkdir -p "$L3_PPP_OPTS"
	# Both ends: no authentication, no compression (nothing to negotiate
	# that the kernel may lack), IPv6 with fixed interface identifiers,
	# no LCP echoes (a slow guest must not miss them), log to stderr.
	cat >"$L3_PPP_OPTS/common" <<-EOF
		noauth
		noccp
		novj
		nopcomp
		noaccomp
		nodefaultroute
		+ipv6
		lcp-echo-interval 0
		mtu 1492
		mru 1492
		logfd 2
	EOF
	# pppoe-server's pppd gets no stderr: it logs to a file.
	cat "$L3_PPP_OPTS/common" - >"$L3_PPP_OPTS/server" <<-EOF
		ipv6 ::1,::2
		debug
		logfile $L3_PPP_OPTS/server.log
	EOF
	cat "$L3_PPP_OPTS/common" - >"$L3_PPP_OPTS/client" <<-EOF
		plugin $plugin
		nic-$ROUTER_WAN_DEV
		ifname ppp0
		noipdefault
		ipv6 ::2,::1
		maxfail 1
	EOF
	fp_bg pppoe-server ip netns exec "$NS_PEER" pppoe-server -F -I eth0 \
		-L "$L3_TUN_NET4.1" -R "$L3_TUN_NET4.2" -N 4 -C ft-isp -S ft \
		-O "$L3_PPP_OPTS/server"
	L3_PPPOE_SERVER=$FP_PID
	l3_pppoe_up
}

# l3_ppp_ready: the router's ppp0 has its IPv4 and IPv6 (link-local)
# addresses, and the ISP has the other end of the session.
l3_ppp_ready() {
	ip -n "$NS_ROUTER" -4 addr show dev ppp0 2>/dev/null | grep -q 'inet ' &&
		ip -n "$NS_ROUTER" -6 addr show dev ppp0 2>/dev/null | grep -qE 'inet6 fe80::2[/ ]' &&
		[ -n "$(l3_isp_ppp)" ]
}

# l3_isp_ppp: the ISP's ppp device of the session (the one with the
# link-local address IPV6CP gave it), or nothing.
l3_isp_ppp() {
	ip -n "$NS_PEER" -6 -o addr show 2>/dev/null |
		awk '$2 ~ /^ppp/ && $4 ~ /^fe80::1($|\/)/ { print $2; exit }'
}

# l3_pppoe_up: start the router's pppd, wait for the session, and route
# both families into it: the router's default routes via ppp0; the ISP
# routes the LAN's IPv6 prefix to the session (IPv4 is the test's: NAT).
# PPP_IP4 is the address the router got, PPP_PID its pppd.
l3_pppoe_up() {
	fp_bg pppd ip netns exec "$NS_ROUTER" pppd nodetach file "$L3_PPP_OPTS/client"
	PPP_PID=$FP_PID
	if ! busywait 20000 l3_ppp_ready; then
		fail "setup: PPPoE session up" "pppd (router): $(cat "$FP_TMP/pppd.out")" \
			"pppoe-server (ISP): $(cat "$FP_TMP/pppoe-server.out")" \
			"pppd (ISP): $(cat "$L3_PPP_OPTS/server.log" 2>&1)"
		fp_exit
	fi
	PPP_IP4=$(ip -n "$NS_ROUTER" -4 -o addr show dev ppp0 | awk '{ print $4; exit }')
	PPP_IP4=${PPP_IP4%/*}
	PEER_DEV=$(l3_isp_ppp)
	must ip -n "$NS_ROUTER" route replace default dev ppp0
	must ip -n "$NS_ROUTER" -6 route replace default dev ppp0
	must ip -n "$NS_PEER" -6 route replace "$CLIENT_NET6" dev "$PEER_DEV"
	log_info "PPPoE session up: router ppp0 $PPP_IP4 fe80::2, ISP $PEER_DEV $L3_TUN_NET4.1 fe80::1"
}

# l3_pppoe_down: end the router's pppd (it ends the session: LCP terminate,
# PADT); ppp0 disappears, and the ISP's end of it.
l3_ppp_gone() {
	! ip -n "$NS_ROUTER" link show ppp0 >/dev/null 2>&1 && [ -z "$(l3_isp_ppp)" ]
}
l3_pppoe_down() {
	fp_kill "$PPP_PID"
	must busywait 15000 l3_ppp_gone
	wait "$PPP_PID" 2>/dev/null
}

# ------------------------------------------------------------ common ----

# l3_require: what every layer-3 topology needs.
l3_require() {
	fp_require
	ft_module_load
}

# l3_finish: the forward ruleset of lib.sh between the LAN device and the
# layer-3 device, fasttrack enabled on the LAN device, then on the layer-3
# device as a check (a module that refuses it fails the test there and in
# every offload check after it), and the client reaches the server.
l3_finish() {
	nft_forward_ruleset "$NS_ROUTER" "$ROUTER_CLIENT_DEV" "$ROUTER_SERVER_DEV"
	fp_enable "$ROUTER_CLIENT_DEV"
	check "fasttrack enabled on $ROUTER_SERVER_DEV" \
		ip netns exec "$NS_ROUTER" ftctl enable "$ROUTER_SERVER_DEV"
	l3_wait
}

# l3_wait: the client reaches the server over both families; if not, say
# what the router and the peer have (and what pppd said) and end the test.
l3_wait() {
	local ip
	for ip in "$SERVER_IP4" "$SERVER_IP6"; do
		busywait 10000 ping_ok "$NS_CLIENT" "$ip" && continue
		fail "setup: the client reaches $ip" \
			"router: $(ip -n "$NS_ROUTER" addr; ip -n "$NS_ROUTER" route; ip -n "$NS_ROUTER" -6 route)" \
			"peer: $(ip -n "$NS_PEER" addr; ip -n "$NS_PEER" route; ip -n "$NS_PEER" -6 route)" \
			"$(cat "$FP_TMP"/*.out "$FP_TMP/ppp/server.log" 2>/dev/null)"
		fp_exit
	done
}

# l3_dev_stat NS DEV FIELD: a counter of DEV in /sys/class/net/DEV/statistics.
l3_dev_stat() {
	fp_num "$(ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3" 2>/dev/null)"
}

# l3_ifindex NS DEV: DEV's interface index.
l3_ifindex() { ip -n "$1" -o link show "$2" | cut -d: -f1; }

# l3_flows_on IFINDEX: how many cached flows enter or leave through IFINDEX.
l3_flows_on() {
	ip netns exec "$NS_ROUTER" ftctl -j flows 2>/dev/null | tr -d ' \n' |
		grep -oE "\"(iif|oif)\":$1[,}]" | wc -l
}

# l3_check_dev_counts DESC DEV DIR BEFORE_PKTS BEFORE_BYTES MIN_BYTES: the
# router's DEV counted, in its own statistics (DIR tx or rx), at least
# MIN_BYTES (the transfer's size or what the fast path forwarded of it,
# whichever is larger) since BEFORE (packets are shown, not checked: a GSO packet
# counts once): what the fast path transmits on it goes through the
# device's own transmit path.
l3_check_dev_counts() {
	local desc="$1" dev="$2" dir="$3" p b
	p=$(($(l3_dev_stat "$NS_ROUTER" "$dev" "${dir}_packets") - $4))
	b=$(($(l3_dev_stat "$NS_ROUTER" "$dev" "${dir}_bytes") - $5))
	log_info "$desc: $dev counted $p packets, $b bytes ($dir)"
	if [ "$b" -ge "$6" ] && [ "$p" -gt 0 ]; then
		pass "$desc: $dev's own $dir counters count the transfer"
	else
		fail "$desc: $dev's own $dir counters count the transfer" \
			"$dev $dir: $p packets, $b bytes; expected >= $6 bytes" \
			"$(ip -n "$NS_ROUTER" -s link show "$dev")"
	fi
}

l3_max() { if [ "$1" -ge "$2" ]; then echo "$1"; else echo "$2"; fi; }

# l3_transfers FAMILY SIZE [NAME]: a TCP upload and a TCP download of SIZE
# random bytes between the client and the server, each checked intact and
# offloaded: the forward chain saw at most FP_SLOW_MAX_PCT %, the fast path
# forwarded at least FP_FAST_MIN_PCT % (upload: received on the LAN device,
# download: on the layer-3 device); and the router's layer-3 device counts
# the upload in its tx counters, the download in its rx counters.
# L3_UP_PEER is the address the server saw the upload come from.
l3_transfers() {
	local fam="$1" size="$2" name="${3:-IPv$1}" dev="$ROUTER_SERVER_DEV" file fast tp tb
	file=$(fp_mkfile "t$fam$(ft_rand)" "$size")
	tp=$(l3_dev_stat "$NS_ROUTER" "$dev" tx_packets)
	tb=$(l3_dev_stat "$NS_ROUTER" "$dev" tx_bytes)
	fp_begin
	fp_tcp_transfer "$name TCP upload through $dev" "$fam" "$file"
	fp_end
	L3_UP_PEER=$(fp_peer)
	fp_check_offload "$name TCP upload through $dev" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
	l3_check_dev_counts "$name TCP upload" "$dev" tx "$tp" "$tb" \
		"$(l3_max "$size" "$(fp_cdelta "$fam")")"

	tp=$(l3_dev_stat "$NS_ROUTER" "$dev" rx_packets)
	tb=$(l3_dev_stat "$NS_ROUTER" "$dev" rx_bytes)
	fp_begin
	fp_tcp_fetch "$name TCP download through $dev" "$fam" "$file"
	fp_end
	fast=$(fp_sdelta "$fam")
	fp_check_offload "$name TCP download through $dev" "$size" "$FPD_S2C" "$fast"
	l3_check_dev_counts "$name TCP download" "$dev" rx "$tp" "$tb" "$(l3_max "$size" "$fast")"
	rm -f "$file" "$file".rx*
}

# l3_tunnel_round DEV: through the tunnel DEV, the transfers of both
# families (l3_transfers) with the server seeing the client's own address,
# the peer's DEV receiving the uploads, and no kernel splat.
l3_tunnel_round() {
	local fam size cip
	for fam in 4 6; do
		fp_rand size 2097152 4194304
		l3_transfers "$fam" "$size"
		if [ "$fam" = 4 ]; then cip=$CLIENT_IP4; else cip="[$(fp_ip6_full "$CLIENT_IP6")]"; fi
		check_eq "IPv$fam: the server saw the client's address" "$cip" "${L3_UP_PEER%:*}"
	done
	check "the peer's $1 received the uploads" test \
		"$(l3_dev_stat "$NS_PEER" "$1" rx_bytes)" -ge 4194304
	check_dmesg_clean "no kernel splat"
}

# l3_tunnel_test KIND DEV: the whole test of the tunnel device DEV that
# l3_setup_KIND makes: the LAN, the tunnel, and a round of transfers.
l3_tunnel_test() {
	fp_init
	l3_require
	dmesg_mark
	l3_setup_lan
	"l3_setup_$1"
	l3_finish
	l3_tunnel_round "$2"
	fp_exit
}
