// SPDX-License-Identifier: GPL-2.0
/*
 * Freeing flows without an rcu_head in each: a flow that is unhashed keeps
 * its id, marked FT_XA_REAP, and a work item collects the marked flows in
 * batches. Each batch is erased from the index and freed, with the
 * references its flows hold, one grace period later. Sixteen bytes less
 * per direction help a plain IPv4 flow fit in 96 bytes. The work
 * waits FT_REAP_DELAY after the first kill, so that under connection
 * churn one run frees many flows rather than one run per teardown: each
 * run wakes a worker and starts a grace period, which costs more than
 * the freeing itself.
 *
 * Once a batch is erased, no reader can reach its flows: they left the
 * hash table before they were marked, and walkers find them only through
 * the index. So a grace period after the erase is enough.
 */
#include <linux/slab.h>

#include "fasttrack.h"

#define FT_XA_REAP	XA_MARK_1	/* XA_MARK_0 is the allocator's */

struct ft_reap_batch {
	struct rcu_head rcu;
	unsigned int n;
	struct ft_flow *flows[];
};

#define FT_REAP_BATCH	((PAGE_SIZE - sizeof(struct ft_reap_batch)) / \
			 sizeof(struct ft_flow *))
#define FT_REAP_SMALL	16	/* on the stack, when a batch cannot be had */
#define FT_REAP_DELAY	(HZ / 10 ?: 1)

/* Queue @flow, unhashed, for freeing. Caller: BH disabled. */
void ft_flow_reap(struct ft_net *fn, struct ft_flow *flow)
{
	xa_lock_bh(&fn->flow_ids);
	__xa_set_mark(&fn->flow_ids, flow->id, FT_XA_REAP);
	xa_unlock_bh(&fn->flow_ids);
	queue_delayed_work(system_wq, &fn->reap_work, FT_REAP_DELAY);
}

/* Erase up to @max marked flows from the index into @flows. */
static unsigned int ft_reap_collect(struct ft_net *fn, struct ft_flow **flows,
				    unsigned int max)
{
	XA_STATE(xas, &fn->flow_ids, 0);
	struct ft_flow *flow;
	unsigned int n = 0, i;

	xas_lock_bh(&xas);
	xas_for_each_marked(&xas, flow, ULONG_MAX, FT_XA_REAP) {
		flows[n] = flow;
		if (++n == max)
			break;
	}
	/* Not while iterating: an erase may free the walk's node. */
	for (i = 0; i < n; i++)
		__xa_erase(&fn->flow_ids, flows[i]->id);
	xas_unlock_bh(&xas);
	return n;
}

static void ft_reap_free(struct ft_flow **flows, unsigned int n)
{
	while (n--)
		ft_flow_destroy(flows[n]);
}

static void ft_reap_batch_rcu(struct rcu_head *head)
{
	struct ft_reap_batch *b = container_of(head, struct ft_reap_batch, rcu);

	ft_reap_free(b->flows, b->n);
	kfree(b);
}

/* Free one batch of marked flows; false when none may be left. */
static bool ft_reap_some(struct ft_net *fn)
{
	struct ft_flow *small[FT_REAP_SMALL];
	struct ft_reap_batch *b;
	unsigned int n;

	b = kmalloc(PAGE_SIZE, GFP_KERNEL | __GFP_NOWARN);
	if (!b) {
		/* Slower, but it always makes progress. */
		n = ft_reap_collect(fn, small, FT_REAP_SMALL);
		synchronize_rcu();
		/* As in an RCU callback: ft_nh_put() wants BH off. */
		local_bh_disable();
		ft_reap_free(small, n);
		local_bh_enable();
		return n == FT_REAP_SMALL;
	}
	b->n = ft_reap_collect(fn, b->flows, FT_REAP_BATCH);
	if (!b->n) {
		kfree(b);
		return false;
	}
	n = b->n;
	call_rcu(&b->rcu, ft_reap_batch_rcu);
	return n == FT_REAP_BATCH;
}

static void ft_reap_all(struct ft_net *fn)
{
	while (ft_reap_some(fn))
		cond_resched();
}

static void ft_reap_work(struct work_struct *work)
{
	ft_reap_all(container_of(to_delayed_work(work), struct ft_net,
				 reap_work));
}

void ft_reap_init(struct ft_net *fn)
{
	INIT_DELAYED_WORK(&fn->reap_work, ft_reap_work);
}

/*
 * Free every flow marked so far, references included: nothing marks more.
 * Caller: process context.
 */
void ft_reap_exit(struct ft_net *fn)
{
	cancel_delayed_work_sync(&fn->reap_work);
	ft_reap_all(fn);
	/* The batches' callbacks drop conntrack and device references. */
	rcu_barrier();
}
