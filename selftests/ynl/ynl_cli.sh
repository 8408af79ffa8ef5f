#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154 # dash has local; lib_fastpath sets FP*
# A second client, not ours: the kernel's own YNL CLI (tools/net/ynl/cli.py
# from Debian's linux-source-6.12, run with the python3 of a Debian root
# shared over 9p) drives the module through Documentation/netlink/specs/
# fasttrack.yaml, and each answer is compared, field by field, with what
# "ftctl -j" prints for the same state (ynl_compare.py). This proves that
# the spec, the module and ftctl agree:
#   - the spec validates against the kernel's genetlink.yaml schema, and
#     the family controller's view of the module (commands, do/dump,
#     permissions, groups) is the spec's;
#   - dev-enable (by name; by index with families), dev-get do and dump
#     against ftctl show, with a qdisc and a priority map that the XDP
#     tier would bypass on vlan2222;
#   - config-set with random values, config-get against ftctl get;
#   - flow-get dump of offloaded UDP flows (IPv4 both ways, IPv6 one way)
#     against ftctl flows;
#   - stats-get do, its per-CPU form and its dump (one message per CPU)
#     against ftctl stats [-s], with no traffic running (read twice with
#     ftctl around the ynl read: equal, or read again);
#   - --subscribe events during a short TCP connection: flow-new and
#     flow-del (torn-down) for both directions, the same messages that
#     "ftctl -j monitor" printed;
#   - bad requests rejected by the policies, with an extack naming the
#     attribute: config-set cfg-max-flows 0, dev-enable families 4.
# dkms-vm.sh runs it in each DKMS guest (the 9p root is there), with the
# YNL tree in /ynl (selftests/vm/ynl-tools.sh --tree).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib_fastpath.sh"
. "$(dirname "$0")/../lib_ftctl.sh"
. "$(dirname "$0")/../lib_root.sh"

require_cmd chroot mount ftctl
fp_init
# dkms-vm.sh sets both up; without them the harness is broken: a failure.
must test -f /ynl/tools/net/ynl/cli.py # selftests/vm/ynl-tools.sh --tree
root_mount
# deps.sh on the host, sidroot.sh install for the sid root.
must in_root python3 -c 'import yaml, jsonschema'
log_info "YNL CLI from $(cat /ynl/VERSION), $(in_root python3 --version 2>&1) of the shared root"

# W is the scratch directory as the root sees it, T as the guest does.
W=/tmp/ynl-$(ft_rand)
T=$R$W
must mkdir -p "$T"
must cp -r /ynl "$T/ynl"
must cp "$(dirname "$0")/ynl_compare.py" "$T/"
SPEC=$W/ynl/netlink/specs/fasttrack.yaml
CLI=$W/ynl/tools/net/ynl/cli.py

# py ARGS...: the root's python3 in the router netns.
py() {
	ip netns exec "$NS_ROUTER" chroot "$R" /usr/bin/env -i \
		PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LC_ALL=C.UTF-8 python3 "$@"
}
# ynl ARGS...: cli.py with our spec, JSON out. The schema is checked once,
# below; not again on each call (seconds under TCG).
ynl() { py "$CLI" --spec "$SPEC" --no-schema --output-json "$@"; }

# ynl_to NAME ARGS...: "ynl ARGS" into $T/NAME.json (errors: NAME.err);
# a failure fails the test.
ynl_to() {
	local name=$1 rc
	shift
	ynl "$@" >"$T/$name.json" 2>"$T/$name.err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "cli.py $*" "command: ip netns exec $NS_ROUTER chroot $R python3 $CLI --spec $SPEC --no-schema --output-json $(quote "$@")" \
		"exit $rc:" "$(cat "$T/$name.json" "$T/$name.err")"
	return "$rc"
}

# ftj NAME ARGS...: "ftctl -j ARGS" into $T/NAME.json.
ftj() {
	local name=$1
	shift
	ftc_to "$T/$name.json" -j "$@"
}

# cmp_job KIND DESC YNL FTCTL [ARG...]: queue a comparison for
# ynl_compare.py, which runs them all at the end, in one python (each
# start costs seconds under TCG). YNL is a name under $W, FTCTL a path.
cmp_job() {
	local kind=$1 desc=$2 y=$3 f=$4 line
	shift 4
	line=$(printf '%s\t' "$kind" "$desc" "$W/$y.json" "$f" "$@")
	printf '%s\n' "${line%	}" >>"$T/jobs.tsv"
}

