// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: generic netlink transport on libmnl.
 *
 * The socket asks for extended acks (NETLINK_EXT_ACK) so the kernel can say
 * what it rejected, and for capped acks (NETLINK_CAP_ACK) so an error does
 * not echo the whole request back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>

#include "nl.h"

/*
 * The kernel sizes dump messages by the reader's buffer, up to 32 KiB
 * (netlink_recvmsg); a smaller buffer would truncate them. A larger
 * message (a doit reply can be) grows the buffer: see nl_recv().
 */
#define NL_RX_SIZE	32768
#define NL_TX_SIZE	MNL_SOCKET_BUFFER_SIZE
#define NL_DUMP_TRIES	4

struct talk {
	struct nl *nl;
	mnl_cb_t cb;
	void *data;
	bool intr;
	bool stream;	/* hand NLM_F_DUMP_INTR messages to cb; no restart */
};

/*
 * Receive one datagram into nl->rx. Its size is peeked first (MSG_PEEK |
 * MSG_TRUNC returns the full length), so that no message is ever cut,
 * however large. @flags may add MSG_DONTWAIT. Returns the length or
 * -errno.
 */
static ssize_t nl_recv(struct nl *nl, int flags)
{
	struct sockaddr_nl addr;
	struct iovec iov = { .iov_base = nl->rx, .iov_len = 0 };
	struct msghdr msg = {
		.msg_name = &addr,
		.msg_namelen = sizeof(addr),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	int fd = mnl_socket_get_fd(nl->sk);
	ssize_t len;

	len = recvmsg(fd, &msg, flags | MSG_PEEK | MSG_TRUNC);
	if (len < 0)
		return -errno;
	if ((size_t)len > nl->rx_size) {
		char *rx = realloc(nl->rx, (size_t)len);

		if (!rx)
			return -ENOMEM;
		nl->rx = rx;
		nl->rx_size = (size_t)len;
	}

	iov.iov_base = nl->rx;
	iov.iov_len = nl->rx_size;
	msg.msg_namelen = sizeof(addr);
	msg.msg_flags = 0;
	len = recvmsg(fd, &msg, flags);
	if (len < 0)
		return -errno;
	if (msg.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	/* Only the kernel (port 0) talks to us. */
	if (msg.msg_namelen != sizeof(addr) || addr.nl_pid != 0)
		return -EBADMSG;
	return len;
}

/*
 * libmnl stops at a message flagged NLM_F_DUMP_INTR. A streamed dump has
 * printed what came before, so it cannot restart: take the flag off and
 * remember it instead.
 */
static void clear_dump_intr(struct nl *nl, void *buf, int len)
{
	struct nlmsghdr *nlh;

	for (nlh = buf; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			nlh->nlmsg_flags &= ~NLM_F_DUMP_INTR;
			nl->dump_intr = true;
		}
	}
}

/* NLMSGERR_ATTR_POLICY: the policy of the attribute that was rejected. */
static int ext_policy_cb(const struct nlattr *attr, void *data)
{
	struct nl *nl = data;

	switch (mnl_attr_get_type(attr)) {
	case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
		if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
			break;
		nl->ext_min = mnl_attr_get_u64(attr);
		nl->has_ext_range = true;
		break;
	case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
		if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
			break;
		nl->ext_max = mnl_attr_get_u64(attr);
		nl->has_ext_range = true;
		break;
	}
	return MNL_CB_OK;
}

static int ext_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl *nl = data;

	switch (mnl_attr_get_type(attr)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			break;
		snprintf(nl->ext_msg, sizeof(nl->ext_msg), "%s",
			 mnl_attr_get_str(attr));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			break;
		nl->ext_offs = mnl_attr_get_u32(attr);
		nl->has_ext_offs = true;
		break;
	case NLMSGERR_ATTR_POLICY:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			break;
		mnl_attr_parse_nested(attr, ext_policy_cb, nl);
		break;
	}
	return MNL_CB_OK;
}

/* Extack TLVs start after the error code (and the echoed request, if any). */
static void parse_ext_ack(struct nl *nl, const struct nlmsghdr *nlh,
			  unsigned int offset)
{
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (offset > mnl_nlmsg_get_payload_len(nlh))
		return;
	mnl_attr_parse(nlh, offset, ext_attr_cb, nl);
}

static int set_error(struct nl *nl, int error)
{
	nl->kernel_err = true;
	errno = error < 0 ? -error : error;
	return MNL_CB_ERROR;
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	unsigned int offset = sizeof(*err);
	struct talk *t = data;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err))
		return nl_bad_reply();
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
	    err->msg.nlmsg_len > sizeof(struct nlmsghdr))
		offset += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	parse_ext_ack(t->nl, nlh, offset);

	if (err->error == 0)
		return MNL_CB_STOP;	/* the ack */
	return set_error(t->nl, err->error);
}

