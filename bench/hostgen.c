// SPDX-License-Identifier: GPL-2.0
/*
 * hostgen: make bench's packet generator on the host (BENCH_NIC=hostgen).
 *
 *   hostgen DIR
 *
 * The wire's other end of the guest router's NIC. qemu's "-netdev stream"
 * connects to DIR/net (each frame after its length, 4 bytes big-endian),
 * and the chardev of a virtio-serial port to DIR/ctl, where the guest asks
 * for frames (lines). hostgen runs outside the guest, so none of its work
 * lands on the guest's instruction clock, which then counts the router's
 * work alone (selftests/vm/boot.sh --nic hostgen, bench/guest/nic.sh).
 *
 * At most WINDOW frames are on their way at once (sent, and no frame of
 * the flow back for them yet). qemu reads the socket whatever the guest's ring holds and
 * queues what the guest cannot take, without bound: without the window,
 * the router was a million frames behind after a measured second, and
 * later measurements met the frames of earlier ones. A frame the router
 * drops never comes back: when the window is full and nothing came back
 * for STALL_MS, the frames on their way count as lost. A datagram netdev
 * would need no window, but qemu then moves one frame an event-loop turn,
 * and the router idled most of the time waiting for them.
 *
 * Commands, one a line, each answered with one line:
 *   send FAM VLAN DSTMAC SRCMAC SRC DST SPORT NSPORT DPORT NDPORT COUNT
 *        COUNT UDP frames, then wait until as many frames of that flow
 *        came back (UDP of FAM to one of its destination ports) or none
 *        came for 500 ms: "SENT RX".
 *   start FAM VLAN DSTMAC SRCMAC SRC DST SPORT NSPORT DPORT NDPORT
 *        the same frames without end, as fast as qemu takes them: "ok".
 *   stop the frames end: "SENT RX" since start.
 * FAM is 4 or 6, VLAN an id or "-" (untagged). The ports step by one a
 * frame, as pktgen's: NSPORT source ports from SPORT, NDPORT destination
 * ports from DPORT. Frames are pktgen's sizes: 64 bytes with IPv4 (its
 * pkt_size 64, less the FCS), 82 with IPv6 (the smallest it builds), TTL
 * 32, UDP checksum set. A malformed command gets "error: ..." and changes
 * nothing. Each command and its answer are logged on stderr.
 * hostgen exits when qemu closes either socket, or when qemu has not
 * connected to both within 120 s.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* csum_add(), csum_fold(), put16(): the selftests helpers' own. */
#include "../selftests/tool_util.h"

#define FRAME_MAX	128
#define QUIET_MS	500
#define WINDOW		512	/* twice virtio-net's receive ring */
#define STALL_MS	20

struct flow {
	int fam, vlan;
	uint8_t dmac[6], smac[6];
	uint8_t src[16], dst[16];
	unsigned int sport, nsport, dport, ndport;
};

static struct {
	struct flow f;
	int on;			/* 0 idle, 1 send COUNT, 2 start..stop */
	unsigned long long count, sent, rx0;
	long long done_at;	/* ms: all sent (send) */
} g;

static const char usage[] =
	"send FAM VLAN DSTMAC SRCMAC SRC DST SPORT NSPORT DPORT NDPORT COUNT, start the same without COUNT, or stop";
/* Frames of the flow back, frames sent, and frames counted lost. */
static unsigned long long rx_total, tx_all, lost;
static long long last_rx_ms;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("hostgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void unix_addr(struct sockaddr_un *a, const char *dir, const char *name)
{
	if ((size_t)snprintf(a->sun_path, sizeof(a->sun_path), "%s/%s", dir, name) >=
	    sizeof(a->sun_path))
		die("%s/%s: path too long", dir, name);
}

static int unix_socket(const char *dir, const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	unix_addr(&a, dir, name);
	unlink(a.sun_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1))
		die("%s: %s", a.sun_path, strerror(errno));
	return fd;
}

/* accept_qemu: qemu connects as it starts. */
static int accept_qemu(int l, long long end)
{
	struct pollfd p = { .fd = l, .events = POLLIN };
	int c;

	for (;;) {
		c = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c >= 0) {
			close(l);
			return c;
		}
		if (now_ms() > end)
			die("qemu did not connect within 120 s");
		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
	}
}

