// SPDX-License-Identifier: GPL-2.0
/*
 * Request policies, one per command. The checks come from the spec,
 * Documentation/netlink/specs/fasttrack.yaml: selftests/ynl/check-spec.py
 * fails unless each table below reads as ynl-gen-c.py generates it. They
 * are kept by hand because the generated ops table needs split ops (6.2),
 * and 5.10 and 6.1 must build.
 */
#include "nl_policy.h"

/*
 * Integer value ranges. Not const as generated: the policy of 5.10 and 6.1
 * points at them without const. Read-only after init all the same.
 */
static struct netlink_range_validation fasttrack_a_cfg_max_flows_range __ro_after_init = {
	.min	= 1ULL,
	.max	= FASTTRACK_MAX_FLOWS_LIMIT,
};

static struct netlink_range_validation fasttrack_a_cfg_tcp_timeout_range __ro_after_init = {
	.min	= 1ULL,
	.max	= FASTTRACK_TIMEOUT_LIMIT,
};

static struct netlink_range_validation fasttrack_a_cfg_udp_timeout_range __ro_after_init = {
	.min	= 1ULL,
	.max	= FASTTRACK_TIMEOUT_LIMIT,
};

/* Common nested types */
const struct nla_policy fasttrack_flow_match_nl_policy[FASTTRACK_A_FLOW_DPORT + 1] = {
	[FASTTRACK_A_FLOW_PROTO] = { .type = NLA_U8, },
	[FASTTRACK_A_FLOW_SRC] = { .type = NLA_BINARY, },
	[FASTTRACK_A_FLOW_DST] = { .type = NLA_BINARY, },
	[FASTTRACK_A_FLOW_SPORT] = { .type = NLA_U16, },
	[FASTTRACK_A_FLOW_DPORT] = { .type = NLA_U16, },
};

/* FASTTRACK_CMD_DEV_ENABLE - do */
const struct nla_policy fasttrack_dev_enable_nl_policy[FASTTRACK_A_FAMILIES + 1] = {
	[FASTTRACK_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[FASTTRACK_A_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[FASTTRACK_A_FAMILIES] = NLA_POLICY_MASK(NLA_U32, 0x3),
};

/* FASTTRACK_CMD_DEV_DISABLE - do */
const struct nla_policy fasttrack_dev_disable_nl_policy[FASTTRACK_A_FAMILIES + 1] = {
	[FASTTRACK_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[FASTTRACK_A_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[FASTTRACK_A_FAMILIES] = NLA_POLICY_MASK(NLA_U32, 0x3),
};

/* FASTTRACK_CMD_DEV_GET - do */
const struct nla_policy fasttrack_dev_get_nl_policy[FASTTRACK_A_IFNAME + 1] = {
	[FASTTRACK_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[FASTTRACK_A_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
};

/* FASTTRACK_CMD_STATS_GET - do */
const struct nla_policy fasttrack_stats_get_nl_policy[FASTTRACK_A_STATS_PERCPU + 1] = {
	[FASTTRACK_A_STATS_PERCPU] = { .type = NLA_FLAG, },
};

/* FASTTRACK_CMD_CONFIG_SET - do */
const struct nla_policy fasttrack_config_set_nl_policy[FASTTRACK_A_CFG_SKIP_MASK + 1] = {
	[FASTTRACK_A_CFG_MAX_FLOWS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &fasttrack_a_cfg_max_flows_range),
	[FASTTRACK_A_CFG_TCP_TIMEOUT] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &fasttrack_a_cfg_tcp_timeout_range),
	[FASTTRACK_A_CFG_UDP_TIMEOUT] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &fasttrack_a_cfg_udp_timeout_range),
	[FASTTRACK_A_CFG_SKIP_MARK] = { .type = NLA_U32, },
	[FASTTRACK_A_CFG_SKIP_MASK] = { .type = NLA_U32, },
};

/* FASTTRACK_CMD_FLOW_GET - dump */
const struct nla_policy fasttrack_flow_get_nl_policy[FASTTRACK_A_MATCH + 1] = {
	[FASTTRACK_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[FASTTRACK_A_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[FASTTRACK_A_FAMILIES] = NLA_POLICY_MASK(NLA_U32, 0x3),
	[FASTTRACK_A_MATCH] = NLA_POLICY_NESTED(fasttrack_flow_match_nl_policy),
};

/* FASTTRACK_CMD_FLUSH - do */
const struct nla_policy fasttrack_flush_nl_policy[FASTTRACK_A_MATCH + 1] = {
	[FASTTRACK_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[FASTTRACK_A_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[FASTTRACK_A_FAMILIES] = NLA_POLICY_MASK(NLA_U32, 0x3),
	[FASTTRACK_A_MATCH] = NLA_POLICY_NESTED(fasttrack_flow_match_nl_policy),
};

/* FASTTRACK_CMD_RULE_ADD - do */
const struct nla_policy fasttrack_rule_add_nl_policy[FASTTRACK_A_FAMILIES + 1] = {
	[FASTTRACK_A_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[FASTTRACK_A_FAMILIES] = NLA_POLICY_MASK(NLA_U32, 0x3),
};

/* FASTTRACK_CMD_RULE_DEL - do */
const struct nla_policy fasttrack_rule_del_nl_policy[FASTTRACK_A_FAMILIES + 1] = {
	[FASTTRACK_A_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[FASTTRACK_A_FAMILIES] = NLA_POLICY_MASK(NLA_U32, 0x3),
};

const struct nla_policy ft_nl_reject_all_policy[FASTTRACK_A_PAD + 1] = {
	[FASTTRACK_A_UNSPEC] = { .type = NLA_REJECT },
	[FASTTRACK_A_PAD] = { .type = NLA_REJECT },
};
