// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP tier: a kfunc that forwards a cached flow's frame below the skb,
 * for the BPF program of uapi/linux/fasttrack_xdp.h, which only acts on
 * its verdict. It shares the skb tier's parse, lookup, checks, rewrite and
 * accounting (fwd.h), and adds what an skb would have gone through between
 * the driver and the skb tier's hook, and after it: the VLAN device's
 * receive and transmit, and the real device's queue.
 *
 * A frame is forwarded here only when nothing that XDP would bypass is
 * attached to the devices it crosses (ft_xdp_path_blocked()), read per
 * frame, so that what an operator attaches applies from the next frame on.
 * Anything else is XDP_PASS, untouched: the skb tier then handles the
 * packet as it would without this tier, and counts its punts.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/etherdevice.h>
#include <linux/netfilter_netdev.h>
#include <net/xdp.h>
#ifdef FT_HAVE_XDP_FEATURES
#include <uapi/linux/netdev.h>
#endif

#include <linux/fasttrack_xdp.h>
#include "fwd.h"

#define FT_XDP_RX	BIT(0)	/* a frame arrives through the device */
#define FT_XDP_TX	BIT(1)	/* a frame leaves through it */
#define FT_XDP_REAL	BIT(2)	/* it is the device XDP runs on or sends by */
#define FT_XDP_NF_SEEN	BIT(3)	/* its netfilter ingress hooks were read */

/*
 * Has @dev a qdisc other than its default? A VLAN device's is noqueue. A
 * @real device's, which XDP_TX bypasses as every XDP forwarder does, is
 * the one the kernel attached: no handle, on the root and on each of mq's
 * queues.
 */
static bool ft_xdp_qdisc_set(struct net_device *dev, bool real)
{
	unsigned int i, n = dev->real_num_tx_queues;

	if (!real)
		return rcu_dereference(dev->qdisc)->enqueue;
	if (rcu_dereference(dev->qdisc)->handle)
		return true;
	if (n > 1) {
		for (i = 0; i < n; i++)
			if (rcu_dereference(netdev_get_tx_queue(dev, i)->qdisc_sleeping)->handle)
				return true;
	}
	return false;
}

/*
 * What an skb crossing @dev as @how says would meet that XDP bypasses.
 * Arriving: packet taps, tc ingress, netfilter ingress hooks other than
 * fasttrack's (ft_ingress_hook(), which the skb tier runs and this tier
 * stands for; not looked at again with FT_XDP_NF_SEEN, see ft_xdp_fd())
 * and an rx_handler (bridge, bond, macvlan). Leaving: ft_dev_tx_hooks()
 * and ft_xdp_qdisc_set().
 */
static u32 ft_xdp_dev_hooks(struct net_device *dev, unsigned int how)
{
	const struct nf_hook_entries *e;
	u32 blocked = 0;
	unsigned int i;

	if (how & FT_XDP_TX) {
		blocked = ft_dev_tx_hooks(dev);
		if (ft_xdp_qdisc_set(dev, how & FT_XDP_REAL))
			blocked |= FASTTRACK_XDP_BLOCKED_QDISC;
	} else if (ft_dev_nit_active(dev)) {
		blocked = FASTTRACK_XDP_BLOCKED_TAP;
	}
	if (!(how & FT_XDP_RX))
		return blocked;

#ifdef FT_HAVE_TCX_EGRESS
	if (rcu_access_pointer(dev->tcx_ingress))
		blocked |= FASTTRACK_XDP_BLOCKED_TC;
#elif IS_ENABLED(CONFIG_NET_CLS_ACT)
	if (rcu_access_pointer(dev->miniq_ingress))
		blocked |= FASTTRACK_XDP_BLOCKED_TC;
#endif
	if (!(how & FT_XDP_NF_SEEN)) {
		e = rcu_dereference(dev->nf_hooks_ingress);
		for (i = 0; e && i < e->num_hook_entries; i++)
			if (e->hooks[i].hook != ft_ingress_hook)
				blocked |= FASTTRACK_XDP_BLOCKED_NETFILTER;
	}
	if (rcu_access_pointer(dev->rx_handler))
		blocked |= FASTTRACK_XDP_BLOCKED_PORT;
	return blocked;
}

