// SPDX-License-Identifier: GPL-2.0
/*
 * The per-packet path: the ingress hook of an enabled device. It parses,
 * looks the flow up without locks, checks that the cached decision still
 * holds, rewrites and transmits, returning NF_STOLEN. Whatever it does not
 * fully understand goes to the full stack with NF_ACCEPT, counted by
 * reason; nothing is dropped here.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/checksum.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/dst.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <net/sch_generic.h>

#include "fasttrack.h"

static const enum ft_punt ft_parse_punt[] = {
	[FT_PARSE_TCP_FLAGS]	= FT_PUNT_TCP_FLAGS,
	[FT_PARSE_FRAGMENT]	= FT_PUNT_FRAGMENT,
	[FT_PARSE_OPTIONS]	= FT_PUNT_OPTIONS,
	[FT_PARSE_TTL]		= FT_PUNT_TTL,
	[FT_PARSE_MALFORMED]	= FT_PUNT_MALFORMED,
	[FT_PARSE_UNKNOWN]	= FT_PUNT_UNKNOWN,
};

/*
 * Hand @skb, received on @fd for @fam, to the stack, counted by reason,
 * after a lookup of @pkt's key that found what @lookup says. A SYN, FIN
 * or RST is never learned: conntrack must see what follows it, so its
 * header and generations are not read.
 */
static unsigned int ft_punt_looked(struct ft_dev *fd, enum ft_fam fam,
				   const struct sk_buff *skb,
				   enum ft_punt reason, const struct ft_pkt *pkt,
				   enum ft_rx_lookup lookup)
{
	struct ft_dev_stats_pcpu *ds = this_cpu_ptr(fd->stats);
	struct ft_net *fn = fd->fn;

	ft_rx_note(fn, fam, skb, pkt ? &pkt->key : NULL, lookup,
		   reason != FT_PUNT_TCP_FLAGS);
	ft_stat_inc(fn, ft_punt_stat[reason]);

	u64_stats_update_begin(&ds->syncp);
	u64_stats_inc(&ds->punted[fam][reason]);
	u64_stats_update_end(&ds->syncp);
	return NF_ACCEPT;
}

/* Hand @skb to the stack before any lookup; see ft_punt_looked(). */
static unsigned int ft_punt(struct ft_dev *fd, enum ft_fam fam,
			    const struct sk_buff *skb, enum ft_punt reason)
{
	return ft_punt_looked(fd, fam, skb, reason, NULL, FT_RX_NOT_LOOKED);
}

/* The L4 checksum field, or NULL for UDP over IPv4 without a checksum. */
static __sum16 *ft_l4_check(struct sk_buff *skb, u8 l4proto, void *l4)
{
	if (l4proto == IPPROTO_TCP)
		return &((struct tcphdr *)l4)->check;
	if (!((struct udphdr *)l4)->check && skb->ip_summed != CHECKSUM_PARTIAL)
		return NULL;
	return &((struct udphdr *)l4)->check;
}

