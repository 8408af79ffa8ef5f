// SPDX-License-Identifier: GPL-2.0
/*
 * A fake fasttrack kernel for ftctl tests, loaded with LD_PRELOAD.
 *
 * It takes over AF_NETLINK/NETLINK_GENERIC sockets and answers from canned
 * data, so that the whole of ftctl (requests, dumps, acks, extack, output)
 * runs without the module. Replies use what a real kernel may send: u64
 * counters after pad attributes, attribute types ftctl does not know, a
 * dump spread over several reads, NLMSG_DONE, capped acks with extack.
 *
 * Environment:
 *   FTMOCK_NOFAMILY=1  the family is not registered (ENOENT)
 *   FTMOCK_EPERM=1     admin commands fail with EPERM
 *   FTMOCK_INTR=N      flag the first N dumps NLM_F_DUMP_INTR
 *   FTMOCK_EMPTY=1     no device is enabled
 * Every request's attributes are traced on stderr as "mock: ...".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>
#include <linux/fasttrack.h>

#define MOCK_FAMILY	0x2a
#define MOCK_PORTID	4242
#define MAX_REPLIES	16
#define REPLY_SIZE	8192

static int mock_fd = -1;
static int intr_left = -1;

static struct {
	char buf[REPLY_SIZE];
	size_t len;
} replies[MAX_REPLIES];
static int nreplies, next_reply;

static bool env(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

static void trace(const char *fmt, ...)
{
	va_list ap;

	fputs("mock: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A new datagram; later messages go into it. */
static char *new_reply(void)
{
	if (nreplies == MAX_REPLIES)
		abort();
	replies[nreplies].len = 0;
	return replies[nreplies++].buf;
}

static struct nlmsghdr *put_msg(const struct nlmsghdr *req, uint16_t type,
				uint16_t flags, uint8_t cmd)
{
	char *buf = replies[nreplies - 1].buf + replies[nreplies - 1].len;
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_pid = MOCK_PORTID;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = FASTTRACK_GENL_VERSION;
	return nlh;
}

static void end_msg(struct nlmsghdr *nlh)
{
	replies[nreplies - 1].len += NLMSG_ALIGN(nlh->nlmsg_len);
}

/*
 * An ack (error 0) or error, capped, with extack message and offset, and
 * the policy range of the bad attribute when @max is not 0.
 */
static void put_ack_range(const struct nlmsghdr *req, int error,
			  const char *msg, const struct nlattr *bad,
			  uint64_t min, uint64_t max)
{
	char *buf = replies[nreplies - 1].buf + replies[nreplies - 1].len;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *err;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED;
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_pid = MOCK_PORTID;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	err->error = error;
	err->msg = *req;
	if (msg || bad)
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	if (msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	if (bad)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS,
				 (uint32_t)((const char *)bad - (const char *)req));
	if (max) {
		struct nlattr *nest;

		nest = mnl_attr_nest_start(nlh, NLMSGERR_ATTR_POLICY);
		mnl_attr_put_u32(nlh, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U32);
		mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MIN_VALUE_U, min);
		mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, max);
		mnl_attr_nest_end(nlh, nest);
	}
	end_msg(nlh);
}

static void put_ack(const struct nlmsghdr *req, int error, const char *msg,
		    const struct nlattr *bad)
{
	put_ack_range(req, error, msg, bad, 0, 0);
}

static void put_done(const struct nlmsghdr *req, uint16_t flags)
{
	char *buf = replies[nreplies - 1].buf + replies[nreplies - 1].len;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	int *error;

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI | flags;
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_pid = MOCK_PORTID;
	error = mnl_nlmsg_put_extra_header(nlh, sizeof(*error));
	*error = 0;
	end_msg(nlh);
}

/* A u64 the way nla_put_u64_64bit() may lay it out: a pad first. */
static void put_u64_padded(struct nlmsghdr *nlh, uint16_t type, uint64_t v,
			   uint16_t pad)
{
	if (!(nlh->nlmsg_len % 8))
		mnl_attr_put(nlh, pad, 0, NULL);
	mnl_attr_put_u64(nlh, type, v);
}

struct mock_dev {
	uint32_t ifindex;
	const char *ifname;
	uint32_t families;
	uint64_t pkts[2], bytes[2];
};