/*
 * What XDP would bypass for a frame that arrives through @in, read as
 * @how says, and leaves through @out, VLAN devices or real ones: the hooks
 * of each device on the way, a priority map that an skb's priority would
 * feed, and a VLAN not directly on a real device. A real device that the
 * frame both enters and leaves by (XDP_TX) is read once, both ways. IPsec,
 * which is per namespace, is the caller's to check.
 */
static u32 ft_xdp_path_blocked(struct net_device *in, unsigned int how,
			       struct net_device *out)
{
	struct net_device *ireal = in, *oreal = out;
	u32 blocked = 0;

	how |= FT_XDP_RX;
	if (is_vlan_dev(in)) {
		ireal = vlan_dev_priv(in)->real_dev;
		if (is_vlan_dev(ireal))
			return FASTTRACK_XDP_BLOCKED_STACKED;
		blocked = ft_xdp_dev_hooks(in, how);
		how &= ~FT_XDP_NF_SEEN;
	}
	if (is_vlan_dev(out)) {
		oreal = vlan_dev_priv(out)->real_dev;
		if (is_vlan_dev(oreal))
			return FASTTRACK_XDP_BLOCKED_STACKED;
		blocked |= ft_xdp_dev_hooks(out, FT_XDP_TX);
		if (vlan_dev_priv(out)->nr_egress_mappings)
			blocked |= FASTTRACK_XDP_BLOCKED_QOS_MAP;
	}
	if (ireal == oreal)
		return blocked | ft_xdp_dev_hooks(ireal, how | FT_XDP_TX |
							 FT_XDP_REAL);
	return blocked | ft_xdp_dev_hooks(ireal, how | FT_XDP_REAL) |
	       ft_xdp_dev_hooks(oreal, FT_XDP_TX | FT_XDP_REAL);
}

/* For FASTTRACK_A_DEV_XDP_BLOCKED: both ways through @dev. */
u32 ft_xdp_dev_blocked(struct net_device *dev)
{
	u32 blocked;

	rcu_read_lock();
	blocked = ft_xdp_path_blocked(dev, 0, dev);
	if (ft_xfrm_active(dev_net(dev)))
		blocked |= FASTTRACK_XDP_BLOCKED_XFRM;
	rcu_read_unlock();
	return blocked;
}

/*
 * Can a tag reach XDP beside the frame of @rdev rather than in it, when
 * the driver does not say (xmo_rx_vlan_tag(), 6.8)? Where the device
 * strips tags; and on a veth where its peer offloads them: the peer hands
 * an skb's tag over beside the frame, unless it offloads none, when
 * validate_xmit_vlan() has put every tag into the frame.
 */
static bool ft_xdp_may_strip(struct net_device *rdev)
{
	const netdev_features_t tx = NETIF_F_HW_VLAN_CTAG_TX |
				     NETIF_F_HW_VLAN_STAG_TX;
	const netdev_features_t rx = NETIF_F_HW_VLAN_CTAG_RX |
				     NETIF_F_HW_VLAN_STAG_RX;
	struct net_device *peer;

	if (rdev->netdev_ops->ndo_get_peer_dev) {
		peer = rdev->netdev_ops->ndo_get_peer_dev(rdev);
		return !peer || (READ_ONCE(peer->features) & tx);
	}
	return READ_ONCE(rdev->features) & rx;
}

/*
 * The VLAN tag @rdev took off the frame of @xdp before XDP saw it, into
 * @tpid and @tci: 0 if there was one, -ENODATA if not, or another error if
 * the driver cannot tell while it may strip tags, so that a tagged frame
 * would pass for an untagged one. veth passes an skb's tag on that way.
 * @tpid and @tci change only on 0: they hold the tag read from the frame,
 * and a driver may write its outputs when it has no tag (veth, through
 * __vlan_hwaccel_get_tag(), sets the TCI to 0).
 */
