// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: what a command needs of its run: the connection to the module,
 * and the one-line reports of a bad command line or a failed request,
 * worded from the error code, the kernel's extack and the command's
 * table entry (its name, and the privilege it needs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/fasttrack.h>

#include "print.h"
#include "session.h"
#include "state.h"

int ft_usage(struct ftctl *ft, const char *fmt, ...)
{
	va_list ap;

	ft_prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'ftctl %s --help'.\n", ft->cmd->name);
	return FT_USAGE;
}

int ft_connect(struct ftctl *ft)
{
	int ret;

	if (ft->check_only)
		return FT_CHECKED;
	if (ft->connected)
		return FT_OK;

	ret = nl_open(&ft->nl, FASTTRACK_GENL_NAME, FASTTRACK_GENL_VERSION);
	if (ret == -ENOENT) {
		ft_err("the fasttrack module is not loaded (try: modprobe fasttrack)");
		return FT_ERR;
	}
	if (ret) {
		ft_err("cannot open a generic netlink socket: %s",
		       strerror(-ret));
		return FT_ERR;
	}
	ft->connected = true;
	return FT_OK;
}

/* Errors that did not come from the kernel: the socket, or a bad reply. */
static int local_error(struct ftctl *ft, int err)
{
	switch (err) {
	case EBADMSG:
		ft_err("%s: malformed reply from the fasttrack module", ft->cmd->name);
		break;
	case EINTR:
		ft_err("%s: the list kept changing while it was read; try again",
		       ft->cmd->name);
		break;
	case ENOMEM:
		ft_err("out of memory");
		break;
	default:
		ft_err("%s: netlink: %s", ft->cmd->name, strerror(err));
		break;
	}
	return FT_ERR;
}

int ft_not_permitted(const struct ftctl *ft)
{
	if (ft->cmd->needs)
		ft_err("not permitted: %s", ft->cmd->needs);
	else
		ft_err("%s: not permitted", ft->cmd->name);
	return FT_ERR;
}

int ft_request_error(struct ftctl *ft, int err, const char *dev,
		     const char *subject)
{
	const char *msg = ft->nl.ext_msg;
	size_t plen = strlen(FASTTRACK_GENL_NAME ": ");

	/* NL_SET_ERR_MSG_MOD() prefixes the module's name: we say it once. */
	if (!strncmp(msg, FASTTRACK_GENL_NAME ": ", plen))
		msg += plen;
	if (err < 0)
		err = -err;
	if (!ft->nl.kernel_err)
		return local_error(ft, err);

	/* These have one meaning whatever the kernel adds. */
	switch (err) {
	case EPERM:
	case EACCES:
		/* A command open to any user was refused: say so below. */
		if (!ft->cmd->needs)
			break;
		return ft_not_permitted(ft);
	case ENODEV:
		if (!dev)
			break;
		ft_err("no such device: %s", dev);
		return FT_ERR;
	}

	/* The kernel's own words, prefixed with what the request named. */
	if (!subject)
		subject = dev;
	if (*msg) {
		char range[64] = "";

		if (ft->nl.has_ext_range)
			snprintf(range, sizeof(range),
				 " (allowed: %" PRIu64 "-%" PRIu64 ")",
				 ft->nl.ext_min, ft->nl.ext_max);
		if (subject)
			ft_err("%s: %s%s", subject, msg, range);
		else
			ft_err("%s%s", msg, range);
		return FT_ERR;
	}

	/* No extack: say what the documented error codes mean. */
	switch (err) {
	case ENOENT:
		if (!dev)
			break;
		ft_err("fasttrack is not enabled on %s", dev);
		return FT_ERR;
	case EOPNOTSUPP:
		if (dev)
			ft_err("%s is a kind of device fasttrack cannot offload",
			       dev);
		else
			ft_err("%s: the loaded fasttrack module does not support this command (is it older than ftctl?)",
			       ft->cmd->name);
		return FT_ERR;
	case ERANGE:
		ft_err("%s: value out of range (max-flows 1-%u, tcp-timeout and udp-timeout 1-%u seconds)",
		       subject ? subject : ft->cmd->name,
		       FASTTRACK_MAX_FLOWS_LIMIT, FASTTRACK_TIMEOUT_LIMIT);
		return FT_ERR;
	}

	if (subject)
		ft_err("%s %s: %s", ft->cmd->name, subject, strerror(err));
	else
		ft_err("%s: %s", ft->cmd->name, strerror(err));
	return FT_ERR;
}
