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
 * debugfs fasttrack/acct_race: writing "ID N" runs that 1-packet, 1-byte
 * add N times on flow ID from a kthread bound to each online CPU, all
 * started together, and returns once all are done: the fast path's
 * counting of one flow on several CPUs at once, so many times that a lost
 * update shows in the counts (with vCPUs that really run in parallel).
 * -ENOENT if the flow was not live throughout.
 *
 * debugfs fasttrack/buckets: reading gives the number of buckets of the
 * reader's netns' flow table, so that a test sees it grow and shrink.
 *
 * debugfs fasttrack/fresh_hold: while Y, a flow stays fresh (no dst check)
 * past its jiffy, so that a test sees what the dst generation alone
 * catches (ft_flow_fresh()).
 *
 * debugfs fasttrack/learn_stall: writing a port P holds the next TCP flow
 * inserted with source port P (a server's direction) between its hash
 * insert and its marking as live, until its connection leaves the states
 * that may be cached (a FIN or RST seen on another CPU) or 10 s pass; it
 * busy-waits in the learn's softirq. Reading gives "idle", "armed",
 * "waiting", "released" (by the close) or "timeout". Lets a test put a
 * close into the window deterministically, with two CPUs. Writing "P MS"
 * instead holds the next TCP flow with P as either port for MS ms (at most
 * 5000), whatever its connection does, and ends "released": a CPU the
 * hypervisor took away right after the insert; the kernel log says which
 * CPU it held. The held CPU is in an RCU read section: whatever waits for
 * a grace period meanwhile waits for the release.
 *
 * debugfs fasttrack/gc_pause: writing 1 holds the GC off in every netns,
 * 0 lets it run again, so that a test sees what else removes a flow.
 *
 * debugfs fasttrack/hw_forwarded: writing "IFNAME PORT" marks the UDP
 * datagrams to PORT that enter IFNAME, in the writer's netns, as a switch
 * ASIC marks a packet it forwarded already (skb->offload_l3_fwd_mark), from
 * an ingress hook ahead of the fast path's; "-" stops it. One device at a
 * time, held until then.
 */
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/nsproxy.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "fasttrack.h"

/* What a test wrote to a hook, NUL-terminated in @buf of @size bytes. */
static int ft_test_input(char *buf, size_t size, const char __user *ubuf,
			 size_t len)
{
	if (len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	return 0;
}

static struct dentry *ft_debugfs;
static bool ft_fresh_hold;

bool ft_test_fresh_hold(void)
{
	return READ_ONCE(ft_fresh_hold);
}

enum ft_stall_state {
	FT_STALL_IDLE,
	FT_STALL_ARMED,
	FT_STALL_WAITING,
	FT_STALL_RELEASED,
	FT_STALL_TIMEOUT,
};

static const char *const ft_stall_names[] = {
	[FT_STALL_IDLE]		= "idle",
	[FT_STALL_ARMED]	= "armed",
	[FT_STALL_WAITING]	= "waiting",
	[FT_STALL_RELEASED]	= "released",
	[FT_STALL_TIMEOUT]	= "timeout",
};

static int ft_stall_port;	/* armed for it; 0: not armed */
static unsigned int ft_stall_ms;	/* a timed hold; 0: until a close */
static int ft_stall_state;
static bool ft_gc_pause;

void ft_test_insert_window(const struct ft_flow *flow)
{
	/* Pairs with the writer's release: the hold's length comes with it. */
	int port = smp_load_acquire(&ft_stall_port);
	unsigned int ms = READ_ONCE(ft_stall_ms);
	unsigned long end;

	if (!port || flow->key.l4proto != IPPROTO_TCP ||
	    (ntohs(flow->key.sport) != port &&
	     (!ms || ntohs(flow->key.dport) != port)) ||
	    cmpxchg(&ft_stall_port, port, 0) != port)
		return;
	WRITE_ONCE(ft_stall_state, FT_STALL_WAITING);
	if (ms) {
		/* Which CPU: the test must be able to run on another. */
		pr_info("test hook: learn of port %d held on CPU %d\n", port,
			smp_processor_id());
		mdelay(ms);
		WRITE_ONCE(ft_stall_state, FT_STALL_RELEASED);
		return;
	}
	end = jiffies + 10 * HZ;
	while (ft_tcp_cacheable(flow->ct) && time_before(jiffies, end))
		mdelay(1);
	WRITE_ONCE(ft_stall_state, ft_tcp_cacheable(flow->ct) ?
		   FT_STALL_TIMEOUT : FT_STALL_RELEASED);
}

bool ft_test_gc_paused(void)
{
	return READ_ONCE(ft_gc_pause);
}

static ssize_t ft_stall_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	unsigned int port, ms = 0;
	char buf[24];
	int err;

	err = ft_test_input(buf, sizeof(buf), ubuf, len);
	if (err)
		return err;
	if (sscanf(buf, "%u %u", &port, &ms) < 1 || !port ||
	    port > U16_MAX || ms > 5000)
		return -EINVAL;
	WRITE_ONCE(ft_stall_state, FT_STALL_ARMED);
	WRITE_ONCE(ft_stall_ms, ms);
	/* The hold's length is read after the port. */
	smp_store_release(&ft_stall_port, port);
	return len;
}

static ssize_t ft_stall_read(struct file *file, char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	const char *s = ft_stall_names[READ_ONCE(ft_stall_state)];
	char buf[16];
	int n;

	n = scnprintf(buf, sizeof(buf), "%s\n", s);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations ft_stall_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= ft_stall_read,
	.write	= ft_stall_write,
	.llseek	= default_llseek,
};

/*
 * Count @packets and @bytes @times for live flow @id of @fn, as the fast
 * path counts (RCU, BH off); false if there is no such flow.
 */
static bool ft_test_acct(struct ft_net *fn, u32 id, u64 packets, u64 bytes,
			 unsigned long times)
{
	struct ft_flow *flow;
	bool live;

	rcu_read_lock();
	local_bh_disable();
	flow = xa_load(&fn->flow_ids, id);
	live = flow && ft_flow_live(flow);
	while (live && times--)
		ft_flow_acct_add(flow, packets, bytes);
	local_bh_enable();
	rcu_read_unlock();
	return live;
}

static ssize_t ft_acct_add_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct ft_net *fn = ft_net(current->nsproxy->net_ns);
	unsigned long long packets, bytes;
	char buf[80];
	int err;
	u32 id;

	err = ft_test_input(buf, sizeof(buf), ubuf, len);
	if (err)
		return err;
	if (sscanf(buf, "%u %llu %llu", &id, &packets, &bytes) != 3)
		return -EINVAL;

	return ft_test_acct(fn, id, packets, bytes, 1) ? len : -ENOENT;
}

