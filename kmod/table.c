// SPDX-License-Identifier: GPL-2.0
/*
 * The flow table: an RCU hash table per netns, keyed on the tuple of one
 * direction as it arrives. Readers (the fast path) take no lock. Entries
 * are unlinked by ft_flow_teardown() and freed after a grace period, when
 * no reader can still hold them; the free pushes their last counters into
 * conntrack. An xarray numbers the flows in learning order, for walks that
 * must see each flow once: dumps, flushes and the GC, a delayed work that
 * syncs counters and conntrack timeouts, and removes idle entries and
 * entries whose connection is gone.
 */
#include <linux/jhash.h>
#include <linux/slab.h>
#include <net/neighbour.h>
#include <net/netfilter/nf_conntrack_acct.h>

#include "fasttrack.h"

#define FT_GC_INTERVAL	(HZ / 2)

static struct kmem_cache *ft_flow_cache;

static const struct rhashtable_params ft_flow_params = {
	.head_offset		= offsetof(struct ft_flow, node),
	.key_offset		= offsetof(struct ft_flow, key),
	.key_len		= sizeof(struct ft_key),
	.automatic_shrinking	= true,
};

int ft_table_cache_init(void)
{
	ft_flow_cache = KMEM_CACHE(ft_flow, SLAB_HWCACHE_ALIGN);
	return ft_flow_cache ? 0 : -ENOMEM;
}

void ft_table_cache_exit(void)
{
	kmem_cache_destroy(ft_flow_cache);
}

struct ft_flow *ft_flow_alloc(void)
{
	return kmem_cache_zalloc(ft_flow_cache, GFP_ATOMIC);
}

static void ft_flow_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(ft_flow_cache, container_of(head, struct ft_flow, rcu));
}

/*
 * Free a flow that never went live; it holds no references. A walker may
 * have seen it in the id index, so wait for a grace period.
 */
void ft_flow_free(struct ft_flow *flow)
{
	call_rcu(&flow->rcu, ft_flow_free_rcu);
}

void ft_key_from_tuple(struct ft_key *key, const struct nf_conntrack_tuple *t)
{
	memset(key, 0, sizeof(*key));
	if (t->src.l3num == NFPROTO_IPV4) {
		key->fam = FT_FAM_V4;
		key->src.ip = t->src.u3.ip;
		key->dst.ip = t->dst.u3.ip;
	} else {
		key->fam = FT_FAM_V6;
		key->src.in6 = t->src.u3.in6;
		key->dst.in6 = t->dst.u3.in6;
	}
	key->sport = t->src.u.all;
	key->dport = t->dst.u.all;
	key->l4proto = t->dst.protonum;
}

struct ft_flow *ft_flow_lookup(struct ft_net *fn, const struct ft_key *key)
{
	return rhashtable_lookup(&fn->flows, key, ft_flow_params);
}

int ft_flow_insert(struct ft_net *fn, struct ft_flow *flow)
{
	int err;

	if (atomic_inc_return(&fn->nflows) > READ_ONCE(fn->cfg.max_flows)) {
		ft_stat_inc(fn, FT_STAT_TABLE_FULL);
		err = -ENOSPC;
		goto err_full;
	}
	/* Cyclic ids keep a dump in learning order: no flow twice. */
	err = xa_alloc_cyclic_bh(&fn->flow_ids, &flow->id, flow, xa_limit_32b,
				 &fn->next_id, GFP_ATOMIC);
	if (err < 0)
		goto err_full;
	err = rhashtable_lookup_insert_fast(&fn->flows, &flow->node,
					    ft_flow_params);
	if (err)
		goto err_insert;
	/* From here on teardowns and walks may act on it. */
	set_bit(FT_FLOW_LIVE, &flow->flags);

	ft_stat_inc(fn, FT_STAT_LEARNED);
	ft_nl_flow_event(fn, flow, 0);
	return 0;

err_insert:
	xa_erase_bh(&fn->flow_ids, flow->id);
err_full:
	atomic_dec(&fn->nflows);
	return err;
}

/* Push the packets conntrack has not seen yet into its accounting. */
static void ft_flow_sync_acct(struct ft_flow *flow)
{
	u64 packets = READ_ONCE(flow->packets);
	u64 bytes = READ_ONCE(flow->bytes);

	if (packets == flow->synced_packets)
		return;
	nf_ct_acct_add(flow->ct, flow->dir, packets - flow->synced_packets,
		       bytes - flow->synced_bytes);
	flow->synced_packets = packets;
	flow->synced_bytes = bytes;
}

