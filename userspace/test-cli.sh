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
	if [ "$got" -eq "$rc" ] && { [ -z "$msg" ] || grep -qF -- "$msg" "$err" "$out"; }; then
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
expect 0 "Usage: ftctl show [dump] [[dev] DEV]" show --help
expect 0 "Usage: ftctl flows [dump] [dev DEV] [ipv4|ipv6]" flows --help
expect 0 "id family proto dir src sport dst dport nat_src nat_sport" help flows
expect 0 "Usage: ftctl flush [dev DEV] [ipv4|ipv6]" flush -h
expect 0 "Usage: ftctl monitor" monitor --help
expect 0 "flush or ruleset), until interrupted" help monitor
expect 0 "Usage: ftctl stats [-s|--per-cpu]" stats --help
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
# A name no device has yet is for the module to keep, not an error.
expect 1 "ftctl: the fasttrack module is not loaded" enable ftctl-nosuch0
expect 1 "ftctl: no such device: ftctl-nosuch0" show ftctl-nosuch0
expect 2 "ftctl: unexpected argument 'x'" show lo x
expect 2 "ftctl: unexpected argument 'x'" stats x
expect 2 "ftctl: unexpected argument '-x'" stats -x
expect 2 "ftctl: unexpected argument 'x' (expected dump, dev DEV, ipv4, ipv6, src, dst, addr, sport, dport, port or proto)" flows x
expect 2 "ftctl: unexpected argument 'dump' (expected dev DEV, ipv4, ipv6, src, dst, addr, sport, dport, port or proto)" flush dump
expect 2 "ftctl: missing device name after 'dev'" flows dev
expect 2 "ftctl: missing device name after 'dev'" show dev
expect 2 "ftctl: only one device may be given" flush dev lo dev lo
expect 2 "ftctl: 'dump' given twice" flows dump dump
expect 2 "does not combine with -j" -j flows dump
expect 2 "does not combine with -j" -j show dump
expect 2 "ftctl: invalid device name" flows dev 0123456789abcdef
expect 1 "ftctl: no such device: ftctl-nosuch0" flows dev ftctl-nosuch0
expect 1 "ftctl: no such device: ftctl-nosuch0" flush dev ftctl-nosuch0 ipv6
expect 1 "ftctl: no such device: ftctl-nosuch0" show dev ftctl-nosuch0
expect 2 "ftctl: unexpected argument 'x'" monitor x
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
expect 2 "ftctl: family 'ipv4' given twice" enable lo ipv4 ipv4
expect 2 "ftctl: unknown option '-f'" enable -f lo
expect 0 "" disable -f ftctl-nosuch0
expect 0 "" disable --force ftctl-nosuch0 ipv6
expect 2 "ftctl: unexpected argument 'x'" save x
expect 2 "ftctl: save prints commands for ftctl -b; it has no JSON form" -j save
# Batch: the file is checked before anything is sent, so these need no module.
expect 2 "ftctl: option '-b' needs a file" -b
expect 2 "ftctl: -b runs the commands of a file; unexpected 'show' after it" -b /dev/null show
expect 1 "ftctl: cannot open /nonexistent/ftctl.conf: No such file or directory" -b /nonexistent/ftctl.conf
expect 0 "" -b /dev/null
bf=$(mktemp)
printf '# comment\n\nenable lo\n  enable lo ipv5  # bad family\n' >"$bf"
expect 2 "ftctl: $bf:4: unknown family 'ipv5' (expected ipv4 or ipv6)" -b "$bf"
printf 'show\nfrobnicate\n' >"$bf"
expect 2 "ftctl: $bf:2: unknown command 'frobnicate'" -b "$bf"
printf 'set max-flows 10\n-j show\n' >"$bf"
expect 2 "ftctl: $bf:2: unknown command '-j'" -b "$bf"
printf 'monitor\n' >"$bf"
expect 2 "ftctl: $bf:1: 'monitor' is not a command for a batch" -b "$bf"
printf 'top 1\n' >"$bf"
expect 2 "ftctl: $bf:1: in a batch, live rates need -c COUNT" -b "$bf"
printf 'show ftctl-nosuch0\n' >"$bf"
expect 1 "ftctl: $bf:1: no such device: ftctl-nosuch0" -b "$bf"
printf 'set max-flows x\n' >"$bf"
expect 2 "ftctl: $bf:1: invalid max-flows 'x'" -b "$bf"
# Live rates: arguments.
expect 2 "ftctl: invalid count '0' (expected a number of intervals, 1 or more)" top -c 0
expect 2 "ftctl: missing number after '-c'" top -c
expect 2 "ftctl: invalid interval '0' (expected seconds, 0.01 to 86400" top 0
expect 2 "ftctl: invalid interval '0.001'" show -r 0.001
expect 2 "ftctl: unexpected argument '-x' (expected SECONDS, -c COUNT or devices)" top -x
expect 2 "ftctl: unexpected argument 'dump'" show -r dump
expect 1 "ftctl: no such device: ftctl-nosuch0" show -r 2 ftctl-nosuch0
expect 0 "Usage: ftctl top [SECONDS] [-c COUNT] [DEV...]" top --help
# flows and flush filters.
expect 2 "ftctl: invalid address '1.2.3' after 'src' (expected an IPv4 or IPv6 address)" flows src 1.2.3
expect 2 "ftctl: invalid port '65536' after 'dport' (expected 0 to 65535)" flows dport 65536
expect 2 "ftctl: invalid protocol 'icmp' (expected tcp or udp: the fast path has no other)" flows proto icmp
expect 2 "ftctl: 'sport' given twice" flows sport 1 sport 2
expect 2 "ftctl: missing value after 'addr'" flows addr
expect 2 "ftctl: IPv4 and IPv6 addresses together match no flow" flows src 1.2.3.4 dst ::1
expect 2 "ftctl: the address is IPv4, but only ipv6 was asked for" flows ipv6 src 1.2.3.4
expect 1 "ftctl: the fasttrack module is not loaded" flush port 53
# xdp: arguments, checked before anything is attached.
expect 0 "Usage: ftctl xdp on|off DEV | off all | show" xdp --help
expect 2 "ftctl: unknown xdp command 'frob' (expected on, off or show)" xdp frob
expect 2 "ftctl: missing device name after 'on'" xdp on
expect 2 "ftctl: missing device name after 'off'" xdp off
expect 2 "ftctl: unexpected argument 'x'" xdp on lo x
expect 2 "ftctl: unexpected argument 'x'" xdp show x
expect 2 "ftctl: invalid device name" xdp on 0123456789abcdef
expect 1 "ftctl: no such device: ftctl-nosuch0" xdp on ftctl-nosuch0
expect 1 "ftctl: no such device: ftctl-nosuch0" xdp off ftctl-nosuch0
expect 2 "ftctl: xdp on prints no JSON" -j xdp on lo
printf 'xdp on lo\nxdp frob lo\n' >"$bf"
expect 2 "ftctl: $bf:2: unknown xdp command 'frob'" -b "$bf"
# In a batch, a device that is not there yet is skipped, said, and the
# rest runs (here: as far as the module, which is not loaded).
printf 'xdp on ftctl-nosuch0\nxdp off ftctl-nosuch0\nshow\n' >"$bf"
expect 1 "ftctl: $bf:1: warning: xdp on ftctl-nosuch0: no such device, skipped" -b "$bf"
expect 1 "ftctl: $bf:3: the fasttrack module is not loaded" -b "$bf"
# Without the module, "on" says so (after the kernel's checks), or that
# this ftctl has no XDP tier; "off" of a device the tier is not on is not
# an error.
if "$FTCTL" xdp on lo 2>&1 | grep -q "built without the XDP tier"; then
	expect 1 "ftctl: this ftctl was built without the XDP tier" xdp on lo
