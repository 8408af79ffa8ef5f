#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fast path between a LAN VLAN and a GRE tunnel (gre1, ip_gre, a device
# without a link-layer header) to a peer that routes to the server, over an
# IPv4 underlay on VLAN 2222; the tunnel carries IPv4 and IPv6. fasttrack
# is enabled on vlan22 and gre1. In both families, a TCP upload (into the
# tunnel: the fast path transmits on gre1, which encapsulates) and a TCP
# download (out of it) of a few MB arrive intact, the forward chain sees
# less than 10% of their bytes, the fast path carries them, and gre1's own
# tx / rx counters count them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_l3dev.sh"

l3_tunnel_test gre gre1
