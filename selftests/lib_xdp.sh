# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests of the XDP tier (fastpath_xdp, fastpath_xdp_hooks,
# fastpath_xdp_redirect): source lib.sh, lib_fastpath.sh and lib_hooks.sh,
# then this, after fp_setup_stick or fp_setup_stick_wan.
#
# The router's trunk0 runs the tier ("ftctl xdp on trunk0"), and so does
# wan0 where the server hangs off it (fp_setup_stick_wan). Each one's veth
# peer (the switch's swtrunk, the server's eth0) runs the same program
# too: veth hands a peer the frames of an XDP_TX only when the peer has an
# XDP program (it does not wake the peer's NAPI otherwise), and a veth
# takes redirected frames (NETDEV_XDP_ACT_NDO_XMIT) only then, as every
# veth-based XDP test must. In the peers' netns nothing is enabled, so
# there the program passes every frame up. And veth's XDP keeps no partial
# checksum (CHECKSUM_PARTIAL): the hosts send complete ones
# (fp_csum_offload off), as a real NIC receives them.
# shellcheck shell=sh disable=SC3043,SC2154 # dash has "local"; lib.sh and
# lib_fastpath.sh set the NS_* and FP* variables.

# The size of xdp_transfers' files: from XDP_SIZE bytes to twice that.
XDP_SIZE=2097152

# The rate of xdp_check_shaper's shaper in bytes/s: a quarter of a stream's
# (FP_SLOW_RATE, 2mbit).
XDP_SHAPE=62500

# xdp_setup: the tier on trunk0 (and wan0), or skip the test on a kernel
# or module without it, with ftctl's reason.
xdp_setup() {
	local out
	require_cmd ethtool
	# Where systemd mounts it on a real system; the guest's init does not.
	if ! grep -q ' /sys/fs/bpf bpf ' /proc/mounts; then
		must mount -t bpf bpf /sys/fs/bpf
		defer umount /sys/fs/bpf
	fi
	if ! out=$(ip netns exec "$NS_ROUTER" ftctl xdp on "$ROUTER_TRUNK_DEV" 2>&1); then
		case $out in
		*"kernel too old"* | *"without BTF"* | *"has no BTF"* | *"without the XDP tier"*)
			ft_skip "no XDP tier on Linux $(uname -r): $out" ;;
		esac
		fail "ftctl xdp on $ROUTER_TRUNK_DEV" "$out"
		fp_exit
	fi
	must ip netns exec "$NS_SWITCH" ftctl xdp on swtrunk
	if [ "$ROUTER_SERVER_DEV" = wan0 ]; then
		must ip netns exec "$NS_SERVER" ftctl xdp on eth0
		must ip netns exec "$NS_ROUTER" ftctl xdp on wan0
	fi
	fp_csum_offload off
	if ! xdp_reads_beside; then
		log_info "Linux $(uname -r) does not tell XDP of a tag beside the frame: the switch puts them in"
		xdp_tag_in_frame on
	fi
}

# xdp_reads_beside: the kernel tells the tier of a VLAN tag that came
# beside the frame (xmo_rx_vlan_tag, 6.8). Before, the tier reads tags in
# the frame only, and passes up every frame of a device that may have had
# one taken off: a veth whose peer offloads tags (kmod/xdp.c).
xdp_reads_beside() { kver_ge 6 8; }

# xdp_redirects: drivers say whether they take redirected frames
# (xdp_features, 6.3). Before, the tier only sends a frame back out of the
# device it came in by, and passes up the rest.
xdp_redirects() { kver_ge 6 3; }

# xdp_tag_in_frame on|off: the switch sends the router VLAN tags in the
# frame (swtrunk offloads neither 802.1Q nor 802.1ad tags), as a NIC that
# strips no tag hands them to XDP, or beside it (veth's default), as one
# that strips them does (xmo_rx_vlan_tag). Sets XDP_TAGS_IN_FRAME to 1 or 0.
xdp_tag_in_frame() {
	local o
	o=$([ "$1" = on ] && echo off || echo on)
	# shellcheck disable=SC2034 # malformed.sh reads it
	XDP_TAGS_IN_FRAME=$([ "$1" = on ] && echo 1 || echo 0)
	must ip netns exec "$NS_SWITCH" ethtool -K swtrunk txvlan "$o" tx-vlan-stag-hw-insert "$o"
}

