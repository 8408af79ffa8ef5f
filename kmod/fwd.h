/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two tiers of the fast path share, the skb tier (fastpath.c) and
 * the XDP tier (xdp.c): the checks that a cached decision still holds, the
 * rewrite of a forwarded packet and its accounting. Inline, so that each
 * tier pays no call for them: the XDP tier passes a NULL skb, and the skb
 * tier tells the compiler that its skb is never NULL, so that each copy
 * keeps only its own checksum updates. The NAT rewrite, which a plain flow
 * never runs, is left to the compiler.
 */
#ifndef _FT_FWD_H
#define _FT_FWD_H

#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/checksum.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <net/sch_generic.h>

#include "fasttrack.h"

/*
 * What a frame leaving through @dev would meet before the driver, other
 * than the qdisc, as FASTTRACK_XDP_BLOCKED_* bits: packet taps (AF_PACKET,
 * tcpdump), tc egress (clsact, tcx), netfilter egress hooks and netpoll.
 * Each is one load, read per packet, so that what the operator attaches
 * applies from the next packet on. The skb tier sends through these, the
 * XDP tier steps aside for them.
 */
static __always_inline u32 ft_dev_tx_hooks(struct net_device *dev)
{
	u32 hooks = 0;

	if (ft_dev_nit_active(dev))
		hooks |= FASTTRACK_XDP_BLOCKED_TAP;
#ifdef FT_HAVE_TCX_EGRESS
	if (rcu_access_pointer(dev->tcx_egress))
		hooks |= FASTTRACK_XDP_BLOCKED_TC;
#elif IS_ENABLED(CONFIG_NET_CLS_ACT)
	if (rcu_access_pointer(dev->miniq_egress))
		hooks |= FASTTRACK_XDP_BLOCKED_TC;
#endif
#if defined(FT_HAVE_NF_HOOKS_EGRESS) && IS_ENABLED(CONFIG_NETFILTER_EGRESS)
	if (rcu_access_pointer(dev->nf_hooks_egress))
		hooks |= FASTTRACK_XDP_BLOCKED_NETFILTER;
#endif
#ifdef CONFIG_NETPOLL
	if (rcu_access_pointer(dev->npinfo))
		hooks |= FASTTRACK_XDP_BLOCKED_NETPOLL;
#endif
	return hooks;
}

/*
 * Checksum updates: an skb's may be partial (CHECKSUM_PARTIAL) or cover
 * the whole packet (CHECKSUM_COMPLETE); a frame without one (XDP) has a
 * full checksum in its header, nothing more.
 */
static __always_inline void ft_csum_replace2(__sum16 *check,
					     struct sk_buff *skb,
					     __be16 from, __be16 to)
{
	if (skb)
		inet_proto_csum_replace2(check, skb, from, to, false);
	else
		csum_replace2(check, from, to);
}

static __always_inline void ft_csum_replace4(__sum16 *check,
					     struct sk_buff *skb,
					     __be32 from, __be32 to)
{
	if (skb)
		inet_proto_csum_replace4(check, skb, from, to, true);
	else
		csum_replace4(check, from, to);
}

static __always_inline void ft_csum_replace16(__sum16 *check,
					      struct sk_buff *skb,
					      const __be32 *from,
					      const __be32 *to)
{
	if (skb) {
		inet_proto_csum_replace16(check, skb, from, to, true);
	} else {
		__be32 diff[] = {
			~from[0], ~from[1], ~from[2], ~from[3],
			to[0], to[1], to[2], to[3],
		};

		*check = csum_fold(csum_partial(diff, sizeof(diff),
						~csum_unfold(*check)));
	}
}

/* The L4 checksum field, or NULL for UDP over IPv4 without a checksum. */
static __always_inline __sum16 *ft_l4_check(const struct sk_buff *skb,
					    u8 l4proto, void *l4)
{
	if (l4proto == IPPROTO_TCP)
		return &((struct tcphdr *)l4)->check;
	if (!((struct udphdr *)l4)->check &&
	    (!skb || skb->ip_summed != CHECKSUM_PARTIAL))
		return NULL;
	return &((struct udphdr *)l4)->check;
}

