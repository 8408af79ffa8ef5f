// SPDX-License-Identifier: GPL-2.0
/*
 * The flows as the API shows them: the flow dump, the flush, and the
 * events the table's flow notifier sends to the events group. Both the
 * dump and the events reveal connections and their NAT mappings, so both
 * need what conntrack's do (nl_family.c).
 */
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "fasttrack.h"
#include "nl.h"
#include "nl_policy.h"

/* VLAN id of a device, or 0. */
static u16 ft_vlan_id(const struct net_device *dev)
{
	return dev && is_vlan_dev(dev) ? vlan_dev_vlan_id(dev) : 0;
}

/* @addr: a __be32 or a struct in6_addr, by @fam. */
static int ft_nl_put_addr(struct sk_buff *msg, int attr, u8 fam,
			  const void *addr)
{
	return nla_put(msg, attr, fam == FT_FAM_V4 ? sizeof(__be32) :
		       sizeof(struct in6_addr), addr);
}

/* The FASTTRACK_A_FLOW nest of a flow; caller holds rcu_read_lock. */
static int ft_nl_put_flow(struct sk_buff *msg, struct ft_net *fn,
			  const struct ft_flow *flow, enum ft_stat reason)
{
	const struct net_device *in = dev_get_by_index_rcu(fn->net, flow->iif);
	const struct ft_key *k = &flow->key;
	const struct ft_nat *r = ft_flow_rewrite(flow);	/* if nat */
	unsigned int nat = ft_flow_nat(flow);
	unsigned long now = jiffies;
	u64 packets, bytes;
	struct nlattr *nest;
	u16 vid;

	ft_flow_acct_read(flow, &packets, &bytes);
	nest = nla_nest_start(msg, FASTTRACK_A_FLOW);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, FASTTRACK_A_FLOW_ID, flow->id) ||
	    nla_put_u8(msg, FASTTRACK_A_FLOW_FAMILY,
		       k->fam == FT_FAM_V4 ? AF_INET : AF_INET6) ||
	    nla_put_u8(msg, FASTTRACK_A_FLOW_PROTO, k->l4proto) ||
	    nla_put_u8(msg, FASTTRACK_A_FLOW_DIR, ft_flow_dir(flow)) ||
	    ft_nl_put_addr(msg, FASTTRACK_A_FLOW_SRC, k->fam, ft_key_src(k)) ||
	    ft_nl_put_addr(msg, FASTTRACK_A_FLOW_DST, k->fam, ft_key_dst(k)) ||
	    nla_put_be16(msg, FASTTRACK_A_FLOW_SPORT, k->sport) ||
	    nla_put_be16(msg, FASTTRACK_A_FLOW_DPORT, k->dport) ||
	    ft_nl_put_addr(msg, FASTTRACK_A_FLOW_NAT_SRC, k->fam,
			   nat & FT_NAT_SRC ? &r->src : ft_key_src(k)) ||
	    ft_nl_put_addr(msg, FASTTRACK_A_FLOW_NAT_DST, k->fam,
			   nat & FT_NAT_DST ? &r->dst : ft_key_dst(k)) ||
	    nla_put_be16(msg, FASTTRACK_A_FLOW_NAT_SPORT,
			 nat & FT_NAT_SPORT ? r->sport : k->sport) ||
	    nla_put_be16(msg, FASTTRACK_A_FLOW_NAT_DPORT,
			 nat & FT_NAT_DPORT ? r->dport : k->dport) ||
	    nla_put_u32(msg, FASTTRACK_A_FLOW_IIF, flow->iif) ||
	    nla_put_u32(msg, FASTTRACK_A_FLOW_OIF, flow->nh->ifindex) ||
	    nla_put_u64_64bit(msg, FASTTRACK_A_FLOW_PACKETS, packets,
			      FASTTRACK_A_FLOW_PAD) ||
	    nla_put_u64_64bit(msg, FASTTRACK_A_FLOW_BYTES, bytes,
			      FASTTRACK_A_FLOW_PAD) ||
	    nla_put_u64_64bit(msg, FASTTRACK_A_FLOW_AGE_MS,
			      jiffies_to_msecs((u32)now - flow->created),
			      FASTTRACK_A_FLOW_PAD) ||
	    nla_put_u64_64bit(msg, FASTTRACK_A_FLOW_IDLE_MS,
			      jiffies_to_msecs((u32)now -
					       READ_ONCE(flow->last_active)),
			      FASTTRACK_A_FLOW_PAD))
		goto err;

	vid = ft_vlan_id(in);
	if (vid && nla_put_u16(msg, FASTTRACK_A_FLOW_IIF_VLAN, vid))
		goto err;
	vid = flow->nh->vlan_id;
	if (vid && nla_put_u16(msg, FASTTRACK_A_FLOW_OIF_VLAN, vid))
		goto err;
	if (reason && nla_put_u32(msg, FASTTRACK_A_FLOW_REASON,
				  ft_stat_reason(reason)))
		goto err;
	nla_nest_end(msg, nest);
	return 0;
