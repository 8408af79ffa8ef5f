#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_* set
# variables by name; busywait and check call functions by name.
# The fast path over a bond: router-on-a-stick whose trunk is bond0
# (active-backup, miimon 100, two veths rb0 and rb1) with fasttrack on
# bond0.22 and bond0.2222; the switch's end is a bond too. TCP both ways
# and UDP, both families, are offloaded and intact. Then the active link
# fails mid-stream: both bonds fail over to the other link, the stream
# completes intact, and the fast path carries it after the failover,
# through the new active slave (its counters move). Last, the same over
# two 802.3ad bonds (LACP): both links aggregate, and the transfers are
# offloaded and intact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"
. "$(dirname "$0")/lib_l2dev.sh"

fp_init
[ -d /sys/module/bonding ] || modprobe bonding 2>/dev/null || ft_skip "no bonding module"
l2_setup_fp bond
cdev=$ROUTER_CLIENT_DEV
check_eq "bond0's active slave is rb0" rb0 "$(l2_active_slave "$NS_ROUTER" bond0)"
l2_transfers "bond"

active_is() { [ "$(l2_active_slave "$1" "$2")" = "$3" ]; }

# One failover per family: rb0, the primary, fails; when it comes back,
# both bonds return to it.
old=rb0 new=rb1
for fam in 4 6; do
	d="IPv$fam failover $old to $new"
	stream=$(fp_mkfile "fo$fam" 6291456)
	fp_stream_start "fo$fam" "$fam" "$stream"
	st_offloaded "$d" "$fam" || { st_stream_stop; continue; }
	tx0=$(l2_tx_bytes "$NS_ROUTER" "$new")
	# The link fails: the veth's carrier goes on both ends.
	check "$d: $old goes down" ip -n "$NS_ROUTER" link set "$old" down
	fp_stream_running "$d"
	if busywait 5000 active_is "$NS_ROUTER" bond0 "$new"; then
		pass "$d: bond0 fails over to $new"
	else
		fail "$d: bond0 fails over to $new" \
			"active slave: '$(l2_active_slave "$NS_ROUTER" bond0)'"
	fi
	from=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	if fp_wait_fast "$cdev" "$fam" $((from + 262144)) 20000; then
		pass "$d: the fast path carries the stream after the failover"
	else
		fail "$d: the fast path carries the stream after the failover" \
			"fast path bytes on $cdev: $(fp_dev_bytes "$cdev" "$fam") (from $from)" \
			"ftctl -j stats: $(fp_stats)"
	fi
	# The fast path sends the stream to the server through bond0: on the
	# new slave now.
	if l2_tx_ge "$NS_ROUTER" "$new" $((tx0 + 262144)); then
		pass "$d: the router sends through $new"
	else
		fail "$d: the router sends through $new" \
			"$new sent $(($(l2_tx_bytes "$NS_ROUTER" "$new") - tx0)) B since the failover"
	fi
	st_stream_finish "$d" "fo$fam" "$stream" 30000
	must ip -n "$NS_ROUTER" link set "$old" up
	must busywait 5000 active_is "$NS_ROUTER" bond0 "$old"
	must busywait 5000 active_is "$NS_SWITCH" swbond0 sb0
	topo_wait
done

l2_teardown

lacp_both() {
	[ "$(l2_lacp_ports "$NS_ROUTER" bond0)" = 2 ] && [ "$(l2_lacp_ports "$NS_SWITCH" swbond0)" = 2 ]
}
l2_setup_fp bond 802.3ad
if busywait 10000 lacp_both; then
	pass "802.3ad: both links in the active aggregator, on both ends"
else
	fail "802.3ad: both links in the active aggregator, on both ends" \
		"$(ip netns exec "$NS_ROUTER" cat /proc/net/bonding/bond0)"
fi
l2_transfers lacp

fp_exit
