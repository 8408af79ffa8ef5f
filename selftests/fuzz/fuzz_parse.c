// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/parse.h, the fast path's header parser, built
 * from the module's own file through shim.h.
 *
 * The input is an L3 packet. Each input is parsed as IPv4 and as IPv6, with
 * the readable header (hdr_len) and the packet length (len) the module can
 * pass: what it pulls (min(len, FT_PARSE_MAX_HDR)), all of it, less than it
 * pulls, and a packet longer than the input. The readable bytes are copied
 * into a heap block of exactly hdr_len bytes, so ASan reports any read past
 * them. Then:
 *   - an accepted packet (FT_PARSE_OK or FT_PARSE_TCP_FLAGS) is a complete,
 *     valid IPv4 or IPv6 TCP/UDP packet by an independent check below, and
 *     its key and lengths say what the header says;
 *   - whenever the module's guarantee holds (hdr_len >= min(len, MAX)), a
 *     packet the independent check calls valid is accepted;
 *   - the same input gives the same answer twice.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim.h"
#include "../../kmod/parse.h"

#define FAIL(...) do {							\
		fprintf(stderr, "fuzz_parse: " __VA_ARGS__);		\
		fprintf(stderr, " (fam %s hdr_len %u len %u)\n",	\
			fam == FT_FAM_V4 ? "v4" : "v6", hdr_len, len);	\
		abort();						\
	} while (0)

static unsigned int be16(const u8 *p)
{
	return p[0] << 8 | p[1];
}

/* The reference: a packet the fast path may take, from @n readable bytes. */
struct ref {
	bool valid;
	u8 proto;
	unsigned int l3_len, tot_len;
	const u8 *src, *dst;
	unsigned int alen;
};

static bool ref_l4(struct ref *r, const u8 *d, unsigned int n)
{
	unsigned int l4_len = r->tot_len - r->l3_len;
	const u8 *l4 = d + r->l3_len;

	if (r->proto == IPPROTO_TCP) {
		if (n < r->l3_len + 20 || l4_len < 20)
			return false;
		return (l4[12] >> 4) >= 5 && (l4[12] >> 4) * 4U <= l4_len;
	}
	if (n < r->l3_len + 8 || l4_len < 8)
		return false;
	return be16(l4 + 4) >= 8 && be16(l4 + 4) <= l4_len;
}

static struct ref reference(enum ft_fam fam, const u8 *d, unsigned int n,
			    unsigned int len)
{
	struct ref r = { 0 };
	unsigned int i, sum = 0;

	if (fam == FT_FAM_V4) {
		if (n < 20 || d[0] != 0x45)
			return r;
		for (i = 0; i < 20; i += 2)
			sum += be16(d + i);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		r.tot_len = be16(d + 2);
		r.proto = d[9];
		r.l3_len = 20;
		r.src = d + 12;
		r.dst = d + 16;
		r.alen = 4;
		if (sum != 0xffff || r.tot_len < 20 || r.tot_len > len ||
		    (be16(d + 6) & 0x3fff) || d[8] <= 1)
			return r;
	} else {
		if (n < 40 || (d[0] >> 4) != 6)
			return r;
		r.tot_len = 40 + be16(d + 4);
		r.proto = d[6];
		r.l3_len = 40;
		r.src = d + 8;
		r.dst = d + 24;
		r.alen = 16;
		if (r.tot_len == 40 || r.tot_len > len || d[7] <= 1)
			return r;
	}
	if (r.proto != IPPROTO_TCP && r.proto != IPPROTO_UDP)
		return r;
	r.valid = ref_l4(&r, d, n);
	return r;
}

