#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fast path between a LAN VLAN and an IPv6 tunnel (tnl1, ip6_tunnel in
# mode any, a device without a link-layer header) to a peer that routes to
# the server, over an IPv6 underlay on VLAN 2222; the tunnel carries IPv4
# (as DS-Lite does) and IPv6. fasttrack is enabled on vlan22 and tnl1. In
# both families, a TCP upload (into the tunnel: the fast path transmits on
# tnl1, which encapsulates) and a TCP download (out of it) of a few MB
# arrive intact, the forward chain sees less than 10% of their bytes, the
# fast path carries them, and tnl1's own tx / rx counters count them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_l3dev.sh"

l3_tunnel_test ip6tnl tnl1