static void ft_l4_fixup_zero(u8 l4proto, __sum16 *check)
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
static void ft_nat_ports(struct sk_buff *skb, const struct ft_flow *flow,
			 unsigned int nat, void *l4, __sum16 *check)
{
	__be16 *ports = l4;	/* source, dest: same place in TCP and UDP */
	const struct ft_nat *rw = ft_flow_rewrite(flow);

	if (nat & FT_NAT_SPORT) {
		if (check)
			inet_proto_csum_replace2(check, skb, ports[0],
						 rw->sport, false);
		ports[0] = rw->sport;
	}
	if (nat & FT_NAT_DPORT) {
		if (check)
			inet_proto_csum_replace2(check, skb, ports[1],
						 rw->dport, false);
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
static void ft_nat_addr(struct sk_buff *skb, enum ft_fam fam, void *addr,
			const union ft_addr *to, __sum16 *check,
			__sum16 *l3check)
{
	struct in6_addr *a6 = addr;
	__be32 *a4 = addr;

	if (fam == FT_FAM_V4) {
		if (check)
			inet_proto_csum_replace4(check, skb, *a4, to->ip, true);
		csum_replace4(l3check, *a4, to->ip);
		*a4 = to->ip;
		return;
	}
	if (check)
		inet_proto_csum_replace16(check, skb, a6->s6_addr32,
					  to->in6.s6_addr32, true);
	*a6 = to->in6;
}

/*
 * The rewrites @nat (ft_flow_nat(), not 0) of a packet of @flow, whose
 * addresses are at @saddr and @daddr and whose L4 header is at @l4.
 */
static void ft_nat(struct sk_buff *skb, const struct ft_flow *flow,
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
 * What forwarding changes in every packet; a plain flow checks no NAT.
 * ip_forward() sets the priority from the TOS as it is after prerouting:
 * as the packet entered, unless prerouting rewrote it (learn.c).
 */
static void ft_rewrite_ipv4(struct sk_buff *skb, const struct ft_flow *flow)
{
	struct iphdr *iph = ip_hdr(skb);
	unsigned int nat = ft_flow_nat(flow);

	if (test_bit(FT_FLOW_PRIO_TOS, &flow->flags))
		skb->priority = rt_tos2priority(iph->tos);
	ip_decrease_ttl(iph);
	if (unlikely(ft_flow_sets(flow) & FT_META_DSCP))
		ipv4_change_dsfield(iph, INET_ECN_MASK, ft_flow_meta(flow)->dscp);
	if (nat)
		ft_nat(skb, flow, nat, &iph->saddr, &iph->daddr, iph + 1,
		       &iph->check);
}

static void ft_rewrite_ipv6(struct sk_buff *skb, const struct ft_flow *flow)
{
	struct ipv6hdr *ip6h = ipv6_hdr(skb);
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
static bool ft_neigh_usable(struct neighbour *n)
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

static void ft_count(struct ft_net *fn, struct ft_dev *fd,
		     struct ft_flow *flow, unsigned int len)
{
	struct ft_dev_stats_pcpu *ds = this_cpu_ptr(fd->stats);
	enum ft_fam fam = flow->key.fam;

	ft_flow_acct_add(flow, 1, len);

	u64_stats_update_begin(&ds->syncp);
	u64_stats_inc(&ds->packets[fam]);
	u64_stats_add(&ds->bytes[fam], len);
	u64_stats_update_end(&ds->syncp);

	ft_stat_inc(fn, FT_STAT_FWD_PKTS);
	ft_stat_add(fn, FT_STAT_FWD_BYTES, len);
}

/*
 * Would __dev_queue_xmit() on @dev do more than hand the frame to its
 * ndo_start_xmit? Only if something is attached to the device: a qdisc
 * other than noqueue, tc egress (clsact, tcx), netfilter egress hooks,
 * packet taps (AF_PACKET, tcpdump) or netpoll. Each is one load, read per
 * packet, so what the operator attaches applies from the next packet on.
 */
static bool ft_dev_xmit_hooked(struct net_device *dev)
{
	/* noqueue is the qdisc without an enqueue operation */
	if (rcu_dereference_bh(netdev_get_tx_queue(dev, 0)->qdisc)->enqueue)
		return true;
	if (ft_dev_nit_active(dev))
		return true;
#ifdef FT_HAVE_TCX_EGRESS
	if (rcu_access_pointer(dev->tcx_egress))
		return true;
#elif IS_ENABLED(CONFIG_NET_CLS_ACT)
	if (rcu_access_pointer(dev->miniq_egress))
		return true;
#endif
#if defined(FT_HAVE_NF_HOOKS_EGRESS) && IS_ENABLED(CONFIG_NETFILTER_EGRESS)
	if (rcu_access_pointer(dev->nf_hooks_egress))
		return true;
#endif
#ifdef CONFIG_NETPOLL
	if (rcu_access_pointer(dev->npinfo))
		return true;
#endif
	return false;
}

/*
 * Could anything on the way out through @dev read an skb's conntrack
 * entry? What is attached to it (ft_dev_xmit_hooked()), or to the real
 * device a VLAN hands the skb to. The entry costs an atomic on its shared
 * refcount per packet, so it is given only where it may be read. Not
 * looked through: stacked devices other than VLANs (bond, bridge,
 * macvlan), and a tunnel's ICMP error for a too-big packet, which undoes
 * SNAT with it (icmp_ndo_send()).
 */
static bool ft_ct_readers(struct net_device *dev)
{
	while (!ft_dev_xmit_hooked(dev)) {
		if (!is_vlan_dev(dev))
			return false;
		dev = vlan_dev_priv(dev)->real_dev;
	}
	return true;
}

/*
 * Give @skb the conntrack entry of @flow, as the stack's forwarded skb
 * carries it through egress (tc ct_state, nft ct in egress chains), if
 * anything on the way out through @dev may read it. The flow holds the
 * entry; the skb takes its own reference.
 */
static void ft_xmit_ct(struct sk_buff *skb, const struct ft_flow *flow,
		       struct net_device *dev)
{
	if (skb_nfct(skb) || !ft_ct_readers(dev))
		return;
	nf_conntrack_get(&flow->ct->ct_general);
	nf_ct_set(skb, flow->ct, ft_flow_dir(flow) == IP_CT_DIR_REPLY ?
		  IP_CT_ESTABLISHED_REPLY : IP_CT_ESTABLISHED);
}

/*
 * Send a frame of a VLAN device straight to its real device, with the tag
 * in the skb, and count it as the VLAN device would. Only when that is
 * provably all the VLAN device's transmit path would do: nothing attached
 * to it (ft_dev_xmit_hooked()), no priority to PCP mapping, and a real
 * device that is not a VLAN itself. The real device's own qdisc, hooks and
 * taps apply, since the frame goes through dev_queue_xmit() there, and
 * they see the dst and conntrack entry the VLAN device would pass on.
 */
static bool ft_xmit_vlan_direct(struct sk_buff *skb, const struct ft_flow *flow,
				struct net_device *out)
{
	struct vlan_dev_priv *vlan = vlan_dev_priv(out);
	struct vlan_pcpu_stats *stats;
	unsigned int len = skb->len;
	int ret;

	if (vlan->nr_egress_mappings || is_vlan_dev(vlan->real_dev) ||
	    ft_dev_xmit_hooked(out))
		return false;

	__vlan_hwaccel_put_tag(skb, vlan->vlan_proto, vlan->vlan_id);
	skb->dev = vlan->real_dev;
	ft_xmit_ct(skb, flow, vlan->real_dev);
	ret = dev_queue_xmit(skb);

	stats = this_cpu_ptr(vlan->vlan_pcpu_stats);
	if (likely(ret == NET_XMIT_SUCCESS || ret == NET_XMIT_CN))
		ft_vlan_count_tx(stats, len);
	else
		this_cpu_inc(vlan->vlan_pcpu_stats->tx_dropped);
	return true;
}

/*
 * Send @skb as the stack's neighbour output would: a frame to the
 * neighbour's address, or the bare packet on a layer-3 device. Either way
 * with the flow's route, without a reference, as the stack's skb carries
 * its input route (the flowtable's skb_dst_set_noref() too): a tunnel
 * without a remote address (NBMA: ipip, 6rd, ISATAP) finds its outer
 * destination through it, a tunnel that meets a smaller path MTU records
 * it there and needs it to send the ICMP error, and egress hooks see it.
 * The flow holds the dst until a grace period after it lets go, and
 * __dev_queue_xmit() drops it or takes a reference, so it never outlives
 * this RCU section unreferenced.
 */
static void ft_xmit(struct sk_buff *skb, const struct ft_flow *flow)
{
	struct neighbour *n = flow->nh->neigh;
	struct net_device *out = flow->nh->dev;
	struct ethhdr *eth;
	unsigned int sets;

	if (n) {
		eth = skb_push(skb, ETH_HLEN);
		skb_reset_mac_header(skb);
		neigh_ha_snapshot(eth->h_dest, n, out);
		ether_addr_copy(eth->h_source, out->dev_addr);
		eth->h_proto = skb->protocol;
	}

	skb->dev = out;
	sets = ft_flow_sets(flow);
	if (unlikely(sets)) {
		const struct ft_meta *m = ft_flow_meta(flow);

		if (sets & FT_META_MARK)
			skb->mark = m->mark;
		if (sets & FT_META_PRIORITY)
			skb->priority = m->priority;
	}
	skb_clear_tstamp(skb);
	skb_dst_set_noref(skb, READ_ONCE(flow->dst));
	if (is_vlan_dev(out) && ft_xmit_vlan_direct(skb, flow, out))
		return;
	ft_xmit_ct(skb, flow, out);
	/* Through the device, so its qdisc, VLAN tag and counters apply. */
	dev_queue_xmit(skb);
}

static enum ft_parse_result ft_parse_skb(struct sk_buff *skb, enum ft_fam fam,
					 struct ft_pkt *pkt)
{
	unsigned int pull = min_t(unsigned int, skb->len, FT_PARSE_MAX_HDR);

	if (!pskb_may_pull(skb, pull))
		return FT_PARSE_MALFORMED;
	return ft_parse(fam, skb_network_header(skb),
			min(skb_headlen(skb), skb->len), skb->len, pkt);
}

/*
 * Did a switch ASIC route @skb already? A switchdev driver hands the CPU a
 * copy of such a packet, which the stack consumes after the forward hook
 * (ip_forward_finish(), ip6_forward_finish()) instead of sending it again.
 */
static bool ft_hw_forwarded(const struct sk_buff *skb)
{
#ifdef CONFIG_NET_SWITCHDEV
	return skb->offload_l3_fwd_mark;
#else
	return false;
#endif
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
static bool ft_forwarding(const struct net_device *dev, enum ft_fam fam)
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
 * Is @skb too big for @flow's route? Its MTU is the route's, or its egress
 * device's (ft_route_mtu()), read now: IPv4's dev->mtu, or IPv6's own,
 * which ip6_forward() raises to IPV6_MIN_MTU, so that a packet that fits
 * in that reads nothing.
 */
static bool ft_flow_too_big(const struct sk_buff *skb,
			    const struct ft_flow *flow)
{
	const struct ft_nh *nh = flow->nh;
	unsigned int mtu = nh->mtu;
	struct inet6_dev *idev;

	if (mtu) {
		/* the route's */
	} else if (flow->key.fam == FT_FAM_V4) {
		mtu = min_t(unsigned int, READ_ONCE(nh->dev->mtu), IP_MAX_MTU);
	} else {
		if (skb->len <= IPV6_MIN_MTU)
			return false;
		idev = __in6_dev_get(nh->dev);
		mtu = max_t(unsigned int, idev ? READ_ONCE(idev->cnf.mtu6) : 0,
			    IPV6_MIN_MTU);
	}
	return skb->len > mtu &&
	       !(skb_is_gso(skb) && skb_gso_validate_network_len(skb, mtu));
}

/*
 * A flow that rewrites the DSCP and takes the priority from the TOS was
 * learned where the TOS before the rewrite and the one after it gave the
 * same priority (FT_FLOW_PRIO_EITHER): which of them ip_forward() sees
 * depends on whether prerouting rewrites it, which the learn could not
 * tell. A packet whose TOS gives another one needs the stack to tell.
 */
static bool ft_flow_prio_holds(const struct ft_flow *flow,
			       const struct sk_buff *skb)
{
	return !test_bit(FT_FLOW_PRIO_EITHER, &flow->flags) ||
	       rt_tos2priority(ip_hdr(skb)->tos) ==
	       rt_tos2priority(ft_flow_meta(flow)->dscp);
}

/*
 * Is the state @flow was learned under still there? Its conntrack entry,
 * the ruleset, its route (route.c) and its next hop; if not, both
 * directions go back to the stack and the reason is counted.
 */
static bool ft_flow_valid(struct ft_net *fn, struct ft_flow *flow,
			  struct sk_buff *skb)
{
	const struct net *net = dev_net(skb->dev);
	struct nf_conn *ct = flow->ct;
	enum ft_stat reason;
	bool dst_ok;
	u32 mask;

	if (unlikely(nf_ct_is_dying(ct) || nf_ct_is_expired(ct))) {
		reason = FT_STAT_CT_GONE;
		goto stale;
	}
	/*
	 * Refresh an entry close to its expiry, as the stack's packet would:
	 * the GC's next visit may be a sweep away, after it ran out.
	 */
	if (unlikely((s32)(READ_ONCE(ct->timeout) - nfct_time_stamp) <
		     FT_GC_SWEEP))
		ft_ct_refresh(flow, nfct_time_stamp);
	/* The skip mark, set on the connection since (conntrack -U). */
	mask = READ_ONCE(fn->cfg.skip_mask);
	if (unlikely(mask) && ft_ct_skip_marked(fn, ct, mask)) {
		reason = FT_STAT_RULESET_CHANGED;
		goto stale;
	}
	/* IPsec appeared since the route was last looked up. */
	if (unlikely(ft_xfrm_active(net)) &&
	    test_bit(FT_FLOW_NO_XFRM, &flow->flags)) {
		reason = FT_STAT_ROUTE_CHANGED;
		goto stale;
	}
	/* Before the route: a device event would only waste a lookup. */
	if (unlikely(READ_ONCE(flow->nh->dead))) {
		reason = FT_STAT_INVALIDATED;	/* its device changed */
		goto stale;
	}
	/* One number for the route and the ruleset: its family's log. */
	if (unlikely(!ft_flow_fresh(fn, flow, net))) {
		dst_ok = ft_flow_dst_ok(fn, flow, net);
		if (!dst_ok || READ_ONCE(flow->route_seq) !=
		    (u32)atomic_read(&fn->gen[ft_gen_route(flow->key.fam)])) {
			reason = ft_route_recheck(fn, flow, skb, dst_ok);
			if (reason)
				goto stale;
		}
	}
	if (unlikely(!ft_neigh_usable(flow->nh->neigh))) {
		reason = FT_STAT_NEIGH_CHANGED;
		goto stale;
	}
	if (unlikely(!ft_flow_prio_holds(flow, skb))) {
		reason = FT_STAT_INVALIDATED;
		goto stale;
	}
	return true;

stale:
	ft_flow_teardown(fn, flow, reason);
	return false;
}

unsigned int ft_ingress_hook(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	struct ft_dev *fd = priv;
	struct ft_net *fn = fd->fn;
	enum ft_parse_result res;
	struct ft_flow *flow;
	struct ft_pkt pkt;
	enum ft_fam fam;

	/* Receive runs with BH off: per-CPU state below relies on it. */
	lockdep_assert_in_softirq();
	if (skb->protocol == htons(ETH_P_IP))
		fam = FT_FAM_V4;
	else if (skb->protocol == htons(ETH_P_IPV6))
		fam = FT_FAM_V6;
	else
		return NF_ACCEPT;
	if (!(READ_ONCE(fd->families) & ft_fam_flag(fam)))
		return NF_ACCEPT;

	/* A tagged frame on a trunk belongs to its VLAN device's hook; a
	 * dst on the packet (tunnel metadata) is an input of its routing;
	 * what a switch routed already, the stack consumes.
	 */
	if (skb_vlan_tag_present(skb) || skb->pkt_type != PACKET_HOST ||
	    skb_dst(skb) || ft_hw_forwarded(skb))
		return ft_punt(fd, fam, skb, FT_PUNT_UNKNOWN);
	/* A bridge or bond port: its rx_handler decides, after this hook. */
	if (unlikely(rcu_access_pointer(skb->dev->rx_handler)))
		return ft_punt(fd, fam, skb, FT_PUNT_PORT);
	if (unlikely(!ft_forwarding(skb->dev, fam)))
		return ft_punt(fd, fam, skb, FT_PUNT_NOT_FORWARDING);

	res = ft_parse_skb(skb, fam, &pkt);
	if (res != FT_PARSE_OK && res != FT_PARSE_TCP_FLAGS)
		return ft_punt(fd, fam, skb, ft_parse_punt[res]);

	flow = ft_flow_lookup(fn, &pkt.key);
	if (!flow || flow->iif != skb->dev->ifindex ||
	    test_bit(FT_FLOW_DEAD, &flow->flags))
		return ft_punt_looked(fd, fam, skb, res == FT_PARSE_OK ?
				      FT_PUNT_NO_ENTRY : FT_PUNT_TCP_FLAGS,
				      &pkt, flow ? FT_RX_CACHED : FT_RX_FREE);

	if (res == FT_PARSE_TCP_FLAGS) {
		/* Let conntrack see the close or the new connection on a
		 * reused tuple, from both sides.
		 */
		if (!(pkt.tcp_flags & (FT_TCP_FIN | FT_TCP_RST | FT_TCP_SYN)))
			return ft_punt_looked(fd, fam, skb, FT_PUNT_TCP_FLAGS,
					      &pkt, FT_RX_CACHED);
		ft_flow_teardown(fn, flow, FT_STAT_TORN_DOWN);
		return ft_punt_looked(fd, fam, skb, FT_PUNT_TCP_FLAGS, &pkt,
				      FT_RX_TORN_DOWN);
	}
	if (!ft_flow_valid(fn, flow, skb))
		return ft_punt_looked(fd, fam, skb, FT_PUNT_STALE, &pkt,
				      FT_RX_TORN_DOWN);

	if (skb->len > pkt.tot_len && pskb_trim_rcsum(skb, pkt.tot_len))
		return ft_punt_looked(fd, fam, skb, FT_PUNT_NOT_WRITABLE, &pkt,
				      FT_RX_CACHED);
	if (ft_flow_too_big(skb, flow))
		return ft_punt_looked(fd, fam, skb, FT_PUNT_MTU, &pkt,
				      FT_RX_CACHED);
	if (skb_cow_head(skb, LL_RESERVED_SPACE(flow->nh->dev)))
		return ft_punt_looked(fd, fam, skb, FT_PUNT_NOT_WRITABLE, &pkt,
				      FT_RX_CACHED);

	skb_forward_csum(skb);
	if (fam == FT_FAM_V4)
		ft_rewrite_ipv4(skb, flow);
	else
		ft_rewrite_ipv6(skb, flow);

	ft_count(fn, fd, flow, skb->len);
	ft_xmit(skb, flow);
	return NF_STOLEN;
}
