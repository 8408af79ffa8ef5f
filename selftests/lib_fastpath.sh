# SPDX-License-Identifier: GPL-2.0
# Fast-path helpers for the fasttrack selftests: source lib.sh, then this.
#
# A fast-path test builds a topology with fp_setup_stick or fp_setup_plain
# (fasttrack enabled on the router's two client/server devices, the ~50-rule
# forward ruleset of lib.sh loaded), moves data with socat from the client
# to the server, and proves where the bytes went with counters:
#   - the forward chain's per-direction counters (c2s, s2c) see the slow path;
#   - "ftctl -j show" counts, per receiving device and family, what the fast
#     path forwarded.
# fp_begin / fp_end take the deltas of both around a transfer, and
# fp_check_offload asserts that the fast path carried the transfer.
# fp_stream_start starts a slow (shaped) transfer in the background for
# tests that change something mid-stream; fp_stream_finish lets it finish
# at full speed and checks the data.
#
# Each test draws its parameters (ports, sizes) from FP_SEED, prints it, and
# on failure prints how to run it again with the same parameters.
# shellcheck shell=sh disable=SC3043,SC2034,SC2154 # dash has "local"; the
# FP* variables are for the tests; lib.sh sets $ret.

# The forward chain may see at most this share of a transfer's bytes, and
# the fast path must forward at least that share.
FP_SLOW_MAX_PCT=10
FP_FAST_MIN_PCT=80

# The rate at which UDP transfers are sent: below what the guest forwards.
FP_UDP_RATE=${FP_UDP_RATE:-100mbit}
# The payload of one datagram of a UDP transfer.
FP_UDP_DGRAM=1400

# ------------------------------------------------------------ parameters --

# fp_init: seed the parameters and make a scratch directory, $FP_TMP.
fp_init() {
	FP_TEST=$(basename "$0" .sh)
	FP_SEED=${FP_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
	FP_RNG=$FP_SEED
	log_info "parameters from FP_SEED=$FP_SEED"
	FP_TMP=$(mktemp -d /tmp/fp-XXXXXX) || ft_skip "mktemp failed"
	defer rm -rf "$FP_TMP"
}

# fp_rand VAR LO HI: set VAR to the next number in [LO, HI] drawn from
# FP_SEED. (Not in a $(...) subshell: that would not advance the sequence.)
fp_rand() {
	FP_RNG=$(((FP_RNG * 1103515245 + 12345) % 2147483648))
	eval "$1=$(($2 + (FP_RNG / 16) % ($3 - $2 + 1)))"
}

# fp_debugfs HOOK: mount debugfs for the rest of the test where
# "ip netns exec", which mounts its own /sys, still sees it; FP_DBG is its
# fasttrack directory. Skip when the module lacks the test hook HOOK
# (built without FT_TEST_HOOKS=1); HOOK "" checks none.
fp_debugfs() {
	local d
	d=$(mktemp -d /tmp/st-dbg-XXXXXX) || ft_skip "mktemp failed"
	defer rmdir "$d"
	must mount -t debugfs none "$d"
	defer umount "$d"
	FP_DBG=$d/fasttrack
	[ -z "${1:-}" ] || [ -e "$FP_DBG/$1" ] ||
		ft_skip "no debugfs fasttrack/$1: build the module with FT_TEST_HOOKS=1"
}

# fp_port VAR: a port for the next server, drawn from FP_SEED.
fp_port() { fp_rand "$1" 10000 60000; }

# fp_exit: ft_exit, saying how to reproduce a failure first.
fp_exit() {
	if [ "$ret" = "$KSFT_FAIL" ]; then
		echo "reproduce: in the guest (make vm-shell): cd /selftests && FP_SEED=$FP_SEED ./$FP_TEST.sh"
		echo "           from the host: make check T=$FP_TEST"
	fi
	ft_exit
}

# ------------------------------------------------------------- topology --

# fp_enable DEV [FAMILY]: enable fasttrack on a router device.
fp_enable() { must ip netns exec "$NS_ROUTER" ftctl enable "$@"; }

fp_require() {
	require_cmd ip tc nft socat ftctl conntrack sha256sum timeout awk
}

# fp_setup_with SETUP: the topology SETUP of lib.sh makes, fasttrack on
# the router's client-side and server-side devices for both families, the
# forward ruleset in the router.
fp_setup_with() {
	fp_require
	ft_module_load
	"$1"
	nft_forward_ruleset "$NS_ROUTER"
	fp_enable "$ROUTER_CLIENT_DEV"
	fp_enable "$ROUTER_SERVER_DEV"
}

# fp_setup_stick: router-on-a-stick, fasttrack on vlan22 and vlan2222.
# With FP_XDP=1 (fastpath_xdp_stale), the XDP tier on the trunk too
# (lib_xdp.sh).
fp_setup_stick() {
	fp_setup_with setup_router_on_a_stick
	if [ "${FP_XDP:-0}" = 1 ]; then
		. "$(dirname "$0")/lib_xdp.sh"
		xdp_setup
	fi
}

# fp_setup_stick_wan: the router-on-a-stick's client side and a server
# behind the router's untagged wan0, fasttrack on vlan22 and wan0.
fp_setup_stick_wan() { fp_setup_with setup_stick_wan; }

# fp_setup_plain: the plain two-interface router, fasttrack on eth1, eth2.
fp_setup_plain() { fp_setup_with setup_plain_router; }

# fp_server_ip FAMILY (4|6): the server's address.
fp_server_ip() { if [ "$1" = 4 ]; then echo "$SERVER_IP4"; else echo "$SERVER_IP6"; fi; }

# fp_ipfam FAMILY: the ftctl / JSON name of a family.
fp_ipfam() { echo "ipv$1"; }

# fp_sockaddr IP PORT: IP:PORT for socat, brackets around IPv6.
fp_sockaddr() {
	case $1 in
	*:*) echo "[$1]:$2" ;;
	*) echo "$1:$2" ;;
	esac
}

