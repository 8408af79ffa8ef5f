#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154 # dash has local; fp_* set variables by name
# Device events act on the flows of that device only. On router-on-a-stick,
# with an offloaded stream from the client (vlan22) to the server
# (vlan2222), a third VLAN on the same trunk, vlan33 (enabled, with
# addresses and a neighbour), changes its MTU, goes down and up, changes
# its MAC address and is deleted. After each event the stream's flows are
# still cached (the same flow ids), no flow was invalidated or torn down
# for a route change, and the fast path keeps carrying the stream. Then
# the stream's own egress device changes its MTU: its flows go back to the
# stack and are learned again. The data arrives intact. Last, the stream's
# ingress device is deleted: the flows that entered through it are gone
# within a second, and the next hops with them (no device is left held).
# IPv4 and IPv6.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
require_cmd jq
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV

# vlan33: an enabled VLAN with addresses and a resolved neighbour, so that
# it has state of its own, but no flow of the stream.
must ip -n "$NS_ROUTER" link add link "$ROUTER_TRUNK_DEV" name vlan33 type vlan id 33
must ip -n "$NS_ROUTER" addr add 198.18.33.1/24 dev vlan33
must ip -n "$NS_ROUTER" addr add 2001:db8:33::1/64 dev vlan33 nodad
must ip -n "$NS_ROUTER" link set vlan33 up
must ip -n "$NS_ROUTER" neigh replace 198.18.33.2 lladdr 02:00:00:00:33:02 dev vlan33 nud permanent
must ip -n "$NS_ROUTER" neigh replace 2001:db8:33::2 lladdr 02:00:00:00:33:02 dev vlan33 nud permanent
fp_enable vlan33

# stream_ids: the ids of the cached flows of the stream, sorted, one line.
stream_ids() {
	ip netns exec "$NS_ROUTER" ftctl -j flows |
		jq -r --argjson p "$FP_STREAM_PORT" \
			'[.[] | select(.sport == $p or .dport == $p) | .id] | sort | map(tostring) | join(",")'
}

# removals: flows removed for a device or a route change so far.
removals() { echo $(($(fp_num "$(fp_stat invalidated)") + $(fp_num "$(fp_stat route_changed)"))); }

removals_above() { [ "$(removals)" -gt "$1" ]; }

# unrelated FAM DESC CMD...: CMD changes vlan33; the stream's flows stay.
unrelated() {
	local fam="$1" desc="$2" ids r0 fast0
	shift 2
	ids=$(stream_ids)
	r0=$(removals)
	fast0=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	check "IPv$fam: $desc" "$@"
	if fp_wait_fast "$cdev" "$fam" $((fast0 + 65536)) 10000; then
		pass "IPv$fam: $desc: the fast path still carries the stream"
	else
		fail "IPv$fam: $desc: the fast path still carries the stream" "ftctl -j stats: $(fp_stats)"
	fi
	check_eq "IPv$fam: $desc: the stream's flows are the same ($ids)" "$ids" "$(stream_ids)"
	check_eq "IPv$fam: $desc: no flow removed for a device or route change" "$r0" "$(removals)"
}

# The stream must outlast every event before the MTU change, and a slow
# kernel (FT_SLOWDOWN) takes that much longer over them: on the debug
# kernel, 8 MB had ended by "vlan33 up". It finishes at full speed.
for fam in 4 6; do
	stream=$(fp_mkfile "devev$fam" $((8388608 * FT_SLOWDOWN)))
	fp_stream_start "devev$fam" "$fam" "$stream"
	st_offloaded "IPv$fam" "$fam" || { st_stream_stop; continue; }
	check_eq "IPv$fam: both directions cached" 2 "$(stream_ids | tr ',' '\n' | grep -c .)"

	mtu=$((1500 - fam * 25))
	unrelated "$fam" "vlan33 mtu $mtu" ip -n "$NS_ROUTER" link set vlan33 mtu "$mtu"
	unrelated "$fam" "vlan33 down" ip -n "$NS_ROUTER" link set vlan33 down
	unrelated "$fam" "vlan33 up" ip -n "$NS_ROUTER" link set vlan33 up
	unrelated "$fam" "vlan33 address" ip -n "$NS_ROUTER" link set vlan33 address "02:00:00:00:33:0$fam"
	if [ "$fam" = 6 ]; then
		unrelated "$fam" "vlan33 deleted" ip -n "$NS_ROUTER" link del vlan33
	fi

	# The egress device's own change: its flows go and come back.
	r0=$(removals)
	check "IPv$fam: $sdev mtu 1450" ip -n "$NS_ROUTER" link set "$sdev" mtu 1450
	check "IPv$fam: $sdev mtu 1500" ip -n "$NS_ROUTER" link set "$sdev" mtu 1500
	fast0=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	if busywait 10000 removals_above "$r0"; then
		pass "IPv$fam: $sdev mtu change: the stream's flows were removed"
	else
		fail "IPv$fam: $sdev mtu change: the stream's flows were removed" "ftctl -j stats: $(fp_stats)"
	fi
	fp_stream_running "IPv$fam: $sdev mtu change"
	if fp_wait_fast "$cdev" "$fam" $((fast0 + 262144)) 20000; then
		pass "IPv$fam: $sdev mtu change: the stream is learned again"
	else
		fail "IPv$fam: $sdev mtu change: the stream is learned again" "ftctl -j stats: $(fp_stats)"
	fi
	st_stream_finish "IPv$fam" "devev$fam" "$stream" 30000
done

# The ingress device goes while its flows are cached.
stream=$(fp_mkfile devevin 8388608)
fp_stream_start devevin 4 "$stream"
if st_offloaded "IPv4, $cdev to be deleted" 4; then
	check "delete $cdev" ip -n "$NS_ROUTER" link del "$cdev"
	if busywait 2000 fp_stat_eq flows 0; then
		pass "the flows of a deleted ingress device are gone"
	else
		fail "the flows of a deleted ingress device are gone" "ftctl -j stats: $(fp_stats)"
	fi
fi
st_stream_stop

fp_exit
