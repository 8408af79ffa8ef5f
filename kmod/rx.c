// SPDX-License-Identifier: GPL-2.0
/*
 * What the ingress hook (fastpath.c) saw of a packet it handed to the
 * stack, for the learn hook (learn.c): on the same CPU, in the same
 * softirq, the learn takes that packet under the generations it entered
 * with (gen.c says why) and sees what the stack changed of it: its marks
 * and the header fields the ruleset may rewrite.
 */
#include <net/dsfield.h>
#include <net/ipv6.h>

#include "fasttrack.h"

/* The packet each CPU's ingress hook handed to the stack last. */
struct ft_rx_mark {
	const struct sk_buff *skb;
	struct ft_rx_state state;
};

static DEFINE_PER_CPU(struct ft_rx_mark, ft_rx_mark);

/*
 * The fields of the IPv4 or IPv6 header of @skb that the ruleset may
 * rewrite, as the ingress hook and the learn hook see them; false if the
 * header is not there.
 */
bool ft_hdr_fields(const struct sk_buff *skb, enum ft_fam fam,
		   struct ft_hdr_fields *f)
{
	union {
		struct iphdr v4;
		struct ipv6hdr v6;
	} buf;
	const struct ipv6hdr *ip6h;
	const struct iphdr *iph;

	if (fam == FT_FAM_V4) {
		iph = skb_header_pointer(skb, skb_network_offset(skb),
					 sizeof(buf.v4), &buf);
		if (!iph)
			return false;
		f->fixed = (u32)ntohs(iph->id) << 16 | ntohs(iph->frag_off);
		f->dsfield = ipv4_get_dsfield(iph);
		f->ttl = iph->ttl;
	} else {
		ip6h = skb_header_pointer(skb, skb_network_offset(skb),
					  sizeof(buf.v6), &buf);
		if (!ip6h)
			return false;
		f->fixed = ntohl(ip6_flowlabel(ip6h));
		f->dsfield = ipv6_get_dsfield(ip6h);
		f->ttl = ip6h->hop_limit;
	}
	return true;
}

/*
 * Note @skb, of @fam, as handed to the stack after a lookup of @key (NULL:
 * none) that found what @lookup says. A packet that cannot be learned
 * (a SYN, FIN or RST: conntrack must see what follows it) notes no more.
 * BH disabled, as ft_rx_state() reads it.
 */
void ft_rx_note(struct ft_net *fn, enum ft_fam fam, const struct sk_buff *skb,
		const struct ft_key *key, enum ft_rx_lookup lookup,
		bool learnable)
{
	struct ft_rx_mark *m = this_cpu_ptr(&ft_rx_mark);

	lockdep_assert_in_softirq();
	m->skb = skb;
	m->state.lookup = lookup;
	if (key)
		m->state.key = *key;
	m->state.learnable = learnable;
	if (learnable) {
		m->state.mark = skb->mark;
		m->state.priority = skb->priority;
		m->state.hdr_ok = ft_hdr_fields(skb, fam, &m->state.hdr);
		ft_gens_read(fn, &m->state.gens);
	}
}

/*
 * The state @skb entered with, if it is the one ft_punt() saw last. It
 * stays valid until the next punt on this CPU: caller with BH disabled.
 */
const struct ft_rx_state *ft_rx_state(const struct sk_buff *skb)
{
	struct ft_rx_mark *m;

	lockdep_assert_in_softirq();
	m = this_cpu_ptr(&ft_rx_mark);
	if (m->skb != skb)
		return NULL;
	m->skb = NULL;
	return &m->state;
}