# stable NAME FTCTL-ARGS -- YNL-ARGS: ftctl, cli.py, ftctl again, until the
# two ftctl reads are equal (nothing moved while cli.py read), three tries.
stable() {
	local name=$1 fa='' i
	shift
	while [ "$1" != -- ]; do
		fa="$fa $1"
		shift
	done
	shift
	for i in 1 2 3; do
		# shellcheck disable=SC2086 # ftctl's arguments
		ftj "$name.ft0" $fa || return 1
		ynl_to "$name" "$@" || return 1
		# shellcheck disable=SC2086
		ftj "$name.ft" $fa || return 1
		cmp -s "$T/$name.ft0.json" "$T/$name.ft.json" && return 0
		log_info "$name: the counters moved during the read (try $i), reading again"
	done
	fail "$name: ftctl reads the same before and after cli.py" \
		"before: $(cat "$T/$name.ft0.json")" "after:  $(cat "$T/$name.ft.json")"
	return 1
}

# extack NAME: what cli.py said of a rejected request, on one line.
extack() { tr '\n\t' '  ' <"$T/$1.json"; }

ft_module_load
setup_router_on_a_stick
nft_forward_ruleset "$NS_ROUTER"
ftc_long_udp_ct

# ------------------------------------- events: both listeners, from now --
ip netns exec "$NS_ROUTER" ftctl -j monitor </dev/null >"$T/mon.ft.json" 2>"$T/mon.err" &
MON=$!
defer fp_kill "$MON"
# cli.py listens for --sleep seconds from the moment it has subscribed
# (its start, Python and the spec, may take tens of seconds on a loaded
# host), then prints what it heard: long enough for the requests and the
# traffic below; the reads after the traffic overlap the rest of the wait.
secs=$(ft_secs 45)
ynl --subscribe events --sleep "$secs" </dev/null >"$T/events.json" 2>"$T/events.err" &
SUB=$!
defer fp_kill "$SUB"
start=$(now_ms)

# ------------------------------------------------------ the spec itself --
# Explicitly, with jsonschema (ynl_compare.py at the end), and by cli.py
# itself in config-get below (the schema at <spec dir>/../genetlink.yaml).
printf 'schema\t%s\t%s\t%s\n' "the spec validates against genetlink.yaml ($(cat /ynl/VERSION))" \
	"$SPEC" "$W/ynl/netlink/genetlink.yaml" >>"$T/jobs.tsv"
if py "$CLI" --spec "$W/ynl/netlink/specs/nlctrl.yaml" --no-schema --output-json \
	--do getfamily --json '{"family-name": "fasttrack"}' >"$T/family.json" 2>"$T/family.err"; then
	cmp_job family "nlctrl getfamily vs the spec" family "$SPEC"
else
	fail "cli.py nlctrl getfamily fasttrack" "$(cat "$T/family.json" "$T/family.err")"
fi

# -------------------------------------------------- devices, settings --
ifi2222=$(ftc_ifindex "$NS_ROUTER" vlan2222)
fp_rand maxf 1024 16777216
fp_rand tcpt 600 604800
fp_rand udpt 600 604800
fp_rand mask 1 65535
fp_rand mark 1 65535
mark=$((mark & mask))
[ "$mark" -ne 0 ] || mark=$mask
cfg="{\"cfg-max-flows\": $maxf, \"cfg-tcp-timeout\": $tcpt, \"cfg-udp-timeout\": $udpt, \"cfg-skip-mark\": $mark, \"cfg-skip-mask\": $mask}"
# Enable rules that match no device: a name and a pattern.
rname=ynx$(ft_rand)
rglob="yn$(ft_rand | cut -c1-6)[0-9]*"
# Five requests in one netlink message (cli.py --multi).
check "--multi: dev-enable vlan22 (by name), vlan2222 (ifindex $ifi2222, ipv4), config-set, 2 rule-add" \
	ynl --multi dev-enable '{"ifname": "vlan22"}' \
	--multi dev-enable "{\"ifindex\": $ifi2222, \"families\": [\"ipv4\"]}" \
	--multi config-set "$cfg" \
	--multi rule-add "{\"ifname\": \"$rname\"}" \
	--multi rule-add "{\"ifname\": \"$rglob\", \"families\": [\"ipv6\"]}"