static int ft_xdp_stripped_tag(struct xdp_buff *xdp, struct net_device *rdev,
			       __be16 *tpid, u16 *tci)
{
#ifdef FT_HAVE_XMO_RX_VLAN_TAG
	const struct xdp_metadata_ops *ops = rdev->xdp_metadata_ops;
	__be16 proto;
	u16 vlan_tci;
	int err;

	if (ops && ops->xmo_rx_vlan_tag) {
		err = ops->xmo_rx_vlan_tag((const struct xdp_md *)xdp, &proto,
					   &vlan_tci);
		if (!err) {
			*tpid = proto;
			*tci = vlan_tci;
		}
		return err;
	}
#endif
	if (ft_xdp_may_strip(rdev))
		return -EOPNOTSUPP;
	return -ENODATA;
}

/*
 * Does @odev take frames redirected to it now? Drivers say so from 6.3
 * (xdp_features); before, some drop them, veth for one when its peer has
 * no XDP program, and nothing tells: the tier then only sends frames back
 * out of the device they came in by.
 */
static bool ft_xdp_xmit_ok(const struct net_device *odev)
{
#ifdef FT_HAVE_XDP_FEATURES
	return READ_ONCE(odev->xdp_features) & NETDEV_XDP_ACT_NDO_XMIT;
#else
	return false;
#endif
}

/*
 * The enabled device of @dev, from its fasttrack ingress hook, or NULL;
 * in one walk, FASTTRACK_XDP_BLOCKED_NETFILTER in @blocked if the device
 * has other ingress hooks (ft_xdp_dev_hooks(), FT_XDP_NF_SEEN).
 */
static struct ft_dev *ft_xdp_fd(const struct net_device *dev, u32 *blocked)
{
	const struct nf_hook_entries *e = rcu_dereference(dev->nf_hooks_ingress);
	struct ft_dev *fd = NULL;
	unsigned int i;

	for (i = 0; e && i < e->num_hook_entries; i++) {
		if (e->hooks[i].hook == ft_ingress_hook)
			fd = e->hooks[i].priv;
		else
			*blocked |= FASTTRACK_XDP_BLOCKED_NETFILTER;
	}
	return fd;
}

/* Would the stack take @eth as addressed to this host on @dev (real @rdev)? */
static bool ft_xdp_for_us(const struct ethhdr *eth,
			  const struct net_device *dev,
			  const struct net_device *rdev)
{
	return ether_addr_equal(eth->h_dest, rdev->dev_addr) ||
	       (dev != rdev && ether_addr_equal(eth->h_dest, dev->dev_addr));
}

/*
 * Write the Ethernet header of @flow's next hop, tagged if @out is a VLAN
 * device, in front of the IP header at @l3 of a frame that starts at
 * @data with @hlen bytes of link header. Returns how far the frame's start
 * moves (fasttrack_xdp_out.head_adjust); the room was checked.
 */
static int ft_xdp_l2(const struct ft_flow *flow, struct net_device *out,
		     void *data, unsigned int hlen)
{
	bool tag = is_vlan_dev(out);
	unsigned int olen = ETH_HLEN + (tag ? VLAN_HLEN : 0);
	struct ethhdr *eth = data + hlen - olen;

	/* The ethertype before the IP header stays where it is. */
	neigh_ha_snapshot(eth->h_dest, flow->nh->neigh, out);
	ether_addr_copy(eth->h_source, out->dev_addr);
	if (tag) {
		struct vlan_hdr *vh = (struct vlan_hdr *)(eth + 1);

		eth->h_proto = vlan_dev_priv(out)->vlan_proto;
		/* No egress map (ft_xdp_path_blocked()): PCP 0. */
		vh->h_vlan_TCI = htons(vlan_dev_priv(out)->vlan_id);
	}
	return (int)hlen - (int)olen;
}

/*
 * The tier itself, in the driver's receive (softirq, RCU read section):
 * the checks of ft_ingress_hook() and of the VLAN devices on the way,
 * then the rewrite. The frame is untouched unless the verdict is TX or
 * REDIRECT.
 */
