// SPDX-License-Identifier: GPL-2.0
/*
 * The per-packet path: the ingress hook of an enabled device. It parses,
 * looks the flow up without locks, checks that the cached decision still
 * holds, rewrites and transmits, returning NF_STOLEN. Whatever it does not
 * fully understand goes to the full stack with NF_ACCEPT, counted by
 * reason; nothing is dropped here.
 */
#include <linux/etherdevice.h>
#include <net/dst.h>

#include "fwd.h"

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

/*
 * Would __dev_queue_xmit() on @dev do more than hand the frame to its
 * ndo_start_xmit? Only with a qdisc other than noqueue, or with
 * ft_dev_tx_hooks(). Inline: twice a packet, and gcc stops inlining it
 * once ft_dev_tx_hooks() is in.
 */
static __always_inline bool ft_dev_xmit_hooked(struct net_device *dev)
{
	/* noqueue is the qdisc without an enqueue operation */
	return rcu_dereference_bh(netdev_get_tx_queue(dev, 0)->qdisc)->enqueue ||
	       ft_dev_tx_hooks(dev);
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

/* Is @skb too big for @flow's route (ft_flow_mtu())? */
static bool ft_flow_too_big(const struct sk_buff *skb,
			    const struct ft_flow *flow)
{
	unsigned int mtu = ft_flow_mtu(flow, skb->len);

	return skb->len > mtu &&
	       !(skb_is_gso(skb) && skb_gso_validate_network_len(skb, mtu));
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
	enum ft_stat reason;
	bool dst_ok;

	reason = ft_flow_state(fn, flow, net);
	if (unlikely(reason))
		goto stale;
	if (unlikely(!ft_flow_route_holds(fn, flow, net, &dst_ok))) {
		reason = ft_route_recheck(fn, flow, skb, dst_ok);
		if (reason)
			goto stale;
	}
	reason = ft_flow_path(flow, skb_network_header(skb));
	if (unlikely(reason))
		goto stale;
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
	/* fwd.h's helpers test for a frame without an skb (the XDP tier):
	 * one test here lets the compiler drop theirs. unreachable() would
	 * save it, but objtool (gcc 16, 7.2) rejects the stack it leaves.
	 */
	if (unlikely(!skb))
		return NF_ACCEPT;
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
		ft_rewrite_ipv4(skb, ip_hdr(skb), flow);
	else
		ft_rewrite_ipv6(skb, ipv6_hdr(skb), flow);

	ft_count(fn, fd, flow, skb->len, false);
	ft_xmit(skb, flow);
	return NF_STOLEN;
}