# ------------------------------------------------------------- counters --

# fp_jget PATH...: from the JSON of ftctl on stdin, print the value at each
# PATH, space-separated ("null" when absent). A PATH is dot-separated keys,
# each looked up after the previous one; KEY=VALUE finds "KEY":"VALUE"
# (ifname=vlan22.ipv6.bytes). A VALUE may have dots before digits, as a VLAN
# device's name has (ifname=br0.22.ipv4.bytes): no key is all digits. awk,
# not jq: jq takes most of a second to start in the TCG guest, and the tests
# poll counters.
fp_jget() {
	tr -d ' \n\t' | awk -v paths="$*" '{
		n = split(paths, P, " ")
		for (i = 1; i <= n; i++) {
			s = $0
			c = split(P[i], C, ".")
			m = 0
			split("", K)
			for (j = 1; j <= c; j++) {
				if (m && K[m] ~ /=/ && C[j] ~ /^[0-9]+$/)
					K[m] = K[m] "." C[j]
				else
					K[++m] = C[j]
			}
			ok = 1
			for (j = 1; j <= m && ok; j++) {
				if (K[j] ~ /=/) {
					split(K[j], kv, "=")
					key = "\"" kv[1] "\":\"" kv[2] "\""
				} else {
					key = "\"" K[j] "\":"
				}
				p = index(s, key)
				if (p)
					s = substr(s, p + length(key))
				else
					ok = 0
			}
			v = "null"
			if (ok && match(s, /^[-0-9a-z.]+/))
				v = substr(s, 1, RLENGTH)
			printf "%s%s", (i > 1 ? " " : ""), v
		}
		print ""
	}'
}

# fp_nft_counters NS TABLE NAME...: the byte counts of named counters.
fp_nft_counters() {
	local ns="$1" table="$2"
	shift 2
	# shellcheck disable=SC2086 # TABLE is "FAMILY NAME"
	ip netns exec "$ns" nft list table $table | awk -v names="$*" '
		$1 == "counter" && $3 == "{" { name = $2 }
		$1 == "packets" && name != "" { b[name] = $4; name = "" }
		END {
			n = split(names, N, " ")
			for (i = 1; i <= n; i++)
				printf "%s%s", (i > 1 ? " " : ""), (N[i] in b ? b[N[i]] : 0)
			print ""
		}'
}

# fp_nft_packets NS TABLE NAME: the packet count of a named counter.
fp_nft_packets() {
	# shellcheck disable=SC2086 # TABLE is "FAMILY NAME"
	ip netns exec "$1" nft list table $2 | awk -v name="$3" '
		$1 == "counter" && $2 == name && $3 == "{" { c = 1; next }
		c && $1 == "packets" { print $2; exit }'
}

# fp_read: the router's counters, in bytes, now:
#   FP_C2S FP_S2C   forward chain, client->server and server->client
#   FP_CV4 FP_CV6   fast path, received on the client-side device, per family
#   FP_SV4 FP_SV6   fast path, received on the server-side device, per family
fp_read() {
	local c="$ROUTER_CLIENT_DEV" s="$ROUTER_SERVER_DEV"
	# shellcheck disable=SC2046 # split into words
	set -- $(fp_nft_counters "$NS_ROUTER" "inet ft_fwd" c2s s2c) \
		$(ip netns exec "$NS_ROUTER" ftctl -j show | fp_jget \
			"ifname=$c.ipv4.bytes" "ifname=$c.ipv6.bytes" \
			"ifname=$s.ipv4.bytes" "ifname=$s.ipv6.bytes")
	FP_C2S=$(fp_num "$1") FP_S2C=$(fp_num "$2")
	FP_CV4=$(fp_num "$3") FP_CV6=$(fp_num "$4")
	FP_SV4=$(fp_num "$5") FP_SV6=$(fp_num "$6")
}

# fp_ct_acct FAMILY PROTO PORT: "ORIG_PACKETS ORIG_BYTES REPLY_PACKETS
# REPLY_BYTES" of the router's (first) conntrack entry of PROTO to PORT
# (as the client sent it), from conntrack's accounting (nf_conntrack_acct=1);
# 0s when there is none.
fp_ct_acct() {
	ip netns exec "$NS_ROUTER" conntrack -L -o extended -f "ipv$1" -p "$2" --dport "$3" 2>/dev/null |
		awk 'NR == 1 {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^packets=/) p[++np] = substr($i, 9)
				if ($i ~ /^bytes=/) b[++nb] = substr($i, 7)
			}
		}
		END { printf "%s %s %s %s\n", p[1] + 0, b[1] + 0, p[2] + 0, b[2] + 0 }'
}