# xdp_bytes DEV FAMILY: the bytes the XDP tier forwarded of those received
# on DEV for FAMILY (4 or 6), as ftctl shows them.
xdp_bytes() {
	fp_num "$(ip netns exec "$NS_ROUTER" ftctl -j show | fp_jget "ifname=$1.ipv$2.xdp.bytes")"
}

# xdp_bypassed: packets of cached flows the tier passed up because of
# something it would bypass.
xdp_bypassed() { fp_num "$(fp_stat xdp.bypassed)"; }

# xdp_grew DEV FAMILY FROM: the XDP tier forwarded more than FROM bytes.
xdp_grew() { [ "$(xdp_bytes "$1" "$2")" -gt "$3" ]; }

# xdp_check_carries DESC FAMILY: the XDP tier carries the client's stream:
# it forwards another 64 KiB received on the client-side device within 10 s.
xdp_check_carries() {
	local x0
	x0=$(xdp_bytes "$ROUTER_CLIENT_DEV" "$2")
	if busywait 10000 xdp_grew "$ROUTER_CLIENT_DEV" "$2" $((x0 + 65536)); then
		pass "$1"
	else
		fail "$1" "the XDP tier forwarded $(($(xdp_bytes "$ROUTER_CLIENT_DEV" "$2") - x0)) B in 10 s" \
			"ftctl -j stats: $(fp_stats)" "ftctl show: $(ip netns exec "$NS_ROUTER" ftctl show 2>&1)"
	fi
}

# xdp_stream_start FAMILY: the client's 8 MiB TCP stream "s<FAMILY>" to
# the server's counting listener (hk_srv_count), offloaded and carried by
# the XDP tier; sets port and stream for the caller.
xdp_stream_start() {
	fp_port port
	hk_srv_count "s$1" "$1" "$port"
	stream=$(fp_mkfile "s$1" 8388608)
	fp_stream_start "s$1" "$1" "$stream" "" "" "$port"
	hk_wait_offloaded "IPv$1: the stream is offloaded" "$1"
	xdp_check_carries "IPv$1: the XDP tier carries the stream" "$1"
}

# xdp_check_steps_aside DESC FAMILY T0: from T0 (now_ms) + HK_CUT_MS on,
# for HK_QUIET_MS, the XDP tier forwards nothing of the stream: an action
# completed at T0 made it pass the frames up.
xdp_check_steps_aside() {
	local desc="$1" fam="$2" t0="$3" a b ta tb
	hk_sleep_until $((t0 + HK_CUT_MS * FT_SLOWDOWN))
	ta=$(($(now_ms) - t0))
	a=$(xdp_bytes "$ROUTER_CLIENT_DEV" "$fam")
	hk_sleep_until $((t0 + (HK_CUT_MS + HK_QUIET_MS) * FT_SLOWDOWN))
	tb=$(($(now_ms) - t0))
	b=$(xdp_bytes "$ROUTER_CLIENT_DEV" "$fam")
	log_info "$desc: the XDP tier had forwarded $a B at +$ta ms, $b B at +$tb ms"
	if [ "$a" = "$b" ]; then
		pass "$desc"
	else
		fail "$desc" "the XDP tier forwarded $((b - a)) B between +$ta ms and +$tb ms" \
			"ftctl show: $(ip netns exec "$NS_ROUTER" ftctl show 2>&1)"
	fi
}

