// SPDX-License-Identifier: GPL-2.0
/*
 * IPv4 route changes the FIB notifier leaves out, and the settings of
 * the input route that no notifier reports.
 *
 * The notifier reports a change only when it touches the first alias of a
 * prefix, the one switch drivers offload. A TOS-0 route behind a TOS route
 * of the same prefix changes unreported, while rt_genid moves, which
 * route.c would take for a change of another prefix and re-arm past.
 * rtnetlink announces every change, so a kernel socket per netns joins
 * RTNLGRP_IPV4_ROUTE, as "ip monitor route" would, and logs the prefix of
 * each message. Delivery is synchronous, in the sender's context: after an
 * insertion or a replacement is visible, and just before a deletion is
 * unlinked, which route.c's recheck covers as it does for the notifier.
 * The same socket joins RTNLGRP_IPV4_NETCONF: turning rp_filter on sends
 * only such a message.
 */
#include <linux/net.h>
#include <linux/netconf.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "fasttrack.h"

/*
 * A device's IPv4 settings changed: those the input route reads per
 * packet (rp_filter, ignore_routes_with_linkdown) move no generation, so
 * every IPv4 flow looks its route up again. The forwarding switch the fast
 * path reads itself.
 */
static void ft_route_nl_netconf(struct ft_net *fn, const struct nlmsghdr *nlh)
{
	const struct netconfmsg *ncm;

	if (nlh->nlmsg_len < nlmsg_msg_size(sizeof(*ncm)))
		return;
	ncm = nlmsg_data(nlh);
	if (ncm->ncm_family != AF_INET)
		return;
	if (nlmsg_find_attr(nlh, sizeof(*ncm), NETCONFA_RP_FILTER) ||
	    nlmsg_find_attr(nlh, sizeof(*ncm),
			    NETCONFA_IGNORE_ROUTES_WITH_LINKDOWN))
		ft_route_log(fn, FT_FAM_V4, NULL);
}

/* Log the prefix of one message; one that cannot be read covers all. */
static void ft_route_nl_msg(struct ft_net *fn, const struct nlmsghdr *nlh)
{
	struct ft_route_change c = {};
	const struct nlattr *dst;
	const struct rtmsg *rtm;

	if (nlh->nlmsg_type == RTM_NEWNETCONF) {
		ft_route_nl_netconf(fn, nlh);
		return;
	}
	if (nlh->nlmsg_type != RTM_NEWROUTE && nlh->nlmsg_type != RTM_DELROUTE)
		return;
	if (nlh->nlmsg_len < nlmsg_msg_size(sizeof(*rtm)))
		goto all;
	rtm = nlmsg_data(nlh);
	if (rtm->rtm_family != AF_INET)
		return;
	c.plen = rtm->rtm_dst_len;
	if (c.plen > 32)
		goto all;
	if (c.plen) {
		dst = nlmsg_find_attr(nlh, sizeof(*rtm), RTA_DST);
		if (!dst || nla_len(dst) < sizeof(__be32))
			goto all;
		c.prefix.ip = nla_get_in_addr(dst);
	}
	ft_route_log(fn, FT_FAM_V4, &c);
	return;
all:
	ft_gen_bump(fn, BIT(FT_GEN_ROUTE4));
}

static void ft_route_nl_data_ready(struct sock *sk)
{
	const struct nlmsghdr *nlh;
	struct sk_buff *skb;
	struct ft_net *fn;
	int rem;

	rcu_read_lock();
	fn = rcu_dereference_sk_user_data(sk);
	while ((skb = skb_dequeue(&sk->sk_receive_queue))) {
		rem = skb->len;
		for (nlh = nlmsg_hdr(skb); fn && nlmsg_ok(nlh, rem);
		     nlh = nlmsg_next(nlh, &rem))
			ft_route_nl_msg(fn, nlh);
		consume_skb(skb);
	}
	rcu_read_unlock();
}

/*
 * A message lost to a full receive queue (which data_ready empties as it
 * fills, so it should not happen): any prefix may have changed.
 */
static void ft_route_nl_error(struct sock *sk)
{
	struct ft_net *fn;

	rcu_read_lock();
	fn = rcu_dereference_sk_user_data(sk);
	if (fn)
		ft_gen_bump(fn, BIT(FT_GEN_ROUTE4));
	rcu_read_unlock();
}

/* Under ft_net.lock, from ft_route_watch_start(). */
int ft_route_nl_start(struct ft_net *fn, struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&fn->lock);
	err = ft_nl_watch_open(fn, NETLINK_ROUTE,
			       1U << (RTNLGRP_IPV4_ROUTE - 1) |
			       1U << (RTNLGRP_IPV4_NETCONF - 1),
			       ft_route_nl_data_ready, ft_route_nl_error,
			       &fn->route_sock);
	if (err)
		NL_SET_ERR_MSG_MOD(extack,
				   "cannot watch IPv4 routes: no rtnetlink socket or route multicast group");
	return err;
}

void ft_route_nl_stop(struct ft_net *fn)
{
	ft_nl_watch_close(&fn->route_sock);
}
