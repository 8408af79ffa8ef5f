// SPDX-License-Identifier: GPL-2.0
/*
 * What the generic netlink commands share (nl_dev.c, nl_stats.c,
 * nl_flow.c; the family and its table are nl_family.c): naming a device,
 * the families attribute, dumps that go on where they stopped, replies,
 * and the counters' attributes. uapi/linux/fasttrack.h documents the
 * family and Documentation/netlink/specs/fasttrack.yaml specifies it.
 * Each command has its own policy (nl_policy.c), which checks types,
 * ranges, masks and lengths and rejects what the command does not take;
 * the handlers check what a policy cannot (a device that exists, marks
 * that agree), and every rejection names the attribute and says what to
 * fix.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "fasttrack.h"
#include "nl.h"
#include "nl_policy.h"

/*
 * The device FASTTRACK_A_IFINDEX and/or FASTTRACK_A_IFNAME name, or an
 * ERR_PTR with the reason in @extack. Caller: rcu_read_lock.
 */
struct net_device *ft_nl_dev_lookup(struct net *net,
				    struct nlattr **attrs,
				    struct netlink_ext_ack *extack)
{
	struct nlattr *ifindex = attrs[FASTTRACK_A_IFINDEX];
	struct nlattr *ifname = attrs[FASTTRACK_A_IFNAME];
	struct net_device *dev = NULL;

	if (!ifindex && !ifname) {
		NL_SET_ERR_MSG_MOD(extack,
				   "name the device with FASTTRACK_A_IFINDEX or FASTTRACK_A_IFNAME");
		return ERR_PTR(-EINVAL);
	}
	if (ifindex) {
		dev = dev_get_by_index_rcu(net, nla_get_u32(ifindex));
		if (!dev) {
			NL_SET_ERR_MSG_ATTR(extack, ifindex,
					    "no device with this index in this network namespace");
			return ERR_PTR(-ENODEV);
		}
	}
	if (ifname) {
		struct net_device *byname = dev_get_by_name_rcu(net,
								 nla_data(ifname));

		if (dev && byname != dev) {
			NL_SET_ERR_MSG_ATTR(extack, ifname,
					    "FASTTRACK_A_IFINDEX and FASTTRACK_A_IFNAME name different devices");
			return ERR_PTR(-EINVAL);
		}
		dev = byname;
	}
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, ifname,
				    "no such device in this network namespace");
		return ERR_PTR(-ENODEV);
	}
	return dev;
}

/* The device a request names; the caller's RTNL keeps it. */
struct net_device *ft_nl_dev(struct genl_info *info)
{
	struct net_device *dev;

	ASSERT_RTNL();
	rcu_read_lock();
	dev = ft_nl_dev_lookup(genl_info_net(info), info->attrs, info->extack);
	rcu_read_unlock();
	return dev;
}

/* The enabled device a request names; the caller holds RTNL. */
struct ft_dev *ft_nl_enabled_dev(struct ft_net *fn,
				 struct genl_info *info)
{
	struct net_device *dev = ft_nl_dev(info);
	struct ft_dev *fd;

	if (IS_ERR(dev))
		return ERR_CAST(dev);
	fd = ft_dev_find(fn, dev);
	if (!fd) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[FASTTRACK_A_IFINDEX] ?:
				    info->attrs[FASTTRACK_A_IFNAME],
				    "fasttrack is not enabled on this device");
		return ERR_PTR(-ENOENT);
	}
	return fd;
}

/*
 * FASTTRACK_A_FAMILIES, or both families when it is absent. The policy's
 * mask rejected unknown bits; a mask cannot reject 0.
 */
int ft_nl_families(struct nlattr *attr, struct netlink_ext_ack *extack,
		   u8 *families)
{
	if (!attr) {
		*families = FT_FAMILIES_ALL;
		return 0;
	}
	*families = nla_get_u32(attr);
	if (!*families) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "families must be FASTTRACK_F_IPV4, FASTTRACK_F_IPV6 or both");
		return -EINVAL;
	}
	return 0;
}

