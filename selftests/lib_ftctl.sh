# SPDX-License-Identifier: GPL-2.0
# Helpers for the ftctl_*.sh selftests, which check ftctl's commands and
# output forms against the module. Source lib.sh and lib_fastpath.sh first,
# then this.
#
# The router's flows are read with "ftctl flows dump" (tab-separated, the
# field order of ftctl(8)); jq is kept for checking that JSON parses and
# agrees with the text, because it takes most of a second to start in the
# TCG guest.
# shellcheck shell=sh disable=SC3043 # dash has "local"

# The fields of one "ftctl flows dump" line, in order (ftctl(8)).
FTC_FLOW_FIELDS="id family proto dir src sport dst dport nat_src nat_sport nat_dst nat_dport iif iif_vlan oif oif_vlan packets bytes age_ms idle_ms"
FTC_NFIELDS=20
# And of one "ftctl show dump" line.
FTC_SHOW_FIELDS="ifname ifindex ipv4_enabled ipv4_packets ipv4_bytes ipv6_enabled ipv6_packets ipv6_bytes"

# ftc ARGS...: ftctl in the router netns.
ftc() { ip netns exec "$NS_ROUTER" ftctl "$@"; }

# ftc_nobody ARGS...: ftctl in the router netns as uid/gid 65534, no caps.
ftc_nobody() {
	ip netns exec "$NS_ROUTER" setpriv --reuid=65534 --regid=65534 \
		--clear-groups ftctl "$@"
}

# ftc_require CMD...: skip unless this ftctl has the commands CMD.
ftc_require() {
	local c
	require_cmd ftctl
	for c in "$@"; do
		ftctl --help 2>&1 | grep -q "^  $c " ||
			ft_skip "this ftctl has no $c command (ftctl --help)"
	done
}

# ftc_to FILE ARGS...: "ftctl ARGS" in the router netns, its output in
# FILE (its errors in FILE.err); a failure fails the test.
ftc_to() {
	local f=$1 rc
	shift
	ftc "$@" >"$f" 2>"$f.err"
	rc=$?
	[ "$rc" -eq 0 ] ||
		fail "ftctl $*" "command: ip netns exec $NS_ROUTER ftctl $(quote "$@")" \
			"exit $rc:" "$(cat "$f.err")"
	return "$rc"
}

# ftc_long_udp_ct: idle UDP connections stay in the router's conntrack
# (and so in its flow table) for 10 minutes instead of 30 s to 2 min, so
# that a slow guest can look at them at leisure.
ftc_long_udp_ct() {
	must ip netns exec "$NS_ROUTER" sysctl -qw net.netfilter.nf_conntrack_udp_timeout=600
	must ip netns exec "$NS_ROUTER" sysctl -qw net.netfilter.nf_conntrack_udp_timeout_stream=600
}

# ftc_nflows [FILTER...]: how many lines "ftctl flows dump FILTER" prints.
ftc_nflows() { ftc flows dump "$@" | wc -l | tr -d ' '; }
ftc_nflows_is() {
	local n=$1
	shift
	[ "$(ftc_nflows "$@")" = "$n" ]
}

# ftc_wait_nflows DESC N TIMEOUT_MS [FILTER...]: the router caches exactly
# N flow directions (matching FILTER) within TIMEOUT_MS.
ftc_wait_nflows() {
	local desc=$1 n=$2 t=$3
	shift 3
	if busywait "$t" ftc_nflows_is "$n" "$@"; then
		pass "$desc"
	else
		fail "$desc" "expected $n flows, \"ftctl flows $*\" lists $(ftc_nflows "$@"):" \
			"$(ftc flows "$@" 2>&1 | head -n 20)"
	fi
}

# ftc_field FILE DIR FIELD: FIELD (a name of FTC_FLOW_FIELDS) of the line of
# the flows dump in FILE whose direction is DIR (original or reply).
ftc_field() {
	local i=1 f
	for f in $FTC_FLOW_FIELDS; do
		[ "$f" = "$3" ] && break
		i=$((i + 1))
	done
	awk -F '\t' -v dir="$2" -v i="$i" '$4 == dir { print $i; exit }' "$1"
}

# ftc_tuple FILE DIR: fields 2-16 of the DIR line (what does not change
# while the flow lives: everything but the id and the counters), space-
# separated.
ftc_tuple() {
	awk -F '\t' -v dir="$2" '$4 == dir {
		s = $2; for (i = 3; i <= 16; i++) s = s " " $i; print s; exit }' "$1"
}

# ftc_check_nfields DESC FILE N: every line of FILE has N tab-separated
# fields, and there is at least one line.
ftc_check_nfields() {
	local bad lines
	lines=$(wc -l <"$2" | tr -d ' ')
	bad=$(awk -F '\t' -v n="$3" 'NF != n { print NR ": " NF " fields: " $0 }' "$2" | head -n 5)
	if [ "$lines" -gt 0 ] && [ -z "$bad" ]; then
		pass "$1"
	else
		fail "$1" "$lines lines; expected $3 fields on each:" "$bad"
	fi
}

# ftc_check_unique DESC FILE CUT: no two lines of FILE have the same
# fields CUT (a cut -f list).
ftc_check_unique() {
	local dups
	dups=$(cut -f "$3" "$2" | sort | uniq -d | head -n 5)
	if [ -z "$dups" ]; then
		pass "$1"
	else
		fail "$1" "repeated (fields $3):" "$dups"
	fi
}

# ftc_check_grep DESC FILE FIXED-STRING: FILE has a line with the string.
ftc_check_grep() {
	if grep -qF -- "$3" "$2"; then
		pass "$1"
	else
		fail "$1" "no line contains: $3" "$(head -n 10 "$2")"
	fi
}

# ftc_json_tsv FILE: the JSON of "ftctl -j flows" in FILE as the first 16
# fields of "flows dump" (vlan "-" when absent), one line per flow.
ftc_json_tsv() {
	jq -r '.[] | [.id, .family, .proto, .dir, .src, .sport, .dst, .dport,
		.nat_src, .nat_sport, .nat_dst, .nat_dport, .iif_name,
		(.iif_vlan // "-"), .oif_name, (.oif_vlan // "-")] |
		map(tostring) | join("\t")' "$1"
}

# ftc_ifindex NS DEV: the interface index of DEV in NS.
ftc_ifindex() { ip netns exec "$1" cat "/sys/class/net/$2/ifindex"; }

# ftc_local_port NS PORT: the local port of the TCP connection in NS whose
# remote port is PORT (from /proc/net/tcp and tcp6).
ftc_local_port() {
	local hex
	hex=$(ip netns exec "$1" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$(printf ':%04X' "$2")" '$3 ~ (p "$") && $4 == "01" {
			n = split($2, a, ":"); print a[n]; exit }')
	[ -n "$hex" ] && echo $((0x$hex))
}

# ftc_peer_port: the port the last fp_*_server saw its client come from.
ftc_peer_port() {
	local p
	p=$(fp_peer)
	[ -n "$p" ] && echo "${p##*:}"
}
ftc_have_peer() { [ -n "$(fp_peer)" ]; }

# ftc_possible_cpus: how many CPUs the kernel counts as possible.
ftc_possible_cpus() {
	awk -F, '{ n = 0; for (i = 1; i <= NF; i++) {
		if (split($i, r, "-") == 2) n += r[2] - r[1] + 1; else n++ }
		print n }' /sys/devices/system/cpu/possible
}
