#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A device that is deleted, or moved to another netns, while enabled leaves
# no state behind; the module then unloads cleanly.
. "$(dirname "$0")/lib.sh"

require_cmd ftctl jq
in_router() { ip netns exec "$NS_ROUTER" "$@"; }

dmesg_mark
ft_module_load
setup_router_on_a_stick
setup_ns NS_OTHER

check "enable vlan22" in_router ftctl enable vlan22
check "enable vlan2222 ipv6" in_router ftctl enable vlan2222 ipv6
check_output "vlan22 enabled" "ipv4=true ipv6=true" ft_state "$NS_ROUTER" vlan22

check "delete vlan22" ip -n "$NS_ROUTER" link del vlan22
check_output "vlan22 gone from show" absent ft_state "$NS_ROUTER" vlan22
check_output "vlan2222 still enabled" "ipv4=false ipv6=true" ft_state "$NS_ROUTER" vlan2222

check "move vlan2222 to another netns" ip -n "$NS_ROUTER" link set vlan2222 netns "$NS_OTHER"
check_output "vlan2222 gone from the router's show" absent ft_state "$NS_ROUTER" vlan2222
check_output "vlan2222 not enabled in its new netns" absent ft_state "$NS_OTHER" vlan2222
check_output "router shows nothing" 0 sh -c "ip netns exec $NS_ROUTER ftctl -j show | jq length"

# A VLAN on a deleted real device goes with it.
check "add vlan23 on trunk0" ip -n "$NS_ROUTER" link add link trunk0 name vlan23 type vlan id 23
check "enable vlan23" in_router ftctl enable vlan23
check "delete trunk0 (and so vlan23)" ip -n "$NS_ROUTER" link del trunk0
check_output "vlan23 gone from show" absent ft_state "$NS_ROUTER" vlan23

check "rmmod fasttrack" rmmod fasttrack
check "fasttrack is unloaded" test ! -e /sys/module/fasttrack
check_dmesg_clean "no kernel warning"
ft_exit