/* NLMSG_DONE ends a dump; it carries the dump's error code, if any. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	int error = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(error)) {
		memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(error));
		parse_ext_ack(t->nl, nlh, sizeof(error));
	}
	if (error == 0)
		return MNL_CB_STOP;
	return set_error(t->nl, error);
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	if (nlh->nlmsg_type != t->nl->family)
		return MNL_CB_OK;
	if (!t->cb)
		return MNL_CB_OK;
	return t->cb(nlh, t->data);
}

/* Not const: libmnl before 1.0.5 takes a plain pointer. */
static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR]	= error_cb,
	[NLMSG_DONE]	= done_cb,
};

/* True when the messages in buf[0..len) hold the end of request @seq. */
static bool has_end(const void *buf, int len, uint32_t seq)
{
	const struct nlmsghdr *nlh;

	for (nlh = buf; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
		if (nlh->nlmsg_seq != seq)
			continue;
		if (nlh->nlmsg_type == NLMSG_DONE ||
		    nlh->nlmsg_type == NLMSG_ERROR)
			return true;
	}
	return false;
}

/*
 * Read what is left of an interrupted dump, up to its NLMSG_DONE (or error),
 * so that the socket is clean for the next request. libmnl stops at the
 * first message flagged NLM_F_DUMP_INTR, so walk the messages by hand,
 * starting with the rest of the buffer already received.
 */
static int drain(struct nl *nl, uint32_t seq, ssize_t len)
{
	while (!has_end(nl->rx, (int)len, seq)) {
		len = nl_recv(nl, 0);
		if (len < 0)
			return (int)len;
	}
	return 0;
}

static int talk(struct nl *nl, struct nlmsghdr *nlh, struct talk *t)
{
	uint32_t seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	nl->ext_msg[0] = '\0';
	nl->has_ext_offs = false;
	nl->has_ext_range = false;
	nl->ext_min = 0;
	nl->ext_max = 0;
	nl->kernel_err = false;

	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;

	do {
		len = nl_recv(nl, 0);
		if (len < 0)
			return (int)len;
		if (t->stream)
			clear_dump_intr(nl, nl->rx, (int)len);
		errno = 0;
		ret = mnl_cb_run2(nl->rx, len, seq, nl->portid, data_cb, t,
				  ctl_cbs, MNL_ARRAY_SIZE(ctl_cbs));
	} while (ret > MNL_CB_STOP);

	if (ret < 0) {
		int err = errno ? errno : EBADMSG;

		/*
		 * libmnl reports a dump flagged NLM_F_DUMP_INTR as EINTR
		 * before it looks at the message; nothing else does.
		 */
		if (err == EINTR && !nl->kernel_err) {
			t->intr = true;
			ret = drain(nl, seq, len);
			return ret ? ret : -EINTR;
		}
		return -err;
	}
	return 0;
}

struct nlmsghdr *nl_msg(struct nl *nl, uint8_t cmd, uint16_t flags)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	/* libmnl 1.0.4 leaves attribute padding as it finds it. */
	memset(nl->tx, 0, NL_TX_SIZE);
	nlh = mnl_nlmsg_put_header(nl->tx);
	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;

	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = nl->req_version;
	return nlh;
}

int nl_request(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	struct talk t = { .nl = nl, .cb = cb, .data = data };

	nlh->nlmsg_flags |= NLM_F_ACK;
	return talk(nl, nlh, &t);
}

int nl_dump(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
	    void (*reset)(void *data), void *data)
{
	struct talk t = { .nl = nl, .cb = cb, .data = data };
	int tries, ret = -EINTR;

	nlh->nlmsg_flags |= NLM_F_DUMP;
	for (tries = 0; tries < NL_DUMP_TRIES; tries++) {
		t.intr = false;
		ret = talk(nl, nlh, &t);
		if (!t.intr)
			break;
		if (reset)
			reset(data);
		nlh->nlmsg_seq = ++nl->seq;
	}
	return ret;
}

int nl_dump_stream(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data)
{
	struct talk t = { .nl = nl, .cb = cb, .data = data, .stream = true };

	nl->dump_intr = false;
	nlh->nlmsg_flags |= NLM_F_DUMP;
	return talk(nl, nlh, &t);
}

int nl_subscribe(struct nl *nl, const char *name)
{
	unsigned int i;

	for (i = 0; i < nl->ngroups; i++) {
		if (strcmp(nl->groups[i].name, name))
			continue;
		if (mnl_socket_setsockopt(nl->sk, NETLINK_ADD_MEMBERSHIP,
					  &nl->groups[i].id,
					  sizeof(nl->groups[i].id)) < 0)
			return -errno;
		return 0;
	}
	return -ENOENT;
}

int nl_recv_events(struct nl *nl, mnl_cb_t cb, void *data)
{
	struct talk t = { .nl = nl, .cb = cb, .data = data };
	ssize_t len;
	int ret;

	len = nl_recv(nl, MSG_DONTWAIT);
	if (len < 0)
		return (int)len;
	nl->kernel_err = false;
	errno = 0;
	/* Events have sequence number 0 and come from port 0: no checks. */
	ret = mnl_cb_run2(nl->rx, (size_t)len, 0, 0, data_cb, &t,
			  ctl_cbs, MNL_ARRAY_SIZE(ctl_cbs));
	if (ret < 0)
		return -(errno ? errno : EBADMSG);
	return 0;
}

