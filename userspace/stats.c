// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: the namespace's counters (FASTTRACK_CMD_STATS_GET): what each one
 * is called, and reading them, in all or per CPU.
 *
 * Every counter is one row of ft_stat_groups[] below: a new kernel counter
 * is added there and nowhere else. A counter the kernel does not send (an
 * older module) is left with have[] false; attributes this ftctl does not
 * know (a newer module) are ignored.
 *
 * Each CPU's counters come from the STATS_GET dump (one message per CPU),
 * or from an older module's FASTTRACK_A_STATS_PERCPU reply.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fasttrack.h>

#include "nl.h"
#include "print.h"
#include "state.h"
#include "stats.h"

static const struct stat_desc flow_stats[] = {
	{ FASTTRACK_A_STAT_FLOWS,	"flows",	"cached", NULL },
	{ FASTTRACK_A_STAT_LEARNED,	"learned",	"learned", NULL },
	{ FASTTRACK_A_STAT_TABLE_FULL,	"table_full",	"table-full", NULL },
	{ FASTTRACK_A_STAT_EXPIRED,	"expired",	"expired", NULL },
	{ FASTTRACK_A_STAT_TORN_DOWN,	"torn_down",	"torn-down", NULL },
	{ FASTTRACK_A_STAT_CT_GONE,	"ct_gone",	"ct-gone", NULL },
	{ FASTTRACK_A_STAT_INVALIDATED,	"invalidated",	"invalidated", NULL },
	{ FASTTRACK_A_STAT_ROUTE_CHANGED, "route_changed", "route-changed", NULL },
	{ FASTTRACK_A_STAT_NEIGH_CHANGED, "neigh_changed", "neigh-changed", NULL },
	{ FASTTRACK_A_STAT_FLUSHED,	"flushed",	"flushed", NULL },
	{ FASTTRACK_A_STAT_RULESET_CHANGED, "ruleset_changed", "ruleset-changed", NULL },
	{ FASTTRACK_A_STAT_ROUTE_REVALIDATED, "route_revalidated", "route-revalidated", NULL },
	{ FASTTRACK_A_STAT_RULE_SKIPPED, "rule_skipped", "rule-skipped", NULL },
	{ 0, NULL, NULL, NULL }
};

static const struct stat_desc forwarded_stats[] = {
	{ FASTTRACK_A_STAT_FORWARDED_PKTS, "packets", "packets", "fwd-packets" },
	{ FASTTRACK_A_STAT_FORWARDED_BYTES, "bytes", "bytes", "fwd-bytes" },
	{ 0, NULL, NULL, NULL }
};

const struct stat_desc ft_punted_stats[] = {
	{ FASTTRACK_A_STAT_PUNT_NO_ENTRY,	"no_entry",	"no-entry", NULL },
	{ FASTTRACK_A_STAT_PUNT_FRAGMENT,	"fragment",	"fragment", NULL },
	{ FASTTRACK_A_STAT_PUNT_OPTIONS,	"options",	"options", NULL },
	{ FASTTRACK_A_STAT_PUNT_TTL,		"ttl",		"ttl", NULL },
	{ FASTTRACK_A_STAT_PUNT_MTU,		"mtu",		"mtu", NULL },
	{ FASTTRACK_A_STAT_PUNT_TCP_FLAGS,	"tcp_flags",	"tcp-flags", NULL },
	{ FASTTRACK_A_STAT_PUNT_NOT_WRITABLE,	"not_writable",	"not-writable", NULL },
	{ FASTTRACK_A_STAT_PUNT_MALFORMED,	"malformed",	"malformed", NULL },
	{ FASTTRACK_A_STAT_PUNT_UNKNOWN,	"unknown",	"unknown", NULL },
	{ FASTTRACK_A_STAT_PUNT_STALE,		"stale",	"stale", NULL },
	{ FASTTRACK_A_STAT_PUNT_NOT_FORWARDING,	"not_forwarding", "not-forwarding", NULL },
	{ FASTTRACK_A_STAT_PUNT_PORT,		"port",		"port", NULL },
	{ 0, NULL, NULL, NULL }
};

