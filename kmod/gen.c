// SPDX-License-Identifier: GPL-2.0
/*
 * Generations: how a cached decision dies with the state it came from.
 *
 * Each kind of state a flow's decision depends on (routing per family, the
 * firewall ruleset) has a generation number per netns. A change bumps it,
 * and the fast path compares the flow's numbers with the current ones per
 * packet (one read-mostly cache line), so a stale flow forwards nothing.
 * Routing is finer: its number is the head of a log of route changes
 * (route.c), and a flow behind it looks at what was logged since.
 *
 * A learn must not cache an old decision under a new number. The numbers a
 * packet is learned under are read when it enters, in the ingress hook,
 * before the stack decides anything (ft_rx_state()). That covers a change
 * whose notification comes after the change. For a notification that may
 * come before the change is visible (a nexthop object, a rule), the bump
 * is repeated one RCU grace period later: a packet that could still see the
 * old state has been learned or checked by then, under the number of the
 * first bump, which the second one moves on. (FIB entries are not repeated:
 * route.c says why; nor are ruleset commits and sysctls, which are live
 * before they are announced: ft_gen_bump_once().)
 */
#include "fasttrack.h"

static void ft_gen_rcu(struct rcu_head *head);

/* fastpath_ruleset_once's kprobe reads the flag at this offset. */
static_assert(offsetof(struct ft_route_change, ruleset) == 18);

/*
 * The route change log's writers (route.c reads it): its head is a
 * generation, and they hold gen_lock.
 */
/* Log @c for @fam, or a change that covers all if NULL. gen_lock held. */
void ft_route_log_append(struct ft_net *fn, enum ft_fam fam,
			 const struct ft_route_change *c)
{
	atomic_t *head = &fn->gen[ft_gen_route(fam)];
	u32 seq = (u32)atomic_read(head) + 1;
	struct ft_route_change *slot = &fn->rlog[fam][seq % FT_RLOG_SIZE];

	lockdep_assert_held(&fn->gen_lock);
	write_seqcount_begin(&fn->rlog_seq);
	if (c) {
		*slot = *c;
	} else {
		memset(slot, 0, sizeof(*slot));
		slot->all = true;
	}
	if (slot->ruleset)
		WRITE_ONCE(fn->rules_seq[fam], seq);
	if (!slot->dst)
		WRITE_ONCE(fn->cover_seq[fam], seq);
	atomic_set(head, seq);
	write_seqcount_end(&fn->rlog_seq);
}

/* Log a FIB entry change. Any context (IPv6 notifies under a spinlock). */
void ft_route_log(struct ft_net *fn, enum ft_fam fam,
		  const struct ft_route_change *c)
{
	unsigned long flags;

	/* As in ft_gen_bump(). */
	smp_mb();
	spin_lock_irqsave(&fn->gen_lock, flags);
	ft_route_log_append(fn, fam, c);
	spin_unlock_irqrestore(&fn->gen_lock, flags);
}

/*
 * The dst generation of @fam moved to @gen: log it, once, so that each
 * flow of the family checks its dst at its next packet (ft_flow_fresh()).
 * The fast path, which saw it first; rare.
 */
void ft_route_dst_gen_note(struct ft_net *fn, enum ft_fam fam, u32 gen)
{
	static const struct ft_route_change c = { .dst = true };
	unsigned long flags;

	spin_lock_irqsave(&fn->gen_lock, flags);
	if (READ_ONCE(fn->dst_gen[fam]) != gen) {
		ft_route_log_append(fn, fam, &c);
		/* Pairs with smp_rmb() in ft_flow_fresh(). */
		smp_wmb();
		WRITE_ONCE(fn->dst_gen[fam], gen);
	}
	spin_unlock_irqrestore(&fn->gen_lock, flags);
}

/*
 * Bump @kinds once; a routing bump logs a change that covers all, and a
 * ruleset bump logs one in each family, which cached flows check.
 */
static void ft_gen_inc(struct ft_net *fn, unsigned long kinds)
{
	static const struct ft_route_change ruleset = {
		.all = true,
		.ruleset = true,
	};
	enum ft_fam fam;
	int kind;

	lockdep_assert_held(&fn->gen_lock);
	for_each_set_bit(kind, &kinds, FT_GEN_NUM) {
		if (kind == FT_GEN_RULES) {
			atomic_inc(&fn->gen[kind]);
			for (fam = 0; fam < FT_FAM_NUM; fam++)
				ft_route_log_append(fn, fam, &ruleset);
		} else {
			ft_route_log_append(fn, kind == FT_GEN_ROUTE4 ?
					    FT_FAM_V4 : FT_FAM_V6, NULL);
		}
	}
}

static void ft_gen_rcu(struct rcu_head *head)
{
	struct ft_net *fn = container_of(head, struct ft_net, gen_rcu);
	unsigned long flags;

	spin_lock_irqsave(&fn->gen_lock, flags);
	ft_gen_inc(fn, fn->gen_waiting);
	/* Bumps after this head was armed need a grace period of their own. */
	fn->gen_waiting = fn->gen_next;
	fn->gen_next = 0;
	fn->gen_armed = fn->gen_waiting && !fn->gen_stopped;
	if (fn->gen_armed)
		call_rcu(&fn->gen_rcu, ft_gen_rcu);
	spin_unlock_irqrestore(&fn->gen_lock, flags);
}

/*
 * Bump @kinds for a change that is live before it is announced: an
 * nftables commit switches to its new generation before it sends the
 * messages rules.c hears, and a sysctl is written before its netevent. A
 * packet that reads the new number then sees the change, and one that read
 * the old number is not learned (ft_gens_stale()): one bump is enough, and
 * a flow goes back through the stack once per change, not twice. Any
 * context.
 */
void ft_gen_bump_once(struct ft_net *fn, unsigned long kinds)
{
	unsigned long flags;

	/* As in ft_gen_bump(). */
	smp_mb();
	spin_lock_irqsave(&fn->gen_lock, flags);
	ft_gen_inc(fn, kinds);
	spin_unlock_irqrestore(&fn->gen_lock, flags);
}

/* Any context. */
void ft_gen_bump(struct ft_net *fn, unsigned long kinds)
{
	unsigned long flags;

	/* The change is visible to whoever sees the new number. */
	smp_mb();
	spin_lock_irqsave(&fn->gen_lock, flags);
	ft_gen_inc(fn, kinds);
	if (fn->gen_stopped) {
		/* Nothing is cached any more: the netns goes. */
	} else if (fn->gen_armed) {
		fn->gen_next |= kinds;
	} else {
		fn->gen_waiting = kinds;
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
	for (i = 0; i < FT_FAM_NUM; i++) {
		fn->rules_seq[i] = 0;
		fn->cover_seq[i] = 0;
	}
	spin_lock_init(&fn->gen_lock);
	seqcount_spinlock_init(&fn->rlog_seq, &fn->gen_lock);
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
