# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest: windows for bench/prof/profile.sh, which boots
# the bench guest with a QEMU plugin (bench/prof/ftprof.c) that counts the
# instructions executed at each address while a window is open. A window is
# one pktgen run, as bench/guest/cache.sh's: pktgen.sh (BN_PKTGEN_MARK=1)
# opens it just before the run by reading /proc/sys/kernel/random/boot_id
# (proc_do_uuid()) and closes it just after by reading
# /proc/sys/kernel/domainname (proc_do_uts_string()); the first close only
# arms the plugin. The window holds what pktgen's run time (its usec, the
# pps measurement's) holds, and pktgen's start and end (about 300 000
# instructions).
#
# Settings (kernel command line):
#   ft.profile=P,...   paths to profile (fasttrack, nfftc, ...); off unless set
#   ft.profcount=N     pktgen frames per window (20000)
#   ft.profsyms=1      print every kernel text symbol too (nokaslr: once
#                      per kernel is enough)
#
# Per path and family: the flow is primed and settled, then one window of
# N frames of one flow. Windows are numbered from 0 in this order, and each
# has a "@RESULT sec=profile" line with pktgen's run time and the part of
# it pktgen spent scheduled out (idle_usec); the module's .text address
# and symbols come first (the host symbolizes).
# shellcheck shell=sh disable=SC3043,SC2013 # dash has "local"; words of /proc/cmdline

PROF_PATHS='' PROF_COUNT=20000 PROF_SYMS=0
for arg in $(cat /proc/cmdline); do
	case $arg in
	ft.profile=*) PROF_PATHS=$(echo "${arg#*=}" | tr ',' ' ') ;;
	ft.profcount=*) PROF_COUNT=${arg#*=} ;;
	ft.profsyms=*) PROF_SYMS=${arg#*=} ;;
	esac
done

section_profile() {
	local path fam win=0
	section "instruction profile windows: $PROF_PATHS, $PROF_COUNT frames"
	bn_result sec=profsyms text="$(cat /sys/module/fasttrack/sections/.text)" \
		start="$(awk '$3 == "proc_do_uuid" { print $1; exit }' /proc/kallsyms)" \
		stop="$(awk '$3 == "proc_do_uts_string" { print $1; exit }' /proc/kallsyms)"
	# Text symbols, for the host to name addresses by.
	awk -v all="$PROF_SYMS" '$2 ~ /^[tT]$/ && $3 !~ /^__pfx_/ && (all == 1 || $4 != "") {
		print "@KSYM " $1 " " $3 " " $4 }' /proc/kallsyms
	# Arms the plugin (its first close).
	read -r _ </proc/sys/kernel/domainname
	for path in $PROF_PATHS; do
		bn_path_on "$NS_ROUTER" "$path"
		# The modules the path loaded (act_vlan, nf_flow_table...).
		awk '$2 ~ /^[tT]$/ && $3 !~ /^__pfx_/ && $4 != "" {
			print "@KSYM " $1 " " $3 " " $4 }' /proc/kallsyms
		for fam in 4 6; do
			prime "$fam" 1 1
			settle
			BN_PKTGEN_MARK=1
			export BN_PKTGEN_MARK
			bn_pktgen "$fam" fwd "$PROF_COUNT" 1 1
			unset BN_PKTGEN_MARK
			bn_result sec=profile window="$win" path="$path" fam="$fam" \
				usec="$BN_USEC" idle_usec="$BN_IDLE_USEC" sent="$BN_SENT" rx="$BN_RX"
			win=$((win + 1))
		done
		bn_path_off "$NS_ROUTER"
	done
}
