// SPDX-License-Identifier: GPL-2.0
/*
 * Next hops: what the flows sent to one neighbour share.
 *
 * An ft_nh holds the neighbour and its device for every flow that leaves
 * through them, so that a flow holds one reference instead of two, and a
 * device event acts on the next hops of that device, not on every flow:
 * it kills them, and their flows go back to the stack at their next packet
 * or GC visit. The cost of an event grows with the number of next hops of
 * the device, whatever the number of flows. A layer-3 device (ppp,
 * WireGuard, a tunnel) resolves no neighbour: its one next hop has none.
 *
 * The hash is bucketed by device, so that a device's next hops are in one
 * bucket. Writers hold ft_net.nh_lock; the learn hook looks up under RCU.
 * A live next hop is in the hash and has at least one flow. The last flow
 * to go, or a kill, unhashes it, and its neighbour and device references
 * are dropped one grace period later, when no reader can still use them:
 * readers check ft_nh.dead first. A killed next hop's memory lives on
 * until its last flow is gone.
 */
#include <linux/hash.h>
#include <linux/if_vlan.h>
#include <linux/slab.h>
#include <net/neighbour.h>

#include "fasttrack.h"

static struct hlist_head *ft_nh_bucket(struct ft_net *fn,
				       const struct net_device *dev)
{
	return &fn->nh_hash[hash_ptr(dev, FT_NH_HASH_BITS)];
}

/* Drop what a hashed next hop holds; RCU callback. */
static void ft_nh_release_rcu(struct rcu_head *head)
{
	struct ft_nh *nh = container_of(head, struct ft_nh, rcu);

	if (nh->neigh)
		neigh_release(nh->neigh);
#ifdef FT_HAVE_NETDEV_HOLD
	netdev_put(nh->dev, &nh->dev_tracker);
#else
	dev_put(nh->dev);
#endif
	/* Ordered before the decrement: the last flow then only frees. */
	WRITE_ONCE(nh->released, true);
	if (refcount_dec_and_test(&nh->ref))
		kfree(nh);
}

/* Out of the hash, and stale for its flows. Caller: nh_lock. */
static void ft_nh_unhash(struct ft_nh *nh)
{
	lockdep_assert_held(&nh->fn->nh_lock);
	WRITE_ONCE(nh->dead, true);
	hash_del_rcu(&nh->node);
}

/* Is @nh the next hop of neighbour @n on @dev for packets up to @mtu? */
static bool ft_nh_is(const struct ft_nh *nh, const struct neighbour *n,
		     const struct net_device *dev, unsigned int mtu)
{
	return nh->neigh == n && nh->dev == dev && nh->mtu == mtu;
}

/*
 * The next hop of neighbour @n on @dev for packets of up to @mtu bytes,
 * with a reference for one flow, or NULL. @n is not referenced; it is if
 * it becomes a next hop. A layer-3 device has one next hop per MTU,
 * without a neighbour (@n NULL). Caller: RCU, BH disabled.
 */
struct ft_nh *ft_nh_get(struct ft_net *fn, struct neighbour *n,
			struct net_device *dev, unsigned int mtu)
{
	struct hlist_head *bucket = ft_nh_bucket(fn, dev);
	struct ft_nh *nh;

	/* nh_lock is also taken in softirq (RCU callbacks, learning). */
	lockdep_assert_in_softirq();
	RCU_LOCKDEP_WARN(!rcu_read_lock_held() && !rcu_read_lock_bh_held(),
			 "fasttrack: next hop lookup outside an RCU read section");
	hlist_for_each_entry_rcu(nh, bucket, node)
		if (ft_nh_is(nh, n, dev, mtu) && !READ_ONCE(nh->dead) &&
		    refcount_inc_not_zero(&nh->ref))
			return nh;

	spin_lock(&fn->nh_lock);
	/* A next hop in the hash, under the lock, has a flow: ref >= 1. */
	hlist_for_each_entry(nh, bucket, node)
		if (ft_nh_is(nh, n, dev, mtu)) {
			refcount_inc(&nh->ref);
			goto out;
		}
	FT_HOT_LINE_CHECK(struct ft_nh, dead);
	nh = kzalloc(sizeof(*nh), GFP_ATOMIC);
	if (!nh)
		goto out;
	if (n && !refcount_inc_not_zero(&n->refcnt)) {
		kfree(nh);
		nh = NULL;
		goto out;
	}
	nh->neigh = n;
	nh->dev = dev;
#ifdef FT_HAVE_NETDEV_HOLD
	netdev_hold(dev, &nh->dev_tracker, GFP_ATOMIC);
#else
	dev_hold(dev);
#endif
	nh->fn = fn;
	nh->mtu = mtu;
	nh->ifindex = dev->ifindex;
	nh->vlan_id = is_vlan_dev(dev) ? vlan_dev_vlan_id(dev) : 0;
	refcount_set(&nh->ref, 1);
	hlist_add_head_rcu(&nh->node, bucket);
out:
	spin_unlock(&fn->nh_lock);
	return nh;
}

/* A flow lets go of @nh. Caller: BH disabled (an RCU callback, learn). */
void ft_nh_put(struct ft_nh *nh)
{
	struct ft_net *fn = nh->fn;

	lockdep_assert_in_softirq();
	if (refcount_dec_not_one(&nh->ref))
		return;
	/* Maybe the last: drop it to 0 where ft_nh_get() cannot take it. */
	spin_lock(&fn->nh_lock);
	if (!refcount_dec_and_test(&nh->ref)) {
		spin_unlock(&fn->nh_lock);
		return;
	}
	if (READ_ONCE(nh->released)) {
		/* Killed and released: nothing can reach it any more. */
		spin_unlock(&fn->nh_lock);
		kfree(nh);
		return;
	}
	/*
	 * The last flow of a live next hop; the release frees it. Unhashed
	 * first, so that a lockless ft_nh_get() never takes it back from 0.
	 */
	ft_nh_unhash(nh);
	refcount_set(&nh->ref, 1);
	call_rcu(&nh->rcu, ft_nh_release_rcu);
	spin_unlock(&fn->nh_lock);
}

/*
 * @dev changed (down, MTU, address, upper device) or goes: its next hops
 * die, and with them, at their next packet, the flows that leave through
 * them. RTNL.
 */
void ft_nh_kill_dev(struct ft_net *fn, const struct net_device *dev)
{
	struct hlist_node *tmp;
	struct ft_nh *nh;

	ASSERT_RTNL();
	spin_lock_bh(&fn->nh_lock);
	hlist_for_each_entry_safe(nh, tmp, ft_nh_bucket(fn, dev), node)
		if (nh->dev == dev) {
			ft_nh_unhash(nh);
			/* For the release; flows hold it: ref >= 1 here. */
			refcount_inc(&nh->ref);
			call_rcu(&nh->rcu, ft_nh_release_rcu);
		}
	spin_unlock_bh(&fn->nh_lock);
}

void ft_nh_init(struct ft_net *fn)
{
	spin_lock_init(&fn->nh_lock);
	hash_init(fn->nh_hash);
}

/* Every flow is gone, and with them every next hop. */
void ft_nh_exit(struct ft_net *fn)
{
	/* The releases the flows' releases queued. */
	rcu_barrier();
	WARN_ON_ONCE(!hash_empty(fn->nh_hash));
}
