// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family; uapi/linux/fasttrack.h documents it and
 * Documentation/netlink/specs/fasttrack.yaml specifies it. Each command has
 * its own policy (nl_policy.c), which checks types, ranges, masks and
 * lengths and rejects what the command does not take; the handlers check
 * what a policy cannot (a device that exists, marks that agree), and every
 * rejection names the attribute and says what to fix.
 */
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "fasttrack.h"
#include "nl_policy.h"

static struct genl_family ft_genl_family;

/* Events reveal connections and their NAT mappings, as ctnetlink's do. */
static const struct genl_multicast_group ft_mcgrps[] = {
	{
		.name	= FASTTRACK_MCGRP_EVENTS,
#ifdef FT_HAVE_GENL_MCAST_CAP
		.flags	= GENL_MCAST_CAP_NET_ADMIN,
#elif defined(FT_HAVE_GENL_MCAST_UNS_PERM)
		.flags	= GENL_UNS_ADMIN_PERM,	/* 5.10 stable's spelling */
#endif
	},
};

/*
 * The device FASTTRACK_A_IFINDEX and/or FASTTRACK_A_IFNAME name, or an
 * ERR_PTR with the reason in @extack. Caller: rcu_read_lock.
 */
static struct net_device *ft_nl_dev_lookup(struct net *net,
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
static struct net_device *ft_nl_dev(struct genl_info *info)
{
	struct net_device *dev;

	ASSERT_RTNL();
	rcu_read_lock();
	dev = ft_nl_dev_lookup(genl_info_net(info), info->attrs, info->extack);
	rcu_read_unlock();
	return dev;
}

/* The enabled device a request names; the caller holds RTNL. */
static struct ft_dev *ft_nl_enabled_dev(struct ft_net *fn,
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
static int ft_nl_families(struct nlattr *attr, struct netlink_ext_ack *extack,
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

/*
 * What an enabled device needs running: the route and ruleset watches,
 * started before RTNL is taken, as the enable always did.
 */
static int ft_nl_watch_start(struct ft_net *fn, struct netlink_ext_ack *extack)
{
	int err;

	err = ft_route_watch_start(fn, extack);
	if (err)
		return err;
	return ft_rules_watch_start(fn, extack);
}

static int ft_nl_dev_enable(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_net *fn = ft_net(genl_info_net(info));
	struct net_device *dev;
	u8 families;
	int err;

	err = ft_nl_families(info->attrs[FASTTRACK_A_FAMILIES], info->extack,
			     &families);
	if (err)
		return err;
	err = ft_nl_watch_start(fn, info->extack);
	if (err)
		return err;

	rtnl_lock();
	dev = ft_nl_dev(info);
	if (IS_ERR(dev))
		err = PTR_ERR(dev);
	else
		err = ft_dev_enable(fn, dev, families, info->extack);
	rtnl_unlock();
	return err;
}

static int ft_nl_dev_disable(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_net *fn = ft_net(genl_info_net(info));
	struct ft_dev *fd;
	u8 families;
	int err;

	err = ft_nl_families(info->attrs[FASTTRACK_A_FAMILIES], info->extack,
			     &families);
	if (err)
		return err;

	rtnl_lock();
	fd = ft_nl_enabled_dev(fn, info);
	if (IS_ERR(fd))
		err = PTR_ERR(fd);
	else
		err = ft_dev_disable(fn, fd, families);
	rtnl_unlock();
	return err;
}

/* The name or pattern and the families of a rule request. */
static int ft_nl_rule_args(struct genl_info *info, const struct nlattr **name,
			   u8 *families)
{
	*name = info->attrs[FASTTRACK_A_IFNAME];
	if (!*name) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "name the device or pattern with FASTTRACK_A_IFNAME");
		return -EINVAL;
	}
	return ft_nl_families(info->attrs[FASTTRACK_A_FAMILIES], info->extack,
			      families);
}

static int ft_nl_rule_add(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_net *fn = ft_net(genl_info_net(info));
	const struct nlattr *name;
	u8 families;
	int err;

	err = ft_nl_rule_args(info, &name, &families);
	if (err)
		return err;
	/* Devices it matches later need them, as an enabled device does. */
	err = ft_nl_watch_start(fn, info->extack);
	if (err)
		return err;

	rtnl_lock();
	err = ft_dev_rule_add(fn, name, families, info->extack);
	rtnl_unlock();
	return err;
}

static int ft_nl_rule_del(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_net *fn = ft_net(genl_info_net(info));
	const struct nlattr *name;
	u8 families;
	int err;

	err = ft_nl_rule_args(info, &name, &families);
	if (err)
		return err;

	rtnl_lock();
	err = ft_dev_rule_del(fn, name, families, info->extack);
	rtnl_unlock();
	return err;
}

static int ft_nl_fill_rule(struct sk_buff *skb, struct netlink_callback *cb,
			   const char *pattern, u8 families)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &ft_genl_family, NLM_F_MULTI, FASTTRACK_CMD_RULE_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, FASTTRACK_A_IFNAME, pattern) ||
	    nla_put_u32(skb, FASTTRACK_A_FAMILIES, families)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static const u16 ft_stat_attr[FT_STAT_NUM] = {
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
};

