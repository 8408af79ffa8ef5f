// SPDX-License-Identifier: GPL-2.0
/*
 * The device commands: enable, disable, get and dump devices with their
 * per-family counters, and the rules that enable devices by name. All
 * under RTNL.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "fasttrack.h"
#include "nl.h"

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

int ft_nl_dev_enable(struct sk_buff *skb, struct genl_info *info)
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

int ft_nl_dev_disable(struct sk_buff *skb, struct genl_info *info)
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

int ft_nl_rule_add(struct sk_buff *skb, struct genl_info *info)
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

int ft_nl_rule_del(struct sk_buff *skb, struct genl_info *info)
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
		if (nla_put_u64_64bit(msg, ft_nl_stat_attr[ft_punt_stat[i]],
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
	struct ft_dev_counts c;
	struct nlattr *nest;

	nest = nla_nest_start(msg, fam == FT_FAM_V4 ? FASTTRACK_A_DEV_IPV4 :
						      FASTTRACK_A_DEV_IPV6);
	if (!nest)
		return -EMSGSIZE;
	ft_dev_stats_read(fd, fam, &c);
	if (nla_put_u8(msg, FASTTRACK_A_DEVFAM_ENABLED,
		       !!(fd->families & ft_fam_flag(fam))) ||
	    nla_put_u64_64bit(msg, FASTTRACK_A_DEVFAM_PACKETS, c.packets,
			      FASTTRACK_A_DEVFAM_PAD) ||
	    nla_put_u64_64bit(msg, FASTTRACK_A_DEVFAM_BYTES, c.bytes,
			      FASTTRACK_A_DEVFAM_PAD) ||
	    ft_nl_put_punted(msg, fd, fam) ||
	    (ft_xdp_available() &&
	     (nla_put_u64_64bit(msg, FASTTRACK_A_DEVFAM_XDP_PACKETS,
				c.xdp_packets, FASTTRACK_A_DEVFAM_PAD) ||
	      nla_put_u64_64bit(msg, FASTTRACK_A_DEVFAM_XDP_BYTES,
				c.xdp_bytes, FASTTRACK_A_DEVFAM_PAD)))) {
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
	    ft_nl_put_family(msg, fd, FT_FAM_V6) ||
	    (ft_xdp_available() &&
	     nla_put_u32(msg, FASTTRACK_A_DEV_XDP_BLOCKED,
			 ft_xdp_dev_blocked(fd->dev)))) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

int ft_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
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

int ft_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb)
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
int ft_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
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