elif [ ! -d /sys/module/fasttrack ] && [ -e /sys/kernel/btf/vmlinux ]; then
	expect 1 "ftctl: the fasttrack module is not loaded (try: modprobe fasttrack)" xdp on lo
fi
expect 0 "xdp is already off for lo" xdp off lo

if [ -d /sys/module/fasttrack ]; then
	echo "# fasttrack is loaded: skipping the not-loaded tests"
else
	for cmd in show stats get "enable lo" "disable lo ipv4" "set max-flows 10" \
		flows "flows dump" flush monitor "stats -s" "show dump"; do
		# shellcheck disable=SC2086
		expect 1 "ftctl: the fasttrack module is not loaded (try: modprobe fasttrack)" $cmd
	done
	expect 1 "ftctl: the fasttrack module is not loaded" -j show
	printf '\n# good syntax\nenable lo\n' >"$bf"
	expect 1 "ftctl: $bf:3: the fasttrack module is not loaded" -b "$bf"
fi
rm -f "$bf"

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

# mgrep FILE RC SUBSTRING ARGS...: with the mock, exit RC and SUBSTRING
# in the run's $out or $err (FILE); what it printed if not.
mgrep() {
	file=$1 rc=$2 msg=$3
	shift 3
	n=$((n + 1))
	# shellcheck disable=SC2086
	env $MOCKENV LD_PRELOAD="$MOCK" "$FTCTL" "$@" >"$out" 2>"$err"
	got=$?
	MOCKENV=
	if [ "$got" -eq "$rc" ] && grep -qF -- "$msg" "$file"; then
		echo "ok $n - mock: ftctl $*"
	else
		failed=$((failed + 1))
		echo "not ok $n - mock: ftctl $* (exit $got, want $rc; want \"$msg\")"
		[ "$file" = "$err" ] || sed 's/^/# /' "$out"
		sed 's/^/# /' "$err"
	fi
}

# mout RC STDOUT-SUBSTRING ARGS...: with the mock, a part of stdout.
mout() { mgrep "$out" "$@"; }

# mexpect RC STDERR-SUBSTRING ARGS...: expect, with the mock.
mexpect() { mgrep "$err" "$@"; }

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
	# An older module: exactly the output of the ftctl before flows.
	MOCKENV=FTMOCK_OLD=1; same 0 'flows:
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
	MOCKENV=FTMOCK_OLD=1; same 0 '{"json_schema_version":1,"flows":2000,"learned":3000,"table_full":4000,"expired":5000,"torn_down":6000,"ct_gone":7000,"invalidated":8000,"forwarded":{"packets":9000,"bytes":18446744073709551615},"punted":{"no_entry":11000,"fragment":12000,"options":13000,"ttl":14000,"mtu":15000,"tcp_flags":16000,"not_writable":17000,"malformed":18000,"unknown":19000,"stale":20000}}' -j stats
	stats_prev_text='flows:
  cached 2000
  learned 3000
  table-full 4000
  expired 5000
  torn-down 6000
  ct-gone 7000
  invalidated 8000
  route-changed 22000
  neigh-changed 23000
  flushed 24000
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
  stale 20000'
	stats_text='flows:
  cached 2000
  learned 3000
  table-full 4000
  expired 5000
  torn-down 6000
  ct-gone 7000
  invalidated 8000
  route-changed 22000
  neigh-changed 23000
  flushed 24000
  ruleset-changed 25000
  route-revalidated 37000
  rule-skipped 38000
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
  stale 20000
  not-forwarding 26000
  port 27000
not-learned:
  zone 28000
  helper 29000
  flowtable 30000
  lwtunnel 31000
  vrf 32000
  xfrm 33000
  egress-dev 34000
  no-neigh 35000
  raced 36000
  mangled 39000'
	stats_prev_json='"flows":2000,"learned":3000,"table_full":4000,"expired":5000,"torn_down":6000,"ct_gone":7000,"invalidated":8000,"route_changed":22000,"neigh_changed":23000,"flushed":24000,"forwarded":{"packets":9000,"bytes":18446744073709551615},"punted":{"no_entry":11000,"fragment":12000,"options":13000,"ttl":14000,"mtu":15000,"tcp_flags":16000,"not_writable":17000,"malformed":18000,"unknown":19000,"stale":20000}'
	stats_json='"flows":2000,"learned":3000,"table_full":4000,"expired":5000,"torn_down":6000,"ct_gone":7000,"invalidated":8000,"route_changed":22000,"neigh_changed":23000,"flushed":24000,"ruleset_changed":25000,"route_revalidated":37000,"rule_skipped":38000,"forwarded":{"packets":9000,"bytes":18446744073709551615},"punted":{"no_entry":11000,"fragment":12000,"options":13000,"ttl":14000,"mtu":15000,"tcp_flags":16000,"not_writable":17000,"malformed":18000,"unknown":19000,"stale":20000,"not_forwarding":26000,"port":27000},"not_learned":{"zone":28000,"helper":29000,"flowtable":30000,"lwtunnel":31000,"vrf":32000,"xfrm":33000,"egress_dev":34000,"no_neigh":35000,"raced":36000,"mangled":39000}'
	same 0 "$stats_text" stats
	same 0 "{\"json_schema_version\":1,$stats_json}" -j stats
	same 0 "$stats_text