static int ft_xdp(struct xdp_buff *xdp, struct fasttrack_xdp_out *res)
{
	struct net_device *rdev = xdp->rxq->dev, *in = rdev, *out, *odev;
	void *data = xdp->data, *end = xdp->data_end;
	unsigned int hlen = ETH_HLEN, len;
	struct ethhdr *eth = data;
	struct ft_flow *flow;
	__be16 proto, tpid;
	struct ft_pkt pkt;
	struct ft_dev *fd;
	struct ft_net *fn;
	enum ft_stat stale;
	enum ft_fam fam;
	bool dst_ok;
	int adjust;
	u32 blocked;
	u16 tci = 0;

	/* A driver's receive, BH off: the per-CPU counters rely on it. */
	lockdep_assert_in_softirq();
	if (unlikely(xdp_buff_has_frags(xdp)) || data + ETH_HLEN > end)
		return FASTTRACK_XDP_PASS;
	proto = eth->h_proto;
	tpid = proto;
	if (eth_type_vlan(proto)) {
		struct vlan_hdr *vh = data + ETH_HLEN;

		if ((void *)(vh + 1) > end)
			return FASTTRACK_XDP_PASS;
		tci = ntohs(vh->h_vlan_TCI);
		proto = vh->h_vlan_encapsulated_proto;
		hlen += VLAN_HLEN;
	}
	switch (ft_xdp_stripped_tag(xdp, rdev, &tpid, &tci)) {
	case 0:
		if (hlen != ETH_HLEN)
			return FASTTRACK_XDP_PASS;	/* two tags */
		break;
	case -ENODATA:
		if (hlen == ETH_HLEN)
			goto untagged;
		break;
	default:
		return FASTTRACK_XDP_PASS;
	}
	in = __vlan_find_dev_deep_rcu(rdev, tpid, tci & VLAN_VID_MASK);
	if (!in || vlan_dev_priv(in)->real_dev != rdev)
		return FASTTRACK_XDP_PASS;
untagged:
	if (proto == htons(ETH_P_IP))
		fam = FT_FAM_V4;
	else if (proto == htons(ETH_P_IPV6))
		fam = FT_FAM_V6;
	else
		return FASTTRACK_XDP_PASS;

	blocked = 0;
	fd = ft_xdp_fd(in, &blocked);
	if (!fd || !(READ_ONCE(fd->families) & ft_fam_flag(fam)) ||
	    !(READ_ONCE(in->flags) & IFF_UP) || !ft_xdp_for_us(eth, in, rdev) ||
	    !ft_forwarding(in, fam))
		return FASTTRACK_XDP_PASS;

	len = end - data - hlen;
	if (ft_parse(fam, data + hlen, len, len, &pkt) != FT_PARSE_OK)
		return FASTTRACK_XDP_PASS;
	fn = fd->fn;
	flow = ft_flow_lookup(fn, &pkt.key);
	if (!flow || flow->iif != in->ifindex ||
	    test_bit(FT_FLOW_DEAD, &flow->flags))
		return FASTTRACK_XDP_PASS;

	/* Stale state tears the flow down here; the route is the skb tier's
	 * to look up again.
	 */
	stale = ft_flow_state(fn, flow, dev_net(in));
	if (!stale && !ft_flow_route_holds(fn, flow, dev_net(in), &dst_ok))
		return FASTTRACK_XDP_PASS;
	if (!stale)
		stale = ft_flow_path(flow, data + hlen);
	if (unlikely(stale)) {
		ft_flow_teardown(fn, flow, stale);
		return FASTTRACK_XDP_PASS;
	}

	out = flow->nh->dev;
	odev = is_vlan_dev(out) ? vlan_dev_priv(out)->real_dev : out;
	if (!flow->nh->neigh || pkt.tot_len > ft_flow_mtu(flow, pkt.tot_len))
		return FASTTRACK_XDP_PASS;
	blocked |= ft_xdp_path_blocked(in, FT_XDP_NF_SEEN, out);
	if (unlikely(ft_xfrm_active(dev_net(in))))
		blocked |= FASTTRACK_XDP_BLOCKED_XFRM;
	if (odev != rdev && !ft_xdp_xmit_ok(odev))
		blocked |= FASTTRACK_XDP_BLOCKED_STACKED;
	if (unlikely(blocked)) {
		ft_stat_inc(fn, FT_STAT_XDP_BYPASSED);
		return FASTTRACK_XDP_PASS;
	}
	/* Room for a tag pushed in front: bpf_xdp_adjust_head()'s bound. */
	adjust = (int)hlen - ETH_HLEN - (is_vlan_dev(out) ? VLAN_HLEN : 0);
	if (adjust < 0 &&
	    data + adjust < xdp->data_hard_start + sizeof(struct xdp_frame) +
			    (xdp_data_meta_unsupported(xdp) ? 0 :
			     data - xdp->data_meta))
		return FASTTRACK_XDP_PASS;

	if (fam == FT_FAM_V4)
		ft_rewrite_ipv4(NULL, data + hlen, flow);
	else
		ft_rewrite_ipv6(NULL, data + hlen, flow);
	res->head_adjust = ft_xdp_l2(flow, out, data, hlen);

	/* The byte counts an skb would have had in each device. */
	if (in != rdev)
		ft_vlan_count_rx(this_cpu_ptr(vlan_dev_priv(in)->vlan_pcpu_stats),
				 end - data - hlen);
	ft_count(fn, fd, flow, pkt.tot_len, true);
	if (out != odev)
		ft_vlan_count_tx(this_cpu_ptr(vlan_dev_priv(out)->vlan_pcpu_stats),
				 ETH_HLEN + pkt.tot_len);
	if (odev == rdev)
		return FASTTRACK_XDP_TX;
	res->ifindex = odev->ifindex;
	return FASTTRACK_XDP_REDIRECT;
}