err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/*
 * Tell listeners a flow came (reason 0) or went: the table's flow
 * notifier, any context.
 */
static int ft_nl_flow_event(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	const struct ft_flow_event *ev = data;
	const struct ft_flow *flow = ev->flow;
	enum ft_stat reason = ev->reason;
	struct ft_net *fn = ev->fn;
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&ft_genl_family, fn->net, 0))
		return NOTIFY_DONE;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!msg)
		return NOTIFY_DONE;
	hdr = genlmsg_put(msg, 0, 0, &ft_genl_family, 0,
			  reason ? FASTTRACK_CMD_FLOW_DEL :
				   FASTTRACK_CMD_FLOW_NEW);
	if (!hdr)
		goto err;
	rcu_read_lock();
	if (ft_nl_put_flow(msg, fn, flow, reason)) {
		rcu_read_unlock();
		goto err;
	}
	rcu_read_unlock();
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&ft_genl_family, fn->net, msg, 0, 0,
				GFP_ATOMIC);
	return NOTIFY_DONE;
err:
	nlmsg_free(msg);
	return NOTIFY_DONE;
}

/* An address of FASTTRACK_A_MATCH: 4 or 16 bytes, one family for both. */
static int ft_nl_match_addr(const struct nlattr *attr, struct ft_match *m,
			    union ft_addr *addr, struct netlink_ext_ack *extack)
{
	int len = nla_len(attr);
	u8 fam;

	if (len != sizeof(addr->ip) && len != sizeof(addr->in6)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "an address is 4 (IPv4) or 16 (IPv6) bytes");
		return -EINVAL;
	}
	fam = len == sizeof(addr->ip) ? FT_FAM_V4 : FT_FAM_V6;
	if ((m->fields & (FT_MATCH_SRC | FT_MATCH_DST)) && m->fam != fam) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "source and destination are of different families");
		return -EINVAL;
	}
	m->fam = fam;
	memcpy(addr, nla_data(attr), len);
	return 0;
}

/* FASTTRACK_A_MATCH, which the policy checked but for address lengths. */
static int ft_nl_match(const struct nlattr *attr, struct ft_filter *f,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[FASTTRACK_A_FLOW_DPORT + 1];
	struct ft_match *m = &f->match;
	int err;

	err = nla_parse_nested(tb, FASTTRACK_A_FLOW_DPORT, attr,
			       fasttrack_flow_match_nl_policy, extack);
	if (err)
		return err;
	if (tb[FASTTRACK_A_FLOW_PROTO]) {
		m->l4proto = nla_get_u8(tb[FASTTRACK_A_FLOW_PROTO]);
		m->fields |= FT_MATCH_PROTO;
	}
	if (tb[FASTTRACK_A_FLOW_SRC]) {
		err = ft_nl_match_addr(tb[FASTTRACK_A_FLOW_SRC], m, &m->src,
				       extack);
		if (err)
			return err;
		m->fields |= FT_MATCH_SRC;
	}
	if (tb[FASTTRACK_A_FLOW_DST]) {
		err = ft_nl_match_addr(tb[FASTTRACK_A_FLOW_DST], m, &m->dst,
				       extack);
		if (err)
			return err;
		m->fields |= FT_MATCH_DST;
	}
	if (tb[FASTTRACK_A_FLOW_SPORT]) {
		m->sport = nla_get_be16(tb[FASTTRACK_A_FLOW_SPORT]);
		m->fields |= FT_MATCH_SPORT;
	}
	if (tb[FASTTRACK_A_FLOW_DPORT]) {
		m->dport = nla_get_be16(tb[FASTTRACK_A_FLOW_DPORT]);
		m->fields |= FT_MATCH_DPORT;
	}
	/* An address names its family: the others' flows cannot match. */
	if (m->fields & (FT_MATCH_SRC | FT_MATCH_DST))
		f->families &= ft_fam_flag(m->fam);
	return 0;
}

