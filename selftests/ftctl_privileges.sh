#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2016 # dash has local; lib_fastpath sets
# FP_*; the sh -c scripts are single-quoted on purpose.
# Who may do what with fasttrack.
#
# (a) An unprivileged user (uid/gid 65534, no capabilities) may read the
#     devices, the statistics and the settings, like "ip -s link", but not
#     the cached flows, which reveal connections and their NAT mappings
#     (like "conntrack -L"): "ftctl flows" fails and says CAP_NET_ADMIN.
#     Nor may it join the flow event group ("ftctl monitor" fails), on
#     kernels that can make a generic netlink group need CAP_NET_ADMIN:
#     6.7 and later (GENL_MCAST_CAP_NET_ADMIN) and stable kernels with the
#     backport. Debian's 6.1.192 has the flag; Debian's 5.10.262 has the
#     backport without the macro (struct genl_multicast_group has a
#     "flags" member, and psample's "packets" group carries 0x10 in it,
#     GENL_UNS_ADMIN_PERM's value, where 6.1.192's carries 0x01). On
#     kernels without it the group is open to anyone, as documented: the
#     test checks and logs that. A probe decides which kind this kernel is
#     (mcast_probe), not its version.
# (b) CAP_NET_ADMIN in the user namespace that owns a network namespace is
#     enough there: root of "unshare -U -r -n" may enable fasttrack on a
#     veth of its own netns. It is not enough anywhere else: root of
#     "unshare -U -r" (own user namespace, the router's or the init netns)
#     gets EPERM, and nothing changes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_ftctl.sh"
. "$(dirname "$0")/lib_hooks.sh"

require_cmd setpriv unshare timeout
fp_init
fp_setup_stick

# -------------------------------------------- (a) an unprivileged user --

# Cached flows to be seen: a UDP connection whose flows stay for minutes.
must ftc set udp-timeout 600
ftc_long_udp_ct
fp_rand size 131072 262144
file=$(fp_mkfile udp "$size")
fp_udp_transfer "IPv4 UDP connection" 4 "$file"
n=$(ftc_nflows)
check_ge "root sees the connection's cached flows ($n)" "$n" 2

check_fail "nobody cannot list flows" "CAP_NET_ADMIN" ftc_nobody flows
check_fail "nobody cannot dump flows (flows dump)" "CAP_NET_ADMIN" ftc_nobody flows dump
check_fail "nobody cannot dump flows (-j flows)" "CAP_NET_ADMIN" ftc_nobody -j flows
check_fail "nobody cannot list one device's flows" "CAP_NET_ADMIN" \
	ftc_nobody flows dev "$ROUTER_CLIENT_DEV"
check "nobody can show" ftc_nobody show
check_output "nobody's show dump lists both devices" \
	"$ROUTER_CLIENT_DEV $ROUTER_SERVER_DEV" \
	sh -c "ip netns exec '$NS_ROUTER' setpriv --reuid=65534 --regid=65534 --clear-groups \
		ftctl show dump | cut -f1 | sort | xargs"
check "nobody can read stats" ftc_nobody stats
check "nobody can read stats as JSON" ftc_nobody -j stats
check "nobody can get the settings" ftc_nobody get

# genljoin_as CAPS: genljoin psample's "packets" group as uid/gid 65534
# with the capabilities CAPS ("" or "+net_admin"); prints its output, and
# returns its exit status (0 joined, 1 refused, 2 could not try).
genljoin_as() {
	local caps="$1"
	shift
	[ -z "$caps" ] || set -- --inh-caps="$caps" --ambient-caps="$caps"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@" genljoin psample packets 2>&1
}

# mcast_probe: can this kernel make a generic netlink group need
# CAP_NET_ADMIN? The upstream fix that made that possible also made
# psample's "packets" group need it, so joining that group tells:
#   nobody joins                      no such restriction (old kernel)
#   nobody is refused, and a user
#   with only CAP_NET_ADMIN joins     the group needs CAP_NET_ADMIN (6.7
#                                     and later, Debian's 6.1.192 and
#                                     5.10.262)
#   both are refused                  it needs more (CAP_SYS_ADMIN): take
#                                     the kernel as one without
# Without genljoin or psample, the kernel version decides: 6.7 and later
# (a stable kernel with the backport is then taken as open, and the test
# fails, saying so). MCAST_HOW says how it decided.
mcast_probe() {
	local none admin rc1=2 rc2=2
	if command -v genljoin >/dev/null 2>&1 &&
		{ [ -d /sys/module/psample ] || { modprobe psample 2>/dev/null && defer rmmod psample; }; }; then
		none=$(genljoin_as "")
		rc1=$?
		admin=$(genljoin_as +net_admin)
		rc2=$?
	fi
	MCAST_HOW="probe on psample's group: no capabilities: $none; CAP_NET_ADMIN only: $admin"
	case $rc1.$rc2 in
	0.*) return 1 ;;
	1.0) return 0 ;;
	1.1) return 1 ;;
	esac
	MCAST_HOW="no probe (genljoin or psample missing: $none $admin), by version: Linux $(uname -r)"
	kver_ge 6 7
}

