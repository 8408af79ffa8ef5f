/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: the namespace's global counters (FASTTRACK_CMD_STATS_GET), for
 * "stats" and the live rates.
 */
#ifndef FTCTL_STATS_H
#define FTCTL_STATS_H

#include <stdbool.h>
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

struct stats {
	uint64_t val[FASTTRACK_A_STAT_MAX + 1];
	bool have[FASTTRACK_A_STAT_MAX + 1];	/* the module sent it */
};

/* The totals of the namespace into @st. Returns 0 or -errno. */
int ft_stats_read(struct ftctl *ft, struct stats *st);

/* A nest of FASTTRACK_A_STAT_* counters into @st; MNL_CB_OK or _ERROR. */
int ft_stats_parse(const struct nlattr *nest, struct stats *st);

#endif /* FTCTL_STATS_H */
