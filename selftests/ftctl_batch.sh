#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "ftctl -b FILE" and "ftctl save", what a configuration file and
# "systemctl reload" (ExecReload=ftctl -b /etc/fasttrack.conf) rely on:
#  - a good file (comments, blank lines, settings, enables) applies, and
#    applying it again succeeds and changes nothing;
#  - "disable all" at the top of a file makes a reload converge: what the
#    file no longer enables is disabled, the rest keeps its cached flows;
#  - "ftctl save | ftctl -b -" round-trips, and save prints the same again;
#  - a bad file names the file and the line, exits non-zero, and a line
#    that fails its checks changes nothing, not even the lines before it;
#  - "disable -f" of a device that is not enabled succeeds; without -f
#    the error says "fasttrack" once.
# shellcheck disable=SC3043
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_ftctl.sh"

fp_init
T=$FP_TMP

# state: the enabled devices as "DEV:FAMILIES" words, in ifindex order.
state() {
	ftc show dump | awk -F '\t' '{
		f = ""
		if ($3 == "on") f = "ipv4"
		if ($6 == "on") f = f (f == "" ? "" : "+") "ipv6"
		printf "%s%s:%s", (NR > 1 ? " " : ""), $1, f }'
}

# state_is DESC EXPECTED
state_is() { check_output "$1" "$2" state; }

# setting KEY: the value "ftctl get" shows for KEY.
setting() { ftc get | awk -v k="$1" '$1 == k { print $2 }'; }

# batch_fails DESC RC REGEX FILE: "ftctl -b FILE" exits RC and says REGEX.
batch_fails() {
	local out rc
	out=$(ftc -b "$4" 2>&1)
	rc=$?
	if [ "$rc" -eq "$2" ] && printf '%s\n' "$out" | grep -qE -- "$3"; then
		pass "$1"
	else
		fail "$1" "command: ip netns exec $NS_ROUTER ftctl -b $4" \
			"exit $rc (want $2), output (want /$3/):" "$out" \
			"file:" "$(cat -n "$4")"
	fi
}

fp_setup_stick
C=$ROUTER_CLIENT_DEV S=$ROUTER_SERVER_DEV
must ftc disable "$C"
must ftc disable "$S"
must ftc set udp-timeout 600
ftc_long_udp_ct

# ------------------------------------------------------------ good file --

cat >"$T/good.conf" <<EOF
# fasttrack configuration for the test

set max-flows 4096	# a comment after a command
   set tcp-timeout 120
enable $C
enable $S ipv4
EOF
check "good file: ftctl -b applies it" ftc -b "$T/good.conf"
state_is "good file: $C both families, $S IPv4" "$C:ipv4+ipv6 $S:ipv4"
check_eq "good file: the settings are set" "4096 120" \
	"$(setting max-flows) $(setting tcp-timeout)"
check "good file again (a reload): succeeds" ftc -b "$T/good.conf"
state_is "good file again: nothing changed" "$C:ipv4+ipv6 $S:ipv4"
check "enable of what is enabled succeeds" ftc enable "$C" ipv4
check "the file from stdin (-b -)" sh -c "ip netns exec $NS_ROUTER ftctl -b - <'$T/good.conf'"
state_is "stdin: nothing changed" "$C:ipv4+ipv6 $S:ipv4"

# ------------------------------------------------- reload: disable all --

# A cached UDP connection through the client VLAN (both directions: the
# reply enters on $S, which is IPv4-enabled).
file=$(fp_mkfile udp4 131072)
fp_udp_transfer "IPv4 UDP" 4 "$file"
ftc_wait_nflows "two flow directions are cached" 2 5000
learned=$(ftc -j stats | fp_jget learned)

cat >"$T/reload.conf" <<EOF
disable all
set max-flows 4096
enable $C
enable $S ipv4
EOF
check "reload with disable all, same enables: succeeds" ftc -b "$T/reload.conf"
state_is "reload: state unchanged" "$C:ipv4+ipv6 $S:ipv4"
check_eq "reload: the cached flows are kept (not flushed, not learned again)" \
	"2 $learned 0" "$(ftc_nflows) $(ftc -j stats | fp_jget learned invalidated)"
check "reload twice: succeeds" ftc -b "$T/reload.conf"
state_is "reload twice: state unchanged" "$C:ipv4+ipv6 $S:ipv4"

cat >"$T/dropped.conf" <<EOF
disable all
enable $C ipv4
EOF
check "reload without $S, $C IPv4 only: succeeds" ftc -b "$T/dropped.conf"
state_is "reload: $S is disabled, $C IPv6 too" "$C:ipv4"
check_eq "reload: the connection through $S went (both directions)" "0" "$(ftc_nflows)"
check "reload of the smaller file twice: succeeds" ftc -b "$T/dropped.conf"
state_is "reload twice: state unchanged" "$C:ipv4"

