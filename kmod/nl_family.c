// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family: its groups, its table of commands (each with
 * its policy, from nl_policy.c, and the privilege it needs), and its
 * registration with the flow notifier that feeds its events group.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "fasttrack.h"
#include "nl.h"
#include "nl_policy.h"

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

struct genl_family ft_genl_family __ro_after_init = {
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
