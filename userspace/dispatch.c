// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: run one command line through the command table. The table is
 * main()'s (ft->cmds), so a command or a batch line reaches another
 * command through it, by pointer, never by a direct call.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "dispatch.h"
#include "print.h"
#include "session.h"
#include "state.h"

const struct ft_cmd *ft_find_command(const struct ftctl *ft, const char *name)
{
	unsigned int i;

	for (i = 0; i < ft->ncmds; i++)
		if (!strcmp(ft->cmds[i].name, name))
			return &ft->cmds[i];
	return NULL;
}

void ft_command_usage(const struct ft_cmd *cmd)
{
	printf("Usage: ftctl %s%s%s\n\n%c%s.\n", cmd->name,
	       *cmd->args ? " " : "", cmd->args,
	       toupper((unsigned char)cmd->help[0]), cmd->help + 1);
	if (cmd->detail)
		printf("\n%s", cmd->detail);
}

/*
 * "ftctl COMMAND --help" anywhere in the arguments prints the command's
 * help. A global option after the command is a mistake worth naming.
 */
static int check_command_args(struct ftctl *ft, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			ft_command_usage(ft->cmd);
			return FT_OK;
		}
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json") ||
		    !strcmp(argv[i], "-V") || !strcmp(argv[i], "--version"))
			return ft_usage(ft, "option '%s' goes before the command: ftctl %s %s ...",
					argv[i], argv[i], ft->cmd->name);
	}
	return -1;
}

int ft_run(struct ftctl *ft, int argc, char **argv)
{
	int ret;

	ft->cmd = ft_find_command(ft, argv[0]);
	if (!ft->cmd) {
		ft_err("unknown command '%s'", argv[0]);
		if (ft->batch)
			fprintf(stderr, "A batch line is a command and its arguments; options go on ftctl's command line.\n");
		else
			fprintf(stderr, "Try 'ftctl --help'.\n");
		return FT_USAGE;
	}
	if (ft->batch && ft->cmd->no_batch) {
		ft_err("'%s' is not a command for a batch", argv[0]);
		return FT_USAGE;
	}
	ret = check_command_args(ft, argc, argv);
	if (ret < 0)
		ret = ft->cmd->fn(ft, argc, argv);
	return ret;
}
