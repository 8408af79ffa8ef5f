#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_port sets
# a variable by name; set -- $(...) splits on purpose; busywait and check
# call functions by name.
# A close that comes in through a device fasttrack is not enabled on ends
# the offload at once, so that conntrack sees the rest of the close as the
# full stack shows it. fasttrack is enabled on the client-side device only:
# client->server is cached, the server's packets take the slow path. The
# client sends a few bytes (through the fast path) and stays open; the
# server half-closes (FIN). The client's kernel acknowledges the FIN. That
# ACK must reach conntrack, which then shows CLOSE_WAIT; had the fast path
# carried it, conntrack would stay in FIN_WAIT until the client closes.
# (In CLOSE_WAIT the client's direction may be cached again.) Then the
# client closes: conntrack must see its FIN and the server's ACK, and end
# in TIME_WAIT with nothing of the connection cached.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
fp_require
require_cmd mkfifo jq
ft_module_load
setup_router_on_a_stick
nft_forward_ruleset "$NS_ROUTER"
fp_enable "$ROUTER_CLIENT_DEV"
cdev=$ROUTER_CLIENT_DEV

for fam in 4 6; do
	desc="IPv$fam server half-close"
	fp_port port
	out=$FP_TMP/rx$fam
	st_srv_fin "$fam" "$port" "$out"

	fast0=$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")
	torn0=$(fp_stat torn_down)
	# The client sends 6 bytes and keeps its side open (socat -u never
	# reads the socket, so it does not close when the server does). Its
	# input is a FIFO that a sleep the test can kill holds open.
	must mkfifo "$FP_TMP/cli$fam"
	{ printf 'hello\n'; exec sleep 60; } >"$FP_TMP/cli$fam" &
	cli_hold=$!
	defer fp_kill "$cli_hold"
	ip netns exec "$NS_CLIENT" socat -u "OPEN:$FP_TMP/cli$fam,rdonly" \
		"TCP$fam:$(fp_sockaddr "$(fp_server_ip "$fam")" "$port")" >/dev/null 2>&1 &
	cli=$!
	defer fp_kill "$cli"
	if busywait 10000 grep -qs hello "$out"; then
		pass "$desc: the client's bytes arrive"
	else
		fail "$desc: the client's bytes arrive" "server got: $(cat "$out")"
	fi
	check_eq "$desc: client->server is cached" 1 "$(st_flows_of "$port")"
	check_ge "$desc: the client's bytes took the fast path" \
		"$(fp_num "$(fp_dev_bytes "$cdev" "$fam")")" $((fast0 + 6))
	check_eq "$desc: conntrack: ESTABLISHED before the close" ESTABLISHED \
		"$(st_ct_tcp_state "$fam" "$port" | cut -d' ' -f1)"

	fp_kill "$FP_HOLD"
	if busywait 5000 st_ct_state_is "$fam" "$port" CLOSE_WAIT; then
		pass "$desc: conntrack saw the client's ACK of the FIN ($ST_CT)"
	else
		fail "$desc: conntrack saw the client's ACK of the FIN (CLOSE_WAIT)" \
			"state and timeout: $ST_CT" "conntrack -L: $(st_ct "$fam" tcp "$port")" \
			"ftctl -j stats: $(fp_stats)"
	fi
	check_ge "$desc: torn_down counts the client's direction" \
		"$(fp_stat torn_down)" $((torn0 + 1))

	# The client's input ends: it closes its side.
	fp_kill "$cli_hold"
	if busywait 5000 st_ct_state_is "$fam" "$port" TIME_WAIT; then
		pass "$desc: conntrack saw the client's close ($ST_CT)"
	else
		fail "$desc: conntrack saw the client's close (TIME_WAIT)" \
			"state and timeout: $ST_CT" "ftctl -j stats: $(fp_stats)"
	fi
	check_eq "$desc: nothing of the connection is cached" 0 "$(st_flows_of "$port")"
	fp_kill "$cli"
	fp_kill "$cli_hold"
	fp_kill "$FP_SRV"
done

fp_exit
