// SPDX-License-Identifier: GPL-2.0
/*
 * udpecho: a UDP echo server and client, for short UDP exchanges in the
 * soak (selftests/soak.sh). No libraries; build it static.
 *
 *   udpecho -s PORT
 *       Answer every datagram arriving on [::]:PORT (IPv4 too, as mapped
 *       addresses) with the same bytes, until killed. One process, one
 *       socket: unlike socat's UDP-RECVFROM with fork, nothing forks per
 *       datagram, so a busy or stalled guest only delays the answers.
 *
 *   udpecho -c ADDR PORT [COUNT [TIMEOUT_MS]]
 *       From one socket (one connection, as conntrack sees it), send COUNT
 *       (default 5) datagrams 50 ms apart to ADDR:PORT, then wait for the
 *       missing answers for up to TIMEOUT_MS (default 10000). Returns as
 *       soon as every answer is in.
 *
 *   udpecho -w ADDR PORT COUNT [TIMEOUT_MS]
 *       The checksum sweep: from one socket, send COUNT datagrams whose
 *       4-byte payload is their index (0 .. COUNT - 1, big-endian), at
 *       most WINDOW of them unanswered at a time, then wait for the
 *       missing answers for up to TIMEOUT_MS (default 10000). Only the low
 *       16 bits of the payload change over the first 65536, so their UDP
 *       checksums take every value: a NAT that mishandles one value loses
 *       that datagram or its answer.
 *
 * Prints "udpecho: N of COUNT answers" (client) and exits 0 when all came
 * back, 1 when some did not or on an error, 2 on a bad command line.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_COUNT	1000
#define GAP_MS		50
#define MAX_SWEEP	(1 << 20)
#define WINDOW		32
#define WINDOW_MS	1000	/* an unanswered window is given up on */

static void usage(void)
{
	fprintf(stderr, "usage: udpecho -s PORT\n"
			"       udpecho -c ADDR PORT [COUNT [TIMEOUT_MS]]\n"
			"       udpecho -w ADDR PORT COUNT [TIMEOUT_MS]\n");
	exit(2);
}

static long number(const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "udpecho: '%s' is not a number from %ld to %ld\n",
			s, lo, hi);
		usage();
	}
	return v;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int server(int port)
{
	struct sockaddr_in6 addr = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	struct sockaddr_storage peer;
	char buf[65536];
	int fd, off = 0;

	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		perror("udpecho: server socket");
		return 1;
	}
	for (;;) {
		socklen_t plen = sizeof(peer);
		ssize_t n;

		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&peer,
			     &plen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("udpecho: recvfrom");
			return 1;
		}
		/* A peer that is gone (ICMP errors) is not our problem. */
		sendto(fd, buf, n, 0, (struct sockaddr *)&peer, plen);
	}
}

/*
 * Read the answers that are there, marking their sequence numbers: text
 * from 1, or (sweep) a 4-byte index from 0, as seq + 1.
 */
static int drain(int fd, bool *got, int count, int *ngot, bool sweep)
{
	char buf[64];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		long seq;

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			/* ECONNREFUSED and the like: an ICMP error came
			 * back; the answers may still come.
			 */
			if (errno == EINTR || errno == ECONNREFUSED ||
			    errno == EHOSTUNREACH || errno == ENETUNREACH)
				continue;
			perror("udpecho: recv");
			return -1;
		}
		if (sweep && n == 4) {
			uint32_t be;

			memcpy(&be, buf, sizeof(be));
			seq = (long)ntohl(be) + 1;
		} else {
			buf[n] = '\0';
			seq = sweep ? 0 : strtol(buf, NULL, 10);
		}
		if (seq >= 1 && seq <= count && !got[seq - 1]) {
			got[seq - 1] = true;
			(*ngot)++;
		}
	}
}

/* Wait until @deadline for answers, or until all are in. */
static int wait_answers(int fd, bool *got, int count, int *ngot,
			int64_t deadline, bool sweep)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t left;

	while (*ngot < count && (left = deadline - now_ms()) > 0) {
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR) {
			perror("udpecho: poll");
			return -1;
		}
		if (drain(fd, got, count, ngot, sweep))
			return -1;
	}
	return 0;
}

