// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl stats: the global counters of the namespace, printed.
 *
 * The counters and their names are stats.c's (ft_stat_groups[]); those
 * the kernel does not send (an older module) are left out of the output.
 * With -s, each CPU's counters are printed too, as a table with one row
 * per CPU, or as "per_cpu" in JSON.
 */
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

	for (g = ft_stat_groups; g->stats; g++) {
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
	for (g = ft_stat_groups; ft->tty && g->stats; g++) {
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

	for (g = ft_stat_groups; g->stats; g++) {
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

	for (g = ft_stat_groups; g->stats; g++)
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

int cmd_stats(struct ftctl *ft, int argc, char **argv)
{
	struct stats_reply r = { 0 };
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

	ret = ft_stats_reply_read(ft, &r);
	if (!ret && per_cpu)
		ret = ft_stats_cpus_read(ft, &r);
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
