#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ftctl fails clearly: unknown device, bad family, missing arguments, an
# unprivileged user changing state, and the module not being loaded.
. "$(dirname "$0")/lib.sh"

require_cmd ftctl jq setpriv

# as_nobody CMD...: run CMD in the router netns as uid/gid 65534, no caps.
as_nobody() {
	ip netns exec "$NS_ROUTER" setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
in_router() { ip netns exec "$NS_ROUTER" "$@"; }

ft_module_load
setup_ns NS_ROUTER
must ip -n "$NS_ROUTER" link add trunk0 type veth peer name peer0
must ip -n "$NS_ROUTER" link add link trunk0 name vlan22 type vlan id 22
must ip -n "$NS_ROUTER" link set trunk0 up
must ip -n "$NS_ROUTER" link set vlan22 up

check "ftctl --version" in_router ftctl --version
check "ftctl --help" in_router ftctl --help
# A name no device has is kept for the device to come (ftctl_rules).
check_output "enable a non-existent device: kept, with a warning" \
	"ftctl: warning: nosuchdev0 does not exist yet; it is enabled when it appears" \
	in_router ftctl enable nosuchdev0
check "disable it: the name is dropped" in_router ftctl disable nosuchdev0
# Asking whether a name exists loads no module named after it (as
# SIOCGIFINDEX does: "netdev-NAME", then "NAME"). The kernel's modprobe
# helper is replaced by one that logs every module asked for; a link of
# an unknown kind shows that the log sees what the kernel asks.
if [ -w /proc/sys/kernel/modprobe ]; then
	ftdir=$(mktemp -d /tmp/errors-XXXXXX) || ft_skip "mktemp failed"
	defer rm -rf "$ftdir"
	must cp /proc/sys/kernel/modprobe "$ftdir/modprobe.orig"
	defer sh -c "cat $ftdir/modprobe.orig >/proc/sys/kernel/modprobe"
	printf '#!/bin/sh\necho "$*" >>%s/asked\nexec %s "$@"\n' "$ftdir" \
		"$(cat "$ftdir/modprobe.orig")" >"$ftdir/modprobe"
	must chmod +x "$ftdir/modprobe"
	printf 'disable all\nenable nosuchdev2\n' >"$ftdir/batch"
	echo "$ftdir/modprobe" >/proc/sys/kernel/modprobe
	in_router ftctl enable nosuchdev1 2>/dev/null
	in_router ftctl -b "$ftdir/batch" 2>/dev/null
	ip -n "$NS_ROUTER" link add ftprobe0 type ftnosuchkind 2>/dev/null
	cat "$ftdir/modprobe.orig" >/proc/sys/kernel/modprobe
	check "the modprobe log sees a link kind asked for" \
		grep -qs rtnl-link-ftnosuchkind "$ftdir/asked"
	check_eq "enable and a batch's enable of a missing name load no module" \
		"" "$(grep -s nosuchdev "$ftdir/asked")"
	must in_router ftctl disable all
else
	log_info "SKIP: the modprobe checks: /proc/sys/kernel/modprobe is not writable"
fi
check_fail "disable a non-existent device that is not enabled" \
	"nosuchdev0: no such name or pattern is enabled" in_router ftctl disable nosuchdev0
check_fail "enable with family ipv5" "ipv5" in_router ftctl enable vlan22 ipv5
check_fail "enable without a device" "usage|missing|device" in_router ftctl enable
check_fail "unknown command" "" in_router ftctl frobnicate
check_output "nothing was enabled by the failures" absent ft_state "$NS_ROUTER" vlan22

check_fail "nobody cannot enable" "not permitted|permission" as_nobody ftctl enable vlan22
check_output "still absent after nobody's enable" absent ft_state "$NS_ROUTER" vlan22
check "root enables vlan22" in_router ftctl enable vlan22
check_fail "nobody cannot disable" "not permitted|permission" as_nobody ftctl disable vlan22
check_fail "nobody cannot disable ipv4" "not permitted|permission" as_nobody ftctl disable vlan22 ipv4
check_output "still enabled after nobody's disable" "ipv4=true ipv6=true" ft_state "$NS_ROUTER" vlan22
check_output "nobody can show" vlan22 sh -c \
	"ip netns exec $NS_ROUTER setpriv --reuid=65534 --regid=65534 --clear-groups ftctl -j show | jq -r '.[].ifname'"
check "nobody can read stats" as_nobody ftctl stats

# The family lookup autoloads the module (MODULE_ALIAS_GENL_FAMILY); with
# autoloading off, ftctl must say what to do.
check "rmmod fasttrack" rmmod fasttrack
modprobe_path=$(cat /proc/sys/kernel/modprobe)
defer sysctl -qw kernel.modprobe="$modprobe_path"
must sysctl -qw kernel.modprobe=/bin/true
check_fail "show without the module says to modprobe" "modprobe fasttrack" in_router ftctl show
check_fail "enable without the module says to modprobe" "modprobe fasttrack" in_router ftctl enable vlan22
check "module still unloaded" test ! -e /sys/module/fasttrack
must sysctl -qw kernel.modprobe="$modprobe_path"
check "ftctl show autoloads the module" in_router ftctl show
check "fasttrack is loaded again" test -d /sys/module/fasttrack
ft_exit
