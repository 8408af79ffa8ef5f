// SPDX-License-Identifier: GPL-2.0
/*
 * Ruleset changes. A flow caches what the forward chain decided for its
 * connection; any nftables commit (rules, sets and maps, a flush; also
 * iptables-nft, which is nftables underneath) may change that decision.
 *
 * nftables has no in-kernel notifier, but every commit is announced on the
 * NFNLGRP_NFTABLES multicast group, after the new ruleset is live. A kernel
 * netlink socket per netns joins that group, like "nft monitor" would; its
 * data_ready callback drops the messages and, at the one that ends a
 * commit, bumps the ruleset generation, once (the commit is live by then:
 * gen.c), which makes every cached flow stale at its next packet. The
 * stack then decides again under the new ruleset and, where it still
 * forwards, the flow is learned again. Nothing in userspace is needed.
 */
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <net/sock.h>

#include "fasttrack.h"

/* Does @skb hold the message that ends a commit? */
static bool ft_rules_newgen(const struct sk_buff *skb)
{
	const struct nlmsghdr *nlh;
	int rem = skb->len;

	for (nlh = nlmsg_hdr(skb); nlmsg_ok(nlh, rem);
	     nlh = nlmsg_next(nlh, &rem))
		if (nlh->nlmsg_type ==
		    (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWGEN))
			return true;
	return false;
}

/*
 * A commit sends its rules, sets and elements, then one NFT_MSG_NEWGEN
 * message, which bumps the generation: once per commit, however many
 * messages it sent before.
 */
static void ft_rules_data_ready(struct sock *sk)
{
	struct sk_buff *skb;
	struct ft_net *fn;
	bool newgen = false;

	while ((skb = skb_dequeue(&sk->sk_receive_queue))) {
		newgen |= ft_rules_newgen(skb);
		consume_skb(skb);
	}
	if (!newgen)
		return;
	rcu_read_lock();
	fn = rcu_dereference_sk_user_data(sk);
	if (fn)
		ft_gen_bump_once(fn, FT_GENS_RULES);
	rcu_read_unlock();
}

/* A commit's messages were lost (no memory): it may have changed all. */
static void ft_rules_error(struct sock *sk)
{
	struct ft_net *fn;

	rcu_read_lock();
	fn = rcu_dereference_sk_user_data(sk);
	if (fn)
		ft_gen_bump_once(fn, FT_GENS_RULES);
	rcu_read_unlock();
}

/*
 * Joining the group needs CAP_NET_ADMIN over the netns, which the caller,
 * an admin netlink request, has. Process context, RTNL not held (creating
 * the socket may load nfnetlink). Idempotent; the socket stays until the
 * netns goes.
 */
int ft_rules_watch_start(struct ft_net *fn, struct netlink_ext_ack *extack)
{
	int err = 0;

	mutex_lock(&fn->lock);
	if (!fn->rules_sock) {
		err = ft_nl_watch_open(fn, NETLINK_NETFILTER,
				       1U << (NFNLGRP_NFTABLES - 1),
				       ft_rules_data_ready, ft_rules_error,
				       &fn->rules_sock);
		if (err)
			NL_SET_ERR_MSG_MOD(extack,
					   "cannot watch the ruleset: no netfilter netlink socket or nftables multicast group; is nfnetlink available?");
	}
	mutex_unlock(&fn->lock);
	return err;
}

void ft_rules_watch_stop(struct ft_net *fn)
{
	ft_nl_watch_close(&fn->rules_sock);
}
