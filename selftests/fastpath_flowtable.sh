#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# Living with an nftables flowtable. The router also has a flowtable on
# its VLAN devices and offloads every TCP/UDP connection to it from its
# forward chain. Connections the flowtable offloaded ([OFFLOAD] in
# conntrack) are left alone by fasttrack: it learns nothing and forwards
# nothing of them, only hands their packets on (punted no_entry), and the
# transfers complete intact, with the forward chain seeing little of them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_setup_stick
cdev=$ROUTER_CLIENT_DEV sdev=$ROUTER_SERVER_DEV

# The trunk too: since 7.x (7.2 measured; 6.1 and 6.12 do not need it) the
# flowtable follows the forward path through a VLAN device to the real
# device and offloads nothing unless that device is in the flowtable.
ft_devs=${FP_FLOWTABLE_DEVS:-"$cdev, $sdev, $ROUTER_TRUNK_DEV"}
if ! out=$(ip netns exec "$NS_ROUTER" nft -f - 2>&1 <<EOF2
table inet ft_flowtable {
	flowtable f {
		hook ingress priority 0;
		devices = { $ft_devs };
	}
	chain to_flowtable {
		type filter hook forward priority filter - 10;
		meta l4proto { tcp, udp } flow add @f
	}
}
EOF2
); then
	case $out in
	*"Operation not supported"* | *"No such file"*) ft_skip "this kernel has no nftables flowtable: $out" ;;
	esac
	fail "setup: flowtable on $ft_devs" "$out"
	fp_exit
fi
pass "flowtable f on $ft_devs, 'flow add @f' for TCP and UDP"

offloaded() {
	ip netns exec "$NS_ROUTER" conntrack -L -p tcp --dport "$1" 2>/dev/null | grep -q OFFLOAD
}

for fam in 4 6; do
	stream=$(fp_mkfile "s$fam" 8388608)
	set -- $(fp_stat learned flows punted.no_entry)
	learned0=$1 noentry0=$3
	fp_begin
	fp_stream_start "s$fam" "$fam" "$stream"
	port=$FP_STREAM_PORT
	if busywait 10000 offloaded "$port"; then
		pass "IPv$fam: the flowtable offloads the connection ([OFFLOAD])"
	else
		fail "IPv$fam: the flowtable offloads the connection ([OFFLOAD])" \
			"$(ip netns exec "$NS_ROUTER" conntrack -L 2>&1)"
	fi
	fp_stream_running "IPv$fam flowtable"
	fp_stream_finish "IPv$fam flowtable" "s$fam" "$stream"
	fp_end
	set -- $(fp_stat learned flows punted.no_entry)
	check_eq "IPv$fam: fasttrack learned nothing of it" "$learned0" "$1"
	check_eq "IPv$fam: fasttrack caches no flow" 0 "$2"
	check_eq "IPv$fam: fasttrack forwarded nothing of it" 0 \
		$((FPD_CV4 + FPD_CV6 + FPD_SV4 + FPD_SV6))
	check_ge "IPv$fam: fasttrack handed its packets on (punted no_entry)" "$3" $((noentry0 + 1))
	log_info "IPv$fam: forward chain saw $FPD_C2S B ($(fp_pct "$FPD_C2S" 8388608)) of the 8388608 B sent"
	check_le "IPv$fam: the flowtable carried it: forward chain saw <= $FP_SLOW_MAX_PCT%" \
		$((FPD_C2S * 100)) $((FP_SLOW_MAX_PCT * 8388608))
done

fp_exit
