// SPDX-License-Identifier: GPL-2.0
/*
 * Route changes: revalidate, don't invalidate.
 *
 * A flow holds the dst the stack routed it with. Two things tell it that
 * its route may have changed:
 *  - the dst check: IPv4 input routes carry the netns route generation,
 *    which every FIB, rule, nexthop, xfrm policy or forwarding change
 *    moves; IPv6 routes carry the serial number of their fib6 node, which
 *    changes below and at the node move;
 *  - the route change log: every FIB entry event logs its prefix (IPv4
 *    also every rtnetlink route message, route_nl.c: the notifier leaves
 *    some changes out), and rules, nexthop objects and devices log a
 *    change that covers all.
 *
 * A flow whose dst check failed on changes that the log shows cannot be
 * its own (other prefixes) arms the check again and keeps forwarding. A
 * flow that a logged change covers looks its route up again, as the stack
 * would for the packet at hand, and keeps forwarding if the decision came
 * out the same: egress device, next hop, MTU. Anything else is torn down
 * and goes back to the stack, and so is a flow whose lookup the fast path
 * cannot reproduce (DNAT, a mark set by the ruleset, IPsec).
 *
 * The dst check runs only when something could have changed its answer
 * (ft_flow_fresh()): a move of the family's dst generation (rt_genid,
 * fib6_sernum), which the first packet to see it logs as a change that
 * covers none, so that each flow checks once; a flow's first packet in a
 * jiffy (IPv6 routes expire with time, which moves nothing); and every
 * packet of a flow with FT_FLOW_RECHECK. IPv6 takes a serial number from
 * its generation before it writes it to the tree, so a dst check may pass
 * just before the change it was run for is visible; a change that is not
 * logged only re-arms a flow, and the flow's next jiffy checks again.
 *
 * A firewall ruleset commit is logged in both rings, and a flow learned
 * before it goes back to the stack (gen.c): one number per packet, the
 * head of its family's log, tells a flow whether anything it depends on
 * changed.
 *
 * The log is one ring per family and netns, written under gen_lock, read
 * locklessly through a seqcount. A flow that falls further behind than the
 * ring holds looks up. A covered lookup may run before the change it was
 * logged for is visible: IPv4 notifies a deletion before it unlinks, IPv6
 * an insertion before it links. Both move the dst checks afterwards (the
 * route generation, the fib6 serial numbers up to the root), so such a flow
 * looks up once more at its next failed dst check (FT_FLOW_RECHECK), and
 * FIB entries need no second logging a grace period later (gen.c).
 */
#include <linux/inetdevice.h>
#include <net/fib_notifier.h>
#include <net/ip_fib.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/nexthop.h>
#include <net/route.h>

#include "fasttrack.h"

/* @a: a __be32 or a struct in6_addr, by @fam. */
static bool ft_change_covers(const struct ft_route_change *c,
			     enum ft_fam fam, const void *a)
{
	if (c->dst)
		return false;
	if (c->all)
		return true;
	if (fam == FT_FAM_V4)
		return !((*(const __be32 *)a ^ c->prefix.ip) &
			 inet_make_mask(c->plen));
	return ipv6_prefix_equal(a, &c->prefix.in6, c->plen);
}

/*
 * What this CPU read in the log: the changes in (from, to] do not cover
 * the route to @addr. Flows to one destination then each read only what
 * was logged since the last of them looked, not all the way from their
 * own point: under churn the scan costs per change, not per change and
 * flow. It holds facts about sequence numbers, which the ring's reuse of
 * slots does not change. BH off: one writer per CPU.
 */
struct ft_route_memo {
	union ft_addr addr;
	u32 from;
	u32 to;
};

#define FT_RMEMO_BITS	4

struct ft_route_memos {
	struct ft_route_memo slot[FT_FAM_NUM][1 << FT_RMEMO_BITS];
};

int ft_route_memo_init(struct ft_net *fn)
{
	fn->rmemo = alloc_percpu(struct ft_route_memos);
	return fn->rmemo ? 0 : -ENOMEM;
}

