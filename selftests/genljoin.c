// SPDX-License-Identifier: GPL-2.0
/*
 * genljoin: join one multicast group of a generic netlink family, and say
 * whether the kernel let us.
 *
 *   genljoin FAMILY GROUP
 *
 * Resolves FAMILY and its GROUP with CTRL_CMD_GETFAMILY, then joins the
 * group with NETLINK_ADD_MEMBERSHIP. Prints "joined", or "refused: <errno
 * text>", or what went wrong before the join could be tried.
 *
 * Exit: 0 joined, 1 the join was refused with EPERM or EACCES, 2 anything
 * else (no such family or group, a netlink error).
 *
 * The selftests use it as a feature probe: run as an unprivileged user on a
 * group the kernel marks GENL_MCAST_CAP_NET_ADMIN (psample's "packets"), a
 * refusal shows that this kernel can restrict who joins a group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define NLA_OK(nla, left)                                              \
	((left) >= (int)NLA_HDRLEN && (nla)->nla_len >= NLA_HDRLEN &&  \
	 (nla)->nla_len <= (left))
#define NLA_NEXT(nla, left)                                            \
	((left) -= NLA_ALIGN((nla)->nla_len),                          \
	 (const struct nlattr *)((const uint8_t *)(nla) + NLA_ALIGN((nla)->nla_len)))
#define NLA_DATA(nla) ((const void *)((const uint8_t *)(nla) + NLA_HDRLEN))
#define NLA_PAYLOAD(nla) ((int)(nla)->nla_len - (int)NLA_HDRLEN)

/* The id of group @want in a CTRL_ATTR_MCAST_GROUPS nest, or 0. */
static uint32_t find_group(const struct nlattr *groups, const char *want)
{
	int left = NLA_PAYLOAD(groups);
	const struct nlattr *grp = NLA_DATA(groups);

	for (; NLA_OK(grp, left); grp = NLA_NEXT(grp, left)) {
		int l2 = NLA_PAYLOAD(grp);
		const struct nlattr *a = NLA_DATA(grp);
		const char *name = NULL;
		uint32_t id = 0;
		int nlen = 0;

		for (; NLA_OK(a, l2); a = NLA_NEXT(a, l2)) {
			if (a->nla_type == CTRL_ATTR_MCAST_GRP_NAME) {
				name = NLA_DATA(a);
				nlen = NLA_PAYLOAD(a);
			} else if (a->nla_type == CTRL_ATTR_MCAST_GRP_ID &&
				 NLA_PAYLOAD(a) >= 4)
				memcpy(&id, NLA_DATA(a), 4);
		}
		if (name && id && nlen == (int)strlen(want) + 1 &&
		    !memcmp(name, want, nlen))
			return id;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr g;
		char buf[64];
	} req = { 0 };
	static char reply[16384];
	const struct nlmsghdr *nlh;
	const struct nlattr *a;
	struct nlattr *na;
	uint32_t group = 0;
	size_t flen;
	int fd, len, left;

	if (argc != 3) {
		fprintf(stderr, "usage: genljoin FAMILY GROUP\n");
		return 2;
	}
	flen = strlen(argv[1]) + 1;
	if (flen > sizeof(req.buf) - NLA_HDRLEN) {
		fprintf(stderr, "genljoin: family name too long\n");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		printf("error: socket: %s\n", strerror(errno));
		return 2;
	}
	na = (struct nlattr *)req.buf;
	na->nla_type = CTRL_ATTR_FAMILY_NAME;
	na->nla_len = NLA_HDRLEN + flen;
	memcpy(req.buf + NLA_HDRLEN, argv[1], flen);
	req.nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + NLA_ALIGN(na->nla_len));
	req.nlh.nlmsg_type = GENL_ID_CTRL;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.nlh.nlmsg_seq = 1;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 1;
	if (send(fd, &req, req.nlh.nlmsg_len, 0) < 0) {
		printf("error: send: %s\n", strerror(errno));
		return 2;
	}
	len = recv(fd, reply, sizeof(reply), 0);
	if (len < 0) {
		printf("error: recv: %s\n", strerror(errno));
		return 2;
	}
	nlh = (const struct nlmsghdr *)reply;
	if (!NLMSG_OK(nlh, (unsigned int)len)) {
		printf("error: short reply\n");
		return 2;
	}
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(nlh);

		printf("error: no family %s: %s\n", argv[1], strerror(-e->error));
		return 2;
	}
	left = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	a = (const struct nlattr *)((const uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	for (; NLA_OK(a, left); a = NLA_NEXT(a, left))
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GROUPS)
			group = find_group(a, argv[2]);
	if (!group) {
		printf("error: family %s has no group %s\n", argv[1], argv[2]);
		return 2;
	}
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group,
		       sizeof(group)) < 0) {
		int err = errno;

		printf("refused: %s\n", strerror(err));
		return err == EPERM || err == EACCES ? 1 : 2;
	}
	printf("joined\n");
	close(fd);
	return 0;
}
