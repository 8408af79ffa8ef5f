/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl -b FILE: run the commands of a file, checked first, then in order.
 */
#ifndef FTCTL_BATCH_H
#define FTCTL_BATCH_H

#include "state.h"

/* -b FILE: run the commands of FILE ("-": stdin). Returns an exit code. */
int ft_batch_run(struct ftctl *ft, const char *file);

#endif /* FTCTL_BATCH_H */
