// SPDX-License-Identifier: GPL-2.0
/*
 * Learning: the slow path teaches the fast path.
 *
 * A POST_ROUTING hook, after source NAT and just before conntrack confirms,
 * sees each forwarded packet with every decision made: conntrack state, NAT
 * bindings, the route, the egress device, the skb mark and priority. When
 * the packet entered through an enabled device and its connection is
 * eligible, the hook caches that direction. Conntrack stays the source of
 * truth: the entry holds a reference to it and dies with it.
 */
#include <linux/if_arp.h>
#include <linux/netfilter_ipv4.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/l3mdev.h>
#include <net/lwtunnel.h>
#include <net/neighbour.h>
#include <net/arp.h>
#include <net/inet_ecn.h>
#include <net/ndisc.h>
#include <net/route.h>
#include <net/netfilter/nf_conntrack_core.h>
#include <net/netfilter/nf_conntrack_helper.h>
#include <net/netfilter/nf_conntrack_seqadj.h>
#include <net/netfilter/nf_conntrack_zones.h>

#include "fasttrack.h"

/*
 * Why a connection is not cached, counted per packet so that an operator
 * sees why it stays slow; 0 for the normal reasons (not established yet,
 * another protocol), which would only count every handshake.
 */
static enum ft_stat ft_ct_refusal(const struct nf_conn *ct,
				  enum ip_conntrack_info ctinfo, bool *closing)
{
	u8 proto = nf_ct_protonum(ct);

	*closing = false;
	if (ctinfo != IP_CT_ESTABLISHED && ctinfo != IP_CT_ESTABLISHED_REPLY)
		return FT_STAT_NUM;
	if (!nf_ct_is_confirmed(ct) || nf_ct_is_dying(ct))
		return FT_STAT_NUM;
	switch (proto) {
	case IPPROTO_TCP:
		/* Learned only once assured, a bit that is never cleared: a
		 * handshake's SYN-ACK has nothing cached to tear down.
		 */
		if (!test_bit(IPS_ASSURED_BIT, &ct->status))
			return FT_STAT_NUM;
		if (!ft_tcp_cacheable(ct)) {
			*closing = true;
			return FT_STAT_NUM;
		}
		break;
	case IPPROTO_UDP:
		if (!test_bit(IPS_SEEN_REPLY_BIT, &ct->status))
			return FT_STAT_NUM;
		break;
	default:
		return FT_STAT_NUM;
	}
	if (test_bit(IPS_OFFLOAD_BIT, &ct->status))
		return FT_STAT_NOLEARN_FLOWTABLE;
	/* Userspace or a helper must see its packets. */
	if (test_bit(IPS_SEQ_ADJUST_BIT, &ct->status) || nfct_help(ct))
		return FT_STAT_NOLEARN_HELPER;
	if (nf_ct_zone(ct)->id != NF_CT_DEFAULT_ZONE_ID)
		return FT_STAT_NOLEARN_ZONE;
	return 0;
}

static bool ft_skip_marked(const struct ft_net *fn, const struct sk_buff *skb,
			   const struct nf_conn *ct)
{
	u32 mask = READ_ONCE(fn->cfg.skip_mask);

	if (!mask)
		return false;
	return (skb->mark & mask) == READ_ONCE(fn->cfg.skip_mark) ||
	       ft_ct_skip_marked(fn, ct, mask);
}

/*
 * Conntrack will not see the packets of a cached direction, so the
 * acknowledgements of the other direction would fall outside the windows
 * it tracks, be invalid, and a ruleset would drop them. Stop window checks
 * for the connection before the fast path may forward any of it, as the
 * nftables flowtable does: a CPU held up right after publishing (an
 * interrupt storm, a hypervisor that takes the vCPU away) must not leave
 * another CPU forwarding data whose acknowledgements the stack drops.
 * False when the connection left the states that may be cached.
 */
static bool ft_learn_liberal(struct nf_conn *ct)
{
	bool cacheable;

	if (nf_ct_protonum(ct) != IPPROTO_TCP)
		return true;
	spin_lock_bh(&ct->lock);
	cacheable = ft_tcp_cacheable(ct);
	if (cacheable) {
		ct->proto.tcp.seen[0].flags |= IP_CT_TCP_FLAG_BE_LIBERAL;
		ct->proto.tcp.seen[1].flags |= IP_CT_TCP_FLAG_BE_LIBERAL;
	}
	spin_unlock_bh(&ct->lock);
	return cacheable;
}