static const struct file_operations ft_acct_add_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ft_acct_add_write,
	.llseek	= noop_llseek,
};

/* One acct_race run: its flow, and the threads' meeting points. */
struct ft_race {
	struct ft_net *fn;
	u32 id;
	unsigned long n;
	atomic_t left;		/* threads not done yet */
	atomic_t missed;	/* adds that found no live flow */
	struct completion start;
	struct completion done;
	struct task_struct *tasks[];	/* held, nr_cpu_ids of them */
};

static int ft_race_thread(void *data)
{
	struct ft_race *r = data;
	unsigned long i, batch;

	/* All at once: a thread that starts late races nobody. */
	wait_for_completion(&r->start);
	for (i = 0; i < r->n; i += batch) {
		batch = min(r->n - i, 256UL);
		/* One lookup per batch: the adds, which race, fill the time. */
		if (!ft_test_acct(r->fn, r->id, 1, 1, batch))
			atomic_inc(&r->missed);
		cond_resched();
	}
	if (atomic_dec_and_test(&r->left))
		complete(&r->done);
	return 0;
}

static ssize_t ft_acct_race_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct task_struct *task;
	struct ft_race *r;
	unsigned int cpu, i, nr = 0;
	unsigned long n;
	char buf[40];
	ssize_t ret;
	u32 id;

	ret = ft_test_input(buf, sizeof(buf), ubuf, len);
	if (ret)
		return ret;
	if (sscanf(buf, "%u %lu", &id, &n) != 2 || n > 100000000)
		return -EINVAL;
	r = kzalloc(struct_size(r, tasks, nr_cpu_ids), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	/* The writer, in the netns, holds it until the threads are done. */
	r->fn = ft_net(current->nsproxy->net_ns);
	r->id = id;
	r->n = n;
	init_completion(&r->start);
	init_completion(&r->done);

	/* The CPUs stay online until the threads bound to them are done. */
	cpus_read_lock();
	ret = len;
	for_each_online_cpu(cpu) {
		task = kthread_create(ft_race_thread, r, "ft_race/%u", cpu);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			break;
		}
		kthread_bind(task, cpu);
		r->tasks[nr++] = get_task_struct(task);
		atomic_inc(&r->left);
		wake_up_process(task);
	}
	if (ret < 0)
		r->n = 0;	/* read after the start */
	complete_all(&r->start);
	if (nr)
		wait_for_completion(&r->done);
	/* Each has returned or is about to: wait until it is out. */
	for (i = 0; i < nr; i++) {
		kthread_stop(r->tasks[i]);
		put_task_struct(r->tasks[i]);
	}
	cpus_read_unlock();
	if (atomic_read(&r->missed))
		ret = -ENOENT;
	kfree(r);
	return ret;
}

static const struct file_operations ft_acct_race_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ft_acct_race_write,
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

struct ft_hw_mark {
	struct nf_hook_ops ops;
	struct net *net;		/* held */
	struct net_device *dev;		/* held */
	__be16 port;
};

static struct ft_hw_mark *ft_hw_mark;	/* RTNL */

