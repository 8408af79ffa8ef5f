# SPDX-License-Identifier: GPL-2.0
# make bench, section "covering": route changes that do cover a cached
# flow. Sourced by bench/guest/bench.sh (pktgen topology, bn_setup_pktgen).
#
# One UDP flow, client -> 198.18.250.2 (2001:db8:250::2), cached by the
# path, 1 000 frames per second of guest time from pktgen. The router
# reaches 198.18.250.0/24 (2001:db8:250::/64) through gateway G1 on VLAN
# 2222; G2 is a second one. Both are permanent neighbours with MACs of
# their own, and the generator's tcpdump tells from each frame's
# destination MAC which way the router sent it. In the middle of the
# stream, one change moves the flow to G2:
#   more     ip route add 198.18.250.2/32 via G2 (more specific)
#   replace  ip route replace 198.18.250.0/24 via G2
#   nexthop  ip nexthop replace ID via G2 (the route is "nhid ID")
# The change's moment is the router's netlink traffic, captured on an nlmon
# device with the same clock as the frames: from the request reaching the
# kernel to its ACK. Reported: frames sent via G1 after the ACK (target 0),
# which frame after the ACK was the first via G2 (target: the next one, 1)
# and the time from the ACK to the first frame via G2 (negative: within
# the window), the frames within the window and how many of them went via
# G1 (the change takes effect at some moment in it), and the fast-path share
# before and after.
#
# Settings (ft.quick=1 picks the defaults in brackets):
#   ft.covfams=F,...   families (4,6) [4]
#   ft.covpaths=P,...  paths (fasttrack,nfftc)
# shellcheck shell=sh disable=SC3043,SC2086,SC2046,SC2013 # dash has "local"; $(...) splits on purpose

COV_FAMS=4,6 COV_PATHS=fasttrack,nfftc
for arg in $(cat /proc/cmdline); do
	case $arg in ft.quick=1) COV_FAMS=4 ;; esac
done
for arg in $(cat /proc/cmdline); do
	case $arg in
	ft.covfams=*) COV_FAMS=${arg#*=} ;;
	ft.covpaths=*) COV_PATHS=${arg#*=} ;;
	esac
done

COV_DIR=/tmp/covering
COV_PPS=1000 COV_PRE=500 COV_LIVE=1000 COV_POST=500
COV_GAP=$((1000000000 / COV_PPS))
COV_MAC1=02:00:5e:22:00:05 COV_MAC2=02:00:5e:22:00:06
COV_NH=42

# cov_fam FAM: the family's addresses.
cov_fam() {
	if [ "$1" = 4 ]; then
		cf=-4 svc=198.18.250.2 pfx=198.18.250.0/24 host=198.18.250.2/32
		g1=198.18.222.5 g2=198.18.222.6 src=$GEN_V4
	else
		cf=-6 svc=2001:db8:250::2 pfx=2001:db8:250::/64 host=2001:db8:250::2/128
		g1=2001:db8:2222::5 g2=2001:db8:2222::6 src=$GEN_V6
	fi
}

# cov_pktgen DIR COUNT [DELAY_NS]: frames of the one flow, to the service
# (fwd) or back from it (rev).
cov_pktgen() {
	local out
	if [ "$1" = fwd ]; then
		set -- 22 "$src" "$svc" 10000 20000 "$2" "${3:-0}"
	else
		set -- 2222 "$svc" "$src" 20000 10000 "$2" "${3:-0}"
	fi
	out=$(ip netns exec "$NS_GEN" sh /bench/guest/pktgen.sh gen0 "$TRUNK_MAC" "$1" \
		"$fam" "$2" "$3" "$4" 1 "$5" 1 "$6" "$7") || bn_die "pktgen: $out"
}

cov_route_on() {
	must ip -n "$NS_ROUTER" $cf neigh replace "$g1" lladdr "$COV_MAC1" dev vlan2222 nud permanent
	must ip -n "$NS_ROUTER" $cf neigh replace "$g2" lladdr "$COV_MAC2" dev vlan2222 nud permanent
	if [ "$1" = nexthop ]; then
		must ip -n "$NS_ROUTER" $cf nexthop add id "$COV_NH" via "$g1" dev vlan2222
		must ip -n "$NS_ROUTER" $cf route add "$pfx" nhid "$COV_NH"
	else
		must ip -n "$NS_ROUTER" $cf route add "$pfx" via "$g1"
	fi
}

cov_change() {
	case $1 in
	more) echo "$cf route add $host via $g2" ;;
	replace) echo "$cf route replace $pfx via $g2" ;;
	nexthop) echo "$cf nexthop replace id $COV_NH via $g2 dev vlan2222" ;;
	esac
}