/*
 * @flow, of the connection @ct, was just published, learned while @ct was
 * in a state that may be cached. A close that conntrack saw since, a FIN
 * or RST on another CPU, may have looked for the flow before it was
 * hashed, or while it was hashed but not yet live, and left it cached.
 * Conntrack changes the TCP state under ct->lock, so read it again under
 * that lock: either this sees the close and tears the flow down, or the
 * close's own teardown, after conntrack (ft_learn_closing()), sees the
 * flow live.
 */
static void ft_learn_published(struct ft_net *fn, struct ft_flow *flow,
			       struct nf_conn *ct)
{
	bool cacheable;

	if (nf_ct_protonum(ct) != IPPROTO_TCP)
		return;
	spin_lock_bh(&ct->lock);
	cacheable = ft_tcp_cacheable(ct);
	spin_unlock_bh(&ct->lock);
	/* Still in this RCU read section: the flow is freed after one. */
	if (!cacheable)
		ft_flow_teardown(fn, flow, FT_STAT_TORN_DOWN);
}

/*
 * The next hop the packet is sent to, referenced, or NULL. A layer-3
 * device is its own next hop: it has no neighbour to resolve.
 */
static struct ft_nh *ft_learn_nh(struct ft_net *fn, struct sk_buff *skb,
				 struct net_device *out, enum ft_fam fam)
{
	unsigned int mtu = ft_route_mtu(skb_dst(skb));
	struct neighbour *n;
	union ft_addr nh;

	if (ft_dev_kind(out) == FT_DEV_L3)
		return ft_nh_get(fn, NULL, out, mtu);
	if (!ft_route_nexthop(skb_dst(skb), skb, fam, &nh))
		return NULL;
	if (fam == FT_FAM_V4)
		n = __ipv4_neigh_lookup_noref(out, (__force u32)nh.ip);
	else
		n = __ipv6_neigh_lookup_noref(out, &nh.in6);

	if (!n || !(READ_ONCE(n->nud_state) & NUD_VALID) || READ_ONCE(n->dead))
		return NULL;
	return ft_nh_get(fn, n, out, mtu);
}

/* What the egress headers are: the inverse of the other direction's tuple. */
static u8 ft_nat_from_ct(struct ft_nat *nat, const struct nf_conn *ct,
			 enum ip_conntrack_dir dir)
{
	const struct nf_conntrack_tuple *in = &ct->tuplehash[dir].tuple;
	const struct nf_conntrack_tuple *out = &ct->tuplehash[!dir].tuple;
	u8 flags = 0;

	memcpy(&nat->src, &out->dst.u3, sizeof(nat->src));
	memcpy(&nat->dst, &out->src.u3, sizeof(nat->dst));
	nat->sport = out->dst.u.all;
	nat->dport = out->src.u.all;

	if (!nf_inet_addr_cmp(&in->src.u3, &out->dst.u3))
		flags |= FT_NAT_SRC;
	if (!nf_inet_addr_cmp(&in->dst.u3, &out->src.u3))
		flags |= FT_NAT_DST;
	if (in->src.u.all != nat->sport)
		flags |= FT_NAT_SPORT;
	if (in->dst.u.all != nat->dport)
		flags |= FT_NAT_DPORT;
	return flags;
}

/*
 * What the ruleset changed in the header of @skb since it entered (@rx),
 * besides the TTL the stack decremented: a new DSCP the fast path replays
 * (FT_META_DSCP in *@meta, *@dscp); any other rewrite (TTL, hop limit,
 * ECN, IPv4 ID or fragment bits, IPv6 flow label), which it would not,
 * keeps the connection on the stack.
 */
static enum ft_stat ft_hdr_changes(const struct sk_buff *skb, enum ft_fam fam,
				   const struct ft_rx_state *rx, u8 *meta,
				   u8 *dscp)
{
	const struct ft_hdr_fields *in = &rx->hdr;
	struct ft_hdr_fields now;

	if (!rx->hdr_ok || !ft_hdr_fields(skb, fam, &now) ||
	    now.fixed != in->fixed || now.ttl + 1 != in->ttl ||
	    ((now.dsfield ^ in->dsfield) & INET_ECN_MASK))
		return FT_STAT_NOLEARN_MANGLED;
	*dscp = now.dsfield & ~INET_ECN_MASK;
	if (now.dsfield != in->dsfield)
		*meta |= FT_META_DSCP;
	return 0;
}

