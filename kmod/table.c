// SPDX-License-Identifier: GPL-2.0
/*
 * The flow table: an RCU hash table per netns (flowhash.c), keyed on the
 * tuple of one direction as it arrives, over its family's length. Readers
 * (the fast path) take no lock. Entries are unlinked by ft_flow_teardown()
 * and freed by reap.c after a grace period, when no reader can still hold
 * them. An xarray numbers the flows (lowest free id), for walks that must
 * see each flow once: dumps, flushes and the GC, a delayed work that
 * refreshes conntrack timeouts, and removes idle entries and entries whose
 * connection is gone.
 * The GC visits a slice of the table per run, so that its cost per second
 * stays bounded however many flows there are: small tables are swept every
 * run, big ones over FT_GC_SWEEP. It runs only while there are flows.
 */
#include <linux/slab.h>
#include <net/dst.h>
#include <net/neighbour.h>
#include <net/netfilter/nf_conntrack_acct.h>
#include <net/netfilter/nf_conntrack_ecache.h>
#include <net/netfilter/nf_conntrack_l4proto.h>
#include <net/netfilter/nf_conntrack_timeout.h>

#include "fasttrack.h"

#define FT_GC_INTERVAL	(HZ / 2)
#define FT_GC_MIN_BATCH	4096		/* flows per run at least */

/*
 * Who hears of a flow that comes or goes: the API layer's multicast
 * (netlink.c). The table reaches the layer above it only through this.
 */
static ATOMIC_NOTIFIER_HEAD(ft_flow_chain);

int ft_flow_notifier_register(struct notifier_block *nb)
{
	return atomic_notifier_chain_register(&ft_flow_chain, nb);
}

/* Returns after a grace period: no listener runs any more. */
void ft_flow_notifier_unregister(struct notifier_block *nb)
{
	atomic_notifier_chain_unregister(&ft_flow_chain, nb);
}

/* @flow came (@reason 0) or went; any context. */
static void ft_flow_notify(struct ft_net *fn, const struct ft_flow *flow,
			   enum ft_stat reason)
{
	struct ft_flow_event ev = {
		.fn = fn,
		.flow = flow,
		.reason = reason,
	};

	atomic_notifier_call_chain(&ft_flow_chain, 0, &ev);
}

/*
 * Fill @key from @t: the family's length of it, as much as an IPv4 flow
 * stores.
 */
void ft_key_from_tuple(struct ft_key *key, const struct nf_conntrack_tuple *t)
{
	enum ft_fam fam = t->src.l3num == NFPROTO_IPV4 ? FT_FAM_V4 : FT_FAM_V6;

	memset(key, 0, ft_key_len(fam));
	key->fam = fam;
	if (fam == FT_FAM_V4) {
		key->v4.src = t->src.u3.ip;
		key->v4.dst = t->dst.u3.ip;
	} else {
		key->v6.src = t->src.u3.in6;
		key->v6.dst = t->dst.u3.in6;
	}
	key->sport = t->src.u.all;
	key->dport = t->dst.u.all;
	key->l4proto = t->dst.protonum;
}

/*
 * The GC runs only while the table holds flows: a netns where nothing is
 * learned costs no wakeups. It stops when it finds the table empty, and
 * the next insert starts it. The work is no longer pending while it runs,
 * so an insert that races with its stop queues it again.
 */
static void ft_gc_kick(struct ft_net *fn)
{
	if (!delayed_work_pending(&fn->gc_work))
		queue_delayed_work(system_power_efficient_wq, &fn->gc_work,
				   FT_GC_INTERVAL);
}

/*
 * Publish a fully set up flow, which holds its references. The caller
 * checked that the table has room and that the tuple is free, so this
 * fails only on a race; the flow is then released. Caller: BH disabled.
 */
int ft_flow_insert(struct ft_net *fn, struct ft_flow *flow)
{
	int err;

	lockdep_assert_in_softirq();
	if (atomic_inc_return(&fn->nflows) > READ_ONCE(fn->cfg.max_flows)) {
		ft_stat_inc(fn, FT_STAT_TABLE_FULL);
		err = -ENOSPC;
		goto err_full;
	}
	/*
	 * The lowest free id: the index stays dense under churn, where
	 * cyclic ids would leave long-lived flows alone in sparse nodes. A
	 * walk still sees each flow once: a flow keeps its id. The id comes
	 * first, because a flow readers may have seen is freed through it.
	 */
	err = xa_alloc_bh(&fn->flow_ids, &flow->id, flow, xa_limit_32b,
			  GFP_ATOMIC);
	if (err < 0)
		goto err_full;
	err = ft_flow_hash_insert(fn, flow);
	if (err)
		goto err_hash;
	ft_test_insert_window(flow);
	/* From here on teardowns and walks may act on it. */
	set_bit(FT_FLOW_LIVE, &flow->flags);
	ft_gc_kick(fn);

	ft_stat_inc(fn, FT_STAT_LEARNED);
	ft_flow_notify(fn, flow, 0);
	return 0;

err_hash:
	atomic_dec(&fn->nflows);
	/* Walkers may have seen it in the index, not yet live. */
	ft_flow_reap(fn, flow);
	return err;
err_full:
	atomic_dec(&fn->nflows);
	ft_flow_destroy(flow);
	return err;
}

