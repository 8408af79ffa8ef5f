#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Malformed input for offloaded flows. On router-on-a-stick with a realistic
# forward ruleset, a TCP and a UDP connection per family are offloaded. Then
# ftinject (selftests/ftinject.c), on the switch's trunk port towards the
# router (so that it can craft VLAN tags), sends frames in the connection's
# tuple: truncated at and inside every header, bad IHL, IPv4 options, IPv6
# extension headers, fragments, bogus and double VLAN tags, zero and maximum
# lengths, bad checksums, TCP flag combinations (`ftinject --list` names them
# all). For every case:
#   - the kernel survives (no splat);
#   - the fast path forwards only what it should: the ingress device's
#     forwarded counter grows by one for a well-formed packet, else not;
#   - the punt counter of the case's reason grows by the frames sent, and no
#     other reason moves (unknown and no_entry may: ND, ICMP and replies);
#   - the server receives what it receives when the same case is sent with
#     fasttrack disabled, that is to the stack alone, but for the known
#     divergences below.
# Afterwards the connection still works and is offloaded again.
# With FP_XDP=1 (malformed_xdp), the XDP tier runs on the router's trunk:
# every frame meets it first, and what it passes up must give the same.
# Cases go out in batches of the same expected outcome, each ended by a fence
# (an echo request through the router, answered), so the counters are read
# once its frames are handled; a batch that goes wrong is sent again case by
# case to name the culprit. The server counts per case by the IPv4 ID or
# IPv6 flow label, which ftinject sets per case. FT_MALFORMED_GROUPS limits
# the run, e.g. "ipv4/tcp ipv6/udp".
# shellcheck disable=SC3043 # dash has "local"
. "$(dirname "$0")/lib.sh"

require_cmd ftinject ftctl nft socat mkfifo jq
FTINJECT=$(command -v ftinject)

# Cases the fast path forwards but the stack with this ruleset drops: their
# conntrack state is INVALID (bad L4 checksum), which the forward chain's
# "ct state invalid drop" rejects, and the fast path does not check, like
# the kernel's nf_flow_table. "L4:case" words.
KNOWN_DIVERGENT=${FT_MALFORMED_DIVERGENT-"tcp:l4-csum-bad udp:l4-csum-bad tcp:l4-csum-zero
	tcp:len-minus-1"}

in_router() { ip netns exec "$NS_ROUTER" "$@"; }

# expect CASE: set WANT to what the fast path must do with each frame of
# CASE, sent tagged for the flow in $L4: "fwd" (forward it), a punt reason
# (the counter that must grow), or "none" (no enabled device sees it). No
# output, so no subshell: it runs for every case.
expect() {
	case $1 in
	valid | ttl-2 | pad-trailer | len-mtu | ipv4-df | ipv4-evil-bit | vlan-dei | \
	udp-len-short | tcp-opts-* | l4-csum-* | \
	flags-ack | flags-urg-ack | flags-ece-cwr)
		WANT=fwd ;;
	len-minus-1)
		# Trimmed to the IP length: TCP is then only a bad checksum.
		if [ "$L4" = tcp ]; then WANT=fwd; else WANT=malformed; fi ;;
	# (A tag needs 2 bytes after it, or skb_vlan_untag() drops the frame.)
	trunc-eth | trunc-l3-1 | \
	trunc-vlan | vlan-none | vlan-prio | vlan-wrong | vlan-qinq | vlan-stag | vlan-9100)
		WANT=none ;;
	ttl-*) WANT=ttl ;;
	frag-*) WANT=fragment ;;
	ihl-15-short | opt-* | ext-*) WANT=options ;;
	proto-* | mac-* | vlan-double) WANT=unknown ;;
	vlan-other) WANT=no_entry ;;
	flags-*) WANT=tcp_flags ;;
	*) WANT=malformed ;;
	esac
}

STRICT="fragment options ttl malformed tcp_flags mtu not_writable stale"

