// SPDX-License-Identifier: GPL-2.0
/*
 * ftinject: send crafted Ethernet frames for one flow, most of them
 * malformed, through an AF_PACKET socket. No libraries; build it static.
 *
 *   ftinject IFNAME SPEC --case NAME[,NAME...]|all [--fence]
 *   ftinject --list SPEC           the case names that apply to SPEC
 *   ftinject --dump DIR SPEC       write each frame's L3 bytes to files in DIR
 *                                  (the fuzz seeds: FAMILY-L4-NAME.N)
 *   ftinject IFNAME SPEC --probe-seq
 *                                  print "SEQ ACK", the TCP connection's next
 *                                  sequence numbers from --src and from --dst
 *
 * SPEC:
 *   --dst-mac M --src-mac M   Ethernet addresses (router, client)
 *   --vlan [TPID:]ID          a tag, outermost first; repeat for more
 *   --alt-vlan ID             another VLAN of the router, for "vlan-other"
 *   --proto ipv4|ipv6 --l4 tcp|udp
 *   --src A --dst B --sport N --dport N
 *   --ttl N (64) --payload N (32) --id N (IP ID / fragment id base)
 *   --seq N --ack N           TCP sequence and acknowledgement numbers
 *
 * Each case's frames carry its own IPv4 ID or IPv6 flow label (and fragment
 * id): --id plus the case's index. For each case sent ftinject prints
 * "NAME<TAB>FRAMES<TAB>ID". With --fence it then sends an ICMP echo request
 * from --src to --dst the same way and waits for the reply: every frame sent
 * before it has been handled by then. It exits 3 when the reply does not
 * come within --fence-ms (3000).
 *
 * --probe-seq sends a pure ACK far outside the receive window, which the
 * peer answers with a duplicate ACK (RFC 793) that carries both numbers.
 * Injected TCP segments then sit at a known place relative to the real
 * connection: conntrack judges an RST by its sequence number against the
 * peer's last ACK, which with a fixed --seq is a coin flip on the random
 * initial sequence number.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tool_util.h"

#define MAX_TAGS	4
#define MAX_FRAMES	2
#define FRAME_MAX	2048

/* Where a case applies. */
#define F_V4	0x01
#define F_V6	0x02
#define F_TCP	0x04
#define F_UDP	0x08
#define F_VLAN	0x10	/* the spec has a tag to mangle */
#define F_ALT	0x20	/* --alt-vlan given */
#define F_IP	(F_V4 | F_V6)
#define F_L4	(F_TCP | F_UDP)
#define F_ANY	(F_IP | F_L4)

struct tag {
	uint16_t tpid;
	uint16_t tci;
};

struct spec {
	uint8_t dst_mac[6], src_mac[6];
	struct tag tags[MAX_TAGS];
	int ntags;
	int alt_vlan;
	int v6;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint8_t l4;
	int ttl;
	int payload;
	uint16_t id;
	uint32_t seq, ack;
};

enum { CSUM_OK, CSUM_BAD, CSUM_ZERO };
enum { FRAG_NONE, FRAG_FIRST, FRAG_LAST, FRAG_PAIR, FRAG_MIDDLE, FRAG_ATOMIC };

/* One packet as a case wants it; -1 means "computed". */
struct pkt {
	struct spec s;		/* cases may change tags, MACs, TTL */
	int ethertype;
	int version;
	int ihl;
	uint8_t ipopt[40];
	int ipopt_len;
	int tot_len;		/* IPv4 total length or IPv6 payload length */
	uint16_t frag_flags;	/* IPv4 DF / reserved bits */
	int frag;		/* FRAG_* */
	int proto;		/* IPv4 protocol, IPv6 last next header */
	int ipcsum;
	uint8_t ext[512];	/* IPv6 extension headers; byte 0 of each, */
	int ext_len;		/* the next header, is filled in later */
	int ext_off[8];		/* where each starts */
	uint8_t ext_type[8];	/* and what it is */
	int next_ext;
	uint8_t tcp_flags;
	int doff;
	uint8_t tcpopt[40];
	int tcpopt_len;
	int udp_len;
	int l4csum;
	int payload;
	int l3_cut;		/* keep this many L3 bytes */
	int l4_cut;		/* keep the L3 header and this many L4 bytes */
	int l4_short;		/* the L4 part is this long, and lengths agree */
	int trailer;		/* bytes after the IP packet (link padding) */
	int eth_only;		/* the frame ends after the Ethernet header */
	int vlan_cut;		/* the frame ends inside the last tag */
};

struct frame {
	uint8_t b[FRAME_MAX];
	int len;
	int l3;			/* offset of the L3 header */
};

