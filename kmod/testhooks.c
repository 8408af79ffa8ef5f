// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks, built only with FT_TEST_HOOKS=1 (the VM selftests do), never
 * in a DKMS or distribution build.
 *
 * debugfs fasttrack/acct_add: writing "ID PACKETS BYTES" counts that much
 * for flow ID in the writer's netns, as if the fast path had forwarded it
 * in one go, so that a test can check that conntrack's counters take
 * amounts no rate reachable under emulation produces (above 2^32 bytes).
 *
 * debugfs fasttrack/buckets: reading gives the number of buckets of the
 * reader's netns' flow table, so that a test sees it grow and shrink.
 *
 * debugfs fasttrack/fresh_hold: while Y, a flow stays fresh (no dst check)
 * past its jiffy, so that a test sees what the dst generation alone
 * catches (ft_flow_fresh()).
 */
#include <linux/debugfs.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "fasttrack.h"

static struct dentry *ft_debugfs;
static bool ft_fresh_hold;

bool ft_test_fresh_hold(void)
{
	return READ_ONCE(ft_fresh_hold);
}

static ssize_t ft_acct_add_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct ft_net *fn = ft_net(current->nsproxy->net_ns);
	unsigned long long packets, bytes;
	struct ft_flow *flow;
	char buf[80];
	u32 id;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %llu %llu", &id, &packets, &bytes) != 3)
		return -EINVAL;

	rcu_read_lock();
	flow = xa_load(&fn->flow_ids, id);
	if (flow && ft_flow_live(flow)) {
		local_bh_disable();
		ft_flow_acct_add(flow, packets, bytes);
		local_bh_enable();
	}
	rcu_read_unlock();
	return flow ? len : -ENOENT;
}

static const struct file_operations ft_acct_add_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ft_acct_add_write,
	.llseek	= noop_llseek,
};

static ssize_t ft_buckets_read(struct file *file, char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct ft_net *fn = ft_net(current->nsproxy->net_ns);
	char buf[16];
	int n;

	n = scnprintf(buf, sizeof(buf), "%u\n", ft_flow_hash_buckets(fn));
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations ft_buckets_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= ft_buckets_read,
	.llseek	= default_llseek,
};

int ft_testhooks_init(void)
{
	ft_debugfs = debugfs_create_dir("fasttrack", NULL);
	debugfs_create_file("acct_add", 0200, ft_debugfs, NULL,
			    &ft_acct_add_fops);
	debugfs_create_file("buckets", 0400, ft_debugfs, NULL,
			    &ft_buckets_fops);
	debugfs_create_bool("fresh_hold", 0600, ft_debugfs, &ft_fresh_hold);
	pr_warn("built with test hooks (FT_TEST_HOOKS): not for production\n");
	return 0;
}

void ft_testhooks_exit(void)
{
	debugfs_remove_recursive(ft_debugfs);
}