int nl_fd(const struct nl *nl)
{
	return mnl_socket_get_fd(nl->sk);
}

uint16_t nl_blamed_attr(const struct nl *nl)
{
	struct nlmsghdr *nlh = (void *)nl->tx;
	struct nlattr *attr;

	if (!nl->has_ext_offs)
		return 0;
	mnl_attr_for_each(attr, nlh, GENL_HDRLEN) {
		uint32_t start = (uint32_t)((const char *)attr - nl->tx);

		if (nl->ext_offs >= start &&
		    nl->ext_offs < start + mnl_attr_get_len(attr))
			return mnl_attr_get_type(attr);
	}
	return 0;
}

int nl_parse(const struct nlmsghdr *nlh, mnl_attr_cb_t cb, void *data)
{
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return nl_bad_reply();
	return mnl_attr_parse(nlh, GENL_HDRLEN, cb, data);
}

int nl_bad_reply(void)
{
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

bool nl_attr_known(const struct nlattr *attr, uint16_t max)
{
	uint16_t type = mnl_attr_get_type(attr);

	return type != 0 && type <= max;
}

bool nl_attr_is_uint(const struct nlattr *attr)
{
	uint16_t len = mnl_attr_get_payload_len(attr);

	return len == sizeof(uint64_t) || len == sizeof(uint32_t);
}

uint64_t nl_attr_get_uint(const struct nlattr *attr)
{
	if (mnl_attr_get_payload_len(attr) == sizeof(uint32_t))
		return mnl_attr_get_u32(attr);
	return mnl_attr_get_u64(attr);
}

/* CTRL_CMD_GETFAMILY reply: pick the id, version and multicast groups. */
struct family_reply {
	uint16_t id;
	uint32_t version;
	struct nl *nl;
};

static int group_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl_group *g = data;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_MCAST_GRP_NAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return nl_bad_reply();
		snprintf(g->name, sizeof(g->name), "%s", mnl_attr_get_str(attr));
		break;
	case CTRL_ATTR_MCAST_GRP_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return nl_bad_reply();
		g->id = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

/* CTRL_ATTR_MCAST_GROUPS: an array of nests, each a name and an id. */
static int parse_groups(struct nl *nl, const struct nlattr *groups)
{
	const struct nlattr *attr;

	if (mnl_attr_validate(groups, MNL_TYPE_NESTED) < 0)
		return nl_bad_reply();
	mnl_attr_for_each_nested(attr, groups) {
		struct nl_group g = { "", 0 };

		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return nl_bad_reply();
		if (mnl_attr_parse_nested(attr, group_attr_cb, &g) < 0)
			return MNL_CB_ERROR;
		if (!g.name[0] || !g.id || nl->ngroups == NL_MAX_GROUPS)
			continue;
		nl->groups[nl->ngroups++] = g;
	}
	return MNL_CB_OK;
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	struct family_reply *f = data;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
			return nl_bad_reply();
		f->id = mnl_attr_get_u16(attr);
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return nl_bad_reply();
		f->version = mnl_attr_get_u32(attr);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		return parse_groups(f->nl, attr);
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return nl_parse(nlh, family_attr_cb, data);
}

static int resolve_family(struct nl *nl, const char *name, uint8_t version)
{
	struct family_reply f = { .nl = nl };
	struct nlmsghdr *nlh;
	int ret;

	nl->ngroups = 0;
	nl->family = GENL_ID_CTRL;
	nl->req_version = 1;
	nlh = nl_msg(nl, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);

	ret = nl_request(nl, nlh, family_cb, &f);
	if (ret)
		return ret;
	if (!f.id)
		return -ENOENT;
	nl->family = f.id;
	nl->version = f.version;
	nl->req_version = version;
	return 0;
}

int nl_open(struct nl *nl, const char *family_name, uint8_t version)
{
	int one = 1, ret;

	memset(nl, 0, sizeof(*nl));
	nl->tx = malloc(NL_TX_SIZE);
	nl->rx = malloc(NL_RX_SIZE);
	nl->rx_size = NL_RX_SIZE;
	if (!nl->tx || !nl->rx) {
		ret = -ENOMEM;
		goto err;
	}

	nl->sk = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sk) {
		ret = -errno;
		goto err;
	}
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto err;
	}
	/* Both are best effort: kernels before 4.12 lack extended acks. */
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));

	nl->portid = mnl_socket_get_portid(nl->sk);
	nl->seq = (uint32_t)time(NULL);

	ret = resolve_family(nl, family_name, version);
	if (ret)
		goto err;
	return 0;

err:
	nl_close(nl);
	return ret;
}

void nl_close(struct nl *nl)
{
	if (nl->sk)
		mnl_socket_close(nl->sk);
	free(nl->tx);
	free(nl->rx);
	nl->sk = NULL;
	nl->tx = NULL;
	nl->rx = NULL;
}
