#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own netfilter selftests (tools/testing/selftests/net/
# netfilter/ and what they source) from Debian's linux-source-K of the
# kernel K they run on, with their C helpers built, in $CACHE/knf/K;
# prints that directory. K is FT_KNF_KERNEL, else the one this commit's
# rotation picks (--kernel). selftests/kernel_netfilter.sh runs them in
# the guest (initramfs.sh puts the tree at /knf). The source package is
# fetched as kernels.sh fetches that kernel, when its tarball is not
# installed; nothing is installed on the host but libmnl-dev (deps.sh).
#
# usage: knf.sh            prepare; print the directory
#        knf.sh --list     the scripts of the suite, less its exclusions
#        knf.sh --scripts  this run's: FT_KNF_SCRIPTS if set, else
#                          FT_KNF_SLOT's share if set, else all
#        knf.sh --plan     the rotation and this commit's slot
#        knf.sh --slot     this commit's slot
#        knf.sh --kernel   the kernel whose suite this commit runs
#        knf.sh --kernels  the kernels that have a suite
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

# The kernels whose suites run, each on its own guest: a commit runs one
# of them, in turn by its first-parent count (as the slots below).
KNF_KERNELS="6.12 7.2"
# Each helper, and whether it links libmnl; those a suite has are built.
HELPERS="nf_queue:mnl conntrack_dump_flush:mnl connect_close audit_logread
	conntrack_reverse_clash sctp_collision udpclash"

# Left out, with why: the full stack itself cannot run them here.
# - nf_conntrack_packetdrill: packetdrill is not in Debian 12.
# - nft_concat_range_perf: not in the suite (TEST_PROGS_EXTENDED), the
#   performance half of nft_concat_range, which needs netperf (non-free).
# - nft_audit: skips, "nft reset feature test failed": Debian 12's
#   nftables (1.0.6) has no "reset rules".
# - nft_concat_range: fails on the full stack at its "reported issues"
#   step "net,mac with reload" (a UDP packet that an ipv4_addr .
#   ether_addr interval set must match did not, on the guest's 6.12.95
#   with nftables 1.0.6), and stops there. Its packets go over one veth
#   pair, routed by no netns: fasttrack would forward none.
KNF_EXCLUDE_6_12="nf_conntrack_packetdrill nft_concat_range_perf nft_audit nft_concat_range"
# 7.2's suite, on the same Debian 12 tools in the guest: the same four,
# and
# - nft_offload: needs netdevsim, which Debian's 7.2 does not build
#   (CONFIG_NETDEVSIM is not set): the full stack fails at its setup
#   (exit 1, no output).
KNF_EXCLUDE_7_2="nf_conntrack_packetdrill nft_concat_range_perf nft_audit nft_concat_range
	nft_offload"

# What each script took on the 6.12 guest (one vCPU, TCG, on the 2-CPU
# host beside other guests), both runs together with the waits between
# them, in seconds; the rotation deals them by it. A script not here
# counts KNF_DEFAULT_SECONDS. Two take a slot of their own, over the
# share: nft_nat_zones (102 s, then 227 s with fasttrack on its 42
# namespaces) and nft_flowtable, whose second pass draws MTUs and a file
# size at random (138 s in one boot, 369 s in another: the longer here).
KNF_SECONDS_6_12="
	br_netfilter 83		br_netfilter_queue 43	bridge_brouter 12
	conntrack_icmp_related 36	conntrack_ipip_mtu 24
	conntrack_reverse_clash 10	conntrack_sctp_collision 8
	conntrack_tcp_unreplied 29	conntrack_vrf 9		ipvs 29
	nf_nat_edemux 17	nft_conntrack_helper 6	nft_fib 15
	nft_flowtable 369	nft_meta 16		nft_nat 127
	nft_nat_zones 329	nft_queue 172		nft_synproxy 6
	nft_tproxy_tcp 31	nft_tproxy_udp 49	nft_zones_many 104
	rpath 29		vxlan_mtu_frag 13	xt_string 21
