// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl stats: the global counters of the namespace.
 *
 * Every counter is one row of stat_groups[] below: a new kernel counter is
 * added there and nowhere else. Counters the kernel does not send (an older
 * module) are left out of the output; attributes this ftctl does not know
 * (a newer module) are ignored.
 *
 * With -s, each CPU's counters are read too, from the STATS_GET dump (one
 * message per CPU), or from an older module's FASTTRACK_A_STATS_PERCPU
 * reply; they are printed as a table with one row per CPU, or as "per_cpu"
 * in JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fasttrack.h>

#include "commands.h"
#include "json.h"
#include "print.h"
#include "session.h"
#include "state.h"
#include "stats.h"

struct stat_group {
	const char *json;	/* JSON object, or NULL: top level */
	const char *title;	/* human group heading */
	const struct stat_desc *stats;
};

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
	{ 0, NULL, NULL, NULL }
};

static const struct stat_group stat_groups[] = {
	{ NULL,		"flows",	flow_stats },
	{ "forwarded",	"forwarded",	forwarded_stats },
	{ "punted",	"punted",	ft_punted_stats },
	{ "not_learned", "not-learned",	not_learned_stats },
	{ NULL, NULL, NULL }
};

struct cpu_stats {
	uint32_t cpu;
	struct stats st;
};

struct stats_reply {
	struct stats total;
	struct cpu_stats *cpus;	/* in kernel order */
	size_t ncpus, cap;
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

int ft_stats_read(struct ftctl *ft, struct stats *st)
{
	struct stats_reply r = { 0 };
	struct nlmsghdr *nlh;
	int ret;

	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_STATS_GET, 0);
	ret = nl_request(&ft->nl, nlh, stats_cb, &r);
	*st = r.total;
	free(r.cpus);
	return ret;
}

static bool group_present(const struct stat_group *g, const struct stats *st)
{
	const struct stat_desc *s;

	for (s = g->stats; s->attr; s++)
		if (st->have[s->attr])
			return true;
	return false;
}

/*
 * The members of a stats object: top-level counters, then the groups; a
 * group of which the module sent nothing (an older module) is left out.
 */
static void json_stats(struct json *j, const struct stats *st)
{
	const struct stat_group *g;
	const struct stat_desc *s;

	for (g = stat_groups; g->stats; g++) {
		if (!group_present(g, st))
			continue;
		if (g->json)
			json_obj_open(j, g->json);
		for (s = g->stats; s->attr; s++)
			if (st->have[s->attr])
				json_u64(j, s->json, st->val[s->attr]);
		if (g->json)
			json_obj_close(j);
	}
}

static void print_json(const struct ftctl *ft, const struct stats_reply *r,
		       bool per_cpu)
{
	struct json j;
	size_t i;

	json_init(&j, stdout, ft->tty);
	json_obj_open(&j, NULL);
	json_u64(&j, "json_schema_version", FT_JSON_SCHEMA_VERSION);
	json_stats(&j, &r->total);
	if (per_cpu) {
		json_arr_open(&j, "per_cpu");
		for (i = 0; i < r->ncpus; i++) {
			json_obj_open(&j, NULL);
			json_u64(&j, "cpu", r->cpus[i].cpu);
			json_stats(&j, &r->cpus[i].st);
			json_obj_close(&j);
		}
		json_arr_close(&j);
	}
	json_obj_close(&j);
	json_end(&j);
}

/*
 * flows:
 *   cached 12
 *   ...
 * forwarded:
 *   packets 1000
 *
 * On a terminal, labels are padded and numbers right-aligned.
 */
static void print_human(const struct ftctl *ft, const struct stats *st)
{
	const struct stat_group *g;
	const struct stat_desc *s;
	int lw = 0, vw = 0;

	/* Widths of the rows printed: an older module's have their own. */
	for (g = stat_groups; ft->tty && g->stats; g++) {
		for (s = g->stats; s->attr; s++) {
			char num[24];
			int len = (int)strlen(s->label);

			if (!st->have[s->attr])
				continue;
			if (len > lw)
				lw = len;
			len = snprintf(num, sizeof(num), "%" PRIu64, st->val[s->attr]);
			if (len > vw)
				vw = len;
		}
	}

	for (g = stat_groups; g->stats; g++) {
		if (!group_present(g, st))
			continue;
		printf("%s%s:%s\n", ft_color(ft, FT_C_BOLD), g->title,
		       ft_color(ft, FT_C_RESET));
		for (s = g->stats; s->attr; s++)
			if (st->have[s->attr])
				printf("  %-*s %*" PRIu64 "\n", lw, s->label,
				       vw, st->val[s->attr]);
	}
}