# fp_num VALUE: VALUE if it is a number, else 0.
fp_num() {
	case $1 in
	'' | *[!0-9]*) echo 0 ;;
	*) echo "$1" ;;
	esac
}

# fp_begin / fp_end: FPD_* are the deltas of FP_* between the two calls.
fp_begin() {
	fp_read
	FP0_C2S=$FP_C2S FP0_S2C=$FP_S2C FP0_CV4=$FP_CV4 FP0_CV6=$FP_CV6 FP0_SV4=$FP_SV4 FP0_SV6=$FP_SV6
}

fp_end() {
	fp_read
	FPD_C2S=$((FP_C2S - FP0_C2S)) FPD_S2C=$((FP_S2C - FP0_S2C))
	FPD_CV4=$((FP_CV4 - FP0_CV4)) FPD_CV6=$((FP_CV6 - FP0_CV6))
	FPD_SV4=$((FP_SV4 - FP0_SV4)) FPD_SV6=$((FP_SV6 - FP0_SV6))
}

# fp_cdelta FAMILY: fast-path bytes received on the client-side device
# between fp_begin and fp_end.
fp_cdelta() { if [ "$1" = 4 ]; then echo "$FPD_CV4"; else echo "$FPD_CV6"; fi; }

# fp_sdelta FAMILY: the same on the server-side device.
fp_sdelta() { if [ "$1" = 4 ]; then echo "$FPD_SV4"; else echo "$FPD_SV6"; fi; }

# fp_stat FIELD...: global counters of "ftctl -j stats" in the router
# (fp_jget paths: flows, punted.ttl, forwarded.bytes).
fp_stat() {
	ip netns exec "$NS_ROUTER" ftctl -j stats | fp_jget "$@"
}

# fp_stats: all of "ftctl -j stats", for failure reports.
fp_stats() { ip netns exec "$NS_ROUTER" ftctl -j stats 2>&1; }

# fp_srv_udp_rx: UDP datagrams the server's netns received (neighbour
# probes and the like do not count).
# shellcheck disable=SC2016 # an awk program
fp_srv_udp_rx() {
	ip netns exec "$NS_SERVER" awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $2 }' /proc/net/snmp
}

# fp_udp_send4 PORT SPORT COUNT: COUNT IPv4 datagrams from the client's
# SPORT to the server's PORT, 50 ms apart; print how many the server
# received. Their answers may be lost.
fp_udp_send4() {
	local a
	a=$(fp_srv_udp_rx)
	ip netns exec "$NS_CLIENT" udpecho -c "$SERVER_IP4" "$1" "$3" 1000 "$2" >/dev/null 2>&1
	echo $(($(fp_srv_udp_rx) - a))
}

# fp_dev_bytes DEV FAMILY: fast-path bytes received on DEV for FAMILY.
fp_dev_bytes() {
	ip netns exec "$NS_ROUTER" ftctl -j show | fp_jget "ifname=$1.ipv$2.bytes"
}

# fp_pct PART WHOLE: PART as a percentage of WHOLE, one decimal.
fp_pct() {
	local p
	[ "$2" -gt 0 ] || { echo "n/a"; return; }
	p=$(($1 * 1000 / $2))
	echo "$((p / 10)).$((p % 10))%"
}

# fp_check_offload DESC TOTAL SLOW FAST: of a transfer of TOTAL bytes, the
# forward chain saw SLOW bytes (at most FP_SLOW_MAX_PCT %) and the fast path
# forwarded FAST bytes (at least FP_FAST_MIN_PCT %).
fp_check_offload() {
	local desc="$1" total="$2" slow="$3" fast="$4"
	log_info "$desc: $total B sent; forward chain saw $slow B ($(fp_pct "$slow" "$total")), fast path forwarded $fast B ($(fp_pct "$fast" "$total"))"
	if [ $((slow * 100)) -le $((FP_SLOW_MAX_PCT * total)) ]; then
		pass "$desc: forward chain saw <= $FP_SLOW_MAX_PCT% of the bytes"
	else
		fail "$desc: forward chain saw <= $FP_SLOW_MAX_PCT% of the bytes" \
			"forward chain: $slow B of $total B ($(fp_pct "$slow" "$total"))" \
			"(ip netns exec $NS_ROUTER nft list table inet ft_fwd)"
	fi
	if [ $((fast * 100)) -ge $((FP_FAST_MIN_PCT * total)) ]; then
		pass "$desc: fast path forwarded >= $FP_FAST_MIN_PCT% of the bytes"
	else
		fail "$desc: fast path forwarded >= $FP_FAST_MIN_PCT% of the bytes" \
			"fast path: $fast B of $total B ($(fp_pct "$fast" "$total"))" \
			"ftctl -j stats: $(fp_stats)"
	fi
}

