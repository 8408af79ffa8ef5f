/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: what a command needs of its run: the connection to the module,
 * and the one-line reports of a bad command line or a failed request.
 */
#ifndef FTCTL_SESSION_H
#define FTCTL_SESSION_H

#include "state.h"

/*
 * Connect to the fasttrack family; on failure print why and return FT_ERR.
 * While a batch is checked, returns FT_CHECKED instead: the command's
 * arguments were good, and it stops there.
 */
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
 * The kernel refused the current command for lack of privilege: say what
 * it needs ("not permitted: listing flows needs CAP_NET_ADMIN, ...").
 * Returns FT_ERR.
 */
int ft_not_permitted(const struct ftctl *ft);

/* A bad command line for the current command: message + hint, FT_USAGE. */
int ft_usage(struct ftctl *ft, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* FTCTL_SESSION_H */
