/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shims chosen by feature probes in Kbuild (FT_HAVE_*), named after what
 * they provide. The supported kernel range is checked once, in Kbuild.
 */
#ifndef _FT_COMPAT_H
#define _FT_COMPAT_H

#include <linux/if_vlan.h>
#include <linux/lockdep.h>
#include <linux/skbuff.h>

/* The GSO helpers moved out of skbuff.h. */
#ifdef FT_HAVE_NET_GSO_H
#include <net/gso.h>
#endif

#ifndef FT_HAVE_SKB_CLEAR_TSTAMP
static inline void skb_clear_tstamp(struct sk_buff *skb)
{
	skb->tstamp = 0;
}
#endif

/*
 * BH disabled, or serving a softirq, and in neither hard IRQ nor NMI: what
 * per-CPU state and the locks softirqs take need. Also right on
 * PREEMPT_RT, where in_softirq() counts the task's BH-disabled sections.
 */
#ifndef FT_HAVE_LOCKDEP_ASSERT_IN_SOFTIRQ
#ifdef CONFIG_PROVE_LOCKING
#define lockdep_assert_in_softirq()					\
	WARN_ON_ONCE(debug_locks &&					\
		     (!in_softirq() || hardirq_count() || in_nmi()))
#else
#define lockdep_assert_in_softirq() do { } while (0)
#endif
#endif

/* The VLAN device's per-CPU counters became u64_stats_t. */
static inline void ft_vlan_count_tx(struct vlan_pcpu_stats *s,
				    unsigned int len)
{
	u64_stats_update_begin(&s->syncp);
#ifdef FT_HAVE_VLAN_U64_STATS_T
	u64_stats_inc(&s->tx_packets);
	u64_stats_add(&s->tx_bytes, len);
#else
	s->tx_packets++;
	s->tx_bytes += len;
#endif
	u64_stats_update_end(&s->syncp);
}

/* As vlan_do_receive() counts, @len from the IP header on. */
static inline void ft_vlan_count_rx(struct vlan_pcpu_stats *s,
				    unsigned int len)
{
	u64_stats_update_begin(&s->syncp);
#ifdef FT_HAVE_VLAN_U64_STATS_T
	u64_stats_inc(&s->rx_packets);
	u64_stats_add(&s->rx_bytes, len);
#else
	s->rx_packets++;
	s->rx_bytes += len;
#endif
	u64_stats_update_end(&s->syncp);
}

/*
 * Packet taps on a device, in an RCU read section the caller holds: newer
 * kernels' dev_nit_active() takes one of its own, two calls under
 * PREEMPT_RCU, for each device a forwarded packet leaves through.
 */
#ifdef FT_HAVE_DEV_NIT_ACTIVE_RCU
#define ft_dev_nit_active(dev)	dev_nit_active_rcu(dev)
#else
#define ft_dev_nit_active(dev)	dev_nit_active(dev)
#endif

/* ip6_forward()'s MTU: ip6_dst_mtu_forward() became a variant of this. */
#ifdef FT_HAVE_IP6_DST_MTU_MAYBE_FORWARD
#define ft_ip6_dst_mtu_forward(dst)	ip6_dst_mtu_maybe_forward(dst, true)
#else
#define ft_ip6_dst_mtu_forward(dst)	ip6_dst_mtu_forward(dst)
#endif

/*
 * The kfunc macros of 6.3 to 6.8, over the BTF_SET8 sets of 6.0 (Kbuild
 * builds the XDP tier from there on). 6.8's BTF_KFUNCS_START marks its
 * set as kfuncs; the kernels before it look for no such mark.
 */
#ifdef FT_HAVE_XDP_TIER
#include <linux/btf.h>
#include <linux/btf_ids.h>

/* Global and called only from BPF: nothing inlines or drops it. */
#ifndef __bpf_kfunc
#define __bpf_kfunc __used
#endif
/* fasttrack.h declares the kfunc: no missing prototype to let pass. */
#ifndef __bpf_kfunc_start_defs
#define __bpf_kfunc_start_defs()
#define __bpf_kfunc_end_defs()
#endif
#ifndef BTF_KFUNCS_START
#define BTF_KFUNCS_START(name) BTF_SET8_START(name)
#define BTF_KFUNCS_END(name) BTF_SET8_END(name)
#endif
#endif

#endif /* _FT_COMPAT_H */
