// SPDX-License-Identifier: GPL-2.0
/*
 * Route changes. A flow holds the dst the stack routed it with and checks
 * it per packet with dst_check(): the IPv4 route generation and the IPv6
 * fib6 serial numbers catch route, policy rule, nexthop, forwarding sysctl
 * and xfrm policy changes, as they do for sockets. On top of that, every
 * FIB and nexthop event in the netns bumps the routing generation (gen.c),
 * so that a learn racing with a change cannot cache the old route, and
 * nexthop objects replaced in place, which need not touch the FIB, are seen
 * too. Precise per-prefix revalidation would keep unrelated flows cached
 * under route churn (BGP); this invalidates broadly.
 */
#include <net/fib_notifier.h>
#include <net/nexthop.h>

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
		ft_gen_bump(fn, FT_GEN_ROUTE);
		break;
	}
	return NOTIFY_DONE;
}

static void ft_fib_dump_flush(struct notifier_block *nb)
{
	struct ft_net *fn = container_of(nb, struct ft_net, fib_nb);

	ft_gen_bump(fn, FT_GEN_ROUTE);
}

/* Any nexthop object event: replace, group change, delete, hw stats. */
static int ft_nexthop_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct ft_net *fn = container_of(nb, struct ft_net, nh_nb);

	ft_gen_bump(fn, FT_GEN_ROUTE);
	return NOTIFY_DONE;
}

/*
 * Registering dumps the FIB under RTNL, so callers must not hold it. Once
 * registered, the notifiers stay until the netns goes.
 */
int ft_route_watch_start(struct ft_net *fn, struct netlink_ext_ack *extack)
{
	int err = 0;

	mutex_lock(&fn->lock);
	if (fn->fib_nb.notifier_call)
		goto out;
	fn->nh_nb.notifier_call = ft_nexthop_event;
#ifdef FT_HAVE_NH_NOTIFIER_EXTACK
	err = register_nexthop_notifier(fn->net, &fn->nh_nb, extack);
#else
	err = register_nexthop_notifier(fn->net, &fn->nh_nb);
#endif
	if (err) {
		fn->nh_nb.notifier_call = NULL;
		goto out;
	}
	fn->fib_nb.notifier_call = ft_fib_event;
	err = register_fib_notifier(fn->net, &fn->fib_nb, ft_fib_dump_flush,
				    extack);
	if (err) {
		fn->fib_nb.notifier_call = NULL;
		unregister_nexthop_notifier(fn->net, &fn->nh_nb);
		fn->nh_nb.notifier_call = NULL;
	}
out:
	mutex_unlock(&fn->lock);
	return err;
}

void ft_route_watch_stop(struct ft_net *fn)
{
	if (!fn->fib_nb.notifier_call)
		return;
	unregister_fib_notifier(fn->net, &fn->fib_nb);
	unregister_nexthop_notifier(fn->net, &fn->nh_nb);
}
