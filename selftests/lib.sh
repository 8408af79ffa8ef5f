# SPDX-License-Identifier: GPL-2.0
# Helpers for the fasttrack selftests, in the spirit of the kernel's
# tools/testing/selftests/net/lib.sh. POSIX sh (the guest runs dash).
#
# A test sources this file, sets up a topology, runs checks and ends with
# ft_exit. Each check prints one "TEST: ... [ OK ]" or "[FAIL]" line; a failed
# check prints the command that reproduces it and makes the test exit 1.
# Cleanup runs from an EXIT trap, in reverse order of the defer calls.
# Sourcing this file has no side effects beyond defining names.
# shellcheck shell=sh disable=SC3043 # dash has "local"

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4
# shellcheck disable=SC2034 # kernel_netfilter.sh
KSFT_XFAIL=2	# kselftest's ksft_xfail: expected to fail, not a failure

ret=$KSFT_PASS

# Kernel log lines that mean something went wrong in the kernel.
FT_SPLAT_RE='WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|possible recursive locking|suspicious RCU usage|unreferenced object|Call Trace|kernel BUG|refcount_t:|list_(add|del) corruption|blocked for more than|soft lockup|rcu_sched detected stall|rcu: INFO'

# Addresses: TEST-NET 198.18.0.0/15 and the documentation prefix 2001:db8::/32.
# Router-on-a-stick: VLAN 22 = 198.18.22.0/24, 2001:db8:22::/64;
#                    VLAN 2222 = 198.18.222.0/24, 2001:db8:2222::/64.
# Plain router:      198.18.1.0/24, 2001:db8:1::/64 (client side);
#                    198.18.2.0/24, 2001:db8:2::/64 (server side).
# The router is .1 / ::1 on each side, the client and the server are .2 / ::2.

# ---------------------------------------------------------------- output --

log_info() { echo "INFO: $*"; }

# An awk pattern for the lines of fasttrack's slab caches in /proc/slabinfo:
# a flow's cache is per family, with or without a NAT rewrite and a mark.
# shellcheck disable=SC2016 # $1 is awk's
FT_SLAB_AWK='$1 ~ /^ft_flow/'

# ft_slab_own: fasttrack's caches have lines of their own in /proc/slabinfo
# (not merged into another cache: boot.sh passes slab_nomerge).
ft_slab_own() { grep -q '^ft_flow ' /proc/slabinfo 2>/dev/null; }

# ft_slab_objs: the objects in use in fasttrack's slab caches. slabinfo
# counts the free objects of the slabs SLUB keeps per CPU as in use (on
# 5.10, some 30 slabs after a flush), so the caches give those back first
# (their sysfs "shrink", where there is one).
ft_slab_objs() {
	local f
	for f in /sys/kernel/slab/ft_flow*/shrink; do
		[ ! -w "$f" ] || echo 1 >"$f" 2>/dev/null || :
	done
	awk "$FT_SLAB_AWK"' { n += $2 } END { print n + 0 }' /proc/slabinfo
}

# quote ARGS...: print ARGS as one shell-quoted command line.
quote() {
	local a out=
	for a in "$@"; do
		case $a in
		*[!A-Za-z0-9_./:=@%+,-]* | '') a="'$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'" ;;
		esac
		out="$out${out:+ }$a"
	done
	printf '%s\n' "$out"
}

log_test() { printf 'TEST: %-64s [%s]\n' "$1" "$2"; }

# fail DESC [DETAIL...]: record a failed check and say why.
fail() {
	local desc=$1 l
	shift
	log_test "$desc" FAIL
	for l in "$@"; do
		printf '%s\n' "$l" | sed 's/^/\t/'
	done
	ret=$KSFT_FAIL
}

pass() { log_test "$1" " OK "; }

# ---------------------------------------------------------------- checks --

# check DESC CMD...: CMD must succeed.
check() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		pass "$desc"
	else
		fail "$desc" "command: $(quote "$@")" "exit $rc, output:" "$out"
	fi
}

# check_fail DESC REGEX CMD...: CMD must fail, and say something matching
# the (extended, case-insensitive) REGEX on stdout or stderr; "" matches all.
check_fail() {
	local desc=$1 re=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		fail "$desc" "command: $(quote "$@")" "succeeded but should have failed; output:" "$out"
	elif [ -n "$re" ] && ! printf '%s\n' "$out" | grep -qiE -- "$re"; then
		fail "$desc" "command: $(quote "$@")" "exit $rc, but the output does not match /$re/:" "$out"
	else
		pass "$desc"
	fi
}

