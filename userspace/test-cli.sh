#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ftctl command-line tests that need no module: help, version, usage errors,
# and the "module not loaded" path. With the mock (test-mock.c, a fake
# kernel behind LD_PRELOAD), also the exact output of every read command
# and the kernel error paths. TAP output; exit 0 only if all pass.
#
#   sh test-cli.sh ./ftctl [./ftctl-mock.so]

FTCTL=${1:-./ftctl}
MOCK=${2:-}
MOCKENV=	# one VAR=value for the mock, for the next test only
n=0
failed=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# expect RC STDERR-SUBSTRING ARGS...: run ftctl, check exit code and stderr.
expect() {
	rc=$1 msg=$2
	shift 2
	n=$((n + 1))
	"$FTCTL" "$@" >"$out" 2>"$err"
	got=$?
	if [ "$got" -eq "$rc" ] && grep -qF -- "$msg" "$err" "$out"; then
		echo "ok $n - ftctl $*"
	else
		failed=$((failed + 1))
		echo "not ok $n - ftctl $* (exit $got, want $rc; want \"$msg\")"
		sed 's/^/# /' "$err" "$out"
	fi
}

expect 0 "Usage: ftctl" --help
expect 0 "Usage: ftctl" -h
expect 0 "Usage: ftctl" help
expect 0 "Usage: ftctl set KEY VALUE" help set
expect 0 "Usage: ftctl show [DEV]" show --help
expect 0 "Usage: ftctl enable DEV" enable lo -h
expect 0 "ftctl " --version
expect 0 "ftctl " -V
expect 2 "Usage: ftctl"
expect 2 "ftctl: unknown command 'frobnicate'" frobnicate
expect 2 "ftctl: unknown option '-x'" -x show
expect 2 "ftctl: unknown option '--bogus'" --bogus
expect 2 "goes before the command" show -j
expect 2 "ftctl: missing device name" enable
expect 2 "ftctl: missing device name" disable
expect 2 "ftctl: unknown family 'ipv5' (expected ipv4 or ipv6)" enable lo ipv5
expect 2 "ftctl: invalid device name" enable 0123456789abcdef
expect 1 "ftctl: no such device: ftctl-nosuch0" enable ftctl-nosuch0
expect 1 "ftctl: no such device: ftctl-nosuch0" show ftctl-nosuch0
expect 2 "ftctl: unexpected argument 'x'" show lo x
expect 2 "ftctl: unexpected argument 'x'" stats x
expect 2 "ftctl: unexpected argument 'x'" get x
expect 2 "ftctl: nothing to set" set
expect 2 "ftctl: unknown setting 'foo'" set foo 1
expect 2 "ftctl: missing value for max-flows" set max-flows
expect 2 "ftctl: invalid max-flows '-1'" set max-flows -1
expect 2 "ftctl: invalid max-flows '12x'" set max-flows 12x
expect 2 "ftctl: invalid max-flows '4294967296': too large" set max-flows 4294967296
expect 2 "ftctl: invalid tcp-timeout ' 5'" set tcp-timeout " 5"
expect 2 "ftctl: invalid skip-mark '0x1/'" set skip-mark 0x1/
expect 2 "ftctl: skip-mask given twice" set skip-mark 1/1 skip-mask 1
expect 2 "ftctl: udp-timeout given twice" set udp-timeout 1 udp-timeout 2

if [ -d /sys/module/fasttrack ]; then
	echo "# fasttrack is loaded: skipping the not-loaded tests"
else
	for cmd in show stats get "enable lo" "disable lo ipv4" "set max-flows 10"; do
		# shellcheck disable=SC2086
		expect 1 "ftctl: the fasttrack module is not loaded (try: modprobe fasttrack)" $cmd
	done
	expect 1 "ftctl: the fasttrack module is not loaded" -j show
fi

# same RC EXPECTED-STDOUT ARGS...: with the mock, compare stdout exactly.
same() {
	rc=$1 want=$2
	shift 2
	n=$((n + 1))
	# shellcheck disable=SC2086
	env $MOCKENV LD_PRELOAD="$MOCK" "$FTCTL" "$@" >"$out" 2>"$err"
	got=$?
	MOCKENV=
	if [ "$got" -eq "$rc" ] && [ "$(cat "$out")" = "$want" ]; then
		echo "ok $n - mock: ftctl $*"
	else
		failed=$((failed + 1))
		echo "not ok $n - mock: ftctl $* (exit $got, want $rc)"
		printf '%s\n' "$want" | diff - "$out" | sed 's/^/# /'
		sed 's/^/# /' "$err"
	fi
}

# mexpect RC STDERR-SUBSTRING ARGS...: expect, with the mock.
mexpect() {
	rc=$1 msg=$2
	shift 2
	n=$((n + 1))
	# shellcheck disable=SC2086
	env $MOCKENV LD_PRELOAD="$MOCK" "$FTCTL" "$@" >"$out" 2>"$err"
	got=$?
	MOCKENV=
	if [ "$got" -eq "$rc" ] && grep -qF -- "$msg" "$err"; then
		echo "ok $n - mock: ftctl $*"
	else
		failed=$((failed + 1))
		echo "not ok $n - mock: ftctl $* (exit $got, want $rc; want \"$msg\")"
		sed 's/^/# /' "$err"
	fi
}

