// SPDX-License-Identifier: GPL-2.0
/*
 * Enabled devices and their ingress hooks.
 *
 * The hook sits on the device the user names, VLAN subinterface or plain
 * interface, not on the trunk with a VLAN demux of our own. By the time the
 * VLAN device's ingress hook runs, the stack has untagged the frame (in-band
 * or hardware-accelerated tag, and stacked QinQ devices alike), counted it
 * in the VLAN device's rx statistics and resolved PACKET_HOST against the
 * VLAN device's address. The per-VLAN switch is then just the presence of
 * the hook, traffic of VLANs that are not enabled pays nothing, and the
 * flow's ingress device identifies the VLAN.
 *
 * The hook runs after every other ingress hook of the device: tc ingress
 * comes first anyway, and its priority, INT_MAX, puts it behind every nft
 * netdev ingress chain, so that a drop there drops and a mangle there
 * stays on the packet the fast path forwards. (A chain at priority INT_MAX
 * itself that existed before the device was enabled runs after it.)
 *
 * All changes run under RTNL. An ft_dev holds a reference to its device;
 * the netns's device notifier (dev_events.c) releases it at
 * NETDEV_UNREGISTER, and the pernet exit releases what is left before the
 * notifier goes.
 */
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>

#include "fasttrack.h"

struct ft_dev *ft_dev_find(struct ft_net *fn, const struct net_device *dev)
{
	return xa_load(&fn->dev_index, dev->ifindex);
}

/*
 * Can the fast path serve what enters @dev? Not if it cannot send on such
 * a device, nor if another device owns its frames: a bridge, bond or team
 * port's rx_handler takes them after the ingress hook, and a VRF routes
 * them in its own table. The extack says what to do instead. RTNL.
 */
int ft_dev_check(const struct net_device *dev, struct netlink_ext_ack *extack)
{
	struct net_device *master;

	ASSERT_RTNL();
	if (dev->flags & IFF_LOOPBACK) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the loopback device forwards nothing; enable the devices that traffic enters through");
		return -EOPNOTSUPP;
	}
	if (ft_dev_kind(dev) == FT_DEV_NONE) {
		NL_SET_ERR_MSG_MOD(extack,
				   "device has a link-layer header other than Ethernet (e.g. a tunnel without a remote address); fasttrack serves Ethernet-like devices and layer-3 devices (ppp, WireGuard, tun, point-to-point tunnels)");
		return -EOPNOTSUPP;
	}
	if (netif_is_l3_master(dev) || netif_is_l3_slave(dev)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "device is a VRF or in one; fasttrack does not offload VRF traffic");
		return -EOPNOTSUPP;
	}
	master = netdev_master_upper_dev_get((struct net_device *)dev);
	if (master) {
#ifdef NL_SET_ERR_MSG_FMT_MOD
		/* At most 80 bytes, the name included. */
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "device is a port of %s; enable %s instead",
				       master->name, master->name);
#else
		NL_SET_ERR_MSG_MOD(extack,
				   "device is a port of a bridge, bond or team, which receives its traffic; enable the master (or a VLAN device on it) instead");
#endif
		return -EOPNOTSUPP;
	}
	return 0;
}

/* The first enabled device of a netns starts learning. */
static int ft_net_activate(struct ft_net *fn, struct netlink_ext_ack *extack)
{
	int err;

	if (fn->ndevs++)
		return 0;
	err = ft_learn_start(fn, extack);
	if (err)
		fn->ndevs--;
	return err;
}

static void ft_net_deactivate(struct ft_net *fn)
{
	if (!--fn->ndevs)
		ft_learn_stop(fn);
}

static void ft_dev_free_rcu(struct rcu_head *head)
{
	struct ft_dev *fd = container_of(head, struct ft_dev, rcu);

	free_percpu(fd->stats);
	kfree(fd);
}

static void ft_dev_hold(struct ft_dev *fd)
{
#ifdef FT_HAVE_NETDEV_HOLD
	netdev_hold(fd->dev, &fd->dev_tracker, GFP_KERNEL);
#else
	dev_hold(fd->dev);
#endif
}

static void ft_dev_put(struct ft_dev *fd)
{
#ifdef FT_HAVE_NETDEV_HOLD
	netdev_put(fd->dev, &fd->dev_tracker);
#else
	dev_put(fd->dev);
#endif
}

/*
 * An enabled device went, maybe leaving flows that entered through it: the
 * GC removes them at its next visits (ft_gc_check()). The fast path knows
 * a flow's ingress device by its index, which a device that comes meanwhile
 * may take (one moved in from another netns keeps its own if it is free):
 * remember the index until a whole GC pass has run since, so that such a
 * device inherits none of those flows (ft_dev_create()). No packet of the
 * device is in flight any more: no flow of it can appear later. RTNL.
 */
void ft_dev_gone(struct ft_net *fn, int ifindex)
{
	unsigned long pass = READ_ONCE(fn->gc_passes);

	ASSERT_RTNL();
	if (!atomic_read(&fn->nflows))
		return;
	if (xa_is_err(xa_store(&fn->gone_iifs, ifindex, xa_mk_value(pass),
			       GFP_KERNEL)))
		ft_table_kill_iif(fn, ifindex);
}

/*
 * Set up everything, then publish: the hook first (it reaches the ft_dev
 * through its priv), the index that the learn hook reads last. The flows
 * an earlier device of the same index left go first.
 */
static struct ft_dev *ft_dev_create(struct ft_net *fn, struct net_device *dev,
				    struct netlink_ext_ack *extack)
{
	struct ft_dev *fd;
	int err;

