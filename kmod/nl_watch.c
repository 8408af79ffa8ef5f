// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel netlink sockets that watch multicast groups for a netns: the
 * ruleset watch (rules.c) and the IPv4 route watch (route_nl.c). The
 * socket's user data is the ft_net, which its callbacks read under RCU;
 * closing clears it and waits for them. A kernel socket holds no
 * reference on its netns, so the watch can stay until the netns goes.
 */
#include <linux/net.h>
#include <linux/netlink.h>
#include <net/sock.h>

#include "fasttrack.h"

/*
 * Open a @proto socket in @fn's netns with @data_ready and @error_report
 * as its callbacks, joined to the groups of the bit set @groups (group N
 * is bit N - 1). Process context.
 */
int ft_nl_watch_open(struct ft_net *fn, int proto, u32 groups,
		     void (*data_ready)(struct sock *sk),
		     void (*error_report)(struct sock *sk),
		     struct socket **sockp)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = groups,
	};
	struct socket *sock;
	struct sock *sk;
	int err;

	err = sock_create_kern(fn->net, PF_NETLINK, SOCK_RAW, proto, &sock);
	if (err)
		return err;
	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	rcu_assign_sk_user_data(sk, fn);
	sk->sk_data_ready = data_ready;
	sk->sk_error_report = error_report;
	write_unlock_bh(&sk->sk_callback_lock);

	err = kernel_bind(sock, (void *)&addr, sizeof(addr));
	if (err) {
		sock_release(sock);
		return err;
	}
	*sockp = sock;
	return 0;
}

/* Close *@sockp, if open, once no callback can still see its ft_net. */
void ft_nl_watch_close(struct socket **sockp)
{
	struct socket *sock = *sockp;

	if (!sock)
		return;
	write_lock_bh(&sock->sk->sk_callback_lock);
	rcu_assign_sk_user_data(sock->sk, NULL);
	write_unlock_bh(&sock->sk->sk_callback_lock);
	/* A callback that still saw the ft_net is done after this. */
	synchronize_rcu();
	sock_release(sock);
	*sockp = NULL;
}