void ft_route_memo_exit(struct ft_net *fn)
{
	free_percpu(fn->rmemo);
}

static struct ft_route_memo *ft_route_memo(struct ft_net *fn,
					   enum ft_fam fam, const void *a)
{
	u32 h = fam == FT_FAM_V4 ? (__force u32)*(const __be32 *)a :
				   ipv6_addr_hash(a);

	lockdep_assert_in_softirq();
	return &this_cpu_ptr(fn->rmemo)->slot[fam][hash_32(h, FT_RMEMO_BITS)];
}

/* Sequence numbers wrap: a memo speaks for a span shorter than this. */
#define FT_RMEMO_SPAN	BIT(30)

/* Does @m say that nothing logged in (@from, its end] covers @a? */
static bool ft_route_memo_holds(const struct ft_route_memo *m,
				enum ft_fam fam, const void *a, u32 from, u32 to)
{
	return to - m->from < FT_RMEMO_SPAN &&
	       from - m->from <= m->to - m->from &&
	       !memcmp(&m->addr, a, ft_addr_len(fam));
}

/* Is log position @a after @b? Positions are compared within 2^31. */
static bool ft_seq_after(u32 a, u32 b)
{
	return (s32)(a - b) > 0;
}

/*
 * Does a change logged after @from cover the route to @a? *@head is where
 * the log was read up to; a flow further behind than the ring is covered.
 * *@ruleset: a ruleset change was logged after @from.
 */
static bool ft_route_log_covers(struct ft_net *fn, u32 from, enum ft_fam fam,
				const void *a, u32 *head, bool *ruleset)
{
	struct ft_route_memo *m = ft_route_memo(fn, fam, a);
	bool covered, known;
	unsigned int seq;
	u32 i, to, start;

	do {
		seq = read_seqcount_begin(&fn->rlog_seq);
		to = (u32)atomic_read(&fn->gen[ft_gen_route(fam)]);
		*ruleset = ft_seq_after(READ_ONCE(fn->rules_seq[fam]), from);
		known = ft_route_memo_holds(m, fam, a, from, to);
		start = known ? m->to : from;
		covered = *ruleset || to - start >= FT_RLOG_SIZE;
		for (i = start + 1; !covered && i != to + 1; i++)
			covered = ft_change_covers(&fn->rlog[fam][i % FT_RLOG_SIZE],
						   fam, a);
	} while (read_seqcount_retry(&fn->rlog_seq, seq));
	*head = to;
	if (!covered) {
		if (!known) {
			memcpy(&m->addr, a, ft_addr_len(fam));
			m->from = from;
		}
		m->to = to;
	}
	return covered;
}

/* The address the packets of @dst go to next. */
bool ft_route_nexthop(struct dst_entry *dst, const struct sk_buff *skb,
		      enum ft_fam fam, union ft_addr *nh)
{
	if (fam == FT_FAM_V4) {
		struct rtable *rt = (struct rtable *)dst;

		if (rt->rt_gw_family == AF_INET6)
			return false;
		nh->ip = rt_nexthop(rt, ip_hdr(skb)->daddr);
	} else {
		nh->in6 = *rt6_nexthop((struct rt6_info *)dst,
				       &ipv6_hdr(skb)->daddr);
	}
	return true;
}

/* What the dst check of @dst compares with, as it is now. */
u32 ft_dst_cookie(struct dst_entry *dst, enum ft_fam fam)
{
	if (fam == FT_FAM_V4)
		return (u32)((struct rtable *)dst)->rt_genid;
	return rt6_get_cookie((struct rt6_info *)dst);
}

/*
 * The input route of @skb, as ip_rcv_finish() and ip6_rcv_finish() look
 * it up, set on the skb without a reference, or NULL if there is none.
 */
static struct dst_entry *ft_route_input(struct sk_buff *skb, enum ft_fam fam)
{
	struct net_device *dev = skb->dev;