per-cpu:
  cpu learned table-full expired torn-down ct-gone invalidated route-changed neigh-changed flushed ruleset-changed route-revalidated rule-skipped fwd-packets fwd-bytes no-entry fragment options ttl mtu tcp-flags not-writable malformed unknown stale not-forwarding port zone helper flowtable lwtunnel vrf xfrm egress-dev no-neigh raced mangled
  0 30 40 50 60 70 80 220 230 240 250 370 380 90 100 110 120 130 140 150 160 170 180 190 200 260 270 280 290 300 310 320 330 340 350 360 390
  3 31 41 51 61 71 81 221 231 241 251 371 381 91 101 111 121 131 141 151 - - - - - 261 271 281 291 301 311 321 331 341 351 361 391" stats -s
	same 0 "{\"json_schema_version\":1,$stats_json,\"per_cpu\":[{\"cpu\":0,\"learned\":30,\"table_full\":40,\"expired\":50,\"torn_down\":60,\"ct_gone\":70,\"invalidated\":80,\"route_changed\":220,\"neigh_changed\":230,\"flushed\":240,\"ruleset_changed\":250,\"route_revalidated\":370,\"rule_skipped\":380,\"forwarded\":{\"packets\":90,\"bytes\":100},\"punted\":{\"no_entry\":110,\"fragment\":120,\"options\":130,\"ttl\":140,\"mtu\":150,\"tcp_flags\":160,\"not_writable\":170,\"malformed\":180,\"unknown\":190,\"stale\":200,\"not_forwarding\":260,\"port\":270},\"not_learned\":{\"zone\":280,\"helper\":290,\"flowtable\":300,\"lwtunnel\":310,\"vrf\":320,\"xfrm\":330,\"egress_dev\":340,\"no_neigh\":350,\"raced\":360,\"mangled\":390}},{\"cpu\":3,\"learned\":31,\"table_full\":41,\"expired\":51,\"torn_down\":61,\"ct_gone\":71,\"invalidated\":81,\"route_changed\":221,\"neigh_changed\":231,\"flushed\":241,\"ruleset_changed\":251,\"route_revalidated\":371,\"rule_skipped\":381,\"forwarded\":{\"packets\":91,\"bytes\":101},\"punted\":{\"no_entry\":111,\"fragment\":121,\"options\":131,\"ttl\":141,\"mtu\":151,\"not_forwarding\":261,\"port\":271},\"not_learned\":{\"zone\":281,\"helper\":291,\"flowtable\":301,\"lwtunnel\":311,\"vrf\":321,\"xfrm\":331,\"egress_dev\":341,\"no_neigh\":351,\"raced\":361,\"mangled\":391}}]}" -j stats --per-cpu
	# A module from before the not-learned counters: the rows and groups
	# it does not send are left out, and so are their per-CPU columns.
	MOCKENV=FTMOCK_NO_NOLEARN=1; same 0 "$stats_prev_text" stats
	MOCKENV=FTMOCK_NO_NOLEARN=1; same 0 "{\"json_schema_version\":1,$stats_prev_json}" -j stats
	MOCKENV=FTMOCK_NO_NOLEARN=1; same 0 "$stats_prev_text
per-cpu:
  cpu learned table-full expired torn-down ct-gone invalidated route-changed neigh-changed flushed fwd-packets fwd-bytes no-entry fragment options ttl mtu tcp-flags not-writable malformed unknown stale
  0 30 40 50 60 70 80 220 230 240 90 100 110 120 130 140 150 160 170 180 190 200
  3 31 41 51 61 71 81 221 231 241 91 101 111 121 131 141 151 - - - - -" stats -s
	MOCKENV=FTMOCK_OLD=1; mexpect 1 "ftctl: this fasttrack module does not support per-CPU statistics (upgrade the module)" stats -s
	# Per-CPU counters come from the dump, one message per CPU; from a
	# module before it, with the deprecated flag, and print the same.
	mexpect 0 "mock: STATS_GET dump" stats -s
	MOCKENV=FTMOCK_NO_STATS_DUMP=1; mexpect 0 "mock: attr 13 (flag)" stats -s
	MOCKENV=FTMOCK_NO_STATS_DUMP=1; same 0 "$stats_text
per-cpu:
  cpu learned table-full expired torn-down ct-gone invalidated route-changed neigh-changed flushed ruleset-changed route-revalidated rule-skipped fwd-packets fwd-bytes no-entry fragment options ttl mtu tcp-flags not-writable malformed unknown stale not-forwarding port zone helper flowtable lwtunnel vrf xfrm egress-dev no-neigh raced mangled
  0 30 40 50 60 70 80 220 230 240 250 370 380 90 100 110 120 130 140 150 160 170 180 190 200 260 270 280 290 300 310 320 330 340 350 360 390
  3 31 41 51 61 71 81 221 231 241 251 371 381 91 101 111 121 131 141 151 - - - - - 261 271 281 291 301 311 321 331 341 351 361 391" stats -s
	n=$((n + 1))
	if LD_PRELOAD=$MOCK "$FTCTL" stats 2>&1 | grep -q "attr 13"; then
		failed=$((failed + 1))
		echo "not ok $n - mock: stats without -s does not ask for per-CPU counters"
	else
		echo "ok $n - mock: stats without -s does not ask for per-CPU counters"
	fi

	# A module with the XDP tier: its counters, the tier and what it
	# would bypass; -r and stats show them too. Without it (above), none.
	MOCKENV=FTMOCK_XDP=1; same 0 'eth0 (ifindex 2)
  ipv4: on packets 123 bytes 4567 (xdp packets 61 bytes 2283)
  ipv6: on packets 18446744073709551615 bytes 1 (xdp packets 9223372036854775807 bytes 0)
  tier: skb
vlan"22\ (ifindex 5)
  ipv4: on packets 1 bytes 100 (xdp packets 0 bytes 50)
  ipv6: off packets 0 bytes 0 (xdp packets 0 bytes 0)
  tier: skb (xdp steps aside: tap, qdisc)