static const struct mock_dev devs[] = {
	{ 7, "ifb1", FASTTRACK_F_IPV6, { 0, 42 }, { 0, 4200 } },
	{ 2, "eth0", FASTTRACK_F_IPV4 | FASTTRACK_F_IPV6,
	  { 123, 18446744073709551615ULL }, { 4567, 1 } },
	{ 5, "vlan\"22\\", FASTTRACK_F_IPV4, { 1, 0 }, { 100, 0 } },
};

static void put_dev(const struct nlmsghdr *req, uint16_t flags,
		    const struct mock_dev *d)
{
	struct nlmsghdr *nlh = put_msg(req, MOCK_FAMILY, flags,
				       FASTTRACK_CMD_DEV_GET);
	uint16_t fam_attr[2] = { FASTTRACK_A_DEV_IPV4, FASTTRACK_A_DEV_IPV6 };
	struct nlattr *nest;
	int i;

	mnl_attr_put_u32(nlh, FASTTRACK_A_IFINDEX, d->ifindex);
	mnl_attr_put_strz(nlh, FASTTRACK_A_IFNAME, d->ifname);
	mnl_attr_put_u32(nlh, FASTTRACK_A_MAX + 7, 0xdead);	/* newer kernel */
	for (i = 0; i < 2; i++) {
		/* Leave out the IPv4 nest of ifb1: ftctl must cope. */
		if (d->ifindex == 7 && i == 0)
			continue;
		nest = mnl_attr_nest_start(nlh, fam_attr[i]);
		mnl_attr_put_u8(nlh, FASTTRACK_A_DEVFAM_ENABLED,
				!!(d->families & (1U << i)));
		put_u64_padded(nlh, FASTTRACK_A_DEVFAM_PACKETS, d->pkts[i],
			       FASTTRACK_A_DEVFAM_PAD);
		put_u64_padded(nlh, FASTTRACK_A_DEVFAM_BYTES, d->bytes[i],
			       FASTTRACK_A_DEVFAM_PAD);
		mnl_attr_put_u16(nlh, FASTTRACK_A_DEVFAM_MAX + 3, 1);
		mnl_attr_nest_end(nlh, nest);
	}
	end_msg(nlh);
}

struct req_attrs {
	const struct nlattr *tb[FASTTRACK_A_MAX + 1];
};

static int req_attr_cb(const struct nlattr *attr, void *data)
{
	struct req_attrs *r = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type > FASTTRACK_A_MAX) {
		trace("unknown attribute %u", type);
		return MNL_CB_OK;
	}
	r->tb[type] = attr;
	if (type == FASTTRACK_A_IFNAME)
		trace("IFNAME=%s", mnl_attr_get_str(attr));
	else
		trace("attr %u=%u", type, mnl_attr_get_u32(attr));
	return MNL_CB_OK;
}

static void handle_ctrl(const struct nlmsghdr *req)
{
	const struct nlattr *attr;
	struct nlmsghdr *nlh;

	new_reply();
	mnl_attr_for_each(attr, req, GENL_HDRLEN) {
		if (mnl_attr_get_type(attr) != CTRL_ATTR_FAMILY_NAME)
			continue;
		trace("GETFAMILY %s", mnl_attr_get_str(attr));
		if (env("FTMOCK_NOFAMILY") ||
		    strcmp(mnl_attr_get_str(attr), FASTTRACK_GENL_NAME)) {
			put_ack(req, -ENOENT, NULL, NULL);
			return;
		}
	}
	nlh = put_msg(req, GENL_ID_CTRL, 0, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, FASTTRACK_GENL_NAME);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, MOCK_FAMILY);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, FASTTRACK_GENL_VERSION);
	end_msg(nlh);
	put_ack(req, 0, NULL, NULL);
}

