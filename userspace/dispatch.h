/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: one command line run through the command table (ft->cmds). The
 * table itself is main()'s: a command reaches another only through it.
 */
#ifndef FTCTL_DISPATCH_H
#define FTCTL_DISPATCH_H

#include "state.h"

/* The entry of the table named @name, or NULL. */
const struct ft_cmd *ft_find_command(const struct ftctl *ft, const char *name);

/* "Usage: ftctl NAME ARGS", its line of help and its details, on stdout. */
void ft_command_usage(const struct ft_cmd *cmd);

/* Run one command line (argv[0] is the command). Returns an exit code. */
int ft_run(struct ftctl *ft, int argc, char **argv);

#endif /* FTCTL_DISPATCH_H */