ifb1 (ifindex 7)
  ipv4: off packets 0 bytes 0
  ipv6: on packets 42 bytes 4200 (xdp packets 21 bytes 2100)
  tier: skb' show
	MOCKENV=FTMOCK_XDP=1; same 0 '[{"ifname":"eth0","ifindex":2,"ipv4":{"enabled":true,"packets":123,"bytes":4567,"xdp":{"packets":61,"bytes":2283}},"ipv6":{"enabled":true,"packets":18446744073709551615,"bytes":1,"xdp":{"packets":9223372036854775807,"bytes":0}},"tier":"skb","xdp_blocked":[]}]' -j show eth0
	MOCKENV=FTMOCK_XDP=1; mout 0 '"bytes":0}},"tier":"skb","xdp_blocked":["tap","qdisc"]},{"ifname":"ifb1"' -j show
	MOCKENV=FTMOCK_XDP=1; mout 0 "  bypassed 40000" stats
	MOCKENV=FTMOCK_XDP=1; mout 0 '"xdp":{"bypassed":40000}' -j stats
	MOCKENV=FTMOCK_XDP=1; mout 0 "  untracked 41000" stats
	MOCKENV=FTMOCK_XDP=1; mout 0 '"mangled":39000,"untracked":41000}' -j stats
	MOCKENV="FTMOCK_XDP=1 FTMOCK_TICK=1"; mout 0 "kbit/s  xdp " show -r 1 -c 1 eth0
	MOCKENV="FTMOCK_XDP=1 FTMOCK_TICK=1"; mout 0 '"xdp":{"packets":500,"bytes":50000,' -j show -r 1 -c 1 eth0
	if LD_PRELOAD=$MOCK "$FTCTL" show 2>/dev/null | grep -q "xdp\|tier"; then
		n=$((n + 1)); failed=$((failed + 1))
		echo "not ok $n - mock: a module without the XDP tier: show prints nothing of it"
	else
		n=$((n + 1))
		echo "ok $n - mock: a module without the XDP tier: show prints nothing of it"
	fi
	# show dump: tab-separated, in ifindex order; "dev dump" is a device.
	T=$(printf '\t')
	same 0 "eth0${T}2${T}on${T}123${T}4567${T}on${T}18446744073709551615${T}1
vlan\"22\\${T}5${T}on${T}1${T}100${T}off${T}0${T}0
ifb1${T}7${T}off${T}0${T}0${T}on${T}42${T}4200" show dump
	same 0 "eth0${T}2${T}on${T}123${T}4567${T}on${T}18446744073709551615${T}1" show dump eth0
	same 0 "eth0${T}2${T}on${T}123${T}4567${T}on${T}18446744073709551615${T}1" show eth0 dump
	same 0 'eth0 (ifindex 2)
  ipv4: on packets 123 bytes 4567
  ipv6: on packets 18446744073709551615 bytes 1' show dev eth0
	mexpect 1 "ftctl: no such device: dump" show dev dump
	MOCKENV=FTMOCK_EMPTY=1; same 0 '' show dump

	# flows: one line per direction, NAT only when translated.
	flows_text='ipv4 tcp 198.18.22.2:40000 -> 198.18.222.2:5201 in vlan22 vid 22 out vlan2222 vid 2222 dir original packets 10 bytes 1500 age 12.3s idle 0.5s id 1
ipv4 tcp 198.18.222.2:5201 -> 198.18.22.2:40000 in vlan2222 vid 2222 out vlan22 vid 22 dir reply packets 20 bytes 30000 age 12.3s idle 0.0s id 2
ipv6 udp [2001:db8:1::2]:5353 -> [2001:db8:2::2]:53 nat [2001:db8:2::1]:1024 -> [2001:db8:2::2]:53 in eth1 out eth2 dir original packets 18446744073709551615 bytes 0 age 1h02m idle 1d01h id 7
ipv4 udp 198.18.2.2:53 -> 198.18.2.1:1024 nat 198.18.2.2:53 -> 198.18.1.2:5353 in if199 out eth1 dir reply packets 1 bytes 60 age 1m01s idle 59.9s id 9'
	same 0 "$flows_text" flows
	same 0 '[{"id":1,"family":"ipv4","proto":"tcp","dir":"original","src":"198.18.22.2","sport":40000,"dst":"198.18.222.2","dport":5201,"nat_src":"198.18.22.2","nat_sport":40000,"nat_dst":"198.18.222.2","nat_dport":5201,"iif":102,"iif_name":"vlan22","iif_vlan":22,"oif":103,"oif_name":"vlan2222","oif_vlan":2222,"packets":10,"bytes":1500,"age_ms":12345,"idle_ms":500},{"id":2,"family":"ipv4","proto":"tcp","dir":"reply","src":"198.18.222.2","sport":5201,"dst":"198.18.22.2","dport":40000,"nat_src":"198.18.222.2","nat_sport":5201,"nat_dst":"198.18.22.2","nat_dport":40000,"iif":103,"iif_name":"vlan2222","iif_vlan":2222,"oif":102,"oif_name":"vlan22","oif_vlan":22,"packets":20,"bytes":30000,"age_ms":12345,"idle_ms":0},{"id":7,"family":"ipv6","proto":"udp","dir":"original","src":"2001:db8:1::2","sport":5353,"dst":"2001:db8:2::2","dport":53,"nat_src":"2001:db8:2::1","nat_sport":1024,"nat_dst":"2001:db8:2::2","nat_dport":53,"iif":104,"iif_name":"eth1","oif":105,"oif_name":"eth2","packets":18446744073709551615,"bytes":0,"age_ms":3723000,"idle_ms":90061000},{"id":9,"family":"ipv4","proto":"udp","dir":"reply","src":"198.18.2.2","sport":53,"dst":"198.18.2.1","dport":1024,"nat_src":"198.18.2.2","nat_sport":53,"nat_dst":"198.18.1.2","nat_dport":5353,"iif":199,"iif_name":"if199","oif":104,"oif_name":"eth1","packets":1,"bytes":60,"age_ms":61000,"idle_ms":59999}]' -j flows
	same 0 "1${T}ipv4${T}tcp${T}original${T}198.18.22.2${T}40000${T}198.18.222.2${T}5201${T}198.18.22.2${T}40000${T}198.18.222.2${T}5201${T}vlan22${T}22${T}vlan2222${T}2222${T}10${T}1500${T}12345${T}500
