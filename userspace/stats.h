/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: the namespace's global counters (FASTTRACK_CMD_STATS_GET), their
 * names and reading them, for "stats", the live rates and the per-device
 * punts of "show".
 */
#ifndef FTCTL_STATS_H
#define FTCTL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/fasttrack.h>

#include "state.h"

struct stat_desc {
	uint16_t attr;		/* FASTTRACK_A_STAT_* */
	const char *json;	/* JSON member name */
	const char *label;	/* human label */
	const char *column;	/* per-CPU table heading, if not the label */
};

/* The punt counters, by reason; ends with attr 0. */
extern const struct stat_desc ft_punted_stats[];

struct stat_group {
	const char *json;	/* JSON object, or NULL: top level */
	const char *title;	/* human group heading */
	const struct stat_desc *stats;
};

/* Every counter, in groups, in the order printed; ends with stats NULL. */
extern const struct stat_group ft_stat_groups[];

struct stats {
	uint64_t val[FASTTRACK_A_STAT_MAX + 1];
	bool have[FASTTRACK_A_STAT_MAX + 1];	/* the module sent it */
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

/* The totals of the namespace into @st. Returns 0 or -errno. */
int ft_stats_read(struct ftctl *ft, struct stats *st);

/* The totals into @r->total (the caller frees @r->cpus). 0 or -errno. */
int ft_stats_reply_read(struct ftctl *ft, struct stats_reply *r);

/*
 * Each CPU's counters into @r->cpus: the dump, or on a module older than
 * it, the reply to FASTTRACK_A_STATS_PERCPU. Returns 0, FT_ERR (said: the
 * module has no per-CPU counters) or -errno.
 */
int ft_stats_cpus_read(struct ftctl *ft, struct stats_reply *r);

/* A nest of FASTTRACK_A_STAT_* counters into @st; MNL_CB_OK or _ERROR. */
int ft_stats_parse(const struct nlattr *nest, struct stats *st);

#endif /* FTCTL_STATS_H */
