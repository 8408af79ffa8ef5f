#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# The fast path between a LAN VLAN and a PPPoE WAN. The ISP (a netns on
# VLAN 2222) runs pppoe-server with the kernel's PPPoE and pppd; the
# router's pppd, with the PPPoE plugin, dials it over vlan2222: ppp0, a
# device without a link-layer header. IPv4 is masqueraded to ppp0's
# address (the ISP has no route to the LAN), IPv6 is routed over the
# session (IPV6CP link-local addresses, default route via ppp0).
# fasttrack is enabled on vlan22 and ppp0:
#  - TCP uploads and downloads of a few MB in both families arrive intact,
#    the forward chain sees less than 10% of their bytes, the fast path
#    carries them, ppp0's own tx / rx counters count them, and the server
#    sees the ppp0 address (IPv4) or the client's own (IPv6);
#  - the session goes down under an offloaded stream (pppd ends) and comes
#    back (a new pppd: a new ppp0): the old ppp0 keeps no flow, the enable
#    rule that "ftctl enable ppp0" left enables the new ppp0 by itself, and
#    the transfers are offloaded again over it; no kernel splat.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_l3dev.sh"

fp_init
l3_require
dmesg_mark
l3_setup_lan
l3_setup_pppoe
must ip netns exec "$NS_ROUTER" nft -f - <<EOF
table ip l3_nat {
	chain post {
		type nat hook postrouting priority srcnat;
		oifname "ppp0" masquerade
	}
}
EOF
l3_finish
cdev=$ROUTER_CLIENT_DEV

# round NAME: transfers in both families over the current session, and
# who the server saw.
round() {
	local fam size
	for fam in 4 6; do
		fp_rand size 1048576 2097152
		l3_transfers "$fam" "$size" "$1: IPv$fam"
		if [ "$fam" = 4 ]; then
			check_eq "$1: IPv4: the server saw the ppp0 address (masquerade)" \
				"$PPP_IP4" "${L3_UP_PEER%:*}"
		else
			check_eq "$1: IPv6: the server saw the client's address (routed)" \
				"[$(fp_ip6_full "$CLIENT_IP6")]" "${L3_UP_PEER%:*}"
		fi
	done
}

no_flows_on() { [ "$(l3_flows_on "$1")" -eq 0 ]; }
ppp0_enabled() { [ "$(fp_state ppp0)" = "ipv4=true ipv6=true" ]; }

round "session 1"

# The session ends under an offloaded stream.
old=$(l3_ifindex "$NS_ROUTER" ppp0)
stream=$(fp_mkfile stream 8388608)
fp_stream_start stream 4 "$stream"
if fp_wait_fast "$cdev" 4 $(($(fp_dev_bytes "$cdev" 4) + 131072)) 20000; then
	pass "the stream over ppp0 (ifindex $old) is offloaded"
else
	fail "the stream over ppp0 (ifindex $old) is offloaded" "ftctl -j stats: $(fp_stats)"
fi
check_ge "flows cached through the old ppp0 before the session ends" "$(l3_flows_on "$old")" 1
fp_stream_running "session down"
l3_pppoe_down
pass "session 1 ended: ppp0 is gone in the router and the ISP"
fp_kill "$FP_STREAM"
fp_kill "$FP_SRV"
fp_unpace "$NS_CLIENT" eth0
busywait 3000 no_flows_on "$old"
check_eq "no flow left through the old ppp0 (ifindex $old)" 0 "$(l3_flows_on "$old")"

# A new session: a new ppp0, enabled by the rule.
l3_pppoe_up
new=$(l3_ifindex "$NS_ROUTER" ppp0)
check "session 2: a new ppp0 (ifindex $new, was $old)" test "$new" != "$old"
busywait 5000 ppp0_enabled
check_eq "session 2: the enable rule enabled the new ppp0" "ipv4=true ipv6=true" "$(fp_state ppp0)"
topo_wait
round "session 2"
check_eq "no flow left through the old ppp0 after session 2" 0 "$(l3_flows_on "$old")"
check_dmesg_clean "no kernel splat"

fp_exit
