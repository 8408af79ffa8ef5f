// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: messages on stderr and the human-readable output helpers.
 */
#include <stdarg.h>
#include <stdio.h>

#include "print.h"

static const char *where_file;
static unsigned int where_line;

void ft_where(const char *file, unsigned int line)
{
	where_file = file;
	where_line = line;
}

void ft_prefix(void)
{
	fflush(stdout);
	fputs("ftctl: ", stderr);
	if (where_file)
		fprintf(stderr, "%s:%u: ", where_file, where_line);
}

void ft_err(const char *fmt, ...)
{
	va_list ap;

	ft_prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ft_warn(const char *fmt, ...)
{
	va_list ap;

	ft_prefix();
	fputs("warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *ft_color(const struct ftctl *ft, enum ft_color c)
{
	static const char *const seq[] = {
		[FT_C_RESET]	= "\033[0m",
		[FT_C_BOLD]	= "\033[1m",
		[FT_C_ON]	= "\033[32m",	/* green */
		[FT_C_OFF]	= "\033[2m",	/* dim */
	};

	return ft->color ? seq[c] : "";
}

void ft_kv(const struct ftctl *ft, const char *indent, int width,
	   const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("%s%-*s ", indent, ft->tty ? width : 0, key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}