/* build: frame number n of flow f into p; returns its length. */
static size_t build(const struct flow *f, unsigned long long n, uint8_t *p)
{
	size_t alen = f->fam == 4 ? 4 : 16, l3, l4, len, plen;
	uint8_t *ip, *udp, pseudo[4];
	uint32_t sum;

	memset(p, 0, FRAME_MAX);
	memcpy(p, f->dmac, 6);
	memcpy(p + 6, f->smac, 6);
	l3 = 12;
	if (f->vlan >= 0) {
		put16(p + 12, 0x8100);
		put16(p + 14, f->vlan);
		l3 = 16;
	}
	put16(p + l3, f->fam == 4 ? 0x0800 : 0x86dd);
	l3 += 2;
	ip = p + l3;
	/* pktgen's sizes: 64 bytes for IPv4, a 16-byte payload for IPv6. */
	len = f->fam == 4 ? 64 : l3 + 40 + 8 + 16;
	l4 = l3 + (f->fam == 4 ? 20 : 40);
	plen = len - l4;
	if (f->fam == 4) {
		ip[0] = 0x45;
		put16(ip + 2, len - l3);
		ip[8] = 32;
		ip[9] = 17;
		memcpy(ip + 12, f->src, 4);
		memcpy(ip + 16, f->dst, 4);
		put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	} else {
		ip[0] = 0x60;
		put16(ip + 4, plen);
		ip[6] = 17;
		ip[7] = 32;
		memcpy(ip + 8, f->src, 16);
		memcpy(ip + 24, f->dst, 16);
	}
	udp = p + l4;
	put16(udp, f->sport + n % f->nsport);
	put16(udp + 2, f->dport + n % f->ndport);
	put16(udp + 4, plen);
	pseudo[0] = 0;
	pseudo[1] = 17;
	put16(pseudo + 2, plen);
	sum = csum_add(0, f->src, alen);
	sum = csum_add(sum, f->dst, alen);
	sum = csum_add(sum, pseudo, 4);
	sum = csum_add(sum, udp, plen);
	sum = csum_fold(sum);
	put16(udp + 6, sum ? sum : 0xffff);
	return len;
}

static int parse_mac(const char *s, uint8_t *m)
{
	unsigned int b[6], i;
	char end;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &end) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -1;
		m[i] = b[i];
	}
	return 0;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *v > max ? -1 : 0;
}

/* parse_ports: PORT and a count N of ports from it, all within 0..65535. */
static int parse_ports(const char *port, const char *n, unsigned int *first,
		       unsigned int *count)
{
	unsigned long long p, c;

	if (parse_uint(port, 65535, &p) || parse_uint(n, 65536, &c) || !c || p + c > 65536)
		return -1;
	*first = p;
	*count = c;
	return 0;
}

/* parse_flow: argv[0..9] of send and start into f; NULL or what is wrong. */
static const char *parse_flow(char **a, struct flow *f)
{
	unsigned long long v;
	int af;

	if (!strcmp(a[0], "4"))
		f->fam = 4, af = AF_INET;
	else if (!strcmp(a[0], "6"))
		f->fam = 6, af = AF_INET6;
	else
		return "FAM is 4 or 6";
	f->vlan = -1;
	if (strcmp(a[1], "-")) {
		if (parse_uint(a[1], 4094, &v))
			return "VLAN is an id up to 4094 or -";
		f->vlan = v;
	}
	if (parse_mac(a[2], f->dmac) || parse_mac(a[3], f->smac))
		return "a MAC is six hex bytes joined by colons";
	if (inet_pton(af, a[4], f->src) != 1 || inet_pton(af, a[5], f->dst) != 1)
		return "SRC and DST are addresses of FAM";
	if (parse_ports(a[6], a[7], &f->sport, &f->nsport))
		return "SPORT is a port and NSPORT a count of ports from it";
	if (parse_ports(a[8], a[9], &f->dport, &f->ndport))
		return "DPORT is a port and NDPORT a count of ports from it";
	return NULL;
}

static void reply(int fd, const char *fmt, ...)
{
	char line[256];
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	size_t off = 0;
	ssize_t n;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (len < 0 || len >= (int)sizeof(line) - 1)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	fprintf(stderr, "  %.*s", len, line);
	while (off < (size_t)len) {
		n = write(fd, line + off, len - off);
		if (n > 0)
			off += n;
		else if (n < 0 && errno == EAGAIN)
			poll(&p, 1, 1000);
		else
			die("control socket: %s", n < 0 ? strerror(errno) : "closed");
	}
}

static void command(int ctl, char *line)
{
	char *a[16], *save = NULL, *t;
	unsigned long long count = 0;
	const char *err;
	struct flow f;
	int n = 0;

	fprintf(stderr, "%lld ms: %s\n", now_ms(), line);
	for (t = strtok_r(line, " \t\r", &save); t && n < 16; t = strtok_r(NULL, " \t\r", &save))
		a[n++] = t;
	if (!n)
		return;
	if (!strcmp(a[0], "stop") && n == 1 && g.on == 2) {
		g.on = 0;
		reply(ctl, "%llu %llu", g.sent, rx_total - g.rx0);
		return;
	}
	if (g.on) {
		reply(ctl, "error: frames are still being sent: stop comes after start only");
		return;
	}
	if (!strcmp(a[0], "send") && n == 12) {
		if (parse_uint(a[11], 1ULL << 40, &count) || !count) {
			reply(ctl, "error: COUNT is a number of frames above 0");
			return;
		}
	} else if (strcmp(a[0], "start") || n != 11) {
		reply(ctl, "error: %s", usage);
		return;
	}
	err = parse_flow(a + 1, &f);
	if (err) {
		reply(ctl, "error: %s", err);
		return;
	}
	g.f = f;
	g.count = count;
	g.sent = 0;
	g.rx0 = rx_total;
	g.on = count ? 1 : 2;
	last_rx_ms = now_ms();
	if (g.on == 2)
		reply(ctl, "ok");
}