struct tcase {
	const char *name;	/* a "%d" in it takes each value */
	unsigned int where;
	void (*fn)(struct pkt *p, int arg);
	int lo, hi;		/* values, inclusive; or: */
	const int *vals;	/* -1 terminated */
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("ftinject: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

/* ----------------------------------------------------------- checksum -- */

/* csum_add(), csum_fold() and put16(): tool_util.h. */

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

/* The L4 checksum of @len bytes at @l4 with the pseudo header of @s. */
static uint16_t l4_csum(const struct spec *s, uint8_t proto, const uint8_t *l4, int len)
{
	uint32_t sum = 0;
	int alen = s->v6 ? 16 : 4;

	sum = csum_add(sum, s->src, alen);
	sum = csum_add(sum, s->dst, alen);
	sum += proto + (uint32_t)len;
	return csum_fold(csum_add(sum, l4, len));
}

/* -------------------------------------------------------------- build -- */

static void pkt_init(struct pkt *p, const struct spec *s)
{
	memset(p, 0, sizeof(*p));
	p->s = *s;
	p->ethertype = -1;
	p->version = s->v6 ? 6 : 4;
	p->ihl = -1;
	p->tot_len = -1;
	p->proto = -1;
	p->tcp_flags = 0x18;	/* PSH ACK */
	p->doff = -1;
	p->udp_len = -1;
	p->payload = s->payload;
	p->l3_cut = -1;
	p->l4_cut = -1;
	p->l4_short = -1;
}

/* Append an IPv6 extension header; byte 0 (next header) is filled later. */
static void ext_add(struct pkt *p, uint8_t type, const uint8_t *hdr, int len)
{
	if (p->next_ext == 8 || p->ext_len + len > (int)sizeof(p->ext))
		die("too many extension headers");
	p->ext_off[p->next_ext] = p->ext_len;
	p->ext_type[p->next_ext++] = type;
	memcpy(p->ext + p->ext_len, hdr, len);
	p->ext_len += len;
}

/* The TCP or UDP bytes: header, options, payload. Returns the length. */
static int build_l4(const struct pkt *p, uint8_t proto, uint8_t *l4)
{
	const struct spec *s = &p->s;
	int hlen, len, i;
	uint16_t c;

	if (proto == IPPROTO_TCP) {
		hlen = 20 + p->tcpopt_len;
		put16(l4, s->sport);
		put16(l4 + 2, s->dport);
		put32(l4 + 4, s->seq);
		put32(l4 + 8, s->ack);
		l4[12] = (p->doff >= 0 ? p->doff : hlen / 4) << 4;
		l4[13] = p->tcp_flags;
		put16(l4 + 14, 512);
		put16(l4 + 16, 0);
		put16(l4 + 18, 0);
		memcpy(l4 + 20, p->tcpopt, p->tcpopt_len);
	} else {
		hlen = 8;
		put16(l4, s->sport);
		put16(l4 + 2, s->dport);
		put16(l4 + 4, p->udp_len >= 0 ? p->udp_len : 8 + p->payload);
		put16(l4 + 6, 0);
	}
	len = hlen + p->payload;
	for (i = hlen; i < len; i++)
		l4[i] = "ftinject "[(i - hlen) % 9];

	c = l4_csum(s, proto, l4, len);
	if (proto == IPPROTO_UDP && !c)
		c = 0xffff;
	if (p->l4csum == CSUM_BAD)
		c ^= 0x5a5a;
	else if (p->l4csum == CSUM_ZERO)
		c = 0;
	put16(l4 + (proto == IPPROTO_TCP ? 16 : 6), c);
	if (p->l4_short >= 0)
		len = p->l4_short;
	return len;
}

/* An IPv4 header for @l4len bytes of L4; @frag: MF and offset (8 bytes). */
static int build_ipv4(const struct pkt *p, uint8_t *h, int l4len, uint16_t frag)
{
	const struct spec *s = &p->s;
	int hlen = 20 + p->ipopt_len;
	uint16_t c;

	h[0] = p->version << 4 | (p->ihl >= 0 ? p->ihl : hlen / 4);
	h[1] = 0;
	put16(h + 2, p->tot_len >= 0 ? p->tot_len : hlen + l4len);
	put16(h + 4, s->id);
	put16(h + 6, frag | p->frag_flags);
	h[8] = s->ttl;
	h[9] = p->proto >= 0 ? p->proto : s->l4;
	put16(h + 10, 0);
	memcpy(h + 12, s->src, 4);
	memcpy(h + 16, s->dst, 4);
	memcpy(h + 20, p->ipopt, p->ipopt_len);
	c = csum_fold(csum_add(0, h, hlen));
	if (p->ipcsum == CSUM_BAD)
		c ^= 0x5a5a;
	else if (p->ipcsum == CSUM_ZERO)
		c = 0;
	put16(h + 10, c);
	return hlen;
}

/* An IPv6 header and extension headers, and a fragment header if @frag. */
static int build_ipv6(const struct pkt *p, uint8_t *h, int l4len, int frag,
		      uint16_t frag_off)
{
	const struct spec *s = &p->s;
	uint8_t l4 = p->proto >= 0 ? p->proto : s->l4;
	int hlen = 40 + p->ext_len + (frag ? 8 : 0);
	uint8_t *nh = h + 6;
	int i;

	h[0] = p->version << 4;		/* flow label: the id, as IPv4's */
	h[1] = 0;
	put16(h + 2, s->id);
	put16(h + 4, p->tot_len >= 0 ? p->tot_len : hlen - 40 + l4len);
	h[7] = s->ttl;
	memcpy(h + 8, s->src, 16);
	memcpy(h + 24, s->dst, 16);
	memcpy(h + 40, p->ext, p->ext_len);
	for (i = 0; i < p->next_ext; i++) {
		*nh = p->ext_type[i];
		nh = h + 40 + p->ext_off[i];
	}
	if (frag) {
		uint8_t *f = h + 40 + p->ext_len;

		*nh = 44;
		nh = f;
		f[1] = 0;
		put16(f + 2, frag_off);
		put32(f + 4, 0x46540000 | s->id);
	}
	*nh = l4;
	return hlen;
}

/* Serialize one frame: Ethernet, tags, L3 of @l4len L4 bytes at @l4. */
static void emit(const struct pkt *p, struct frame *f, const uint8_t *l4,
		 int l4len, int frag, uint16_t frag_off)
{
	const struct spec *s = &p->s;
	uint8_t *b = f->b;
	int n = 12, i, hlen;
	uint16_t et;

	memcpy(b, s->dst_mac, 6);
	memcpy(b + 6, s->src_mac, 6);
	for (i = 0; i < s->ntags; i++) {
		put16(b + n, s->tags[i].tpid);
		put16(b + n + 2, s->tags[i].tci);
		n += 4;
	}
	if (p->vlan_cut) {
		f->len = n - 2;
		f->l3 = f->len;
		return;
	}
	et = p->ethertype >= 0 ? p->ethertype : s->v6 ? ETH_P_IPV6 : ETH_P_IP;
	put16(b + n, et);
	n += 2;
	f->l3 = n;
	if (p->eth_only) {
		f->len = n;
		return;
	}
	if (s->v6)
		hlen = build_ipv6(p, b + n, l4len, frag, frag_off);
	else
		hlen = build_ipv4(p, b + n, l4len, frag_off);
	memcpy(b + n + hlen, l4, l4len);
	f->len = n + hlen + l4len;
	if (p->l3_cut >= 0)
		f->len = n + p->l3_cut;
	else if (p->l4_cut >= 0)
		f->len = n + hlen + p->l4_cut;
	memset(b + f->len, 0xee, p->trailer);
	f->len += p->trailer;
}

#define FRAG_AT	24	/* L4 bytes in a first fragment: TCP/UDP header and more */

/* The frames of @p; returns how many. */
static int build(const struct pkt *p, struct frame *fr)
{
	uint8_t l4[FRAME_MAX];
	int len = build_l4(p, p->s.l4, l4);
	int v6 = p->s.v6;
	uint16_t mf = v6 ? 1 : 0x2000;
	uint16_t off = v6 ? FRAG_AT : FRAG_AT / 8;	/* v6 keeps offset << 3 */

	switch (p->frag) {
	case FRAG_FIRST:
		emit(p, &fr[0], l4, FRAG_AT, v6, mf);
		return 1;
	case FRAG_LAST:
		emit(p, &fr[0], l4 + FRAG_AT, len - FRAG_AT, v6, off);
		return 1;
	case FRAG_MIDDLE:
		emit(p, &fr[0], l4 + FRAG_AT, 8, v6, off | mf);
		return 1;
	case FRAG_PAIR:
		emit(p, &fr[0], l4, FRAG_AT, v6, mf);
		emit(p, &fr[1], l4 + FRAG_AT, len - FRAG_AT, v6, off);
		return 2;
	case FRAG_ATOMIC:
		emit(p, &fr[0], l4, len, 1, 0);
		return 1;
	}
	emit(p, &fr[0], l4, len, 0, 0);
	return 1;
}

/* -------------------------------------------------------------- cases -- */

static void c_valid(struct pkt *p, int arg) { }
static void c_ttl(struct pkt *p, int arg) { p->s.ttl = arg; }
static void c_eth_only(struct pkt *p, int arg) { p->eth_only = 1; }
static void c_l3_cut(struct pkt *p, int arg) { p->l3_cut = arg; }
static void c_l4_cut(struct pkt *p, int arg) { p->l4_cut = arg; }
static void c_l4_short(struct pkt *p, int arg) { p->l4_short = arg; }
static void c_payload_cut(struct pkt *p, int arg)
{
	p->l4_cut = (p->s.l4 == IPPROTO_TCP ? 20 : 8) + p->payload / 2;
}
static void c_trailer(struct pkt *p, int arg) { p->trailer = arg; }
static void c_version(struct pkt *p, int arg) { p->version = arg; }
static void c_ethertype(struct pkt *p, int arg)
{
	p->ethertype = p->s.v6 ? ETH_P_IP : ETH_P_IPV6;
}
static void c_ihl(struct pkt *p, int arg) { p->ihl = arg; }
static void c_tot_len(struct pkt *p, int arg) { p->tot_len = arg; }
static void c_len_plus(struct pkt *p, int arg)
{
	int l4 = (p->s.l4 == IPPROTO_TCP ? 20 : 8) + p->payload;

	p->tot_len = (p->s.v6 ? 0 : 20) + l4 + arg;
}
static void c_mtu(struct pkt *p, int arg)
{
	p->payload = arg - (p->s.v6 ? 40 : 20) - (p->s.l4 == IPPROTO_TCP ? 20 : 8);
}
static void c_ipcsum(struct pkt *p, int arg) { p->ipcsum = arg; }
static void c_l4csum(struct pkt *p, int arg) { p->l4csum = arg; }
static void c_proto(struct pkt *p, int arg) { p->proto = arg; }
static void c_frag(struct pkt *p, int arg) { p->frag = arg; }
static void c_frag_flags(struct pkt *p, int arg) { p->frag_flags = arg; }
static void c_tcp_flags(struct pkt *p, int arg) { p->tcp_flags = arg; }
static void c_doff(struct pkt *p, int arg) { p->doff = arg; }
static void c_tcp_opts(struct pkt *p, int arg)
{
	memset(p->tcpopt, 1, arg);	/* NOPs */
	p->tcpopt_len = arg;
}
static void c_udp_len(struct pkt *p, int arg) { p->udp_len = arg; }
static void c_udp_len_long(struct pkt *p, int arg) { p->udp_len = 8 + p->payload + arg; }
static void c_udp_len_half(struct pkt *p, int arg) { p->udp_len = 8 + p->payload / 2; }

static void c_mac(struct pkt *p, int arg)
{
	static const uint8_t other[6] = { 0x02, 0x46, 0x54, 0x00, 0x00, 0x01 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mcast4[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	static const uint8_t mcast6[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };

	memcpy(p->s.dst_mac, arg == 0 ? other : arg == 1 ? bcast :
	       p->s.v6 ? mcast6 : mcast4, 6);
}

static void c_ipopt(struct pkt *p, int arg)
{
	static const uint8_t opts[][40] = {
		{ 1, 1, 1, 1 },					/* NOP */
		{ 0, 0, 0, 0 },					/* EOL */
		{ 7, 7, 4, 0, 0, 0, 0, 0 },			/* record route */
		{ 68, 12, 5, 0 },				/* timestamp */
		{ 0x94, 4, 0, 0 },				/* router alert */
		{ 131, 7, 4, 0, 0, 0, 0, 0 },			/* LSRR */
		{ 7, 0, 4, 0 },					/* length 0 */
		{ 7, 40, 4, 0 },				/* beyond */
	};
	static const int lens[] = { 4, 4, 8, 12, 4, 8, 4, 4 };

	memcpy(p->ipopt, opts[arg], lens[arg]);
	p->ipopt_len = lens[arg];
	if (arg == 5)
		memcpy(p->ipopt + 3, p->s.dst, 4);
}

static void c_ipopt_max(struct pkt *p, int arg)
{
	memset(p->ipopt, 1, 40);
	p->ipopt_len = 40;
}

/* IPv6 extension headers, one 8-byte or 24-byte header per kind. */
enum { X_HBH, X_HBH_RA, X_HBH_UNK_SKIP, X_HBH_UNK_DROP, X_HBH_UNK_ICMP,
	X_HBH_JUMBO, X_DST, X_RT0, X_RT0_SEG, X_RT2, X_AH, X_MOB, X_BIG };

static void ext_kind(struct pkt *p, int kind)
{
	uint8_t h[24] = { 0 };

	switch (kind) {
	case X_HBH:		/* PadN */
	case X_DST:
		h[2] = 1;
		h[3] = 4;
		ext_add(p, kind == X_HBH ? 0 : 60, h, 8);
		break;
	case X_HBH_RA:
		h[2] = 5;
		h[3] = 2;
		h[6] = 1;	/* PadN, 0 bytes */
		ext_add(p, 0, h, 8);
		break;
	case X_HBH_UNK_SKIP:
	case X_HBH_UNK_DROP:
	case X_HBH_UNK_ICMP:
		h[2] = (kind - X_HBH_UNK_SKIP) << 6 | 0x1e;
		h[3] = 4;
		ext_add(p, 0, h, 8);
		break;
	case X_HBH_JUMBO:
		h[2] = 0xc2;
		h[3] = 4;
		put32(h + 4, 8 + (p->s.l4 == IPPROTO_TCP ? 20 : 8) + p->payload);
		ext_add(p, 0, h, 8);
		p->tot_len = 0;
		break;
	case X_RT0:
	case X_RT0_SEG:
	case X_RT2:
		h[1] = 2;
		h[2] = kind == X_RT2 ? 2 : 0;
		h[3] = kind == X_RT0_SEG;
		memcpy(h + 8, p->s.dst, 16);
		ext_add(p, 43, h, 24);
		break;
	case X_AH:
		h[1] = 4;
		put32(h + 4, 0x100);	/* SPI */
		put32(h + 8, 1);
		ext_add(p, 51, h, 24);
		break;
	case X_MOB:
		h[2] = 0;
		ext_add(p, 135, h, 8);
		break;
	case X_BIG:		/* claims 2 KiB */
		h[1] = 255;
		ext_add(p, 0, h, 8);
		break;
	}
}

static void c_ext(struct pkt *p, int arg) { ext_kind(p, arg); }
static void c_ext_chain(struct pkt *p, int arg)
{
	ext_kind(p, X_HBH);
	ext_kind(p, X_DST);
	ext_kind(p, X_RT0);
	ext_kind(p, X_DST);
	p->frag = FRAG_ATOMIC;
}
static void c_hbh_late(struct pkt *p, int arg)
{
	ext_kind(p, X_DST);
	ext_kind(p, X_HBH);
}

static void c_vlan(struct pkt *p, int arg)
{
	struct spec *s = &p->s;
	struct tag *last = &s->tags[s->ntags - 1];

	switch (arg) {
	case 0:			/* untagged */
		s->ntags = 0;
		break;
	case 1:			/* priority tag: VID 0 */
		last->tci = 5 << 13;
		break;
	case 2:			/* a VLAN the router does not have */
		last->tci = (last->tci & 0xf000) | (((last->tci & 0xfff) + 1) & 0xfff);
		break;
	case 3:			/* the same tag twice */
		if (s->ntags < MAX_TAGS)
			s->tags[s->ntags++] = *last;
		break;
	case 4:			/* 802.1ad outer, 802.1Q inner */
		if (s->ntags < MAX_TAGS) {
			s->tags[s->ntags] = *last;
			last->tpid = ETH_P_8021AD;
			s->ntags++;
		}
		break;
	case 5:			/* an S-tag instead of the C-tag */
		last->tpid = ETH_P_8021AD;
		break;
	case 6:			/* the old 0x9100 */
		last->tpid = 0x9100;
		break;
	case 7:			/* DEI set */
		last->tci |= 0x1000;
		break;
	case 8:			/* the router's other VLAN */
		last->tci = (last->tci & 0xf000) | (s->alt_vlan & 0xfff);
		break;
	case 9:			/* cut inside the tag */
		p->vlan_cut = 1;
		break;
	}
}

#define ONE(v)		.lo = (v), .hi = (v)
#define RANGE(a, b)	.lo = (a), .hi = (b)

static const int l3_cuts_v4[] = { 1, 2, 4, 8, 10, 12, 16, 19, -1 };
static const int l3_cuts_v6[] = { 1, 2, 4, 6, 8, 24, 39, -1 };
static const int tcp_shorts[] = { 0, 1, 12, 13, 19, -1 };
static const int udp_shorts[] = { 0, 4, 7, -1 };

static const struct tcase cases[] = {
	/* Controls: well-formed packets of the flow. */
	{ "valid",		F_ANY, c_valid, ONE(0) },
	{ "ttl-2",		F_ANY, c_ttl, ONE(2) },
	{ "pad-trailer",	F_ANY, c_trailer, ONE(16) },
	{ "len-mtu",		F_ANY, c_mtu, ONE(1500) },
	{ "ipv4-df",		F_V4 | F_L4, c_frag_flags, ONE(0x4000) },
	{ "vlan-dei",		F_ANY | F_VLAN, c_vlan, ONE(7) },
	/* TTL / hop limit. */
	{ "ttl-%d",		F_ANY, c_ttl, RANGE(0, 1) },
	/* Truncation at every header boundary and inside each header. */
	{ "trunc-vlan",		F_ANY | F_VLAN, c_vlan, ONE(9) },
	{ "trunc-eth",		F_ANY, c_eth_only, ONE(0) },
	{ "trunc-l3-%d",	F_V4 | F_L4, c_l3_cut, .vals = l3_cuts_v4 },
	{ "trunc-l3-%d",	F_V6 | F_L4, c_l3_cut, .vals = l3_cuts_v6 },
	{ "trunc-l4-%d",	F_IP | F_TCP, c_l4_cut, RANGE(0, 19) },
	{ "trunc-l4-%d",	F_IP | F_UDP, c_l4_cut, RANGE(0, 7) },
	{ "trunc-payload",	F_ANY, c_payload_cut, ONE(0) },
	{ "short-l4-%d",	F_IP | F_TCP, c_l4_short, .vals = tcp_shorts },
	{ "short-l4-%d",	F_IP | F_UDP, c_l4_short, .vals = udp_shorts },
	/* Version, ethertype, IHL. */
	{ "ip-version-%d",	F_ANY, c_version, .vals = (const int []){ 0, 5, 15, -1 } },
	{ "ethertype-swap",	F_ANY, c_ethertype, ONE(0) },
	{ "ihl-%d",		F_V4 | F_L4, c_ihl, RANGE(0, 4) },
	{ "ihl-15-short",	F_V4 | F_L4, c_ihl, ONE(15) },
	/* IPv4 options. */
	{ "opt-nop",		F_V4 | F_L4, c_ipopt, ONE(0) },
	{ "opt-eol",		F_V4 | F_L4, c_ipopt, ONE(1) },
	{ "opt-rr",		F_V4 | F_L4, c_ipopt, ONE(2) },
	{ "opt-ts",		F_V4 | F_L4, c_ipopt, ONE(3) },
	{ "opt-ra",		F_V4 | F_L4, c_ipopt, ONE(4) },
	{ "opt-lsrr",		F_V4 | F_L4, c_ipopt, ONE(5) },
	{ "opt-len-0",		F_V4 | F_L4, c_ipopt, ONE(6) },
	{ "opt-len-beyond",	F_V4 | F_L4, c_ipopt, ONE(7) },
	{ "opt-max",		F_V4 | F_L4, c_ipopt_max, ONE(0) },
	/* IPv6 extension headers. */
	{ "ext-hbh",		F_V6 | F_L4, c_ext, ONE(X_HBH) },
	{ "ext-hbh-ra",		F_V6 | F_L4, c_ext, ONE(X_HBH_RA) },
	{ "ext-hbh-unknown-skip", F_V6 | F_L4, c_ext, ONE(X_HBH_UNK_SKIP) },
	{ "ext-hbh-unknown-drop", F_V6 | F_L4, c_ext, ONE(X_HBH_UNK_DROP) },
	{ "ext-hbh-unknown-icmp", F_V6 | F_L4, c_ext, ONE(X_HBH_UNK_ICMP) },
	{ "ext-hbh-jumbo",	F_V6 | F_L4, c_ext, ONE(X_HBH_JUMBO) },
	{ "ext-hbh-beyond",	F_V6 | F_L4, c_ext, ONE(X_BIG) },
	{ "ext-hbh-late",	F_V6 | F_L4, c_hbh_late, ONE(0) },
	{ "ext-dst",		F_V6 | F_L4, c_ext, ONE(X_DST) },
	{ "ext-rt0",		F_V6 | F_L4, c_ext, ONE(X_RT0) },
	{ "ext-rt0-segleft",	F_V6 | F_L4, c_ext, ONE(X_RT0_SEG) },
	{ "ext-rt2",		F_V6 | F_L4, c_ext, ONE(X_RT2) },
	{ "ext-ah",		F_V6 | F_L4, c_ext, ONE(X_AH) },
	{ "ext-mobility",	F_V6 | F_L4, c_ext, ONE(X_MOB) },
	{ "ext-chain",		F_V6 | F_L4, c_ext_chain, ONE(0) },
	{ "frag-atomic",	F_V6 | F_L4, c_frag, ONE(FRAG_ATOMIC) },
	/* Fragments. */
	{ "frag-first",		F_ANY, c_frag, ONE(FRAG_FIRST) },
	{ "frag-last",		F_ANY, c_frag, ONE(FRAG_LAST) },
	{ "frag-middle",	F_ANY, c_frag, ONE(FRAG_MIDDLE) },
	{ "frag-pair",		F_ANY, c_frag, ONE(FRAG_PAIR) },
	{ "ipv4-evil-bit",	F_V4 | F_L4, c_frag_flags, ONE(0x8000) },
	/* Other protocols in the flow's addresses. */
	{ "proto-%d",		F_ANY, c_proto, .vals = (const int []){ 1, 50, 59, 132, 253, -1 } },
	/* VLAN tags, on a trunk. */
	{ "vlan-none",		F_ANY | F_VLAN, c_vlan, ONE(0) },
	{ "vlan-prio",		F_ANY | F_VLAN, c_vlan, ONE(1) },
	{ "vlan-wrong",		F_ANY | F_VLAN, c_vlan, ONE(2) },
	{ "vlan-double",	F_ANY | F_VLAN, c_vlan, ONE(3) },
	{ "vlan-qinq",		F_ANY | F_VLAN, c_vlan, ONE(4) },
	{ "vlan-stag",		F_ANY | F_VLAN, c_vlan, ONE(5) },
	{ "vlan-9100",		F_ANY | F_VLAN, c_vlan, ONE(6) },
	{ "vlan-other",		F_ANY | F_VLAN | F_ALT, c_vlan, ONE(8) },
	/* Link-layer destinations that are not the router. */
	{ "mac-other",		F_ANY, c_mac, ONE(0) },
	{ "mac-bcast",		F_ANY, c_mac, ONE(1) },
	{ "mac-mcast",		F_ANY, c_mac, ONE(2) },
	/* Zero and maximum lengths. */
	{ "len-0",		F_ANY, c_tot_len, ONE(0) },
	{ "len-19",		F_V4 | F_L4, c_tot_len, ONE(19) },
	{ "len-hdr-only",	F_V4 | F_L4, c_tot_len, ONE(20) },
	{ "len-plus-1",		F_ANY, c_len_plus, ONE(1) },
	{ "len-minus-1",	F_ANY, c_len_plus, ONE(-1) },
	{ "len-max",		F_ANY, c_tot_len, ONE(65535) },
	{ "udp-len-%d",		F_IP | F_UDP, c_udp_len, .vals = (const int []){ 0, 7, 65535, -1 } },
	{ "udp-len-plus-1",	F_IP | F_UDP, c_udp_len_long, ONE(1) },
	{ "udp-len-short",	F_IP | F_UDP, c_udp_len_half, ONE(0) },
	{ "tcp-doff-%d",	F_IP | F_TCP, c_doff, RANGE(0, 4) },
	{ "tcp-doff-15",	F_IP | F_TCP, c_doff, ONE(15) },
	{ "tcp-opts-nop",	F_IP | F_TCP, c_tcp_opts, ONE(4) },
	{ "tcp-opts-max",	F_IP | F_TCP, c_tcp_opts, ONE(40) },
	/* Checksums. */
	{ "ip-csum-bad",	F_V4 | F_L4, c_ipcsum, ONE(CSUM_BAD) },
	{ "ip-csum-zero",	F_V4 | F_L4, c_ipcsum, ONE(CSUM_ZERO) },
	{ "l4-csum-bad",	F_ANY, c_l4csum, ONE(CSUM_BAD) },
	{ "l4-csum-zero",	F_ANY, c_l4csum, ONE(CSUM_ZERO) },
	/* TCP flags: FIN 01 SYN 02 RST 04 PSH 08 ACK 10 URG 20 ECE 40 CWR 80. */
	{ "flags-none",		F_IP | F_TCP, c_tcp_flags, ONE(0x00) },
	{ "flags-ack",		F_IP | F_TCP, c_tcp_flags, ONE(0x10) },
	{ "flags-urg-ack",	F_IP | F_TCP, c_tcp_flags, ONE(0x30) },
	{ "flags-ece-cwr",	F_IP | F_TCP, c_tcp_flags, ONE(0xd0) },
	{ "flags-psh",		F_IP | F_TCP, c_tcp_flags, ONE(0x08) },
	{ "flags-syn",		F_IP | F_TCP, c_tcp_flags, ONE(0x02) },
	{ "flags-syn-ack",	F_IP | F_TCP, c_tcp_flags, ONE(0x12) },
	{ "flags-syn-fin",	F_IP | F_TCP, c_tcp_flags, ONE(0x03) },
	{ "flags-syn-rst",	F_IP | F_TCP, c_tcp_flags, ONE(0x06) },
	{ "flags-fin-rst",	F_IP | F_TCP, c_tcp_flags, ONE(0x05) },
	{ "flags-xmas",		F_IP | F_TCP, c_tcp_flags, ONE(0x29) },
	{ "flags-all",		F_IP | F_TCP, c_tcp_flags, ONE(0xff) },
	{ "flags-fin",		F_IP | F_TCP, c_tcp_flags, ONE(0x01) },
	{ "flags-fin-ack",	F_IP | F_TCP, c_tcp_flags, ONE(0x11) },
	{ "flags-rst",		F_IP | F_TCP, c_tcp_flags, ONE(0x04) },
	{ "flags-rst-ack",	F_IP | F_TCP, c_tcp_flags, ONE(0x14) },
	{ NULL }
};

static unsigned int spec_where(const struct spec *s)
{
	return (s->v6 ? F_V6 : F_V4) | (s->l4 == IPPROTO_TCP ? F_TCP : F_UDP) |
	       (s->ntags ? F_VLAN : 0) | (s->alt_vlan >= 0 ? F_ALT : 0);
}

static bool applies(const struct tcase *c, unsigned int where)
{
	unsigned int need = c->where;

	return (need & where & F_IP) && (need & where & F_L4) &&
	       !(need & (F_VLAN | F_ALT) & ~where);
}

/* Call @fn for each case that applies, with its name, value and index. */
static int for_each_case(const struct spec *s,
			 int (*fn)(const struct tcase *c, const char *name,
				   int arg, int idx, void *ctx), void *ctx)
{
	unsigned int where = spec_where(s);
	const struct tcase *c;
	int idx = 0, err, v, i;
	char name[64];

	for (c = cases; c->name; c++) {
		for (i = 0;; i++) {
			if (c->vals) {
				v = c->vals[i];
				if (v < 0)
					break;
			} else {
				v = c->lo + i;
				if (v > c->hi)
					break;
			}
			idx++;
			if (!applies(c, where))
				continue;
			snprintf(name, sizeof(name), c->name, v);
			err = fn(c, name, v, idx, ctx);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ sending -- */

struct run {
	const struct spec *s;
	const char *only;	/* --case: names, or "all" */
	int fd;
	int ifindex;
	const char *dump_dir;
	int sent;
};

static void send_frame(const struct run *r, const struct frame *f)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = r->ifindex,
		.sll_halen = 6,
	};

	memcpy(sll.sll_addr, f->b, 6);
	if (sendto(r->fd, f->b, f->len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		die("sendto (%d bytes): %s", f->len, strerror(errno));
}

static void dump_frame(const struct run *r, const char *name, int n,
		       const struct frame *f)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s-%s-%s.%d", r->dump_dir,
		 r->s->v6 ? "ipv6" : "ipv4", r->s->l4 == IPPROTO_TCP ? "tcp" : "udp",
		 name, n);
	fp = fopen(path, "w");
	if (!fp)
		die("%s: %s", path, strerror(errno));
	fwrite(f->b + f->l3, 1, f->len - f->l3, fp);
	fclose(fp);
}

/* Is @name in @list, "all" or a comma-separated list of names? */
static bool wanted(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (!strcmp(list, "all"))
		return true;
	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static int run_case(const struct tcase *c, const char *name, int arg, int idx, void *ctx)
{
	struct frame fr[MAX_FRAMES];
	struct run *r = ctx;
	struct pkt p;
	int n, i;

	if (!wanted(r->only, name))
		return 0;
	pkt_init(&p, r->s);
	p.s.id = r->s->id + idx;	/* distinct fragment ids per case */
	c->fn(&p, arg);
	n = build(&p, fr);
	for (i = 0; i < n; i++) {
		if (r->dump_dir)
			dump_frame(r, name, i, &fr[i]);
		else
			send_frame(r, &fr[i]);
	}
	if (!r->dump_dir)
		printf("%s\t%d\t%u\n", name, n, p.s.id);
	r->sent++;
	return 0;
}

static int print_name(const struct tcase *c, const char *name, int arg, int idx, void *ctx)
{
	printf("%s\n", name);
	return 0;
}

/* -------------------------------------------------------------- fence -- */

static void fence_build(const struct spec *s, struct frame *f, uint16_t id)
{
	struct pkt p;
	uint8_t icmp[24] = { 0 };
	uint16_t c;

	pkt_init(&p, s);
	p.proto = s->v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	icmp[0] = s->v6 ? 128 : 8;
	put16(icmp + 4, id);
	put16(icmp + 6, 1);
	memcpy(icmp + 8, "ftinject fence!!", 16);
	c = s->v6 ? l4_csum(s, IPPROTO_ICMPV6, icmp, sizeof(icmp)) :
		    csum_fold(csum_add(0, icmp, sizeof(icmp)));
	put16(icmp + 2, c);
	emit(&p, f, icmp, sizeof(icmp), 0, 0);
}

/* The offset of a received frame's L3 header, past any in-band tags. */
static int l3_offset(const uint8_t *b, int len)
{
	int n = 12;

	while (n + 4 <= len && (b[n] << 8 | b[n + 1]) != ETH_P_IP &&
	       (b[n] << 8 | b[n + 1]) != ETH_P_IPV6)
		n += 4;
	return n + 2;
}

/*
 * Receive frames on the socket until @match takes one (0), or for
 * @timeout_ms (-1).
 */
static int recv_until(const struct run *r, int timeout_ms,
		      bool (*match)(const uint8_t *b, int len, void *ctx), void *ctx)
{
	struct timespec t0, t;
	uint8_t b[FRAME_MAX];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		int left, n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout_ms - ((t.tv_sec - t0.tv_sec) * 1000 +
				     (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			return -1;
		n = recvfrom(r->fd, b, sizeof(b), 0, (struct sockaddr *)&from, &fl);
		if (n < 0 || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (match(b, n, ctx))
			return 0;
	}
}

struct answer {
	const struct spec *s;
	uint16_t id;		/* the fence's echo id */
	uint32_t seq, ack;	/* the probe's answer */
};

/* Is @b an echo reply for the fence's id from the spec's destination? */
static bool is_reply(const uint8_t *b, int len, void *ctx)
{
	const struct answer *a = ctx;
	const struct spec *s = a->s;
	int n = l3_offset(b, len);

	if (!s->v6) {
		const uint8_t *ip = b + n;
		int hl;

		if (len < n + 20 || ip[9] != IPPROTO_ICMP || memcmp(ip + 12, s->dst, 4))
			return false;
		hl = (ip[0] & 15) * 4;
		return len >= n + hl + 8 && ip[hl] == 0 &&
		       (ip[hl + 4] << 8 | ip[hl + 5]) == a->id;
	}
	if (len < n + 48 || b[n + 6] != IPPROTO_ICMPV6 || memcmp(b + n + 8, s->dst, 16))
		return false;
	return b[n + 40] == 129 && (b[n + 44] << 8 | b[n + 45]) == a->id;
}

/*
 * Drop what the socket holds: what came while the cases went out, and
 * their answers (ICMP errors, resets). After a burst of about 100 cases
 * on 6.1, with XDP on both veth ends, the echo reply never came without
 * this (why is not pinned down); with it, it does.
 */
static void drain(const struct run *r)
{
	uint8_t b[64];

	while (recv(r->fd, b, sizeof(b), MSG_DONTWAIT | MSG_TRUNC) >= 0)
		;
}

static int fence(const struct run *r, int timeout_ms)
{
	struct answer a = { .s = r->s, .id = (getpid() ^ time(NULL)) & 0xffff };
	struct frame f;

	fence_build(r->s, &f, a.id);
	drain(r);
	send_frame(r, &f);
	return recv_until(r, timeout_ms, is_reply, &a);
}

/* ---------------------------------------------------------- seq probe -- */

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/*
 * Is @b an ACK from the spec's destination port back to its source? Keeps
 * its sequence and acknowledgement numbers.
 */
static bool is_tcp_answer(const uint8_t *b, int len, void *ctx)
{
	struct answer *a = ctx;
	const struct spec *s = a->s;
	int n = l3_offset(b, len);
	const uint8_t *l4;

	if (!s->v6) {
		if (len < n + 20 || b[n + 9] != IPPROTO_TCP ||
		    memcmp(b + n + 12, s->dst, 4) || memcmp(b + n + 16, s->src, 4))
			return false;
		l4 = b + n + (b[n] & 15) * 4;
	} else {
		if (len < n + 40 || b[n + 6] != IPPROTO_TCP ||
		    memcmp(b + n + 8, s->dst, 16) || memcmp(b + n + 24, s->src, 16))
			return false;
		l4 = b + n + 40;
	}
	if (l4 + 20 > b + len || (l4[0] << 8 | l4[1]) != s->dport ||
	    (l4[2] << 8 | l4[3]) != s->sport || !(l4[13] & 0x10))
		return false;
	a->seq = get32(l4 + 4);
	a->ack = get32(l4 + 8);
	return true;
}

/*
 * Three tries, each at another sequence number (one could fall in the
 * window) and after the peer's limit of one out-of-window answer per
 * 500 ms (tcp_invalid_ratelimit).
 */
static int probe_seq(const struct run *r, int timeout_ms)
{
	struct spec s = *r->s;
	struct answer a = { .s = &s };
	int try;

	for (try = 0; try < 3; try++) {
		struct frame f;
		struct pkt p;

		s.seq = r->s->seq + try * 0x55555555u;
		pkt_init(&p, &s);
		p.tcp_flags = 0x10;	/* ACK */
		p.payload = 0;
		build(&p, &f);
		send_frame(r, &f);
		if (!recv_until(r, timeout_ms / 3, is_tcp_answer, &a)) {
			/* The peer's next byte from us, and its own. */
			printf("%u %u\n", a.ack, a.seq);
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------- option -- */

static void parse_mac(const char *str, uint8_t *mac)
{
	if (sscanf(str, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		   &mac[2], &mac[3], &mac[4], &mac[5]) != 6)
		die("bad MAC address '%s'", str);
}

/* long long: a sequence number does not fit a 32-bit long (armhf). */
static long long parse_num(const char *str, long long lo, long long hi,
			   const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(str, &end, 0);
	if (errno || *end || end == str || v < lo || v > hi)
		die("bad %s '%s' (%lld..%lld)", what, str, lo, hi);
	return v;
}

static void usage(FILE *fp)
{
	fputs("usage: ftinject IFNAME SPEC --case NAME[,NAME...]|all [--fence] [--fence-ms N]\n"
	      "       ftinject --list SPEC\n"
	      "       ftinject --dump DIR SPEC\n"
	      "       ftinject IFNAME SPEC --probe-seq [--fence-ms N]\n"
	      "SPEC: --dst-mac M --src-mac M [--vlan [TPID:]ID]... [--alt-vlan ID]\n"
	      "      --proto ipv4|ipv6 --l4 tcp|udp --src A --dst B --sport N --dport N\n"
	      "      [--ttl N] [--payload N] [--id N] [--seq N] [--ack N]\n", fp);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dst-mac", 1, NULL, 'D' }, { "src-mac", 1, NULL, 'S' },
		{ "vlan", 1, NULL, 'v' }, { "alt-vlan", 1, NULL, 'a' },
		{ "proto", 1, NULL, 'p' }, { "l4", 1, NULL, 'l' },
		{ "src", 1, NULL, 's' }, { "dst", 1, NULL, 'd' },
		{ "sport", 1, NULL, 'x' }, { "dport", 1, NULL, 'y' },
		{ "ttl", 1, NULL, 't' }, { "payload", 1, NULL, 'P' },
		{ "id", 1, NULL, 'i' }, { "seq", 1, NULL, 'q' },
		{ "ack", 1, NULL, 'k' }, { "case", 1, NULL, 'c' },
		{ "fence", 0, NULL, 'f' }, { "fence-ms", 1, NULL, 'F' },
		{ "list", 0, NULL, 'L' }, { "dump", 1, NULL, 'u' },
		{ "probe-seq", 0, NULL, 'Q' },
		{ "help", 0, NULL, 'h' }, { NULL }
	};
	struct spec s = {
		.alt_vlan = -1, .ttl = 64, .payload = 32, .id = 0x4654,
		.seq = 0x46540000, .ack = 0x46540000, .l4 = IPPROTO_TCP,
	};
	const char *src = NULL, *dst = NULL, *only = NULL, *ifname = NULL;
	int list = 0, do_fence = 0, fence_ms = 3000, probe = 0, o;
	struct run r = { .s = &s, .fd = -1 };
	char *colon;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'D': parse_mac(optarg, s.dst_mac); break;
		case 'S': parse_mac(optarg, s.src_mac); break;
		case 'v':
			if (s.ntags == MAX_TAGS)
				die("at most %d tags", MAX_TAGS);
			colon = strchr(optarg, ':');
			s.tags[s.ntags].tpid = ETH_P_8021Q;
			if (colon) {
				*colon = 0;
				s.tags[s.ntags].tpid = parse_num(optarg, 0, 0xffff, "TPID");
				optarg = colon + 1;
			}
			s.tags[s.ntags++].tci = parse_num(optarg, 0, 4095, "VLAN id");
			break;
		case 'a': s.alt_vlan = parse_num(optarg, 0, 4095, "VLAN id"); break;
		case 'p':
			if (strcmp(optarg, "ipv4") && strcmp(optarg, "ipv6"))
				die("--proto is ipv4 or ipv6");
			s.v6 = !strcmp(optarg, "ipv6");
			break;
		case 'l':
			if (strcmp(optarg, "tcp") && strcmp(optarg, "udp"))
				die("--l4 is tcp or udp");
			s.l4 = strcmp(optarg, "tcp") ? IPPROTO_UDP : IPPROTO_TCP;
			break;
		case 's': src = optarg; break;
		case 'd': dst = optarg; break;
		case 'x': s.sport = parse_num(optarg, 0, 65535, "port"); break;
		case 'y': s.dport = parse_num(optarg, 0, 65535, "port"); break;
		case 't': s.ttl = parse_num(optarg, 0, 255, "TTL"); break;
		case 'P': s.payload = parse_num(optarg, 0, 1400, "payload"); break;
		case 'i': s.id = parse_num(optarg, 0, 65535, "id"); break;
		case 'q': s.seq = parse_num(optarg, 0, 0xffffffffLL, "seq"); break;
		case 'k': s.ack = parse_num(optarg, 0, 0xffffffffLL, "ack"); break;
		case 'c': only = optarg; break;
		case 'f': do_fence = 1; break;
		case 'F': fence_ms = parse_num(optarg, 1, 600000, "timeout"); break;
		case 'L': list = 1; break;
		case 'u': r.dump_dir = optarg; break;
		case 'Q': probe = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (list)
		return for_each_case(&s, print_name, NULL);

	/* Addresses: documentation defaults serve --dump. */
	if (!src)
		src = s.v6 ? "2001:db8:22::2" : "198.18.22.2";
	if (!dst)
		dst = s.v6 ? "2001:db8:2222::2" : "198.18.222.2";
	if (inet_pton(s.v6 ? AF_INET6 : AF_INET, src, s.src) != 1)
		die("bad --src '%s'", src);
	if (inet_pton(s.v6 ? AF_INET6 : AF_INET, dst, s.dst) != 1)
		die("bad --dst '%s'", dst);

	if (r.dump_dir) {
		r.only = "all";
		return for_each_case(&s, run_case, &r);
	}
	if (optind != argc - 1 || (!only && !probe) || (probe && s.l4 != IPPROTO_TCP)) {
		usage(stderr);
		return 2;
	}
	ifname = argv[optind];
	r.only = only;
	r.ifindex = if_nametoindex(ifname);
	if (!r.ifindex)
		die("no interface %s", ifname);
	r.fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (r.fd < 0)
		die("AF_PACKET socket: %s", strerror(errno));
	{
		struct sockaddr_ll sll = {
			.sll_family = AF_PACKET,
			.sll_protocol = htons(ETH_P_ALL),
			.sll_ifindex = r.ifindex,
		};

		int one = 1;

		if (bind(r.fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
			die("bind %s: %s", ifname, strerror(errno));
		/* Not our own frames, which recv_until() skips anyway (4.20). */
		setsockopt(r.fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	}
	if (probe) {
		if (!probe_seq(&r, fence_ms))
			return 0;
		fprintf(stderr, "ftinject: no TCP answer from %s within %d ms\n", dst, fence_ms);
		return 3;
	}
	for_each_case(&s, run_case, &r);
	if (!r.sent)
		die("no case '%s' for this spec (see --list)", only);
	fflush(stdout);
	if (do_fence && fence(&r, fence_ms)) {
		fprintf(stderr, "ftinject: no echo reply from %s within %d ms\n", dst, fence_ms);
		return 3;
	}
	return 0;
}
