#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "ftctl set" and "ftctl get": every setting round-trips, in text and JSON,
# at its limits too; an out-of-range value is refused with the kernel's
# message naming the range and changes nothing (not even the valid values
# set along with it); settings belong to one network namespace; and an
# unprivileged user may read everything but change nothing.
# shellcheck disable=SC3043
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_ftctl.sh"

ftc_require get set flush flows
require_cmd jq setpriv

ft_module_load
setup_ns NS_ROUTER NS_OTHER

# get_is DESC EXPECTED: "ftctl get", one "key value" per line, is EXPECTED.
get_is() { check_output "$1" "$2" ftc get; }

# key_is KEY VALUE: the text and the JSON of get both say KEY is VALUE.
# (sed rather than jq on the one-line JSON: jq is slow to start in the guest.)
key_is() {
	local json
	json=$(ftc -j get | sed -n "s/.*\"$(echo "$1" | tr - _)\":\"\{0,1\}\([^\",}]*\).*/\1/p")
	check_eq "get: $1 is $2" "$2" "$(ftc get | awk -v k="$1" '$1 == k { print $2 }')"
	check_eq "get -j: $1 is $2" "$2" "$json"
}

defaults=$(ftc get)
check_eq "get: the five settings, in order" \
	"max-flows tcp-timeout udp-timeout skip-mark skip-mask" \
	"$(ftc get | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//')"
check "get -j: the JSON parses" sh -c \
	"ip netns exec $NS_ROUTER ftctl -j get | jq -e 'type == \"object\"'"
check_eq "get -j: numbers are numbers, marks are hex strings" \
	"number number number string string" \
	"$(ftc -j get | jq -r '[.max_flows, .tcp_timeout, .udp_timeout, .skip_mark, .skip_mask] | map(type) | join(" ")')"
check_eq "get -j agrees with get" "$defaults" \
	"$(ftc -j get | jq -r '"max-flows \(.max_flows)\ntcp-timeout \(.tcp_timeout)\nudp-timeout \(.udp_timeout)\nskip-mark \(.skip_mark)\nskip-mask \(.skip_mask)"')"

# ------------------------------------------------------------ round trip --

for v in 1 16777216 200000; do
	check "set max-flows $v" ftc set max-flows "$v"
	key_is max-flows "$v"
done
for k in tcp-timeout udp-timeout; do
	for v in 1 604800 77; do
		check "set $k $v" ftc set "$k" "$v"
		key_is "$k" "$v"
	done
done
check "set skip-mark 0x10/0xf0" ftc set skip-mark 0x10/0xf0
key_is skip-mark 0x10
key_is skip-mask 0xf0
check "set skip-mark 0x100 (the mask becomes 0xffffffff)" ftc set skip-mark 0x100
key_is skip-mark 0x100
key_is skip-mask 0xffffffff
check "set skip-mask 0xff00 alone" ftc set skip-mask 0xff00
key_is skip-mask 0xff00
key_is skip-mark 0x100
check "set skip-mark 0 skip-mask 0 (the check off)" ftc set skip-mark 0 skip-mask 0
key_is skip-mark 0x0
key_is skip-mask 0x0
check "set several keys at once" ftc set max-flows 5000 tcp-timeout 30 udp-timeout 20 skip-mark 7/0xf
get_is "get shows all of them" "max-flows 5000
tcp-timeout 30
udp-timeout 20
skip-mark 0x7
skip-mask 0xf"
check "set with decimal marks" ftc set skip-mark 256/65280
key_is skip-mark 0x100
key_is skip-mask 0xff00
must ftc set max-flows 5000 tcp-timeout 30 udp-timeout 20 skip-mark 7/0xf
saved=$(ftc get)

# --------------------------------------------------------- out of range --

for a in "max-flows 0" "max-flows 16777217" "max-flows 4294967295"; do
	# shellcheck disable=SC2086 # KEY VALUE
	check_fail "set $a is refused with the range" "max-flows: .*between 1 and 16777216" ftc set $a
done
for k in tcp-timeout udp-timeout; do
	for v in 0 604801; do
		check_fail "set $k $v is refused with the range" "$k: .*between 1 and 604800 seconds" \
			ftc set "$k" "$v"
	done
done
get_is "refused values changed nothing" "$saved"
check_fail "a bad value among good ones is refused" "udp-timeout: .*between 1 and 604800" \
	ftc set max-flows 4242 tcp-timeout 99 udp-timeout 0
get_is "... and the good ones were not applied either" "$saved"
check_fail "skip-mark with bits outside skip-mask is refused" "skip-mark has bits outside skip-mask" \
	ftc set skip-mark 0x3/0x1
check_fail "skip-mask that cuts bits off skip-mark is refused" "bits outside skip-mask" \
	ftc set skip-mask 0x1
get_is "refused marks changed nothing" "$saved"
check_fail "a value that is not a number is refused before the kernel" "invalid max-flows '12x'" \
	ftc set max-flows 12x
check_fail "an unknown key is refused" "unknown setting 'max-flow'" ftc set max-flow 1

# ----------------------------------------------------------- namespaces --

check_output "another namespace keeps its own settings" "$defaults" \
	ip netns exec "$NS_OTHER" ftctl get
check "set in the other namespace" ip netns exec "$NS_OTHER" ftctl set max-flows 777
get_is "... leaves this one alone" "$saved"

# --------------------------------------------------------- unprivileged --

check_fail "nobody cannot set max-flows" "not permitted" ftc_nobody set max-flows 10
check_fail "nobody cannot set skip-mark" "not permitted" ftc_nobody set skip-mark 1
get_is "nobody's attempts changed nothing" "$saved"
check_output "nobody can get" "$saved" ftc_nobody get
check "nobody can get -j" ftc_nobody -j get
check_fail "nobody cannot flush" "not permitted" ftc_nobody flush
check_fail "nobody cannot flush one family" "not permitted" ftc_nobody flush ipv4
# Flows reveal connections and NAT mappings: CAP_NET_ADMIN, as conntrack -L.
check_fail "nobody cannot list flows" "CAP_NET_ADMIN" ftc_nobody flows
check_fail "nobody cannot dump flows" "CAP_NET_ADMIN" ftc_nobody flows dump
check "nobody can show" ftc_nobody show dump

ft_exit