cov_route_off() {
	[ "$1" != more ] || ip -n "$NS_ROUTER" $cf route del "$host"
	ip -n "$NS_ROUTER" $cf route del "$pfx"
	[ "$1" != nexthop ] || ip -n "$NS_ROUTER" nexthop del id "$COV_NH"
	ip -n "$NS_ROUTER" $cf neigh del "$g1" dev vlan2222
	ip -n "$NS_ROUTER" $cf neigh del "$g2" dev vlan2222
}

# cov_snap PATH: "FAST SLOW RX": fasttrack's forwarded packets (0 for the
# flowtable), the forward chain's c2s packets, frames back at gen0.
cov_snap() {
	local ft=0
	[ "$1" != fasttrack ] ||
		ft=$(ip netns exec "$NS_ROUTER" ftctl -j stats | jq '.forwarded.packets // 0')
	echo "$ft $(ip netns exec "$NS_ROUTER" nft -j list counter inet ft_fwd c2s |
		jq '.nftables[] | select(.counter) | .counter.packets') $(bn_gen_rx)"
}

# cov_tcpdump NS DEV FILE [OPTION...]: capture in the background
# (COV_PIDS), once it listens.
cov_tcpdump() {
	local ns=$1 dev=$2 file=$3
	shift 3
	ip netns exec "$ns" tcpdump -i "$dev" -n -U -s 128 "$@" -w "$file" 2>"$file.err" &
	COV_PIDS="$COV_PIDS $!"
	busywait 10000 grep -q "listening on" "$file.err" || bn_die "tcpdump on $dev: $(cat "$file.err")"
}

# cov_nl_window FILE: "T_REQ T_ACK", the times of the (route or nexthop)
# request of NETLINK_ROUTE in FILE, an nlmon capture, and of the ACK that
# follows it. Each frame is a 16-byte cooked header (the netlink protocol
# in its last two bytes, big-endian) and the message (type in bytes 4-5,
# host order: little-endian here). tcpdump, which cannot decode it, dumps
# it twice, first with an ASCII column: the first two lines of hex do.
cov_nl_window() {
	tcpdump -r "$1" -tt -n -xx 2>/dev/null | awk '
		function done_pkt(   proto, type) {
			if (ts == "")
				return
			proto = substr(hex, 29, 4)
			type = substr(hex, 43, 2) substr(hex, 41, 2)
			if (proto == "0000" && req == "" && (type == "0018" || type == "0068"))
				req = ts
			else if (proto == "0000" && req != "" && ack == "" && type == "0002")
				ack = ts
			ts = ""
		}
		/^[0-9]/ { done_pkt(); ts = $1; hex = ""; lines = 0; next }
		/^[ \t]+0x/ && lines++ < 2 { for (i = 2; i <= 9 && i <= NF; i++) hex = hex $i }
		END { done_pkt(); if (req != "" && ack != "") print req, ack }'
}

# cov_frames FILE: "TS MAC" of each frame of the flow in FILE, a gen0 capture.
cov_frames() {
	tcpdump -r "$1" -tt -n -e 2>/dev/null |
		awk -v svc="$svc" 'index($0, "> " svc ".20000:") { sub(/,$/, "", $4); print $1, $4 }'
}

cov_rx_ge() { [ "$(bn_gen_rx)" -ge "$1" ]; }