static void handle_dev_get(const struct nlmsghdr *req, struct req_attrs *r)
{
	uint16_t intr = 0;
	unsigned int i;

	if (req->nlmsg_flags & NLM_F_DUMP) {
		if (intr_left < 0)
			intr_left = getenv("FTMOCK_INTR") ?
				    atoi(getenv("FTMOCK_INTR")) : 0;
		if (intr_left > 0) {
			intr_left--;
			intr = NLM_F_DUMP_INTR;
		}
		trace("DEV_GET dump%s", intr ? " (interrupted)" : "");
		if (env("FTMOCK_EMPTY")) {
			new_reply();
			put_done(req, intr);
			return;
		}
		/* One device per read, the way a big dump arrives. */
		for (i = 0; i < MNL_ARRAY_SIZE(devs); i++) {
			new_reply();
			put_dev(req, NLM_F_MULTI | (i ? intr : 0), &devs[i]);
		}
		put_done(req, intr);
		return;
	}

	trace("DEV_GET");
	new_reply();
	for (i = 0; i < MNL_ARRAY_SIZE(devs); i++) {
		if (r->tb[FASTTRACK_A_IFNAME] &&
		    !strcmp(mnl_attr_get_str(r->tb[FASTTRACK_A_IFNAME]),
			    devs[i].ifname)) {
			put_dev(req, 0, &devs[i]);
			put_ack(req, 0, NULL, NULL);
			return;
		}
	}
	put_ack(req, -ENOENT, "fasttrack is not enabled on this device",
		r->tb[FASTTRACK_A_IFNAME]);
}

static void handle_dev_change(const struct nlmsghdr *req, uint8_t cmd,
			      struct req_attrs *r)
{
	const char *name = r->tb[FASTTRACK_A_IFNAME] ?
			   mnl_attr_get_str(r->tb[FASTTRACK_A_IFNAME]) : "";

	trace("%s", cmd == FASTTRACK_CMD_DEV_ENABLE ? "DEV_ENABLE" : "DEV_DISABLE");
	new_reply();
	if (env("FTMOCK_EPERM"))
		put_ack(req, -EPERM, NULL, NULL);
	else if (!strcmp(name, "lo"))
		put_ack(req, -EOPNOTSUPP, "device is not Ethernet-like",
			r->tb[FASTTRACK_A_IFNAME]);
	else if (!strcmp(name, "ifb1"))
		put_ack(req, -ENODEV, "no such device", NULL);
	else
		put_ack(req, 0, NULL, NULL);
}

static void handle_stats(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	uint16_t t;

	trace("STATS_GET");
	new_reply();
	nlh = put_msg(req, MOCK_FAMILY, 0, FASTTRACK_CMD_STATS_GET);
	nest = mnl_attr_nest_start(nlh, FASTTRACK_A_STATS);
	for (t = FASTTRACK_A_STAT_FLOWS; t <= FASTTRACK_A_STAT_MAX; t++)
		put_u64_padded(nlh, t, t == FASTTRACK_A_STAT_FORWARDED_BYTES ?
			       18446744073709551615ULL : (uint64_t)t * 1000,
			       FASTTRACK_A_STAT_PAD);
	put_u64_padded(nlh, FASTTRACK_A_STAT_MAX + 1, 99, FASTTRACK_A_STAT_PAD);
	mnl_attr_nest_end(nlh, nest);
	end_msg(nlh);
	put_ack(req, 0, NULL, NULL);
}

static void handle_config_get(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh;

	trace("CONFIG_GET");
	new_reply();
	nlh = put_msg(req, MOCK_FAMILY, 0, FASTTRACK_CMD_CONFIG_GET);
	mnl_attr_put_u32(nlh, FASTTRACK_A_CFG_MAX_FLOWS, 65536);
	mnl_attr_put_u32(nlh, FASTTRACK_A_CFG_TCP_TIMEOUT, 300);
	mnl_attr_put_u32(nlh, FASTTRACK_A_CFG_UDP_TIMEOUT, 30);
	mnl_attr_put_u32(nlh, FASTTRACK_A_CFG_SKIP_MARK, 0x10);
	mnl_attr_put_u32(nlh, FASTTRACK_A_CFG_SKIP_MASK, 0xffffffff);
	mnl_attr_put_u32(nlh, FASTTRACK_A_MAX + 1, 5);
	end_msg(nlh);
	put_ack(req, 0, NULL, NULL);
}

