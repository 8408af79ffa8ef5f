#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154 # dash has local; fp_rand sets variables
# by name.
# The fast path into tunnels without a remote address (NBMA), which take
# the outer destination of each packet from the gateway of its route, the
# dst the packet carries: ipip (t4, "mode ipip" without "remote") for IPv4
# and sit (s6, as 6rd and ISATAP run it) for IPv6, over the IPv4 underlay
# of lib_l3dev.sh (LAN on VLAN 22, underlay on VLAN 2222), routed via the
# peer's underlay address (IPv6: its IPv4-compatible address). fasttrack is
# enabled on vlan22 and the tunnel. In each family, a TCP upload into the
# tunnel and a download out of it arrive intact, the fast path carries
# them (forward chain under 10%), the tunnel's own counters count them,
# and it counts no transmit error: a packet it gets without a route is
# dropped (tx_errors; ipip's tx_fifo_errors too).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_l3dev.sh"

# nbma_round DEV FAMILY: the transfers of FAMILY through DEV, with the
# forward ruleset between vlan22 and DEV, and DEV's transmit errors.
nbma_round() {
	local dev="$1" fam="$2" e0 f0 e f size
	ROUTER_SERVER_DEV=$dev
	ip netns exec "$NS_ROUTER" nft delete table inet ft_fwd 2>/dev/null
	nft_forward_ruleset "$NS_ROUTER" "$ROUTER_CLIENT_DEV" "$dev"
	check "fasttrack enabled on $dev" ip netns exec "$NS_ROUTER" ftctl enable "$dev"
	e0=$(l3_dev_stat "$NS_ROUTER" "$dev" tx_errors)
	f0=$(l3_dev_stat "$NS_ROUTER" "$dev" tx_fifo_errors)
	fp_rand size 1048576 2097152
	l3_transfers "$fam" "$size" "IPv$fam over NBMA $dev"
	e=$(($(l3_dev_stat "$NS_ROUTER" "$dev" tx_errors) - e0))
	f=$(($(l3_dev_stat "$NS_ROUTER" "$dev" tx_fifo_errors) - f0))
	check_eq "IPv$fam over NBMA $dev: no transmit error (tx_errors tx_fifo_errors)" "0 0" "$e $f"
}

fp_init
l3_require
dmesg_mark
l3_setup_lan
l3_underlay_addr
l3_setup_sit_nbma
l3_setup_ipip_nbma
# t4's ruleset first: l3_finish enables vlan22 and t4, and waits until the
# client reaches the server over both tunnels (pings, which it accepts).
l3_finish
nbma_round t4 4
nbma_round s6 6
check_dmesg_clean "no kernel splat"
fp_exit
