// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl stats: the global counters of the namespace.
 *
 * Every counter is one row of stat_groups[] below: a new kernel counter is
 * added there and nowhere else. Counters the kernel does not send (an older
 * module) are left out of the output; attributes this ftctl does not know
 * (a newer module) are ignored.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/fasttrack.h>

#include "ftctl.h"
#include "json.h"
#include "print.h"

struct stat_desc {
	uint16_t attr;		/* FASTTRACK_A_STAT_* */
	const char *json;	/* JSON member name */
	const char *label;	/* human label */
};

struct stat_group {
	const char *json;	/* JSON object, or NULL: top level */
	const char *title;	/* human group heading */
	const struct stat_desc *stats;
};

static const struct stat_desc flow_stats[] = {
	{ FASTTRACK_A_STAT_FLOWS,	"flows",	"cached" },
	{ FASTTRACK_A_STAT_LEARNED,	"learned",	"learned" },
	{ FASTTRACK_A_STAT_TABLE_FULL,	"table_full",	"table-full" },
	{ FASTTRACK_A_STAT_EXPIRED,	"expired",	"expired" },
	{ FASTTRACK_A_STAT_TORN_DOWN,	"torn_down",	"torn-down" },
	{ FASTTRACK_A_STAT_CT_GONE,	"ct_gone",	"ct-gone" },
	{ FASTTRACK_A_STAT_INVALIDATED,	"invalidated",	"invalidated" },
	{ 0 }
};

static const struct stat_desc forwarded_stats[] = {
	{ FASTTRACK_A_STAT_FORWARDED_PKTS,	"packets",	"packets" },
	{ FASTTRACK_A_STAT_FORWARDED_BYTES,	"bytes",	"bytes" },
	{ 0 }
};

static const struct stat_desc punted_stats[] = {
	{ FASTTRACK_A_STAT_PUNT_NO_ENTRY,	"no_entry",	"no-entry" },
	{ FASTTRACK_A_STAT_PUNT_FRAGMENT,	"fragment",	"fragment" },
	{ FASTTRACK_A_STAT_PUNT_OPTIONS,	"options",	"options" },
	{ FASTTRACK_A_STAT_PUNT_TTL,		"ttl",		"ttl" },
	{ FASTTRACK_A_STAT_PUNT_MTU,		"mtu",		"mtu" },
	{ FASTTRACK_A_STAT_PUNT_TCP_FLAGS,	"tcp_flags",	"tcp-flags" },
	{ FASTTRACK_A_STAT_PUNT_NOT_WRITABLE,	"not_writable",	"not-writable" },
	{ FASTTRACK_A_STAT_PUNT_MALFORMED,	"malformed",	"malformed" },
	{ FASTTRACK_A_STAT_PUNT_UNKNOWN,	"unknown",	"unknown" },
	{ FASTTRACK_A_STAT_PUNT_STALE,		"stale",	"stale" },
	{ 0 }
};

static const struct stat_group stat_groups[] = {
	{ NULL,		"flows",	flow_stats },
	{ "forwarded",	"forwarded",	forwarded_stats },
	{ "punted",	"punted",	punted_stats },
	{ NULL, NULL, NULL }
};

struct stats {
	uint64_t val[FASTTRACK_A_STAT_MAX + 1];
	bool have[FASTTRACK_A_STAT_MAX + 1];
};

static int stat_attr_cb(const struct nlattr *attr, void *data)
{
	uint16_t type = mnl_attr_get_type(attr);
	struct stats *st = data;

	if (!nl_attr_known(attr, FASTTRACK_A_STAT_MAX) ||
	    type == FASTTRACK_A_STAT_PAD)
		return MNL_CB_OK;
	if (!nl_attr_is_uint(attr))
		return nl_bad_reply();
	st->val[type] = nl_attr_get_uint(attr);
	st->have[type] = true;
	return MNL_CB_OK;
}

static int stats_attr_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) != FASTTRACK_A_STATS)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return nl_bad_reply();
	if (mnl_attr_parse_nested(attr, stat_attr_cb, data) < 0)
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nl_parse(nlh, stats_attr_cb, data) < 0)
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

static void print_json(const struct ftctl *ft, const struct stats *st)
{
	const struct stat_group *g;
	const struct stat_desc *s;
	struct json j;

	json_init(&j, stdout, ft->tty);
	json_obj_open(&j, NULL);
	for (g = stat_groups; g->stats; g++) {
		if (g->json)
			json_obj_open(&j, g->json);
		for (s = g->stats; s->attr; s++)
			if (st->have[s->attr])
				json_u64(&j, s->json, st->val[s->attr]);
		if (g->json)
			json_obj_close(&j);
	}
	json_obj_close(&j);
	json_end(&j);
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

	for (g = stat_groups; ft->tty && g->stats; g++) {
		for (s = g->stats; s->attr; s++) {
			char num[24];
			int len = (int)strlen(s->label);

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

int cmd_stats(struct ftctl *ft, int argc, char **argv)
{
	struct stats st = { 0 };
	struct nlmsghdr *nlh;
	int ret;

	if (argc > 1)
		return ft_usage(ft, "unexpected argument '%s'", argv[1]);

	ret = ft_connect(ft);
	if (ret)
		return ret;

	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_STATS_GET, 0);
	ret = nl_request(&ft->nl, nlh, stats_cb, &st);
	if (ret)
		return ft_request_error(ft, ret, NULL, NULL);

	if (ft->json)
		print_json(ft, &st);
	else
		print_human(ft, &st);
	return FT_OK;
}
