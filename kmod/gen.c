// SPDX-License-Identifier: GPL-2.0
/*
 * Generations: how a cached decision dies with the state it came from.
 *
 * Each kind of state a flow's decision depends on (routing, the firewall
 * ruleset) has a generation number per netns. A change bumps it, and the
 * fast path compares the flow's numbers with the current ones per packet
 * (one read-mostly cache line), so a stale flow forwards nothing.
 *
 * A learn must not cache an old decision under a new number. The numbers a
 * packet is learned under are read when it enters, in the ingress hook,
 * before the stack decides anything (ft_rx_state()). That covers a change
 * whose notification comes after the change. For a notification that comes
 * before the change is visible (the IPv6 FIB notifies, then links), the
 * kind is bumped a second time one RCU grace period later: a packet that
 * could still see the old state has been learned by then, under the number
 * of the first bump, which the second one makes stale.
 */
#include "fasttrack.h"

static void ft_gen_rcu(struct rcu_head *head)
{
	struct ft_net *fn = container_of(head, struct ft_net, gen_rcu);
	unsigned long flags;
	int kind;

	spin_lock_irqsave(&fn->gen_lock, flags);
	for_each_set_bit(kind, &fn->gen_waiting, FT_GEN_NUM)
		atomic_inc(&fn->gen[kind]);
	/* Bumps after this head was armed need a grace period of their own. */
	fn->gen_waiting = fn->gen_next;
	fn->gen_next = 0;
	fn->gen_armed = fn->gen_waiting && !fn->gen_stopped;
	if (fn->gen_armed)
		call_rcu(&fn->gen_rcu, ft_gen_rcu);
	spin_unlock_irqrestore(&fn->gen_lock, flags);
}

/* Any context. */
void ft_gen_bump(struct ft_net *fn, enum ft_gen_kind kind)
{
	unsigned long flags;

	/* The change is visible to whoever sees the new number. */
	smp_mb__before_atomic();
	atomic_inc(&fn->gen[kind]);

	spin_lock_irqsave(&fn->gen_lock, flags);
	if (fn->gen_stopped) {
		/* Nothing is cached any more: the netns goes. */
	} else if (fn->gen_armed) {
		__set_bit(kind, &fn->gen_next);
	} else {
		fn->gen_waiting = BIT(kind);
		fn->gen_armed = true;
		call_rcu(&fn->gen_rcu, ft_gen_rcu);
	}
	spin_unlock_irqrestore(&fn->gen_lock, flags);
}

void ft_gen_init(struct ft_net *fn)
{
	int i;

	for (i = 0; i < FT_GEN_NUM; i++)
		atomic_set(&fn->gen[i], 0);
	spin_lock_init(&fn->gen_lock);
	fn->gen_waiting = 0;
	fn->gen_next = 0;
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
