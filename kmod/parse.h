/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Header parsing of the fast path, on a flat buffer. It has no skb and no
 * kernel-only call but ip_fast_csum(), so a userspace harness can compile
 * this very file with a thin shim and fuzz it.
 *
 * The parser accepts only what the fast path fully understands: IPv4
 * without options or IPv6 without extension headers, not fragmented, TTL or
 * hop limit above 1, a valid IPv4 header checksum, then a well-formed TCP or
 * UDP header. Anything else returns the reason to hand it to the stack.
 */
#ifndef _FT_PARSE_H
#define _FT_PARSE_H

/* Index of an address family in per-family arrays. */
enum ft_fam {
	FT_FAM_V4,
	FT_FAM_V6,
	FT_FAM_NUM,
};

union ft_addr {
	__be32 ip;
	struct in6_addr in6;
};

/* The bytes of an address of @fam in a union ft_addr. */
static inline unsigned int ft_addr_len(enum ft_fam fam)
{
	return fam == FT_FAM_V4 ? sizeof(__be32) : sizeof(struct in6_addr);
}

/*
 * Lookup key: the headers of a packet as it arrives (conntrack's tuple).
 * It is hashed and compared over its family's length, ft_key_len(): an
 * IPv4 key ends after its addresses, so that a cached IPv4 flow stores 24
 * bytes less than an IPv6 one.
 */
struct ft_key {
	u8 fam;
	u8 l4proto;
	__be16 sport;
	__be16 dport;
	u8 pad[2];
	union {
		struct {
			__be32 src;
			__be32 dst;
		} v4;
		struct {
			struct in6_addr src;
			struct in6_addr dst;
		} v6;
	};
};

#define FT_KEY_LEN_V4	(offsetof(struct ft_key, v4) + 2 * sizeof(__be32))
#define FT_KEY_LEN_V6	sizeof(struct ft_key)

static inline unsigned int ft_key_len(unsigned int fam)
{
	return fam == FT_FAM_V4 ? FT_KEY_LEN_V4 : FT_KEY_LEN_V6;
}

/* The addresses of @k: a __be32 or a struct in6_addr, by @k->fam. */
static inline const void *ft_key_src(const struct ft_key *k)
{
	return k->fam == FT_FAM_V4 ? (const void *)&k->v4.src : &k->v6.src;
}

static inline const void *ft_key_dst(const struct ft_key *k)
{
	return k->fam == FT_FAM_V4 ? (const void *)&k->v4.dst : &k->v6.dst;
}

enum ft_parse_result {
	FT_PARSE_OK,
	FT_PARSE_TCP_FLAGS,	/* key is valid: SYN, FIN or RST set */
	FT_PARSE_FRAGMENT,
	FT_PARSE_OPTIONS,
	FT_PARSE_TTL,
	FT_PARSE_MALFORMED,
	FT_PARSE_UNKNOWN,
};

/* Bytes the parser may read: IPv6 header plus a TCP header, no options. */
#define FT_PARSE_MAX_HDR	(sizeof(struct ipv6hdr) + sizeof(struct tcphdr))

struct ft_pkt {
	struct ft_key key;
	unsigned int l3_len;	/* header length: where L4 starts */
	unsigned int tot_len;	/* L3 length the header claims */
	u8 tcp_flags;		/* TCP byte 13 */
};

#define FT_TCP_FIN	0x01
#define FT_TCP_SYN	0x02
#define FT_TCP_RST	0x04
#define FT_TCP_ACK	0x10

/* @hdr_len bytes are readable at @l4; @l4_len bytes of L4 are claimed. */
static inline enum ft_parse_result
ft_parse_l4(const u8 *l4, unsigned int hdr_len, unsigned int l4_len,
	    struct ft_pkt *pkt)
{
	if (pkt->key.l4proto == IPPROTO_TCP) {
		const struct tcphdr *th = (const struct tcphdr *)l4;

		if (hdr_len < sizeof(*th) || l4_len < sizeof(*th))
			return FT_PARSE_MALFORMED;
		if (th->doff < 5 || th->doff * 4U > l4_len)
			return FT_PARSE_MALFORMED;
		pkt->key.sport = th->source;
		pkt->key.dport = th->dest;
		pkt->tcp_flags = l4[13];
		/* Conntrack tracks these, and calls a segment without ACK
		 * invalid past the handshake: the slow path decides.
		 */
		if ((pkt->tcp_flags & (FT_TCP_FIN | FT_TCP_SYN | FT_TCP_RST)) ||
		    !(pkt->tcp_flags & FT_TCP_ACK))
			return FT_PARSE_TCP_FLAGS;
		return FT_PARSE_OK;
	}
	if (pkt->key.l4proto == IPPROTO_UDP) {
		const struct udphdr *uh = (const struct udphdr *)l4;

		if (hdr_len < sizeof(*uh) || l4_len < sizeof(*uh))
			return FT_PARSE_MALFORMED;
		if (ntohs(uh->len) < sizeof(*uh) || ntohs(uh->len) > l4_len)
			return FT_PARSE_MALFORMED;
		pkt->key.sport = uh->source;
		pkt->key.dport = uh->dest;
		return FT_PARSE_OK;
	}
	return FT_PARSE_UNKNOWN;
}

