// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks (FT_TEST_HOOKS) of a netns as a whole, above the device rules
 * they use: kernel_netfilter runs the kernel's suite with them.
 *
 * Module parameter netns_enable: while Y, each new netns starts with the
 * rule "*" for both families, as "ftctl enable '*'" run in it at once
 * would install: whatever netns a script makes, fasttrack is on all its
 * devices, with no race (kernel_netfilter runs the kernel's suite so).
 *
 * debugfs fasttrack/netns_forwarded: "PACKETS LIVE LISTED", the packets
 * the fast path forwarded in every netns since the module loaded (those
 * gone too), so that a test sees whether its namespaces, deleted by now,
 * forwarded any; then how many netns fasttrack has state for, and how
 * many of them are listed. A dying netns leaves the list before its exit
 * counts it: PACKETS is exact when LIVE and LISTED are equal.
 */
#include <linux/debugfs.h>
#include <linux/kmod.h>
#include <linux/moduleparam.h>
#include <linux/rtnetlink.h>

#include "fasttrack.h"

static bool ft_netns_enable;
static atomic64_t ft_netns_fwd_gone;	/* packets of the netns that went */
static atomic_t ft_netns_live;

/*
 * Joining nfnetlink's group from a pernet init must not load nfnetlink:
 * its own pernet registration would wait for the init that waits for it.
 * Built in (Debian's 7.2), it is there, and modprobe would fail to find it.
 */
static int ft_netns_enable_set(const char *val, const struct kernel_param *kp)
{
	int err = param_set_bool(val, kp);

	if (!err && !IS_BUILTIN(CONFIG_NETFILTER_NETLINK) &&
	    READ_ONCE(ft_netns_enable))
		err = request_module("nfnetlink");
	return err;
}

static const struct kernel_param_ops ft_netns_enable_ops = {
	.set	= ft_netns_enable_set,
	.get	= param_get_bool,
};

module_param_cb(netns_enable, &ft_netns_enable_ops, &ft_netns_enable, 0600);
MODULE_PARM_DESC(netns_enable, "test hook: new netns start with rule '*'");

/* The end of ft_net_init(): what "ftctl enable '*'" does, if asked. */
void ft_test_net_init(struct ft_net *fn)
{
	struct {
		struct nlattr nla;
		char pattern[4];
	} attr = {
		.nla.nla_len	= nla_attr_size(sizeof("*")),
		.nla.nla_type	= FASTTRACK_A_IFNAME,
		.pattern	= "*",
	};
	int err;

	atomic_inc(&ft_netns_live);
	if (!READ_ONCE(ft_netns_enable))
		return;
	err = ft_route_watch_start(fn, NULL);
	if (!err)
		err = ft_rules_watch_start(fn, NULL);
	if (!err) {
		rtnl_lock();
		err = ft_dev_rule_add(fn, &attr.nla, FT_FAMILIES_ALL, NULL);
		rtnl_unlock();
	}
	if (err)
		pr_warn("test hook: netns_enable failed: %d\n", err);
}

/* The start of ft_net_exit(), while its counters are there. */
void ft_test_net_exit(struct ft_net *fn)
{
	u64 stats[FT_STAT_NUM];

	ft_stats_read(fn, stats);
	atomic64_add(stats[FT_STAT_FWD_PKTS], &ft_netns_fwd_gone);
	atomic_dec(&ft_netns_live);
}

static ssize_t ft_netns_fwd_read(struct file *file, char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	u64 stats[FT_STAT_NUM], sum;
	int n, listed = 0, live;
	struct net *net;
	char buf[64];

	/* Live first: a netns that goes meanwhile cannot make them equal. */
	live = atomic_read(&ft_netns_live);
	sum = atomic64_read(&ft_netns_fwd_gone);
	rcu_read_lock();
	for_each_net_rcu(net) {
		ft_stats_read(ft_net(net), stats);
		sum += stats[FT_STAT_FWD_PKTS];
		listed++;
	}
	rcu_read_unlock();
	n = scnprintf(buf, sizeof(buf), "%llu %d %d\n", sum, live, listed);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations ft_netns_fwd_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= ft_netns_fwd_read,
	.llseek	= default_llseek,
};

/* After ft_testhooks_init(): its debugfs directory is there. */
void ft_test_netns_init(void)
{
	debugfs_create_file("netns_forwarded", 0400, ft_test_debugfs_dir(),
			    NULL, &ft_netns_fwd_fops);
}
