// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: devices over rtnetlink. See link.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "link.h"

/* A link message with IFLA_STATS64 and the rest fits in far less. */
#define LINK_BUF_SIZE	65536
/* IFLA_STATS64 up to rx_bytes, the fields read. */
#define RX_STATS_LEN	(offsetof(struct rtnl_link_stats64, rx_bytes) + 8)

/*
 * Send @nlh, an RTM_GETLINK request, and run @cb on the answer: 0, or
 * -errno (-ENODEV: no such device).
 */
static int link_request(struct ft_link *l, struct nlmsghdr *nlh,
			mnl_cb_t cb, void *data)
{
	uint32_t seq = nlh->nlmsg_seq;	/* the answer overwrites @nlh */
	int ret;

	if (mnl_socket_sendto(l->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		ssize_t len = mnl_socket_recvfrom(l->sk, l->buf, LINK_BUF_SIZE);

		if (len < 0)
			return -errno;
		errno = 0;
		ret = mnl_cb_run(l->buf, (size_t)len, seq, l->portid, cb, data);
	} while (ret > MNL_CB_STOP);
	if (ret < 0)
		return errno ? -errno : -EBADMSG;
	return 0;
}

int ft_link_open(struct ft_link *l)
{
	memset(l, 0, sizeof(*l));
	l->buf = malloc(LINK_BUF_SIZE);
	if (!l->buf)
		return -ENOMEM;
	l->sk = mnl_socket_open(NETLINK_ROUTE);
	if (!l->sk || mnl_socket_bind(l->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		ft_link_close(l);
		return err;
	}
	l->portid = mnl_socket_get_portid(l->sk);
	l->seq = (uint32_t)time(NULL);
	return 0;
}

void ft_link_close(struct ft_link *l)
{
	if (l->sk)
		mnl_socket_close(l->sk);
	free(l->buf);
	l->sk = NULL;
	l->buf = NULL;
}

static int index_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	*(uint32_t *)data = (uint32_t)ifi->ifi_index;
	return MNL_CB_STOP;
}

int ft_link_index(const char *name, uint32_t *ifindex)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	struct ft_link l;
	uint32_t index = 0;
	int ret;

	ret = ft_link_open(&l);
	if (ret)
		return ret;
	nlh = mnl_nlmsg_put_header(l.buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++l.seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);

	ret = link_request(&l, nlh, index_cb, &index);
	ft_link_close(&l);
	if (ret)
		return ret;
	if (!index)
		return -ENODEV;
	if (ifindex)
		*ifindex = index;
	return 0;
}

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	size_t len = mnl_attr_get_payload_len(attr);
	struct rtnl_link_stats64 s64;
	struct ft_link_stats *st = data;

	if (mnl_attr_get_type(attr) != IFLA_STATS64)
		return MNL_CB_OK;
	/* Newer kernels append fields: the first ones are all we read. */
	if (len < RX_STATS_LEN) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	memset(&s64, 0, sizeof(s64));
	memcpy(&s64, mnl_attr_get_payload(attr),
	       len < sizeof(s64) ? len : sizeof(s64));
	st->rx_packets = s64.rx_packets;
	st->rx_bytes = s64.rx_bytes;
	return MNL_CB_STOP;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_attr_cb,
			      data) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

int ft_link_stats(struct ft_link *l, uint32_t ifindex,
		  struct ft_link_stats *st)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(l->buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++l->seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;

	memset(st, 0, sizeof(*st));
	return link_request(l, nlh, link_cb, st);
}
