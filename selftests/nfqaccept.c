// SPDX-License-Identifier: GPL-2.0
/*
 * nfqaccept: bind an NFQUEUE and accept every packet queued to it, one
 * verdict per packet, over a raw nfnetlink_queue socket (no libraries).
 *
 *   nfqaccept [QUEUE]        (default queue 0)
 *
 * Prints "ready" once the queue is bound, and "verdicts N" when SIGTERM or
 * SIGINT ends it. Each verdict is a separate NFQNL_MSG_VERDICT, so the
 * kernel reinjects each packet from this process's sendmsg(): the rest of
 * the hook chain runs in process context (nf_reinject()), which is what
 * the selftests exercise with it.
 *
 * Exit: 0 ended by a signal, 2 usage, 1 a netlink error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tool_util.h"

#define NLA_OK(nla, left)                                              \
	((left) >= (int)NLA_HDRLEN && (nla)->nla_len >= NLA_HDRLEN &&  \
	 (nla)->nla_len <= (left))
#define NLA_NEXT(nla, left)                                            \
	((left) -= NLA_ALIGN((nla)->nla_len),                          \
	 (const struct nlattr *)((const uint8_t *)(nla) + NLA_ALIGN((nla)->nla_len)))
#define NLA_DATA(nla) ((const void *)((const uint8_t *)(nla) + NLA_HDRLEN))

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct req {
	struct nlmsghdr nh;
	struct nfgenmsg nfg;
	uint8_t attrs[64];
};

/* A request of nfnetlink_queue @type for @queue, with no attributes yet. */
static void req_init(struct req *r, uint16_t type, uint16_t queue,
		     uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(sizeof(r->nfg));
	r->nh.nlmsg_type = NFNL_SUBSYS_QUEUE << 8 | type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->nfg.nfgen_family = AF_UNSPEC;
	r->nfg.version = NFNETLINK_V0;
	r->nfg.res_id = htons(queue);
}

static void req_put(struct req *r, uint16_t type, const void *data,
		    uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((uint8_t *)&r->nh +
					     NLMSG_ALIGN(r->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((uint8_t *)a + NLA_HDRLEN, data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Send @r and wait for its ack: 0, or a negative errno. */
static int req_ack(int fd, struct req *r)
{
	char buf[4096];
	ssize_t n;

	if (send(fd, r, r->nh.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	if ((size_t)n >= NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
	    ((struct nlmsghdr *)buf)->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(buf))->error;
	return -EPROTO;
}

/* Accept the packet of NFQNL_MSG_PACKET @nh; 1 if it had an id. */
static int accept_packet(int fd, const struct nlmsghdr *nh, uint16_t queue)
{
	const struct nlattr *a = (const struct nlattr *)((const uint8_t *)
		NLMSG_DATA(nh) + NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	int left = (int)nh->nlmsg_len -
		   NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	struct nfqnl_msg_verdict_hdr v;
	struct req r;

	for (; NLA_OK(a, left); a = NLA_NEXT(a, left)) {
		const struct nfqnl_msg_packet_hdr *ph;

		if ((a->nla_type & NLA_TYPE_MASK) != NFQA_PACKET_HDR ||
		    a->nla_len < NLA_HDRLEN + sizeof(*ph))
			continue;
		ph = NLA_DATA(a);
		req_init(&r, NFQNL_MSG_VERDICT, queue, 0);
		v.verdict = htonl(NF_ACCEPT);
		v.id = ph->packet_id;
		req_put(&r, NFQA_VERDICT_HDR, &v, sizeof(v));
		if (send(fd, &r, r.nh.nlmsg_len, 0) < 0) {
			perror("nfqaccept: send verdict");
			return -1;
		}
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nfqnl_msg_config_params params;
	struct nfqnl_msg_config_cmd cmd;
	struct sigaction act = { .sa_handler = on_signal };
	unsigned long verdicts = 0;
	int fd, err, rcvbuf = 4 << 20;
	static char buf[65536];
	uint16_t queue = 0;
	struct req r;

	if (argc > 2) {
		fprintf(stderr, "usage: nfqaccept [QUEUE]\n");
		return 2;
	}
	if (argc == 2)
		queue = (uint16_t)number(argv[1], 0, 65535);
	/* No SA_RESTART: a signal ends the blocking recv() at once. */
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);

	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("nfqaccept: netlink socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));

	req_init(&r, NFQNL_MSG_CONFIG, queue, NLM_F_ACK);
	memset(&cmd, 0, sizeof(cmd));
	cmd.command = NFQNL_CFG_CMD_BIND;
	req_put(&r, NFQA_CFG_CMD, &cmd, sizeof(cmd));
	err = req_ack(fd, &r);
	if (err) {
		fprintf(stderr, "nfqaccept: bind queue %u: %s\n", queue,
			strerror(-err));
		return 1;
	}
	/* Metadata only: the verdict needs the packet id, not the packet. */
	req_init(&r, NFQNL_MSG_CONFIG, queue, NLM_F_ACK);
	params.copy_range = htonl(0);
	params.copy_mode = NFQNL_COPY_META;
	req_put(&r, NFQA_CFG_PARAMS, &params, sizeof(params));
	err = req_ack(fd, &r);
	if (err) {
		fprintf(stderr, "nfqaccept: configure queue %u: %s\n", queue,
			strerror(-err));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);

	while (!stop) {
		const struct nlmsghdr *nh;
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		int left;

		if (n < 0) {
			/* ENOBUFS: the socket overflowed; the queue goes on. */
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			perror("nfqaccept: recv");
			return 1;
		}
		left = (int)n;
		for (nh = (const struct nlmsghdr *)buf; NLMSG_OK(nh, left);
		     nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_type == NLMSG_ERROR) {
				err = ((const struct nlmsgerr *)NLMSG_DATA(nh))->error;
				if (err) {
					fprintf(stderr, "nfqaccept: verdict: %s\n",
						strerror(-err));
					return 1;
				}
				continue;
			}
			if (nh->nlmsg_type !=
			    (NFNL_SUBSYS_QUEUE << 8 | NFQNL_MSG_PACKET))
				continue;
			err = accept_packet(fd, nh, queue);
			if (err < 0)
				return 1;
			verdicts += err;
		}
	}
	printf("verdicts %lu\n", verdicts);
	return 0;
}
