#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fast path between a LAN VLAN and a WireGuard tunnel (wg0, a device
# without a link-layer header) to a peer that routes to the server, over an
# IPv4 underlay on VLAN 2222; the tunnel carries IPv4 and IPv6. fasttrack
# is enabled on vlan22 and wg0. In both families, a TCP upload (into the
# tunnel: the fast path transmits on wg0, which encrypts) and a TCP
# download (out of it: the fast path takes what wg0 decrypted) of a few MB
# arrive intact, the forward chain sees less than 10% of their bytes, the
# fast path carries them, and wg0's own tx / rx counters count them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_l3dev.sh"

l3_tunnel_test wireguard wg0
