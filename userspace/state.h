/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: the state of one run, the command table's entry and the exit
 * codes. Types only: every file includes it, so it has no .c of its own.
 */
#ifndef FTCTL_STATE_H
#define FTCTL_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"

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
	bool verbose;		/* -v: libbpf's messages */
	struct nl nl;
	const struct ft_cmd *cmds;	/* the command table, from main() */
	unsigned int ncmds;
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

#endif /* FTCTL_STATE_H */
