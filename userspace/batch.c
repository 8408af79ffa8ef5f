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
 * "disable all" in a batch does not disable at once: at the end of the
 * batch, it disables every family that no "enable" after it named. A
 * reload with an unchanged file so changes nothing, and the cached flows
 * of devices that stay enabled are kept. Only the enable lines and this
 * reconciliation know what an enable is (a device today); the rest of
 * the batch is the ordinary command table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/fasttrack.h>

#include "batch.h"
#include "dev.h"
#include "dispatch.h"
#include "link.h"
#include "print.h"
#include "state.h"

#define BATCH_MAX_ARGS	64

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

bool ft_batch_disable_all(struct ftctl *ft, uint32_t families)
{
	struct ft_batch *b = ft->batch;

	if (!b)
		return false;
	b->replace = true;
	b->replace_families |= families;
	b->replace_line = b->line;
	b->n = 0;
	b->lost = false;
	return true;
}

void ft_batch_enabled(struct ftctl *ft, const char *dev, uint32_t families)
{
	struct ft_batch *b = ft->batch;
	struct kept *k;

	if (!b || !b->replace)
		return;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;

		k = realloc(b->kept, cap * sizeof(*k));
		if (!k) {
			b->lost = true;
			return;
		}
		b->kept = k;
		b->cap = cap;
	}
	k = &b->kept[b->n++];
	if (ft_link_index(dev, &k->ifindex))
		k->ifindex = 0;
	snprintf(k->ifname, sizeof(k->ifname), "%s", dev);
	k->families = families;
}

/* The families the batch enabled after its "disable all" on @d. */
static uint32_t kept_families(const struct ft_dev *d, void *data)
{
	const struct ft_batch *b = data;
	uint32_t fams = 0;
	size_t i;

	for (i = 0; i < b->n; i++) {
		const struct kept *k = &b->kept[i];

		/* By index, which a rename keeps, or by name. */
		if ((k->ifindex && k->ifindex == d->ifindex) ||
		    !strcmp(k->ifname, d->ifname))
			fams |= k->families;
	}
	return fams;
}

/* The end of a batch with "disable all": disable what it did not keep. */
static int reconcile(struct ftctl *ft, struct ft_batch *b)
{
	ft_where(b->name, b->replace_line);
	if (b->lost) {
		ft_err("out of memory: disabled nothing of what the batch did not enable");
		return FT_ERR;
	}
	return ft_disable_all(ft, b->replace_families, kept_families, b);
}

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
	if (ret == FT_OK && b.replace)
		ret = reconcile(ft, &b);
	ft_where(NULL, 0);
	ft->batch = NULL;
	ft->check_only = false;
	free(b.kept);
	free_file(&f);
	return ret;
}
