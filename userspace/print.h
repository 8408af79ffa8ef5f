/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: messages on stderr and the human-readable output helpers.
 */
#ifndef FTCTL_PRINT_H
#define FTCTL_PRINT_H

#include "state.h"

/*
 * In a batch (-b), messages name the file and line of the command:
 * "ftctl: FILE:LINE: ...". @file NULL: no location.
 */
void ft_where(const char *file, unsigned int line);
/* Flush stdout, then "ftctl: " and the location, if any, on stderr. */
void ft_prefix(void);

/* "ftctl: ..." on stderr. */
void ft_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "ftctl: warning: ..." on stderr. */
void ft_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ANSI colours, only when ft->color; "" otherwise. */
enum ft_color {
	FT_C_RESET,
	FT_C_BOLD,
	FT_C_ON,
	FT_C_OFF,
};
const char *ft_color(const struct ftctl *ft, enum ft_color c);

/*
 * One "KEY VALUE" line after @indent. On a terminal KEY is padded to
 * @width so the values line up; otherwise a single space separates them.
 */
void ft_kv(const struct ftctl *ft, const char *indent, int width,
	   const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif /* FTCTL_PRINT_H */