log_info "config-set $cfg"
enabled() {
	ftc -j show | fp_jget ifname=vlan22.ipv4.enabled ifname=vlan22.ipv6.enabled \
		ifname=vlan2222.ipv4.enabled ifname=vlan2222.ipv6.enabled
}
check_output "ftctl sees vlan22 both families, vlan2222 ipv4 only" "true true true false" enabled
# With cli.py's own schema check (jsonschema is in the root).
if ynl_to config --schema "$W/ynl/netlink/genetlink.yaml" --do config-get && ftj config.ft get; then
	cmp_job config "config-get vs ftctl get" config "$W/config.ft.json" \
		max_flows="$maxf" tcp_timeout="$tcpt" udp_timeout="$udpt" skip_mark="$mark" skip_mask="$mask"
fi

if ynl_to rules --dump rule-get && ftj rules.ft show rules; then
	cmp_job rules "rule-get dump vs ftctl show rules" rules "$W/rules.ft.json"
fi

# -------------------------------------------------- negative, by policy --
# cli.py prints the kernel's extack: the attribute must be named, and the
# policy must be the one that rejected it (checks in the policy, not in the
# handler): a range reports itself (NLMSGERR_ATTR_POLICY), a mask says
# "reserved bit set" (lib/nlattr.c). NLA_POLICY_MASK is from 5.16: 5.10
# checks families by the compat route.
# reject NAME DESC BAD-ATTR POLICY-RE OP JSON: "--do OP --json JSON" fails,
# names BAD-ATTR, and its extack matches POLICY-RE (unless "").
reject() {
	local name=$1 desc=$2 attr=$3 pre=$4 rc
	ynl --do "$5" --json "$6" >"$T/$name.json" 2>&1
	rc=$?
	log_info "cli.py --do $5 --json '$6': $(extack "$name")"
	check_eq "$desc: rejected" 1 "$rc"
	check "$desc: the extack names $attr" grep -qF "'bad-attr': '.$attr'" "$T/$name.json"
	[ -z "$pre" ] ||
		check "$desc: the policy rejected it (extack: $pre)" grep -qE "$pre" "$T/$name.json"
}
reject neg1 "config-set cfg-max-flows 0" cfg-max-flows "'policy': \{[^}]*'min-value': 1[,}]" \
	config-set '{"cfg-max-flows": 0}'