	ASSERT_RTNL();
	FT_HOT_LINE_CHECK(struct ft_dev, families);
	fd = kzalloc(sizeof(*fd), GFP_KERNEL);
	if (!fd)
		return ERR_PTR(-ENOMEM);
	fd->stats = netdev_alloc_pcpu_stats(struct ft_dev_stats_pcpu);
	if (!fd->stats) {
		err = -ENOMEM;
		goto err_stats;
	}
	fd->dev = dev;
	fd->fn = fn;
	fd->ops.hook = ft_ingress_hook;
	fd->ops.priv = fd;
	fd->ops.pf = NFPROTO_NETDEV;
	fd->ops.hooknum = NF_NETDEV_INGRESS;
	fd->ops.priority = INT_MAX;	/* after every nft ingress chain */
	fd->ops.dev = dev;

	if (xa_erase(&fn->gone_iifs, dev->ifindex))
		ft_table_kill_iif(fn, dev->ifindex);
	err = xa_reserve(&fn->dev_index, dev->ifindex, GFP_KERNEL);
	if (err)
		goto err_index;
	err = ft_net_activate(fn, extack);
	if (err)
		goto err_activate;
	err = nf_register_net_hook(fn->net, &fd->ops);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot register the ingress hook");
		goto err_hook;
	}
	ft_dev_hold(fd);
	xa_store(&fn->dev_index, dev->ifindex, fd, GFP_KERNEL);
	list_add_tail(&fd->list, &fn->devs);
	return fd;

err_hook:
	ft_net_deactivate(fn);
err_activate:
	xa_release(&fn->dev_index, dev->ifindex);
err_index:
	free_percpu(fd->stats);
err_stats:
	kfree(fd);
	return ERR_PTR(err);
}

/* Off the fast path: no hook, no index entry, not listed. */
static void ft_dev_unhook(struct ft_net *fn, struct ft_dev *fd)
{
	ASSERT_RTNL();
	xa_erase(&fn->dev_index, fd->dev->ifindex);
	nf_unregister_net_hook(fn->net, &fd->ops);
	list_del(&fd->list);
}

/* Once unhooked: free it after the readers that may still see it. */
static void ft_dev_release(struct ft_net *fn, struct ft_dev *fd)
{
	ASSERT_RTNL();
	ft_net_deactivate(fn);
	ft_dev_put(fd);
	call_rcu(&fd->rcu, ft_dev_free_rcu);
}

/*
 * The device or the netns goes: no packet reaches its flows any more, and
 * the GC reaps them, so deleting a thousand VLANs does not walk the table
 * a thousand times, nor wait a grace period each.
 */
void ft_dev_destroy(struct ft_net *fn, struct ft_dev *fd)
{
	ft_dev_unhook(fn, fd);
	ft_dev_release(fn, fd);
}

void ft_dev_drop_init(struct ft_dev_drop *d)
{
	xa_init(&d->devs);
	INIT_LIST_HEAD(&d->gone);
}

/*
 * Disable @families of @fd as part of @d: at once for the fast path, which
 * reads the families per packet; its flows go at ft_dev_drop_commit().
 * Fails, changing nothing, only if @d cannot record the device.
 */
int ft_dev_drop_add(struct ft_net *fn, struct ft_dev_drop *d,
		    struct ft_dev *fd, u8 families)
{
	u8 left = fd->families & ~families;
	int err;

	ASSERT_RTNL();
	err = xa_err(xa_store(&d->devs, fd->dev->ifindex,
			      xa_mk_value(families), GFP_KERNEL));
	if (err)
		return err;
	if (left) {
		WRITE_ONCE(fd->families, left);
		return 0;
	}
	ft_dev_unhook(fn, fd);
	list_add_tail(&fd->list, &d->gone);
	return 0;
}

/*
 * The flows that enter or leave through the devices of @d, for the
 * families each was disabled for, go back to the stack: after one grace
 * period, so that no learn hook still sees the devices enabled, and in one
 * walk of the table, however many devices there are.
 */
void ft_dev_drop_commit(struct ft_net *fn, struct ft_dev_drop *d)
{
	struct ft_dev *fd, *tmp;

	ASSERT_RTNL();
	if (!xa_empty(&d->devs)) {
		synchronize_net();
		ft_table_kill_devs(fn, &d->devs);
	}
	list_for_each_entry_safe(fd, tmp, &d->gone, list) {
		list_del(&fd->list);
		ft_dev_release(fn, fd);
	}
	xa_destroy(&d->devs);
}

int ft_dev_enable(struct ft_net *fn, struct net_device *dev, u8 families,
		  struct netlink_ext_ack *extack)
{
	struct ft_dev *fd;
	int err;

	ASSERT_RTNL();
	err = ft_dev_check(dev, extack);
	if (err)
		return err;

	fd = ft_dev_find(fn, dev);
	if (!fd) {
		fd = ft_dev_create(fn, dev, extack);
		if (IS_ERR(fd))
			return PTR_ERR(fd);
	}
	WRITE_ONCE(fd->families, fd->families | families);
	return 0;
}

int ft_dev_disable(struct ft_net *fn, struct ft_dev *fd, u8 families)
{
	struct ft_dev_drop d;
	int err;

	ft_dev_drop_init(&d);
	err = ft_dev_drop_add(fn, &d, fd, families);
	ft_dev_drop_commit(fn, &d);
	return err;
}

void ft_dev_disable_all(struct ft_net *fn)
{
	struct ft_dev *fd, *tmp;

	ASSERT_RTNL();
	/* The netns goes: ft_table_exit() removes every flow after this. */
	list_for_each_entry_safe(fd, tmp, &fn->devs, list)
		ft_dev_destroy(fn, fd);
}