# fp_check_slow DESC TOTAL SLOW FAST: the reverse: the forward chain saw at
# least FP_FAST_MIN_PCT % of TOTAL and the fast path at most FP_SLOW_MAX_PCT %.
fp_check_slow() {
	local desc="$1" total="$2" slow="$3" fast="$4"
	log_info "$desc: $total B sent; forward chain saw $slow B ($(fp_pct "$slow" "$total")), fast path forwarded $fast B ($(fp_pct "$fast" "$total"))"
	if [ $((slow * 100)) -ge $((FP_FAST_MIN_PCT * total)) ]; then
		pass "$desc: forward chain saw >= $FP_FAST_MIN_PCT% of the bytes"
	else
		fail "$desc: forward chain saw >= $FP_FAST_MIN_PCT% of the bytes" \
			"forward chain: $slow B of $total B ($(fp_pct "$slow" "$total"))"
	fi
	if [ $((fast * 100)) -le $((FP_SLOW_MAX_PCT * total)) ]; then
		pass "$desc: fast path forwarded <= $FP_SLOW_MAX_PCT% of the bytes"
	else
		fail "$desc: fast path forwarded <= $FP_SLOW_MAX_PCT% of the bytes" \
			"fast path: $fast B of $total B ($(fp_pct "$fast" "$total"))"
	fi
}

# check_le DESC A B / check_ge DESC A B: numeric checks with both values shown.
check_le() {
	if [ "$2" -le "$3" ]; then pass "$1"; else fail "$1" "expected $2 <= $3"; fi
}
check_ge() {
	if [ "$2" -ge "$3" ]; then pass "$1"; else fail "$1" "expected $2 >= $3"; fi
}

# check_within DESC EXPECTED ACTUAL PCT: |ACTUAL - EXPECTED| <= PCT % of EXPECTED.
check_within() {
	local d=$(($3 - $2))
	[ "$d" -ge 0 ] || d=$((-d))
	if [ "$2" -gt 0 ] && [ $((d * 100)) -le $(($4 * $2)) ]; then
		pass "$1"
	else
		fail "$1" "expected $2 +/- $4%, got $3 (off by $(fp_pct "$d" "$2"))"
	fi
}

# ------------------------------------------------------------ processes --