"
# The same on the 7.2 guest (7.2.13, scripts of 7.2.13), beside two other
# guests.
KNF_SECONDS_7_2="
	br_netfilter 198	br_netfilter_queue 40	bridge_brouter 10
	conntrack_clash 463	conntrack_dump_flush 4	conntrack_icmp_related 23
	conntrack_ipip_mtu 24	conntrack_resize 467	conntrack_reverse_clash 14
	conntrack_sctp_collision 21	conntrack_tcp_unreplied 35
	conntrack_vrf 13	ipvs 38		nf_nat_edemux 10
	nft_conntrack_helper 12	nft_fib 137	nft_fib_nexthop 20
	nft_flowtable 318	nft_interface_stress 113	nft_meta 13
	nft_nat 125		nft_nat_zones 127	nft_queue 283
	nft_synproxy 13		nft_tproxy_tcp 30	nft_tproxy_udp 58
	nft_zones_many 87	rpath 25		vxlan_mtu_frag 11
	xt_string 10
"
# Run by make check-netfilter, not dealt into CI's rotation: stress
# tests of conntrack alone (floods of ctnetlink inserts, pings and UDP
# clashes for fixed times, table resizes), about four minutes a run
# under TCG, each would take a CI run eight; fasttrack forwards nothing
# in them (one netns each, no routing).
KNF_NOT_IN_CI_7_2="conntrack_clash conntrack_resize"
KNF_DEFAULT_SECONDS=60
# Seconds of scripts a CI run gets (both runs of each): the suite's share
# of CI's hour (the issue: at most about four minutes).
KNF_SLOT_SECONDS=${FT_KNF_SLOT_SECONDS:-210}

# pick_kernel: FT_KNF_KERNEL, else this commit's turn of KNF_KERNELS.
pick_kernel() {
	local k n
	if [ -n "${FT_KNF_KERNEL:-}" ]; then
		echo "$FT_KNF_KERNEL"
		return
	fi
	commit_index
	n=$(wc -w <<<"$KNF_KERNELS")
	k=$((INDEX % n + 1))
	cut -d' ' -f"$k" <<<"$KNF_KERNELS"
}

KNF_KERNEL=$(pick_kernel)
KNF_NOT_IN_CI=
case $KNF_KERNEL in
6.12) KNF_EXCLUDE=$KNF_EXCLUDE_6_12 KNF_SECONDS=$KNF_SECONDS_6_12 ;;
7.2)
	KNF_EXCLUDE=$KNF_EXCLUDE_7_2 KNF_SECONDS=$KNF_SECONDS_7_2
	KNF_NOT_IN_CI=$KNF_NOT_IN_CI_7_2
	;;
*) die "no netfilter suite for kernel $KNF_KERNEL; known: $KNF_KERNELS" ;;
esac
SRC_PKG=linux-source-$KNF_KERNEL
dir=$CACHE/knf/$KNF_KERNEL

prepare() {
	[ ! -f "$dir/.done" ] || return 0
	bash "$VM_DIR/deps.sh"
	tarball=/usr/src/$SRC_PKG.tar.xz
	[ -f "$tarball" ] || tarball=$(bash "$VM_DIR/kernels.sh" --source "$KNF_KERNEL")
	rm -rf "$dir"
	mkdir -p "$dir"
	sel=$SRC_PKG/tools/testing/selftests
	tar -xJf "$tarball" -C "$dir" --strip-components=4 \
		"$sel/net/netfilter" "$sel/net/lib.sh" "$sel/net/lib" "$sel/kselftest_harness.h" \
		"$sel/kselftest.h" >&2
	tar -xJOf "$tarball" "$SRC_PKG/Makefile" | sed -n '2,4p' | tr -d ' ' | tr '\n' ' ' >"$dir/VERSION"
	echo >>"$dir/VERSION"
	nf=$dir/net/netfilter
	for h in $HELPERS; do
		name=${h%%:*} libs=
		[ -f "$nf/$name.c" ] || continue
		[ "$h" = "$name" ] || libs=$(pkg-config --libs libmnl)
		# shellcheck disable=SC2086 # no or one library
		gcc -O2 -I"$dir" -o "$nf/$name" "$nf/$name.c" -lpthread $libs
	done
	touch "$dir/.done"
}