# xdp_check_shaper DESC FAMILY DEV NAME: a tbf qdisc on DEV, the egress
# device of the stream (fp_stream_start) that the server's counter NAME
# counts, at a quarter of the stream's rate: within 100 ms the XDP tier
# forwards none of the stream, and over 2 s the server receives no more
# than the shaper lets through. Once it is removed, the stream goes on and
# the XDP tier carries it again.
xdp_check_shaper() {
	local d="$1" fam="$2" dev="$3" name="$4" t0 b0 t1 got el max
	must ip netns exec "$NS_ROUTER" tc qdisc add dev "$dev" root tbf \
		rate $((XDP_SHAPE * 8))bit burst 16k latency 400ms
	t0=$(now_ms)
	xdp_check_steps_aside "$d: the XDP tier steps aside within $((HK_CUT_MS * FT_SLOWDOWN)) ms" "$fam" "$t0"
	b0=$(hk_srv_bytes "$name")
	t1=$(now_ms)
	hk_sleep_until $((t1 + 2000))
	got=$(($(hk_srv_bytes "$name") - b0)) el=$(($(now_ms) - t1))
	# The shaper's rate over the window, its burst, and IP headers' slack.
	max=$((XDP_SHAPE * el / 1000 + 16384 + XDP_SHAPE * el / 10000))
	log_info "$d: the server received $got B in $el ms; the shaper lets $max B through"
	check_le "$d: the server receives what the shaper lets through" "$got" "$max"
	fp_stream_running "$d"
	must ip netns exec "$NS_ROUTER" tc qdisc del dev "$dev" root
	hk_check_recovers "$d: the stream goes on once the shaper is gone" "$name"
	xdp_check_carries "$d: the XDP tier carries the stream again" "$fam"
}

# ------------------------------------------------------- the books --
# A transfer through the tier, judged by the router's counters.

# xdp_dev_bytes DEV rx|tx: DEV's byte counter in the router (ip -s link).
xdp_dev_bytes() {
	ip -n "$NS_ROUTER" -s link show dev "$1" | awk -v d="$2" '
		$1 == "RX:" && d == "rx" { getline; print $1; exit }
		$1 == "TX:" && d == "tx" { getline; print $1; exit }'
}

# xdp_is_vlan DEV: DEV is a VLAN device of the router, whose counters the
# tier keeps (a real device's are its driver's).
xdp_is_vlan() { ip -n "$NS_ROUTER" -d link show dev "$1" | grep -q ' vlan protocol '; }

# xdp_snap FAMILY: the counters a transfer is judged by, before it.
xdp_snap() {
	local c="$ROUTER_CLIENT_DEV" s="$ROUTER_SERVER_DEV"
	fp_begin
	XDP0_C=$(xdp_bytes "$c" "$1") XDP0_S=$(xdp_bytes "$s" "$1")
	XDP0_CRX=$(xdp_dev_bytes "$c" rx) XDP0_STX=$(xdp_dev_bytes "$s" tx)
	XDP0_SRX=$(xdp_dev_bytes "$s" rx) XDP0_CTX=$(xdp_dev_bytes "$c" tx)
}

# xdp_check_ct DESC CONNTRACK COUNTED: conntrack's bytes are what the
# forward chain and fasttrack counted.
xdp_check_ct() {
	if [ "$2" = "$3" ]; then
		pass "$1 ($2 B)"
	else
		fail "$1" "conntrack: $2 B; forward chain + fasttrack: $3 B" \
			"ftctl -j stats: $(fp_stats)"
	fi
}

# xdp_in_range DESC GOT WANT: WANT <= GOT <= WANT + 1 % + 512 B. What a
# device counts beside the connection is neighbour traffic: a few probes
# of 42 to 86 B, more than 1 % of the few kB of a transfer's ACKs.
xdp_in_range() {
	if [ "$2" -ge "$3" ] && [ $(($2 * 100)) -le $(($3 * 101 + 51200)) ]; then
		pass "$1 ($2 B, conntrack $3 B)"
	else
		fail "$1" "device: $2 B; from conntrack: $3 B (at most 1 % + 512 B more expected)"
	fi
}

# xdp_check_dev DESC DEV rx|tx FROM WANT: DEV is a real device, or its
# counter rx or tx grew from FROM by WANT (xdp_in_range).
xdp_check_dev() {
	xdp_is_vlan "$2" || return 0
	xdp_in_range "$1" $(($(xdp_dev_bytes "$2" "$3") - $4)) "$5"
}

