// SPDX-License-Identifier: GPL-2.0
/*
 * Forwarding settings that raise only a netevent: the kernel's global
 * chain, one registration for every netns, once each has its ft_net.
 *
 * - The multipath hash policy and fields (both families) pick the member
 *   of an ECMP route per packet, and move no route generation: every flow
 *   of the family looks its route up again, and one whose member changed
 *   goes back to the stack.
 * - net.ipv4.ip_forward_update_priority decides whether ip_forward() sets
 *   the priority from the TOS, as learned flows do (learn.c): a change
 *   makes them all stale, as a ruleset commit does.
 *
 * Each sysctl is written before its event, so one bump is enough
 * (ft_gen_bump_once()). Atomic context; @ptr is the netns.
 */
#include <linux/notifier.h>
#include <net/netevent.h>

#include "fasttrack.h"

static int ft_netevent(struct notifier_block *nb, unsigned long event,
		       void *ptr)
{
	switch (event) {
	case NETEVENT_IPV4_MPATH_HASH_UPDATE:
		ft_gen_bump_once(ft_net(ptr), BIT(FT_GEN_ROUTE4));
		break;
	case NETEVENT_IPV6_MPATH_HASH_UPDATE:
		ft_gen_bump_once(ft_net(ptr), BIT(FT_GEN_ROUTE6));
		break;
	case NETEVENT_IPV4_FWD_UPDATE_PRIORITY_UPDATE:
		ft_gen_bump_once(ft_net(ptr), FT_GENS_RULES);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block ft_netevent_nb = {
	.notifier_call = ft_netevent,
};

int ft_netevent_init(void)
{
	return register_netevent_notifier(&ft_netevent_nb);
}

void ft_netevent_exit(void)
{
	unregister_netevent_notifier(&ft_netevent_nb);
}
