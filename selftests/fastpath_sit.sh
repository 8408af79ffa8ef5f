#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fast path between a LAN VLAN and a SIT tunnel (sit1, the sit driver in
# mode any, a device without a link-layer header) to a peer that routes to
# the server, over an IPv4 underlay on VLAN 2222; the tunnel carries IPv6
# (6in4, as tunnel brokers offer it) and IPv4 (IPIP). fasttrack is enabled
# on vlan22 and sit1. In both families, a TCP upload (into the tunnel: the
# fast path transmits on sit1, which encapsulates) and a TCP download (out
# of it) of a few MB arrive intact, the forward chain sees less than 10% of
# their bytes, the fast path carries them, and sit1's own tx / rx counters
# count them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_l3dev.sh"

l3_tunnel_test sit sit1
