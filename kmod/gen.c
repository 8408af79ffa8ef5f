// SPDX-License-Identifier: GPL-2.0
/*
 * Generations: how a cached decision dies with the state it came from.
 *
 * Each kind of state a flow's decision depends on (routing, the firewall
 * ruleset) has a generation number per netns. A change bumps it, and the
 * fast path compares the flow's numbers with the current ones per packet
 * (one read-mostly cache line), so a stale flow forwards nothing. Routing
 * is finer: its number is the head of a log of route changes (route.c),
 * and a flow behind it looks at what was logged since.
 *
 * A learn must not cache an old decision under a new number. The numbers a
 * packet is learned under are read when it enters, in the ingress hook,
 * before the stack decides anything (ft_rx_state()). That covers a change
 * whose notification comes after the change. For a notification that comes
 * before the change is visible (the IPv6 FIB notifies, then links), each
 * bump and each logged change is repeated one RCU grace period later: a
 * packet that could still see the old state has been learned or checked
 * by then, under the number of the first one, which the repeat moves on.
 */
#include "fasttrack.h"

static void ft_gen_rcu(struct rcu_head *head);

/* Bump @kind once; a routing bump logs a change that covers every flow. */
static void ft_gen_inc(struct ft_net *fn, int kind)
{
	lockdep_assert_held(&fn->gen_lock);
	if (kind == FT_GEN_ROUTE)
		ft_route_log_append(fn, NULL);
	else
		atomic_inc(&fn->gen[kind]);
}

/*
 * Repeat a bump of @kind, or the logging of @c, once a grace period has
 * passed: into the armed batch, or the next one if that is armed already.
 * A batch that overflows logs one change that covers every flow instead.
 */
static void ft_gen_defer(struct ft_net *fn, int kind,
			 const struct ft_route_change *c)
{
	bool armed = fn->gen_armed;
	struct ft_route_change *log = armed ? fn->rlog_next : fn->rlog_waiting;
	unsigned int *n = armed ? &fn->rlog_nnext : &fn->rlog_nwaiting;

	lockdep_assert_held(&fn->gen_lock);
	if (fn->gen_stopped)
		return;	/* Nothing is cached any more: the netns goes. */
	if (c) {
		if (*n < FT_RLOG_DEFER)
			log[*n] = *c;
		if (*n <= FT_RLOG_DEFER)
			(*n)++;
	} else {
		__set_bit(kind, armed ? &fn->gen_next : &fn->gen_waiting);
	}
	if (!armed) {
		fn->gen_armed = true;
		call_rcu(&fn->gen_rcu, ft_gen_rcu);
	}
}

static void ft_gen_rcu(struct rcu_head *head)
{
	struct ft_net *fn = container_of(head, struct ft_net, gen_rcu);
	unsigned long flags;
	unsigned int i;
	int kind;

	spin_lock_irqsave(&fn->gen_lock, flags);
	for_each_set_bit(kind, &fn->gen_waiting, FT_GEN_NUM)
		ft_gen_inc(fn, kind);
	if (fn->rlog_nwaiting > FT_RLOG_DEFER)
		ft_route_log_append(fn, NULL);
	else
		for (i = 0; i < fn->rlog_nwaiting; i++)
			ft_route_log_append(fn, &fn->rlog_waiting[i]);

	/* What came while this batch was armed needs a grace period too. */
	fn->gen_waiting = fn->gen_next;
	fn->gen_next = 0;
	fn->rlog_nwaiting = fn->rlog_nnext;
	memcpy(fn->rlog_waiting, fn->rlog_next,
	       min(fn->rlog_nnext, FT_RLOG_DEFER) * sizeof(fn->rlog_next[0]));
	fn->rlog_nnext = 0;
	fn->gen_armed = (fn->gen_waiting || fn->rlog_nwaiting) &&
			!fn->gen_stopped;
	if (fn->gen_armed)
		call_rcu(&fn->gen_rcu, ft_gen_rcu);
	spin_unlock_irqrestore(&fn->gen_lock, flags);
}

/* Any context. */
void ft_gen_bump(struct ft_net *fn, enum ft_gen_kind kind)
{
	unsigned long flags;

	/* The change is visible to whoever sees the new number. */
	smp_mb();
	spin_lock_irqsave(&fn->gen_lock, flags);
	ft_gen_inc(fn, kind);
	ft_gen_defer(fn, kind, NULL);
	spin_unlock_irqrestore(&fn->gen_lock, flags);
}

/* Log a route change now and once more a grace period later. Any context. */
void ft_route_log(struct ft_net *fn, const struct ft_route_change *c)
{
	unsigned long flags;

	/* As in ft_gen_bump(). */
	smp_mb();
	spin_lock_irqsave(&fn->gen_lock, flags);
	ft_route_log_append(fn, c);
	ft_gen_defer(fn, FT_GEN_ROUTE, c);
	spin_unlock_irqrestore(&fn->gen_lock, flags);
}

void ft_gen_init(struct ft_net *fn)
{
	int i;

	for (i = 0; i < FT_GEN_NUM; i++)
		atomic_set(&fn->gen[i], 0);
	spin_lock_init(&fn->gen_lock);
	seqcount_spinlock_init(&fn->rlog_seq, &fn->gen_lock);
	fn->gen_waiting = 0;
	fn->gen_next = 0;
	fn->rlog_nwaiting = 0;
	fn->rlog_nnext = 0;
	fn->gen_armed = false;
	fn->gen_stopped = false;
}

/* Every source of bumps is gone; wait for the armed head, if any. */
void ft_gen_exit(struct ft_net *fn)
{
	bool armed;

	spin_lock_irq(&fn->gen_lock);
	fn->gen_stopped = true;
	spin_unlock_irq(&fn->gen_lock);
	do {
		rcu_barrier();
		spin_lock_irq(&fn->gen_lock);
		armed = fn->gen_armed;
		spin_unlock_irq(&fn->gen_lock);
	} while (armed);
}
