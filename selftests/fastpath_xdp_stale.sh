#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A cached decision dies with its state in the XDP tier too: the skb
# tier's tests of it, run with the XDP tier on the trunk (FP_XDP=1: see
# fp_setup_stick and st_offloaded, which then also requires the XDP tier
# to carry the stream before the change):
#  fastpath_ct_delete   conntrack -D of an offloaded connection: not one
#                       more byte through the fast path, the stream stops;
#  fastpath_route_neigh a neighbour change and a route change: the stream
#                       follows within a second, not one frame to the old
#                       MAC, the fast path keeps carrying it.
# Fails if either fails, skips if both skip (no XDP tier).
FP_XDP=1
export FP_XDP
dir=$(dirname "$0")
ret=4
for t in fastpath_ct_delete fastpath_route_neigh; do
	echo "# ---- $t with the XDP tier"
	rc=0
	"$dir/$t.sh" || rc=$?
	echo "# ---- $t: exit $rc"
	case $rc in
	0) [ "$ret" = 1 ] || ret=0 ;;
	4) ;;
	*) ret=1 ;;
	esac
done
exit "$ret"
