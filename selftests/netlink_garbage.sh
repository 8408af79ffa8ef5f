#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Netlink garbage: nlgarbage (selftests/nlgarbage.c) sends the "fasttrack"
# family invalid requests of every kind, to every command number, as root
# and as nobody: unknown commands and attributes, wrong lengths and types,
# truncated and trailing attributes, garbage in nests, huge and negative
# values, devices that do not exist, and random requests each carrying one
# definite defect. Each must be rejected; the kernel stays well; and the
# state does not change: the enabled devices, the settings and the cached
# flows of an offloaded connection are the same before and after.
# The random part reproduces from the seed it prints (FT_NLGARBAGE_SEED);
# FT_NLGARBAGE_RANDOM sets how many random requests (2000).
# shellcheck disable=SC3043 # dash has "local"
. "$(dirname "$0")/lib.sh"

require_cmd nlgarbage ftctl setpriv socat mkfifo

SEED=${FT_NLGARBAGE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
NRANDOM=${FT_NLGARBAGE_RANDOM:-2000}

in_router() { ip netns exec "$NS_ROUTER" "$@"; }

# state: what no request may change, without traffic counters.
state() {
	# Without the counters: the hosts' own router solicitations and
	# neighbour discovery move them meanwhile (punted as unknown).
	in_router ftctl -j show | tr -d ' \n' |
		sed 's/"packets":[0-9]*,"bytes":[0-9]*//g; s/"punted":{[^}]*}//g'
	echo
	in_router ftctl -j get | tr -d ' \n'
	echo
	in_router ftctl -j stats | tr -d ' \n' | sed 's/.*"flows":\([0-9]*\).*/flows \1/'
	echo
}

flows() { in_router ftctl -j stats | tr -d ' \n' | sed 's/.*"flows":\([0-9]*\).*/\1/'; }
has_flows() { [ "$(flows)" -ge "$1" ]; }

# garbage WHO CMD...: run nlgarbage through CMD (a user change or nothing)
# and judge it: exit 0, the state unchanged, no splat.
garbage() {
	local who=$1 out rc before after
	shift
	before=$(state)
	dmesg_mark
	out=$(in_router "$@" nlgarbage --seed "$SEED" --random "$NRANDOM" --dev vlan22 2>&1)
	rc=$?
	# The module's own rejections and what it let through; the core's
	# (policy, unknown commands, permissions) are only counted.
	printf '%s\n' "$out" | grep -E '^(nlgarbage:|lenient:)|^rejected.*: fasttrack: ' |
		sed "s/^/INFO: $who: /"
	printf '%s\n' "$out" | awk -v who="$who" '/^rejected/ && !/: fasttrack: / { n += $2; k++ }
		END { printf "INFO: %s: rejected by the netlink core: %d requests, %d kinds\n", who, n, k }'
	if [ "$rc" -eq 0 ]; then
		pass "$who: every garbage request rejected"
	else
		fail "$who: every garbage request rejected" \
			"command: ip netns exec NS_ROUTER $* nlgarbage --seed $SEED --random $NRANDOM --dev vlan22" \
			"exit $rc:" "$(printf '%s\n' "$out" | grep -v -E '^(rejected|lenient:)')"
	fi
	after=$(state)
	check_eq "$who: devices, settings and flows unchanged" "$before" "$after"
	check_dmesg_clean "$who: no kernel splat"
}

ft_module_load
setup_router_on_a_stick
nft_ct_ruleset "$NS_ROUTER"
TMP=$(mktemp -d)
defer rm -rf "$TMP"

# Some state to protect: both VLANs enabled (vlan2222 for IPv6 only), the
# settings away from their defaults, and an offloaded TCP connection.
must in_router ftctl enable vlan22
must in_router ftctl enable vlan2222 ipv6
must in_router ftctl enable vlan2222 ipv4
must in_router ftctl set tcp-timeout 3600 udp-timeout 1234 max-flows 4321 skip-mark 0x10 skip-mask 0xf0
ip netns exec "$NS_SERVER" socat -u TCP4-LISTEN:5001,reuseaddr OPEN:/dev/null 2>/dev/null &
defer kill $!
mkfifo "$TMP/in"
ip netns exec "$NS_CLIENT" socat -u "OPEN:$TMP/in" "TCP4:$SERVER_IP4:5001,retry=50,interval=0.1" 2>/dev/null &
defer kill $!
exec 7>"$TMP/in"
send_and_check_flows() { echo data >&7 && has_flows 2; }
must busywait 15000 send_and_check_flows

log_info "seed $SEED ($NRANDOM random requests); reproduce with FT_NLGARBAGE_SEED=$SEED"
garbage root
garbage nobody setpriv --reuid=65534 --regid=65534 --clear-groups

check "the connection is still offloaded" has_flows 2
exec 7>&-
ft_exit
