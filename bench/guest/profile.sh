# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest: windows for bench/prof/profile.sh, which boots
# the bench guest with a QEMU plugin (bench/prof/ftprof.c) that counts the
# instructions executed at each address between two sethostname() calls.
#
# Settings (kernel command line):
#   ft.profile=P,...   paths to profile (fasttrack, nfftc, ...); off unless set
#   ft.profcount=N     pktgen frames per window (20000)
#   ft.profsyms=1      print every kernel text symbol too (nokaslr: once
#                      per kernel is enough)
#
# Per path and family: the flow is primed and settled, then one window of
# N frames of one flow, between two sethostname() calls. Windows are
# numbered from 0 in this order, and each has a "@RESULT sec=profile"
# line; the module's .text address and symbols come first (the host
# symbolizes).
# shellcheck shell=sh disable=SC3043,SC2013 # dash has "local"; words of /proc/cmdline

PROF_PATHS='' PROF_COUNT=20000 PROF_SYMS=0
for arg in $(cat /proc/cmdline); do
	case $arg in
	ft.profile=*) PROF_PATHS=$(echo "${arg#*=}" | tr ',' ' ') ;;
	ft.profcount=*) PROF_COUNT=${arg#*=} ;;
	ft.profsyms=*) PROF_SYMS=${arg#*=} ;;
	esac
done

# prof_window: open or close a window (the plugin toggles on sethostname).
prof_window() { hostname "ftprof$1"; }

section_profile() {
	local path fam win=0
	section "instruction profile windows: $PROF_PATHS, $PROF_COUNT frames"
	bn_result sec=profsyms text="$(cat /sys/module/fasttrack/sections/.text)" \
		marker="$(awk '$3 == "__x64_sys_sethostname" { print $1 }' /proc/kallsyms)"
	# Text symbols, for the host to name addresses by.
	awk -v all="$PROF_SYMS" '$2 ~ /^[tT]$/ && $3 !~ /^__pfx_/ && (all == 1 || $4 != "") {
		print "@KSYM " $1 " " $3 " " $4 }' /proc/kallsyms
	for path in $PROF_PATHS; do
		bn_path_on "$NS_ROUTER" "$path"
		for fam in 4 6; do
			prime "$fam" 1 1
			settle
			prof_window "$win"
			bn_pktgen "$fam" fwd "$PROF_COUNT" 1 1
			prof_window "$win"
			bn_result sec=profile window="$win" path="$path" fam="$fam" \
				usec="$BN_USEC" sent="$BN_SENT" rx="$BN_RX"
			win=$((win + 1))
		done
		bn_path_off "$NS_ROUTER"
	done
}