# xdp_judge DESC FAMILY SIZE c2s|s2c PORT: after a transfer of SIZE bytes
# in that direction to the server's PORT (xdp_snap before it):
#  - the forward chain saw at most 10 % of the bytes (the handshakes), and
#    the XDP tier forwarded at least 80 % of them, by its own counters
#    (ftctl show: xdp bytes), or none with XDP_PASSED=1, where the skb
#    tier carries the flow;
#  - conntrack's bytes of each direction are exactly what the forward
#    chain counted plus what fasttrack forwarded (both tiers): every
#    packet counted once, as the stack counts it;
#  - the VLAN devices count the frames: rx of the ingress VLAN holds
#    conntrack's bytes of that direction, tx of the egress VLAN those
#    bytes and an Ethernet header per packet, and neither more than 1 %
#    and 512 B over (neighbour traffic, xdp_in_range).
xdp_judge() {
	local desc="$1" fam="$2" size="$3" c="$ROUTER_CLIENT_DEV" s="$ROUTER_SERVER_DEV"
	local slow fast xdp ob rb op rp
	fp_end
	# shellcheck disable=SC2046 # split into words
	set -- "$@" $(fp_ct_acct "$fam" tcp "$5")
	op=$(fp_num "$6") ob=$(fp_num "$7") rp=$(fp_num "$8") rb=$(fp_num "$9")
	if [ "$4" = c2s ]; then
		slow=$FPD_C2S fast=$(fp_cdelta "$fam")
		xdp=$(($(xdp_bytes "$c" "$fam") - XDP0_C))
	else
		slow=$FPD_S2C fast=$(fp_sdelta "$fam")
		xdp=$(($(xdp_bytes "$s" "$fam") - XDP0_S))
	fi
	fp_check_offload "$desc" "$size" "$slow" "$fast"
	if [ "${XDP_PASSED:-0}" = 1 ]; then
		check_eq "$desc: the XDP tier passed every frame up" "$xdp" 0
	else
		hk_pct_ge "$desc: the XDP tier forwarded >= 80% of the bytes ($xdp B)" "$xdp" "$size" 80
	fi
	xdp_check_ct "$desc: conntrack's bytes client to server = forward chain + fasttrack" \
		"$ob" $((FPD_C2S + $(fp_cdelta "$fam")))
	xdp_check_ct "$desc: conntrack's bytes server to client = forward chain + fasttrack" \
		"$rb" $((FPD_S2C + $(fp_sdelta "$fam")))
	xdp_check_dev "$desc: $c rx bytes hold conntrack's client-to-server bytes" \
		"$c" rx "$XDP0_CRX" "$ob"
	xdp_check_dev "$desc: $s tx bytes hold them, with an Ethernet header each" \
		"$s" tx "$XDP0_STX" $((ob + 14 * op))
	xdp_check_dev "$desc: $s rx bytes hold conntrack's server-to-client bytes" \
		"$s" rx "$XDP0_SRX" "$rb"
	xdp_check_dev "$desc: $c tx bytes hold them, with an Ethernet header each" \
		"$c" tx "$XDP0_CTX" $((rb + 14 * rp))
}

# xdp_transfers FAMILY WHAT [ADDR FWDPORT]: a TCP upload of XDP_SIZE to
# twice that from the client to the server (to ADDR:FWDPORT, a port
# forward, if given) and, without ADDR, a download of the same, each judged
# (xdp_judge).
xdp_transfers() {
	local fam="$1" what="$2" size file port
	fp_rand size "$XDP_SIZE" $((2 * XDP_SIZE))
	file=$(fp_mkfile "x$fam$what" "$size")
	fp_port port
	xdp_snap "$fam"
	fp_tcp_transfer "IPv$fam $what TCP upload" "$fam" "$file" "$3" "${4:-$port}" "$port"
	xdp_judge "IPv$fam $what TCP upload" "$fam" "$size" c2s "$port"
	[ -z "$3" ] || return 0
	xdp_snap "$fam"
	fp_tcp_fetch "IPv$fam $what TCP download" "$fam" "$file"
	xdp_judge "IPv$fam $what TCP download" "$fam" "$size" s2c "$FP_FETCH_PORT"
}