/*
 * How the fast path sets the priority of a flow's packets, as the stack
 * set that of @skb (its TOS now @dsfield): as each entered; from each one's
 * TOS as ip_forward() does while net.ipv4.ip_forward_update_priority is on
 * (FT_FLOW_PRIO_TOS in *@flags; IPv6 forwarding leaves it alone); or to
 * what the ruleset set (FT_META_PRIORITY in *@meta). ip_forward() reads
 * the TOS after prerouting: as the packet entered, or as a prerouting rule
 * rewrote it, which a later rule's rewrite cannot be told from here. A
 * priority set from either is taken as one set from the TOS as it entered
 * if that is all it can be (a rewrite after ip_forward()), else as set by
 * the ruleset; if both give it, it holds only while they still do
 * (FT_FLOW_PRIO_EITHER, checked per packet).
 */
static void ft_learn_priority(const struct sk_buff *skb, enum ft_fam fam,
			      const struct ft_rx_state *rx, u8 dsfield,
			      u8 *meta, unsigned long *flags)
{
	const struct net *net = dev_net(skb->dev);
	u32 in;

	if (fam == FT_FAM_V6 ||
	    !READ_ONCE(net->ipv4.sysctl_ip_fwd_update_priority)) {
		if (skb->priority != rx->priority)
			*meta |= FT_META_PRIORITY;
		return;
	}
	in = rt_tos2priority(rx->hdr.dsfield);
	if (skb->priority != in) {
		*meta |= FT_META_PRIORITY;
		return;
	}
	*flags |= BIT(FT_FLOW_PRIO_TOS);
	if ((*meta & FT_META_DSCP) && rt_tos2priority(dsfield) == in)
		*flags |= BIT(FT_FLOW_PRIO_EITHER);
}

/*
 * Whether the route and egress device of @skb are ones the fast path can
 * replay: a plain unicast route without encapsulation or IPsec, outside a
 * VRF, to an Ethernet-like or layer-3 device that is up and is no port of
 * another.
 */
static enum ft_stat ft_route_refusal(const struct sk_buff *skb,
				     const struct net_device *in,
				     const struct net_device *out)
{
	struct dst_entry *dst = skb_dst(skb);

	if (!dst)
		return FT_STAT_NOLEARN_EGRESS_DEV;
	if (dst_xfrm(dst) || skb_sec_path(skb))
		return FT_STAT_NOLEARN_XFRM;
	if (dst->lwtstate)
		return FT_STAT_NOLEARN_LWTUNNEL;
	if (netif_is_l3_master(out) || netif_is_l3_slave(out) ||
	    netif_is_l3_master(in) || netif_is_l3_slave(in))
		return FT_STAT_NOLEARN_VRF;
	/* The route's device is the one route.c checks against. */
	if (dst->dev != out || ft_dev_kind(out) == FT_DEV_NONE ||
	    !netif_running(out) || rcu_access_pointer(out->rx_handler))
		return FT_STAT_NOLEARN_EGRESS_DEV;
	return 0;
}

/*
 * A packet of a closing connection, which the fast path may not have seen
 * (it came in the other direction, or through a device that is not
 * enabled): remove what is cached of the connection, so that conntrack
 * sees the rest of the close. Both directions are looked up again, even
 * where the ingress hook found none or tore them down: a learn on another
 * CPU may have published one since, and read the state before conntrack
 * changed it (ft_learn_published()).
 */
static void ft_learn_closing(struct ft_net *fn, struct nf_conn *ct)
{
	if (atomic_read(&fn->nflows))
		ft_flow_teardown_ct(fn, ct, FT_STAT_TORN_DOWN);
}

/*
 * Whether @skb, a TCP segment of @fam, carries data; false when unsure.
 * skb->len rather than the IP length fields, which a BIG TCP packet
 * leaves at 0.
 */
static bool ft_tcp_has_payload(const struct sk_buff *skb, enum ft_fam fam)
{
	const struct tcphdr *th;
	struct tcphdr buf;
	unsigned int l4;

	if (fam == FT_FAM_V4) {
		l4 = skb_network_offset(skb) + ip_hdrlen(skb);
	} else {
		if (ipv6_hdr(skb)->nexthdr != IPPROTO_TCP)
			return false;
		l4 = skb_network_offset(skb) + sizeof(struct ipv6hdr);
	}
	th = skb_header_pointer(skb, l4, sizeof(buf), &buf);
	return th && skb->len > l4 + th->doff * 4;
}

