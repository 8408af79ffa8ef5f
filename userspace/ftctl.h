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

/* Internal results, never exit codes. */
enum {
	FT_NOTHING	= -2,	/* nothing to do, and that is fine */
	FT_CHECKED	= -3,	/* ft_connect() while checking a batch */
};

/* JSON output: the version of its schema (ftctl(8), JSON OUTPUT). */
#define FT_JSON_SCHEMA_VERSION	1

struct ft_batch;

struct ftctl {
	bool json;		/* -j: JSON output */
	bool tty;		/* stdout is a terminal: align, pretty JSON */
	bool color;		/* tty, and neither NO_COLOR nor TERM=dumb */
	bool connected;
	bool check_only;	/* -b first pass: check arguments only */
	struct nl nl;
	const struct ft_cmd *cmd;	/* the command being run */
	struct ft_batch *batch;	/* -b: the batch being run, or NULL */
};

struct ft_cmd {
	const char *name;
	int (*fn)(struct ftctl *ft, int argc, char **argv);
	const char *args;	/* synopsis after the name */
	const char *help;	/* one line for the command list */
	const char *detail;	/* more lines for "ftctl COMMAND --help" */
	const char *needs;	/* privilege, said on EPERM; NULL: none */
	bool no_batch;		/* not a command for -b (never ends, ...) */
};

/*
 * Connect to the fasttrack family; on failure print why and return FT_ERR.
 * While a batch is checked, returns FT_CHECKED instead: the command's
 * arguments were good, and it stops there.
 */
int ft_connect(struct ftctl *ft);

/* Run one command line (argv[0] is the command). Returns an exit code. */
int ft_run(struct ftctl *ft, int argc, char **argv);

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
int cmd_rates(struct ftctl *ft, int argc, char **argv);
int cmd_top(struct ftctl *ft, int argc, char **argv);
int cmd_save(struct ftctl *ft, int argc, char **argv);

/* The "set" lines of "ftctl save". Returns FT_OK or FT_ERR. */
int ft_save_settings(struct ftctl *ft);

#endif /* FTCTL_H */
