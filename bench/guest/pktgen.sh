#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run pktgen once on one device of the current netns, and print
# "USEC SENT IDLE_USEC SLOW": the run time pktgen measured, the frames it
# sent, the part of the run time its thread spent scheduled out, and the
# slab allocator's slow paths in the run ("-" unless counted).
#
# usage: pktgen.sh DEV DST_MAC VLAN FAM(4|6) SRC DST SPORT NSPORT DPORT NDPORT COUNT [DELAY_NS]
# 64-byte UDP frames (IPv6: the smallest pktgen builds), tagged VLAN ("-":
# untagged), with NSPORT source ports from SPORT and NDPORT destination
# ports from DPORT, each stepping by one per frame; DELAY_NS apart (0: as
# fast as it can).
# pktgen needs "pkt_size 64" to mean the frame with its FCS.
# BN_PKTGEN_MARK=1: the run is a window of bench/prof/ftcache.c (see
# bench/guest/cache.sh): reading boot_id opens it, domainname closes it
# (shell builtins: no process starts inside the window).
# BN_PKTGEN_QUEUE=1: through the device's qdisc (xmit_mode queue_xmit),
# without UDPCSUM: a checksum the stack completes in software would be
# written into pktgen's shared frame (BUG_ON in pskb_expand_head()).
# BN_PKTGEN_SLOW=1: count the hits of the kprobes bn_slab_probes (lib.sh)
# sets on the slab allocator's slow paths, from just before the run to
# just after it.
# shellcheck disable=SC3043 # dash has "local"
set -eu
dev=$1 mac=$2 vlan=$3 fam=$4 src=$5 dst=$6 sp=$7 nsp=$8 dp=$9
shift 9
ndp=$1 count=$2 delay=${3:-0}
pg=/proc/net/pktgen

pgset() {
	local f=$1
	shift
	echo "$*" >"$pg/$f"
	case $f in
	pgctrl | kpktgend_*) ;;
	*) grep -q "^Result: OK" "$pg/$f" || { grep "^Result" "$pg/$f" >&2; exit 1; } ;;
	esac
}

# slab_hits: SLAB_HITS, the bn_slab_* kprobes' hits so far (no subshell:
# a fork would allocate).
slab_hits() {
	local name hits
	SLAB_HITS=0
	while read -r name hits _; do
		case $name in bn_slab_*) SLAB_HITS=$((SLAB_HITS + hits)) ;; esac
	done </tmp/bn_tracefs/kprobe_profile
}

pgset kpktgend_0 rem_device_all
pgset kpktgend_0 "add_device $dev"
pgset "$dev" "count $count"
pgset "$dev" "clone_skb 0"
pgset "$dev" "pkt_size 64"
pgset "$dev" "delay $delay"
pgset "$dev" "burst 1"
[ "${BN_PKTGEN_QUEUE:-0}" = 0 ] || pgset "$dev" "xmit_mode queue_xmit"
pgset "$dev" "dst_mac $mac"
[ "$vlan" = - ] || pgset "$dev" "vlan_id $vlan"
if [ "$fam" = 4 ]; then
	pgset "$dev" "dst_min $dst"
	pgset "$dev" "dst_max $dst"
	pgset "$dev" "src_min $src"
	pgset "$dev" "src_max $src"
else
	pgset "$dev" "dst6 $dst"
	pgset "$dev" "src6 $src"
fi
pgset "$dev" "udp_src_min $sp"
pgset "$dev" "udp_src_max $((sp + nsp))"
pgset "$dev" "udp_dst_min $dp"
pgset "$dev" "udp_dst_max $((dp + ndp))"
[ "${BN_PKTGEN_QUEUE:-0}" != 0 ] || pgset "$dev" "flag UDPCSUM"
slow=-
[ "${BN_PKTGEN_SLOW:-0}" = 0 ] || { slab_hits; slow=$SLAB_HITS; }
[ "${BN_PKTGEN_MARK:-0}" = 0 ] || read -r _ </proc/sys/kernel/random/boot_id
pgset pgctrl start
[ "${BN_PKTGEN_MARK:-0}" = 0 ] || read -r _ </proc/sys/kernel/domainname
[ "$slow" = - ] || { slab_hits; slow=$((SLAB_HITS - slow)); }
# Result: OK: 1234(c1200+d34) usec, 100000 (60byte,0frags)
sed -n "s/^Result: OK: \\([0-9]*\\)(c[0-9]*+d\\([0-9]*\\)) usec, \\([0-9]*\\) (.*/\\1 \\3 \\2 $slow/p" "$pg/$dev"
