/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * fasttrack: software flow offload for Linux routers.
 *
 * Generic netlink API. Family name FASTTRACK_GENL_NAME, version
 * FASTTRACK_GENL_VERSION. Every command works inside the network namespace
 * of the requesting socket. Commands marked (admin) change state and need
 * CAP_NET_ADMIN in the user namespace that owns that network namespace
 * (GENL_UNS_ADMIN_PERM), as nftables does, so a container's root can manage
 * its own devices and no others. Commands marked (conntrack) reveal
 * connections and their NAT mappings and need the same privilege, as
 * conntrack -L does. Device, statistics and settings reads are open to any
 * user, like "ip -s link". Requests are validated strictly: unknown
 * attributes in a request are rejected, and each rejection carries an extack
 * message. Replies may grow new attributes; readers must ignore the ones they
 * do not know.
 *
 * Documentation/netlink/specs/fasttrack.yaml is the YNL spec of this API:
 * the kernel's ynl tools give a client from it. This header and the
 * module's policies are kept to match it (selftests/ynl/check-spec.py).
 * Each command has its own policy: the checks below (ranges, masks,
 * lengths) are done by the netlink core, which names the attribute and the
 * allowed range in its extack (NLMSGERR_ATTR_OFFS, NLMSGERR_ATTR_POLICY).
 * The genl header's reserved field must be 0 on kernels that check it
 * (6.1 and later).
 *
 * Families are a bit set (enum fasttrack_family_flags): FASTTRACK_F_IPV4,
 * FASTTRACK_F_IPV6. A device is named by FASTTRACK_A_IFINDEX or
 * FASTTRACK_A_IFNAME; when both are given they must name the same device.
 *
 * FASTTRACK_CMD_DEV_ENABLE (admin)
 *   Turn the fast path on for a device, for the given families. Enabling is
 *   additive: families already enabled stay enabled.
 *   Request:
 *     FASTTRACK_A_IFINDEX   u32      device index, or
 *     FASTTRACK_A_IFNAME    string   device name (< IFNAMSIZ)
 *     FASTTRACK_A_FAMILIES  u32      bit set, default: all families; 0 and
 *                                    bits outside FASTTRACK_F_IPV4 |
 *                                    FASTTRACK_F_IPV6 are rejected
 *   Errors: ENODEV no such device; EOPNOTSUPP a device the fast path
 *           cannot serve: loopback, a link-layer header other than
 *           Ethernet, a VRF or a port of one, a bridge, bond or team port;
 *           Ethernet-like and layer-3 devices (ppp, WireGuard, tun, IP
 *           tunnels) are accepted; EINVAL bad family bits; EPERM not
 *           permitted.
 *
 * FASTTRACK_CMD_DEV_DISABLE (admin)
 *   Turn the fast path off for the given families (default: all). Cached
 *   flows of those families that enter or leave through the device are
 *   dropped, and go back to the slow path.
 *   When no family is left, the device's hook and counters are released.
 *   Request: as FASTTRACK_CMD_DEV_ENABLE.
 *   Errors: ENODEV no such device; ENOENT device is not enabled.
 *
 * FASTTRACK_CMD_RULE_ADD (admin)
 *   Enable by name: the module keeps the name or pattern, enables every
 *   device of the namespace it matches now, and enables any device that
 *   is registered, renamed or moved in later with a matching name. Adding
 *   a rule that exists adds the families to it.
 *   Request:
 *     FASTTRACK_A_IFNAME    string   a device name or a shell glob (*, ?,
 *                                    [...], [!...]) of at most 15 bytes
 *     FASTTRACK_A_FAMILIES  u32      as for FASTTRACK_CMD_DEV_ENABLE
 *   A pattern skips (and counts in FASTTRACK_A_STAT_RULE_SKIPPED) devices
 *   that cannot be offloaded; a name that is not a pattern fails as
 *   FASTTRACK_CMD_DEV_ENABLE does for such a device, and is kept if no
 *   device has it yet.
 *   Errors: EINVAL not a name; ENOSPC 256 rules exist; EOPNOTSUPP as above.
 *
 * FASTTRACK_CMD_RULE_DEL (admin)
 *   Remove the families from the rule (default: all; the rule goes with
 *   the last), and disable them on the devices it matches, unless another
 *   rule gives a device those families too.
 *   Request: as FASTTRACK_CMD_RULE_ADD.
 *   Errors: ENOENT no such rule.
 *
 * FASTTRACK_CMD_RULE_GET (dump only)
 *   The rules, in the order they were added, one message each:
 *     FASTTRACK_A_IFNAME    string   the name or pattern
 *     FASTTRACK_A_FAMILIES  u32
 *
 * FASTTRACK_CMD_DEV_GET
 *   Get one device (doit, named as above) or dump all enabled devices.
 *   Reply, one message per device:
 *     FASTTRACK_A_IFINDEX   u32
 *     FASTTRACK_A_IFNAME    string
 *     FASTTRACK_A_DEV_IPV4  nest  enum fasttrack_dev_family_attrs
 *     FASTTRACK_A_DEV_IPV6  nest  enum fasttrack_dev_family_attrs
 *       FASTTRACK_A_DEVFAM_ENABLED  u8   1 when the family is enabled
 *       FASTTRACK_A_DEVFAM_PACKETS  u64  packets the fast path forwarded
 *                                        of those received on this device
 *       FASTTRACK_A_DEVFAM_BYTES    u64  their bytes (IP header onwards)
 *       FASTTRACK_A_DEVFAM_PUNTED   nest the packets of this family received
 *                                        on the device that the fast path
 *                                        handed to the stack, by reason:
 *                                        the FASTTRACK_A_STAT_PUNT_* u64
 *                                        counters of FASTTRACK_A_STATS
 *       FASTTRACK_A_DEVFAM_XDP_PACKETS u64 of PACKETS, those the XDP tier
 *                                        forwarded (fasttrack_xdp.h)
 *       FASTTRACK_A_DEVFAM_XDP_BYTES  u64 their bytes
 *     FASTTRACK_A_DEV_XDP_BLOCKED u32 enum fasttrack_xdp_blocked bits:
 *                                 what is attached to the device or to
 *                                 the real device under it that the XDP
 *                                 tier would bypass, so that it passes
 *                                 the device's packets up to the skb tier
 *                                 (present only where the module has the
 *                                 XDP tier)
 *     Both family nests are always present.
 *   Errors (doit): ENODEV no such device; ENOENT device is not enabled.
 *
 * FASTTRACK_CMD_STATS_GET
 *   doit: the global statistics of the namespace.
 *   Reply:
 *     FASTTRACK_A_STATS     nest  enum fasttrack_stats_attrs, each u64
 *   dumpit: the counters of each possible CPU, one message per CPU:
 *     FASTTRACK_A_CPU       u32   the CPU
 *     FASTTRACK_A_STATS     nest  its counters, as above, without
 *                                 FASTTRACK_A_STAT_FLOWS (not per CPU)
 *   Deprecated (modules before the dump; the reply outgrows a message
 *   beyond about 100 CPUs): the doit request FASTTRACK_A_STATS_PERCPU
 *   (flag) adds a FASTTRACK_A_STATS_CPU nest per CPU to the reply, with
 *   FASTTRACK_A_STAT_CPU (u32) and that CPU's counters.
 *
 * FASTTRACK_CMD_CONFIG_GET
 *   Reply: the settings below, each present.
 *
 * FASTTRACK_CMD_CONFIG_SET (admin)
 *   Change any subset of the settings of the namespace:
 *     FASTTRACK_A_CFG_MAX_FLOWS    u32  1 .. FASTTRACK_MAX_FLOWS_LIMIT
 *                                       maximum cached flow directions
 *     FASTTRACK_A_CFG_TCP_TIMEOUT  u32  1 .. FASTTRACK_TIMEOUT_LIMIT seconds
 *                                       idle time before a TCP entry expires
 *     FASTTRACK_A_CFG_UDP_TIMEOUT  u32  as above, for UDP
 *     FASTTRACK_A_CFG_SKIP_MARK    u32  connections whose packet mark or ct
 *     FASTTRACK_A_CFG_SKIP_MASK    u32  mark, masked by SKIP_MASK, equals
 *                                       SKIP_MARK stay on the slow path;
 *                                       mask 0 disables the check;
 *                                       SKIP_MARK may not have bits
 *                                       outside SKIP_MASK (EINVAL)
 *   Nothing changes unless every value is valid.
 *   Errors: ERANGE value out of range (extack names the range).
 *
 * FASTTRACK_CMD_FLOW_GET (dump only, conntrack)
 *   Dump the cached flow directions, in the order of their ids (a flow
 *   gets the lowest free id; ids are reused once their flow is gone). A
 *   dump lists each flow once, also while flows come and go (flows learned
 *   during the dump may be missed, flows removed during it may be listed).
 *   Request filters, optional:
 *     FASTTRACK_A_IFINDEX or FASTTRACK_A_IFNAME   ingress device
 *     FASTTRACK_A_FAMILIES                         default: all
 *     FASTTRACK_A_MATCH  nest  the connections with a flow direction
 *                              that has each field given, as received:
 *       FASTTRACK_A_FLOW_PROTO  u8
 *       FASTTRACK_A_FLOW_SRC    binary  4 or 16 bytes (only that family)
 *       FASTTRACK_A_FLOW_DST    binary  4 or 16 bytes, as SRC if both
 *       FASTTRACK_A_FLOW_SPORT  be16
 *       FASTTRACK_A_FLOW_DPORT  be16
 *   Reply, one message per flow direction:
 *     FASTTRACK_A_FLOW  nest  enum fasttrack_flow_attrs
 *       FASTTRACK_A_FLOW_ID        u32   unique while the flow lives
 *       FASTTRACK_A_FLOW_FAMILY    u8    AF_INET or AF_INET6
 *       FASTTRACK_A_FLOW_PROTO     u8    IPPROTO_TCP or IPPROTO_UDP
 *       FASTTRACK_A_FLOW_DIR       u8    0 original, 1 reply (conntrack's)
 *       FASTTRACK_A_FLOW_SRC       binary 4 or 16 bytes, as received
 *       FASTTRACK_A_FLOW_DST       binary
 *       FASTTRACK_A_FLOW_SPORT     be16
 *       FASTTRACK_A_FLOW_DPORT     be16
 *       FASTTRACK_A_FLOW_NAT_SRC   binary as sent (equal to SRC without NAT)
 *       FASTTRACK_A_FLOW_NAT_DST   binary
 *       FASTTRACK_A_FLOW_NAT_SPORT be16
 *       FASTTRACK_A_FLOW_NAT_DPORT be16
 *       FASTTRACK_A_FLOW_IIF       u32   ingress ifindex
 *       FASTTRACK_A_FLOW_OIF       u32   egress ifindex
 *       FASTTRACK_A_FLOW_IIF_VLAN  u16   VLAN id, when the device is a VLAN
 *       FASTTRACK_A_FLOW_OIF_VLAN  u16
 *       FASTTRACK_A_FLOW_PACKETS   u64   forwarded by the fast path
 *       FASTTRACK_A_FLOW_BYTES     u64
 *       FASTTRACK_A_FLOW_AGE_MS    u64   since it was learned
 *       FASTTRACK_A_FLOW_IDLE_MS   u64   since it last forwarded (one
 *                                        jiffy's resolution)
 *       FASTTRACK_A_FLOW_REASON    u32   enum fasttrack_flow_reason, in
 *                                        FASTTRACK_CMD_FLOW_DEL events only
 *
 * FASTTRACK_CMD_FLUSH (admin)
 *   Drop cached flows; their connections go back to the slow path and are
 *   learned again. Filters as FASTTRACK_CMD_FLOW_GET; a flow that matches
 *   drops both directions of its connection, so that a match on one
 *   connection's tuple flushes that connection, as conntrack -D does.
 *
 * Multicast group FASTTRACK_MCGRP_EVENTS (conntrack): joining it needs
 * CAP_NET_ADMIN in the network namespace's user namespace on kernels that
 * can restrict a group (6.7 and later, and the stable kernels with the
 * backport, such as Debian's 5.10 and 6.1); on older kernels any user may
 * join.
 *   FASTTRACK_CMD_FLOW_NEW  a flow direction was learned
 *   FASTTRACK_CMD_FLOW_DEL  a flow direction was removed, with the reason
 *   Both carry FASTTRACK_A_FLOW as in FASTTRACK_CMD_FLOW_GET. Events are
 *   built only while somebody listens.
 */
#ifndef _UAPI_LINUX_FASTTRACK_H
#define _UAPI_LINUX_FASTTRACK_H

#define FASTTRACK_FAMILY_NAME		"fasttrack"
#define FASTTRACK_FAMILY_VERSION	1

/* The names of the first version of this header. */
#define FASTTRACK_GENL_NAME	FASTTRACK_FAMILY_NAME
#define FASTTRACK_GENL_VERSION	FASTTRACK_FAMILY_VERSION

#define FASTTRACK_MCGRP_EVENTS	"events"

#define FASTTRACK_MAX_FLOWS_LIMIT	16777216	/* 2^24 */
#define FASTTRACK_TIMEOUT_LIMIT		604800		/* 7 days, in seconds */

enum fasttrack_family_flags {
	FASTTRACK_F_IPV4 = 1U << 0,
	FASTTRACK_F_IPV6 = 1U << 1,

	/* private: the defined bits, which may grow; kept for old users. */
	__FASTTRACK_F_ALL = FASTTRACK_F_IPV4 | FASTTRACK_F_IPV6,
};

enum fasttrack_cmd {
	FASTTRACK_CMD_UNSPEC,
	FASTTRACK_CMD_DEV_ENABLE,
	FASTTRACK_CMD_DEV_DISABLE,
	FASTTRACK_CMD_DEV_GET,
	FASTTRACK_CMD_STATS_GET,
	FASTTRACK_CMD_CONFIG_GET,
	FASTTRACK_CMD_CONFIG_SET,
	FASTTRACK_CMD_FLOW_GET,
	FASTTRACK_CMD_FLUSH,
	FASTTRACK_CMD_FLOW_NEW,
	FASTTRACK_CMD_FLOW_DEL,
	FASTTRACK_CMD_RULE_ADD,
	FASTTRACK_CMD_RULE_DEL,
	FASTTRACK_CMD_RULE_GET,

	__FASTTRACK_CMD_MAX
};

#define FASTTRACK_CMD_MAX (__FASTTRACK_CMD_MAX - 1)

enum fasttrack_attrs {
	FASTTRACK_A_UNSPEC,
	FASTTRACK_A_PAD,
	FASTTRACK_A_IFINDEX,
	FASTTRACK_A_IFNAME,
	FASTTRACK_A_FAMILIES,
	FASTTRACK_A_DEV_IPV4,
	FASTTRACK_A_DEV_IPV6,
	FASTTRACK_A_STATS,
	FASTTRACK_A_CFG_MAX_FLOWS,
	FASTTRACK_A_CFG_TCP_TIMEOUT,
	FASTTRACK_A_CFG_UDP_TIMEOUT,
	FASTTRACK_A_CFG_SKIP_MARK,
	FASTTRACK_A_CFG_SKIP_MASK,
	FASTTRACK_A_STATS_PERCPU,
	FASTTRACK_A_STATS_CPU,
	FASTTRACK_A_FLOW,
	FASTTRACK_A_CPU,
	FASTTRACK_A_MATCH,
	FASTTRACK_A_DEV_XDP_BLOCKED,

	__FASTTRACK_A_LAST
};

#define FASTTRACK_A_MAX (__FASTTRACK_A_LAST - 1)

enum fasttrack_dev_family_attrs {
	FASTTRACK_A_DEVFAM_UNSPEC,
	FASTTRACK_A_DEVFAM_PAD,
	FASTTRACK_A_DEVFAM_ENABLED,
	FASTTRACK_A_DEVFAM_PACKETS,
	FASTTRACK_A_DEVFAM_BYTES,
	FASTTRACK_A_DEVFAM_PUNTED,
	FASTTRACK_A_DEVFAM_XDP_PACKETS,
	FASTTRACK_A_DEVFAM_XDP_BYTES,

	__FASTTRACK_A_DEVFAM_LAST
};

#define FASTTRACK_A_DEVFAM_MAX (__FASTTRACK_A_DEVFAM_LAST - 1)

/*
 * FASTTRACK_A_DEV_XDP_BLOCKED: what the XDP tier would bypass, on the
 * device a frame arrives on (the real device, or a VLAN device on it).
 * The tier checks the same on the egress devices of each packet.
 */
enum fasttrack_xdp_blocked {
	FASTTRACK_XDP_BLOCKED_TAP		= 1 << 0, /* AF_PACKET, tcpdump */
	FASTTRACK_XDP_BLOCKED_TC		= 1 << 1, /* tc/tcx ingress or egress */
	FASTTRACK_XDP_BLOCKED_NETFILTER	= 1 << 2, /* other netdev chains */
	FASTTRACK_XDP_BLOCKED_QDISC		= 1 << 3, /* a qdisc other than
							   * the default
							   */
	FASTTRACK_XDP_BLOCKED_XFRM		= 1 << 4, /* IPsec in the netns */
	FASTTRACK_XDP_BLOCKED_QOS_MAP		= 1 << 5, /* VLAN egress priority map */
	FASTTRACK_XDP_BLOCKED_NETPOLL		= 1 << 6, /* netconsole */
	FASTTRACK_XDP_BLOCKED_PORT		= 1 << 7, /* bridge/bond port,
							   * macvlan lower
							   */
	FASTTRACK_XDP_BLOCKED_STACKED		= 1 << 8, /* VLAN on a VLAN, or
							   * a device XDP
							   * does not reach
							   */
};

/*
 * Global statistics, each a u64 in FASTTRACK_A_STATS.
 * FLOWS is the current number of cached flow directions; every other
 * counter only grows. PUNT_* count packets on enabled devices handed to
 * the full stack, by reason.
 */
enum fasttrack_stats_attrs {
	FASTTRACK_A_STAT_UNSPEC,
	FASTTRACK_A_STAT_PAD,
	FASTTRACK_A_STAT_FLOWS,
	FASTTRACK_A_STAT_LEARNED,
	FASTTRACK_A_STAT_TABLE_FULL,	/* learning refused: table full */
	FASTTRACK_A_STAT_EXPIRED,	/* idle timeout */
	FASTTRACK_A_STAT_TORN_DOWN,	/* TCP FIN/RST seen */
	FASTTRACK_A_STAT_CT_GONE,	/* conntrack entry destroyed */
	FASTTRACK_A_STAT_INVALIDATED,	/* device change or disable */
	FASTTRACK_A_STAT_FORWARDED_PKTS,
	FASTTRACK_A_STAT_FORWARDED_BYTES,
	FASTTRACK_A_STAT_PUNT_NO_ENTRY,
	FASTTRACK_A_STAT_PUNT_FRAGMENT,
	FASTTRACK_A_STAT_PUNT_OPTIONS,	/* IPv4 options, IPv6 ext headers */
	FASTTRACK_A_STAT_PUNT_TTL,	/* TTL / hop limit <= 1 */
	FASTTRACK_A_STAT_PUNT_MTU,
	FASTTRACK_A_STAT_PUNT_TCP_FLAGS,
	FASTTRACK_A_STAT_PUNT_NOT_WRITABLE,
	FASTTRACK_A_STAT_PUNT_MALFORMED,
	FASTTRACK_A_STAT_PUNT_UNKNOWN,	/* not IPv4/IPv6 TCP/UDP, tagged, ... */
	FASTTRACK_A_STAT_PUNT_STALE,	/* entry invalid: route/neigh/device */
	FASTTRACK_A_STAT_CPU,		/* u32, deprecated FASTTRACK_A_STATS_CPU */
	FASTTRACK_A_STAT_ROUTE_CHANGED,	/* removed: route change */
	FASTTRACK_A_STAT_NEIGH_CHANGED,	/* removed: next hop unusable */
	FASTTRACK_A_STAT_FLUSHED,	/* removed: FASTTRACK_CMD_FLUSH */
	FASTTRACK_A_STAT_RULESET_CHANGED, /* removed: firewall ruleset commit */
	FASTTRACK_A_STAT_PUNT_NOT_FORWARDING, /* forwarding off on the device */
	FASTTRACK_A_STAT_PUNT_PORT,	/* device is a bridge/bond port */
	/* Packets of connections that were not learned, by reason: */
	FASTTRACK_A_STAT_NOLEARN_ZONE,	/* conntrack zone other than 0 */
	FASTTRACK_A_STAT_NOLEARN_HELPER, /* helper or sequence adjustment */
	FASTTRACK_A_STAT_NOLEARN_FLOWTABLE, /* the nftables flowtable owns it */
	FASTTRACK_A_STAT_NOLEARN_LWTUNNEL, /* route with encap (lwtunnel) */
	FASTTRACK_A_STAT_NOLEARN_VRF,	/* ingress or egress in a VRF */
	FASTTRACK_A_STAT_NOLEARN_XFRM,	/* IPsec policy or secpath */
	FASTTRACK_A_STAT_NOLEARN_EGRESS_DEV, /* egress neither Ethernet-like
					      * nor layer 3, a port, or down
					      */
	FASTTRACK_A_STAT_NOLEARN_NO_NEIGH, /* next hop not resolved */
	FASTTRACK_A_STAT_NOLEARN_RACED,	/* state changed while it was routed */
	FASTTRACK_A_STAT_ROUTE_REVALIDATED, /* kept: route looked up again */
	FASTTRACK_A_STAT_RULE_SKIPPED,	/* a device a pattern matched that
					 * cannot be offloaded
					 */
	FASTTRACK_A_STAT_NOLEARN_MANGLED, /* the ruleset rewrote an IP
					   * header field (not DSCP)
					   */
	FASTTRACK_A_STAT_XDP_BYPASSED,	/* XDP tier passed a cached flow's
					 * packet up: something it would
					 * bypass is attached
					 */
	FASTTRACK_A_STAT_NOLEARN_UNTRACKED, /* forwarded without a conntrack
					     * entry: no ruleset uses
					     * conntrack, or notrack
					     */

	__FASTTRACK_A_STAT_LAST
};

#define FASTTRACK_A_STAT_MAX (__FASTTRACK_A_STAT_LAST - 1)

enum fasttrack_flow_attrs {
	FASTTRACK_A_FLOW_UNSPEC,
	FASTTRACK_A_FLOW_PAD,
	FASTTRACK_A_FLOW_ID,
	FASTTRACK_A_FLOW_FAMILY,
	FASTTRACK_A_FLOW_PROTO,
	FASTTRACK_A_FLOW_DIR,
	FASTTRACK_A_FLOW_SRC,
	FASTTRACK_A_FLOW_DST,
	FASTTRACK_A_FLOW_SPORT,
	FASTTRACK_A_FLOW_DPORT,
	FASTTRACK_A_FLOW_NAT_SRC,
	FASTTRACK_A_FLOW_NAT_DST,
	FASTTRACK_A_FLOW_NAT_SPORT,
	FASTTRACK_A_FLOW_NAT_DPORT,
	FASTTRACK_A_FLOW_IIF,
	FASTTRACK_A_FLOW_OIF,
	FASTTRACK_A_FLOW_IIF_VLAN,
	FASTTRACK_A_FLOW_OIF_VLAN,
	FASTTRACK_A_FLOW_PACKETS,
	FASTTRACK_A_FLOW_BYTES,
	FASTTRACK_A_FLOW_AGE_MS,
	FASTTRACK_A_FLOW_IDLE_MS,
	FASTTRACK_A_FLOW_REASON,

	__FASTTRACK_A_FLOW_LAST
};

#define FASTTRACK_A_FLOW_MAX (__FASTTRACK_A_FLOW_LAST - 1)

/* Why a flow direction was removed (FASTTRACK_A_FLOW_REASON). */
enum fasttrack_flow_reason {
	FASTTRACK_REASON_UNSPEC,	/* never sent */
	FASTTRACK_REASON_EXPIRED,	/* idle timeout */
	FASTTRACK_REASON_TORN_DOWN,	/* TCP FIN or RST */
	FASTTRACK_REASON_CT_GONE,	/* conntrack destroyed the connection */
	FASTTRACK_REASON_DEVICE,	/* device down, MTU, address, removed,
					 * or fasttrack disabled on it
					 */
	FASTTRACK_REASON_ROUTE,		/* route change */
	FASTTRACK_REASON_NEIGH,		/* next hop neighbour unusable */
	FASTTRACK_REASON_FLUSH,		/* FASTTRACK_CMD_FLUSH */
	FASTTRACK_REASON_RULESET,	/* the firewall ruleset changed */
	FASTTRACK_REASON_NETNS,		/* the network namespace is going away,
					 * or the module unloads
					 */

	__FASTTRACK_REASON_MAX
};

#define FASTTRACK_REASON_MAX (__FASTTRACK_REASON_MAX - 1)

#endif /* _UAPI_LINUX_FASTTRACK_H */
