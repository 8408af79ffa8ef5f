/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shims chosen by feature probes in Kbuild (FT_HAVE_*), named after what
 * they provide. The supported kernel range is checked once, in Kbuild.
 */
#ifndef _FT_COMPAT_H
#define _FT_COMPAT_H

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

#endif /* _FT_COMPAT_H */
