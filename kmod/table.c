// SPDX-License-Identifier: GPL-2.0
/*
 * The flow table: an RCU hash table per netns, keyed on the tuple of one
 * direction as it arrives. Readers (the fast path) take no lock. Entries
 * are unlinked by ft_flow_teardown() and freed after a grace period, when
 * no reader can still hold them; the free pushes their last counters into
 * conntrack. An xarray numbers the flows in learning order, for walks that
 * must see each flow once: dumps, flushes and the GC, a delayed work that
 * syncs counters and conntrack timeouts, and removes idle entries and
 * entries whose connection is gone. The GC visits a slice of the table per
 * run, so that its cost per second stays bounded however many flows there
 * are: small tables are swept every run, big ones over FT_GC_SWEEP.
 */
#include <linux/jhash.h>
#include <linux/slab.h>
#include <net/neighbour.h>
#include <net/netfilter/nf_conntrack_acct.h>

#include "fasttrack.h"

#define FT_GC_INTERVAL	(HZ / 2)
#define FT_GC_SWEEP	(8 * HZ)	/* longest pass over a big table */
#define FT_GC_MIN_BATCH	4096		/* flows per run at least */

static struct kmem_cache *ft_flow_cache;	/* plain routed flows */
static struct kmem_cache *ft_flow_nat_cache;	/* with rewrite[1] */

static const struct rhashtable_params ft_flow_params = {
	.head_offset		= offsetof(struct ft_flow, node),
	.key_offset		= offsetof(struct ft_flow, key),
	.key_len		= sizeof(struct ft_key),
	.automatic_shrinking	= true,
};

/*
 * No SLAB_HWCACHE_ALIGN: it would round a flow up to 256 bytes, and at a
 * million flows memory counts more than false sharing between neighbours.
 */
int ft_table_cache_init(void)
{
	ft_flow_cache = KMEM_CACHE(ft_flow, 0);
	if (!ft_flow_cache)
		return -ENOMEM;
	ft_flow_nat_cache = kmem_cache_create("ft_flow_nat",
					      sizeof(struct ft_flow) +
					      sizeof(struct ft_nat),
					      __alignof__(struct ft_flow), 0,
					      NULL);
	if (!ft_flow_nat_cache)
		goto err_nat;
	return 0;

err_nat:
	kmem_cache_destroy(ft_flow_cache);
	return -ENOMEM;
}

void ft_table_cache_exit(void)
{
	kmem_cache_destroy(ft_flow_nat_cache);
	kmem_cache_destroy(ft_flow_cache);
}

struct ft_flow *ft_flow_alloc(bool nat)
{
	return kmem_cache_zalloc(nat ? ft_flow_nat_cache : ft_flow_cache,
				 GFP_ATOMIC);
}

static void ft_flow_cache_free(struct ft_flow *flow)
{
	kmem_cache_free(flow->nat ? ft_flow_nat_cache : ft_flow_cache, flow);
}

static void ft_flow_free_rcu(struct rcu_head *head)
{
	ft_flow_cache_free(container_of(head, struct ft_flow, rcu));
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
	ft_flow_cache_free(flow);
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

/*
 * Visit up to @budget flows, in process context, from id *@pos on, and
 * leave *@pos where the next walk goes on. Returns false when the walk
 * reached the end of the table. The RCU read section is dropped every
 * FT_WALK_BATCH flows; xas_pause() keeps the place across.
 */
#define FT_WALK_BATCH	256

typedef void (*ft_walk_fn)(struct ft_net *fn, struct ft_flow *flow,
			   const void *arg);

static bool ft_table_walk(struct ft_net *fn, unsigned long *pos,
			  unsigned long budget, ft_walk_fn fn_flow,
			  const void *arg)
{
	XA_STATE(xas, &fn->flow_ids, *pos);
	struct ft_flow *flow;
	unsigned int n = 0;
	bool more = false;

	rcu_read_lock();
	local_bh_disable();
	xas_for_each(&xas, flow, ULONG_MAX) {
		if (xas_retry(&xas, flow))
			continue;
		if (ft_flow_live(flow))
			fn_flow(fn, flow, arg);
		if (!--budget) {
			*pos = xas.xa_index + 1;
			more = true;
			break;
		}
		if (++n < FT_WALK_BATCH)
			continue;
		n = 0;
		xas_pause(&xas);
		local_bh_enable();
		rcu_read_unlock();
		cond_resched();
		rcu_read_lock();
		local_bh_disable();
	}
	local_bh_enable();
	rcu_read_unlock();
	return more;
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
	unsigned long pos = 0;

	ft_table_walk(fn, &pos, ULONG_MAX, ft_kill_one, &k);
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

/*
 * Keep conntrack's timeout from running out under an active flow: the GC
 * may come back only after two sweeps (a flow learned behind its cursor).
 */
static void ft_ct_refresh(struct ft_flow *flow)
{
	struct nf_conn *ct = flow->ct;
	u32 expires = nfct_time_stamp + flow->ct_timeout + 2 * FT_GC_SWEEP;

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
		WRITE_ONCE(flow->last_active, (u32)jiffies);
		return 0;
	}
	if ((u32)jiffies - flow->last_active > ft_flow_idle_timeout(fn, flow))
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
	unsigned long budget;

	/* A slice such that a pass takes FT_GC_SWEEP at most. */
	budget = (unsigned long)atomic_read(&fn->nflows) * FT_GC_INTERVAL /
		 FT_GC_SWEEP;
	budget = max_t(unsigned long, budget, FT_GC_MIN_BATCH);
	if (!ft_table_walk(fn, &fn->gc_next, budget, ft_gc_flow, NULL))
		fn->gc_next = 0;
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