/* The filter of a dump or flush request; RTNL not needed. */
static int ft_nl_filter(struct net *net, struct nlattr **attrs,
			struct netlink_ext_ack *extack, struct ft_filter *f)
{
	struct net_device *dev;
	int err;

	memset(f, 0, sizeof(*f));
	err = ft_nl_families(attrs[FASTTRACK_A_FAMILIES], extack, &f->families);
	if (err)
		return err;
	if (attrs[FASTTRACK_A_MATCH]) {
		err = ft_nl_match(attrs[FASTTRACK_A_MATCH], f, extack);
		if (err)
			return err;
	}
	if (!attrs[FASTTRACK_A_IFINDEX] && !attrs[FASTTRACK_A_IFNAME])
		return 0;

	rcu_read_lock();
	dev = ft_nl_dev_lookup(net, attrs, extack);
	if (!IS_ERR(dev))
		f->iif = dev->ifindex;
	rcu_read_unlock();
	return PTR_ERR_OR_ZERO(dev);
}

/*
 * In cb->ctx, which is too small for a match: each part of the dump
 * parses that again from the request, which the first part checked.
 */
struct ft_flow_dump {
	unsigned long next_id;
	int iif;
	u8 families;
	bool started;
};

/*
 * The request's filter, parsed against the dump's policy (here rather
 * than in a .start callback, which works with every kernel's dump info
 * layout). The first part looks the device up; the others keep its index.
 */
static int ft_nl_flow_dump_filter(struct netlink_callback *cb,
				  struct ft_flow_dump *d, struct ft_filter *f)
{
	struct nlattr *attrs[FASTTRACK_A_MATCH + 1];
	int err;

	err = ft_nl_dump_parse(cb, fasttrack_flow_get_nl_policy,
			       FASTTRACK_A_MATCH, attrs);
	if (err)
		return err;
	if (d->started) {
		memset(f, 0, sizeof(*f));
		f->iif = d->iif;
		f->families = d->families;
		return attrs[FASTTRACK_A_MATCH] ?
		       ft_nl_match(attrs[FASTTRACK_A_MATCH], f, cb->extack) : 0;
	}
	err = ft_nl_filter(sock_net(cb->skb->sk), attrs, cb->extack, f);
	if (err)
		return err;
	d->iif = f->iif;
	d->families = f->families;
	d->next_id = 0;
	d->started = true;
	return 0;
}

int ft_nl_flow_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ft_net *fn = ft_net(sock_net(skb->sk));
	struct ft_flow_dump *d = (void *)cb->ctx;
	struct ft_filter filter;
	struct ft_flow *flow;
	unsigned long id;
	int err = 0;

	BUILD_BUG_ON(sizeof(*d) > sizeof(cb->ctx));
	err = ft_nl_flow_dump_filter(cb, d, &filter);
	if (err)
		return err;

	rcu_read_lock();
	for (;;) {
		void *hdr;

		id = d->next_id;
		flow = ft_flow_next(fn, &id);
		if (!flow)
			break;
		if (!ft_flow_live(flow) || !ft_filter_match(&filter, flow)) {
			d->next_id = id;
			continue;
		}
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ft_genl_family,
				  NLM_F_MULTI, FASTTRACK_CMD_FLOW_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		if (ft_nl_put_flow(skb, fn, flow, 0)) {
			genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
		d->next_id = id;
	}
	rcu_read_unlock();
	return ft_nl_dump_ret(skb, err);
}

int ft_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_net *fn = ft_net(genl_info_net(info));
	struct ft_filter f;
	int err;

	err = ft_nl_filter(genl_info_net(info), info->attrs, info->extack, &f);
	if (err)
		return err;
	ft_table_kill(fn, &f, FT_STAT_FLUSHED);
	return 0;
}

struct notifier_block ft_nl_flow_nb = {
	.notifier_call = ft_nl_flow_event,
};
