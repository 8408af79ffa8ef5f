/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: the command handlers, each defined in its cmd_*.c and called
 * only through the command table of ftctl.c (as wg's subcommands.h).
 */
#ifndef FTCTL_COMMANDS_H
#define FTCTL_COMMANDS_H

#include "state.h"

int cmd_enable(struct ftctl *ft, int argc, char **argv);	/* cmd_dev.c */
int cmd_disable(struct ftctl *ft, int argc, char **argv);
int cmd_show(struct ftctl *ft, int argc, char **argv);
int cmd_rates(struct ftctl *ft, int argc, char **argv);	/* cmd_rates.c */
int cmd_flows(struct ftctl *ft, int argc, char **argv);	/* cmd_flows.c */
int cmd_flush(struct ftctl *ft, int argc, char **argv);
int cmd_monitor(struct ftctl *ft, int argc, char **argv);	/* cmd_monitor.c */
int cmd_stats(struct ftctl *ft, int argc, char **argv);	/* cmd_stats.c */
int cmd_get(struct ftctl *ft, int argc, char **argv);	/* cmd_config.c */
int cmd_set(struct ftctl *ft, int argc, char **argv);
int cmd_save(struct ftctl *ft, int argc, char **argv);
int cmd_xdp(struct ftctl *ft, int argc, char **argv);	/* cmd_xdp.c */

#endif /* FTCTL_COMMANDS_H */