__bpf_kfunc_start_defs();

/**
 * bpf_fasttrack_xdp - forward a frame of a cached flow, for an XDP program
 * @ctx: the XDP context
 * @out: where the frame starts after the rewrite, and where it goes
 * @out_len: sizeof(*@out)
 *
 * Return: enum fasttrack_xdp_verdict; see uapi/linux/fasttrack_xdp.h.
 */
__bpf_kfunc int bpf_fasttrack_xdp(struct xdp_md *ctx,
				  struct fasttrack_xdp_out *out, u32 out_len)
{
	int verdict;

	if (out_len != sizeof(*out))
		return FASTTRACK_XDP_PASS;
	out->head_adjust = 0;
	out->ifindex = 0;
	/* BPF_PROG_RUN without live frames runs in process context. */
	if (!in_softirq())
		return FASTTRACK_XDP_PASS;
	/* Drivers run XDP with BH off, an RCU reader without lockdep's
	 * knowledge: the lookups below assert rcu_read_lock().
	 */
	rcu_read_lock();
	verdict = ft_xdp((struct xdp_buff *)ctx, out);
	rcu_read_unlock();
	return verdict;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(ft_xdp_kfunc_ids)
BTF_ID_FLAGS(func, bpf_fasttrack_xdp)
BTF_KFUNCS_END(ft_xdp_kfunc_ids)

static const struct btf_kfunc_id_set ft_xdp_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &ft_xdp_kfunc_ids,
};

static bool ft_xdp_registered __read_mostly;

bool ft_xdp_available(void)
{
	return ft_xdp_registered;
}

/*
 * Offer the kfunc to XDP programs. A module loaded without its BTF cannot
 * offer it; it then works as before, with the skb tier only. Last in the
 * module's init: a program may call the kfunc as soon as it is there, and
 * the set goes when the module does.
 */
void ft_xdp_init(void)
{
	int err = register_btf_kfunc_id_set(BPF_PROG_TYPE_XDP,
					    &ft_xdp_kfunc_set);

	if (err) {
		pr_info("no XDP tier: the kfunc did not register (%d)\n", err);
		return;
	}
	ft_xdp_registered = true;
}