# snap: "fwd fragment options ttl malformed tcp_flags mtu not_writable stale
# unknown no_entry": the fast path's forwards on vlan22 (both tiers: a
# family's "xdp" packets are a part of its packets), the punt counters.
# (No jq here: it takes two seconds to start in the guest.)
snap() {
	{ in_router ftctl -j stats && in_router ftctl -j show vlan22; } |
		tr '{},[]' '\n\n\n\n\n' | awk -F: '
		/"ifname"/ { dev = 1 }
		dev && /"xdp":/ { xdp = 1 }
		dev && /"packets"/ { if (!xdp) fwd += $2; xdp = 0 }
		!dev && NF == 2 { gsub(/[" \t]/, "", $1); v[$1] = $2 + 0 }
		END {
			printf "%d", fwd
			n = split("fragment options ttl malformed tcp_flags mtu not_writable stale unknown no_entry", k, " ")
			for (i = 1; i <= n; i++)
				printf " %d", v[k[i]]
			printf "\n"
		}'
}

# server_rx: the packets the server got from the client's address.
server_rx() {
	ip netns exec "$NS_SERVER" nft list counters table netdev ftsrv |
		awk '{ for (i = 1; i < NF; i++) if ($i == "packets") n += $(i + 1) } END { print n + 0 }'
}

# server_by_id: "ID PACKETS" per IPv4 ID and IPv6 flow label the server got.
server_by_id() {
	{
		ip netns exec "$NS_SERVER" nft list set netdev ftsrv id4
		ip netns exec "$NS_SERVER" nft list set netdev ftsrv id6
	} | tr ',{}' '\n\n\n' | awk '{
		for (i = 2; i + 2 <= NF; i++)
			if ($i == "counter" && $(i + 1) == "packets")
				print $(i - 1), $(i + 2)
	}'
}

# inject CASES [FTINJECT OPTIONS...]: send the (comma-separated) cases for the
# current flow on the trunk, tagged as the switch sends VLAN 22, then fence.
# Prints "CASE FRAMES ID" per case.
inject() {
	local c=$1
	shift
	ip netns exec "$NS_SWITCH" "$FTINJECT" swtrunk --vlan 22 --alt-vlan 2222 \
		--dst-mac "$ROUTER_MAC" --src-mac "$CLIENT_MAC" $SPEC --id "$ID_BASE" \
		--case "$c" --fence "$@"
}

# sync_seq: put the injected segments of $SPEC 2^30 ahead of the open
# connection's next sequence number, acking the server's. Conntrack drops
# an RST whose sequence number is behind the server's last ACK: with a
# fixed --seq that depended on the random ISN, and the fast path and stack
# passes (two connections) could disagree. Far ahead, no injected byte is
# ever accepted by the server, so the real stream stays as it was.
sync_seq() {
	local nums
	nums=$(ip netns exec "$NS_SWITCH" "$FTINJECT" swtrunk --vlan 22 \
		--dst-mac "$ROUTER_MAC" --src-mac "$CLIENT_MAC" $SPEC \
		--id $((ID_BASE + 3999)) --probe-seq 2>&1) ||
		{ fail "$1: the server answers an out-of-window ACK" "$nums"; return; }
	set -- $nums
	SPEC=$(echo "$SPEC" | sed 's/ --seq [0-9]* --ack [0-9]*//')
	SPEC="$SPEC --seq $((($1 + 1073741824) % 4294967296)) --ack $2"
}

# inject_untagged CASES: the same from the client's port, untagged.
inject_untagged() {
	ip netns exec "$NS_CLIENT" "$FTINJECT" eth0 \
		--dst-mac "$ROUTER_MAC" --src-mac "$CLIENT_MAC" $SPEC --id "$ID_BASE" \
		--case "$1" --fence
}

# judge WANT FRAMES BEFORE AFTER: print what is wrong if the counters did
# not move as WANT says for FRAMES frames.
# shellcheck disable=SC2034 # the d_* are read through eval
judge() {
	local want=$1 n=$2 d why='' r v
	d=$(printf '%s\n%s\n' "$3" "$4" | awk 'NR == 1 { split($0, b) }
		NR == 2 { for (i = 1; i <= NF; i++) printf "%d ", $i - b[i] }')
	# shellcheck disable=SC2086
	set -- $d
	d_fwd=$1 d_fragment=$2 d_options=$3 d_ttl=$4 d_malformed=$5 d_tcp_flags=$6
	d_mtu=$7 d_not_writable=$8 d_stale=$9
	shift 9
	d_unknown=$1 d_no_entry=$2
	for r in $STRICT; do
		eval "v=\$d_$r"
		if [ "$r" = "$want" ]; then
			[ "$v" -eq "$n" ] || why="$why punted.$r +$v, expected +$n;"
		else
			[ "$v" -eq 0 ] || why="$why punted.$r +$v, expected +0;"
		fi
	done
	case $want in
	unknown | no_entry)
		eval "v=\$d_$want"
		[ "$v" -ge "$n" ] || why="$why punted.$want +$v, expected at least +$n;" ;;
	esac
	if [ "$want" = fwd ]; then
		[ "$d_fwd" -eq "$n" ] || why="$why fast path forwarded $d_fwd, expected $n;"
	else
		[ "$d_fwd" -eq 0 ] || why="$why fast path forwarded $d_fwd, expected 0;"
	fi
	printf '%s' "$why"
}

frames() { awk '{ n += $2 } END { print n + 0 }'; }

# per_case IDS: from server_by_id on stdin, less $TMP/ids.before, print
# "CASE PACKETS" for each "CASE FRAMES ID" line of the file IDS.
per_case() {
	{ sed 's/^/was /' "$TMP/ids.before"; sed 's/^/now /'; sed 's/^/case /' "$1"; } |
		awk '$1 == "was" { was[$2] = $3 } $1 == "now" { got[$2] = $3 - was[$2] }
		     $1 == "case" { print $2, got[$4] + 0 }'
}

# ft_case GROUP WANT CASE: one case alone, to find which of a batch failed.
ft_case() {
	local before out why
	before=$(snap)
	out=$(inject "$3" --id $((ID_BASE + 2000)) 2>&1) || { fail "$1: $3: ftinject" "$out"; return; }
	why=$(judge "$2" "$(echo "$out" | frames)" "$before" "$(snap)")
	[ -z "$why" ] && return 1
	fail "$1: $3 ($2)" "$why" "reproduce: ip netns exec NS_SWITCH $FTINJECT swtrunk" \
		"  --vlan 22 --alt-vlan 2222 --dst-mac $ROUTER_MAC --src-mac $CLIENT_MAC $SPEC --case $3"
}

# ------------------------------------------------------------------ passes --

# ft_pass GROUP CASE...: the cases against the offloaded flow, in batches
# of the same expected outcome, in the order of the list (a failed batch is
# run again case by case). What the server got per case goes to FILE.ft.
ft_pass() {
	local g=$1 res wants='' want list c out before after why failed=0 found
	shift
	res=$TMP/$(echo "$g" | tr / -)
	: >"$res.ids"
	for c in "$@"; do
		expect "$c"
		case " $wants " in *" $WANT "*) ;; *) wants="$wants $WANT" ;; esac
		eval "l_$WANT=\"\${l_$WANT:+\$l_$WANT,}$c\""
	done
	# Forwarded cases first: a FIN or RST batch tears the flow down.
	case " $wants " in
	*" fwd "*) wants="fwd$(for want in $wants; do [ "$want" = fwd ] || printf ' %s' "$want"; done)" ;;
	esac
	server_by_id >"$TMP/ids.before"
	before=$(snap)
	for want in $wants; do
		eval "list=\$l_$want; l_$want="
		if ! out=$(inject "$list" 2>&1); then
			fail "$g: $want cases: ftinject" "$out"
			failed=1
			before=$(snap)
			continue
		fi
		printf '%s\n' "$out" >>"$res.ids"
		after=$(snap)
		why=$(judge "$want" "$(echo "$out" | frames)" "$before" "$after")
		before=$after
		[ -n "$why" ] || continue
		failed=1
		log_info "$g: the $want batch went wrong:$why; case by case:"
		found=0
		for c in $(echo "$list" | tr , ' '); do
			ft_case "$g" "$want" "$c" && found=1
		done
		[ "$found" = 1 ] || fail "$g: $want cases ($list)" "$why"
		before=$(snap)
	done
	server_by_id | per_case "$res.ids" >"$res.ft"
	[ "$failed" = 1 ] ||
		pass "$g: $# cases forwarded or punted as expected"
}