	if (fam == FT_FAM_V4) {
		const struct iphdr *iph = ip_hdr(skb);

#ifdef FT_HAVE_ROUTE_INPUT_DSCP
		if (ip_route_input_noref(skb, iph->daddr, iph->saddr,
					 ip4h_dscp(iph), dev))
			return NULL;
#else
		if (ip_route_input_noref(skb, iph->daddr, iph->saddr,
					 iph->tos, dev))
			return NULL;
#endif
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);
		struct flowi6 fl6 = {
			.flowi6_iif	= dev->ifindex,
			.daddr		= ip6h->daddr,
			.saddr		= ip6h->saddr,
			.flowlabel	= ip6_flowinfo(ip6h),
			.flowi6_mark	= skb->mark,
			.flowi6_proto	= ip6h->nexthdr,
		};
		struct net *net = dev_net(dev);
		struct flow_keys flkeys;

		/* Ports and protocol for rules that match on them. */
		fib6_rules_early_flow_dissect(net, skb, &fl6, &flkeys);
		skb_dst_set_noref(skb, ip6_route_input_lookup(net, dev, &fl6, skb,
							      RT6_LOOKUP_F_HAS_SADDR |
							      RT6_LOOKUP_F_DST_NOREF));
	}
	return skb_dst(skb);
}

/* Would @dst send @flow's packets where they go now, the same way? */
static bool ft_route_same(const struct ft_flow *flow, struct dst_entry *dst,
			  const struct sk_buff *skb)
{
	union ft_addr nh = {}, was = {};
	enum ft_fam fam = flow->key.fam;

	if (dst->error || dst->dev != flow->nh->dev || dst->lwtstate ||
	    dst_xfrm(dst))
		return false;
	if (fam == FT_FAM_V4) {
		if (((struct rtable *)dst)->rt_type != RTN_UNICAST)
			return false;
	} else if (((struct rt6_info *)dst)->rt6i_flags &
		   (RTF_REJECT | RTF_LOCAL | RTF_ANYCAST)) {
		return false;
	}
	if (ft_route_mtu(dst) != flow->nh->mtu)
		return false;
	/*
	 * The same next hop as the flow's route, on any device: a layer-3
	 * one without a remote address (NBMA tunnel) sends to the gateway
	 * its route names, not to a neighbour.
	 */
	if (!ft_route_nexthop(dst, skb, fam, &nh) ||
	    !ft_route_nexthop(READ_ONCE(flow->dst), skb, fam, &was))
		return false;
	return !memcmp(&was, &nh, ft_addr_len(fam));
}

/*
 * Look the route of @flow up again with @skb; keep the flow, with the new
 * dst, if the decision is the same. @covered: a logged change asked for it.
 */
static bool ft_route_relookup(struct ft_net *fn, struct ft_flow *flow,
			      struct sk_buff *skb, u32 head, bool covered)
{
	struct dst_entry *dst, *old;
	bool same = false;

	/*
	 * The fast path cannot redo the stack's lookup for these: the
	 * destination is rewritten first, the ruleset may set the mark or
	 * the DSCP it routes by (a DSCP rewrite in prerouting cannot be told
	 * from a later one), IPsec decides after routing, and a dst on the
	 * packet (tunnel metadata) is an input of the lookup.
	 */
	if ((ft_flow_nat(flow) & FT_NAT_DST) ||
	    (ft_flow_sets(flow) & (FT_META_MARK | FT_META_DSCP)) ||
	    ft_xfrm_active(dev_net(skb->dev)) || skb_dst(skb))
		return false;

	dst = ft_route_input(skb, flow->key.fam);
	if (dst && ft_route_same(flow, dst, skb) && dst_hold_safe(dst)) {
		WRITE_ONCE(flow->dst_cookie, ft_dst_cookie(dst, flow->key.fam));
		old = xchg(&flow->dst, dst);
		/* Readers hold RCU; dst_release() frees after a grace period. */
		dst_release(old);
		if (covered)
			set_bit(FT_FLOW_RECHECK, &flow->flags);
		else
			clear_bit(FT_FLOW_RECHECK, &flow->flags);
		set_bit(FT_FLOW_NO_XFRM, &flow->flags);
		WRITE_ONCE(flow->route_seq, head);
		ft_stat_inc(fn, FT_STAT_ROUTE_REVALIDATED);
		same = true;
	}
	skb_dst_drop(skb);
	return same;
}

