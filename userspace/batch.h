/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl -b FILE: run the commands of a file, checked first, then in order.
 */
#ifndef FTCTL_BATCH_H
#define FTCTL_BATCH_H

#include "state.h"

/* -b FILE: run the commands of FILE ("-": stdin). Returns an exit code. */
int ft_batch_run(struct ftctl *ft, const char *file);

/*
 * Inside a batch: "disable all" is kept for the end of the batch, where
 * it disables what the lines after it did not enable (true); outside one,
 * it returns false and the caller disables everything at once.
 */
bool ft_batch_disable_all(struct ftctl *ft, uint32_t families);
/* Inside a batch: @dev was enabled for @families. */
void ft_batch_enabled(struct ftctl *ft, const char *dev, uint32_t families);

#endif /* FTCTL_BATCH_H */