static inline void ft_l4_fixup_zero(u8 l4proto, __sum16 *check)
{
	if (l4proto == IPPROTO_UDP && !*check)
		*check = CSUM_MANGLED_0;
}

/*
 * @check is the L4 checksum as ft_l4_check() found it before the address
 * rewrite: looked up again here, a UDP checksum that the address rewrite
 * happened to bring to 0 would read as "no checksum", and the port rewrite
 * would leave it wrong (a 0 that IPv6 receivers drop).
 */
static inline void ft_nat_ports(struct sk_buff *skb, const struct ft_flow *flow,
				unsigned int nat, void *l4, __sum16 *check)
{
	__be16 *ports = l4;	/* source, dest: same place in TCP and UDP */
	const struct ft_nat *rw = ft_flow_rewrite(flow);

	if (nat & FT_NAT_SPORT) {
		if (check)
			ft_csum_replace2(check, skb, ports[0], rw->sport);
		ports[0] = rw->sport;
	}
	if (nat & FT_NAT_DPORT) {
		if (check)
			ft_csum_replace2(check, skb, ports[1], rw->dport);
		ports[1] = rw->dport;
	}
	if (check)
		ft_l4_fixup_zero(flow->key.l4proto, check);
}

/*
 * Rewrite the address at @addr, of @fam, to @to. The L4 checksum @check,
 * if any, covers it through the pseudo-header; only IPv4 has a header
 * checksum, @l3check.
 */
static inline void ft_nat_addr(struct sk_buff *skb, enum ft_fam fam,
			       void *addr, const union ft_addr *to,
			       __sum16 *check, __sum16 *l3check)
{
	struct in6_addr *a6 = addr;
	__be32 *a4 = addr;

	if (fam == FT_FAM_V4) {
		if (check)
			ft_csum_replace4(check, skb, *a4, to->ip);
		csum_replace4(l3check, *a4, to->ip);
		*a4 = to->ip;
		return;
	}
	if (check)
		ft_csum_replace16(check, skb, a6->s6_addr32,
				  to->in6.s6_addr32);
	*a6 = to->in6;
}

/*
 * The rewrites @nat (ft_flow_nat(), not 0) of a packet of @flow, whose
 * addresses are at @saddr and @daddr and whose L4 header is at @l4.
 */
static inline void ft_nat(struct sk_buff *skb, const struct ft_flow *flow,
			  unsigned int nat, void *saddr, void *daddr, void *l4,
			  __sum16 *l3check)
{
	__sum16 *check = ft_l4_check(skb, flow->key.l4proto, l4);
	const struct ft_nat *rw = ft_flow_rewrite(flow);
	enum ft_fam fam = flow->key.fam;

	if (nat & FT_NAT_SRC)
		ft_nat_addr(skb, fam, saddr, &rw->src, check, l3check);
	if (nat & FT_NAT_DST)
		ft_nat_addr(skb, fam, daddr, &rw->dst, check, l3check);
	if (nat & (FT_NAT_SPORT | FT_NAT_DPORT))
		ft_nat_ports(skb, flow, nat, l4, check);
	else if (check)
		ft_l4_fixup_zero(flow->key.l4proto, check);
}

/*
 * What forwarding changes in every packet, at @iph; a plain flow checks
 * no NAT. ip_forward() sets the priority from the TOS as it is after
 * prerouting: as the packet entered, unless prerouting rewrote it
 * (learn.c). A frame without an skb has no priority: the XDP tier steps
 * aside wherever it could be read (xdp.c).
 */
static __always_inline void ft_rewrite_ipv4(struct sk_buff *skb,
					    struct iphdr *iph,
					    const struct ft_flow *flow)
{
	unsigned int nat = ft_flow_nat(flow);

	if (skb && test_bit(FT_FLOW_PRIO_TOS, &flow->flags))
		skb->priority = rt_tos2priority(iph->tos);
	ip_decrease_ttl(iph);
	if (unlikely(ft_flow_sets(flow) & FT_META_DSCP))
		ipv4_change_dsfield(iph, INET_ECN_MASK, ft_flow_meta(flow)->dscp);
	if (nat)
		ft_nat(skb, flow, nat, &iph->saddr, &iph->daddr, iph + 1,
		       &iph->check);
}