printf 'disable all ipv6\nenable %s\n' "$S" >"$T/v6.conf"
must ftc enable "$C"
check "disable all ipv6, then enable $S" ftc -b "$T/v6.conf"
state_is "only IPv6 of the others is disabled" "$C:ipv4 $S:ipv4+ipv6"

# ------------------------------------------------------------ save ------

must ftc set skip-mark 0x10/0xf0
must ftc -b "$T/reload.conf"
ftc_to "$T/saved" save
check_eq "save: the settings, disable all, the enables" \
	"set max-flows 4096
set tcp-timeout 120
set udp-timeout 600
set skip-mark 0x10/0xf0
disable all
enable $C
enable $S ipv4" "$(grep -v '^#' "$T/saved")"
must ftc disable all
must ftc set max-flows 100 tcp-timeout 5 skip-mark 0/0
check "save | -b: restores the saved state" ftc -b "$T/saved"
state_is "save | -b: the enables are back" "$C:ipv4+ipv6 $S:ipv4"
check_output "save | -b: save prints the same again" "$(cat "$T/saved")" ftc save
check "ftctl save | ftctl -b - (a pipe)" \
	sh -c "ip netns exec $NS_ROUTER ftctl save | ip netns exec $NS_ROUTER ftctl -b -"
check_output "save | -b -: nothing changed" "$(cat "$T/saved")" ftc save
check "the saved file twice" ftc -b "$T/saved"
check_output "the saved file twice: nothing changed" "$(cat "$T/saved")" ftc save

# ------------------------------------------------------------ bad files --

printf 'set max-flows 1234\n\n# comment\nfrobnicate %s\n' "$C" >"$T/bad1.conf"
batch_fails "unknown command: file and line 4" 2 \
	"^ftctl: $T/bad1.conf:4: unknown command 'frobnicate'" "$T/bad1.conf"
check_eq "unknown command: the lines before it were not applied" 4096 "$(setting max-flows)"

printf 'disable all\nenable %s ipv5\n' "$S" >"$T/bad2.conf"
batch_fails "bad family: line 2" 2 "bad2.conf:2: unknown family 'ipv5'" "$T/bad2.conf"
state_is "bad family: nothing changed" "$C:ipv4+ipv6 $S:ipv4"

# (A name no device has is kept by the module for later: not an error.)
printf '# x\nenable %s\nset max-flows 7\nenable bad/name\n' "$S" >"$T/bad3.conf"
batch_fails "invalid device name: line 4" 2 "bad3.conf:4: invalid device name 'bad/name'" "$T/bad3.conf"
check_eq "invalid device name: the lines before it were not applied" 4096 "$(setting max-flows)"

printf 'set max-flows 99\nset max-flows 0\nenable %s ipv6\n' "$S" >"$T/bad4.conf"
batch_fails "out of range (the kernel says so): line 2" 1 \
	"bad4.conf:2: max-flows: .*between 1 and" "$T/bad4.conf"
check_eq "out of range: stops there; line 1 ran, line 3 did not" "99 $C:ipv4+ipv6 $S:ipv4" \
	"$(setting max-flows) $(state)"

printf 'set max-flows\n' >"$T/bad5.conf"
batch_fails "missing value: line 1" 2 "bad5.conf:1: missing value for max-flows" "$T/bad5.conf"
printf '\n-j show\n' >"$T/bad6.conf"
batch_fails "an option as a command: line 2" 2 "bad6.conf:2: unknown command '-j'" "$T/bad6.conf"
printf 'monitor\n' >"$T/bad7.conf"
batch_fails "monitor (never ends) is refused" 2 "bad7.conf:1: 'monitor' is not a command for a batch" "$T/bad7.conf"
batch_fails "a missing file" 1 "cannot open $T/nosuch.conf" "$T/nosuch.conf"
check_fail "stdin: the line is named" "^ftctl: <stdin>:2: unknown family 'ipv7'" \
	sh -c "printf 'enable %s\nenable %s ipv7\n' $C $C | ip netns exec $NS_ROUTER ftctl -b -"
check_fail "-b with a command after it" "unexpected 'show'" ftc -b "$T/good.conf" show
check "an empty file" ftc -b /dev/null

# ------------------------------------------------------ disable --force --

must ftc disable all
check_fail "disable of a device that is not enabled fails" \
	"^ftctl: $C: fasttrack is not enabled on this device$" ftc disable "$C"
check "disable -f of a device that is not enabled succeeds" ftc disable -f "$C"
check "disable --force of a missing device succeeds" ftc disable --force ftnosuch0 ipv4
check "disable -f in a batch" sh -c "printf 'disable -f %s\n' $S | ip netns exec $NS_ROUTER ftctl -b -"
check_fail "enable -f is not an option" "unknown option '-f'" ftc enable -f "$C"
state_is "nothing is enabled" ""

fp_exit