/*
 * The dst check of @flow failed although nothing logged covers it: take
 * the route's current generation or serial number as the one to check
 * against, if the route itself is still alive.
 */
static bool ft_dst_rearm(struct ft_flow *flow, const struct net *net)
{
	struct dst_entry *dst = READ_ONCE(flow->dst);
	u32 cookie;

	if (flow->key.fam == FT_FAM_V4) {
		if (READ_ONCE(dst->obsolete) != DST_OBSOLETE_FORCE_CHK)
			return false;
		cookie = (u32)rt_genid_ipv4(net);
	} else {
		cookie = rt6_get_cookie((struct rt6_info *)dst);
		if (!dst_check(dst, cookie))
			return false;
	}
	WRITE_ONCE(flow->dst_cookie, cookie);
	return true;
}

/* The address the stack routes @flow's packets to: after DNAT. */
static const void *ft_flow_route_dst(const struct ft_flow *flow)
{
	return ft_flow_nat(flow) & FT_NAT_DST ? &ft_flow_rewrite(flow)->dst :
	       ft_key_dst(&flow->key);
}

/*
 * The routing generation moved past @flow, or its dst check failed
 * (@dst_ok false): keep it if its route still holds, and return 0; else
 * why it is stale. Per packet, BH off.
 *
 * A logged change covers the flow when it covers the address its packets
 * go to, or the one they come from: the input route checks the path back
 * to the source (rp_filter) and may route by it (source routes, rules).
 */
enum ft_stat ft_route_recheck(struct ft_net *fn, struct ft_flow *flow,
			      struct sk_buff *skb, bool dst_ok)
{
	const struct net *net = dev_net(skb->dev);
	u32 from = READ_ONCE(flow->route_seq);
	enum ft_fam fam = flow->key.fam;
	bool ruleset, same;
	u32 head, head2;

	if (ft_route_log_covers(fn, from, fam, ft_flow_route_dst(flow), &head,
				&ruleset) ||
	    ft_route_log_covers(fn, from, fam, ft_key_src(&flow->key), &head2,
				&ruleset)) {
		if (ruleset)
			return FT_STAT_RULESET_CHANGED;
		same = ft_route_relookup(fn, flow, skb, head, true);
	} else if (!dst_ok &&
		   (!ft_seq_after(READ_ONCE(fn->cover_seq[fam]), from) ||
		    test_bit(FT_FLOW_RECHECK, &flow->flags) ||
		    ft_xfrm_active(net) || !ft_dst_rearm(flow, net))) {
		/*
		 * Unlogged changes move the generations too: sysctls the
		 * input route reads, IPsec policies (no flow is re-armed
		 * while they exist), and changes of the flow's own that
		 * were not visible yet when it last looked up (RECHECK). A
		 * failed check with nothing logged since that could cover
		 * a flow (a dst generation move covers none) is one of
		 * those.
		 */
		same = ft_route_relookup(fn, flow, skb, head, false);
	} else {
		WRITE_ONCE(flow->route_seq, head);
		same = true;
	}
	return same ? 0 : FT_STAT_ROUTE_CHANGED;
}

/*
 * The GC's look at @flow's log position, for a flow without packets: was
 * a ruleset change logged after it, or did it fall so far behind that
 * positions would wrap (ft_seq_after())? Either makes it stale.
 */
enum ft_stat ft_route_gc_check(struct ft_net *fn, const struct ft_flow *flow)
{
	enum ft_fam fam = flow->key.fam;
	u32 from = READ_ONCE(flow->route_seq);
	u32 head = (u32)atomic_read(&fn->gen[ft_gen_route(fam)]);

	if (ft_seq_after(READ_ONCE(fn->rules_seq[fam]), from))
		return FT_STAT_RULESET_CHANGED;
	if (head - from >= BIT(30))
		return FT_STAT_ROUTE_CHANGED;
	return 0;
}