static __always_inline void ft_rewrite_ipv6(struct sk_buff *skb,
					    struct ipv6hdr *ip6h,
					    const struct ft_flow *flow)
{
	unsigned int nat = ft_flow_nat(flow);

	ip6h->hop_limit--;
	if (unlikely(ft_flow_sets(flow) & FT_META_DSCP))
		ipv6_change_dsfield(ip6h, INET_ECN_MASK, ft_flow_meta(flow)->dscp);
	if (nat)
		ft_nat(skb, flow, nat, &ip6h->saddr, &ip6h->daddr, ip6h + 1,
		       NULL);
}

/*
 * Is the next hop still usable? Drives neighbour state as the stack does.
 * A layer-3 device has no neighbour: it is usable while its next hop lives.
 */
static inline bool ft_neigh_usable(struct neighbour *n)
{
	u8 state;

	if (!n)
		return true;
	state = READ_ONCE(n->nud_state);
	if (unlikely(READ_ONCE(n->dead) || !(state & NUD_VALID)))
		return false;
	/* STALE: start the probe the stack would start; send meanwhile. */
	if (!(state & NUD_CONNECTED))
		neigh_event_send(n, NULL);
	return true;
}

/*
 * Count a forwarded packet of @flow, received on @fd, @len bytes from the
 * IP header on: in the flow and its connection, the device and the
 * namespace; @xdp when the XDP tier forwarded it.
 */
static __always_inline void ft_count(struct ft_net *fn, struct ft_dev *fd,
				     struct ft_flow *flow, unsigned int len,
				     bool xdp)
{
	struct ft_dev_stats_pcpu *ds = this_cpu_ptr(fd->stats);
	enum ft_fam fam = flow->key.fam;

	ft_flow_acct_add(flow, 1, len);

	u64_stats_update_begin(&ds->syncp);
	u64_stats_inc(&ds->packets[fam]);
	u64_stats_add(&ds->bytes[fam], len);
	if (xdp) {
		u64_stats_inc(&ds->xdp_packets[fam]);
		u64_stats_add(&ds->xdp_bytes[fam], len);
	}
	u64_stats_update_end(&ds->syncp);

	ft_stat_inc(fn, FT_STAT_FWD_PKTS);
	ft_stat_add(fn, FT_STAT_FWD_BYTES, len);
}

/*
 * Would the stack forward what arrives on @dev at all? Both families read
 * the switch per packet (ip_route_input_slow(), ip6_forward()), and so do
 * we: a flow whose route is re-armed past an IPv4 generation change would
 * not see the change of the switch otherwise. Both drop what arrives on a
 * device without the family's configuration, and ipv6_rcv() what arrives
 * where net.ipv6.conf.DEV.disable_ipv6 is set, which changes no route a
 * flow from @dev depends on.
 */
static inline bool ft_forwarding(const struct net_device *dev,
				 enum ft_fam fam)
{
	struct in_device *in_dev;
	struct inet6_dev *idev;

	if (fam == FT_FAM_V6) {
		idev = __in6_dev_get(dev);
		return idev && !READ_ONCE(idev->cnf.disable_ipv6) &&
		       READ_ONCE(dev_net(dev)->ipv6.devconf_all->forwarding);
	}
	in_dev = __in_dev_get_rcu(dev);
	return in_dev && IN_DEV_FORWARD(in_dev);
}

/*
 * The MTU of @flow's route that a packet of @len bytes (IP header on) is
 * measured against: the route's, or its egress device's (ft_route_mtu()),
 * read now: IPv4's dev->mtu, or IPv6's own, which ip6_forward() raises to
 * IPV6_MIN_MTU, so that a packet that fits in that reads nothing.
 */