/* Packets of connections the module did not learn, by reason. */
static const struct stat_desc not_learned_stats[] = {
	{ FASTTRACK_A_STAT_NOLEARN_ZONE,	"zone",		"zone", NULL },
	{ FASTTRACK_A_STAT_NOLEARN_HELPER,	"helper",	"helper", NULL },
	{ FASTTRACK_A_STAT_NOLEARN_FLOWTABLE,	"flowtable",	"flowtable", NULL },
	{ FASTTRACK_A_STAT_NOLEARN_LWTUNNEL,	"lwtunnel",	"lwtunnel", NULL },
	{ FASTTRACK_A_STAT_NOLEARN_VRF,		"vrf",		"vrf", NULL },
	{ FASTTRACK_A_STAT_NOLEARN_XFRM,	"xfrm",		"xfrm", NULL },
	{ FASTTRACK_A_STAT_NOLEARN_EGRESS_DEV,	"egress_dev",	"egress-dev", NULL },
	{ FASTTRACK_A_STAT_NOLEARN_NO_NEIGH,	"no_neigh",	"no-neigh", NULL },
	{ FASTTRACK_A_STAT_NOLEARN_RACED,	"raced",	"raced", NULL },
	{ FASTTRACK_A_STAT_NOLEARN_MANGLED,	"mangled",	"mangled", NULL },
	{ FASTTRACK_A_STAT_NOLEARN_UNTRACKED,	"untracked",	"untracked", NULL },
	{ 0, NULL, NULL, NULL }
};

/* The XDP tier's: packets it passed up for something it would bypass. */
static const struct stat_desc xdp_stats[] = {
	{ FASTTRACK_A_STAT_XDP_BYPASSED,	"bypassed",	"bypassed", "xdp-bypassed" },
	{ 0, NULL, NULL, NULL }
};

const struct stat_group ft_stat_groups[] = {
	{ NULL,		"flows",	flow_stats },
	{ "forwarded",	"forwarded",	forwarded_stats },
	{ "punted",	"punted",	ft_punted_stats },
	{ "not_learned", "not-learned",	not_learned_stats },
	{ "xdp",	"xdp",		xdp_stats },
	{ NULL, NULL, NULL }
};

static int stat_attr_cb(const struct nlattr *attr, void *data)
{
	uint16_t type = mnl_attr_get_type(attr);
	struct stats *st = data;

	/* STAT_CPU is the key of a per-CPU nest, not a counter. */
	if (!nl_attr_known(attr, FASTTRACK_A_STAT_MAX) ||
	    type == FASTTRACK_A_STAT_PAD || type == FASTTRACK_A_STAT_CPU)
		return MNL_CB_OK;
	if (!nl_attr_is_uint(attr))
		return nl_bad_reply();
	st->val[type] = nl_attr_get_uint(attr);
	st->have[type] = true;
	return MNL_CB_OK;
}