# stack_pass GROUP CASE...: the same cases with fasttrack disabled; the
# server must get what it got in the fast path pass.
stack_pass() {
	local g=$1 res out list='' c want got bad=0 diverged=''
	shift
	res=$TMP/$(echo "$g" | tr / -)
	for c in "$@"; do
		list="$list${list:+,}$c"
	done
	server_by_id >"$TMP/ids.before"
	if ! out=$(inject "$list" 2>&1); then
		fail "$g: ftinject (stack)" "$out"
		return
	fi
	printf '%s\n' "$out" >"$res.stack-ids"
	server_by_id | per_case "$res.stack-ids" >"$res.stack"
	while read -r c want; do
		got=$(awk -v c="$c" '$1 == c { print $2 }' "$res.stack")
		[ "$got" = "$want" ] && continue
		case " $(echo $KNOWN_DIVERGENT) " in
		*" $L4:$c "*)
			diverged="$diverged $c"
			continue ;;
		esac
		fail "$g: $c: the server got $want packets through the fast path, $got from the stack alone" \
			"the router's conntrack entry: $(in_router conntrack -L -p "$L4" --sport "$SPORT" 2>/dev/null)" \
			"conntrack -S: $(in_router conntrack -S 2>&1 | tr -s ' \n' ' ')"
		bad=$((bad + 1))
	done <"$res.ft"
	[ -z "$diverged" ] ||
		log_info "$g: known divergence (fast path forwards, the ruleset drops INVALID):$diverged"
	[ "$bad" -ne 0 ] || pass "$g: the server gets what the stack alone delivers"
}

