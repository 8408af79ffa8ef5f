#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ftctl enable/disable per family, on a VLAN subinterface (router-on-a-stick)
# and on a plain interface; "ftctl -j show" must reflect every change exactly.
. "$(dirname "$0")/lib.sh"

require_cmd ftctl jq

# state_is DESC NS DEV EXPECTED: "ftctl -j show" gives DEV that state.
state_is() {
	check_output "$1" "$4" ft_state "$2" "$3"
}

# enable_cycle NS DEV OTHER: walk DEV through every family combination;
# OTHER, a second forwarding device, must stay untouched throughout.
enable_cycle() {
	local ns=$1 dev=$2 other=$3 ifindex

	state_is "$dev: absent before any enable" "$ns" "$dev" absent
	check_output "$dev: show is an empty array" "[]" sh -c "ip netns exec $ns ftctl -j show | jq -c ."

	check "$dev: enable ipv4" ip netns exec "$ns" ftctl enable "$dev" ipv4
	state_is "$dev: ipv4 on, ipv6 off" "$ns" "$dev" "ipv4=true ipv6=false"
	check "$dev: enable ipv6" ip netns exec "$ns" ftctl enable "$dev" ipv6
	state_is "$dev: ipv4 on, ipv6 on" "$ns" "$dev" "ipv4=true ipv6=true"

	ifindex=$(ip -n "$ns" -j link show dev "$dev" | jq '.[0].ifindex')
	check_output "$dev: ifindex matches ip link" "$ifindex" \
		sh -c "ip netns exec $ns ftctl -j show | jq '.[] | select(.ifname == \"$dev\") | .ifindex'"
	check_output "$dev: counters are numbers" "true" \
		sh -c "ip netns exec $ns ftctl -j show | jq '[.[] | .ipv4.packets, .ipv4.bytes, .ipv6.packets, .ipv6.bytes | numbers] | length == 4'"
	state_is "$other: untouched" "$ns" "$other" absent

	check "$dev: disable ipv4" ip netns exec "$ns" ftctl disable "$dev" ipv4
	state_is "$dev: ipv4 off, ipv6 on" "$ns" "$dev" "ipv4=false ipv6=true"
	check "$dev: disable ipv6" ip netns exec "$ns" ftctl disable "$dev" ipv6
	state_is "$dev: absent once every family is off" "$ns" "$dev" absent

	check "$dev: enable (both families)" ip netns exec "$ns" ftctl enable "$dev"
	state_is "$dev: both on" "$ns" "$dev" "ipv4=true ipv6=true"
	check "$other: enable ipv6" ip netns exec "$ns" ftctl enable "$other" ipv6
	state_is "$other: ipv6 only" "$ns" "$other" "ipv4=false ipv6=true"
	state_is "$dev: unchanged by $other" "$ns" "$dev" "ipv4=true ipv6=true"
	check_output "show $dev lists only $dev" "$dev" \
		sh -c "ip netns exec $ns ftctl -j show $dev | jq -r '.[].ifname'"

	check "$dev: disable (both families)" ip netns exec "$ns" ftctl disable "$dev"
	state_is "$dev: absent after disable" "$ns" "$dev" absent
	check "$other: disable" ip netns exec "$ns" ftctl disable "$other"
	check_output "show is empty again" "0" sh -c "ip netns exec $ns ftctl -j show | jq length"

	check "$dev: enable ipv6 alone" ip netns exec "$ns" ftctl enable "$dev" ipv6
	state_is "$dev: ipv6 only" "$ns" "$dev" "ipv4=false ipv6=true"
	check "$dev: plain-text show mentions $dev" \
		sh -c "ip netns exec $ns ftctl show | grep -q $dev"
	check "$dev: disable" ip netns exec "$ns" ftctl disable "$dev"
	state_is "$dev: absent at the end" "$ns" "$dev" absent
}

ft_module_load

log_info "router-on-a-stick: VLAN subinterfaces"
setup_router_on_a_stick
enable_cycle "$NS_ROUTER" "$ROUTER_CLIENT_DEV" "$ROUTER_SERVER_DEV"

log_info "plain router: plain interfaces"
setup_plain_router
enable_cycle "$NS_ROUTER" "$ROUTER_CLIENT_DEV" "$ROUTER_SERVER_DEV"

ft_exit