static void handle_config_set(const struct nlmsghdr *req, struct req_attrs *r)
{
	const struct nlattr *a;

	trace("CONFIG_SET");
	new_reply();
	if (env("FTMOCK_EPERM")) {
		put_ack(req, -EPERM, NULL, NULL);
		return;
	}
	a = r->tb[FASTTRACK_A_CFG_MAX_FLOWS];
	if (a && (!mnl_attr_get_u32(a) ||
		  mnl_attr_get_u32(a) > FASTTRACK_MAX_FLOWS_LIMIT)) {
		put_ack_range(req, -ERANGE, "integer out of range", a, 1,
			      FASTTRACK_MAX_FLOWS_LIMIT);
		return;
	}
	a = r->tb[FASTTRACK_A_CFG_TCP_TIMEOUT];
	if (a && !mnl_attr_get_u32(a)) {
		put_ack(req, -ERANGE, NULL, a);	/* no message, only offset */
		return;
	}
	put_ack(req, 0, NULL, NULL);
}

static void handle(const struct nlmsghdr *req)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(req);
	struct req_attrs r = { 0 };

	nreplies = next_reply = 0;
	if (req->nlmsg_type == GENL_ID_CTRL) {
		handle_ctrl(req);
		return;
	}
	mnl_attr_parse(req, GENL_HDRLEN, req_attr_cb, &r);

	switch (genl->cmd) {
	case FASTTRACK_CMD_DEV_ENABLE:
	case FASTTRACK_CMD_DEV_DISABLE:
		handle_dev_change(req, genl->cmd, &r);
		break;
	case FASTTRACK_CMD_DEV_GET:
		handle_dev_get(req, &r);
		break;
	case FASTTRACK_CMD_STATS_GET:
		handle_stats(req);
		break;
	case FASTTRACK_CMD_CONFIG_GET:
		handle_config_get(req);
		break;
	case FASTTRACK_CMD_CONFIG_SET:
		handle_config_set(req, &r);
		break;
	default:
		new_reply();
		put_ack(req, -EOPNOTSUPP, NULL, NULL);
	}
}

/* The libc calls libmnl makes, taken over for the mock socket. */

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);

	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	if (domain != AF_NETLINK || protocol != NETLINK_GENERIC)
		return real(domain, type, protocol);
	mock_fd = real(AF_UNIX, SOCK_DGRAM, 0);
	return mock_fd;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	static int (*real)(int, const struct sockaddr *, socklen_t);

	if (fd == mock_fd)
		return 0;
	if (!real)
		real = (int (*)(int, const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "bind");
	return real(fd, addr, len);
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	static int (*real)(int, struct sockaddr *, socklen_t *);
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_pid = MOCK_PORTID };

	if (fd == mock_fd) {
		memcpy(addr, &nl, sizeof(nl));
		*len = sizeof(nl);
		return 0;
	}
	if (!real)
		real = (int (*)(int, struct sockaddr *, socklen_t *))
			dlsym(RTLD_NEXT, "getsockname");
	return real(fd, addr, len);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	static int (*real)(int, int, int, const void *, socklen_t);

	if (fd == mock_fd) {
		if (level == SOL_NETLINK)
			trace("setsockopt %s",
			      name == NETLINK_EXT_ACK ? "NETLINK_EXT_ACK" :
			      name == NETLINK_CAP_ACK ? "NETLINK_CAP_ACK" : "?");
		return 0;
	}
	if (!real)
		real = (int (*)(int, int, int, const void *, socklen_t))
			dlsym(RTLD_NEXT, "setsockopt");
	return real(fd, level, name, val, len);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t alen)
{
	static ssize_t (*real)(int, const void *, size_t, int,
			       const struct sockaddr *, socklen_t);

	if (fd == mock_fd) {
		handle(buf);
		return (ssize_t)len;
	}
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, int,
				    const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "sendto");
	return real(fd, buf, len, flags, addr, alen);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	size_t len;

	if (fd != mock_fd) {
		if (!real)
			real = (ssize_t (*)(int, struct msghdr *, int))
				dlsym(RTLD_NEXT, "recvmsg");
		return real(fd, msg, flags);
	}
	if (next_reply >= nreplies) {
		trace("recvmsg with nothing to read: ftctl would block");
		exit(99);
	}
	len = replies[next_reply].len;
	msg->msg_flags = 0;
	if (len > msg->msg_iov[0].iov_len) {
		len = msg->msg_iov[0].iov_len;
		msg->msg_flags = MSG_TRUNC;
	}
	memcpy(msg->msg_iov[0].iov_base, replies[next_reply].buf, len);
	memcpy(msg->msg_name, &nl, sizeof(nl));
	msg->msg_namelen = sizeof(nl);
	next_reply++;
	return (ssize_t)len;
}