# ------------------------------------------------------------ connections --

# conn_open NAME: a connection of $L4/$FAM from the client's port $SPORT to
# the server's $DPORT. The client sends what is written to fd 7; for UDP, the
# server sends what is written to fd 8 (a reply makes the flow eligible). The
# server echoes nothing by itself: each packet that moves is one the test
# sent.
conn_open() {
	local name=$1 v cdst sdst
	if [ "$FAM" = ipv4 ]; then
		v=4 cdst=$CLIENT_IP4 sdst=$SERVER_IP4
	else
		v=6 cdst="[$CLIENT_IP6]" sdst="[$SERVER_IP6]"
	fi
	if [ "$L4" = tcp ]; then
		ip netns exec "$NS_SERVER" socat -u "TCP$v-LISTEN:$DPORT,reuseaddr" \
			"OPEN:$TMP/$name.rx,creat,append" 2>"$TMP/$name.server.log" &
		defer kill $!
		must busywait 5000 bound tcp "$DPORT"
	else
		mkfifo "$TMP/$name.srv"
		ip netns exec "$NS_SERVER" socat -u "OPEN:$TMP/$name.srv" \
			"UDP$v-SENDTO:$cdst:$SPORT,sourceport=$DPORT,reuseaddr" 2>"$TMP/$name.server.log" &
		defer kill $!
		exec 8>"$TMP/$name.srv"
		must busywait 5000 bound udp "$DPORT"
	fi
	# UDP: not a connected socket, which an ICMP error (the router sends
	# some for the garbage) would close.
	mkfifo "$TMP/$name.in"
	ip netns exec "$NS_CLIENT" socat -u "OPEN:$TMP/$name.in" \
		"$(echo "$L4" | tr a-z A-Z)$v$([ "$L4" = tcp ] || echo -SENDTO):$sdst:$DPORT,sourceport=$SPORT,reuseaddr" \
		2>"$TMP/$name.client.log" &
	CLIENT_PID=$!
	defer kill "$CLIENT_PID"
	exec 7>"$TMP/$name.in"
}

conn_close() {
	exec 7>&- 8>&-
	kill "$CLIENT_PID" 2>/dev/null
	wait "$CLIENT_PID" 2>/dev/null
	return 0
}

bound() {
	ip netns exec "$NS_SERVER" cat "/proc/net/${1}6" "/proc/net/$1" 2>/dev/null |
		awk -v p="$(printf ':%04X' "$2")" '$2 ~ p "$" { f = 1 } END { exit !f }'
}

dev_fwd() { snap | cut -d' ' -f1; }

counter_above() { [ "$($2)" -gt "$1" ]; }

