#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_port sets a
# variable by name; busywait and check call functions by name.
# A reset that races the learn of the other direction still tears it down
# (issue #35, S3; needs two vCPUs, skipped with one). The client's
# direction of a TCP connection is cached; the router learns the server's
# direction on CPU 0 and, through the test hook (debugfs
# fasttrack/learn_stall, FT_TEST_HOOKS builds), waits after hashing it,
# before marking it live, until the connection closes. The client, on
# CPU 1, resets the connection: the router's fast path tears the client's
# direction down, and conntrack goes to CLOSE, while the server's
# direction is in the table but not yet live. Once released, it must not
# stay cached. The GC, which would find the closed connection within half
# a second, is held off (fasttrack/gc_pause), and the client drops what
# the server sends, so that no later packet of the connection through the
# router's stack (the client's own reset of it) tears it down either.
# While CPU 0 is held it is in an RCU read section: nothing may wait for a
# grace period meanwhile, as a process leaving "ip netns exec" does (its
# mount namespace goes). So the client runs under nsenter.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
[ "$(st_ncpus)" -ge 2 ] || ft_skip "needs two CPUs (make check runs it in the 2-vCPU boot)"
require_cmd taskset jq mkfifo
fp_setup_stick

fp_debugfs learn_stall
stall=$FP_DBG/learn_stall
gc_pause=$FP_DBG/gc_pause
defer sh -c "echo 0 >'$gc_pause'"

# stall_is STATE: the hook of learn_stall is in STATE.
stall_is() { [ "$(cat "$stall")" = "$1" ]; }

# dir_cached PORT DIR: the direction DIR (original, reply) of the
# connection to PORT is cached.
dir_cached() {
	[ "$(ip netns exec "$NS_ROUTER" ftctl -j flows | jq --argjson p "$1" --arg d "$2" \
		'[.[] | select(.dir == $d and (.dport == $p or .sport == $p))] | length')" -ge 1 ]
}

reply_gone() { ! dir_cached "$1" reply; }

for fam in 4 6; do
	fp_port port
	fifo=$FP_TMP/srv$fam
	must mkfifo "$fifo"
	# The server, on CPU 0, sends what the test writes into the fifo.
	ip netns exec "$NS_SERVER" taskset -c 0 socat -u "OPEN:$fifo,rdonly" \
		"TCP$fam-LISTEN:$port,reuseaddr" </dev/null >/dev/null 2>&1 &
	srv=$!
	defer fp_kill "$srv"
	exec 4>"$fifo"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$port"
	# The client, on CPU 1, only reads, and resets the connection when
	# killed (linger=0).
	fp_bg "cli$fam" nsenter --net="/run/netns/$NS_CLIENT" taskset -c 1 socat -u \
		"TCP$fam:$(fp_sockaddr "$(fp_server_ip "$fam")" "$port"),linger=0" OPEN:/dev/null
	cli=$FP_PID
	# The handshake's last ACK is learned; the server has sent nothing.
	if busywait 5000 dir_cached "$port" original; then
		pass "IPv$fam: the client's direction is cached"
	else
		fail "IPv$fam: the client's direction is cached" "ftctl -j stats: $(fp_stats)"
	fi
	must ip netns exec "$NS_CLIENT" nft add table inet race
	must ip netns exec "$NS_CLIENT" nft add chain inet race in \
		"{ type filter hook input priority 0; }"
	must ip netns exec "$NS_CLIENT" nft add rule inet race in tcp sport "$port" drop
	must sh -c "echo 1 >'$gc_pause'"

	echo "$port" >"$stall"
	echo "data" >&4
	if busywait 10000 stall_is waiting; then
		pass "IPv$fam: the server's direction is hashed, held before live"
	else
		fail "IPv$fam: the server's direction is hashed, held before live" \
			"learn_stall: $(cat "$stall")" "ftctl -j stats: $(fp_stats)"
	fi
	check "IPv$fam: kill -KILL the client (a reset, from CPU 1)" kill -KILL "$cli"
	if busywait 15000 stall_is released; then
		pass "IPv$fam: the reset came while the server's direction was not live"
	else
		fail "IPv$fam: the reset came while the server's direction was not live" \
			"learn_stall: $(cat "$stall")"
	fi
	if busywait 2000 st_ct_state_is "$fam" "$port" CLOSE; then
		pass "IPv$fam: conntrack saw the reset"
	else
		fail "IPv$fam: conntrack saw the reset" "state and timeout: $ST_CT"
	fi
	if busywait 2000 reply_gone "$port"; then
		pass "IPv$fam: the server's direction is not cached after the reset"
	else
		fail "IPv$fam: the server's direction is not cached after the reset" \
			"$(ip netns exec "$NS_ROUTER" ftctl flows 2>&1)" "ftctl -j stats: $(fp_stats)"
	fi

	must sh -c "echo 0 >'$gc_pause'"
	exec 4>&-
	fp_kill "$srv"
	must ip netns exec "$NS_CLIENT" nft delete table inet race
	check "IPv$fam: nothing of the connection is cached in the end" \
		busywait 5000 reply_gone "$port"
done

fp_exit