/* A UDP socket connected to @host:@port; -2 for a bad address. */
static int connect_to(const char *host, int port)
{
	struct sockaddr_in6 a6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	struct sockaddr_in a4 = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	struct sockaddr *sa;
	socklen_t salen;
	int fd;

	if (inet_pton(AF_INET, host, &a4.sin_addr) == 1) {
		sa = (struct sockaddr *)&a4;
		salen = sizeof(a4);
	} else if (inet_pton(AF_INET6, host, &a6.sin6_addr) == 1) {
		sa = (struct sockaddr *)&a6;
		salen = sizeof(a6);
	} else {
		fprintf(stderr, "udpecho: '%s' is not an IPv4 or IPv6 address\n",
			host);
		return -2;
	}
	fd = socket(sa->sa_family, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, sa, salen)) {
		perror("udpecho: client socket");
		return -1;
	}
	return fd;
}

/* Print the count of answers; 0 if all came back. */
static int report(int fd, int ngot, int count)
{
	printf("udpecho: %d of %d answers\n", ngot, count);
	close(fd);
	return ngot == count ? 0 : 1;
}

static int client(const char *host, int port, int count, int timeout)
{
	bool got[MAX_COUNT] = { false };
	int fd, i, ngot = 0;

	fd = connect_to(host, port);
	if (fd < 0)
		return fd == -2 ? 2 : 1;
	for (i = 1; i <= count; i++) {
		char msg[32];
		int len = snprintf(msg, sizeof(msg), "%d\n", i);

		if (send(fd, msg, len, 0) < 0 && errno != ECONNREFUSED) {
			perror("udpecho: send");
			return 1;
		}
		if (wait_answers(fd, got, count, &ngot, now_ms() + GAP_MS, false))
			return 1;
	}
	if (wait_answers(fd, got, count, &ngot, now_ms() + timeout, false))
		return 1;
	return report(fd, ngot, count);
}

static bool sweep_got[MAX_SWEEP];

/* Wait up to WINDOW_MS until more than @above answers are in. */
static int wait_window(int fd, int count, int *ngot, int above)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t deadline = now_ms() + WINDOW_MS, left;

	while (*ngot <= above && (left = deadline - now_ms()) > 0) {
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR) {
			perror("udpecho: poll");
			return -1;
		}
		if (drain(fd, sweep_got, count, ngot, true))
			return -1;
	}
	return 0;
}

/*
 * The checksum sweep. A window that stays unanswered for WINDOW_MS is
 * given up on, so that lost datagrams cost a second each at most.
 */
static int sweep(const char *host, int port, int count, int timeout)
{
	int fd, i, ngot = 0, given_up = 0;

	fd = connect_to(host, port);
	if (fd < 0)
		return fd == -2 ? 2 : 1;
	for (i = 0; i < count; i++) {
		uint32_t be = htonl((uint32_t)i);

		if (send(fd, &be, sizeof(be), 0) < 0 && errno != ECONNREFUSED) {
			perror("udpecho: send");
			return 1;
		}
		if (i + 1 - ngot - given_up < WINDOW)
			continue;
		if (wait_window(fd, count, &ngot, i + 1 - given_up - WINDOW))
			return 1;
		if (i + 1 - ngot - given_up >= WINDOW)
			given_up = i + 1 - ngot;
	}
	if (wait_answers(fd, sweep_got, count, &ngot, now_ms() + timeout, true))
		return 1;
	return report(fd, ngot, count);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-s"))
		return server(number(argv[2], 1, 65535));
	if (argc >= 4 && argc <= 6 && !strcmp(argv[1], "-c")) {
		int count = argc > 4 ? number(argv[4], 1, MAX_COUNT) : 5;
		int timeout = argc > 5 ? number(argv[5], 1, 600000) : 10000;

		return client(argv[2], number(argv[3], 1, 65535), count,
			      timeout);
	}
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "-w")) {
		int timeout = argc > 5 ? number(argv[5], 1, 600000) : 10000;

		return sweep(argv[2], number(argv[3], 1, 65535),
			     number(argv[4], 1, MAX_SWEEP), timeout);
	}
	usage();
	return 2;
}
