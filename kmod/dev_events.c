// SPDX-License-Identifier: GPL-2.0
/*
 * Device events, per netns: what a device's registration, rename, move,
 * new master, removal or change of state does to enabled devices (dev.c),
 * to the rules that enable devices by name (dev_rules.c), and to the next
 * hops and routes that cached flows depend on. RTNL.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "fasttrack.h"

/*
 * An enabled device became a port of @info->upper_dev: the master now
 * receives what the port did, so the fast path follows it there with the
 * same families, unless the master is a VRF. A port that leaves its
 * master is enabled again if a rule names it.
 */
static void ft_dev_upper_changed(struct ft_net *fn, struct net_device *dev,
				 struct netdev_notifier_changeupper_info *info)
{
	struct net_device *master = info->upper_dev;
	struct ft_dev *fd;
	u8 families;

	ASSERT_RTNL();
	if (!info->master)
		return;
	if (!info->linking) {
		ft_dev_rules_event(fn, dev);
		return;
	}
	fd = ft_dev_find(fn, dev);
	if (!fd)
		return;
	families = fd->families;
	if (ft_dev_disable(fn, fd, FT_FAMILIES_ALL))
		return;
	if (ft_dev_enable(fn, master, families, NULL))
		pr_info("%s is a port of %s now: disabled there, and %s cannot be enabled\n",
			dev->name, master->name, master->name);
	else
		pr_info("%s is a port of %s now: %s is enabled instead\n",
			dev->name, master->name, master->name);
}

/*
 * Per netns, so that it comes and goes with the netns's state. A device
 * that moves to another netns is unregistered from this one first.
 */
static int ft_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct ft_net *fn = container_of(nb, struct ft_net, netdev_nb);
	struct ft_dev *fd;

	ASSERT_RTNL();
	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_CHANGENAME:
		/* Registered, moved in or renamed: enabled if a rule says so. */
		ft_dev_rules_event(fn, dev);
		break;
	case NETDEV_UNREGISTER:
		fd = ft_dev_find(fn, dev);
		if (fd) {
			ft_dev_destroy(fn, fd);
			ft_dev_gone(fn, dev->ifindex);
		}
		fallthrough;
	case NETDEV_CHANGEUPPER:
		/* Now a bridge or bond port: its rx_handler owns its frames,
		 * and what it sent through is gone.
		 */
		if (event == NETDEV_CHANGEUPPER)
			ft_dev_upper_changed(fn, dev, ptr);
		fallthrough;
	case NETDEV_DOWN:
	case NETDEV_CHANGEMTU:
	case NETDEV_CHANGEADDR:
		/* Its next hops die, with the flows that leave through them;
		 * every other flow looks its route up again.
		 */
		ft_nh_kill_dev(fn, dev);
		ft_gen_bump(fn, FT_GENS_ROUTE);
		break;
	case NETDEV_UP:
	case NETDEV_CHANGE:
		/* Carrier and link state pick multipath next hops and
		 * linkdown routes: every flow looks its route up again.
		 */
		ft_gen_bump(fn, FT_GENS_ROUTE);
		break;
	}
	return NOTIFY_DONE;
}

int ft_dev_notifier_init(struct ft_net *fn)
{
	fn->netdev_nb.notifier_call = ft_netdev_event;
	return register_netdevice_notifier_net(fn->net, &fn->netdev_nb);
}

void ft_dev_notifier_exit(struct ft_net *fn)
{
	unregister_netdevice_notifier_net(fn->net, &fn->netdev_nb);
}
