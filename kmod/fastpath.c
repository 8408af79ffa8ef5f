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
#include <net/checksum.h>
#include <net/neighbour.h>
#include <net/sch_generic.h>

#include "fasttrack.h"

static const enum ft_stat ft_parse_punt[] = {
	[FT_PARSE_TCP_FLAGS]	= FT_STAT_PUNT_TCP_FLAGS,
	[FT_PARSE_FRAGMENT]	= FT_STAT_PUNT_FRAGMENT,
	[FT_PARSE_OPTIONS]	= FT_STAT_PUNT_OPTIONS,
	[FT_PARSE_TTL]		= FT_STAT_PUNT_TTL,
	[FT_PARSE_MALFORMED]	= FT_STAT_PUNT_MALFORMED,
	[FT_PARSE_UNKNOWN]	= FT_STAT_PUNT_UNKNOWN,
};

static unsigned int ft_punt(struct ft_net *fn, enum ft_stat reason)
{
	ft_stat_inc(fn, reason);
	return NF_ACCEPT;
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

static void ft_nat_ports(struct sk_buff *skb, const struct ft_flow *flow,
			 void *l4)
{
	__be16 *ports = l4;	/* source, dest: same place in TCP and UDP */
	__sum16 *check = ft_l4_check(skb, flow->key.l4proto, l4);

	if (flow->nat & FT_NAT_SPORT) {
		if (check)
			inet_proto_csum_replace2(check, skb, ports[0],
						 flow->rewrite->sport, false);
		ports[0] = flow->rewrite->sport;
	}
	if (flow->nat & FT_NAT_DPORT) {
		if (check)
			inet_proto_csum_replace2(check, skb, ports[1],
						 flow->rewrite->dport, false);
		ports[1] = flow->rewrite->dport;
	}
	if (check)
		ft_l4_fixup_zero(flow->key.l4proto, check);
}

static void ft_rewrite_ipv4(struct sk_buff *skb, const struct ft_flow *flow)
{
	struct iphdr *iph = ip_hdr(skb);
	void *l4 = (u8 *)iph + sizeof(*iph);
	__sum16 *check = ft_l4_check(skb, flow->key.l4proto, l4);

	ip_decrease_ttl(iph);
	if (flow->nat & FT_NAT_SRC) {
		if (check)
			inet_proto_csum_replace4(check, skb, iph->saddr,
						 flow->rewrite->src.ip, true);
		csum_replace4(&iph->check, iph->saddr, flow->rewrite->src.ip);
		iph->saddr = flow->rewrite->src.ip;
	}
	if (flow->nat & FT_NAT_DST) {
		if (check)
			inet_proto_csum_replace4(check, skb, iph->daddr,
						 flow->rewrite->dst.ip, true);
		csum_replace4(&iph->check, iph->daddr, flow->rewrite->dst.ip);
		iph->daddr = flow->rewrite->dst.ip;
	}
	if (flow->nat & (FT_NAT_SPORT | FT_NAT_DPORT))
		ft_nat_ports(skb, flow, l4);
	else if (check && (flow->nat & (FT_NAT_SRC | FT_NAT_DST)))
		ft_l4_fixup_zero(flow->key.l4proto, check);
}

static void ft_rewrite_ipv6(struct sk_buff *skb, const struct ft_flow *flow)
{
	struct ipv6hdr *ip6h = ipv6_hdr(skb);
	void *l4 = (u8 *)ip6h + sizeof(*ip6h);
	__sum16 *check = ft_l4_check(skb, flow->key.l4proto, l4);

	ip6h->hop_limit--;
	if (flow->nat & FT_NAT_SRC) {
		if (check)
			inet_proto_csum_replace16(check, skb,
						  ip6h->saddr.s6_addr32,
						  flow->rewrite->src.in6.s6_addr32,
						  true);
		ip6h->saddr = flow->rewrite->src.in6;
	}
	if (flow->nat & FT_NAT_DST) {
		if (check)
			inet_proto_csum_replace16(check, skb,
						  ip6h->daddr.s6_addr32,
						  flow->rewrite->dst.in6.s6_addr32,
						  true);
		ip6h->daddr = flow->rewrite->dst.in6;
	}
	if (flow->nat & (FT_NAT_SPORT | FT_NAT_DPORT))
		ft_nat_ports(skb, flow, l4);
	else if (check && (flow->nat & (FT_NAT_SRC | FT_NAT_DST)))
		ft_l4_fixup_zero(flow->key.l4proto, check);
}

/* Is the next hop still usable? Drives neighbour state as the stack does. */
static bool ft_neigh_usable(struct neighbour *n)
{
	u8 state = READ_ONCE(n->nud_state);

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

	WRITE_ONCE(flow->packets, flow->packets + 1);
	WRITE_ONCE(flow->bytes, flow->bytes + len);

	u64_stats_update_begin(&ds->syncp);
	u64_stats_inc(&ds->packets[fam]);
	u64_stats_add(&ds->bytes[fam], len);
	u64_stats_update_end(&ds->syncp);

	ft_stat_inc(fn, FT_STAT_FWD_PKTS);
	ft_stat_add(fn, FT_STAT_FWD_BYTES, len);
}

/* Does the device queue packets (a qdisc other than noqueue)? */
static bool ft_dev_has_qdisc(struct net_device *dev)
{
	/* noqueue is the qdisc without an enqueue operation */
	return rcu_dereference_bh(netdev_get_tx_queue(dev, 0)->qdisc)->enqueue;
}

/*
 * Send a frame of a VLAN device straight to its real device, with the tag
 * in the skb, and count it as the VLAN device would. Only when that is
 * all the VLAN device would do: no qdisc, no priority to PCP mapping, and
 * a real device that is not a VLAN itself.
 */
static bool ft_xmit_vlan_direct(struct sk_buff *skb, struct net_device *out)
{
	struct vlan_dev_priv *vlan = vlan_dev_priv(out);
	struct vlan_pcpu_stats *stats;
	unsigned int len = skb->len;
	int ret;

	if (vlan->nr_egress_mappings || is_vlan_dev(vlan->real_dev) ||
	    ft_dev_has_qdisc(out))
		return false;

	__vlan_hwaccel_put_tag(skb, vlan->vlan_proto, vlan->vlan_id);
	skb->dev = vlan->real_dev;
	ret = dev_queue_xmit(skb);

	stats = this_cpu_ptr(vlan->vlan_pcpu_stats);
	if (likely(ret == NET_XMIT_SUCCESS || ret == NET_XMIT_CN))
		ft_vlan_count_tx(stats, len);
	else
		this_cpu_inc(vlan->vlan_pcpu_stats->tx_dropped);
	return true;
}

static void ft_xmit(struct sk_buff *skb, const struct ft_flow *flow)
{
	struct net_device *out = flow->out;
	struct ethhdr *eth;

	eth = skb_push(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	neigh_ha_snapshot(eth->h_dest, flow->neigh, out);
	ether_addr_copy(eth->h_source, out->dev_addr);
	eth->h_proto = skb->protocol;

	skb->dev = out;
	skb->mark = flow->mark;
	skb->priority = flow->priority;
	skb_clear_tstamp(skb);
	if (is_vlan_dev(out) && ft_xmit_vlan_direct(skb, out))
		return;
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

unsigned int ft_ingress_hook(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	struct ft_dev *fd = priv;
	struct ft_net *fn = fd->fn;
	enum ft_parse_result res;
	struct ft_flow *flow;
	struct ft_pkt pkt;
	enum ft_fam fam;

	if (skb->protocol == htons(ETH_P_IP))
		fam = FT_FAM_V4;
	else if (skb->protocol == htons(ETH_P_IPV6))
		fam = FT_FAM_V6;
	else
		return NF_ACCEPT;
	if (!(READ_ONCE(fd->families) & ft_fam_flag(fam)))
		return NF_ACCEPT;

	/* A tagged frame on a trunk belongs to its VLAN device's hook. */
	if (skb_vlan_tag_present(skb) || skb->pkt_type != PACKET_HOST)
		return ft_punt(fn, FT_STAT_PUNT_UNKNOWN);

	res = ft_parse_skb(skb, fam, &pkt);
	if (res != FT_PARSE_OK && res != FT_PARSE_TCP_FLAGS)
		return ft_punt(fn, ft_parse_punt[res]);

	flow = ft_flow_lookup(fn, &pkt.key);
	if (!flow || flow->iif != skb->dev->ifindex ||
	    test_bit(FT_FLOW_DEAD, &flow->flags))
		return ft_punt(fn, res == FT_PARSE_OK ? FT_STAT_PUNT_NO_ENTRY :
					FT_STAT_PUNT_TCP_FLAGS);

	if (res == FT_PARSE_TCP_FLAGS) {
		/* Let conntrack see the close, from both sides. */
		if (pkt.tcp_flags & (FT_TCP_FIN | FT_TCP_RST))
			ft_flow_teardown(fn, flow, FT_STAT_TORN_DOWN);
		return ft_punt(fn, FT_STAT_PUNT_TCP_FLAGS);
	}

	if (unlikely(flow->route_gen != (u32)atomic_read(&fn->route_gen))) {
		ft_flow_teardown(fn, flow, FT_STAT_ROUTE_CHANGED);
		return ft_punt(fn, FT_STAT_PUNT_STALE);
	}
	if (unlikely(!ft_neigh_usable(flow->neigh))) {
		ft_flow_teardown(fn, flow, FT_STAT_NEIGH_CHANGED);
		return ft_punt(fn, FT_STAT_PUNT_STALE);
	}

	if (skb->len > pkt.tot_len && pskb_trim_rcsum(skb, pkt.tot_len))
		return ft_punt(fn, FT_STAT_PUNT_NOT_WRITABLE);
	if (skb->len > flow->mtu &&
	    !(skb_is_gso(skb) && skb_gso_validate_network_len(skb, flow->mtu)))
		return ft_punt(fn, FT_STAT_PUNT_MTU);
	if (skb_cow_head(skb, LL_RESERVED_SPACE(flow->out)))
		return ft_punt(fn, FT_STAT_PUNT_NOT_WRITABLE);

	skb_forward_csum(skb);
	if (fam == FT_FAM_V4)
		ft_rewrite_ipv4(skb, flow);
	else
		ft_rewrite_ipv6(skb, flow);

	ft_count(fn, fd, flow, skb->len);
	ft_xmit(skb, flow);
	return NF_STOLEN;
}