static inline unsigned int ft_flow_mtu(const struct ft_flow *flow,
				       unsigned int len)
{
	const struct ft_nh *nh = flow->nh;
	struct inet6_dev *idev;

	if (nh->mtu)
		return nh->mtu;
	if (flow->key.fam == FT_FAM_V4)
		return min_t(unsigned int, READ_ONCE(nh->dev->mtu), IP_MAX_MTU);
	if (len <= IPV6_MIN_MTU)
		return IPV6_MIN_MTU;
	idev = __in6_dev_get(nh->dev);
	return max_t(unsigned int, idev ? READ_ONCE(idev->cnf.mtu6) : 0,
		     IPV6_MIN_MTU);
}

/*
 * A flow that rewrites the DSCP and takes the priority from the TOS was
 * learned where the TOS before the rewrite and the one after it gave the
 * same priority (FT_FLOW_PRIO_EITHER): which of them ip_forward() sees
 * depends on whether prerouting rewrites it, which the learn could not
 * tell. A packet whose TOS (IPv4 header at @l3) gives another one needs
 * the stack to tell.
 */
static inline bool ft_flow_prio_holds(const struct ft_flow *flow,
				      const void *l3)
{
	return !test_bit(FT_FLOW_PRIO_EITHER, &flow->flags) ||
	       rt_tos2priority(((const struct iphdr *)l3)->tos) ==
	       rt_tos2priority(ft_flow_meta(flow)->dscp);
}

/*
 * Is the state @flow was learned under, but its route, still there? Its
 * conntrack entry, the ruleset, IPsec and its next hop's device. 0 if so,
 * else why not, for ft_flow_teardown(). Refreshes an entry close to its
 * expiry as the stack's packet would: the GC's next visit may be a sweep
 * away, after it ran out.
 */
static __always_inline enum ft_stat ft_flow_state(struct ft_net *fn,
						  struct ft_flow *flow,
						  const struct net *net)
{
	struct nf_conn *ct = flow->ct;
	u32 mask;

	if (unlikely(nf_ct_is_dying(ct) || nf_ct_is_expired(ct)))
		return FT_STAT_CT_GONE;
	if (unlikely((s32)(READ_ONCE(ct->timeout) - nfct_time_stamp) <
		     FT_GC_SWEEP))
		ft_ct_refresh(flow, nfct_time_stamp);
	/* The skip mark, set on the connection since (conntrack -U). */
	mask = READ_ONCE(fn->cfg.skip_mask);
	if (unlikely(mask) && ft_ct_skip_marked(fn, ct, mask))
		return FT_STAT_RULESET_CHANGED;
	/* IPsec appeared since the route was last looked up. */
	if (unlikely(ft_xfrm_active(net)) &&
	    test_bit(FT_FLOW_NO_XFRM, &flow->flags))
		return FT_STAT_ROUTE_CHANGED;
	/* Before the route: a device event would only waste a lookup. */
	if (unlikely(READ_ONCE(flow->nh->dead)))
		return FT_STAT_INVALIDATED;	/* its device changed */
	return 0;
}

/*
 * Does @flow's route hold as it was learned? One number for the route and
 * the ruleset, its family's log; if that moved, its dst. False sends the
 * skb tier to look the route up again (ft_route_recheck()), with @dst_ok.
 */
static __always_inline bool ft_flow_route_holds(struct ft_net *fn,
						struct ft_flow *flow,
						const struct net *net,
						bool *dst_ok)
{
	if (likely(ft_flow_fresh(fn, flow, net)))
		return true;
	*dst_ok = ft_flow_dst_ok(fn, flow, net);
	return *dst_ok && READ_ONCE(flow->route_seq) ==
	       (u32)atomic_read(&fn->gen[ft_gen_route(flow->key.fam)]);
}

/*
 * Is @flow's way out still usable for its packet whose IP header is at
 * @l3? 0 if so, else why not.
 */
static __always_inline enum ft_stat ft_flow_path(struct ft_flow *flow,
						 const void *l3)
{
	if (unlikely(!ft_neigh_usable(flow->nh->neigh)))
		return FT_STAT_NEIGH_CHANGED;
	if (unlikely(!ft_flow_prio_holds(flow, l3)))
		return FT_STAT_INVALIDATED;
	return 0;
}

#endif /* _FT_FWD_H */
