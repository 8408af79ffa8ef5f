#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2034 # dash has local; lib.sh sets $ret;
# the ROUTER_* variables are read by lib.sh.
# Removing a pattern rule that matches many devices costs one walk of the
# flow table and one grace period, not one of each per device: with 48
# VLAN devices enabled by "v1*", "ftctl disable v1*" walks the table for
# disabled devices once and calls synchronize_net() once (kprobes on both,
# in a trace instance of the test's own). Every device is disabled, and the flows of a connection
# through two of them are gone, with the reason "invalidated".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

TR=/sys/kernel/debug/tracing
[ -w "$TR/kprobe_events" ] || ft_skip "no kprobe events under $TR (CONFIG_KPROBE_EVENTS)"

NVLAN=48
fp_init
fp_require
ft_module_load
setup_ns NS_CLIENT NS_SERVER NS_ROUTER

# Client and server each on a VLAN of a veth trunk: v100 and v101; the
# other VLANs exist only to be matched by the pattern.
CLIENT_IP4=198.18.100.2 CLIENT_IP6=2001:db8:100::2
SERVER_IP4=198.18.101.2 SERVER_IP6=2001:db8:101::2
ROUTER_CLIENT_DEV=v100 ROUTER_SERVER_DEV=v101
ROUTER_CLIENT_IP4=198.18.100.1
must ip -n "$NS_CLIENT" link add eth0 type veth peer name tc0 netns "$NS_ROUTER"
must ip -n "$NS_SERVER" link add eth0 type veth peer name ts0 netns "$NS_ROUTER"
must ip -n "$NS_ROUTER" link set tc0 up
must ip -n "$NS_ROUTER" link set ts0 up
must ip -n "$NS_ROUTER" link add link tc0 name v100 type vlan id 100
must ip -n "$NS_ROUTER" link add link ts0 name v101 type vlan id 101
i=102
while [ "$i" -lt $((100 + NVLAN)) ]; do
	must ip -n "$NS_ROUTER" link add link tc0 name "v$i" type vlan id "$i"
	must ip -n "$NS_ROUTER" link set "v$i" up
	i=$((i + 1))
done
must ip -n "$NS_CLIENT" link add link eth0 name eth0.100 type vlan id 100
must ip -n "$NS_SERVER" link add link eth0 name eth0.101 type vlan id 101
must ip -n "$NS_CLIENT" link set eth0 up
must ip -n "$NS_SERVER" link set eth0 up
router_forwarding "$NS_ROUTER"
addr "$NS_ROUTER" v100 198.18.100.1/24 2001:db8:100::1/64
addr "$NS_ROUTER" v101 198.18.101.1/24 2001:db8:101::1/64
host_side "$NS_CLIENT" eth0.100 "$CLIENT_IP4" "$CLIENT_IP6" 198.18.100.1 2001:db8:100::1
host_side "$NS_SERVER" eth0.101 "$SERVER_IP4" "$SERVER_IP6" 198.18.101.1 2001:db8:101::1
topo_wait
nft_forward_ruleset "$NS_ROUTER"

must ip netns exec "$NS_ROUTER" ftctl enable 'v1*'
enabled() { ip netns exec "$NS_ROUTER" ftctl -j show | grep -o '"ifname":"v1[0-9]*"' | wc -l; }
check_eq "the pattern enables all $NVLAN VLAN devices" "$NVLAN" "$(enabled)"

# A stream through v100 and v101, so that there are flows to drop.
fp_rand size 2097152 4194304
file=$(fp_mkfile stream "$size")
fp_stream_start stream 4 "$file"
must busywait 20000 fp_fast_ge v100 4 1
flows() { fp_stat flows; }
check_ge "flows are cached" "$(flows)" 1
inval0=$(fp_num "$(fp_stat invalidated)")

# Count the calls, in a trace instance of our own. The walk for disabled
# devices is ft_table_kill_devs(), ft_table_kill_dev() (one device) before
# it: both are called from another file, so never inlined.
killfn=ft_table_kill_devs
grep -qw "$killfn" /proc/kallsyms || killfn=ft_table_kill_dev
tag=ft$(ft_rand)
GCT=$TR/instances/$tag
must sh -c "echo 'p:${tag}_kill $killfn' >>'$TR/kprobe_events'"
defer sh -c "echo '-:${tag}_kill' >>'$TR/kprobe_events'"
must sh -c "echo 'p:${tag}_sync synchronize_net' >>'$TR/kprobe_events'"
defer sh -c "echo '-:${tag}_sync' >>'$TR/kprobe_events'"
must mkdir "$GCT"
defer rmdir "$GCT"
for e in kill sync; do
	must sh -c "echo 1 >'$GCT/events/kprobes/${tag}_$e/enable'"
	defer sh -c "echo 0 >'$GCT/events/kprobes/${tag}_$e/enable'"
done

check "ftctl disable 'v1*'" ip netns exec "$NS_ROUTER" ftctl disable 'v1*'
kills=$(grep -c "${tag}_kill:" "$GCT/trace")
syncs=$(grep -c "${tag}_sync:" "$GCT/trace")
check_eq "one walk of the flow table for $NVLAN devices" 1 "$kills"
check_eq "one grace period for $NVLAN devices" 1 "$syncs"
check_eq "no device is enabled any more" 0 "$(enabled)"
check_eq "the stream's flows are gone" 0 "$(flows)"
check_ge "they were removed as invalidated" \
	"$(fp_num "$(fp_stat invalidated)")" $((inval0 + 1))
fp_stream_finish "IPv4 stream" stream "$file"

fp_exit