# monitor_rc WHO: run "ftctl monitor" in the router netns, as root or as
# nobody, for 3 s; MON_RC is its exit status (124: it joined the group and
# listened until the timeout), MON_OUT what it printed.
monitor_rc() {
	local t
	t=$(ft_secs 3)
	if [ "$1" = root ]; then
		MON_OUT=$(ip netns exec "$NS_ROUTER" timeout "$t" ftctl monitor 2>&1)
	else
		MON_OUT=$(ip netns exec "$NS_ROUTER" setpriv --reuid=65534 --regid=65534 \
			--clear-groups timeout "$t" ftctl monitor 2>&1)
	fi
	MON_RC=$?
}

monitor_rc root
check_eq "root can join the event group (ftctl monitor runs until stopped)" 124 "$MON_RC"
if mcast_probe; then
	log_info "this kernel can make a generic netlink group need CAP_NET_ADMIN ($MCAST_HOW)"
	monitor_rc nobody
	if [ "$MON_RC" -ne 0 ] && [ "$MON_RC" -ne 124 ] &&
		printf '%s\n' "$MON_OUT" | grep -qiE "not permitted|CAP_NET_ADMIN"; then
		pass "nobody cannot join the event group (ftctl monitor fails)"
	else
		fail "nobody cannot join the event group (ftctl monitor fails)" \
			"exit $MON_RC (124: it joined and listened for $(ft_secs 3) s); output:" "$MON_OUT"
	fi
else
	log_info "this kernel cannot make a generic netlink group need CAP_NET_ADMIN ($MCAST_HOW):"
	log_info "the event group is open to any user, as documented"
	monitor_rc nobody
	check_eq "nobody can join the event group on this kernel, as documented" 124 "$MON_RC"
fi

# ------------------------------------------- (b) user namespaces --

ftctl_path=$(command -v ftctl)
check_output "ftctl is on PATH in unshare -U -r -n" "$ftctl_path" \
	unshare -U -r -n sh -c 'command -v ftctl'
check_output "unshare -U -r -n: root of its own user namespace" "0" \
	unshare -U -r -n sh -c 'id -u'
veth='ip link add hk0 type veth peer name hk1 && ip link set hk0 up && ip link set hk1 up'
check "unshare -U -r -n: a veth pair in its own netns" \
	unshare -U -r -n sh -c "$veth"
check "unshare -U -r -n: ftctl enable on its own veth" \
	unshare -U -r -n sh -c "$veth && ftctl enable hk0"
check_output "unshare -U -r -n: ftctl show dump has it on for both families" "hk0 on on" \
	unshare -U -r -n sh -c "$veth && ftctl enable hk0 >/dev/null 2>&1; ftctl show dump | cut -f1,3,6 | xargs"
check "unshare -U -r -n: ftctl enable ipv6, disable" \
	unshare -U -r -n sh -c "$veth && ftctl enable hk0 ipv6 && ftctl disable hk0"
check "unshare -U -r -n: its own netns's flows can be listed" \
	unshare -U -r -n sh -c "ftctl flows dump"

check_fail "unshare -U -r in the router netns: ftctl enable $ROUTER_TRUNK_DEV gets EPERM" \
	"not permitted" ip netns exec "$NS_ROUTER" unshare -U -r sh -c "ftctl enable $ROUTER_TRUNK_DEV"
check_output "$ROUTER_TRUNK_DEV is still not enabled" absent ft_state "$NS_ROUTER" "$ROUTER_TRUNK_DEV"
check_fail "unshare -U -r in the router netns: ftctl disable $ROUTER_CLIENT_DEV gets EPERM" \
	"not permitted" ip netns exec "$NS_ROUTER" unshare -U -r sh -c "ftctl disable $ROUTER_CLIENT_DEV"
check_output "$ROUTER_CLIENT_DEV is still enabled" "ipv4=true ipv6=true" \
	ft_state "$NS_ROUTER" "$ROUTER_CLIENT_DEV"
check_fail "unshare -U -r in the router netns: ftctl flush gets EPERM" \
	"not permitted" ip netns exec "$NS_ROUTER" unshare -U -r sh -c "ftctl flush"
check_ge "the flows are still cached" "$(ftc_nflows)" 2

dummy=hkd$(ft_rand | cut -c1-6)
must ip link add "$dummy" type dummy
defer ip link del "$dummy"
must ip link set "$dummy" up
check_fail "unshare -U -r in the init netns: ftctl enable $dummy gets EPERM" \
	"not permitted" unshare -U -r sh -c "ftctl enable $dummy"
check_output "$dummy is still not enabled" 0 \
	sh -c "ftctl show dump | cut -f1 | grep -cx '$dummy'; true"

fp_exit