static const char *column_name(const struct stat_desc *s)
{
	return s->column ? s->column : s->label;
}

static int uint_width(uint64_t v)
{
	char num[24];

	return snprintf(num, sizeof(num), "%" PRIu64, v);
}

/* Whether the module sent @attr, in the totals or for any CPU. */
static bool sent(const struct stats_reply *r, uint16_t attr)
{
	size_t i;

	if (r->total.have[attr])
		return true;
	for (i = 0; i < r->ncpus; i++)
		if (r->cpus[i].st.have[attr])
			return true;
	return false;
}

/*
 * The counters of the per-CPU table: those the module sent, but FLOWS,
 * which is not per CPU.
 */
static const struct stat_desc *per_cpu_cols[FASTTRACK_A_STAT_MAX + 1];

static unsigned int list_columns(const struct stats_reply *r)
{
	const struct stat_group *g;
	const struct stat_desc *s;
	unsigned int n = 0;

	for (g = stat_groups; g->stats; g++)
		for (s = g->stats; s->attr; s++)
			if (s->attr != FASTTRACK_A_STAT_FLOWS && sent(r, s->attr))
				per_cpu_cols[n++] = s;
	return n;
}

/*
 * per-cpu:
 *   cpu learned table-full ... stale
 *   0 12 0 ... 3
 *
 * One row per CPU, one column per counter the kernel sent ("-" for a CPU
 * it did not send it for). On a terminal the columns are right-aligned.
 */
static void print_per_cpu(const struct ftctl *ft, const struct stats_reply *r)
{
	int width[FASTTRACK_A_STAT_MAX + 1] = { 0 };
	unsigned int ncols = list_columns(r), c;
	int cw = 0;
	size_t i;

	if (ft->tty) {
		cw = 3;
		for (c = 0; c < ncols; c++)
			width[c] = (int)strlen(column_name(per_cpu_cols[c]));
		for (i = 0; i < r->ncpus; i++) {
			const struct stats *st = &r->cpus[i].st;

			if (uint_width(r->cpus[i].cpu) > cw)
				cw = uint_width(r->cpus[i].cpu);
			for (c = 0; c < ncols; c++)
				if (uint_width(st->val[per_cpu_cols[c]->attr]) > width[c])
					width[c] = uint_width(st->val[per_cpu_cols[c]->attr]);
		}
	}

	printf("%sper-cpu:%s\n  %*s", ft_color(ft, FT_C_BOLD),
	       ft_color(ft, FT_C_RESET), cw, "cpu");
	for (c = 0; c < ncols; c++)
		printf(" %*s", width[c], column_name(per_cpu_cols[c]));
	putchar('\n');

	for (i = 0; i < r->ncpus; i++) {
		const struct stats *st = &r->cpus[i].st;

		printf("  %*" PRIu32, cw, r->cpus[i].cpu);
		for (c = 0; c < ncols; c++) {
			uint16_t attr = per_cpu_cols[c]->attr;

			if (st->have[attr])
				printf(" %*" PRIu64, width[c], st->val[attr]);
			else
				printf(" %*s", width[c], "-");
		}
		putchar('\n');
	}
}

/*
 * Each CPU's counters: the dump, or on a module older than it, the reply
 * to FASTTRACK_A_STATS_PERCPU. Returns 0, FT_ERR (said) or -errno.
 */
static int read_per_cpu(struct ftctl *ft, struct stats_reply *r)
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

int cmd_stats(struct ftctl *ft, int argc, char **argv)
{
	struct stats_reply r = { 0 };
	struct nlmsghdr *nlh;
	bool per_cpu = false;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "--per-cpu"))
			per_cpu = true;
		else
			return ft_usage(ft, "unexpected argument '%s'", argv[i]);
	}

	ret = ft_connect(ft);
	if (ret)
		return ret;

	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_STATS_GET, 0);
	ret = nl_request(&ft->nl, nlh, stats_cb, &r);
	if (!ret && per_cpu)
		ret = read_per_cpu(ft, &r);
	if (ret) {
		if (ret != FT_ERR)
			ret = ft_request_error(ft, ret, NULL, NULL);
		goto out;
	}

	if (ft->json) {
		print_json(ft, &r, per_cpu);
	} else {
		print_human(ft, &r.total);
		if (per_cpu)
			print_per_cpu(ft, &r);
	}
	ret = FT_OK;
out:
	free(r.cpus);
	return ret;
}