static void ft_flow_release(struct rcu_head *head)
{
	struct ft_flow *flow = container_of(head, struct ft_flow, rcu);

	ft_flow_sync_acct(flow);
	nf_ct_put(flow->ct);
	neigh_release(flow->neigh);
	dev_put(flow->out);
	kmem_cache_free(ft_flow_cache, flow);
}

/* Unlink one direction; the caller holds rcu_read_lock and has BH off. */
static bool ft_flow_kill(struct ft_net *fn, struct ft_flow *flow,
			 enum ft_stat reason)
{
	if (!test_bit(FT_FLOW_LIVE, &flow->flags) ||
	    test_and_set_bit(FT_FLOW_DEAD, &flow->flags))
		return false;
	if (WARN_ON_ONCE(rhashtable_remove_fast(&fn->flows, &flow->node,
						ft_flow_params)))
		return false;
	xa_erase_bh(&fn->flow_ids, flow->id);
	atomic_dec(&fn->nflows);
	ft_nl_flow_event(fn, flow, reason);
	call_rcu(&flow->rcu, ft_flow_release);
	return true;
}

/*
 * Conntrack did not see the packets of the fast path, so its TCP window
 * data is stale. Zeroing td_maxwin makes it pick the window up again from
 * the next packet, as after a mid-stream start.
 */
static void ft_ct_fixup_tcp(struct nf_conn *ct)
{
	if (nf_ct_protonum(ct) != IPPROTO_TCP)
		return;
	spin_lock_bh(&ct->lock);
	ct->proto.tcp.seen[0].td_maxwin = 0;
	ct->proto.tcp.seen[1].td_maxwin = 0;
	spin_unlock_bh(&ct->lock);
}

/*
 * Remove both directions of the flow's connection, so that conntrack sees
 * every packet of it from now on. Caller: rcu_read_lock, BH disabled.
 */
void ft_flow_teardown(struct ft_net *fn, struct ft_flow *flow,
		      enum ft_stat reason)
{
	struct nf_conn *ct = flow->ct;
	struct ft_flow *other;
	struct ft_key key;
	int killed = 0;

	killed += ft_flow_kill(fn, flow, reason);

	ft_key_from_tuple(&key, &ct->tuplehash[!flow->dir].tuple);
	other = ft_flow_lookup(fn, &key);
	if (other && other->ct == ct)
		killed += ft_flow_kill(fn, other, reason);

	if (!killed)
		return;
	ft_stat_add(fn, reason, killed);
	ft_ct_fixup_tcp(ct);
}

/*
 * The flow with the lowest id >= *id, advancing *id past it, or NULL.
 * Caller: rcu_read_lock. Walks in id order see each flow once, whatever
 * comes and goes meanwhile, and may drop the lock between two calls.
 */
struct ft_flow *ft_flow_next(struct ft_net *fn, unsigned long *id)
{
	struct ft_flow *flow;

	flow = xa_find(&fn->flow_ids, id, ULONG_MAX, XA_PRESENT);
	if (flow)
		(*id)++;
	return flow;
}

bool ft_filter_match(const struct ft_filter *f, const struct ft_flow *flow)
{
	if (!(f->families & ft_fam_flag(flow->key.fam)))
		return false;
	if (f->iif && flow->iif != f->iif)
		return false;
	if (f->dev && flow->iif != f->dev->ifindex && flow->out != f->dev)
		return false;
	return true;
}

/* Walk every flow in process context, a batch per RCU read section. */
#define FT_WALK_BATCH	256

static void ft_table_walk(struct ft_net *fn,
			  void (*fn_flow)(struct ft_net *fn,
					  struct ft_flow *flow,
					  const void *arg),
			  const void *arg)
{
	unsigned long id = 0;
	struct ft_flow *flow;
	unsigned int n;

	do {
		rcu_read_lock();
		local_bh_disable();
		for (n = 0; n < FT_WALK_BATCH; n++) {
			flow = ft_flow_next(fn, &id);
			if (!flow)
				break;
			if (ft_flow_live(flow))
				fn_flow(fn, flow, arg);
		}
		local_bh_enable();
		rcu_read_unlock();
		cond_resched();
	} while (flow);
}