/* What the fast path forwarded of @flow so far; exact, any context. */
void ft_flow_acct_read(const struct ft_flow *flow, u64 *packets, u64 *bytes)
{
	*packets = atomic64_read(&flow->acct.packets);
	*bytes = atomic64_read(&flow->acct.bytes);
}

/* Unlink one direction; the caller holds rcu_read_lock and has BH off. */
static bool ft_flow_kill(struct ft_net *fn, struct ft_flow *flow,
			 enum ft_stat reason)
{
	if (!test_bit(FT_FLOW_LIVE, &flow->flags) ||
	    test_and_set_bit(FT_FLOW_DEAD, &flow->flags))
		return false;
	ft_flow_hash_remove(fn, flow);
	atomic_dec(&fn->nflows);
	ft_flow_notify(fn, flow, reason);
	ft_flow_reap(fn, flow);
	return true;
}

/*
 * The timeout conntrack gives the connection in its current state, in
 * jiffies: its own per-netns table, or the connection's timeout policy.
 */
static u32 ft_ct_state_timeout(struct nf_conn *ct)
{
	struct net *net = nf_ct_net(ct);
	unsigned int *timeouts = nf_ct_timeout_lookup(ct);

	if (nf_ct_protonum(ct) == IPPROTO_TCP) {
		if (!timeouts)
			timeouts = nf_tcp_pernet(net)->timeouts;
		return timeouts[READ_ONCE(ct->proto.tcp.state)];
	}
	if (!timeouts)
		timeouts = nf_udp_pernet(net)->timeouts;
	return timeouts[test_bit(IPS_ASSURED_BIT, &ct->status) ?
			UDP_CT_REPLIED : UDP_CT_UNREPLIED];
}

/*
 * Give conntrack back what the slow path would have left it: no more than
 * the timeout of its current state, and TCP window tracking that picks the
 * windows up again from the next packet (td_maxwin 0, as after a
 * mid-stream start), since it did not see the packets of the fast path.
 */
static void ft_ct_fixup(struct nf_conn *ct)
{
	u32 timeout = ft_ct_state_timeout(ct);

	if ((s32)(READ_ONCE(ct->timeout) - nfct_time_stamp) > (s32)timeout)
		WRITE_ONCE(ct->timeout, nfct_time_stamp + timeout);
	if (nf_ct_protonum(ct) != IPPROTO_TCP)
		return;
	spin_lock_bh(&ct->lock);
	ct->proto.tcp.seen[0].td_maxwin = 0;
	ct->proto.tcp.seen[1].td_maxwin = 0;
	spin_unlock_bh(&ct->lock);
}

/*
 * Kill the cached direction @dir of @ct, if any. Caller: rcu_read_lock,
 * BH off.
 */
static bool ft_flow_kill_dir(struct ft_net *fn, struct nf_conn *ct,
			     enum ip_conntrack_dir dir, enum ft_stat reason)
{
	struct ft_flow *flow;
	struct ft_key key;

	ft_key_from_tuple(&key, &ct->tuplehash[dir].tuple);
	flow = ft_flow_lookup(fn, &key);
	return flow && flow->ct == ct && ft_flow_kill(fn, flow, reason);
}

/* After @killed directions of @ct were removed. */
static void ft_flow_teardown_done(struct ft_net *fn, struct nf_conn *ct,
				  int killed, enum ft_stat reason)
{
	if (!killed)
		return;
	if (reason < FT_STAT_NUM)
		ft_stat_add(fn, reason, killed);
	ft_ct_fixup(ct);
}

/* Remove both directions of @ct, if cached. Caller: RCU, BH off. */
void ft_flow_teardown_ct(struct ft_net *fn, struct nf_conn *ct,
			 enum ft_stat reason)
{
	int killed;

	lockdep_assert_in_softirq();
	RCU_LOCKDEP_WARN(!rcu_read_lock_held() && !rcu_read_lock_bh_held(),
			 "fasttrack: teardown outside an RCU read section");
	killed = ft_flow_kill_dir(fn, ct, IP_CT_DIR_ORIGINAL, reason);
	killed += ft_flow_kill_dir(fn, ct, IP_CT_DIR_REPLY, reason);
	ft_flow_teardown_done(fn, ct, killed, reason);
}