if [ -n "$MOCK" ]; then
	same 0 'eth0 (ifindex 2)
  ipv4: on packets 123 bytes 4567
  ipv6: on packets 18446744073709551615 bytes 1
vlan"22\ (ifindex 5)
  ipv4: on packets 1 bytes 100
  ipv6: off packets 0 bytes 0
ifb1 (ifindex 7)
  ipv4: off packets 0 bytes 0
  ipv6: on packets 42 bytes 4200' show
	same 0 '[{"ifname":"eth0","ifindex":2,"ipv4":{"enabled":true,"packets":123,"bytes":4567},"ipv6":{"enabled":true,"packets":18446744073709551615,"bytes":1}},{"ifname":"vlan\"22\\","ifindex":5,"ipv4":{"enabled":true,"packets":1,"bytes":100},"ipv6":{"enabled":false,"packets":0,"bytes":0}},{"ifname":"ifb1","ifindex":7,"ipv4":{"enabled":false,"packets":0,"bytes":0},"ipv6":{"enabled":true,"packets":42,"bytes":4200}}]' -j show
	same 0 '[{"ifname":"eth0","ifindex":2,"ipv4":{"enabled":true,"packets":123,"bytes":4567},"ipv6":{"enabled":true,"packets":18446744073709551615,"bytes":1}}]' -j show eth0
	MOCKENV=FTMOCK_EMPTY=1; same 0 '[]' -j show
	MOCKENV=FTMOCK_EMPTY=1; same 0 '' show
	MOCKENV=FTMOCK_INTR=2; same 0 '[{"ifname":"eth0","ifindex":2,"ipv4":{"enabled":true,"packets":123,"bytes":4567},"ipv6":{"enabled":true,"packets":18446744073709551615,"bytes":1}}]' -j show eth0
	MOCKENV=FTMOCK_INTR=2; same 0 "$(LD_PRELOAD=$MOCK "$FTCTL" -j show 2>/dev/null)" -j show
	MOCKENV=FTMOCK_INTR=99; mexpect 1 "ftctl: show: the list kept changing while it was read; try again" show
	same 0 'flows:
  cached 2000
  learned 3000
  table-full 4000
  expired 5000
  torn-down 6000
  ct-gone 7000
  invalidated 8000
forwarded:
  packets 9000
  bytes 18446744073709551615
punted:
  no-entry 11000
  fragment 12000
  options 13000
  ttl 14000
  mtu 15000
  tcp-flags 16000
  not-writable 17000
  malformed 18000
  unknown 19000
  stale 20000' stats
	same 0 '{"flows":2000,"learned":3000,"table_full":4000,"expired":5000,"torn_down":6000,"ct_gone":7000,"invalidated":8000,"forwarded":{"packets":9000,"bytes":18446744073709551615},"punted":{"no_entry":11000,"fragment":12000,"options":13000,"ttl":14000,"mtu":15000,"tcp_flags":16000,"not_writable":17000,"malformed":18000,"unknown":19000,"stale":20000}}' -j stats
	same 0 'max-flows 65536
tcp-timeout 300
udp-timeout 30
skip-mark 0x10
skip-mask 0xffffffff' get
	same 0 '{"max_flows":65536,"tcp_timeout":300,"udp_timeout":30,"skip_mark":"0x10","skip_mask":"0xffffffff"}' -j get

	# What goes on the wire: FASTTRACK_A_FAMILIES is attribute 4.
	mexpect 0 "mock: attr 4=3" enable eth0
	mexpect 0 "mock: attr 4=1" enable eth0 ipv4
	mexpect 0 "mock: attr 4=2" disable eth0 ipv6
	n=$((n + 1))
	if LD_PRELOAD=$MOCK "$FTCTL" disable eth0 2>&1 | grep -q "attr 4="; then
		failed=$((failed + 1))
		echo "not ok $n - mock: disable without family sends no FAMILIES"
	else
		echo "ok $n - mock: disable without family sends no FAMILIES"
	fi
	mexpect 0 "mock: attr 12=4294967295" set skip-mark 0x10
	mexpect 0 "mock: attr 12=240" set skip-mark 0x10 skip-mask 0xf0
	mexpect 0 "mock: setsockopt NETLINK_EXT_ACK" stats
	mexpect 0 "mock: setsockopt NETLINK_CAP_ACK" stats

	# Kernel errors.
	mexpect 1 "ftctl: lo: device is not Ethernet-like" enable lo
	mexpect 1 "ftctl: no such device: ifb1" enable ifb1
	mexpect 1 "ftctl: ifb0: fasttrack is not enabled on this device" show ifb0
	mexpect 1 "ftctl: max-flows: integer out of range (allowed: 1-16777216)" set max-flows 0
	mexpect 1 "ftctl: tcp-timeout: value out of range" set udp-timeout 5 tcp-timeout 0
	MOCKENV=FTMOCK_EPERM=1; mexpect 1 "ftctl: not permitted: changing fasttrack state needs CAP_NET_ADMIN (run as root)" enable eth0
	MOCKENV=FTMOCK_EPERM=1; mexpect 1 "ftctl: not permitted" set max-flows 10
	MOCKENV=FTMOCK_NOFAMILY=1; mexpect 1 "ftctl: the fasttrack module is not loaded (try: modprobe fasttrack)" show
fi

echo "1..$n"
[ "$failed" -eq 0 ] || echo "# $failed of $n failed"
[ "$failed" -eq 0 ]