# cov_case PATH FAM HOW: one change under the stream. Three pktgen runs of
# the flow, back to back: COV_PRE frames (the fast-path share before),
# COV_LIVE frames with the change once 300 of them are through, COV_POST
# frames (the share after).
cov_case() {
	local path=$1 how=$3 a b c d win lost drops res
	cov_route_on "$how"
	bn_path_on "$NS_ROUTER" "$path"
	[ "$path" != fasttrack ] ||
		ip netns exec "$NS_ROUTER" ftctl set udp-timeout 3600 >/dev/null || bn_die "ftctl set"
	cov_pktgen fwd 1
	cov_pktgen rev 1
	cov_pktgen fwd 1
	rm -rf "$COV_DIR"
	mkdir -p "$COV_DIR"
	COV_PIDS=
	cov_tcpdump "$NS_GEN" gen0 "$COV_DIR/gen.pcap" -Q in
	cov_tcpdump "$NS_ROUTER" nlmon0 "$COV_DIR/nl.pcap"
	a=$(cov_snap "$path")
	cov_pktgen fwd "$COV_PRE" "$COV_GAP"
	b=$(cov_snap "$path")
	set -- $b
	cov_pktgen fwd "$COV_LIVE" "$COV_GAP" &
	COV_STREAM=$!
	busywait 10000 cov_rx_ge $(($3 + 300)) || bn_die "the stream does not come back"
	set -- $(cov_change "$how")
	ip -n "$NS_ROUTER" "$@" || bn_die "ip $*"
	wait "$COV_STREAM" || bn_die "the pktgen stream failed"
	c=$(cov_snap "$path")
	cov_pktgen fwd "$COV_POST" "$COV_GAP"
	d=$(cov_snap "$path")
	kill -INT $COV_PIDS
	wait $COV_PIDS
	drops=$(cat "$COV_DIR"/*.err | awk '/dropped by kernel/ { n += $1 } END { print n + 0 }')
	win=$(cov_nl_window "$COV_DIR/nl.pcap")
	[ -n "$win" ] || bn_die "no route request and ACK in the nlmon capture:
$(tcpdump -r "$COV_DIR/nl.pcap" -tt -n -xx 2>&1 | head -n 60)"
	cov_frames "$COV_DIR/gen.pcap" >"$COV_DIR/frames"
	set -- $win $a $b $c $d
	# $1 $2: request, ACK; then FAST SLOW RX before each run and after the last
	lost=$((COV_PRE + COV_LIVE + COV_POST - (${14} - $5)))
	res=$(awk -v req="$1" -v ack="$2" -v m1="$COV_MAC1" -v m2="$COV_MAC2" -v path="$path" \
		-v pre_fast="$(($6 - $3))" -v pre_slow="$(($7 - $4))" -v pre_rx="$(($8 - $5))" \
		-v post_fast="$((${12} - $9))" -v post_slow="$((${13} - ${10}))" -v post_rx="$((${14} - ${11}))" '
		{ n++; t = $1 + 0 }
		$2 != m1 && $2 != m2 { other++ }
		t < req { before++; if ($2 == m1) old_before++; next }
		t <= ack {
			window++
			if ($2 == m1) old_window++
			if ($2 == m2 && !first) first = t
			next
		}
		{
			after++
			if ($2 == m1) old_after++
			if ($2 == m2 && !first) first = t
			if ($2 == m2 && !nth) nth = after
		}
		END {
			if (path == "fasttrack") {
				pre = pre_rx ? pre_fast / pre_rx : 0; post = post_rx ? post_fast / post_rx : 0
			} else {
				pre = pre_rx ? 1 - pre_slow / pre_rx : 0; post = post_rx ? 1 - post_slow / post_rx : 0
			}
			printf "frames=%d other=%d before=%d old_before=%d window=%d old_window=%d after=%d old_after=%d",
				n, other, before, old_before, window, old_window, after, old_after
			printf " first_new_us=%s nth=%s window_us=%.0f fast_before=%.4f fast_after=%.4f",
				first ? sprintf("%.0f", (first - ack) * 1e6) : "none", nth ? nth : "none",
				(ack - req) * 1e6, pre, post
		}' "$COV_DIR/frames")
	say "  $path IPv$fam $how: $res lost=$lost capture_drops=$drops"
	bn_result sec=covering path="$path" fam="$fam" how="$how" $res lost="$lost" capture_drops="$drops"
	bn_path_off "$NS_ROUTER"
	cov_route_off "$how"
}

section_covering() {
	local path fam how
	section "Covering route changes under one cached flow ($COV_PPS frames/s)"
	if ! ip -n "$NS_ROUTER" link add nlmon0 type nlmon 2>/dev/null; then
		say "  (no nlmon device here: the changes cannot be timed; section skipped)"
		return 0
	fi
	must ip -n "$NS_ROUTER" link set nlmon0 up
	for path in $(echo "$COV_PATHS" | tr , ' '); do
		for fam in $(echo "$COV_FAMS" | tr , ' '); do
			cov_fam "$fam"
			for how in more replace nexthop; do
				cov_case "$path" "$fam" "$how"
			done
		done
	done
	ip -n "$NS_ROUTER" link del nlmon0
}