/*
 * Cache the direction of @skb's connection. Everything that can refuse
 * does so before anything is allocated or referenced, so that the packets
 * of a connection that is not learned (table full, already cached) cost
 * lookups only.
 */
static void ft_learn(struct ft_net *fn, struct sk_buff *skb,
		     struct net_device *out, enum ft_fam fam)
{
	const struct ft_rx_state *rx = NULL;
	enum ip_conntrack_info ctinfo;
	enum ip_conntrack_dir dir;
	enum ft_stat refusal;
	struct ft_flow *flow;
	struct dst_entry *dst;
	struct ft_key key;
	struct ft_nat rw;
	struct ft_dev *fd;
	struct nf_conn *ct;
	unsigned long prio_flags;
	struct ft_nh *nh;
	bool closing, enabled;
	u8 nat, meta, dscp;

	lockdep_assert_in_softirq();
	ct = nf_ct_get(skb, &ctinfo);
	fd = xa_load(&fn->dev_index, skb->skb_iif);
	enabled = fd && (READ_ONCE(fd->families) & ft_fam_flag(fam));
	/* No ruleset here uses conntrack, or a notrack rule matched. */
	if (!ct) {
		if (enabled)
			ft_stat_inc(fn, FT_STAT_NOLEARN_UNTRACKED);
		return;
	}
	/* Every packet of an enabled device passed the ingress hook. */
	if (enabled)
		rx = ft_rx_state(skb);
	refusal = ft_ct_refusal(ct, ctinfo, &closing);
	if (closing) {
		ft_learn_closing(fn, ct);
		return;
	}
	if (!enabled || refusal == FT_STAT_NUM || ft_skip_marked(fn, skb, ct))
		return;
	/* A SYN, FIN or RST on an established connection: not yet. */
	if (rx && !rx->learnable)
		return;
	/* A half-closed connection is worth caching for the data its open
	 * side still sends, not for a bare ACK just before the last FIN,
	 * which would tear the entry down at once.
	 */
	if (nf_ct_protonum(ct) == IPPROTO_TCP &&
	    READ_ONCE(ct->proto.tcp.state) == TCP_CONNTRACK_CLOSE_WAIT &&
	    !ft_tcp_has_payload(skb, fam))
		return;
	if (!refusal)
		refusal = ft_route_refusal(skb, fd->dev, out);
	if (refusal) {
		ft_stat_inc(fn, refusal);
		return;
	}

	dir = CTINFO2DIR(ctinfo);
	ft_key_from_tuple(&key, &ct->tuplehash[dir].tuple);
	/* Unless the ingress hook found none under this key already. */
	if (!(rx && rx->lookup == FT_RX_FREE && ft_key_same(&key, &rx->key)) &&
	    ft_flow_lookup(fn, &key))
		return;
	if (atomic_read(&fn->nflows) >= READ_ONCE(fn->cfg.max_flows)) {
		ft_stat_inc(fn, FT_STAT_TABLE_FULL);
		return;
	}
	/* Learned under what held when the packet entered, if that is
	 * still what holds; otherwise the decision may be stale already.
	 */
	if (!rx || ft_gens_stale(fn, &rx->gens)) {
		ft_stat_inc(fn, FT_STAT_NOLEARN_RACED);
		return;
	}
	meta = skb->mark != rx->mark ? FT_META_MARK : 0;
	refusal = ft_hdr_changes(skb, fam, rx, &meta, &dscp);
	if (refusal) {
		ft_stat_inc(fn, refusal);
		return;
	}
	prio_flags = 0;
	ft_learn_priority(skb, fam, rx, dscp, &meta, &prio_flags);

	nh = ft_learn_nh(fn, skb, out, fam);
	if (!nh) {
		ft_stat_inc(fn, FT_STAT_NOLEARN_NO_NEIGH);
		return;
	}
	dst = skb_dst(skb);
	if (!dst_hold_safe(dst))
		goto err_nh;

	nat = ft_nat_from_ct(&rw, ct, dir);
	flow = ft_flow_alloc(fam, nat, meta);
	if (!flow)
		goto err_dst;