/*
 * Remove both directions of the flow's connection, so that conntrack sees
 * every packet of it from now on. Caller: rcu_read_lock, BH disabled.
 */
void ft_flow_teardown(struct ft_net *fn, struct ft_flow *flow,
		      enum ft_stat reason)
{
	struct nf_conn *ct = flow->ct;
	int killed;

	lockdep_assert_in_softirq();
	RCU_LOCKDEP_WARN(!rcu_read_lock_held() && !rcu_read_lock_bh_held(),
			 "fasttrack: teardown outside an RCU read section");
	killed = ft_flow_kill(fn, flow, reason);
	killed += ft_flow_kill_dir(fn, ct, !ft_flow_dir(flow), reason);
	ft_flow_teardown_done(fn, ct, killed, reason);
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

static bool ft_match_flow(const struct ft_match *m, const struct ft_key *k)
{
	size_t alen = k->fam == FT_FAM_V4 ? sizeof(k->v4.src) :
		      sizeof(k->v6.src);

	if ((m->fields & FT_MATCH_PROTO) && k->l4proto != m->l4proto)
		return false;
	if ((m->fields & (FT_MATCH_SRC | FT_MATCH_DST)) && k->fam != m->fam)
		return false;
	if ((m->fields & FT_MATCH_SRC) && memcmp(ft_key_src(k), &m->src, alen))
		return false;
	if ((m->fields & FT_MATCH_DST) && memcmp(ft_key_dst(k), &m->dst, alen))
		return false;
	if ((m->fields & FT_MATCH_SPORT) && k->sport != m->sport)
		return false;
	return !(m->fields & FT_MATCH_DPORT) || k->dport == m->dport;
}

/* The families @devs gives the device of index @ifindex; 0 if none. */
static u8 ft_devs_families(struct xarray *devs, int ifindex)
{
	void *v = xa_load(devs, ifindex);

	return v ? xa_to_value(v) : 0;
}

bool ft_filter_match(const struct ft_filter *f, const struct ft_flow *flow)
{
	u8 fam = ft_fam_flag(flow->key.fam);

	if (!(f->families & fam))
		return false;
	if (f->iif && flow->iif != f->iif)
		return false;
	if (f->dev && flow->iif != f->dev->ifindex && flow->nh->dev != f->dev)
		return false;
	if (f->devs && !((ft_devs_families(f->devs, flow->iif) |
			  ft_devs_families(f->devs, flow->nh->ifindex)) & fam))
		return false;
	return !f->match.fields || ft_match_flow(&f->match, &flow->key);
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

/*
 * Drop the flows that enter or leave through the devices of @devs, each
 * for the families it gives; one walk for all of them.
 */
void ft_table_kill_devs(struct ft_net *fn, struct xarray *devs)
{
	struct ft_filter f = { .devs = devs, .families = FT_FAMILIES_ALL };

	ft_table_kill(fn, &f, FT_STAT_INVALIDATED);
}

/* Drop the flows that entered through the device of index @ifindex. */
void ft_table_kill_iif(struct ft_net *fn, int ifindex)
{
	struct ft_filter f = { .iif = ifindex, .families = FT_FAMILIES_ALL };

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
 * Conntrack's view of a flow last active at @last: the timeout of its
 * current state from then, as the stack's last packet would have set it,
 * so that conntrack never shows more than its state allows. Only a state
 * whose timeout is shorter than the GC's longest way back (two sweeps, for
 * a flow learned behind the cursor) gets that much instead, lest the entry
 * run out under a live flow. Both directions refresh one entry, so only a
 * later expiry is written. A UDP connection still active after two
 * seconds is a stream, assured as conntrack would. From the GC, and from
 * the fast path when an entry comes within a sweep of its expiry.
 */
void ft_ct_refresh(struct ft_flow *flow, u32 last)
{
	struct nf_conn *ct = flow->ct;
	u32 expires = last + max_t(u32, ft_ct_state_timeout(ct),
				   2 * FT_GC_SWEEP);

	if ((s32)(expires - READ_ONCE(ct->timeout)) <= 0)
		return;
	if (nf_ct_protonum(ct) == IPPROTO_UDP &&
	    time_after(jiffies, ct->proto.udp.stream_ts) &&
	    !test_and_set_bit(IPS_ASSURED_BIT, &ct->status))
		nf_conntrack_event(IPCT_ASSURED, ct);
	WRITE_ONCE(ct->timeout, expires);
}

/* Is the device @flow enters through still enabled for its family? */
static bool ft_flow_ingress_enabled(struct ft_net *fn,
				    const struct ft_flow *flow)
{
	const struct ft_dev *fd = xa_load(&fn->dev_index, flow->iif);

	return fd && (READ_ONCE(fd->families) & ft_fam_flag(flow->key.fam));
}

/* One GC pass over a flow; returns the reason to remove it, or 0. */
static enum ft_stat ft_gc_check(struct ft_net *fn, struct ft_flow *flow)
{
	struct nf_conn *ct = flow->ct;
	enum ft_stat reason;
	u32 last;

	if (nf_ct_is_dying(ct) || nf_ct_is_expired(ct) ||
	    test_bit(IPS_OFFLOAD_BIT, &ct->status))
		return FT_STAT_CT_GONE;
	/* Route changes are the fast path's: it may keep the flow. */
	reason = ft_route_gc_check(fn, flow);
	if (reason)
		return reason;
	/* Device events act on next hops and enabled devices, not flows. */
	if (READ_ONCE(flow->nh->dead) || !ft_flow_ingress_enabled(fn, flow))
		return FT_STAT_INVALIDATED;
	/* The slow path saw a close the fast path did not. */
	if (nf_ct_protonum(ct) == IPPROTO_TCP && !ft_tcp_cacheable(ct))
		return FT_STAT_TORN_DOWN;

	last = READ_ONCE(flow->last_active);
	if ((u32)jiffies - last > ft_flow_idle_timeout(fn, flow))
		return FT_STAT_EXPIRED;
	ft_ct_refresh(flow, last);
	return 0;
}

static void ft_gc_flow(struct ft_net *fn, struct ft_flow *flow,
		       const void *arg)
{
	enum ft_stat reason = ft_gc_check(fn, flow);

	if (reason)
		ft_flow_teardown(fn, flow, reason);
}

/*
 * A pass ended: forget the devices that went before the one that ended
 * started (dev.c): it removed what was left of their flows.
 */
static void ft_gc_pass_done(struct ft_net *fn)
{
	unsigned long pass = (fn->gc_passes + 1) & LONG_MAX, index;
	void *entry;

	WRITE_ONCE(fn->gc_passes, pass);
	xa_for_each(&fn->gone_iifs, index, entry)
		if (((pass - xa_to_value(entry)) & LONG_MAX) >= 2)
			xa_cmpxchg(&fn->gone_iifs, index, entry, NULL,
				   GFP_KERNEL);
}

static void ft_gc_work(struct work_struct *work)
{
	struct ft_net *fn = container_of(to_delayed_work(work), struct ft_net,
					 gc_work);
	unsigned long budget;

	/* A test holds the GC off to see what else removes flows. */
	if (ft_test_gc_paused())
		goto requeue;
	/* A slice such that a pass takes FT_GC_SWEEP at most. */
	budget = (unsigned long)atomic_read(&fn->nflows) * FT_GC_INTERVAL /
		 FT_GC_SWEEP;
	budget = max_t(unsigned long, budget, FT_GC_MIN_BATCH);
	if (!ft_table_walk(fn, &fn->gc_next, budget, ft_gc_flow, NULL)) {
		fn->gc_next = 0;
		ft_gc_pass_done(fn);
	}
requeue:
	/* An insert after this read queues the work itself: ft_gc_kick(). */
	if (atomic_read(&fn->nflows))
		queue_delayed_work(system_power_efficient_wq, &fn->gc_work,
				   FT_GC_INTERVAL);
}

/*
 * xa_init() gives every xarray set up in one file the same lockdep class:
 * flow_ids is locked in softirq, gone_iifs only with BH enabled (RTNL, the
 * GC work), which lockdep would take for the same lock used both ways.
 */
static struct lock_class_key ft_gone_iifs_key;

int ft_table_init(struct ft_net *fn)
{
	int err;

	err = ft_flow_hash_init(fn);
	if (err)
		return err;
	xa_init_flags(&fn->flow_ids, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	xa_init(&fn->gone_iifs);
	lockdep_set_class(&fn->gone_iifs.xa_lock, &ft_gone_iifs_key);
	fn->gc_passes = 0;
	atomic_set(&fn->nflows, 0);
	ft_reap_init(fn);
	INIT_DELAYED_WORK(&fn->gc_work, ft_gc_work);
	return 0;
}

/* The hooks are gone; nothing adds flows any more. */
void ft_table_exit(struct ft_net *fn)
{
	struct ft_filter all = { .families = FT_FAMILIES_ALL };

	cancel_delayed_work_sync(&fn->gc_work);
	ft_table_kill(fn, &all, FT_REASON_NETNS);
	/* Flows hold conntrack references the conntrack netns exit waits for. */
	ft_reap_exit(fn);
	WARN_ON_ONCE(atomic_read(&fn->nflows));
	WARN_ON_ONCE(!xa_empty(&fn->flow_ids));
	xa_destroy(&fn->flow_ids);
	xa_destroy(&fn->gone_iifs);
	ft_flow_hash_exit(fn);
}