/* FASTTRACK_A_DEVFAM_PUNTED: the family's punts on the device, by reason. */
static int ft_nl_put_punted(struct sk_buff *msg, const struct ft_dev *fd,
			    enum ft_fam fam)
{
	u64 punted[FT_PUNT_NUM];
	struct nlattr *nest;
	int i;

	ft_dev_punts_read(fd, fam, punted);
	nest = nla_nest_start(msg, FASTTRACK_A_DEVFAM_PUNTED);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < FT_PUNT_NUM; i++) {
		if (nla_put_u64_64bit(msg, ft_stat_attr[ft_punt_stat[i]],
				      punted[i], FASTTRACK_A_STAT_PAD)) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ft_nl_put_family(struct sk_buff *msg, const struct ft_dev *fd,
			    enum ft_fam fam)
{
	struct nlattr *nest;
	u64 packets, bytes;

	nest = nla_nest_start(msg, fam == FT_FAM_V4 ? FASTTRACK_A_DEV_IPV4 :
						      FASTTRACK_A_DEV_IPV6);
	if (!nest)
		return -EMSGSIZE;
	ft_dev_stats_read(fd, fam, &packets, &bytes);
	if (nla_put_u8(msg, FASTTRACK_A_DEVFAM_ENABLED,
		       !!(fd->families & ft_fam_flag(fam))) ||
	    nla_put_u64_64bit(msg, FASTTRACK_A_DEVFAM_PACKETS, packets,
			      FASTTRACK_A_DEVFAM_PAD) ||
	    nla_put_u64_64bit(msg, FASTTRACK_A_DEVFAM_BYTES, bytes,
			      FASTTRACK_A_DEVFAM_PAD) ||
	    ft_nl_put_punted(msg, fd, fam)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ft_nl_fill_dev(struct sk_buff *msg, const struct ft_dev *fd,
			  u32 portid, u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &ft_genl_family, flags,
			  FASTTRACK_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(msg, FASTTRACK_A_IFINDEX, fd->dev->ifindex) ||
	    nla_put_string(msg, FASTTRACK_A_IFNAME, fd->dev->name) ||
	    ft_nl_put_family(msg, fd, FT_FAM_V4) ||
	    ft_nl_put_family(msg, fd, FT_FAM_V6)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

static int ft_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_net *fn = ft_net(genl_info_net(info));
	struct sk_buff *msg;
	struct ft_dev *fd;
	int err;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	rtnl_lock();
	fd = ft_nl_enabled_dev(fn, info);
	if (IS_ERR(fd)) {
		err = PTR_ERR(fd);
		goto err_unlock;
	}
	err = ft_nl_fill_dev(msg, fd, info->snd_portid, info->snd_seq, 0);
	rtnl_unlock();
	if (err)
		goto err_free;
	return genlmsg_reply(msg, info);

err_unlock:
	rtnl_unlock();
err_free:
	nlmsg_free(msg);
	return err;
}

/*
 * A dump request is checked against its own policy in the dump's first
 * part: a command's doit and dumpit share the policy of its genl_ops on
 * every kernel, and the dump may take less. @attrs has @maxtype + 1 slots.
 */
static int ft_nl_dump_parse(struct netlink_callback *cb,
			    const struct nla_policy *policy, int maxtype,
			    struct nlattr **attrs)
{
	return genlmsg_parse(cb->nlh, &ft_genl_family, attrs, maxtype, policy,
			     cb->extack);
}

/* A dump that takes no attribute; cb->args[1] is set once checked. */
static int ft_nl_dump_no_attrs(struct netlink_callback *cb)
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
static int ft_nl_dump_ret(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

static int ft_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	int err;

	err = ft_nl_dump_no_attrs(cb);
	if (err)
		return err;
	err = ft_dev_rules_dump(ft_net(sock_net(skb->sk)), skb, cb,
				ft_nl_fill_rule);
	return ft_nl_dump_ret(skb, err);
}

/* cb->args[0]: how many devices earlier parts of the dump sent. */
static int ft_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ft_net *fn = ft_net(sock_net(skb->sk));
	long idx = 0, start = cb->args[0];
	struct ft_dev *fd;
	int err;

	err = ft_nl_dump_no_attrs(cb);
	if (err)
		return err;

	rtnl_lock();
	list_for_each_entry(fd, &fn->devs, list) {
		if (idx++ < start)
			continue;
		err = ft_nl_fill_dev(skb, fd, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			idx--;
			break;
		}
	}
	rtnl_unlock();
	cb->args[0] = idx;
	return ft_nl_dump_ret(skb, err);
}

static int ft_nl_put_counters(struct sk_buff *msg, const u64 *val)
{
	int i;

	for (i = 0; i < FT_STAT_NUM; i++)
		if (nla_put_u64_64bit(msg, ft_stat_attr[i], val[i],
				      FASTTRACK_A_STAT_PAD))
			return -EMSGSIZE;
	return 0;
}

static int ft_nl_put_stats(struct sk_buff *msg, struct ft_net *fn)
{
	u64 val[FT_STAT_NUM];
	struct nlattr *nest;

	ft_stats_read(fn, val);
	nest = nla_nest_start(msg, FASTTRACK_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, FASTTRACK_A_STAT_FLOWS,
			      atomic_read(&fn->nflows), FASTTRACK_A_STAT_PAD) ||
	    ft_nl_put_counters(msg, val)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ft_nl_put_stats_percpu(struct sk_buff *msg, struct ft_net *fn)
{
	u64 val[FT_STAT_NUM];
	struct nlattr *nest;
	int cpu;

	if (ft_nl_put_stats(msg, fn))
		return -EMSGSIZE;
	for_each_possible_cpu(cpu) {
		ft_stats_read_cpu(fn, cpu, val);
		nest = nla_nest_start(msg, FASTTRACK_A_STATS_CPU);
		if (!nest)
			return -EMSGSIZE;
		if (nla_put_u32(msg, FASTTRACK_A_STAT_CPU, cpu) ||
		    ft_nl_put_counters(msg, val)) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(msg, nest);
	}
	return 0;
}

static int ft_nl_put_config(struct sk_buff *msg, struct ft_net *fn)
{
	const struct ft_config *cfg = &fn->cfg;

	if (nla_put_u32(msg, FASTTRACK_A_CFG_MAX_FLOWS, READ_ONCE(cfg->max_flows)) ||
	    nla_put_u32(msg, FASTTRACK_A_CFG_TCP_TIMEOUT, READ_ONCE(cfg->tcp_timeout)) ||
	    nla_put_u32(msg, FASTTRACK_A_CFG_UDP_TIMEOUT, READ_ONCE(cfg->udp_timeout)) ||
	    nla_put_u32(msg, FASTTRACK_A_CFG_SKIP_MARK, READ_ONCE(cfg->skip_mark)) ||
	    nla_put_u32(msg, FASTTRACK_A_CFG_SKIP_MASK, READ_ONCE(cfg->skip_mask)))
		return -EMSGSIZE;
	return 0;
}

/* Reply to a get request with what @put writes. */
static int ft_nl_reply(struct genl_info *info, u8 cmd,
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

static int ft_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	return ft_nl_reply(info, FASTTRACK_CMD_STATS_GET,
			   info->attrs[FASTTRACK_A_STATS_PERCPU] ?
			   ft_nl_put_stats_percpu : ft_nl_put_stats);
}

/*
 * One message per possible CPU: FASTTRACK_A_CPU and that CPU's counters.
 * cb->args[0]: the next CPU to send.
 */
static int ft_nl_stats_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ft_net *fn = ft_net(sock_net(skb->sk));
	u64 val[FT_STAT_NUM];
	struct nlattr *nest;
	int cpu, err;
	void *hdr;

	err = ft_nl_dump_no_attrs(cb);
	if (err)
		return err;

	for (cpu = cb->args[0]; cpu < nr_cpu_ids;
	     cpu = cpumask_next(cpu, cpu_possible_mask)) {
		if (!cpu_possible(cpu))
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ft_genl_family,
				  NLM_F_MULTI, FASTTRACK_CMD_STATS_GET);
		if (!hdr)
			goto full;
		ft_stats_read_cpu(fn, cpu, val);
		if (nla_put_u32(skb, FASTTRACK_A_CPU, cpu))
			goto cancel;
		nest = nla_nest_start(skb, FASTTRACK_A_STATS);
		if (!nest)
			goto cancel;
		if (ft_nl_put_counters(skb, val)) {
			nla_nest_cancel(skb, nest);
			goto cancel;
		}
		nla_nest_end(skb, nest);
		genlmsg_end(skb, hdr);
		cb->args[0] = cpu + 1;
	}
	return skb->len;
cancel:
	genlmsg_cancel(skb, hdr);
full:
	return ft_nl_dump_ret(skb, -EMSGSIZE);
}

static int ft_nl_config_get(struct sk_buff *skb, struct genl_info *info)
{
	return ft_nl_reply(info, FASTTRACK_CMD_CONFIG_GET, ft_nl_put_config);
}

/* The policy checked each value's range; the marks must agree as a pair. */
static int ft_nl_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_net *fn = ft_net(genl_info_net(info));
	struct nlattr **attrs = info->attrs;
	struct ft_config *cfg = &fn->cfg;
	u32 mark, mask;

	mutex_lock(&fn->lock);
	mark = attrs[FASTTRACK_A_CFG_SKIP_MARK] ?
	       nla_get_u32(attrs[FASTTRACK_A_CFG_SKIP_MARK]) : cfg->skip_mark;
	mask = attrs[FASTTRACK_A_CFG_SKIP_MASK] ?
	       nla_get_u32(attrs[FASTTRACK_A_CFG_SKIP_MASK]) : cfg->skip_mask;
	if (mark & ~mask) {
		mutex_unlock(&fn->lock);
		NL_SET_ERR_MSG_ATTR(info->extack,
				    attrs[FASTTRACK_A_CFG_SKIP_MARK] ?:
				    attrs[FASTTRACK_A_CFG_SKIP_MASK],
				    "skip-mark has bits outside skip-mask, so it could never match");
		return -EINVAL;
	}
	if (attrs[FASTTRACK_A_CFG_MAX_FLOWS])
		WRITE_ONCE(cfg->max_flows,
			   nla_get_u32(attrs[FASTTRACK_A_CFG_MAX_FLOWS]));
	if (attrs[FASTTRACK_A_CFG_TCP_TIMEOUT])
		WRITE_ONCE(cfg->tcp_timeout,
			   nla_get_u32(attrs[FASTTRACK_A_CFG_TCP_TIMEOUT]));
	if (attrs[FASTTRACK_A_CFG_UDP_TIMEOUT])
		WRITE_ONCE(cfg->udp_timeout,
			   nla_get_u32(attrs[FASTTRACK_A_CFG_UDP_TIMEOUT]));
	WRITE_ONCE(cfg->skip_mark, mark);
	WRITE_ONCE(cfg->skip_mask, mask);
	mutex_unlock(&fn->lock);
	return 0;
}

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