2${T}ipv4${T}tcp${T}reply${T}198.18.222.2${T}5201${T}198.18.22.2${T}40000${T}198.18.222.2${T}5201${T}198.18.22.2${T}40000${T}vlan2222${T}2222${T}vlan22${T}22${T}20${T}30000${T}12345${T}0
7${T}ipv6${T}udp${T}original${T}2001:db8:1::2${T}5353${T}2001:db8:2::2${T}53${T}2001:db8:2::1${T}1024${T}2001:db8:2::2${T}53${T}eth1${T}-${T}eth2${T}-${T}18446744073709551615${T}0${T}3723000${T}90061000
9${T}ipv4${T}udp${T}reply${T}198.18.2.2${T}53${T}198.18.2.1${T}1024${T}198.18.2.2${T}53${T}198.18.1.2${T}5353${T}if199${T}-${T}eth1${T}-${T}1${T}60${T}61000${T}59999" flows dump
	same 0 "$(printf '%s\n' "$flows_text" | sed -n 3p)" flows ipv6
	same 0 "$(printf '%s\n' "$flows_text" | sed -n 1p)" flows dev vlan22
	same 0 "$(printf '%s\n' "$flows_text" | sed -n 1p)" flows ipv4 dev vlan22 ipv6
	same 0 '' flows dev eth1 ipv4
	same 0 '[]' -j flows dev eth1 ipv4
	MOCKENV=FTMOCK_EMPTY=1; same 0 '' flows
	MOCKENV=FTMOCK_EMPTY=1; same 0 '[]' -j flows
	MOCKENV=FTMOCK_EMPTY=1; same 0 '' flows dump
	mexpect 0 "mock: IFNAME=vlan22" flows dev vlan22 ipv4
	mexpect 0 "mock: attr 4=1" flows dev vlan22 ipv4
	mexpect 0 "mock: attr 4=3" flows ipv6 ipv4
	n=$((n + 1))
	if LD_PRELOAD=$MOCK "$FTCTL" flows 2>&1 | grep -q "attr 4="; then
		failed=$((failed + 1))
		echo "not ok $n - mock: flows without a family sends no FAMILIES"
	else
		echo "ok $n - mock: flows without a family sends no FAMILIES"
	fi
	mexpect 1 "ftctl: lo: fasttrack is not enabled on this device" flows dev lo
	# NLM_F_DUMP_INTR: no restart (that would repeat flows), a warning.
	MOCKENV=FTMOCK_INTR=1; same 1 "$flows_text" flows
	MOCKENV=FTMOCK_INTR=1; mexpect 1 "ftctl: warning: the kernel flagged the flow dump as inconsistent" flows
	MOCKENV=FTMOCK_OLD=1; mexpect 1 "ftctl: this fasttrack module does not support flows (upgrade the module)" flows
	MOCKENV=FTMOCK_OLD=1; mexpect 1 "ftctl: this fasttrack module does not support flows (upgrade the module)" -j flows
	MOCKENV=FTMOCK_OLD=1; same 1 '' -j flows

	# 100 000 flows, streamed across many reads: all there, each once.
	n=$((n + 1))
	FTMOCK_FLOWS=100000 LD_PRELOAD=$MOCK "$FTCTL" flows dump >"$out" 2>"$err"
	got=$?
	lines=$(wc -l <"$out")
	dups=$(cut -f1 "$out" | sort | uniq -d | wc -l)
	badnf=$(awk -F '\t' 'NF != 20' "$out" | wc -l)
	if [ "$got" -eq 0 ] && [ "$lines" -eq 100000 ] && [ "$dups" -eq 0 ] && [ "$badnf" -eq 0 ]; then
		echo "ok $n - mock: flows dump of 100000 flows"
	else
		failed=$((failed + 1))
		echo "not ok $n - mock: flows dump of 100000 flows (exit $got, $lines lines, $dups duplicate ids, $badnf lines without 20 fields)"
	fi
	if command -v jq >/dev/null; then
		n=$((n + 1))
		got=$(FTMOCK_FLOWS=20000 LD_PRELOAD=$MOCK "$FTCTL" -j flows 2>/dev/null |
			jq '[length, ([.[].id] | unique | length)] | join(" ")')
		if [ "$got" = '"20000 20000"' ]; then
			echo "ok $n - mock: -j flows of 20000 flows parses, ids unique"
		else
			failed=$((failed + 1))
			echo "not ok $n - mock: -j flows of 20000 flows: $got"
		fi
	fi

	# flush
	same 0 '' flush
	mexpect 0 "mock: FLUSH" flush dev vlan22 ipv6
	mexpect 0 "mock: attr 4=2" flush dev vlan22 ipv6
	MOCKENV=FTMOCK_EPERM=1; mexpect 1 "ftctl: not permitted: changing fasttrack state needs CAP_NET_ADMIN in the user namespace that owns this network namespace" flush
	MOCKENV=FTMOCK_OLD=1; mexpect 1 "ftctl: this fasttrack module does not support flush (upgrade the module)" flush

	# monitor: events until the mock's SIGTERM, exit 0; lost events warned.
	same 0 'new ipv4 tcp 198.18.22.2:40000 -> 198.18.222.2:5201 in vlan22 vid 22 out vlan2222 vid 2222 dir original id 1
