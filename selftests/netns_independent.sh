#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two router netns with the same device names keep independent state, and
# deleting one netns while enabled leaves the other intact.
. "$(dirname "$0")/lib.sh"

require_cmd ftctl jq

dmesg_mark
ft_module_load
setup_ns NS_A NS_B
for ns in "$NS_A" "$NS_B"; do
	must ip -n "$ns" link add eth1 type veth peer name eth2
	must ip -n "$ns" link add link eth1 name vlan22 type vlan id 22
	must ip -n "$ns" link set eth1 up
done

check "A: enable eth1" ip netns exec "$NS_A" ftctl enable eth1
check_output "A: eth1 enabled" "ipv4=true ipv6=true" ft_state "$NS_A" eth1
check_output "B: shows nothing" 0 sh -c "ip netns exec $NS_B ftctl -j show | jq length"

check "B: enable eth1 ipv6" ip netns exec "$NS_B" ftctl enable eth1 ipv6
check "B: enable vlan22 ipv4" ip netns exec "$NS_B" ftctl enable vlan22 ipv4
check_output "A: eth1 still both families" "ipv4=true ipv6=true" ft_state "$NS_A" eth1
check_output "A: vlan22 absent" absent ft_state "$NS_A" vlan22
check_output "B: eth1 ipv6 only" "ipv4=false ipv6=true" ft_state "$NS_B" eth1

check "A: disable eth1" ip netns exec "$NS_A" ftctl disable eth1
check_output "A: shows nothing" 0 sh -c "ip netns exec $NS_A ftctl -j show | jq length"
check_output "B: eth1 unchanged" "ipv4=false ipv6=true" ft_state "$NS_B" eth1
check_output "B: vlan22 unchanged" "ipv4=true ipv6=false" ft_state "$NS_B" vlan22

check "A: enable vlan22" ip netns exec "$NS_A" ftctl enable vlan22
check "delete netns A while enabled" ip netns del "$NS_A"
check_output "B: still two devices" 2 sh -c "ip netns exec $NS_B ftctl -j show | jq length"

check "rmmod fasttrack" rmmod fasttrack
check_dmesg_clean "no kernel warning"
ft_exit
