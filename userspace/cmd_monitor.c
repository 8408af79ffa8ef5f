// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl monitor: flow events from the "events" multicast group, one line
 * each, until SIGINT or SIGTERM.
 *
 * Every line is flushed as it is written, so a reader at the other end of
 * a pipe sees each event at once. If events come faster than they are read,
 * the socket overruns (ENOBUFS): the lost events are reported on stderr
 * and monitoring goes on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/fasttrack.h>
#include <linux/genetlink.h>

#include "commands.h"
#include "flow.h"
#include "json.h"
#include "print.h"
#include "session.h"
#include "state.h"

/* Room for bursts: learning 10 000 flows at once sends 10 000 events. */
#define MONITOR_RCVBUF	(4 << 20)

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct event {
	struct ft_flow f;
	bool has_flow;
};

static int event_attr_cb(const struct nlattr *attr, void *data)
{
	struct event *e = data;

	if (mnl_attr_get_type(attr) != FASTTRACK_A_FLOW)
		return MNL_CB_OK;
	if (ft_flow_parse(attr, &e->f) < 0)
		return MNL_CB_ERROR;
	e->has_flow = true;
	return MNL_CB_OK;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct ftctl *ft = data;
	struct event e = { .has_flow = false };
	const struct ft_flow *f = &e.f;
	enum ft_flow_event ev;
	char buf[16];

	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return nl_bad_reply();
	switch (genl->cmd) {
	case FASTTRACK_CMD_FLOW_NEW:
		ev = FT_FLOW_EV_NEW;
		break;
	case FASTTRACK_CMD_FLOW_DEL:
		ev = FT_FLOW_EV_DEL;
		break;
	default:
		return MNL_CB_OK;	/* an event this ftctl does not know */
	}
	if (nl_parse(nlh, event_attr_cb, &e) < 0)
		return MNL_CB_ERROR;
	if (!e.has_flow)
		return nl_bad_reply();

	if (ft->json) {
		struct json j;

		/* NDJSON: one compact object per line, even on a terminal. */
		json_init(&j, stdout, false);
		json_obj_open(&j, NULL);
		json_u64(&j, "json_schema_version", FT_JSON_SCHEMA_VERSION);
		json_str(&j, "event", ev == FT_FLOW_EV_NEW ? "new" : "del");
		ft_flow_json(&j, f);
		if (FT_FLOW_HAS(f, FASTTRACK_A_FLOW_REASON))
			json_str(&j, "reason",
				 ft_flow_reason_name(f->reason, buf, sizeof(buf)));
		json_obj_close(&j);
		json_end(&j);
	} else {
		printf("%s%s%s ",
		       ft_color(ft, ev == FT_FLOW_EV_NEW ? FT_C_ON : FT_C_OFF),
		       ev == FT_FLOW_EV_NEW ? "new" : "del",
		       ft_color(ft, FT_C_RESET));
		ft_flow_print_text(ft, stdout, f, ev);
		if (FT_FLOW_HAS(f, FASTTRACK_A_FLOW_REASON))
			printf(" reason %s",
			       ft_flow_reason_name(f->reason, buf, sizeof(buf)));
		putchar('\n');
	}
	if (fflush(stdout))
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

int cmd_monitor(struct ftctl *ft, int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int rcvbuf = MONITOR_RCVBUF, ret;
	sigset_t block, orig;
	struct pollfd pfd;

	if (argc > 1)
		return ft_usage(ft, "unexpected argument '%s'", argv[1]);

	ret = ft_connect(ft);
	if (ret)
		return ret;

	ret = nl_subscribe(&ft->nl, FASTTRACK_MCGRP_EVENTS);
	if (ret == -ENOENT) {
		ft_err("this fasttrack module does not send flow events (upgrade the module)");
		return FT_ERR;
	}
	/*
	 * Only kernels that can restrict a group to CAP_NET_ADMIN
	 * (GENL_MCAST_CAP_NET_ADMIN) refuse; older ones let anybody join.
	 */
	if (ret == -EPERM || ret == -EACCES)
		return ft_not_permitted(ft);
	if (ret) {
		ft_err("monitor: cannot join the events group: %s", strerror(-ret));
		return FT_ERR;
	}
	/* Best effort: the forced size needs CAP_NET_ADMIN. */
	if (setsockopt(nl_fd(&ft->nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) < 0)
		setsockopt(nl_fd(&ft->nl), SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	/* Renames must show in a long session. */
	ft_ifname_cache(false);

	/*
	 * The signals stay blocked except inside ppoll(), so one that comes
	 * between the check of stop_signal and the wait is not missed.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigdelset(&orig, SIGINT);
	sigdelset(&orig, SIGTERM);

	pfd.fd = nl_fd(&ft->nl);
	pfd.events = POLLIN;
	while (!stop_signal) {
		sigset_t pending;

		/*
		 * ppoll() that finds the socket readable returns without
		 * running the handler of a pending signal: under a steady
		 * stream of events, look for one here.
		 */
		if (!sigpending(&pending) &&
		    (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM)))
			break;
		if (ppoll(&pfd, 1, NULL, &orig) < 0) {
			if (errno == EINTR)
				continue;
			ft_err("monitor: poll: %s", strerror(errno));
			return FT_ERR;
		}
		for (;;) {
			ret = nl_recv_events(&ft->nl, event_cb, ft);
			if (ret == -EAGAIN || ret == -EINTR)
				break;
			if (ret == -ENOBUFS) {
				ft_warn("events were lost: they came faster than ftctl read them (socket receive buffer overrun)");
				continue;
			}
			if (ret) {
				if (ferror(stdout))
					return FT_ERR;
				return ft_request_error(ft, ret, NULL, NULL);
			}
		}
	}
	return FT_OK;
}
