// SPDX-License-Identifier: GPL-2.0
/*
 * Ruleset changes. A flow caches what the forward chain decided for its
 * connection; any nftables commit (rules, sets and maps, a flush; also
 * iptables-nft, which is nftables underneath) may change that decision.
 *
 * nftables has no in-kernel notifier, but every commit is announced on the
 * NFNLGRP_NFTABLES multicast group, after the new ruleset is live. A kernel
 * netlink socket per netns joins that group, like "nft monitor" would; its
 * data_ready callback drops the messages and bumps the ruleset generation,
 * which makes every cached flow stale at its next packet. The stack then
 * decides again under the new ruleset and, where it still forwards, the
 * flow is learned again. Nothing in userspace is needed.
 */
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <net/netevent.h>
#include <net/sock.h>

#include "fasttrack.h"

static void ft_rules_data_ready(struct sock *sk)
{
	struct ft_net *fn;

	skb_queue_purge(&sk->sk_receive_queue);
	rcu_read_lock();
	fn = rcu_dereference_sk_user_data(sk);
	if (fn)
		ft_gen_bump(fn, FT_GENS_RULES);
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
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1U << (NFNLGRP_NFTABLES - 1),
	};
	struct socket *sock;
	struct sock *sk;
	int err = 0;

	mutex_lock(&fn->lock);
	if (fn->rules_sock)
		goto out;
	err = sock_create_kern(fn->net, PF_NETLINK, SOCK_RAW,
			       NETLINK_NETFILTER, &sock);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "cannot open a netfilter netlink socket to watch the ruleset; is nfnetlink available?");
		goto out;
	}
	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	rcu_assign_sk_user_data(sk, fn);
	sk->sk_data_ready = ft_rules_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);

	err = kernel_bind(sock, (void *)&addr, sizeof(addr));
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "cannot join the nftables multicast group to watch the ruleset");
		sock_release(sock);
		goto out;
	}
	fn->rules_sock = sock;
out:
	mutex_unlock(&fn->lock);
	return err;
}

void ft_rules_watch_stop(struct ft_net *fn)
{
	struct socket *sock = fn->rules_sock;

	if (!sock)
		return;
	write_lock_bh(&sock->sk->sk_callback_lock);
	rcu_assign_sk_user_data(sock->sk, NULL);
	write_unlock_bh(&sock->sk->sk_callback_lock);
	/* A data_ready callback that still saw @fn is done after this. */
	synchronize_rcu();
	sock_release(sock);
	fn->rules_sock = NULL;
}

/*
 * net.ipv4.ip_forward_update_priority decides whether ip_forward() sets
 * the priority from the TOS, as learned flows do (learn.c): a change
 * makes them stale, as a ruleset commit does. One chain for all netns.
 */
static int ft_netevent(struct notifier_block *nb, unsigned long event,
		       void *ptr)
{
	if (event == NETEVENT_IPV4_FWD_UPDATE_PRIORITY_UPDATE)
		ft_gen_bump(ft_net(ptr), FT_GENS_RULES);
	return NOTIFY_DONE;
}

static struct notifier_block ft_netevent_nb = {
	.notifier_call = ft_netevent,
};

/* After the pernet state is registered, before it goes. */
int ft_settings_watch_init(void)
{
	return register_netevent_notifier(&ft_netevent_nb);
}

void ft_settings_watch_exit(void)
{
	unregister_netevent_notifier(&ft_netevent_nb);
}