# fp_alive PID: PID runs (is neither gone nor a zombie).
fp_alive() {
	local st
	st=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

fp_dead() { ! fp_alive "$1"; }

fp_kill() { ! fp_alive "$1" || kill "$1" 2>/dev/null; }

# fp_run CMD...: run CMD; when it fails, print it, quoted, to reproduce.
fp_run() {
	local rc=0
	"$@" || rc=$?
	[ "$rc" -eq 0 ] || echo "failed command (exit $rc): $(quote "$@")"
	return "$rc"
}

# fp_bg NAME CMD...: run CMD in the background, output in $FP_TMP/NAME.out,
# the command line in $FP_TMP/NAME.cmd; FP_PID is its pid, killed on exit.
fp_bg() {
	local name="$1"
	shift
	quote "$@" >"$FP_TMP/$name.cmd"
	"$@" </dev/null >"$FP_TMP/$name.out" 2>&1 &
	FP_PID=$!
	defer fp_kill "$FP_PID"
}

# fp_bg_wait DESC NAME PID TIMEOUT_MS: PID (started by fp_bg NAME) ends within
# TIMEOUT_MS and exits 0.
fp_bg_wait() {
	local desc="$1" name="$2" pid="$3" rc
	if ! busywait "$4" fp_dead "$pid"; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		fail "$desc" "command: $(cat "$FP_TMP/$name.cmd")" \
			"still running after $4 ms; output:" "$(cat "$FP_TMP/$name.out")"
		return 1
	fi
	wait "$pid"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		pass "$desc"
		return 0
	fi
	fail "$desc" "exit $rc$(fp_why_exit "$rc" "$FP_TMP/$name.out")" \
		"command: $(cat "$FP_TMP/$name.cmd")" "output:" "$(cat "$FP_TMP/$name.out")"
	return 1
}

# fp_why_exit RC OUTPUT: what a failed command's exit status and output say,
# in a few words: timeout(1)'s watchdog, or iperf3's own error.
fp_why_exit() {
	local why='' err
	[ "$1" -ne 124 ] || why="the timeout watchdog ended it"
	err=$(jq -r '.error // empty' "$2" 2>/dev/null)
	[ -z "$err" ] || why="${why:+$why; }iperf3: $err"
	[ -z "$why" ] || echo " ($why)"
}

# ------------------------------------------------------------ transfers --

# fp_mkfile NAME SIZE: a file of SIZE random bytes; prints its path.
fp_mkfile() {
	head -c "$2" /dev/urandom >"$FP_TMP/$1"
	echo "$FP_TMP/$1"
}

fp_size() { wc -c <"$1" | tr -d ' '; }

# fp_listening NS tcp|udp PORT: a socket is bound (TCP: listens) on PORT.
fp_listening() {
	ip netns exec "$1" cat "/proc/net/$2" "/proc/net/${2}6" 2>/dev/null |
		awk -v p="$(printf ':%04X' "$3")" -v tcp="$([ "$2" = tcp ] && echo 1)" '
			$2 ~ (p "$") && (!tcp || $4 == "0A") { f = 1 } END { exit !f }'
}

# fp_tcp_server FAMILY PORT OUT: accept one TCP connection on PORT in the
# server netns and write what arrives to OUT; socat's log, which names the
# peer, goes to OUT.log. FP_SRV is its pid.
fp_tcp_server() {
	ip netns exec "$NS_SERVER" socat -d -d -u "TCP$1-LISTEN:$2,reuseaddr" \
		"OPEN:$3,creat,trunc" </dev/null >/dev/null 2>"$3.log" &
	FP_SRV=$!
	defer fp_kill "$FP_SRV"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$2"
}

# fp_tcp_client FAMILY DST PORT FILE [OPTS]: send FILE from the client netns
# over TCP; OPTS are socat options for the connection (",linger=0").
fp_tcp_client() { fp_tcp_client_for 30 "$@"; }

# fp_tcp_client_for SECS FAMILY DST PORT FILE [OPTS]: the same, with a limit
# of SECS (times FT_SLOWDOWN).
fp_tcp_client_for() {
	local secs="$1"
	shift
	fp_run ip netns exec "$NS_CLIENT" timeout "$(ft_secs "$secs")" \
		socat -u "OPEN:$4" "TCP$1:$(fp_sockaddr "$2" "$3")$5"
}

# fp_udp_server FAMILY PORT OUT: in the server netns, answer the first
# datagram on PORT with "ready\n", then write everything that arrives to
# OUT (log in OUT.log). Its receive buffer can hold a whole transfer
# (net.core.rmem_max, global, is raised for the test), so a reader that the
# single vCPU schedules late loses nothing. FP_SRV is its pid.
fp_udp_server() {
	local max
	max=$(sysctl -n net.core.rmem_max)
	if [ "$max" -lt 16777216 ]; then
		must sysctl -qw net.core.rmem_max=16777216
		defer sysctl -qw "net.core.rmem_max=$max"
	fi
	ip netns exec "$NS_SERVER" socat -d -d -b 65536 \
		"UDP$1-LISTEN:$2,reuseaddr,rcvbuf=8388608" \
		"SYSTEM:echo ready; exec cat >$3" </dev/null >/dev/null 2>"$3.log" &
	FP_SRV=$!
	defer fp_kill "$FP_SRV"
	must busywait 5000 fp_listening "$NS_SERVER" udp "$2"
}

# fp_udp_client FAMILY DST PORT FILE: from the client netns, send
# "hello\n", wait for the server's "ready" (so that conntrack has seen a
# reply and the flow can be offloaded), then send FILE in datagrams of
# 1400 bytes (no fragments).
fp_udp_client() {
	fp_run ip netns exec "$NS_CLIENT" timeout "$(ft_secs 30)" socat -b "$FP_UDP_DGRAM" \
		"UDP$1:$(fp_sockaddr "$2" "$3")" "SYSTEM:echo hello; read r; exec cat $4"
}

# fp_pace NS DEV RATE [BURST]: shape DEV's egress with tbf. A UDP sender
# blocks on its socket buffer instead of losing datagrams; a TCP transfer
# lasts long enough to change something mid-stream. The default burst is
# above the largest GSO packet, so tbf does not segment. A smaller one
# makes tbf segment what it enqueues; a packet it already holds that is
# larger than the bucket would never leave, so choose it before traffic.
fp_pace() {
	must ip netns exec "$1" tc qdisc replace dev "$2" root tbf rate "$3" \
		burst "${4:-256kb}" limit 8mb
}

fp_unpace() { ip netns exec "$1" tc qdisc del dev "$2" root 2>/dev/null; }

# Mid-stream tests start a stream slowly, so that it is still running when
# the test acts however slow the guest is, then let it finish fast.
FP_SLOW_RATE=${FP_SLOW_RATE:-2mbit}
FP_FAST_RATE=1gbit

# fp_check_same DESC SENT RECEIVED [DIAG...]: RECEIVED holds the same bytes
# as SENT; if not, the output of "DIAG... SENT RECEIVED" goes with the failure.
fp_check_same() {
	local desc="$1" sent="$2" got="$3" a b sa sb
	shift 3
	a=$(sha256sum <"$sent" | cut -d' ' -f1)
	b=$(sha256sum <"$got" 2>/dev/null | cut -d' ' -f1)
	sa=$(fp_size "$sent")
	sb=$(fp_size "$got" 2>/dev/null)
	if [ "$a" = "$b" ]; then
		pass "$desc"
	elif [ $# -eq 0 ]; then
		fail "$desc" "sent $sa B, sha256 $a" "got  ${sb:-no} B, sha256 $b"
	else
		fail "$desc" "sent $sa B, sha256 $a" "got  ${sb:-no} B, sha256 $b" \
			"$("$@" "$sent" "$got" 2>&1)"
	fi
}

# fp_udp_loss_where SENT GOT: for a failed UDP transfer, where the data
# went missing: the first datagram that differs, and every counter on the
# way that drops a datagram (device drops, the softnet backlog, the
# server's UDP receive errors, fasttrack's own counters).
fp_udp_loss_where() {
	local at ns drops=
	at=$(cmp "$1" "$2" 2>&1 | sed -n 's/.* differ: \(byte\|char\) \([0-9]*\).*/\2/p')
	[ -z "$at" ] ||
		echo "first difference at byte $at: datagram $(((at - 1 - 6) / FP_UDP_DGRAM + 1)) of $FP_UDP_DGRAM B after the 6 B hello"
	for ns in "$NS_CLIENT" "$NS_ROUTER" "$NS_SERVER"; do
		drops="$drops$(ip -n "$ns" -s link show | awk -v ns="${ns%%-*}" '
			/^[0-9]+:/ { dev = $2 }
			/RX:|TX:/ { dir = $1; next }
			dir != "" && $4 > 0 { printf " %s %s %s %s", ns, dev, dir, $4 }
			{ dir = "" }')"
	done
	echo "device drops:${drops:- none}; the client's pacing qdisc dropped ${FP_PACE_DROPS:-?}"
	ip netns exec "$NS_ROUTER" cat /proc/net/snmp /proc/net/snmp6 | awk '
		/^Ip:/ && !h { split($0, n); h = 1; next }
		/^Ip:/ { for (i = 2; i <= NF; i++) if (n[i] ~ /Discards|NoRoutes|Errors/) printf "%s=%s ", n[i], $i }
		/^Ip6(In|Out)(Discards|NoRoutes)/ { printf "%s=%s ", $1, $2 }
		END { print "(router)" }'
	echo "conntrack -S (router): $(ip netns exec "$NS_ROUTER" conntrack -S 2>&1 | tr -s ' \n' ' ')"
	printf 'softnet drops per CPU:'
	while read -r _ at _; do printf ' %d' "0x$at"; done </proc/net/softnet_stat
	# neighbour queues: frames dropped while an address was unresolved
	for at in arp_cache ndisc_cache; do
		printf '; %s unresolved_discards' "$at"
		awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "unresolved_discards") c = i }
			NR > 1 && c { print $c }' "/proc/net/stat/$at" |
			while read -r ns; do printf ' %d' "0x$ns"; done
	done
	echo
	ip netns exec "$NS_SERVER" cat /proc/net/snmp /proc/net/snmp6 | awk '
		/^Udp:/ && !h { split($0, n); h = 1; next }
		/^Udp:/ { for (i = 2; i <= NF; i++) if (n[i] ~ /Errors|NoPorts/) printf "%s=%s ", n[i], $i }
		/^Udp6(InErrors|RcvbufErrors|NoPorts)/ { printf "%s=%s ", $1, $2 }
		END { print "" }'
	echo "ftctl -j stats: $(fp_stats)"
}

