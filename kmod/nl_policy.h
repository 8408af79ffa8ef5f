/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The request policy of each command (nl_policy.c), as the kernel's
 * ynl-gen-c.py generates them from Documentation/netlink/specs/fasttrack.yaml.
 */
#ifndef _FT_NL_POLICY_H
#define _FT_NL_POLICY_H

#include <net/netlink.h>
#include <linux/fasttrack.h>

extern const struct nla_policy fasttrack_dev_enable_nl_policy[FASTTRACK_A_FAMILIES + 1];
extern const struct nla_policy fasttrack_dev_disable_nl_policy[FASTTRACK_A_FAMILIES + 1];
extern const struct nla_policy fasttrack_dev_get_nl_policy[FASTTRACK_A_IFNAME + 1];
extern const struct nla_policy fasttrack_stats_get_nl_policy[FASTTRACK_A_STATS_PERCPU + 1];
extern const struct nla_policy fasttrack_config_set_nl_policy[FASTTRACK_A_CFG_SKIP_MASK + 1];
extern const struct nla_policy fasttrack_flow_match_nl_policy[FASTTRACK_A_FLOW_DPORT + 1];
extern const struct nla_policy fasttrack_flow_get_nl_policy[FASTTRACK_A_MATCH + 1];
extern const struct nla_policy fasttrack_flush_nl_policy[FASTTRACK_A_MATCH + 1];
extern const struct nla_policy fasttrack_rule_add_nl_policy[FASTTRACK_A_FAMILIES + 1];
extern const struct nla_policy fasttrack_rule_del_nl_policy[FASTTRACK_A_FAMILIES + 1];

/*
 * For requests that take no attribute (config-get, the device and stats
 * dumps): what the kernel gives such commands itself from 6.1 on
 * (genl_policy_reject_all), so that older kernels reject them as well.
 */
extern const struct nla_policy ft_nl_reject_all_policy[FASTTRACK_A_PAD + 1];

#endif /* _FT_NL_POLICY_H */
