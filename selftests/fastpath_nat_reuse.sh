#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# A NAT binding reused by another client right after conntrack forgot the
# first one. The router source-NATs UDP to the server ports of the test to
# ONE address and ONE port (its server-side address, port 40000), so every
# client's connection to a server port gets the same binding. Two clients
# on VLAN 22, A (198.18.22.2) and B (198.18.22.3), and a UDP echo server.
# Per round, on a fresh server port:
#  - A exchanges datagrams with the server until both directions are
#    offloaded, then stops; its entries stay cached;
#  - "conntrack -F" in the router, and at once B exchanges datagrams with
#    the same server port. conntrack gives B the binding A had;
#  - B gets all its answers, and A gets none of them: the fast path must
#    not send B's answers to A with A's cached reply direction.
# Three rounds per family; IPv6 with NAT66 when nft accepts it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

ROUNDS=3
NAT_PORT=40000
CLIENT2_IP4=198.18.22.3 CLIENT2_IP6=2001:db8:22::3

fp_init
require_cmd udpecho
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV

# Client B: a second host on VLAN 22.
setup_ns NS_CLIENT2
must ip -n "$NS_CLIENT2" link add eth0 type veth peer name swp22b netns "$NS_SWITCH"
must ip -n "$NS_SWITCH" link set swp22b master br0 up
must bridge -n "$NS_SWITCH" vlan add dev swp22b vid 22 pvid untagged
host_side "$NS_CLIENT2" eth0 "$CLIENT2_IP4" "$CLIENT2_IP6" "$ROUTER_CLIENT_IP4" "$ROUTER_CLIENT_IP6"
must busywait 10000 ping_ok "$NS_CLIENT2" "$SERVER_IP4"
must busywait 10000 ping_ok "$NS_CLIENT2" "$SERVER_IP6"

# The server ports of the rounds, per family: base+1 .. base+ROUNDS.
fp_rand base4 10000 30000
fp_rand base6 30001 50000

# nat_table FAMILY(ip|ip6) ADDR BASE: SNAT of the rounds' ports to ADDR:40000.
nat_table() {
	ip netns exec "$NS_ROUTER" nft -f - <<-EOF
		table $1 st_nat {
			chain post {
				type nat hook postrouting priority srcnat;
				oifname "$sdev" udp dport $(($3 + 1))-$(($3 + ROUNDS)) snat to $2:$NAT_PORT
			}
		}
	EOF
}

# A's eth0 counts what comes back from the server ports (table inet st_a).
must ip netns exec "$NS_CLIENT" nft -f - <<-EOF
	table inet st_a {
		counter back { }
		chain pre {
			type filter hook prerouting priority -500;
			udp sport { $((base4 + 1))-$((base4 + ROUNDS)), $((base6 + 1))-$((base6 + ROUNDS)) } counter name "back"
		}
	}
EOF
a_back() { fp_num "$(fp_nft_packets "$NS_CLIENT" "inet st_a" back)"; }

# binding FAMILY PORT: the NAT binding of the router's entries to PORT, as
# "ADDR:PORT" of their reply destination, one per line.
binding() {
	st_ct "$1" udp "$2" | awk '{
		n = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^dst=/) { n++; if (n == 2) a = substr($i, 5) }
			if ($i ~ /^dport=/ && n == 2) { print a ":" substr($i, 7); break }
		}
	}'
}

for fam in 4 6; do
	if [ "$fam" = 4 ]; then
		nfam=ip raddr=$ROUTER_SERVER_IP4 base=$base4
	else
		nfam=ip6 raddr=$ROUTER_SERVER_IP6 base=$base6
	fi
	srv=$(fp_server_ip "$fam")
	if [ "$fam" = 4 ]; then baddr=$raddr; else baddr="[$raddr]"; fi
	if ! out=$(nat_table "$nfam" "$baddr" "$base" 2>&1); then
		if [ "$fam" = 6 ]; then
			log_info "SKIP: NAT66: nft rejects the IPv6 NAT table: $out"
			continue
		fi
		fail "setup: IPv4 NAT table" "nft -f: $out"
		fp_exit
	fi

	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		port=$((base + r))
		desc="IPv$fam round $r (port $port)"
		fp_bg "echo$fam$r" ip netns exec "$NS_SERVER" udpecho -s "$port"
		echo_pid=$FP_PID
		must busywait 5000 fp_listening "$NS_SERVER" udp "$port"

		fast0=$(st_fast "$fam")
		check "$desc: client A gets its 20 answers" fp_run ip netns exec "$NS_CLIENT" \
			udpecho -c "$srv" "$port" 20 "$(($(ft_secs 5) * 1000))"
		check_ge "$desc: the fast path carried A's exchange" "$(st_fast "$fam")" $((fast0 + 1))
		check_eq "$desc: A's two directions are cached" 2 "$(st_flows_of "$port")"
		check_eq "$desc: A's binding is the router's port $NAT_PORT" "$raddr:$NAT_PORT" \
			"$(binding "$fam" "$port")"

		back0=$(a_back)
		# B right after the flush: nothing in between but process start.
		st_act flush sh -c "conntrack -F && ip netns exec $NS_CLIENT2 udpecho -c $srv $port 10 $(($(ft_secs 2) * 1000))"
		if [ "$ST_ACT_RC" = 0 ]; then
			pass "$desc: client B, right after conntrack -F, gets all its 10 answers"
		else
			fail "$desc: client B, right after conntrack -F, gets all its 10 answers" \
				"command (in $NS_ROUTER): $(cat "$FP_TMP/flush.cmd")" \
				"exit $ST_ACT_RC, output:" "$(cat "$FP_TMP/flush.out")"
		fi
		check_eq "$desc: B got A's binding" "$raddr:$NAT_PORT" "$(binding "$fam" "$port")"
		check_eq "$desc: none of B's answers went to A" "$back0" "$(a_back)"
		fp_kill "$echo_pid"
		r=$((r + 1))
	done
done

fp_exit