static int ft_fib_event(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct ft_net *fn = container_of(nb, struct ft_net, fib_nb);
	struct fib_notifier_info *info = ptr;
	struct ft_route_change c = {};
	enum ft_fam fam;

	switch (event) {
	case FIB_EVENT_ENTRY_REPLACE:
	case FIB_EVENT_ENTRY_APPEND:
	case FIB_EVENT_ENTRY_ADD:
	case FIB_EVENT_ENTRY_DEL:
		if (info->family == AF_INET) {
			struct fib_entry_notifier_info *e;

			e = container_of(info, struct fib_entry_notifier_info,
					 info);
			fam = FT_FAM_V4;
			c.prefix.ip = htonl(e->dst);
			c.plen = e->dst_len;
		} else if (info->family == AF_INET6) {
			struct fib6_entry_notifier_info *e;

			e = container_of(info, struct fib6_entry_notifier_info,
					 info);
			fam = FT_FAM_V6;
			c.prefix.in6 = e->rt->fib6_dst.addr;
			c.plen = e->rt->fib6_dst.plen;
		} else {
			break;	/* multicast routing: no flow of ours */
		}
		ft_route_log(fn, fam, &c);
		break;
	case FIB_EVENT_RULE_ADD:
	case FIB_EVENT_RULE_DEL:
	case FIB_EVENT_NH_ADD:
	case FIB_EVENT_NH_DEL:
		ft_gen_bump(fn, FT_GENS_ROUTE);
		break;
	}
	return NOTIFY_DONE;
}

static void ft_fib_dump_flush(struct notifier_block *nb)
{
	struct ft_net *fn = container_of(nb, struct ft_net, fib_nb);

	ft_gen_bump(fn, FT_GENS_ROUTE);
}

/* Any nexthop object event: replace, group change, delete, hw stats. */
static int ft_nexthop_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct ft_net *fn = container_of(nb, struct ft_net, nh_nb);

	ft_gen_bump(fn, FT_GENS_ROUTE);
	return NOTIFY_DONE;
}

/*
 * Registering dumps the FIB under RTNL, so callers must not hold it. Once
 * registered, the notifiers stay until the netns goes.
 */
int ft_route_watch_start(struct ft_net *fn, struct netlink_ext_ack *extack)
{
	int err = 0;

	mutex_lock(&fn->lock);
	if (fn->fib_nb.notifier_call)
		goto out;
	fn->nh_nb.notifier_call = ft_nexthop_event;
#ifdef FT_HAVE_NH_NOTIFIER_EXTACK
	err = register_nexthop_notifier(fn->net, &fn->nh_nb, extack);
#else
	err = register_nexthop_notifier(fn->net, &fn->nh_nb);
#endif
	if (err) {
		fn->nh_nb.notifier_call = NULL;
		goto out;
	}
	fn->fib_nb.notifier_call = ft_fib_event;
	err = register_fib_notifier(fn->net, &fn->fib_nb, ft_fib_dump_flush,
				    extack);
	/* The kernel gives up after five dumps that each saw a change. */
	if (err == -EBUSY)
		NL_SET_ERR_MSG(extack,
			       "the routing table changed during every dump of it; enable again");
	if (err)
		goto err_fib;
	err = ft_route_nl_start(fn, extack);
	if (!err)
		goto out;
	unregister_fib_notifier(fn->net, &fn->fib_nb);
err_fib:
	fn->fib_nb.notifier_call = NULL;
	unregister_nexthop_notifier(fn->net, &fn->nh_nb);
	fn->nh_nb.notifier_call = NULL;
out:
	mutex_unlock(&fn->lock);
	return err;
}

void ft_route_watch_stop(struct ft_net *fn)
{
	if (!fn->fib_nb.notifier_call)
		return;
	ft_route_nl_stop(fn);
	unregister_fib_notifier(fn->net, &fn->fib_nb);
	unregister_nexthop_notifier(fn->net, &fn->nh_nb);
}