/* The frames on their way: sent, neither back nor counted lost. */
static long long inflight(void)
{
	long long n = (long long)(tx_all - lost) - (long long)rx_total;

	return n > 0 ? n : 0;
}

static int to_send(void)
{
	return g.on == 2 || (g.on == 1 && g.sent < g.count);
}

static int sending(void)
{
	return to_send() && inflight() < WINDOW;
}

/*
 * transmit: frames while the window has room, a write each: a write that
 * small goes into the socket whole or not at all.
 */
static void transmit(int net)
{
	uint8_t frame[4 + FRAME_MAX];
	size_t len;
	ssize_t n;

	while (sending()) {
		len = build(&g.f, g.sent, frame + 4);
		frame[0] = 0;
		frame[1] = 0;
		put16(frame + 2, len);
		n = write(net, frame, len + 4);
		if (n < 0 && errno == EAGAIN)
			return;
		if (n != (ssize_t)len + 4)
			die("sending to qemu: %s", n < 0 ? strerror(errno) : "a short write");
		tx_all++;
		if (++g.sent == g.count && g.on == 1)
			g.done_at = now_ms();
	}
}

/*
 * ours: a frame of the flow sent last, as the router sends it on: UDP of
 * FAM to one of its destination ports, under up to two tags. Anything else
 * the guest sends (neighbour discovery, a frame of a path that ended) is
 * not counted.
 */
static int ours(const uint8_t *p, size_t len)
{
	size_t off = 12, l4;
	unsigned int type = 0, port;

	while (off + 2 <= len) {
		type = p[off] << 8 | p[off + 1];
		if (type != 0x8100 && type != 0x88a8)
			break;
		off += 4;
	}
	off += 2;
	if (g.f.fam == 4 && type == 0x0800 && off + 20 <= len && p[off + 9] == 17)
		l4 = off + (p[off] & 15) * 4;
	else if (g.f.fam == 6 && type == 0x86dd && off + 40 <= len && p[off + 6] == 17)
		l4 = off + 40;
	else
		return 0;
	if (l4 + 8 > len)
		return 0;
	port = p[l4 + 2] << 8 | p[l4 + 3];
	return port >= g.f.dport && port < g.f.dport + g.f.ndport;
}

/* receive: count whole frames; their bytes are dropped. */
static void receive(int net)
{
	static uint8_t buf[1 << 18];
	static size_t have;
	size_t off, len;
	ssize_t n;

	for (;;) {
		n = read(net, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0)
			exit(0);	/* qemu is gone */
		have += n;
		for (off = 0; have - off >= 4; off += 4 + len) {
			len = (uint32_t)buf[off] << 24 | buf[off + 1] << 16 |
			      buf[off + 2] << 8 | buf[off + 3];
			if (len > sizeof(buf) - 4)
				die("a frame of %zu bytes from qemu", len);
			if (have - off < 4 + len)
				break;
			if (ours(buf + off + 4, len)) {
				rx_total++;
				last_rx_ms = now_ms();
			}
		}
		memmove(buf, buf + off, have - off);
		have -= off;
	}
}

int main(int argc, char **argv)
{
	static char line[1024];
	size_t line_len = 0;
	struct pollfd p[2];
	long long end;
	int net, ctl;
	char *nl;
	ssize_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: hostgen DIR\n");
		return 2;
	}
	net = unix_socket(argv[1], "net");
	ctl = unix_socket(argv[1], "ctl");
	end = now_ms() + 120000;
	net = accept_qemu(net, end);
	ctl = accept_qemu(ctl, end);
	for (;;) {
		p[0] = (struct pollfd){ .fd = net, .events = POLLIN | (sending() ? POLLOUT : 0) };
		p[1] = (struct pollfd){ .fd = ctl, .events = POLLIN };
		if (poll(p, 2, 5) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
			receive(net);
		if (p[0].revents & POLLOUT)
			transmit(net);
		/* A full window and silence: the frames on their way are lost. */
		if (to_send() && inflight() >= WINDOW && now_ms() - last_rx_ms > STALL_MS) {
			lost += inflight();
			last_rx_ms = now_ms();
		}
		if (g.on == 1 && g.sent == g.count &&
		    (rx_total - g.rx0 >= g.count ||
		     now_ms() - (last_rx_ms > g.done_at ? last_rx_ms : g.done_at) > QUIET_MS)) {
			g.on = 0;
			reply(ctl, "%llu %llu", g.sent, rx_total - g.rx0);
		}
		if (!(p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(ctl, line + line_len, sizeof(line) - 1 - line_len);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0)
			return 0;	/* qemu is gone */
		line_len += n;
		line[line_len] = 0;
		while ((nl = strchr(line, '\n'))) {
			*nl = 0;
			command(ctl, line);
			line_len -= nl + 1 - line;
			memmove(line, nl + 1, line_len + 1);
		}
		if (line_len == sizeof(line) - 1)
			line_len = 0;	/* no command is that long */
	}
}