# fp_wait_size FILE SIZE TIMEOUT_MS: FILE grows to SIZE bytes.
fp_size_is() { [ "$(fp_size "$1" 2>/dev/null)" = "$2" ]; }
fp_wait_size() { busywait "$3" fp_size_is "$1" "$2"; }

# fp_wait_srv DESC: the one-connection TCP server ($FP_SRV) has finished.
fp_wait_srv() {
	if busywait 10000 fp_dead "$FP_SRV"; then
		wait "$FP_SRV"
	else
		fail "$1: server finished" "socat server still running; log:" "$(cat "$FP_OUT.log")"
	fi
}

# fp_peer: the address:port the last server saw its client connect from.
fp_peer() {
	sed -n 's/.*accepting \(UDP \)\{0,1\}connection from AF=[0-9]* \([^ ]*\).*/\2/p' "$FP_OUT.log" | head -n 1
}

# fp_tcp_transfer DESC FAMILY FILE [DST [DPORT [SPORT]]]: send FILE over TCP
# from the client to DST:DPORT (default: the server, on SPORT), served by the
# server netns on SPORT (default: random), and check that it arrives intact.
# FP_OUT is the received copy.
fp_tcp_transfer() {
	local desc="$1" fam="$2" file="$3" dst="${4:-$(fp_server_ip "$2")}" dport="$5" sport="$6"
	[ -n "$sport" ] || fp_port sport
	FP_OUT=$file.rx$sport
	fp_tcp_server "$fam" "$sport" "$FP_OUT"
	check "$desc: transfer $(fp_size "$file") B" \
		fp_tcp_client "$fam" "$dst" "${dport:-$sport}" "$file"
	fp_wait_srv "$desc"
	fp_check_same "$desc: data intact (sha256)" "$file" "$FP_OUT"
}

# fp_tcp_fetch DESC FAMILY FILE: the other direction: the client fetches
# FILE from a server in the server netns over TCP; check it arrives intact.
# FP_FETCH_PORT is the server's port.
fp_tcp_fetch() {
	local desc="$1" fam="$2" file="$3" port
	fp_port port
	FP_OUT=$file.rx$port
	FP_FETCH_PORT=$port
	ip netns exec "$NS_SERVER" socat -d -d -u "OPEN:$file" \
		"TCP$fam-LISTEN:$port,reuseaddr" </dev/null >/dev/null 2>"$FP_OUT.log" &
	FP_SRV=$!
	defer fp_kill "$FP_SRV"
	must busywait 5000 fp_listening "$NS_SERVER" tcp "$port"
	check "$desc: transfer $(fp_size "$file") B" fp_run ip netns exec "$NS_CLIENT" timeout "$(ft_secs 30)" \
		socat -u "TCP$fam:$(fp_sockaddr "$(fp_server_ip "$fam")" "$port")" "OPEN:$FP_OUT,creat,trunc"
	fp_wait_srv "$desc"
	fp_check_same "$desc: data intact (sha256)" "$file" "$FP_OUT"
}

