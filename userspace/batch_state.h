/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl -b: the state of a running batch that its commands consult (where
 * it is, for messages, and what its "disable all" keeps), kept apart from
 * the batch runner so that the commands need not call up into it.
 */
#ifndef FTCTL_BATCH_STATE_H
#define FTCTL_BATCH_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#include "state.h"

struct kept {
	uint32_t ifindex;	/* 0: unknown */
	char ifname[IFNAMSIZ];
	uint32_t families;
};

struct ft_batch {
	const char *name;	/* for messages: the file, or "<stdin>" */
	unsigned int line;	/* the line being run */
	bool replace;		/* "disable all" was run */
	uint32_t replace_families;
	unsigned int replace_line;
	struct kept *kept;	/* enabled after the last "disable all" */
	size_t n, cap;
	bool lost;		/* one could not be kept: disable nothing */
};

/*
 * Inside a batch: "disable all" is kept for the end of the batch, where
 * it disables what the lines after it did not enable (true); outside one,
 * it returns false and the caller disables everything at once.
 */
bool ft_batch_disable_all(struct ftctl *ft, uint32_t families);
/* Inside a batch: @dev was enabled for @families. */
void ft_batch_enabled(struct ftctl *ft, const char *dev, uint32_t families);

/*
 * The end of ft->batch: after a "disable all", disable what the batch did
 * not enable again. Returns FT_OK or FT_ERR (said).
 */
int ft_batch_end(struct ftctl *ft);

#endif /* FTCTL_BATCH_STATE_H */
