#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# FIN and RST tear down the fast path. An offloaded TCP connection that
# closes with FIN, and one whose client is killed mid-transfer with an
# abortive close (RST), leave no fast-path entry behind within one second
# (flows back to 0, torn_down up by both directions), and conntrack sees
# the close (TIME_WAIT or CLOSE, or no entry) instead of an established
# connection that the fast path hid from it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_stick
sdev=$ROUTER_SERVER_DEV

for fam in 4 6; do
	# FIN: the client sends the file and closes; the server closes too.
	fp_rand size 2097152 4194304
	file=$(fp_mkfile "fin$fam" "$size")
	set -- $(fp_stat learned torn_down)
	learned0=$1 torn0=$2
	fp_begin
	fp_port port
	fp_tcp_transfer "IPv$fam FIN" "$fam" "$file" "" "" "$port"
	fp_end
	fp_check_offload "IPv$fam FIN" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
	check_ge "IPv$fam FIN: both directions were learned" "$(fp_stat learned)" $((learned0 + 2))
	if busywait 1000 fp_stat_eq flows 0; then
		pass "IPv$fam FIN: no flow is left within 1 s of the close"
	else
		fail "IPv$fam FIN: no flow is left within 1 s of the close" "ftctl -j stats: $(fp_stats)"
	fi
	check_ge "IPv$fam FIN: torn_down counts both directions" "$(fp_stat torn_down)" $((torn0 + 2))
	state=$(fp_ct_state tcp "$port")
	case $state in
	TIME_WAIT | CLOSE | gone) pass "IPv$fam FIN: conntrack saw the close ($state)" ;;
	*) fail "IPv$fam FIN: conntrack saw the close" "conntrack state: $state" \
		"$(ip netns exec "$NS_ROUTER" conntrack -L -p tcp --dport "$port" 2>&1)" ;;
	esac

	# RST: the client downloads a file and is killed mid-transfer. Its
	# socket has SO_LINGER 0, so the kernel resets the connection at once,
	# with the sequence number conntrack expects (it saw every ACK number
	# of the server's direction: the client sends no data).
	stream=$(fp_mkfile "rst$fam" 8388608)
	set -- $(fp_stat learned torn_down)
	learned0=$1 torn0=$2
	fp_port port
	out=$stream.rx
	ip netns exec "$NS_SERVER" socat -u "OPEN:$stream" "TCP$fam-LISTEN:$port,reuseaddr" \
		</dev/null >/dev/null 2>&1 &
	FP_SRV=$!
	defer fp_kill "$FP_SRV"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$port"
	fp_pace "$NS_SERVER" eth0 "$FP_SLOW_RATE"
	fp_bg "rst$fam" ip netns exec "$NS_CLIENT" socat -u \
		"TCP$fam:$(fp_sockaddr "$(fp_server_ip "$fam")" "$port"),linger=0" "OPEN:$out,creat,trunc"
	client=$FP_PID
	if fp_wait_fast "$sdev" "$fam" $(($(fp_dev_bytes "$sdev" "$fam") + 262144)) 20000; then
		pass "IPv$fam RST: the connection is offloaded"
	else
		fail "IPv$fam RST: the connection is offloaded" "ftctl -j stats: $(fp_stats)"
	fi
	check_ge "IPv$fam RST: both directions were learned" "$(fp_stat learned)" $((learned0 + 2))
	check "IPv$fam RST: kill -KILL the client mid-transfer" kill -KILL "$client"
	if busywait 1000 fp_stat_eq flows 0; then
		pass "IPv$fam RST: no flow is left within 1 s of the reset"
	else
		fail "IPv$fam RST: no flow is left within 1 s of the reset" "ftctl -j stats: $(fp_stats)"
	fi
	check_ge "IPv$fam RST: torn_down counts both directions" "$(fp_stat torn_down)" $((torn0 + 2))
	state=$(fp_ct_state tcp "$port")
	case $state in
	CLOSE | gone) pass "IPv$fam RST: conntrack saw the reset ($state)" ;;
	*) fail "IPv$fam RST: conntrack saw the reset" "conntrack state: $state" \
		"$(ip netns exec "$NS_ROUTER" conntrack -L -p tcp --dport "$port" 2>&1)" ;;
	esac
	wait "$client" 2>/dev/null
	fp_unpace "$NS_SERVER" eth0
	fp_kill "$FP_SRV"
done

fp_exit