kv=$(uname -r)
kmaj=${kv%%.*} kmin=${kv#*.}
kmin=${kmin%%[!0-9]*}
mask_re="'msg': 'reserved bit set'"
[ $((kmaj * 1000 + kmin)) -ge 5016 ] || mask_re=
reject neg2 "dev-enable families 4" families "$mask_re" \
	dev-enable '{"ifname": "vlan22", "families": 4}'
max_flows() { ftc -j get | fp_jget max_flows; }
check_output "the rejected config-set changed nothing" "$maxf" max_flows

# ------------------------------------------------------ events: joined --
# Both listeners are in a group within seconds: the genetlink sockets of
# the router netns (protocol 16) with a group set in /proc/net/netlink's
# bitmap of the first 32 groups (where genl's dynamic ids are); they are
# the only ones there.
n_joined() {
	ip netns exec "$NS_ROUTER" awk 'NR > 1 && $2 == 16 && $4 != "00000000" { n++ } END { print n + 0 }' /proc/net/netlink
}
joined2() { [ "$(n_joined)" -ge 2 ]; }
if busywait 20000 joined2; then
	pass "ftctl monitor and cli.py --subscribe events joined the group"
else
	fail "ftctl monitor and cli.py --subscribe events joined the group" \
		"$(ip netns exec "$NS_ROUTER" cat /proc/net/netlink)" "$(cat "$T/events.err")"
fi
# cli.py's --sleep began when it subscribed: one poll (50 ms) before this.
joined=$(now_ms)
log_info "subscribed after $((joined - start)) ms"

# ------------------------------------------------------------- traffic --
file=$(fp_mkfile udp4 262144)
fp_port port4
fp_udp_transfer "IPv4 UDP" 4 "$file" "$SERVER_IP4" "$port4" "$port4"
file=$(fp_mkfile udp6 131072)
fp_port port6
fp_udp_transfer "IPv6 UDP" 6 "$file" "$SERVER_IP6" "$port6" "$port6"
file=$(fp_mkfile tcp4 131072)
fp_port tport
fp_tcp_transfer "short IPv4 TCP connection" 4 "$file" "$SERVER_IP4" "$tport" "$tport"
done_ms=$(now_ms)
took=$((done_ms - joined))
log_info "traffic done $took ms after cli.py subscribed ($((done_ms - start)) ms after it started)"
# Or the events come after cli.py stopped listening.
check_le "the traffic ended within cli.py's --sleep $secs after it subscribed" \
	"$took" $(((secs - 5) * 1000))
# UDP: IPv4 both ways, IPv6 only the way in through vlan22 (vlan2222 is
# ipv4 only); the TCP connection's flows are gone with it.
ftc_wait_nflows "3 flow directions cached" 3 10000

# ---------------------------------------------------- flows, no traffic --
# ynl first, ftctl after: ages grow in between, nothing else moves.
if ynl_to flows --dump flow-get && ftj flows.ft flows; then
	cmp_job flows "flow-get dump vs ftctl flows" flows "$W/flows.ft.json" 3
fi
check_ge "the fast path forwarded the datagrams" \
	"$(ftc flows dump dev vlan22 ipv4 | cut -f17 | head -n 1)" 1

# -------------------------------------------- devices and counters, idle --
# Two things the XDP tier would bypass on vlan2222 (a module with the tier
# says so in dev-get's flag set): a qdisc and a priority map.
must ip -n "$NS_ROUTER" link set vlan2222 type vlan egress-qos-map 0:1
must tc -n "$NS_ROUTER" qdisc add dev vlan2222 root pfifo
# The tier's kfunc needs 6.7's macros and a kernel build tree with vmlinux,
# which Debian's headers packages have.
blocked=$(ftc -j show dev vlan2222 | tr -d ' \n\t' |
	sed -n 's/.*"xdp_blocked":\[\([^]]*\)\].*/\1/p')
kv=$(uname -r)
if [ "${kv%%.*}" -gt 6 ] || { kv=${kv#6.}; [ "${kv%%.*}" -ge 7 ]; }; then
	check_eq "ftctl show: the XDP tier would bypass vlan2222's qdisc and map" \
		'"qdisc","qos-map"' "$blocked"
else
	check_eq "ftctl show: no XDP tier on Linux $(uname -r)" '' "$blocked"
fi
stable devs show -- --dump dev-get &&
	cmp_job devs "dev-get dump vs ftctl show" devs "$W/devs.ft.json"
stable dev show dev vlan2222 -- --do dev-get --json '{"ifname": "vlan2222"}' &&
	cmp_job devs "dev-get do vlan2222 vs ftctl show dev" dev "$W/dev.ft.json"
stable stats stats -- --do stats-get &&
	cmp_job stats "stats-get do vs ftctl stats" stats "$W/stats.ft.json" "$SPEC"
stable percpu stats -s -- --do stats-get --json '{"stats-percpu": true}' &&
	cmp_job percpu "stats-get do stats-percpu vs ftctl stats -s" percpu "$W/percpu.ft.json"
stable cpudump stats -s -- --dump stats-get &&
	cmp_job cpudump "stats-get dump vs ftctl stats -s" cpudump "$W/cpudump.ft.json" "$(ftc_possible_cpus)"

# ------------------------------------------------------- events, heard --
if busywait "$(((secs + 30) * 1000 - ($(now_ms) - start)))" fp_dead "$SUB"; then
	wait "$SUB"
	rc=$?
	check_eq "cli.py --subscribe events --sleep $secs exits 0" 0 "$rc"
	[ "$rc" -eq 0 ] || printf '%s\n' "$(cat "$T/events.json" "$T/events.err")" | sed 's/^/\t/'
	cmp_job events "events, TCP port $tport, vs ftctl monitor" events "$W/mon.ft.json" "$tport" "new new del del"
	cmp_job events "events, UDP port $port4, vs ftctl monitor" events "$W/mon.ft.json" "$port4" "new new"
	cmp_job events "events, UDP port $port6, vs ftctl monitor" events "$W/mon.ft.json" "$port6" "new"
else
	fail "cli.py --subscribe events ends after --sleep $secs"
fi

# ---------------------------------------------------------- the verdicts --
py "$W/ynl_compare.py" --batch "$W/jobs.tsv" || ret=$KSFT_FAIL

check_dmesg_clean "no kernel warning"
if [ "$ret" = "$KSFT_FAIL" ]; then
	kv=$(uname -r)
	echo "reproduce: FP_SEED=$FP_SEED; from the host: make ynl-vm KERNELS=${kv%.*-*}"
fi
ft_exit
