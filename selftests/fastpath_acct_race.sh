#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_port sets a
# variable by name; check calls functions by name.
# The counts of one flow stay exact when every CPU adds to them at once
# (needs two CPUs, skipped with one; it can catch a lost update only where
# the CPUs really run in parallel: make check runs it in the boot with
# multi-threaded TCG). A UDP exchange is offloaded, with
# nf_conntrack_acct=1 in the router, then left idle. The test hook
# debugfs fasttrack/acct_race (FT_TEST_HOOKS builds) counts 1 packet and
# 1 byte, RACE_N times, from a kthread on each CPU, all at once, as the
# fast path counts a packet. The flow's packets and bytes (ftctl -j flows)
# and conntrack's counters of that direction then grew by exactly
# CPUs * RACE_N each. A read-modify-write that is not atomic loses some.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

RACE_N=${RACE_N:-1000000}	# adds per CPU

fp_init
ncpus=$(st_ncpus)
[ "$ncpus" -ge 2 ] || ft_skip "needs two CPUs (make check runs it in the multi-threaded TCG boot)"
require_cmd udpecho jq
fp_setup_plain
must ip netns exec "$NS_ROUTER" sysctl -qw net.netfilter.nf_conntrack_acct=1
fp_debugfs acct_race
hook=$FP_DBG/acct_race

# flow_counts PORT: "ID PACKETS BYTES" of the cached client->server flow
# of the UDP connection to PORT, or nothing.
flow_counts() {
	ip netns exec "$NS_ROUTER" ftctl -j flows | jq -r --argjson p "$1" \
		'.[] | select(.proto == "udp" and .dir == "original" and .dport == $p) |
			"\(.id) \(.packets) \(.bytes)"' | head -n 1
}

fam=4
fp_port port
st_srv_count udp "$port"
fp_bg echo ip netns exec "$NS_SERVER" udpecho -s "$port"
must busywait 5000 fp_listening "$NS_SERVER" udp "$port"
check "20 datagrams answered" fp_run ip netns exec "$NS_CLIENT" \
	udpecho -c "$SERVER_IP4" "$port" 20 "$(($(ft_secs 5) * 1000))"
fp_kill "$FP_PID"

read -r id p0 b0 <<-EOF
	$(flow_counts "$port")
EOF
check "the client->server flow is cached (ftctl -j flows)" test -n "$id"
[ -n "$id" ] || fp_exit
read -r cp0 cb0 _ <<-EOF
	$(fp_ct_acct "$fam" udp "$port")
EOF
sp0=$(st_srv_packets "$port")
log_info "flow $id: $p0 packets, $b0 B; conntrack orig $cp0 packets, $cb0 B"

start=$(now_ms)
check "$ncpus CPUs add 1 packet, 1 B to flow $id $RACE_N times each, at once" \
	ip netns exec "$NS_ROUTER" sh -c "echo '$id $RACE_N' >$hook"
log_info "the adds took $(($(now_ms) - start)) ms"

read -r _ p1 b1 <<-EOF
	$(flow_counts "$port")
EOF
read -r cp1 cb1 _ <<-EOF
	$(fp_ct_acct "$fam" udp "$port")
EOF
want=$((ncpus * RACE_N))
check_eq "the flow stayed idle (the server got nothing more)" "$sp0" "$(st_srv_packets "$port")"
check_eq "the flow's packets grew by exactly $want" "$want" $((p1 - p0))
check_eq "the flow's bytes grew by exactly $want" "$want" $((b1 - b0))
check_eq "conntrack's orig packets grew by exactly $want" "$want" $((cp1 - cp0))
check_eq "conntrack's orig bytes grew by exactly $want" "$want" $((cb1 - cb0))

fp_exit