# list: the scripts, one a line.
list() {
	prepare >&2
	find "$dir/net/netfilter" -maxdepth 1 -name '*.sh' ! -name lib.sh -printf '%f\n' |
		sed 's/\.sh$//' | sort | grep -vxF -f <(xargs -n1 <<<"$KNF_EXCLUDE")
}

# rotated: the scripts CI's rotation deals, less KNF_NOT_IN_CI.
rotated() { list | grep -vxF -f <(xargs -n1 <<<"${KNF_NOT_IN_CI:--}"); }

# plan: "SECONDS SCRIPT..." per slot, heaviest first to the lightest slot,
# as few slots as keep each at most KNF_SLOT_SECONDS (a script alone may
# take more).
plan() {
	local weighed n
	weighed=$(rotated | awk -v d="$KNF_DEFAULT_SECONDS" -v w="$(xargs <<<"$KNF_SECONDS")" '
		BEGIN { n = split(w, a, " "); for (i = 1; i < n; i += 2) s[a[i]] = a[i + 1] }
		{ print ($1 in s ? s[$1] : d), $1 }' | sort -k1,1nr -k2,2)
	for n in $(seq 1 64); do
		awk -v n="$n" -v max="$KNF_SLOT_SECONDS" '
			{ b = 0
			  for (i = 1; i < n; i++) if (sum[i] < sum[b]) b = i
			  sum[b] += $1; list[b] = list[b] " " $2; cnt[b]++ }
			END { for (i = 0; i < n; i++) if (sum[i] > max && cnt[i] > 1) exit 1
			      for (i = 0; i < n; i++) print sum[i] + 0 list[i] }' <<<"$weighed" && return
	done
	die "no rotation of 64 slots or fewer fits"
}

# slot N: this commit's slot of N, as debug-ci.sh picks it from the
# first-parent count; past the kernel's turn: each kernel's slots in turn.
slot() {
	if [ -n "${FT_KNF_SLOT:-}" ]; then
		echo $((FT_KNF_SLOT % $1))
	else
		commit_index
		echo $((INDEX / $(wc -w <<<"$KNF_KERNELS") % $1))
	fi
}

case ${1:-} in
'')
	prepare
	echo "$dir"
	;;
--list) list ;;
--scripts)
	if [ -n "${FT_KNF_SCRIPTS:-}" ]; then
		xargs -n1 <<<"$FT_KNF_SCRIPTS"
	elif [ -n "${FT_KNF_ROTATE:-}" ]; then
		p=$(plan)
		sed -n "$(($(slot "$(wc -l <<<"$p")") + 1))p" <<<"$p" | cut -d' ' -f2- | xargs -n1
	else
		list
	fi
	;;
--slot) slot "$(plan | wc -l)" ;;
--kernel) echo "$KNF_KERNEL" ;;
--kernels) echo "$KNF_KERNELS" ;;
--plan)
	p=$(plan)
	n=$(wc -l <<<"$p")
	echo "kernel_netfilter: the suites of $KNF_KERNELS, one a commit; this commit: $KNF_KERNEL"
	echo "kernel_netfilter $KNF_KERNEL: $(rotated | wc -l) scripts in $n slots of at most" \
		"$KNF_SLOT_SECONDS s (both runs; s, scripts):"
	awk '{ printf "  slot %d: %s\n", NR - 1, $0 }' <<<"$p"
	echo "left out: $(xargs <<<"$KNF_EXCLUDE")"
	echo "not in CI's rotation (make check-netfilter runs them): ${KNF_NOT_IN_CI:-none}"
	echo "this commit: slot $(slot "$n")"
	;;
*) die "usage: knf.sh [--list | --scripts | --plan | --slot | --kernel | --kernels]" ;;
esac