static inline enum ft_parse_result
ft_parse_ipv4(const u8 *data, unsigned int hdr_len, unsigned int len,
	      struct ft_pkt *pkt)
{
	const struct iphdr *iph = (const struct iphdr *)data;

	if (hdr_len < sizeof(*iph) || iph->version != 4 || iph->ihl < 5)
		return FT_PARSE_MALFORMED;
	if (iph->ihl > 5)
		return FT_PARSE_OPTIONS;
	pkt->tot_len = ntohs(iph->tot_len);
	if (pkt->tot_len < sizeof(*iph) || pkt->tot_len > len)
		return FT_PARSE_MALFORMED;
	if (ip_fast_csum(data, iph->ihl))
		return FT_PARSE_MALFORMED;
	if (iph->frag_off & htons(IP_MF | IP_OFFSET))
		return FT_PARSE_FRAGMENT;
	if (iph->protocol != IPPROTO_TCP && iph->protocol != IPPROTO_UDP)
		return FT_PARSE_UNKNOWN;
	if (iph->ttl <= 1)
		return FT_PARSE_TTL;

	pkt->l3_len = sizeof(*iph);
	pkt->key.fam = FT_FAM_V4;
	pkt->key.l4proto = iph->protocol;
	pkt->key.v4.src = iph->saddr;
	pkt->key.v4.dst = iph->daddr;
	return ft_parse_l4(data + pkt->l3_len, hdr_len - pkt->l3_len,
			   pkt->tot_len - pkt->l3_len, pkt);
}

static inline enum ft_parse_result
ft_parse_ipv6(const u8 *data, unsigned int hdr_len, unsigned int len,
	      struct ft_pkt *pkt)
{
	const struct ipv6hdr *ip6h = (const struct ipv6hdr *)data;
	u8 nexthdr;

	if (hdr_len < sizeof(*ip6h) || ip6h->version != 6)
		return FT_PARSE_MALFORMED;

	/* Extension headers first: a jumbogram's zero payload length comes
	 * with a hop-by-hop option.
	 */
	nexthdr = ip6h->nexthdr;
	switch (nexthdr) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		break;
	case NEXTHDR_FRAGMENT:
		return FT_PARSE_FRAGMENT;
	case NEXTHDR_HOP:
	case NEXTHDR_ROUTING:
	case NEXTHDR_DEST:
	case NEXTHDR_AUTH:
	case NEXTHDR_MOBILITY:
		return FT_PARSE_OPTIONS;
	default:
		return FT_PARSE_UNKNOWN;
	}
	pkt->tot_len = sizeof(*ip6h) + ntohs(ip6h->payload_len);
	if (pkt->tot_len == sizeof(*ip6h) || pkt->tot_len > len)
		return FT_PARSE_MALFORMED;
	if (ip6h->hop_limit <= 1)
		return FT_PARSE_TTL;

	pkt->l3_len = sizeof(*ip6h);
	pkt->key.fam = FT_FAM_V6;
	pkt->key.l4proto = nexthdr;
	pkt->key.v6.src = ip6h->saddr;
	pkt->key.v6.dst = ip6h->daddr;
	return ft_parse_l4(data + pkt->l3_len, hdr_len - pkt->l3_len,
			   pkt->tot_len - pkt->l3_len, pkt);
}

/*
 * Parse the L3 and L4 headers at @data. @hdr_len bytes are readable there,
 * at most FT_PARSE_MAX_HDR are needed; @len is the L3 length of the packet.
 */
static inline enum ft_parse_result
ft_parse(enum ft_fam fam, const u8 *data, unsigned int hdr_len,
	 unsigned int len, struct ft_pkt *pkt)
{
	memset(&pkt->key, 0, sizeof(pkt->key));
	pkt->tcp_flags = 0;
	if (fam == FT_FAM_V4)
		return ft_parse_ipv4(data, hdr_len, len, pkt);
	return ft_parse_ipv6(data, hdr_len, len, pkt);
}

#endif /* _FT_PARSE_H */
