/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: shared state of a run, the subcommand table and its handlers.
 */
#ifndef FTCTL_H
#define FTCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"

#ifndef FTCTL_VERSION
#define FTCTL_VERSION "unknown"
#endif

/* Exit codes. */
enum {
	FT_OK		= 0,
	FT_ERR		= 1,	/* the operation failed */
	FT_USAGE	= 2,	/* bad command line */
};

struct ftctl {
	bool json;		/* -j: JSON output */
	bool tty;		/* stdout is a terminal: align, pretty JSON */
	bool color;		/* tty, and neither NO_COLOR nor TERM=dumb */
	bool connected;
	struct nl nl;
	const struct ft_cmd *cmd;	/* the command being run */
};

struct ft_cmd {
	const char *name;
	int (*fn)(struct ftctl *ft, int argc, char **argv);
	const char *args;	/* synopsis after the name */
	const char *help;	/* one line for the command list */
	const char *detail;	/* more lines for "ftctl COMMAND --help" */
	const char *needs;	/* privilege, said on EPERM; NULL: none */
};

/* Connect to the fasttrack family; on failure print why and return FT_ERR. */
int ft_connect(struct ftctl *ft);

/*
 * Report a failed request: one line on stderr, built from the error code
 * and the kernel's extack. @dev is the device the request named, or NULL;
 * @subject names the rejected part of the request ("max-flows"), or NULL.
 * Returns FT_ERR.
 */
int ft_request_error(struct ftctl *ft, int err, const char *dev,
		     const char *subject);

/*
 * A device name from the command line: valid, and present in this network
 * namespace. Returns FT_OK, or prints why not and returns FT_USAGE/FT_ERR.
 */
int ft_check_dev(struct ftctl *ft, const char *dev);

/*
 * The kernel refused the current command for lack of privilege: say what
 * it needs ("not permitted: listing flows needs CAP_NET_ADMIN, ...").
 * Returns FT_ERR.
 */
int ft_not_permitted(const struct ftctl *ft);

/* A bad command line for the current command: message + hint, FT_USAGE. */
int ft_usage(struct ftctl *ft, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int cmd_enable(struct ftctl *ft, int argc, char **argv);
int cmd_disable(struct ftctl *ft, int argc, char **argv);
int cmd_show(struct ftctl *ft, int argc, char **argv);
int cmd_stats(struct ftctl *ft, int argc, char **argv);
int cmd_get(struct ftctl *ft, int argc, char **argv);
int cmd_set(struct ftctl *ft, int argc, char **argv);
int cmd_flows(struct ftctl *ft, int argc, char **argv);
int cmd_flush(struct ftctl *ft, int argc, char **argv);
int cmd_monitor(struct ftctl *ft, int argc, char **argv);

#endif /* FTCTL_H */
