#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "ftctl xdp": on a kernel and module with the XDP tier, "xdp on trunk0"
# attaches the program in native mode and it stays after ftctl exits (a
# pinned link), "on" twice says so, the VLAN devices on the trunk show the
# xdp tier, save and -b keep it, a VLAN device, a device without native
# XDP and a device with another XDP program are refused with the reason,
# rmmod fails while it is attached and works after "xdp off all", which
# also clears what a deleted namespace left. Elsewhere "xdp on" must fail
# with the reason the tier is missing, checked in ftctl's order: kernel
# older than 5.18, module without BTF, module without the kfunc.
# (Traffic through the tier is fastpath_xdp's.)
# shellcheck disable=SC3043
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_ftctl.sh"

require_cmd ftctl jq
ft_module_load
setup_router_on_a_stick
must ftc enable vlan22
must ftc enable vlan2222

check_output "xdp off of a device it is not on" "xdp is already off for trunk0" \
	ftc xdp off trunk0
check_output "xdp show: on no device" "" ftc xdp show

# ---------------------------------------------- kernels without the tier --

kver=$(uname -r)
kmaj=${kver%%.*}
kmin=${kver#*.}
kmin=${kmin%%[!0-9]*}
reason=
if [ ! -e /sys/kernel/btf/vmlinux ]; then
	reason="the kernel has no BTF"
elif [ "$kmaj" -lt 5 ] || { [ "$kmaj" -eq 5 ] && [ "$kmin" -lt 18 ]; }; then
	reason="kernel too old"
elif [ ! -e /sys/kernel/btf/fasttrack ]; then
	reason="the module was built without BTF: DKMS needs pahole, and the kernel's vmlinux or its image in /boot"
	# The selftests' build gives the module BTF wherever it has the tier
	# (selftests/vm/build.sh): the kernel must then have taken it.
	check_fail "a module without BTF has no XDP tier compiled in" "" \
		grep -qw bpf_fasttrack_xdp /proc/kallsyms
elif ! grep -q bpf_fasttrack_xdp /sys/kernel/btf/fasttrack; then
	reason="the module was built without the XDP tier"
fi
if [ -n "$reason" ]; then
	check_fail "xdp on, $kver: $reason" "$reason" ftc xdp on trunk0
	check_output "and nothing is attached" "" ftc xdp show
	check_fail "trunk0 has no XDP program" "" sh -c \
		"ip -n $NS_ROUTER link show dev trunk0 | grep -q xdp"
	ft_exit
fi

# ---------------------------------------------------------- bpffs --

# The guest's init mounts no bpffs; ip netns exec gives ftctl a /sys of
# its own, where a bpffs would go with the command: ftctl must refuse.
if ! grep -q ' /sys/fs/bpf bpf ' /proc/mounts; then
	check_fail "xdp on without a bpffs in PID 1's mount namespace" \
		"no bpffs to pin the program in" ftc xdp on trunk0
	must mount -t bpf bpf /sys/fs/bpf
	defer umount /sys/fs/bpf
fi
# Before rmmod (ft_module_load's), after the namespaces are gone.
defer ftctl xdp off all
defer ftc xdp off all

# ---------------------------------------------------------- on and off --

xdp_id() { ip -n "$NS_ROUTER" -d link show dev "$1" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'; }
xdp_mode() { ip -n "$NS_ROUTER" link show dev "$1" | grep -o 'xdp[a-z]*' | head -n1; }

check "xdp on trunk0" ftc xdp on trunk0
check_eq "trunk0 has the program, in native mode (after ftctl exited)" "xdp" "$(xdp_mode trunk0)"
id=$(xdp_id trunk0)
check_output "xdp on again says so" "xdp is already on for trunk0" ftc xdp on trunk0
check_eq "and leaves the same program" "$id" "$(xdp_id trunk0)"
check_output "xdp show" "trunk0 (ifindex $(ip -n "$NS_ROUTER" -j link show dev trunk0 | jq '.[0].ifindex')): xdp" \
	ftc xdp show
check_eq "show: vlan22's tier is xdp (its real device's)" "xdp" \
	"$(ftc -j show vlan22 | jq -r '.[0].tier // "absent"')"
check_eq "show: the module says nothing blocks it" "[]" \
	"$(ftc -j show vlan22 | jq -c '.[0].xdp_blocked')"
check "show: the XDP counters are there" sh -c \
	"ip netns exec $NS_ROUTER ftctl -j show vlan22 | jq -e '.[0].ipv4.xdp.packets >= 0'"
check "save has the xdp line" sh -c \
	"ip netns exec $NS_ROUTER ftctl save | grep -qx 'xdp on trunk0'"

check_fail "xdp on a VLAN device names its real device" "vlan22 is a VLAN device.*xdp on trunk0" \
	ftc xdp on vlan22
must ip -n "$NS_ROUTER" link add dummy0 type dummy
check_fail "xdp on a device without native XDP" "dummy0 has no native XDP" ftc xdp on dummy0
check_output "which stays without one" "" xdp_mode dummy0

# A program ftctl does not know of: its own, its pin moved away.
pin=$(ls -d /sys/fs/bpf/fasttrack/net-*/xdp-*-trunk0)
must mv "$pin" /sys/fs/bpf/foreign
check_fail "xdp on a device with another XDP program names it" \
	"trunk0 already has an XDP program \(id $id, name fasttrack_xdp, native\)" ftc xdp on trunk0
check_eq "which stays" "$id" "$(xdp_id trunk0)"
must mv /sys/fs/bpf/foreign "$pin"

check_fail "rmmod fails while the program is attached" "" rmmod fasttrack
check "xdp off trunk0" ftc xdp off trunk0
check_output "trunk0 has no program" "" xdp_mode trunk0
check_output "xdp off again says so" "xdp is already off for trunk0" ftc xdp off trunk0
check_eq "show: vlan22's tier is skb" "skb" "$(ftc -j show vlan22 | jq -r '.[0].tier')"

# ------------------------------------------------------- batch, off all --

printf 'enable vlan22\nxdp on trunk0\nxdp on trunk0\n' >/tmp/ftctl_xdp.conf
check_output "-b: xdp on, twice, quietly" "" ftc -b /tmp/ftctl_xdp.conf
check_eq "trunk0 has the program" "xdp" "$(xdp_mode trunk0)"
check_output "xdp off all says what it detached" "xdp off trunk0" ftc xdp off all
check_output "trunk0 has no program" "" xdp_mode trunk0
check "-b with the save of an attached tier" sh -c \
	"ip netns exec $NS_ROUTER ftctl xdp on trunk0 &&
	 ip netns exec $NS_ROUTER ftctl save >/tmp/ftctl_xdp.save &&
	 ip netns exec $NS_ROUTER ftctl xdp off trunk0 &&
	 ip netns exec $NS_ROUTER ftctl -b /tmp/ftctl_xdp.save"
check_eq "restores it" "xdp" "$(xdp_mode trunk0)"

# A namespace deleted with the tier attached leaves a pin that holds the
# module: "xdp off all" from any namespace removes it.
setup_ns NS_GONE
must ip -n "$NS_GONE" link add tg0 type veth peer name tg1
must ip -n "$NS_GONE" link set tg0 up
must ip -n "$NS_GONE" link set tg1 up
check "xdp on in another namespace" ip netns exec "$NS_GONE" ftctl xdp on tg0
check_output "xdp off all in the first" "xdp off trunk0" ftc xdp off all
must ip netns del "$NS_GONE"
check_fail "rmmod fails: the deleted namespace's pin holds the module" "" rmmod fasttrack
# The namespace's devices go in a work item, a moment later.
# shellcheck disable=SC2317 # called by busywait
swept() { ftctl xdp off all 2>&1 | grep -qx 'xdp off tg0 (gone, with its network namespace)'; }
check "xdp off all, here, removes the deleted namespace's pin" busywait 10 swept
check_output "and has nothing left to do" "" ftctl xdp off all
check "rmmod works after xdp off all" rmmod fasttrack
must modprobe fasttrack

ft_exit
