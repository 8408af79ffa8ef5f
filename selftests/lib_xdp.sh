# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests of the XDP tier (fastpath_xdp, fastpath_xdp_hooks):
# source lib.sh and lib_fastpath.sh, then this, after fp_setup_stick.
#
# The router's trunk0 runs the tier ("ftctl xdp on trunk0"). Its veth peer,
# the switch's swtrunk, runs the same program too: veth hands a peer the
# frames of an XDP_TX only when the peer has an XDP program (it does not
# wake the peer's NAPI otherwise), as every veth-based XDP test must. In
# the switch's netns nothing is enabled, so there the program passes every
# frame up. And veth's XDP keeps no partial checksum (CHECKSUM_PARTIAL):
# the hosts send complete ones (fp_csum_offload off), as a real NIC
# receives them.
# shellcheck shell=sh disable=SC3043,SC2154 # dash has "local"; lib.sh and
# lib_fastpath.sh set the NS_* and FP* variables.

# xdp_setup: the tier on trunk0, or skip the test on a kernel or module
# without it, with ftctl's reason.
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
	fp_csum_offload off
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