# offloaded: a message of the client reached the server through the fast
# path (for UDP, the server answers each message).
offloaded() {
	local fwd rx
	fwd=$(dev_fwd)
	rx=$(server_rx)
	echo "message" >&7 || return 1
	busywait 3000 counter_above "$rx" server_rx || return 1
	[ "$L4" = tcp ] || echo "reply" >&8 || return 1
	[ "$(dev_fwd)" -gt "$fwd" ]
}

ft_on() {
	in_router ftctl enable vlan22 && in_router ftctl enable vlan2222
}

# xdp_seen: what the XDP tier forwarded on vlan22 so far, both families:
# disabling the device drops its counters.
xdp_seen() {
	[ "${FP_XDP:-0}" = 1 ] || return 0
	XDP_SEEN=$((XDP_SEEN + $(xdp_bytes vlan22 4) + $(xdp_bytes vlan22 6)))
}

ft_off() {
	xdp_seen
	in_router ftctl disable vlan22 && in_router ftctl disable vlan2222
}

# next_conn: the next connection's ports, in $SPEC too.
next_conn() {
	SPORT=$((SPORT + 1)) DPORT=$((DPORT + 1))
	SPEC=$(echo "$SPEC" | sed "s/--sport [0-9]*/--sport $SPORT/; s/--dport [0-9]*/--dport $DPORT/")
}

# client_cached: the cached directions from the client's port $SPORT.
client_cached() {
	in_router ftctl -j flows | jq --argjson p "$SPORT" '[.[] | select(.sport == $p)] | length'
}

# syn_reuse GROUP: a SYN in the tuple of an offloaded TCP connection (a
# reused tuple, which conntrack ignores while the connection is
# established) sends the client's direction back to the stack and is not
# learned from: conntrack must see what follows it.
syn_reuse() {
	local g="$1 SYN on a reused tuple" out
	next_conn
	conn_open "$GROUP_N-syn"
	check "$g: the connection is offloaded" busywait 20000 offloaded
	check_eq "$g: the client's direction is cached" 1 "$(client_cached)"
	ID_BASE=$((GROUP_N * 4000 + 3000))
	sync_seq "$g"
	if out=$(inject flags-syn 2>&1); then
		check_eq "$g: the client's direction is not cached again" 0 "$(client_cached)"
	else
		fail "$g: ftinject" "$out"
	fi
	conn_close
}

# group FAM L4: all cases for one offloaded connection.
group() {
	local g="$1/$2" main flags c t0
	FAM=$1 L4=$2
	GROUP_N=$((GROUP_N + 1))
	SPORT=$((40000 + GROUP_N * 10)) DPORT=$((5000 + GROUP_N * 10))
	if [ "$FAM" = ipv4 ]; then
		SPEC="--proto ipv4 --src $CLIENT_IP4 --dst $SERVER_IP4"
	else
		SPEC="--proto ipv6 --src $CLIENT_IP6 --dst $SERVER_IP6"
	fi
	SPEC="$SPEC --l4 $L4 --sport $SPORT --dport $DPORT"
	main=$("$FTINJECT" --list $SPEC --vlan 22 --alt-vlan 2222 | grep -v '^flags-')
	flags=$("$FTINJECT" --list $SPEC --vlan 22 | grep '^flags-')

	log_info "$g: $(echo "$main" "$flags" | wc -w) cases, flow port $SPORT -> $DPORT"
	t0=$(now_ms)
	conn_open "$GROUP_N"
	check "$g: the connection is offloaded" busywait 20000 offloaded
	# Per group 4000 ids: fast path, flags, stack, flags on the stack at
	# +0, +500, +1000, +1500; single cases again at +2000.
	ID_BASE=$((GROUP_N * 4000))
	# shellcheck disable=SC2086
	ft_pass "$g" $main
	check "$g: still offloaded after the garbage" offloaded

	# Without a tag, a frame with less than 2 bytes of L3 reaches vlan22
	# when the switch's tag comes beside the frame. In the frame, the
	# kernel's untagging (skb_vlan_untag()) drops those under 2 bytes
	# before any hook, with or without fasttrack.
	short=trunc-eth,trunc-l3-1,trunc-l3-2 shortdesc="0, 1 and 2"
	if [ "${XDP_TAGS_IN_FRAME:-0}" = 1 ]; then
		short=trunc-l3-2 shortdesc=2
	fi
	before=$(snap)
	if ! out=$(inject_untagged "$short" 2>&1); then
		fail "$g: truncated L3 from the client's port: ftinject" "$out"
	else
		why=$(judge malformed "$(echo "$out" | frames)" "$before" "$(snap)")
		if [ -z "$why" ]; then
			pass "$g: $shortdesc bytes of L3 from the client's port: malformed"
		else
			fail "$g: $shortdesc bytes of L3 from the client's port" "$why"
		fi
	fi

	must ft_off
	ID_BASE=$((GROUP_N * 4000 + 1000))
	# shellcheck disable=SC2086
	stack_pass "$g" $main
	must ft_on
	check "$g: offloaded again after the stack pass" busywait 20000 offloaded
	conn_close

	log_info "$g: $((($(now_ms) - t0) / 1000)) s"
	[ -n "$flags" ] || return 0
	t0=$(now_ms)
	# TCP flags change conntrack's state: a fresh connection for each pass.
	next_conn
	conn_open "$GROUP_N-flags"
	check "$g flags: the connection is offloaded" busywait 20000 offloaded
	ID_BASE=$((GROUP_N * 4000 + 500))
	sync_seq "$g flags"
	# shellcheck disable=SC2086
	ft_pass "$g-flags" $flags
	conn_close
	next_conn
	conn_open "$GROUP_N-flags-stack"
	check "$g flags (stack): the connection is offloaded" busywait 20000 offloaded
	ID_BASE=$((GROUP_N * 4000 + 1500))
	sync_seq "$g flags (stack)"
	must ft_off
	# shellcheck disable=SC2086
	stack_pass "$g-flags" $flags
	must ft_on
	conn_close
	[ "$L4" != tcp ] || syn_reuse "$g"
	log_info "$g flags: $((($(now_ms) - t0) / 1000)) s"
}