const u16 ft_nl_stat_attr[FT_STAT_NUM] = {
	[FT_STAT_LEARNED]		= FASTTRACK_A_STAT_LEARNED,
	[FT_STAT_TABLE_FULL]		= FASTTRACK_A_STAT_TABLE_FULL,
	[FT_STAT_EXPIRED]		= FASTTRACK_A_STAT_EXPIRED,
	[FT_STAT_TORN_DOWN]		= FASTTRACK_A_STAT_TORN_DOWN,
	[FT_STAT_CT_GONE]		= FASTTRACK_A_STAT_CT_GONE,
	[FT_STAT_INVALIDATED]		= FASTTRACK_A_STAT_INVALIDATED,
	[FT_STAT_FWD_PKTS]		= FASTTRACK_A_STAT_FORWARDED_PKTS,
	[FT_STAT_FWD_BYTES]		= FASTTRACK_A_STAT_FORWARDED_BYTES,
	[FT_STAT_PUNT_NO_ENTRY]		= FASTTRACK_A_STAT_PUNT_NO_ENTRY,
	[FT_STAT_PUNT_FRAGMENT]		= FASTTRACK_A_STAT_PUNT_FRAGMENT,
	[FT_STAT_PUNT_OPTIONS]		= FASTTRACK_A_STAT_PUNT_OPTIONS,
	[FT_STAT_PUNT_TTL]		= FASTTRACK_A_STAT_PUNT_TTL,
	[FT_STAT_PUNT_MTU]		= FASTTRACK_A_STAT_PUNT_MTU,
	[FT_STAT_PUNT_TCP_FLAGS]	= FASTTRACK_A_STAT_PUNT_TCP_FLAGS,
	[FT_STAT_PUNT_NOT_WRITABLE]	= FASTTRACK_A_STAT_PUNT_NOT_WRITABLE,
	[FT_STAT_PUNT_MALFORMED]	= FASTTRACK_A_STAT_PUNT_MALFORMED,
	[FT_STAT_PUNT_UNKNOWN]		= FASTTRACK_A_STAT_PUNT_UNKNOWN,
	[FT_STAT_PUNT_STALE]		= FASTTRACK_A_STAT_PUNT_STALE,
	[FT_STAT_ROUTE_CHANGED]		= FASTTRACK_A_STAT_ROUTE_CHANGED,
	[FT_STAT_NEIGH_CHANGED]		= FASTTRACK_A_STAT_NEIGH_CHANGED,
	[FT_STAT_FLUSHED]		= FASTTRACK_A_STAT_FLUSHED,
	[FT_STAT_RULESET_CHANGED]	= FASTTRACK_A_STAT_RULESET_CHANGED,
	[FT_STAT_PUNT_NOT_FORWARDING]	= FASTTRACK_A_STAT_PUNT_NOT_FORWARDING,
	[FT_STAT_PUNT_PORT]		= FASTTRACK_A_STAT_PUNT_PORT,
	[FT_STAT_NOLEARN_ZONE]		= FASTTRACK_A_STAT_NOLEARN_ZONE,
	[FT_STAT_NOLEARN_HELPER]	= FASTTRACK_A_STAT_NOLEARN_HELPER,
	[FT_STAT_NOLEARN_FLOWTABLE]	= FASTTRACK_A_STAT_NOLEARN_FLOWTABLE,
	[FT_STAT_NOLEARN_LWTUNNEL]	= FASTTRACK_A_STAT_NOLEARN_LWTUNNEL,
	[FT_STAT_NOLEARN_VRF]		= FASTTRACK_A_STAT_NOLEARN_VRF,
	[FT_STAT_NOLEARN_XFRM]		= FASTTRACK_A_STAT_NOLEARN_XFRM,
	[FT_STAT_NOLEARN_EGRESS_DEV]	= FASTTRACK_A_STAT_NOLEARN_EGRESS_DEV,
	[FT_STAT_NOLEARN_NO_NEIGH]	= FASTTRACK_A_STAT_NOLEARN_NO_NEIGH,
	[FT_STAT_NOLEARN_RACED]		= FASTTRACK_A_STAT_NOLEARN_RACED,
	[FT_STAT_ROUTE_REVALIDATED]	= FASTTRACK_A_STAT_ROUTE_REVALIDATED,
	[FT_STAT_RULE_SKIPPED]		= FASTTRACK_A_STAT_RULE_SKIPPED,
	[FT_STAT_NOLEARN_MANGLED]	= FASTTRACK_A_STAT_NOLEARN_MANGLED,
	[FT_STAT_XDP_BYPASSED]		= FASTTRACK_A_STAT_XDP_BYPASSED,
	[FT_STAT_NOLEARN_UNTRACKED]	= FASTTRACK_A_STAT_NOLEARN_UNTRACKED,
};

/*
 * A dump request is checked against its own policy in the dump's first
 * part: a command's doit and dumpit share the policy of its genl_ops on
 * every kernel, and the dump may take less. @attrs has @maxtype + 1 slots.
 */
int ft_nl_dump_parse(struct netlink_callback *cb,
		     const struct nla_policy *policy, int maxtype,
		     struct nlattr **attrs)
{
	return genlmsg_parse(cb->nlh, &ft_genl_family, attrs, maxtype, policy,
			     cb->extack);
}

/* A dump that takes no attribute; cb->args[1] is set once checked. */
int ft_nl_dump_no_attrs(struct netlink_callback *cb)
{
	struct nlattr *attrs[FASTTRACK_A_PAD + 1];
	int err;

	if (cb->args[1])
		return 0;
	err = ft_nl_dump_parse(cb, ft_nl_reject_all_policy, FASTTRACK_A_PAD,
			       attrs);
	if (!err)
		cb->args[1] = 1;
	return err;
}

/* A full skb ends a part of a dump, which goes on where it stopped. */
int ft_nl_dump_ret(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* Reply to a get request with what @put writes. */
int ft_nl_reply(struct genl_info *info, u8 cmd,
		int (*put)(struct sk_buff *msg, struct ft_net *fn))
{
	struct ft_net *fn = ft_net(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE + nr_cpu_ids * 512, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &ft_genl_family, 0, cmd);
	if (!hdr || put(msg, fn)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}
