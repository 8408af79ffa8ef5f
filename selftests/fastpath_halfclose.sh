#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; busywait and check call functions by name.
# A half-closed connection stays offloaded. The client sends its FIN at
# once (it has nothing to say), then reads a file of 2-4 MB that the
# server streams back, as an HTTP/1.0 client or "ssh host cmd </dev/null"
# does. Conntrack goes to FIN_WAIT with the client's FIN and to CLOSE_WAIT
# with the server's ACK of it; from then on only the server's FIN or a RST
# changes the state, and the fast path never forwards those. So:
#  - the file arrives intact;
#  - the forward chain sees little of it: the fast path carries the rest;
#  - conntrack ends in TIME_WAIT, as through the full stack: it saw the
#    server's FIN and the client's ACK of it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
fp_setup_stick
topo_wait

for fam in 4 6; do
	desc="IPv$fam, the client half-closes first"
	fp_rand size 2097152 4194304
	file=$(fp_mkfile "resp$fam" "$size")
	out=$FP_TMP/got$fam
	fp_port port
	ip netns exec "$NS_SERVER" socat -u "OPEN:$file" "TCP$fam-LISTEN:$port,reuseaddr" \
		</dev/null >/dev/null 2>&1 &
	srv=$!
	defer fp_kill "$srv"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$port"

	fp_begin
	# /dev/null ends at once: socat shuts its side down (FIN) and reads
	# the server's stream to its end.
	check "$desc: transfer $size B" fp_run ip netns exec "$NS_CLIENT" \
		timeout "$(ft_secs 60)" socat -t 60 \
		"OPEN:/dev/null,rdonly!!OPEN:$out,creat,trunc,wronly" \
		"TCP$fam:$(fp_sockaddr "$(fp_server_ip "$fam")" "$port")"
	fp_end
	fp_check_same "$desc: data intact (sha256)" "$file" "$out"
	fp_check_offload "$desc: server to client" "$size" "$FPD_S2C" "$(fp_sdelta "$fam")"
	if busywait 5000 st_ct_state_is "$fam" "$port" TIME_WAIT; then
		pass "$desc: conntrack: TIME_WAIT after the close"
	else
		fail "$desc: conntrack: TIME_WAIT after the close" \
			"state and timeout: $ST_CT" \
			"ftctl -j stats: $(fp_stats)"
	fi
	check_eq "$desc: nothing of the connection is cached" 0 "$(st_flows_of "$port")"
	fp_kill "$srv"
done

fp_exit