struct ft_kill_arg {
	const struct ft_filter *filter;
	enum ft_stat reason;
};

static void ft_kill_one(struct ft_net *fn, struct ft_flow *flow,
			const void *arg)
{
	const struct ft_kill_arg *k = arg;

	if (ft_filter_match(k->filter, flow))
		ft_flow_teardown(fn, flow, k->reason);
}

/* Remove the flows @f matches, with both directions of each. */
void ft_table_kill(struct ft_net *fn, const struct ft_filter *f,
		   enum ft_stat reason)
{
	struct ft_kill_arg k = { .filter = f, .reason = reason };

	ft_table_walk(fn, ft_kill_one, &k);
}

/* Drop the flows that enter or leave through @dev, for @families. */
void ft_table_kill_dev(struct ft_net *fn, const struct net_device *dev,
		       u8 families)
{
	struct ft_filter f = { .dev = dev, .families = families };

	ft_table_kill(fn, &f, FT_STAT_INVALIDATED);
}

static unsigned long ft_flow_idle_timeout(struct ft_net *fn,
					  const struct ft_flow *flow)
{
	u32 secs = flow->key.l4proto == IPPROTO_TCP ?
		   READ_ONCE(fn->cfg.tcp_timeout) :
		   READ_ONCE(fn->cfg.udp_timeout);

	return (unsigned long)secs * HZ;
}

/* Keep conntrack's timeout from running out under an active flow. */
static void ft_ct_refresh(struct ft_flow *flow)
{
	struct nf_conn *ct = flow->ct;
	u32 expires = nfct_time_stamp + flow->ct_timeout;

	if (READ_ONCE(ct->timeout) != expires)
		WRITE_ONCE(ct->timeout, expires);
}

/* One GC pass over a flow; returns the reason to remove it, or 0. */
static enum ft_stat ft_gc_check(struct ft_net *fn, struct ft_flow *flow)
{
	struct nf_conn *ct = flow->ct;

	if (nf_ct_is_dying(ct) || test_bit(IPS_OFFLOAD_BIT, &ct->status))
		return FT_STAT_CT_GONE;
	if (flow->route_gen != (u32)atomic_read(&fn->route_gen))
		return FT_STAT_ROUTE_CHANGED;

	if (READ_ONCE(flow->packets) != flow->synced_packets) {
		ft_flow_sync_acct(flow);
		ft_ct_refresh(flow);
		flow->last_active = jiffies;
		return 0;
	}
	if (time_after(jiffies, flow->last_active +
				ft_flow_idle_timeout(fn, flow)))
		return FT_STAT_EXPIRED;
	return 0;
}

static void ft_gc_flow(struct ft_net *fn, struct ft_flow *flow,
		       const void *arg)
{
	enum ft_stat reason = ft_gc_check(fn, flow);

	if (reason)
		ft_flow_teardown(fn, flow, reason);
}

static void ft_gc_work(struct work_struct *work)
{
	struct ft_net *fn = container_of(to_delayed_work(work), struct ft_net,
					 gc_work);

	ft_table_walk(fn, ft_gc_flow, NULL);
	queue_delayed_work(system_power_efficient_wq, &fn->gc_work,
			   FT_GC_INTERVAL);
}

int ft_table_init(struct ft_net *fn)
{
	int err;

	err = rhashtable_init(&fn->flows, &ft_flow_params);
	if (err)
		return err;
	xa_init_flags(&fn->flow_ids, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	atomic_set(&fn->nflows, 0);
	INIT_DELAYED_WORK(&fn->gc_work, ft_gc_work);
	queue_delayed_work(system_power_efficient_wq, &fn->gc_work,
			   FT_GC_INTERVAL);
	return 0;
}

/* The hooks are gone; nothing adds flows any more. */
void ft_table_exit(struct ft_net *fn)
{
	struct ft_filter all = { .families = __FASTTRACK_F_ALL };

	cancel_delayed_work_sync(&fn->gc_work);
	ft_table_kill(fn, &all, FT_STAT_FLUSHED);
	/* The release callbacks drop conntrack references that the
	 * conntrack netns exit waits for.
	 */
	rcu_barrier();
	WARN_ON_ONCE(atomic_read(&fn->nflows));
	xa_destroy(&fn->flow_ids);
	rhashtable_destroy(&fn->flows);
}