static bool zero(const void *p, size_t n)
{
	const u8 *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

static void check(enum ft_fam fam, const u8 *data, size_t size,
		  unsigned int hdr_len, unsigned int len)
{
	enum ft_parse_result res, again;
	struct ft_pkt pkt, pkt2;
	bool accepted;
	struct ref r;
	u8 *buf;

	buf = malloc(hdr_len ? hdr_len : 1);
	if (!buf)
		abort();
	memcpy(buf, data, hdr_len);
	memset(&pkt, 0xa5, sizeof(pkt));
	res = ft_parse(fam, hdr_len ? buf : buf + 1, hdr_len, len, &pkt);
	memset(&pkt2, 0x5a, sizeof(pkt2));
	again = ft_parse(fam, hdr_len ? buf : buf + 1, hdr_len, len, &pkt2);

	if (res > FT_PARSE_UNKNOWN)
		FAIL("result %d out of range", res);
	if (again != res)
		FAIL("two parses disagree: %d then %d", res, again);

	accepted = res == FT_PARSE_OK || res == FT_PARSE_TCP_FLAGS;
	r = reference(fam, data, hdr_len < size ? hdr_len : size, len);

	if (accepted) {
		const struct ft_key *k = &pkt.key;
		const u8 *l4 = data + r.l3_len;

		if (!r.valid)
			FAIL("accepted (%d) a packet the reference rejects", res);
		if (memcmp(&pkt.key, &pkt2.key, ft_key_len(k->fam)) ||
		    pkt.tot_len != pkt2.tot_len || pkt.l3_len != pkt2.l3_len)
			FAIL("two parses give different keys");
		if (k->fam != fam || k->l4proto != r.proto)
			FAIL("key family %u proto %u, header proto %u",
			     k->fam, k->l4proto, r.proto);
		if (pkt.l3_len != r.l3_len)
			FAIL("l3_len %u, expected %u", pkt.l3_len, r.l3_len);
		if (pkt.tot_len != r.tot_len || pkt.tot_len > len)
			FAIL("tot_len %u, header says %u, len %u",
			     pkt.tot_len, r.tot_len, len);
		if (memcmp(ft_key_src(k), r.src, r.alen) ||
		    memcmp(ft_key_dst(k), r.dst, r.alen))
			FAIL("key addresses differ from the header");
		if (ft_key_len(k->fam) != 8 + 2 * r.alen)
			FAIL("key length %u for %u-byte addresses",
			     ft_key_len(k->fam), r.alen);
		/* The key is hashed and compared over that length. */
		if (!zero(k->pad, sizeof(k->pad)))
			FAIL("key has non-zero padding");
		if (memcmp(&k->sport, l4, 2) || memcmp(&k->dport, l4 + 2, 2))
			FAIL("key ports differ from the header");
		if (r.proto == IPPROTO_TCP) {
			if (pkt.tcp_flags != l4[13])
				FAIL("tcp_flags %#x, header %#x", pkt.tcp_flags, l4[13]);
			if ((res == FT_PARSE_TCP_FLAGS) !=
			    ((l4[13] & 0x07) || !(l4[13] & 0x10)))
				FAIL("result %d for TCP flags %#x", res, l4[13]);
		} else if (res != FT_PARSE_OK) {
			FAIL("UDP gave result %d", res);
		}
	} else if (r.valid && hdr_len >= (len < FT_PARSE_MAX_HDR ? len : FT_PARSE_MAX_HDR)) {
		FAIL("rejected (%d) a valid packet", res);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned int max = FT_PARSE_MAX_HDR;
	unsigned int pulled, fam;

	if (size > 0xffff)
		return -1;
	pulled = size < max ? size : max;
	for (fam = FT_FAM_V4; fam <= FT_FAM_V6; fam++) {
		/* What the module passes, then a fully linear packet. */
		check(fam, data, size, pulled, size);
		check(fam, data, size, size, size);
		/* Less readable than the module pulls: must not read past it. */
		check(fam, data, size, pulled / 2, size);
		if (pulled)
			check(fam, data, size, pulled - 1, size);
		/* The packet goes on beyond the input (a paged skb). */
		check(fam, data, size, pulled, 0xffff);
	}
	return 0;
}
