// SPDX-License-Identifier: GPL-2.0
/*
 * udpflood: send one UDP datagram per port of a range, fast, to create many
 * connections (conntrack entries, fasttrack flows) at once. No libraries;
 * build it static.
 *
 *   udpflood [-6] -s SRC -d DST -p SPORT -P DPORT -n COUNT [-r]
 *            [-b BATCH] [-l LEN] [-w USEC] [-c CYCLES] [-t TOS]
 *
 * Sends COUNT datagrams from SRC to DST through a raw socket with the IP
 * header included, so that no socket per port is needed: from source ports
 * SPORT .. SPORT+COUNT-1 to DPORT, or with -r from SPORT to destination
 * ports DPORT .. DPORT+COUNT-1 (the replies to the first form). The packets
 * go through the sending host's routing and output path like any other.
 *
 *   -6        IPv6 (default IPv4)
 *   -b BATCH  datagrams per sendmmsg() call (64)
 *   -l LEN    UDP payload bytes (16), up to 1452: a 1500-byte IPv6 packet
 *   -w USEC   pause after each batch (0), to pace a slow receiver
 *   -c CYCLES send the range CYCLES times (1); 0: until SIGTERM or SIGINT,
 *             to keep known connections busy in the background
 *   -t TOS    the IPv4 TOS or IPv6 traffic class byte (0)
 *
 * Prints "udpflood: sent N datagrams in T ms" and exits 0; exits 1 on an
 * error, 2 on a bad command line. A port range that would pass 65535 is a
 * command-line error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tool_util.h"

#define MAX_BATCH	1024
#define MAX_PAYLOAD	1452
#define IP4_HLEN	20
#define IP6_HLEN	40
#define UDP_HLEN	8
#define PKT_MAX		(IP6_HLEN + UDP_HLEN + MAX_PAYLOAD)

#ifndef IPV6_HDRINCL
#define IPV6_HDRINCL	36
#endif

struct opts {
	bool v6, reply;
	const char *src, *dst;
	unsigned long sport, dport, count, batch, len, wait_us, cycles, tos;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: udpflood [-6] -s SRC -d DST -p SPORT -P DPORT -n COUNT [-r]\n"
		"                [-b BATCH] [-l LEN] [-w USEC] [-c CYCLES] [-t TOS]\n");
	exit(2);
}

/*
 * Build the datagram with @sport and @dport into @pkt; returns its length.
 * @src and @dst are 4 or 16 bytes.
 */