new ipv6 udp [2001:db8:1::2]:5353 -> [2001:db8:2::2]:53 nat [2001:db8:2::1]:1024 -> [2001:db8:2::2]:53 in eth1 out eth2 dir original id 7
del ipv4 tcp 198.18.22.2:40000 -> 198.18.222.2:5201 in vlan22 vid 22 out vlan2222 vid 2222 dir original packets 10 bytes 1500 age 12.3s idle 0.5s id 1 reason torn-down
del ipv6 udp [2001:db8:1::2]:5353 -> [2001:db8:2::2]:53 nat [2001:db8:2::1]:1024 -> [2001:db8:2::2]:53 in eth1 out eth2 dir original packets 18446744073709551615 bytes 0 age 1h02m idle 1d01h id 7 reason 99
del ipv4 tcp 198.18.222.2:5201 -> 198.18.22.2:40000 in vlan2222 vid 2222 out vlan22 vid 22 dir reply packets 20 bytes 30000 age 12.3s idle 0.0s id 2 reason ruleset' monitor
	mexpect 0 "ftctl: warning: events were lost" monitor
	mexpect 0 "mock: setsockopt NETLINK_ADD_MEMBERSHIP 12" monitor
	same 0 '{"json_schema_version":1,"event":"new","id":1,"family":"ipv4","proto":"tcp","dir":"original","src":"198.18.22.2","sport":40000,"dst":"198.18.222.2","dport":5201,"nat_src":"198.18.22.2","nat_sport":40000,"nat_dst":"198.18.222.2","nat_dport":5201,"iif":102,"iif_name":"vlan22","iif_vlan":22,"oif":103,"oif_name":"vlan2222","oif_vlan":2222,"packets":10,"bytes":1500,"age_ms":12345,"idle_ms":500}
{"json_schema_version":1,"event":"new","id":7,"family":"ipv6","proto":"udp","dir":"original","src":"2001:db8:1::2","sport":5353,"dst":"2001:db8:2::2","dport":53,"nat_src":"2001:db8:2::1","nat_sport":1024,"nat_dst":"2001:db8:2::2","nat_dport":53,"iif":104,"iif_name":"eth1","oif":105,"oif_name":"eth2","packets":18446744073709551615,"bytes":0,"age_ms":3723000,"idle_ms":90061000}
{"json_schema_version":1,"event":"del","id":1,"family":"ipv4","proto":"tcp","dir":"original","src":"198.18.22.2","sport":40000,"dst":"198.18.222.2","dport":5201,"nat_src":"198.18.22.2","nat_sport":40000,"nat_dst":"198.18.222.2","nat_dport":5201,"iif":102,"iif_name":"vlan22","iif_vlan":22,"oif":103,"oif_name":"vlan2222","oif_vlan":2222,"packets":10,"bytes":1500,"age_ms":12345,"idle_ms":500,"reason":"torn-down"}
{"json_schema_version":1,"event":"del","id":7,"family":"ipv6","proto":"udp","dir":"original","src":"2001:db8:1::2","sport":5353,"dst":"2001:db8:2::2","dport":53,"nat_src":"2001:db8:2::1","nat_sport":1024,"nat_dst":"2001:db8:2::2","nat_dport":53,"iif":104,"iif_name":"eth1","oif":105,"oif_name":"eth2","packets":18446744073709551615,"bytes":0,"age_ms":3723000,"idle_ms":90061000,"reason":"99"}
{"json_schema_version":1,"event":"del","id":2,"family":"ipv4","proto":"tcp","dir":"reply","src":"198.18.222.2","sport":5201,"dst":"198.18.22.2","dport":40000,"nat_src":"198.18.222.2","nat_sport":5201,"nat_dst":"198.18.22.2","nat_dport":40000,"iif":103,"iif_name":"vlan2222","iif_vlan":2222,"oif":102,"oif_name":"vlan22","oif_vlan":22,"packets":20,"bytes":30000,"age_ms":12345,"idle_ms":0,"reason":"ruleset"}' -j monitor
	MOCKENV=FTMOCK_OLD=1; mexpect 1 "ftctl: this fasttrack module does not send flow events (upgrade the module)" monitor
	MOCKENV=FTMOCK_EPERM=1; mexpect 1 "ftctl: not permitted: watching flow events needs CAP_NET_ADMIN, as conntrack -E does" monitor
	MOCKENV=FTMOCK_EPERM=1; same 1 '' monitor
	same 0 'max-flows 65536
tcp-timeout 300
udp-timeout 30
skip-mark 0x10
skip-mask 0xffffffff' get
	same 0 '{"json_schema_version":1,"max_flows":65536,"tcp_timeout":300,"udp_timeout":30,"skip_mark":"0x10","skip_mask":"0xffffffff"}' -j get

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
	# Flushing one connection: the fields go to the kernel as a match;
	# "addr" and "port" (source or destination) become one flush per way.
	mexpect 0 "mock: match 6/4" flush src 198.18.22.2 sport 40000 proto tcp
	mexpect 0 "mock: match 8/2" flush src 198.18.22.2 sport 40000 proto tcp
	mexpect 0 "mock: match 4/1" flush src 198.18.22.2 sport 40000 proto tcp
	mexpect 0 "mock: match 7/16" flush dst 2001:db8::1
	n=$((n + 1))
	got=$(LD_PRELOAD=$MOCK "$FTCTL" flush addr 198.18.22.2 port 53 2>&1 | grep -c "^mock: FLUSH")
	if [ "$got" = 4 ]; then
		echo "ok $n - mock: flush addr and port are four flushes"
	else
		failed=$((failed + 1))
		echo "not ok $n - mock: flush addr and port are four flushes: $got"
	fi
	MOCKENV=FTMOCK_NO_MATCH=1; mexpect 1 "ftctl: flush: this fasttrack module flushes all flows, or a device's or a family's, not one connection (upgrade the module" flush port 53
	# Enables are name rules the module keeps; older modules enable devices.
	mexpect 0 "mock: RULE_ADD" enable ifb1
	mexpect 0 "ftctl: warning: ftctl-nosuch0 does not exist yet; it is enabled when it appears" enable ftctl-nosuch0
	mexpect 0 "mock: RULE_ADD" enable "vlan*" ipv6
	mexpect 0 "mock: RULE_DEL" disable "vlan*"
	mexpect 1 "ftctl: vlan2*: no such name or pattern is enabled" disable "vlan2*"
	MOCKENV=FTMOCK_NO_RULES=1; mexpect 1 "ftctl: no such device: ifb1" enable ifb1
	MOCKENV=FTMOCK_NO_RULES=1; mexpect 0 "mock: DEV_ENABLE" enable eth0
	MOCKENV=FTMOCK_NO_RULES=1; mexpect 1 "ftctl: this fasttrack module does not support patterns (upgrade the module)" enable "vlan*"
	# Not a rule: a device enabled by index is disabled as a device.
	mexpect 1 "mock: DEV_DISABLE" disable lo
	mexpect 1 "ftctl: ifb0: fasttrack is not enabled on this device" show ifb0
	mexpect 1 "ftctl: max-flows: integer out of range: it must be between 1 and 16777216" set max-flows 0
	mexpect 1 "ftctl: tcp-timeout: value out of range" set udp-timeout 5 tcp-timeout 0
	# Without CAP_NET_ADMIN: what each command needs; the reads still work.
	MOCKENV=FTMOCK_EPERM=1; mexpect 1 "ftctl: not permitted: changing fasttrack state needs CAP_NET_ADMIN in the user namespace that owns this network namespace" enable eth0
	MOCKENV=FTMOCK_EPERM=1; mexpect 1 "ftctl: not permitted: changing fasttrack state needs CAP_NET_ADMIN in the user namespace that owns this network namespace" disable eth0 ipv6
	MOCKENV=FTMOCK_EPERM=1; mexpect 1 "ftctl: not permitted: changing fasttrack state needs CAP_NET_ADMIN in the user namespace that owns this network namespace" set max-flows 10
	MOCKENV=FTMOCK_EPERM=1; mexpect 1 "ftctl: not permitted: listing flows needs CAP_NET_ADMIN, as conntrack -L does" flows
	MOCKENV=FTMOCK_EPERM=1; mexpect 1 "ftctl: not permitted: listing flows needs CAP_NET_ADMIN, as conntrack -L does" flows dump dev vlan22
	MOCKENV=FTMOCK_EPERM=1; same 1 '' -j flows
	MOCKENV=FTMOCK_EPERM=1; same 0 "$stats_text" stats
	MOCKENV=FTMOCK_EPERM=1; same 0 '{"json_schema_version":1,"max_flows":65536,"tcp_timeout":300,"udp_timeout":30,"skip_mark":"0x10","skip_mask":"0xffffffff"}' -j get
	MOCKENV=FTMOCK_NOFAMILY=1; mexpect 1 "ftctl: the fasttrack module is not loaded (try: modprobe fasttrack)" show

	# save: settings, "disable all", one enable per device.
	same 0 '# fasttrack state, from "ftctl save"; apply with "ftctl -b FILE".