static int cpu_attr_cb(const struct nlattr *attr, void *data)
{
	struct cpu_stats *c = data;

	if (mnl_attr_get_type(attr) != FASTTRACK_A_STAT_CPU)
		return stat_attr_cb(attr, &c->st);
	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return nl_bad_reply();
	c->cpu = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

/* A zeroed slot for the next CPU, or NULL; ncpus counts it once filled. */
static struct cpu_stats *next_cpu(struct stats_reply *r)
{
	struct cpu_stats *c;

	if (r->ncpus == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;

		c = realloc(r->cpus, cap * sizeof(*c));
		if (!c) {
			errno = ENOMEM;
			return NULL;
		}
		r->cpus = c;
		r->cap = cap;
	}
	c = &r->cpus[r->ncpus];
	memset(c, 0, sizeof(*c));
	/* Without a CPU attribute, the position is the CPU. */
	c->cpu = (uint32_t)r->ncpus;
	return c;
}

/* A FASTTRACK_A_STATS_CPU nest of an older module's reply. */
static int add_cpu(struct stats_reply *r, const struct nlattr *attr)
{
	struct cpu_stats *c = next_cpu(r);

	if (!c)
		return MNL_CB_ERROR;
	if (mnl_attr_parse_nested(attr, cpu_attr_cb, c) < 0)
		return MNL_CB_ERROR;
	r->ncpus++;
	return MNL_CB_OK;
}

/* A message of the STATS_GET dump: FASTTRACK_A_CPU and its counters. */
static int cpu_msg_attr_cb(const struct nlattr *attr, void *data)
{
	struct cpu_stats *c = data;

	switch (mnl_attr_get_type(attr)) {
	case FASTTRACK_A_CPU:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return nl_bad_reply();
		c->cpu = mnl_attr_get_u32(attr);
		break;
	case FASTTRACK_A_STATS:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return nl_bad_reply();
		if (mnl_attr_parse_nested(attr, stat_attr_cb, &c->st) < 0)
			return MNL_CB_ERROR;
		break;
	}
	return MNL_CB_OK;
}

static int cpu_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct stats_reply *r = data;
	struct cpu_stats *c = next_cpu(r);

	if (!c || nl_parse(nlh, cpu_msg_attr_cb, c) < 0)
		return MNL_CB_ERROR;
	r->ncpus++;
	return MNL_CB_OK;
}

static void cpu_dump_reset(void *data)
{
	((struct stats_reply *)data)->ncpus = 0;
}

static int stats_attr_cb(const struct nlattr *attr, void *data)
{
	struct stats_reply *r = data;

	switch (mnl_attr_get_type(attr)) {
	case FASTTRACK_A_STATS:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return nl_bad_reply();
		if (mnl_attr_parse_nested(attr, stat_attr_cb, &r->total) < 0)
			return MNL_CB_ERROR;
		break;
	case FASTTRACK_A_STATS_CPU:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return nl_bad_reply();
		return add_cpu(r, attr);
	}
	return MNL_CB_OK;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nl_parse(nlh, stats_attr_cb, data) < 0)
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

int ft_stats_parse(const struct nlattr *nest, struct stats *st)
{
	if (mnl_attr_validate(nest, MNL_TYPE_NESTED) < 0)
		return nl_bad_reply();
	return mnl_attr_parse_nested(nest, stat_attr_cb, st) < 0 ?
	       MNL_CB_ERROR : MNL_CB_OK;
}

int ft_stats_reply_read(struct ftctl *ft, struct stats_reply *r)
{
	struct nlmsghdr *nlh;

	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_STATS_GET, 0);
	return nl_request(&ft->nl, nlh, stats_cb, r);
}

int ft_stats_read(struct ftctl *ft, struct stats *st)
{
	struct stats_reply r = { 0 };
	int ret;

	ret = ft_stats_reply_read(ft, &r);
	*st = r.total;
	free(r.cpus);
	return ret;
}

int ft_stats_cpus_read(struct ftctl *ft, struct stats_reply *r)
{
	struct nlmsghdr *nlh;
	int ret;

	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_STATS_GET, 0);
	ret = nl_dump(&ft->nl, nlh, cpu_dump_cb, cpu_dump_reset, r);
	if (ret != -EOPNOTSUPP || !ft->nl.kernel_err)
		return ret;

	r->ncpus = 0;
	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_STATS_GET, 0);
	mnl_attr_put(nlh, FASTTRACK_A_STATS_PERCPU, 0, NULL);
	ret = nl_request(&ft->nl, nlh, stats_cb, r);
	/* An even older module rejects the attribute it does not know. */
	if ((!ret && !r->ncpus) ||
	    (ret && ft->nl.kernel_err && (ret == -EINVAL || ret == -EOPNOTSUPP) &&
	     (nl_blamed_attr(&ft->nl) == FASTTRACK_A_STATS_PERCPU ||
	      !ft->nl.has_ext_offs))) {
		ft_err("this fasttrack module does not support per-CPU statistics (upgrade the module)");
		return FT_ERR;
	}
	return ret;
}
