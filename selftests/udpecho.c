// SPDX-License-Identifier: GPL-2.0
/*
 * udpecho: a UDP echo server and client, for short UDP exchanges in the
 * soak (selftests/soak.sh). No libraries; build it static.
 *
 *   udpecho -s PORT
 *       Answer every datagram arriving on [::]:PORT (IPv4 too, as mapped
 *       addresses) with the same bytes, from the address it came to,
 *       until killed. One process, one socket: unlike socat's
 *       UDP-RECVFROM with fork, nothing forks per datagram, so a busy or
 *       stalled guest only delays the answers.
 *
 *   udpecho -c ADDR PORT [COUNT [TIMEOUT_MS [SPORT]]]
 *       From one socket (one connection, as conntrack sees it), send COUNT
 *       (default 5) datagrams 50 ms apart to ADDR:PORT, then wait for the
 *       missing answers for up to TIMEOUT_MS (default 10000). Returns as
 *       soon as every answer is in. SPORT: from that source port, so that
 *       a later run goes on with the same connection.
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
			"       udpecho -c ADDR PORT [COUNT [TIMEOUT_MS [SPORT]]]\n"
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
	int fd, off = 0, on = 1;

	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on)) ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		perror("udpecho: server socket");
		return 1;
	}
	for (;;) {
		char buf[65536], cbuf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		struct sockaddr_storage peer;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = {
			.msg_name = &peer, .msg_namelen = sizeof(peer),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct cmsghdr *cm;
		ssize_t n;

		n = recvmsg(fd, &msg, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("udpecho: recvmsg");
			return 1;
		}
		/*
		 * Answer from the address the datagram came to (IPv4 ones as
		 * mapped addresses), as the client's connected socket wants,
		 * whichever one routing would pick; through any device.
		 */
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
			if (cm->cmsg_level == IPPROTO_IPV6 &&
			    cm->cmsg_type == IPV6_PKTINFO)
				((struct in6_pktinfo *)CMSG_DATA(cm))->ipi6_ifindex = 0;
		iov.iov_len = n;
		/* A peer that is gone (ICMP errors) is not our problem. */
		sendmsg(fd, &msg, 0);
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

/* Bind @fd, of family @family, to any address and source port @sport. */
static int bind_port(int fd, int family, int sport)
{
	struct sockaddr_storage ss = { .ss_family = family };
	int one = 1;

	/* sin_port and sin6_port are at the same place. */
	((struct sockaddr_in *)&ss)->sin_port = htons(sport);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		return -1;
	return bind(fd, (struct sockaddr *)&ss, family == AF_INET ?
		    sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
}

/*
 * A UDP socket connected to @host:@port, from source port @sport if not 0;
 * -2 for a bad address.
 */
static int connect_to(const char *host, int port, int sport)
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
	if (fd >= 0 && sport && bind_port(fd, sa->sa_family, sport)) {
		perror("udpecho: bind");
		close(fd);
		return -1;
	}
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

static int client(const char *host, int port, int count, int timeout,
		  int sport)
{
	bool got[MAX_COUNT] = { false };
	int fd, i, ngot = 0;

	fd = connect_to(host, port, sport);
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

	fd = connect_to(host, port, 0);
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
	if (argc >= 4 && argc <= 7 && !strcmp(argv[1], "-c")) {
		int count = argc > 4 ? number(argv[4], 1, MAX_COUNT) : 5;
		int timeout = argc > 5 ? number(argv[5], 1, 600000) : 10000;
		int sport = argc > 6 ? number(argv[6], 1, 65535) : 0;

		return client(argv[2], number(argv[3], 1, 65535), count,
			      timeout, sport);
	}
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "-w")) {
		int timeout = argc > 5 ? number(argv[5], 1, 600000) : 10000;

		return sweep(argv[2], number(argv[3], 1, 65535),
			     number(argv[4], 1, MAX_SWEEP), timeout);
	}
	usage();
	return 2;
}