	memcpy(&flow->key, &key, ft_key_len(fam));
	flow->iif = skb->skb_iif;
	flow->route_seq = rx->gens.val[ft_gen_route(fam)];
	flow->flags |= (unsigned long)nat << FT_FLOW_NAT |
		       (unsigned long)meta << FT_FLOW_META | prio_flags;
	if (dir == IP_CT_DIR_REPLY)
		__set_bit(FT_FLOW_REPLY, &flow->flags);
	if (nat)
		*ft_flow_rewrite(flow) = rw;
	flow->dst = dst;
	flow->dst_cookie = ft_dst_cookie(dst, fam);
	if (!ft_xfrm_active(dev_net(out)))
		__set_bit(FT_FLOW_NO_XFRM, &flow->flags);
	/* Extensions are added before confirmation, never later. */
	if (nf_conn_acct_find(ct))
		__set_bit(FT_FLOW_CT_ACCT, &flow->flags);
	if (meta) {
		struct ft_meta *m = ft_flow_meta(flow);

		m->mark = skb->mark;
		m->priority = skb->priority;
		m->dscp = dscp;
	}
	flow->created = (u32)jiffies;
	flow->last_active = flow->created;

	flow->nh = nh;
	nf_conntrack_get(&ct->ct_general);
	flow->ct = ct;

	if (!ft_learn_liberal(ct)) {
		ft_flow_destroy(flow);
		return;
	}
	/*
	 * On a lost race (another CPU, a settings change) it frees the flow;
	 * the connection stays liberal, as the flowtable leaves it.
	 */
	if (!ft_flow_insert(fn, flow))
		ft_learn_published(fn, flow, ct);
	return;

err_dst:
	dst_release(dst);
err_nh:
	ft_nh_put(nh);
}

/*
 * A forwarded packet came in on a device; a locally generated one did not
 * (skb_iif is 0) or belongs to a socket. IPv6 has no IPSKB_FORWARDED.
 */
static bool ft_forwarded(const struct sk_buff *skb)
{
	return skb->skb_iif && !skb->sk;
}

/*
 * Forwarded packets reach this hook in softirq, but for those an NFQUEUE
 * verdict reinjects: nf_reinject() runs the remaining hooks in process
 * context with BH enabled. Learning uses per-CPU state and takes locks
 * that softirqs take, so it disables BH then. In softirq that would only
 * add to the preempt count and call out to re-enable: a test is cheaper.
 */
static unsigned int ft_learn_hook(void *priv, struct sk_buff *skb,
				  const struct nf_hook_state *state)
{
	bool bh_on;

	if (!ft_forwarded(skb))
		return NF_ACCEPT;
	bh_on = !in_softirq();
	if (unlikely(bh_on))
		local_bh_disable();
	ft_learn(priv, skb, state->out,
		 state->pf == NFPROTO_IPV4 ? FT_FAM_V4 : FT_FAM_V6);
	if (unlikely(bh_on))
		local_bh_enable();
	return NF_ACCEPT;
}

/* After SNAT and helpers, before conntrack confirmation. */
#define FT_LEARN_PRIORITY	(NF_IP_PRI_CONNTRACK_CONFIRM - 1)

static const struct nf_hook_ops ft_learn_ops[FT_LEARN_HOOKS] = {
	{
		.hook		= ft_learn_hook,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_POST_ROUTING,
		.priority	= FT_LEARN_PRIORITY,
	},
	{
		.hook		= ft_learn_hook,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_POST_ROUTING,
		.priority	= FT_LEARN_PRIORITY,
	},
};

/*
 * Learning takes no conntrack reference: where no ruleset uses conntrack
 * the full stack tracks nothing, and neither may fasttrack. Flows are
 * learned where conntrack runs; elsewhere packets count as untracked.
 */
int ft_learn_start(struct ft_net *fn, struct netlink_ext_ack *extack)
{
	int err, i;

	for (i = 0; i < FT_LEARN_HOOKS; i++) {
		fn->learn_ops[i] = ft_learn_ops[i];
		fn->learn_ops[i].priv = fn;
	}

	err = nf_register_net_hooks(fn->net, fn->learn_ops,
				    FT_LEARN_HOOKS);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "cannot register the learning hooks");
	return err;
}

void ft_learn_stop(struct ft_net *fn)
{
	nf_unregister_net_hooks(fn->net, fn->learn_ops,
				FT_LEARN_HOOKS);
}