# ------------------------------------------------------------------- main --

ft_module_load
dmesg_mark
setup_router_on_a_stick
TMP=$(mktemp -d)
defer rm -rf "$TMP"

nft_forward_ruleset "$NS_ROUTER"
must ft_on
# malformed_xdp: the same through the XDP tier on trunk0.
XDP_SEEN=0
if [ "${FP_XDP:-0}" = 1 ]; then
	. "$(dirname "$0")/lib_fastpath.sh"
	. "$(dirname "$0")/lib_xdp.sh"
	xdp_setup
fi
# Idle connections must stay cached and tracked through a long run.
must in_router ftctl set tcp-timeout 3600 udp-timeout 3600
must in_router sysctl -qw net.netfilter.nf_conntrack_udp_timeout=3600
must in_router sysctl -qw net.netfilter.nf_conntrack_udp_timeout_stream=3600

# What the server receives from the client's address, fences excluded: in
# all, and per case (ftinject puts the case's id in the IPv4 ID or IPv6 flow
# label).
must ip netns exec "$NS_SERVER" nft -f - <<-EOF
	table netdev ftsrv {
		counter rx4 { }
		counter rx6 { }
		set id4 { typeof ip id; flags dynamic; counter; size 65535; }
		set id6 { typeof ip6 flowlabel; flags dynamic; counter; size 65535; }
		chain in {
			type filter hook ingress device "eth0" priority 0;
			icmp type echo-request return
			icmpv6 type echo-request return
			ip saddr $CLIENT_IP4 ip daddr $SERVER_IP4 counter name rx4 update @id4 { ip id }
			ip6 saddr $CLIENT_IP6 ip6 daddr $SERVER_IP6 counter name rx6 update @id6 { ip6 flowlabel }
		}
	}
EOF

ROUTER_MAC=$(in_router cat /sys/class/net/vlan22/address)
CLIENT_MAC=$(ip netns exec "$NS_CLIENT" cat /sys/class/net/eth0/address)
GROUP_N=0

for g in ${FT_MALFORMED_GROUPS:-ipv4/tcp ipv4/udp ipv6/tcp ipv6/udp}; do
	group "${g%/*}" "${g#*/}"
done

if [ "${FP_XDP:-0}" = 1 ]; then
	xdp_seen
	check_ge "the XDP tier forwarded frames of the connections" "$XDP_SEEN" 1
fi
check_dmesg_clean "no kernel splat"
ft_exit
