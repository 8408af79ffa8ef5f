#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Enables by name and pattern, kept by the module (dev_rules.c):
#  - a name no device has yet is kept; the device is enabled when it is
#    created, and again after "ip link del" and re-creation;
#  - a pattern enables what it matches now, and devices created, renamed
#    or moved into the netns later, without userspace;
#  - a pattern skips a device that cannot be offloaded (loopback, a bridge
#    port) and counts it; the exact name of such a device is an error that
#    says what to enable instead;
#  - an enabled device that becomes a bridge port hands its enable to the
#    bridge, and is enabled again by its rules when it leaves;
#  - disable removes the rule and the families it gave, but not what
#    another rule gives; later devices are no longer enabled;
#  - "show" and "show rules" list the rules and the devices they match;
#  - "save | -b" round-trips the rules; at most 256 rules, with an error
#    that says so.
# shellcheck disable=SC3043
. "$(dirname "$0")/lib.sh"

require_cmd ftctl jq

ft_module_load
setup_ns NS OTHER
FT_TMP=$(mktemp -d /tmp/rules-XXXXXX) || ft_skip "mktemp failed"
defer rm -rf "$FT_TMP"
ftc() { ip netns exec "$NS" ftctl "$@"; }
state_is() { check_output "$1" "$3" ft_state "$NS" "$2"; }
dummy() { must ip -n "$NS" link add "$1" type dummy; }

log_info "a name no device has yet"
check_output "enable of a missing name says it waits for the device" \
	"ftctl: warning: ft0 does not exist yet; it is enabled when it appears" ftc enable ft0
dummy ft0
state_is "ft0 is enabled once created" ft0 "ipv4=true ipv6=true"
must ip -n "$NS" link del ft0
dummy ft0
state_is "... and again once deleted and re-created" ft0 "ipv4=true ipv6=true"

log_info "patterns: now and later, created, renamed, moved in"
dummy vl1
check "enable 'vl*' ipv6" ftc enable 'vl*' ipv6
state_is "vl1, which existed, is enabled for IPv6" vl1 "ipv4=false ipv6=true"
dummy vl2
state_is "vl2, created later, too" vl2 "ipv4=false ipv6=true"
dummy zz1
state_is "zz1 matches nothing" zz1 absent
must ip -n "$NS" link set zz1 name vl3
state_is "zz1 renamed vl3 is enabled" vl3 "ipv4=false ipv6=true"
must ip -n "$OTHER" link add vl4 type dummy
must ip -n "$OTHER" link set vl4 netns "$NS"
state_is "vl4 moved into the netns is enabled" vl4 "ipv4=false ipv6=true"
check "enable 'vl?' ipv4" ftc enable 'vl?' ipv4
state_is "a second rule adds its family to vl1" vl1 "ipv4=true ipv6=true"

log_info "devices that cannot be offloaded"
skipped() { ftc -j stats | jq .rule_skipped; }
before=$(skipped)
check "enable 'l*' (matches lo) succeeds" ftc enable 'l*'
state_is "lo is skipped" lo absent
check_output "... and counted" "$((before + 1))" skipped
check_fail "the exact name lo is an error" "the loopback device forwards nothing" ftc enable lo

log_info "a bridge port: the master gets the enable, the rule comes back"
must ip -n "$NS" link add lbr type bridge
dummy lp1
state_is "lp1, matched by 'l*', is enabled" lp1 "ipv4=true ipv6=true"
must ip -n "$NS" link set lp1 master lbr
state_is "lp1, now a port of lbr, is not" lp1 absent
state_is "... and lbr is, with its families" lbr "ipv4=true ipv6=true"
check_fail "the exact name of a port is an error" \
	"lp1: device is a port of" ftc enable lp1
before=$(skipped)
dummy lp2
must ip -n "$NS" link set lp2 down
must ip -n "$NS" link set lp2 master lbr
check "enable 'lp*' (matches ports only) succeeds" ftc enable 'lp*'
check_output "... and skips and counts both ports" "$((before + 2))" skipped
state_is "... lp2 stays a plain port" lp2 absent
must ip -n "$NS" link set lp1 nomaster
state_is "lp1, no longer a port, is enabled again by its rules" lp1 "ipv4=true ipv6=true"
must ftc disable 'lp*'
must ip -n "$NS" link del lp2
must ip -n "$NS" link del lp1
must ip -n "$NS" link del lbr

log_info "show and show rules"
check_output "show rules lists each rule with the devices it matches" \
	'{"name":"ft0","ipv4":true,"ipv6":true,"devices":["ft0"]}
{"name":"vl*","ipv4":false,"ipv6":true,"devices":["vl1","vl2","vl3","vl4"]}
{"name":"vl?","ipv4":true,"ipv6":false,"devices":["vl1","vl2","vl3","vl4"]}
{"name":"l*","ipv4":true,"ipv6":true,"devices":[]}' \
	sh -c "ip netns exec $NS ftctl -j show rules | jq -c '.[] | .devices |= sort'"
check "plain show lists the rules" sh -c "ip netns exec $NS ftctl show | grep -q '^  vl\* ipv6: .*vl4'"

log_info "save and -b"
saved=$(ftc save)
check "save has the rules" sh -c "printf '%s\n' '$saved' | grep -qx 'enable vl\* ipv6'"
rules_before=$(ftc -j show rules)
check "disable all" ftc disable all
check_output "no rule is left" "[]" sh -c "ip netns exec $NS ftctl -j show rules | jq -c ."
state_is "vl1 is disabled" vl1 absent
check "the saved state applies" sh -c "printf '%s\n' '$saved' | ip netns exec $NS ftctl -b -"
check_output "the rules are back, in their order" "$rules_before" ftc -j show rules
state_is "vl1 is enabled again" vl1 "ipv4=true ipv6=true"

log_info "disable"
check "disable 'vl?' ipv4" ftc disable 'vl?' ipv4
state_is "vl1 keeps IPv6, which 'vl*' gives" vl1 "ipv4=false ipv6=true"
check "disable 'vl*'" ftc disable 'vl*'
state_is "vl1 is disabled" vl1 absent
dummy vl5
state_is "a device created after the rule went is not enabled" vl5 absent
check_fail "disable of a rule that does not exist" "no such name or pattern is enabled" \
	ftc disable 'vl*'
check "disable -f of it succeeds" ftc disable -f 'vl*'

log_info "at most 256 rules"
must ftc disable all
i=0
while [ "$i" -lt 256 ]; do
	echo "enable r$i ipv4"
	i=$((i + 1))
done >"$FT_TMP/rules.conf"
check "256 rules apply" ftc -b "$FT_TMP/rules.conf"
check_output "256 rules are kept" 256 sh -c "ip netns exec $NS ftctl -j show rules | jq length"
check_fail "a 257th is refused, saying why" "at most 256 names and patterns" ftc enable r256
check "adding a family to one of them is not a new rule" ftc enable r7 ipv6
must ftc disable all
check_output "disable all leaves none" 0 sh -c "ip netns exec $NS ftctl -j show rules | jq length"

ft_exit
