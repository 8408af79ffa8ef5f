#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rmmod while devices are enabled (and traffic flows) succeeds cleanly, and
# a new load starts from an empty state.
. "$(dirname "$0")/lib.sh"

require_cmd ftctl jq ping
in_router() { ip netns exec "$NS_ROUTER" "$@"; }

dmesg_mark
ft_module_load
setup_router_on_a_stick

check "enable vlan22" in_router ftctl enable vlan22
check "enable vlan2222" in_router ftctl enable vlan2222
check "enable trunk0 ipv4" in_router ftctl enable trunk0 ipv4
check_output "three devices enabled" 3 sh -c "ip netns exec $NS_ROUTER ftctl -j show | jq length"

# Traffic through the enabled devices while the module goes away.
ip netns exec "$NS_CLIENT" ping -q -c 300 -i 0.01 "$SERVER_IP4" >/dev/null 2>&1 &
ping4=$!
ip netns exec "$NS_CLIENT" ping -q -c 300 -i 0.01 "$SERVER_IP6" >/dev/null 2>&1 &
ping6=$!
defer kill "$ping4" "$ping6"
sleep 0.2
check "rmmod with enabled devices" rmmod fasttrack
check "fasttrack is unloaded" test ! -e /sys/module/fasttrack
wait "$ping4" "$ping6"
check "routing still works (IPv4)" ping_ok "$NS_CLIENT" "$SERVER_IP4"
check "routing still works (IPv6)" ping_ok "$NS_CLIENT" "$SERVER_IP6"

check "modprobe fasttrack again" modprobe fasttrack
check_output "nothing is enabled after a reload" 0 sh -c "ip netns exec $NS_ROUTER ftctl -j show | jq length"
check "enable vlan22 after the reload" in_router ftctl enable vlan22
check "rmmod again" rmmod fasttrack
check_dmesg_clean "no kernel warning"
ft_exit