static size_t build(const struct opts *o, uint8_t *pkt, const uint8_t *src,
		    const uint8_t *dst, uint16_t sport, uint16_t dport)
{
	size_t alen = o->v6 ? 16 : 4, hlen = o->v6 ? IP6_HLEN : IP4_HLEN;
	uint16_t ulen = (uint16_t)(UDP_HLEN + o->len);
	uint8_t *udp = pkt + hlen;
	uint32_t sum;
	uint16_t c;

	memset(pkt, 0, hlen + UDP_HLEN);
	if (o->v6) {
		pkt[0] = (uint8_t)(0x60 | o->tos >> 4);
		pkt[1] = (uint8_t)((o->tos & 0x0f) << 4);
		put16(pkt + 4, ulen);
		pkt[6] = IPPROTO_UDP;
		pkt[7] = 64;
		memcpy(pkt + 8, src, 16);
		memcpy(pkt + 24, dst, 16);
	} else {
		pkt[0] = 0x45;
		pkt[1] = (uint8_t)o->tos;
		put16(pkt + 2, (uint16_t)(IP4_HLEN + ulen));
		pkt[6] = 0x40;			/* DF */
		pkt[8] = 64;
		pkt[9] = IPPROTO_UDP;
		memcpy(pkt + 12, src, 4);
		memcpy(pkt + 16, dst, 4);
		put16(pkt + 10, csum_fold(csum_add(0, pkt, IP4_HLEN)));
	}
	put16(udp, sport);
	put16(udp + 2, dport);
	put16(udp + 4, ulen);
	memset(udp + UDP_HLEN, 'u', o->len);

	/* The pseudo-header, then the datagram. */
	sum = csum_add(0, src, alen);
	sum = csum_add(sum, dst, alen);
	sum += IPPROTO_UDP + ulen;
	sum = csum_add(sum, udp, ulen);
	c = csum_fold(sum);
	put16(udp + 6, c ? c : 0xffff);
	return hlen + ulen;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	static uint8_t pkts[MAX_BATCH][PKT_MAX];
	static struct mmsghdr msgs[MAX_BATCH];
	static struct iovec iovs[MAX_BATCH];
	struct opts o = { .batch = 64, .len = 16, .cycles = 1 };
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long total;
	struct sockaddr_storage to = { 0 };
	uint8_t src[16], dst[16];
	unsigned long sent = 0;
	long long start;
	int opt, fd, one = 1;
	socklen_t tolen;

	while ((opt = getopt(argc, argv, "6s:d:p:P:n:rb:l:w:c:t:")) != -1) {
		switch (opt) {
		case '6': o.v6 = true; break;
		case 's': o.src = optarg; break;
		case 'd': o.dst = optarg; break;
		case 'p': o.sport = number(optarg, 1, 65535); break;
		case 'P': o.dport = number(optarg, 1, 65535); break;
		case 'n': o.count = number(optarg, 1, 65535); break;
		case 'r': o.reply = true; break;
		case 'b': o.batch = number(optarg, 1, MAX_BATCH); break;
		case 'l': o.len = number(optarg, 0, MAX_PAYLOAD); break;
		case 'w': o.wait_us = number(optarg, 0, 1000000); break;
		case 'c': o.cycles = number(optarg, 0, 1000000); break;
		case 't': o.tos = number(optarg, 0, 255); break;
		default: usage();
		}
	}
	if (optind != argc || !o.src || !o.dst || !o.sport || !o.dport || !o.count)
		usage();
	if ((o.reply ? o.dport : o.sport) + o.count - 1 > 65535) {
		fprintf(stderr, "udpflood: the port range passes 65535\n");
		return 2;
	}
	if (inet_pton(o.v6 ? AF_INET6 : AF_INET, o.src, src) != 1 ||
	    inet_pton(o.v6 ? AF_INET6 : AF_INET, o.dst, dst) != 1) {
		fprintf(stderr, "udpflood: bad %s address\n", o.v6 ? "IPv6" : "IPv4");
		return 2;
	}

	fd = socket(o.v6 ? AF_INET6 : AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0) {
		perror("udpflood: raw socket");
		return 1;
	}
	if (o.v6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&to;
		int probe = IPV6_PMTUDISC_PROBE;

		/* IPPROTO_RAW implies it since Linux 4.5; say it anyway. */
		setsockopt(fd, IPPROTO_IPV6, IPV6_HDRINCL, &one, sizeof(one));
		/* Packets as built, up to the device's MTU, whatever path
		 * MTU the host learned: a test sends them past a router
		 * that said "packet too big" before.
		 */
		setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &probe, sizeof(probe));
		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, dst, 16);
		tolen = sizeof(*sin6);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&to;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, dst, 4);
		tolen = sizeof(*sin);
	}

	/* No SA_RESTART: a signal ends a sleep or a send, and the loop. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	total = o.cycles ? o.count * o.cycles : (unsigned long)-1;
	start = now_ms();
	while (sent < total && !stop) {
		unsigned long n = total - sent, i;
		int done = 0, ret;

		if (n > o.batch)
			n = o.batch;
		if (n > o.count - sent % o.count)
			n = o.count - sent % o.count;
		for (i = 0; i < n; i++) {
			unsigned long k = sent % o.count + i;
			uint16_t sport = (uint16_t)(o.reply ? o.sport : o.sport + k);
			uint16_t dport = (uint16_t)(o.reply ? o.dport + k : o.dport);

			iovs[i].iov_base = pkts[i];
			iovs[i].iov_len = build(&o, pkts[i], src, dst, sport, dport);
			memset(&msgs[i], 0, sizeof(msgs[i]));
			msgs[i].msg_hdr.msg_iov = &iovs[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_name = &to;
			msgs[i].msg_hdr.msg_namelen = tolen;
		}
		while (done < (int)n) {
			ret = sendmmsg(fd, msgs + done, (unsigned int)(n - done), 0);
			if (ret < 0) {
				/* A full queue somewhere: wait a little. */
				if (errno == EINTR && stop)
					break;
				if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
					usleep(1000);
					continue;
				}
				perror("udpflood: sendmmsg");
				return 1;
			}
			done += ret;
		}
		sent += (unsigned long)done;
		if (o.wait_us && !stop)
			usleep((useconds_t)o.wait_us);
	}
	printf("udpflood: sent %lu datagrams in %lld ms\n", sent, now_ms() - start);
	return 0;
}