# fp_udp_transfer DESC FAMILY FILE [DST [DPORT [SPORT]]]: as fp_tcp_transfer,
# over UDP, paced at FP_UDP_RATE.
fp_udp_transfer() {
	local desc="$1" fam="$2" file="$3" dst="${4:-$(fp_server_ip "$2")}" dport="$5" sport="$6" exp
	[ -n "$sport" ] || fp_port sport
	FP_OUT=$file.rx$sport
	exp=$file.exp$sport
	{
		echo hello
		cat "$file"
	} >"$exp"
	fp_udp_server "$fam" "$sport" "$FP_OUT"
	# UDP has no flow control: pace the sender so that no datagram is lost
	# to a full socket buffer or backlog (the sender blocks instead).
	fp_pace "$NS_CLIENT" eth0 "$FP_UDP_RATE"
	check "$desc: transfer $(fp_size "$file") B" \
		fp_udp_client "$fam" "$dst" "${dport:-$sport}" "$file"
	fp_wait_size "$FP_OUT" "$(fp_size "$exp")" 5000
	FP_PACE_DROPS=$(ip netns exec "$NS_CLIENT" tc -s qdisc show dev eth0 |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p')
	fp_unpace "$NS_CLIENT" eth0
	fp_kill "$FP_SRV"
	fp_check_same "$desc: data intact (sha256)" "$exp" "$FP_OUT" fp_udp_loss_where
}

# fp_stream_start NAME FAMILY FILE [DST [OPTS [PORT [BURST]]]]: start
# sending FILE over TCP from the client to a new server (on PORT, default
# random) in the background, paced at FP_SLOW_RATE on the client's eth0
# (fp_pace, with BURST), so that the test can act mid-stream. FP_STREAM is
# the client's pid, FP_STREAM_PORT the port, FP_OUT the received copy.
# OPTS are socat options of the client's connection (",linger=0").
fp_stream_start() {
	local name="$1" fam="$2" file="$3" rate="$FP_SLOW_RATE" dst="${4:-$(fp_server_ip "$2")}" port="$6"
	[ -n "$port" ] || fp_port port
	FP_OUT=$file.rx$port
	FP_STREAM_PORT=$port
	fp_tcp_server "$fam" "$port" "$FP_OUT"
	fp_pace "$NS_CLIENT" eth0 "$rate" "$7"
	# A paced stream may run for longer than a transfer is allowed: a
	# slow kernel (PREEMPT_RT, emulation) acts on it late.
	fp_bg "$name" fp_tcp_client_for 90 "$fam" "$dst" "$port" "$file" "$5"
	FP_STREAM=$FP_PID
}

# fp_stream_running DESC: the stream is still running (the test acted on
# it mid-stream, not after it ended).
fp_stream_running() {
	if fp_alive "$FP_STREAM"; then
		pass "$1: the stream was still running"
	else
		fail "$1: the stream was still running" \
			"it ended before the test acted; try a lower FP_SLOW_RATE (now $FP_SLOW_RATE)"
	fi
}

# fp_stream_speedup: let the stream finish at full speed. A tbf change
# does not re-arm tbf's watchdog: a packet that waited for the tokens of
# the old rate (st_stream_pause's 8 bit/s: hours) waits for them still,
# until something else is enqueued. TCP enqueues nothing while that packet
# is the one to retransmit (still in the host queue), so the stream would
# stall; one ping through the qdisc runs it at the new rate.
fp_stream_speedup() {
	must ip netns exec "$NS_CLIENT" tc qdisc change dev eth0 root tbf \
		rate "$FP_FAST_RATE" burst 256kb limit 8mb
	ip netns exec "$NS_CLIENT" ping -q -c 1 -W 1 "$ROUTER_CLIENT_IP4" >/dev/null 2>&1 || true
}

# fp_stream_finish DESC NAME FILE: the stream started by fp_stream_start
# completes and its data arrives intact.
fp_stream_finish() {
	fp_stream_speedup
	fp_bg_wait "$1: transfer completes" "$2" "$FP_STREAM" 30000
	fp_wait_srv "$1"
	fp_unpace "$NS_CLIENT" eth0
	fp_check_same "$1: data intact (sha256)" "$3" "$FP_OUT"
}

# fp_wait_fast DEV FAMILY MIN TIMEOUT_MS: the fast path has forwarded at
# least MIN bytes received on DEV for FAMILY.
fp_fast_ge() { [ "$(fp_num "$(fp_dev_bytes "$1" "$2")")" -ge "$3" ]; }
fp_wait_fast() { busywait "$4" fp_fast_ge "$1" "$2" "$3"; }

# fp_stat_ge FIELD MIN: the ftctl stats counter FIELD is at least MIN.
fp_stat_ge() { [ "$(fp_num "$(fp_stat "$1")")" -ge "$2" ]; }
fp_stat_eq() { [ "$(fp_stat "$1")" = "$2" ]; }

# ---------------------------------------------------------------- misc --

# fp_state DEV: "ipv4=BOOL ipv6=BOOL" as "ftctl -j show" has it in the router.
fp_state() {
	# shellcheck disable=SC2046 # split into words
	set -- $(ip netns exec "$NS_ROUTER" ftctl -j show |
		fp_jget "ifname=$1.ipv4.enabled" "ifname=$1.ipv6.enabled")
	echo "ipv4=$1 ipv6=$2"
}

# fp_ip6_full ADDR: ADDR written out in full, as socat logs it
# (2001:db8::1 -> 2001:0db8:0000:0000:0000:0000:0000:0001).
fp_ip6_full() {
	echo "$1" | awk -F: '{
		n = 0
		for (i = 1; i <= NF; i++) if ($i != "") n++
		out = ""
		for (i = 1; i <= NF; i++) {
			if ($i == "") {
				if (done) continue
				for (j = 0; j < 8 - n; j++) out = out (out == "" ? "" : ":") "0000"
				done = 1
				continue
			}
			out = out (out == "" ? "" : ":") sprintf("%04s", $i)
		}
		gsub(/ /, "0", out)
		print out
	}'
}