set max-flows 65536
set tcp-timeout 300
set udp-timeout 30
set skip-mark 0x10/0xffffffff
disable all
enable eth0
enable vlan"22\ ipv4
enable ifb1 ipv6' save
	# A batch's "disable all" disables, at the end, what it did not enable.
	# requests DESC WANT [STDIN] ARGS...: the enable and disable requests
	# "ftctl ARGS" makes, as "COMMAND DEV FAMILIES" ("-": none sent).
	requests() {
		desc=$1 want=$2 in=$3
		shift 3
		n=$((n + 1))
		# shellcheck disable=SC2086
		got=$(printf "$in" | env $MOCKENV LD_PRELOAD="$MOCK" "$FTCTL" "$@" 2>&1 >/dev/null |
			awk 'BEGIN { f = "-" } /^mock: IFNAME=/ { dev = substr($2, 8) }
			     /^mock: attr 4=/ { f = substr($3, 3) }
			     /^mock: (DEV_(EN|DIS)ABLE|RULE_(ADD|DEL))/ { printf "%s%s %s %s", sep, $2, dev, f; sep = ", "; f = "-" }')
		if [ "$got" = "$want" ]; then
			echo "ok $n - mock: $desc"
		else
			failed=$((failed + 1))
			echo "not ok $n - mock: $desc: got '$got', want '$want'"
		fi
	}
	requests "batch: disable all keeps what the batch enables" \
		'RULE_ADD eth1 2, RULE_ADD vlan22 3, DEV_DISABLE eth0 3, DEV_DISABLE vlan"22\ 1, DEV_DISABLE ifb1 2' \
		'disable all\nenable eth1 ipv6\nenable vlan22\n' -b -
	requests "batch: disable all ipv6 touches IPv6 only" \
		'RULE_ADD eth0 2, DEV_DISABLE ifb1 2' 'disable all ipv6\nenable eth0 ipv6\n' -b -
	requests "batch: an error (lo is refused): no disable at the end" \
		'RULE_ADD eth1 2, RULE_ADD lo 3' 'disable all\nenable eth1 ipv6\nenable lo\n' -b -
	# Rules the batch does not name go; devices a kept pattern matches stay.
	MOCKENV=FTMOCK_RULES=1
	requests "batch: disable all removes the rules it does not keep" \
		'RULE_ADD vlan* 2, RULE_DEL eth0 3, DEV_DISABLE eth0 3, DEV_DISABLE vlan"22\ 1, DEV_DISABLE ifb1 2' \
		'disable all\nenable vlan* ipv6\n' -b -
	MOCKENV=FTMOCK_NO_RULES=1
	requests "batch: a module from before rules enables devices" \
		'DEV_ENABLE eth1 2, DEV_DISABLE eth0 3, DEV_DISABLE vlan"22\ 1, DEV_DISABLE ifb1 2' \
		'disable all\nenable eth1 ipv6\n' -b -
	MOCKENV=
	requests "disable all, outside a batch, disables every device" \
		'DEV_DISABLE eth0 3, DEV_DISABLE vlan"22\ 1, DEV_DISABLE ifb1 2' '' disable all
	mexpect 1 "ftctl: eth1: fasttrack is not enabled on this device" disable eth1
	n=$((n + 1))
	if LD_PRELOAD=$MOCK "$FTCTL" disable eth1 2>&1 | grep -q "fasttrack: fasttrack"; then
		failed=$((failed + 1))
		echo "not ok $n - mock: the module's prefix is said once"
	else
		echo "ok $n - mock: the module's prefix is said once"
	fi
	same 0 '' disable -f eth1
	printf 'enable eth1\ndisable eth1 ipv4\n' >"$out.b"
	mexpect 1 "ftctl: $out.b:2: eth1: fasttrack is not enabled on this device" -b "$out.b"
	rm -f "$out.b"
	# -V: the module's version from sysfs; a warning when they differ.
	ver=$("$FTCTL" -V | sed -n '1s/^ftctl //p')
	same 0 "ftctl $ver
fasttrack module not loaded" -V
	MOCKENV=FTMOCK_MODVER=$ver; same 0 "ftctl $ver
fasttrack module $ver" -V
	MOCKENV=FTMOCK_MODVER=99.0.0; mexpect 0 "ftctl: warning: ftctl $ver and the loaded fasttrack module 99.0.0 are different releases" -V
	MOCKENV=FTMOCK_MODVER=$ver; same 0 "{\"json_schema_version\":1,\"ftctl\":\"$ver\",\"module\":\"$ver\"}" -j -V
	same 0 "{\"json_schema_version\":1,\"ftctl\":\"$ver\"}" -j -V

	# Live rates: the deltas of the mock's counters, which grow by 1000
	# packets and 100000 bytes per dump, and 7 no-entry punts per read.
	n=$((n + 1))
	FTMOCK_TICK=1 LD_PRELOAD=$MOCK "$FTCTL" -j top 0.01 -c 3 ifb1 >"$out" 2>"$err"
	got=$?
	lines=$(grep -c '^{"json_schema_version":1,"elapsed_ns":[1-9][0-9]*,"devices":\[{"ifname":"ifb1","ifindex":7,"ipv4":{"enabled":false,"packets":0,"bytes":0,"pps":0.000,"bit_s":0.000},"ipv6":{"enabled":true,"packets":1000,"bytes":100000,"pps":[0-9.]*,"bit_s":[0-9.]*}}\],"forwarded":{"packets":0,"bytes":0,.*"punted":{"no_entry":7,"fragment":0,' "$out")
	if [ "$got" -eq 0 ] && [ "$lines" -eq 3 ] && [ "$(wc -l <"$out")" -eq 3 ]; then
		echo "ok $n - mock: -j top -c 3: three lines of exact deltas"
	else
		failed=$((failed + 1))
		echo "not ok $n - mock: -j top -c 3 (exit $got, $lines good lines)"
		sed 's/^/# /' "$out" "$err"
	fi
	n=$((n + 1))
	if FTMOCK_TICK=1 LD_PRELOAD=$MOCK "$FTCTL" top 0.01 -c 2 ifb1 2>/dev/null |
		grep -c '^  ipv6 on  fast path ' | grep -qx 2; then
		echo "ok $n - mock: top -c 2: two frames"
	else
		failed=$((failed + 1))
		echo "not ok $n - mock: top -c 2: two frames"
	fi
	mexpect 1 "ftctl: ifb0: fasttrack is not enabled on this device" top -c 1 ifb0

	# flows filters: applied to each direction as received.
	same 0 "$(printf '%s\n' "$flows_text" | sed -n 3,4p)" flows port 53
	same 0 "$(printf '%s\n' "$flows_text" | sed -n 1,2p)" flows proto tcp
	same 0 "$(printf '%s\n' "$flows_text" | sed -n 1p)" flows src 198.18.22.2
	same 0 "$(printf '%s\n' "$flows_text" | sed -n 2p)" flows addr 198.18.22.2 dport 40000
	same 0 "$(printf '%s\n' "$flows_text" | sed -n 3p)" flows dst 2001:db8:2::2 sport 5353 proto udp
	same 0 '' flows dst 2001:db8:2::2 proto tcp
	same 0 '[]' -j flows port 1
	mexpect 0 "mock: attr 4=1" flows src 198.18.22.2
	mexpect 0 "mock: attr 4=2" flows addr 2001:db8:2::2
fi

# Bash completion of the commands and their keywords. An ftctl in PATH
# that has vlan22 and vlan2222 enabled, for the devices "disable" offers,
# and the XDP tier on trunk0, for "xdp off".
comp=$(dirname "$0")/completion/ftctl
fakebin=$(mktemp -d)
# shellcheck disable=SC2016 # the fake ftctl's own $1
printf '#!/bin/sh\nif [ "$1" = xdp ]; then echo "trunk0 (ifindex 2): xdp"; exit; fi\nprintf "vlan22\\t5\\nvlan2222\\t6\\n"\n' >"$fakebin/ftctl"
chmod +x "$fakebin/ftctl"
if command -v bash >/dev/null; then
	for c in "ftctl fl|flows flush" "ftctl flows |dump dev ipv4 ipv6 src dst addr sport dport port proto" \
		"ftctl flows dump ipv4 |dev ipv6 src dst addr sport dport port proto" "ftctl flush |dev ipv4 ipv6" \
		"ftctl show dump dev lo |" "ftctl stats -|-s --per-cpu --help" \
		"ftctl -j mon|monitor" "ftctl enable lo ipv4 |ipv6" "ftctl enable lo ipv6 ipv4 |" \
		"ftctl disable |all vlan22 vlan2222" "ftctl disable -f |all vlan22 vlan2222" \
		"ftctl disable vlan22 ipv6 |ipv4" "ftctl disable -|-f --force --help" \
		"ftctl top vlan22 |vlan2222" "ftctl show -r 2 |vlan22 vlan2222" \
		"ftctl flows proto |tcp udp" "ftctl flows dev |vlan22 vlan2222" \
		"ftctl flush dev vlan22 |ipv4 ipv6" "ftctl sa|save" "ftctl -b /nonexistent/|" \
		"ftctl flows port 53 proto tcp |dump dev ipv4 ipv6 src dst addr sport dport" \
		"ftctl xd|xdp" "ftctl xdp |on off show" "ftctl xdp off |all trunk0" "ftctl xdp off trunk0 |"; do
		n=$((n + 1))
		words=${c%%|*} want=${c#*|}
		got=$(PATH="$fakebin:$PATH" bash -c '. "$1"; read -ra COMP_WORDS <<<"$2"; [[ $2 == *" " ]] && COMP_WORDS+=("");
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ftctl; echo "${COMPREPLY[*]}"' _ "$comp" "$words")
		if [ "$got" = "$want" ]; then
			echo "ok $n - completion: '$words'"
		else
			failed=$((failed + 1))
			echo "not ok $n - completion: '$words': got '$got', want '$want'"
		fi
	done
fi

# zsh completion: _ftctl_command with zsh's completion builtins stubbed to
# print what they are offered.
zcomp=$(dirname "$0")/completion/_ftctl
if command -v zsh >/dev/null; then
	for c in "disable vlan22 ipv4 |[ipv6]" "disable |[compadd all] [vlan22 vlan2222]" \
		"enable lo ipv6 |[ipv4]" "flows proto |[compadd tcp udp]" \
		"flows port 53 dump |[dev ipv4 ipv6 src dst addr sport dport proto]" \
		"top vlan22 |[vlan22 vlan2222]" "set max-flows 1 |[tcp-timeout udp-timeout skip-mark skip-mask]" \
		"xdp |[compadd on off show]" "xdp off |[compadd all] [trunk0]"; do
		n=$((n + 1))
		words=${c%%|*} want=${c#*|}
		got=$(PATH="$fakebin:$PATH" zsh -c 'compadd() { print -rn -- "[compadd ${@:#-*}] "; }
			_describe() { print -rn -- "[${(P)4}] "; }; _message() { :; }
			source <(sed "\$d" "$1"); words=(${=2} ""); CURRENT=${#words}
			_ftctl_command' _ "$zcomp" "$words")
		if [ "${got% }" = "$want" ]; then
			echo "ok $n - zsh completion: '$words'"
		else
			failed=$((failed + 1))
			echo "not ok $n - zsh completion: '$words': got '$got', want '$want'"
		fi
	done
fi
rm -rf "$fakebin"

echo "1..$n"
[ "$failed" -eq 0 ] || echo "# $failed of $n failed"
[ "$failed" -eq 0 ]