static int ft_nl_flow_dump(struct sk_buff *skb, struct netlink_callback *cb)
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

static int ft_nl_flush(struct sk_buff *skb, struct genl_info *info)
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

/*
 * Full ops, for their per-command policy, on every kernel: split ops (6.2)
 * would let a dump have its own, which ft_nl_dump_parse() does instead.
 */
static const struct genl_ops ft_genl_ops[] = {
	{
		.cmd		= FASTTRACK_CMD_DEV_ENABLE,
		.doit		= ft_nl_dev_enable,
		.policy		= fasttrack_dev_enable_nl_policy,
		.maxattr	= FASTTRACK_A_FAMILIES,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= FASTTRACK_CMD_DEV_DISABLE,
		.doit		= ft_nl_dev_disable,
		.policy		= fasttrack_dev_disable_nl_policy,
		.maxattr	= FASTTRACK_A_FAMILIES,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= FASTTRACK_CMD_DEV_GET,
		.doit		= ft_nl_dev_get,
		.dumpit		= ft_nl_dev_dump,
		.policy		= fasttrack_dev_get_nl_policy,
		.maxattr	= FASTTRACK_A_IFNAME,
	},
	{
		.cmd		= FASTTRACK_CMD_STATS_GET,
		.doit		= ft_nl_stats_get,
		.dumpit		= ft_nl_stats_dump,
		.policy		= fasttrack_stats_get_nl_policy,
		.maxattr	= FASTTRACK_A_STATS_PERCPU,
	},
	{
		.cmd		= FASTTRACK_CMD_CONFIG_GET,
		.doit		= ft_nl_config_get,
		.policy		= ft_nl_reject_all_policy,
		.maxattr	= FASTTRACK_A_PAD,
	},
	{
		.cmd		= FASTTRACK_CMD_CONFIG_SET,
		.doit		= ft_nl_config_set,
		.policy		= fasttrack_config_set_nl_policy,
		.maxattr	= FASTTRACK_A_CFG_SKIP_MASK,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= FASTTRACK_CMD_FLOW_GET,
		.dumpit		= ft_nl_flow_dump,
		.policy		= fasttrack_flow_get_nl_policy,
		.maxattr	= FASTTRACK_A_MATCH,
		/* Reveals connections, as conntrack -L does. */
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= FASTTRACK_CMD_FLUSH,
		.doit		= ft_nl_flush,
		.policy		= fasttrack_flush_nl_policy,
		.maxattr	= FASTTRACK_A_MATCH,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= FASTTRACK_CMD_RULE_ADD,
		.doit		= ft_nl_rule_add,
		.policy		= fasttrack_rule_add_nl_policy,
		.maxattr	= FASTTRACK_A_FAMILIES,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= FASTTRACK_CMD_RULE_DEL,
		.doit		= ft_nl_rule_del,
		.policy		= fasttrack_rule_del_nl_policy,
		.maxattr	= FASTTRACK_A_FAMILIES,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= FASTTRACK_CMD_RULE_GET,
		.dumpit		= ft_nl_rule_dump,
		.policy		= ft_nl_reject_all_policy,
		.maxattr	= FASTTRACK_A_PAD,
	},
};

static struct genl_family ft_genl_family __ro_after_init = {
	.name		= FASTTRACK_FAMILY_NAME,
	.version	= FASTTRACK_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= ft_genl_ops,
	.n_ops		= ARRAY_SIZE(ft_genl_ops),
	.mcgrps		= ft_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(ft_mcgrps),
#ifdef FT_HAVE_GENL_RESV_START_OP
	/* The reserved header field is 0 in every command. */
	.resv_start_op	= FASTTRACK_CMD_DEV_ENABLE,
#endif
};

static struct notifier_block ft_nl_flow_nb = {
	.notifier_call = ft_nl_flow_event,
};

int ft_genl_init(void)
{
	int err;

	err = genl_register_family(&ft_genl_family);
	if (err)
		return err;
	err = ft_flow_notifier_register(&ft_nl_flow_nb);
	if (err)
		genl_unregister_family(&ft_genl_family);
	return err;
}

/*
 * Events are sent from hooks and walks that outlive the family at module
 * exit; once the notifier is gone (a grace period), none uses its groups.
 */
void ft_genl_exit(void)
{
	ft_flow_notifier_unregister(&ft_nl_flow_nb);
	genl_unregister_family(&ft_genl_family);
}
