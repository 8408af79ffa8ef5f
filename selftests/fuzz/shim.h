/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace shim under kmod/parse.h: the few kernel names the parser
 * uses, from the UAPI headers where they exist and defined here where they
 * are kernel-internal. Include it, then "../../kmod/parse.h".
 */
#ifndef _FT_FUZZ_SHIM_H
#define _FT_FUZZ_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>		/* htons, ntohs */
#include <netinet/in.h>		/* IPPROTO_*, struct in6_addr (before linux/in6.h) */
#include <linux/types.h>	/* __be16, __be32, __sum16 */
#include <linux/ip.h>		/* struct iphdr */
#include <linux/ipv6.h>		/* struct ipv6hdr */
#include <linux/tcp.h>		/* struct tcphdr */
#include <linux/udp.h>		/* struct udphdr */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* include/net/ip.h */
#define IP_MF		0x2000
#define IP_OFFSET	0x1FFF

/* include/net/ipv6.h */
#define NEXTHDR_HOP		0
#define NEXTHDR_ROUTING		43
#define NEXTHDR_FRAGMENT	44
#define NEXTHDR_AUTH		51
#define NEXTHDR_DEST		60
#define NEXTHDR_MOBILITY	135

/*
 * The kernel's ip_fast_csum(): the folded one's complement of the sum of
 * @ihl 32-bit words. Reads exactly ihl * 4 bytes, as the assembly one does.
 */
static inline __sum16 ip_fast_csum(const void *iph, unsigned int ihl)
{
	const uint8_t *p = iph;
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < ihl * 4; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__sum16)htons((uint16_t)~sum);
}

#endif /* _FT_FUZZ_SHIM_H */
