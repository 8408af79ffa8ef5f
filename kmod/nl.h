/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the generic netlink layer: the family (nl_family.c), the helpers
 * its commands share (netlink.c) and the commands (nl_dev.c, nl_stats.c,
 * nl_flow.c), which the family's table reaches.
 */
#ifndef _FT_NL_H
#define _FT_NL_H

#include <net/genetlink.h>

#include "fasttrack.h"

/* nl_family.c */
extern struct genl_family ft_genl_family;

/* netlink.c */
extern const u16 ft_nl_stat_attr[FT_STAT_NUM];
struct net_device *ft_nl_dev_lookup(struct net *net, struct nlattr **attrs,
				    struct netlink_ext_ack *extack);
struct net_device *ft_nl_dev(struct genl_info *info);
struct ft_dev *ft_nl_enabled_dev(struct ft_net *fn, struct genl_info *info);
int ft_nl_families(struct nlattr *attr, struct netlink_ext_ack *extack,
		   u8 *families);
int ft_nl_dump_parse(struct netlink_callback *cb,
		     const struct nla_policy *policy, int maxtype,
		     struct nlattr **attrs);
int ft_nl_dump_no_attrs(struct netlink_callback *cb);
int ft_nl_dump_ret(struct sk_buff *skb, int err);
int ft_nl_reply(struct genl_info *info, u8 cmd,
		int (*put)(struct sk_buff *msg, struct ft_net *fn));

/* nl_dev.c */
int ft_nl_dev_enable(struct sk_buff *skb, struct genl_info *info);
int ft_nl_dev_disable(struct sk_buff *skb, struct genl_info *info);
int ft_nl_dev_get(struct sk_buff *skb, struct genl_info *info);
int ft_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb);
int ft_nl_rule_add(struct sk_buff *skb, struct genl_info *info);
int ft_nl_rule_del(struct sk_buff *skb, struct genl_info *info);
int ft_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* nl_stats.c */
int ft_nl_stats_get(struct sk_buff *skb, struct genl_info *info);
int ft_nl_stats_dump(struct sk_buff *skb, struct netlink_callback *cb);
int ft_nl_config_get(struct sk_buff *skb, struct genl_info *info);
int ft_nl_config_set(struct sk_buff *skb, struct genl_info *info);

/* nl_flow.c */
extern struct notifier_block ft_nl_flow_nb;
int ft_nl_flow_dump(struct sk_buff *skb, struct netlink_callback *cb);
int ft_nl_flush(struct sk_buff *skb, struct genl_info *info);

#endif /* _FT_NL_H */
