// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl -b FILE: run ftctl's own commands from a file, one a line, as
 * "ip -batch" and "nft -f" do. "#" starts a comment; blank lines are
 * skipped; words are separated by blanks (device names, settings and
 * families have none, so there is no quoting).
 *
 * The file is read whole and every line is checked first, without a
 * request to the kernel (each command checks its arguments before it
 * connects): a typo on the last line changes nothing. Then the lines run
 * in order and the batch stops at the first error, which names the file
 * and the line. An error from the kernel (a device that went away) can
 * leave the lines before it applied; they are all idempotent, so running
 * the fixed file again is what to do.
 *
 * Each line goes through the ordinary command table (dispatch.c). What
 * "disable all" does in a batch is batch_state.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "batch_state.h"
#include "dispatch.h"
#include "print.h"
#include "state.h"

#define BATCH_MAX_ARGS	64

struct line {
	unsigned int number;
	int argc;
	char *argv[BATCH_MAX_ARGS + 1];
};

struct file {
	struct line *lines;
	size_t n, cap;
	char **bufs;		/* what the argv point into */
	size_t nbufs;
};

static int add_line(struct file *f, unsigned int number, char *text)
{
	struct line *l;
	char *word, *save;

	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 32;

		l = realloc(f->lines, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		f->lines = l;
		f->cap = cap;
	}
	l = &f->lines[f->n];
	l->number = number;
	l->argc = 0;
	for (word = strtok_r(text, " \t\r\n\v\f", &save); word;
	     word = strtok_r(NULL, " \t\r\n\v\f", &save)) {
		if (word[0] == '#')
			break;
		if (l->argc == BATCH_MAX_ARGS)
			return -E2BIG;
		l->argv[l->argc++] = word;
	}
	l->argv[l->argc] = NULL;
	if (l->argc)
		f->n++;
	return 0;
}

static void free_file(struct file *f)
{
	size_t i;

	for (i = 0; i < f->nbufs; i++)
		free(f->bufs[i]);
	free(f->bufs);
	free(f->lines);
}

/* Read every line of @in. Returns 0 or -errno; *@bad: the line at fault. */
static int read_file(FILE *in, struct file *f, unsigned int *bad)
{
	unsigned int number = 0;
	char *buf = NULL;
	size_t size = 0;
	int ret = 0;

	while (getline(&buf, &size, in) >= 0) {
		char **bufs = realloc(f->bufs, (f->nbufs + 1) * sizeof(*bufs));

		*bad = ++number;
		if (!bufs) {
			ret = -ENOMEM;
			break;
		}
		f->bufs = bufs;
		f->bufs[f->nbufs++] = buf;
		ret = add_line(f, number, buf);
		buf = NULL;
		size = 0;
		if (ret)
			break;
	}
	free(buf);
	if (!ret && ferror(in))
		ret = -EIO;
	return ret;
}

/* Every line once: check (first pass) or run. Stops at the first error. */
static int run_lines(struct ftctl *ft, const struct file *f, bool check)
{
	size_t i;
	int ret;

	ft->check_only = check;
	for (i = 0; i < f->n; i++) {
		const struct line *l = &f->lines[i];

		ft->batch->line = l->number;
		ft_where(ft->batch->name, l->number);
		ret = ft_run(ft, l->argc, (char **)l->argv);
		if (ret == FT_CHECKED)
			ret = FT_OK;
		if (ret != FT_OK)
			return ret;
	}
	ft->check_only = false;
	return FT_OK;
}

int ft_batch_run(struct ftctl *ft, const char *file)
{
	struct ft_batch b = { .name = file };
	struct file f = { 0 };
	unsigned int bad = 0;
	FILE *in = stdin;
	int ret;

	if (strcmp(file, "-")) {
		in = fopen(file, "re");
		if (!in) {
			ft_err("cannot open %s: %s", file, strerror(errno));
			return FT_ERR;
		}
	} else {
		b.name = "<stdin>";
	}
	ret = read_file(in, &f, &bad);
	if (in != stdin)
		fclose(in);
	if (ret) {
		ft_where(b.name, bad);
		ft_err("%s", ret == -E2BIG ? "too many words on one line" :
		       ret == -ENOMEM ? "out of memory" : "read error");
		ft_where(NULL, 0);
		free_file(&f);
		return FT_ERR;
	}

	ft->batch = &b;
	ret = run_lines(ft, &f, true);
	if (ret == FT_OK)
		ret = run_lines(ft, &f, false);
	if (ret == FT_OK)
		ret = ft_batch_end(ft);
	ft_where(NULL, 0);
	ft->batch = NULL;
	ft->check_only = false;
	free(b.kept);
	free_file(&f);
	return ret;
}
