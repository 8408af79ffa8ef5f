// SPDX-License-Identifier: GPL-2.0
/*
 * The per-netns commands: the counters, whole or per CPU, and the
 * settings.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "fasttrack.h"
#include "nl.h"

static int ft_nl_put_counters(struct sk_buff *msg, const u64 *val)
{
	int i;

	for (i = 0; i < FT_STAT_NUM; i++)
		if (nla_put_u64_64bit(msg, ft_nl_stat_attr[i], val[i],
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

int ft_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	return ft_nl_reply(info, FASTTRACK_CMD_STATS_GET,
			   info->attrs[FASTTRACK_A_STATS_PERCPU] ?
			   ft_nl_put_stats_percpu : ft_nl_put_stats);
}

/*
 * One message per possible CPU: FASTTRACK_A_CPU and that CPU's counters.
 * cb->args[0]: the next CPU to send.
 */
int ft_nl_stats_dump(struct sk_buff *skb, struct netlink_callback *cb)
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

int ft_nl_config_get(struct sk_buff *skb, struct genl_info *info)
{
	return ft_nl_reply(info, FASTTRACK_CMD_CONFIG_GET, ft_nl_put_config);
}

/* The policy checked each value's range; the marks must agree as a pair. */
int ft_nl_config_set(struct sk_buff *skb, struct genl_info *info)
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
