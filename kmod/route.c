// SPDX-License-Identifier: GPL-2.0
/*
 * Route changes. Any FIB change in the netns, IPv4 or IPv6, bumps a
 * generation number; a flow learned under an older generation is stale.
 * The fast path compares generations per packet (one read-mostly cache
 * line), so no packet follows a route that no longer exists. The GC then
 * releases the stale entries. Precise per-prefix invalidation would keep
 * unrelated flows cached, at the cost of a prefix walk; a router whose
 * table churns (BGP) would want it.
 */
#include <net/fib_notifier.h>

#include "fasttrack.h"

static int ft_fib_event(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct ft_net *fn = container_of(nb, struct ft_net, fib_nb);

	switch (event) {
	case FIB_EVENT_ENTRY_REPLACE:
	case FIB_EVENT_ENTRY_APPEND:
	case FIB_EVENT_ENTRY_ADD:
	case FIB_EVENT_ENTRY_DEL:
	case FIB_EVENT_RULE_ADD:
	case FIB_EVENT_RULE_DEL:
	case FIB_EVENT_NH_ADD:
	case FIB_EVENT_NH_DEL:
		atomic_inc(&fn->route_gen);
		break;
	}
	return NOTIFY_DONE;
}

static void ft_fib_dump_flush(struct notifier_block *nb)
{
	struct ft_net *fn = container_of(nb, struct ft_net, fib_nb);

	atomic_inc(&fn->route_gen);
}

/*
 * Registering dumps the FIB under RTNL, so callers must not hold it. Once
 * registered, the notifier stays until the netns goes.
 */
int ft_route_watch_start(struct ft_net *fn, struct netlink_ext_ack *extack)
{
	int err = 0;

	mutex_lock(&fn->lock);
	if (!fn->fib_nb.notifier_call) {
		fn->fib_nb.notifier_call = ft_fib_event;
		err = register_fib_notifier(fn->net, &fn->fib_nb,
					    ft_fib_dump_flush, extack);
		if (err)
			fn->fib_nb.notifier_call = NULL;
	}
	mutex_unlock(&fn->lock);
	return err;
}

void ft_route_watch_stop(struct ft_net *fn)
{
	if (fn->fib_nb.notifier_call)
		unregister_fib_notifier(fn->net, &fn->fib_nb);
}