# kver_ge MAJOR MINOR: the running kernel is at least MAJOR.MINOR.
kver_ge() {
	local v
	v=$(uname -r)
	[ "${v%%.*}" -gt "$1" ] ||
		{ [ "${v%%.*}" -eq "$1" ] && v=${v#*.} && [ "${v%%[!0-9]*}" -ge "$2" ]; }
}

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected: $2" "actual:   $3"
	fi
}

# check_output DESC EXPECTED CMD...: CMD must succeed and print EXPECTED.
check_output() {
	local desc=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$out" = "$want" ]; then
		pass "$desc"
	else
		fail "$desc" "command: $(quote "$@")" "exit $rc" "expected: $want" "actual:   $out"
	fi
}

# must CMD...: a setup step; on failure, print it and end the test (exit 1).
must() {
	local out
	if ! out=$("$@" 2>&1); then
		fail "setup: $1" "command: $(quote "$@")" "$out"
		exit "$KSFT_FAIL"
	fi
}

ft_skip() {
	echo "SKIP: $*"
	exit "$KSFT_SKIP"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || ft_skip "$c is not installed"
	done
}

ft_exit() { exit "$ret"; }

# ------------------------------------------------------------- waiting --

# now_ms: milliseconds since boot.
now_ms() {
	local up frac
	read -r up _ </proc/uptime
	frac=${up#*.}
	frac=${frac#0}
	echo $((${up%.*} * 1000 + frac * 10))
}

# FT_SLOWDOWN: a whole-number factor for the tests' timeouts (busywait,
# ft_secs), for a kernel that runs several times slower than Debian's:
# make check-debug (KASAN, lockdep and kmemleak under TCG) sets it on the
# guest's command line. 1 everywhere else.
FT_SLOWDOWN=${FT_SLOWDOWN:-1}

# ft_secs SECONDS: a timeout of SECONDS on this kernel.
ft_secs() { echo $(($1 * FT_SLOWDOWN)); }

# busywait TIMEOUT_MS CMD...: retry CMD until it succeeds or time runs out
# (TIMEOUT_MS times FT_SLOWDOWN).
busywait() {
	local timeout=$(($1 * FT_SLOWDOWN)) start
	shift
	start=$(now_ms)
	until "$@"; do
		[ $(($(now_ms) - start)) -lt "$timeout" ] || return 1
		sleep 0.05
	done
}

# ------------------------------------------------------------- cleanup --

FT_DEFER=
FT_TRAPPED=

ft_cleanup() {
	local cmds=$FT_DEFER cmd
	FT_DEFER=
	# Newest first; a failing cleanup step does not stop the others.
	while IFS= read -r cmd; do
		[ -n "$cmd" ] && eval "$cmd" </dev/null >/dev/null 2>&1
	done <<-EOF
		$cmds
	EOF
	return 0
}

# defer CMD...: run CMD when the test exits, in reverse order of deferral.
defer() {
	if [ -z "$FT_TRAPPED" ]; then
		trap ft_cleanup EXIT
		trap 'exit $KSFT_FAIL' HUP INT TERM
		FT_TRAPPED=1
	fi
	FT_DEFER="$(quote "$@")
$FT_DEFER"
}

# ------------------------------------------------------------ netns ----

ft_rand() { cut -c1-8 /proc/sys/kernel/random/uuid; }

# setup_ns VAR...: create one netns per VAR with a random name, store the
# name in VAR, bring lo up, and delete the netns on exit.
setup_ns() {
	local var ns
	for var in "$@"; do
		ns="$var-$(ft_rand)"
		must ip netns add "$ns"
		defer ip netns del "$ns"
		eval "$var=\$ns"
		must ip -n "$ns" link set lo up
		# No DAD: addresses are usable at once, no waiting.
		must ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0
		must ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.accept_dad=0
	done
}

# addr NS DEV IP4/LEN IP6/LEN: configure DEV and bring it up.
addr() {
	must ip -n "$1" addr add "$3" dev "$2"
	must ip -n "$1" addr add "$4" dev "$2" nodad
	must ip -n "$1" link set "$2" up
}

# host_side NS DEV IP4 IP6 GW4 GW6: an end host with a default route.
host_side() {
	addr "$1" "$2" "$3/24" "$4/64"
	must ip -n "$1" route add default via "$5"
	must ip -n "$1" -6 route add default via "$6"
}

router_forwarding() {
	must ip netns exec "$1" sysctl -qw net.ipv4.ip_forward=1
	must ip netns exec "$1" sysctl -qw net.ipv6.conf.all.forwarding=1
}

# topo_wait: client and server reach each other over both families.
ping_ok() { ip netns exec "$1" ping -c 1 -W 1 "$2" >/dev/null 2>&1; }
topo_wait() {
	must busywait 10000 ping_ok "$NS_CLIENT" "$SERVER_IP4"
	must busywait 10000 ping_ok "$NS_CLIENT" "$SERVER_IP6"
}

# stick_switch FAR_NS [TRUNK]: the switch of the router-on-a-stick: a
# vlan_filtering bridge in $NS_SWITCH with the client's eth0 untagged on
# VLAN 22, FAR_NS's eth0 untagged on VLAN 2222 (none if FAR_NS is ""),
# and the trunk to the router tagged with both: TRUNK, a port of
# $NS_SWITCH that exists already (a bond), or else swtrunk, the peer of a
# new veth trunk0 in the router.
stick_switch() {
	local trunk="${2:-swtrunk}" p ports="swp22"
	must ip -n "$NS_SWITCH" link add br0 type bridge vlan_filtering 1 vlan_default_pvid 0
	must ip -n "$NS_CLIENT" link add eth0 type veth peer name swp22 netns "$NS_SWITCH"
	if [ -n "$1" ]; then
		must ip -n "$1" link add eth0 type veth peer name swp2222 netns "$NS_SWITCH"
		ports="$ports swp2222"
	fi
	[ -n "$2" ] ||
		must ip -n "$NS_ROUTER" link add trunk0 type veth peer name swtrunk netns "$NS_SWITCH"
	for p in $ports "$trunk"; do
		must ip -n "$NS_SWITCH" link set "$p" master br0 up
	done
	must bridge -n "$NS_SWITCH" vlan add dev swp22 vid 22 pvid untagged
	[ -z "$1" ] ||
		must bridge -n "$NS_SWITCH" vlan add dev swp2222 vid 2222 pvid untagged
	must bridge -n "$NS_SWITCH" vlan add dev "$trunk" vid 22
	must bridge -n "$NS_SWITCH" vlan add dev "$trunk" vid 2222
	must ip -n "$NS_SWITCH" link set br0 up
}

# setup_router_on_a_stick: client (VLAN 22) and server (VLAN 2222) hang off
# a vlan_filtering bridge in the switch netns; the router reaches both over
# ONE tagged veth, trunk0, with VLAN subinterfaces vlan22 and vlan2222.
#
#   client eth0 --- swp22 [br0 switch] swp2222 --- eth0 server
#   (untagged 22)        swtrunk            (untagged 2222)
#                           | tagged 22 + 2222
#                 router trunk0 (vlan22, vlan2222)
setup_router_on_a_stick() {
	setup_ns NS_CLIENT NS_SERVER NS_SWITCH NS_ROUTER
	ROUTER_CLIENT_DEV=vlan22
	ROUTER_SERVER_DEV=vlan2222
	ROUTER_TRUNK_DEV=trunk0
	CLIENT_IP4=198.18.22.2 CLIENT_IP6=2001:db8:22::2
	SERVER_IP4=198.18.222.2 SERVER_IP6=2001:db8:2222::2
	ROUTER_CLIENT_IP4=198.18.22.1 ROUTER_CLIENT_IP6=2001:db8:22::1
	ROUTER_SERVER_IP4=198.18.222.1 ROUTER_SERVER_IP6=2001:db8:2222::1

	stick_switch "$NS_SERVER"

	router_forwarding "$NS_ROUTER"
	must ip -n "$NS_ROUTER" link set trunk0 up
	must ip -n "$NS_ROUTER" link add link trunk0 name vlan22 type vlan id 22
	must ip -n "$NS_ROUTER" link add link trunk0 name vlan2222 type vlan id 2222
	addr "$NS_ROUTER" vlan22 "$ROUTER_CLIENT_IP4/24" "$ROUTER_CLIENT_IP6/64"
	addr "$NS_ROUTER" vlan2222 "$ROUTER_SERVER_IP4/24" "$ROUTER_SERVER_IP6/64"

	host_side "$NS_CLIENT" eth0 "$CLIENT_IP4" "$CLIENT_IP6" "$ROUTER_CLIENT_IP4" "$ROUTER_CLIENT_IP6"
	host_side "$NS_SERVER" eth0 "$SERVER_IP4" "$SERVER_IP6" "$ROUTER_SERVER_IP4" "$ROUTER_SERVER_IP6"
	topo_wait
}

# setup_stick_wan: the router-on-a-stick's client side, and the server
# behind a device of the router's own, wan0, untagged (the addresses of
# setup_plain_router's server side): what the router forwards between
# them leaves by another device than it came in on.
#
#   client eth0 --- swp22 [br0 switch] swtrunk
#   (untagged 22)                         | tagged 22
#                                 router trunk0 (vlan22)
#                                  router wan0 --- eth0 server
setup_stick_wan() {
	setup_ns NS_CLIENT NS_SERVER NS_SWITCH NS_ROUTER
	ROUTER_CLIENT_DEV=vlan22
	ROUTER_SERVER_DEV=wan0
	ROUTER_TRUNK_DEV=trunk0
	CLIENT_IP4=198.18.22.2 CLIENT_IP6=2001:db8:22::2
	SERVER_IP4=198.18.2.2 SERVER_IP6=2001:db8:2::2
	ROUTER_CLIENT_IP4=198.18.22.1 ROUTER_CLIENT_IP6=2001:db8:22::1
	ROUTER_SERVER_IP4=198.18.2.1 ROUTER_SERVER_IP6=2001:db8:2::1

	stick_switch ""
	must ip -n "$NS_SERVER" link add eth0 type veth peer name wan0 netns "$NS_ROUTER"

	router_forwarding "$NS_ROUTER"
	must ip -n "$NS_ROUTER" link set trunk0 up
	must ip -n "$NS_ROUTER" link add link trunk0 name vlan22 type vlan id 22
	addr "$NS_ROUTER" vlan22 "$ROUTER_CLIENT_IP4/24" "$ROUTER_CLIENT_IP6/64"
	addr "$NS_ROUTER" wan0 "$ROUTER_SERVER_IP4/24" "$ROUTER_SERVER_IP6/64"

	host_side "$NS_CLIENT" eth0 "$CLIENT_IP4" "$CLIENT_IP6" "$ROUTER_CLIENT_IP4" "$ROUTER_CLIENT_IP6"
	host_side "$NS_SERVER" eth0 "$SERVER_IP4" "$SERVER_IP6" "$ROUTER_SERVER_IP4" "$ROUTER_SERVER_IP6"
	topo_wait
}

# setup_plain_router: client eth0 --- eth1 router eth2 --- eth0 server.
setup_plain_router() {
	setup_ns NS_CLIENT NS_SERVER NS_ROUTER
	NS_SWITCH=
	ROUTER_CLIENT_DEV=eth1
	ROUTER_SERVER_DEV=eth2
	CLIENT_IP4=198.18.1.2 CLIENT_IP6=2001:db8:1::2
	SERVER_IP4=198.18.2.2 SERVER_IP6=2001:db8:2::2
	ROUTER_CLIENT_IP4=198.18.1.1 ROUTER_CLIENT_IP6=2001:db8:1::1
	ROUTER_SERVER_IP4=198.18.2.1 ROUTER_SERVER_IP6=2001:db8:2::1

	must ip -n "$NS_CLIENT" link add eth0 type veth peer name eth1 netns "$NS_ROUTER"
	must ip -n "$NS_SERVER" link add eth0 type veth peer name eth2 netns "$NS_ROUTER"
	router_forwarding "$NS_ROUTER"
	addr "$NS_ROUTER" eth1 "$ROUTER_CLIENT_IP4/24" "$ROUTER_CLIENT_IP6/64"
	addr "$NS_ROUTER" eth2 "$ROUTER_SERVER_IP4/24" "$ROUTER_SERVER_IP6/64"
	host_side "$NS_CLIENT" eth0 "$CLIENT_IP4" "$CLIENT_IP6" "$ROUTER_CLIENT_IP4" "$ROUTER_CLIENT_IP6"
	host_side "$NS_SERVER" eth0 "$SERVER_IP4" "$SERVER_IP6" "$ROUTER_SERVER_IP4" "$ROUTER_SERVER_IP6"
	topo_wait
}

# ----------------------------------------------------------- nftables --

# nft_forward_ruleset NS [CLIENT_DEV SERVER_DEV]: a realistic forward
# ruleset of about 50 rules in table "inet ft_fwd". Named counters "c2s"
# and "s2c" count what the forward chain sees per direction (the slow path);
# new connections from the client side are accepted, and the chain ends in
# "ct state established,related accept" with a drop policy.
nft_forward_ruleset() {
	local ns=$1 cdev=${2:-$ROUTER_CLIENT_DEV} sdev=${3:-$ROUTER_SERVER_DEV} i rules=
	# Filler rules that real firewalls carry and test traffic never matches.
	i=1
	while [ "$i" -le 20 ]; do
		rules="$rules
		ip saddr 198.19.$i.0/24 tcp dport $((1000 + i)) drop
		ip6 saddr 2001:db8:ffff:$i::/64 udp dport $((2000 + i)) drop"
		i=$((i + 1))
	done
	must ip netns exec "$ns" nft -f - <<-EOF
		table inet ft_fwd {
			counter c2s { }
			counter s2c { }
			chain forward {
				type filter hook forward priority filter; policy drop;
				iifname "$cdev" oifname "$sdev" counter name "c2s"
				iifname "$sdev" oifname "$cdev" counter name "s2c"
				ct state invalid drop
				tcp flags & (fin|syn|rst|ack) == fin|syn drop
				tcp flags & (syn|rst) == syn|rst drop
				ip saddr 127.0.0.0/8 drop
				ip6 saddr ::1 drop
				$rules
				icmp type { echo-request, destination-unreachable, time-exceeded } accept
				icmpv6 type { echo-request, destination-unreachable, packet-too-big, time-exceeded } accept
				iifname "$cdev" oifname "$sdev" ct state new accept
				ct state established,related accept
			}
		}
	EOF
}

# nft_ct_ruleset NS: the least a router needs for fasttrack: a ruleset that
# uses conntrack (fasttrack learns only what conntrack tracks and does not
# turn it on), accepting everything as no ruleset does.
nft_ct_ruleset() {
	must ip netns exec "$1" nft -f - <<-EOF
		table inet ft_ct {
			chain forward {
				type filter hook forward priority filter; policy accept;
				ct state established,related accept
			}
		}
	EOF
}

# nft_counter_bytes NS NAME: the byte count of a named counter in ft_fwd.
nft_counter_bytes() {
	ip netns exec "$1" nft -j list counter inet ft_fwd "$2" |
		jq -r '.nftables[] | select(.counter) | .counter.bytes'
}

# -------------------------------------------------------------- fasttrack --

ft_module_loaded() { [ -d /sys/module/fasttrack ]; }

# ft_module_load: load fasttrack now and unload it when the test ends.
ft_module_load() {
	ft_module_loaded || must modprobe fasttrack
	defer ft_module_unload
}

ft_module_unload() {
	! ft_module_loaded || rmmod fasttrack
}

# ft_show NS: "ftctl -j show" in NS.
ft_show() { ip netns exec "$1" ftctl -j show; }

# ft_state NS DEV: the fasttrack state of DEV as "ipv4=BOOL ipv6=BOOL", or
# "absent" when "ftctl -j show" does not list it.
ft_state() {
	ft_show "$1" | jq -r --arg dev "$2" '
		map(select(.ifname == $dev)) |
		if length == 0 then "absent"
		else .[0] | "ipv4=\(.ipv4.enabled) ipv6=\(.ipv6.enabled)" end'
}

# ft_counter NS DEV FAMILY FIELD: a per-device counter (packets or bytes).
ft_counter() {
	ft_show "$1" | jq -r --arg dev "$2" --arg f "$3" --arg k "$4" \
		'.[] | select(.ifname == $dev) | .[$f][$k]'
}

# ------------------------------------------------------------- dmesg ----

# dmesg_mark: remember where the kernel log is now; dmesg_since prints what
# came after it.
dmesg_mark() { FT_DMESG_MARK=$(dmesg | wc -l); }
dmesg_since() { dmesg | tail -n +$((${FT_DMESG_MARK:-0} + 1)); }

# check_dmesg_clean DESC: no kernel splat since dmesg_mark.
check_dmesg_clean() {
	local splat
	splat=$(dmesg_since | grep -E -A 20 "$FT_SPLAT_RE")
	if [ -z "$splat" ]; then
		pass "$1"
	else
		fail "$1" "kernel log:" "$splat"
	fi
}
