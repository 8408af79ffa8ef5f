#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043 # dash has "local"
# Fault under load: a flow table of 4 entries ("ftctl set max-flows 4") while
# an iperf3 stream per family runs and many short TCP connections per family
# open at once. The table never holds more than 4 flows (its memory is
# bounded), the table_full counter counts the refusals, and every
# connection still works, through the slow path.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_fault.sh"

CONNS=16

# echo_server FAMILY PORT: a forking TCP echo server in the server netns. A
# child waits up to 10 s (-t) for cat's answer after the client's EOF (the
# default, 0.5 s, is less than a guest may stall on a busy host).
echo_server() {
	ip netns exec "$NS_SERVER" socat -t 10 "TCP$1-LISTEN:$2,fork,reuseaddr" EXEC:cat \
		</dev/null >/dev/null 2>&1 &
	defer fp_kill "$!"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$2"
}

# conn FAMILY PORT I: one connection that says hello-I, stays open for a
# second, and writes what comes back to $FP_TMP/conn.FAMILY.I.
conn() {
	(echo "hello-$3"; sleep 1) |
		ip netns exec "$NS_CLIENT" timeout 20 \
			socat -t 10 - "TCP$1:$(fp_sockaddr "$(fp_server_ip "$1")" "$2")" \
			>"$FP_TMP/conn.$1.$3" 2>&1
}

max_seen=0
sample_flows() {
	local n
	n=$(fault_flows)
	[ "$n" -le "$max_seen" ] || max_seen=$n
}

fault_setup
must in_router ftctl set max-flows 4
full0=$(fp_stat table_full)
fault_streams_start
port4=0 port6=0
fp_port port4
fp_port port6
echo_server 4 "$port4"
echo_server 6 "$port6"

pids=
i=1
while [ "$i" -le "$CONNS" ]; do
	conn 4 "$port4" "$i" &
	pids="$pids $!"
	conn 6 "$port6" "$i" &
	pids="$pids $!"
	sample_flows
	i=$((i + 1))
done
while fault_streams_any; do
	sample_flows
	sleep 0.1
done
# shellcheck disable=SC2086 # a list of pids
wait $pids

bad=
for fam in 4 6; do
	i=1
	while [ "$i" -le "$CONNS" ]; do
		[ "$(cat "$FP_TMP/conn.$fam.$i")" = "hello-$i" ] ||
			bad="$bad IPv$fam#$i: '$(cat "$FP_TMP/conn.$fam.$i")'"
		i=$((i + 1))
	done
done
check_eq "all $((2 * CONNS)) short connections work" "" "$bad"
fault_streams_check "a full table"
log_info "at most $max_seen flows cached"
# An insert counts itself before it is refused: on N CPUs, up to N - 1 of
# those may show in a sample.
check_le "the table never held more than 4 flows" "$max_seen" $((4 + $(nproc) - 1))
full=$(fp_stat table_full)
log_info "table_full: $full0 -> $full"
check_ge "table_full counts the refusals" "$full" $((full0 + 1))
if [ -n "$FAULT_SLAB" ]; then
	check_le "ft_flow slab objects (both families, NAT or not) stay bounded" \
		"$(ft_slab_objs)" 256
fi
fault_check_drained
fault_finish
