// SPDX-License-Identifier: GPL-2.0
/*
 * fasttrack: software flow offload for Linux routers.
 *
 * Ordered init and exit: the flow cache, per-netns state (with its device
 * notifier, so that no device event finds a netns half set up or half torn
 * down), the watch of the settings cached flows depend on (netevent.c),
 * then the netlink family, which is what lets users in.
 */
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "fasttrack.h"

unsigned int ft_net_id __read_mostly;

static const struct ft_config ft_config_default = {
	.max_flows	= 131072,
	.tcp_timeout	= 60,
	.udp_timeout	= 30,
	.skip_mark	= 0,
	.skip_mask	= 0,
};

/* The line of struct ft_net that a packet reads (ft_ingress_hook()). */
#define FT_NET_LINE(member) (offsetof(struct ft_net, member) / L1_CACHE_BYTES)
#define FT_NET_LINE_END(member) \
	((offsetofend(struct ft_net, member) - 1) / L1_CACHE_BYTES)

static void ft_net_layout_check(void)
{
	BUILD_BUG_ON(FT_NET_LINE_END(flows.cur) != FT_NET_LINE(gen));
	/* Inserts take the lock: a line apart, where lines hold 8 pointers. */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_SMP) && BITS_PER_LONG == 64 &&
		     L1_CACHE_BYTES == 64 &&
		     FT_NET_LINE(flows.lock) == FT_NET_LINE(gen));
}

static int __net_init ft_net_init(struct net *net)
{
	struct ft_net *fn = ft_net(net);
	int err;

	ft_net_layout_check();
	fn->net = net;
	fn->cfg = ft_config_default;
	INIT_LIST_HEAD(&fn->devs);
	INIT_LIST_HEAD(&fn->dev_rules);
	xa_init(&fn->dev_index);
	mutex_init(&fn->lock);
	ft_gen_init(fn);
	ft_nh_init(fn);

	fn->stats = netdev_alloc_pcpu_stats(struct ft_stats_pcpu);
	if (!fn->stats)
		return -ENOMEM;
	err = ft_route_memo_init(fn);
	if (err)
		goto err_memo;
	err = ft_table_init(fn);
	if (err)
		goto err_table;
	err = ft_dev_notifier_init(fn);
	if (err)
		goto err_notifier;
	return 0;

err_notifier:
	ft_table_exit(fn);
err_table:
	ft_route_memo_exit(fn);
err_memo:
	free_percpu(fn->stats);
	return err;
}

/*
 * Devices first, while the notifier still watches them; then every source
 * of generation bumps, then the flows.
 */
static void __net_exit ft_net_exit(struct net *net)
{
	struct ft_net *fn = ft_net(net);

	rtnl_lock();
	ft_dev_rules_flush(fn);
	ft_dev_disable_all(fn);
	rtnl_unlock();
	ft_dev_notifier_exit(fn);
	ft_rules_watch_stop(fn);
	ft_route_watch_stop(fn);
	ft_gen_exit(fn);
	ft_table_exit(fn);
	ft_nh_exit(fn);
	WARN_ON_ONCE(!xa_empty(&fn->dev_index));
	xa_destroy(&fn->dev_index);
	ft_route_memo_exit(fn);
	free_percpu(fn->stats);
}

static struct pernet_operations ft_net_ops = {
	.init	= ft_net_init,
	.exit	= ft_net_exit,
	.id	= &ft_net_id,
	.size	= sizeof(struct ft_net),
};

static int __init ft_init(void)
{
	int err;

	err = ft_flow_cache_init();
	if (err)
		goto err_cache;
	err = register_pernet_subsys(&ft_net_ops);
	if (err)
		goto err_pernet;
	err = ft_netevent_init();
	if (err)
		goto err_netevent;
	err = ft_testhooks_init();
	if (err)
		goto err_testhooks;
	err = ft_genl_init();
	if (err)
		goto err_genl;
	ft_xdp_init();

	pr_info("version %s loaded\n", FASTTRACK_VERSION);
	return 0;

err_genl:
	ft_testhooks_exit();
err_testhooks:
	ft_netevent_exit();
err_netevent:
	unregister_pernet_subsys(&ft_net_ops);
err_pernet:
	ft_flow_cache_exit();
err_cache:
	return err;
}

static void __exit ft_exit(void)
{
	ft_genl_exit();
	ft_testhooks_exit();
	ft_netevent_exit();
	unregister_pernet_subsys(&ft_net_ops);
	/* Flow and device release callbacks run module code. */
	rcu_barrier();
	ft_flow_cache_exit();
}

module_init(ft_init);
module_exit(ft_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The fasttrack authors");
MODULE_DESCRIPTION("Software flow offload for IPv4 and IPv6 forwarding, across VLANs");
MODULE_VERSION(FASTTRACK_VERSION);
MODULE_ALIAS_GENL_FAMILY(FASTTRACK_GENL_NAME);