/* What a switch ASIC sets; a kernel without switchdev has no such mark. */
static void ft_hw_mark_set(struct sk_buff *skb)
{
#ifdef CONFIG_NET_SWITCHDEV
	skb->offload_l3_fwd_mark = 1;
#endif
}

static unsigned int ft_hw_mark_hook(void *priv, struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	const struct ft_hw_mark *m = priv;
	unsigned int off = skb_network_offset(skb);
	union {
		struct iphdr v4;
		struct ipv6hdr v6;
		__be16 ports[2];
	} buf;
	const struct ipv6hdr *ip6h;
	const struct iphdr *iph;
	const __be16 *ports;

	if (skb->protocol == htons(ETH_P_IP)) {
		iph = skb_header_pointer(skb, off, sizeof(buf.v4), &buf);
		if (!iph || iph->protocol != IPPROTO_UDP)
			return NF_ACCEPT;
		off += iph->ihl * 4;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		ip6h = skb_header_pointer(skb, off, sizeof(buf.v6), &buf);
		if (!ip6h || ip6h->nexthdr != IPPROTO_UDP)
			return NF_ACCEPT;
		off += sizeof(*ip6h);
	} else {
		return NF_ACCEPT;
	}
	ports = skb_header_pointer(skb, off, sizeof(buf.ports), &buf);
	if (ports && ports[1] == m->port)
		ft_hw_mark_set(skb);
	return NF_ACCEPT;
}

static void ft_hw_mark_stop(void)
{
	struct ft_hw_mark *m = ft_hw_mark;

	ASSERT_RTNL();
	if (!m)
		return;
	ft_hw_mark = NULL;
	nf_unregister_net_hook(m->net, &m->ops);
	synchronize_net();
	dev_put(m->dev);
	put_net(m->net);
	kfree(m);
}

static int ft_hw_mark_start(struct net *net, const char *name, u16 port)
{
	struct ft_hw_mark *m;
	int err;

	ASSERT_RTNL();
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->dev = __dev_get_by_name(net, name);
	if (!m->dev) {
		kfree(m);
		return -ENODEV;
	}
	m->port = htons(port);
	m->ops.hook = ft_hw_mark_hook;
	m->ops.priv = m;
	m->ops.pf = NFPROTO_NETDEV;
	m->ops.hooknum = NF_NETDEV_INGRESS;
	m->ops.priority = INT_MIN;
	m->ops.dev = m->dev;
	err = nf_register_net_hook(net, &m->ops);
	if (err) {
		kfree(m);
		return err;
	}
	dev_hold(m->dev);
	m->net = get_net(net);
	ft_hw_mark = m;
	return 0;
}

static ssize_t ft_hw_mark_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[IFNAMSIZ + 16], name[IFNAMSIZ];
	unsigned int port;
	int err = 0;

	if (!IS_ENABLED(CONFIG_NET_SWITCHDEV))
		return -EOPNOTSUPP;
	err = ft_test_input(buf, sizeof(buf), ubuf, len);
	if (err)
		return err;
	rtnl_lock();
	ft_hw_mark_stop();
	if (buf[0] != '-') {
		if (sscanf(buf, "%15s %u", name, &port) != 2 || !port ||
		    port > U16_MAX)
			err = -EINVAL;
		else
			err = ft_hw_mark_start(current->nsproxy->net_ns, name,
					       port);
	}
	rtnl_unlock();
	return err ?: len;
}

static const struct file_operations ft_hw_mark_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ft_hw_mark_write,
	.llseek	= noop_llseek,
};

/* The directory of the test hooks' debugfs files, for testhooks_netns.c. */
struct dentry *ft_test_debugfs_dir(void)
{
	return ft_debugfs;
}

int ft_testhooks_init(void)
{
	ft_debugfs = debugfs_create_dir("fasttrack", NULL);
	debugfs_create_file("acct_add", 0200, ft_debugfs, NULL,
			    &ft_acct_add_fops);
	debugfs_create_file("acct_race", 0200, ft_debugfs, NULL,
			    &ft_acct_race_fops);
	debugfs_create_file("buckets", 0400, ft_debugfs, NULL,
			    &ft_buckets_fops);
	debugfs_create_bool("fresh_hold", 0600, ft_debugfs, &ft_fresh_hold);
	debugfs_create_file("learn_stall", 0600, ft_debugfs, NULL,
			    &ft_stall_fops);
	debugfs_create_bool("gc_pause", 0600, ft_debugfs, &ft_gc_pause);
	debugfs_create_file("hw_forwarded", 0200, ft_debugfs, NULL,
			    &ft_hw_mark_fops);
	pr_warn("built with test hooks (FT_TEST_HOOKS): not for production\n");
	return 0;
}

void ft_testhooks_exit(void)
{
	debugfs_remove_recursive(ft_debugfs);
	rtnl_lock();
	ft_hw_mark_stop();
	rtnl_unlock();
}