# fp_check_peer DESC ADDR PORT_ERE: the last server saw its client at ADDR,
# from a port matching PORT_ERE.
fp_check_peer() {
	local peer want="$2"
	peer=$(fp_peer)
	case $want in *:*) want="[$(fp_ip6_full "$want")]" ;; esac
	if [ "${peer%:*}" = "$want" ] && echo "${peer##*:}" | grep -qxE "$3"; then
		pass "$1"
	else
		fail "$1" "expected a connection from $want, port /$3/" \
			"the server log says: $(grep -h accepting "$FP_OUT.log")"
	fi
}

# fp_snmp NS FAMILY FIELD: a counter of /proc/net/snmp (Icmp OutTimeExcds,
# family 4) or /proc/net/snmp6 (Icmp6OutTimeExcds, family 6) in NS.
fp_snmp() {
	if [ "$2" = 4 ]; then
		ip netns exec "$1" cat /proc/net/snmp | awk -v f="$3" '
			$1 == "Icmp:" && !h { for (i = 2; i <= NF; i++) if ($i == f) c = i; h = 1; next }
			$1 == "Icmp:" && h { print $c; exit }'
	else
		ip netns exec "$1" cat /proc/net/snmp6 | awk -v f="Icmp6$3" '$1 == f { print $2 }'
	fi
}

# fp_ct_state PROTO PORT: the state conntrack has in the router for the
# connection to destination PORT ("gone" when it has no entry).
fp_ct_state() {
	local out
	out=$(ip netns exec "$NS_ROUTER" conntrack -L -p "$1" --dport "$2" 2>/dev/null)
	if [ -z "$out" ]; then
		echo gone
	else
		echo "$out" | awk '{ print ($4 ~ /^[A-Z_]+$/) ? $4 : "NONE" }' | head -n 1
	fi
}

# fp_masq_chain: the nft chain, for a table of family ip or ip6, in which
# the router masquerades TCP and UDP to the server behind its server-side
# address, to ports 20000-29999 (fastpath_nat, fastpath_nat_csum).
fp_masq_chain() {
	cat <<-EOF
		chain post {
			type nat hook postrouting priority srcnat;
			oifname "$ROUTER_SERVER_DEV" meta l4proto { tcp, udp } masquerade to :20000-29999
		}
	EOF
}

# fp_csum_offload on|off: checksum offload of every veth of the topology.
# With it off, hosts send complete L4 checksums and every receiver checks
# them in software (a veth otherwise marks them as already verified), so a
# NAT rewrite that leaves a wrong checksum makes the receiver drop the
# packet. Sending full checksums also turns off TSO: no GSO packets.
fp_csum_offload() {
	local mode="$1" d
	set -- "$NS_CLIENT eth0" "$NS_SERVER eth0"
	if [ "$ROUTER_SERVER_DEV" = wan0 ]; then
		set -- "$@" "$NS_ROUTER $ROUTER_TRUNK_DEV" "$NS_SWITCH swp22" \
			"$NS_SWITCH swtrunk" "$NS_ROUTER wan0"
	elif [ -n "$NS_SWITCH" ]; then
		set -- "$@" "$NS_ROUTER $ROUTER_TRUNK_DEV" "$NS_SWITCH swp22" \
			"$NS_SWITCH swp2222" "$NS_SWITCH swtrunk"
	else
		set -- "$@" "$NS_ROUTER $ROUTER_CLIENT_DEV" "$NS_ROUTER $ROUTER_SERVER_DEV"
	fi
	for d in "$@"; do
		must ip netns exec "${d% *}" ethtool -K "${d#* }" rx "$mode" tx "$mode"
	done
}
