// SPDX-License-Identifier: GPL-2.0
/*
 * connflood: play whole short TCP connections, both ends of each, as
 * Ethernet frames out of one device, to make many new connections through
 * a router at a known rate (make bench, bench/guest/devices.sh). No
 * libraries; build it static.
 *
 *   connflood -i DEV -m MAC -c VLAN -s VLAN -a CLIENT -b SERVER -n COUNT
 *             [-o FIRST] [-r RATE] [-t SECS] [-k OPEN] [-d ROUNDS] [-l LEN]
 *             [-B BATCH]
 *
 * Sends, through a packet socket on DEV, to MAC (the router's trunk), the
 * frames of COUNT IPv4 TCP connections between CLIENT (tagged with the
 * client's VLAN, -c) and SERVER (the server's VLAN, -s), in the order the
 * two ends would send them:
 *
 *   SYN, SYN-ACK, ACK; ROUNDS times a LEN-byte segment from the client and
 *   one from the server; FIN-ACK, FIN-ACK, ACK.
 *
 * Every frame has consistent sequence and acknowledgement numbers, so that
 * conntrack's window tracking accepts it. Connection k (FIRST <= k <
 * FIRST+COUNT) goes from client port 1024 + k % 64000 to server port
 * 30000 + k / 64000: a new 5-tuple each, and runs with different FIRST
 * never meet. The router is expected to send every frame back out of DEV
 * (the other VLAN); the caller drops them there and DEV's rx counter counts
 * them.
 *
 *   -o FIRST   the first connection's number (0)
 *   -r RATE    connections opened per second at most (0: as fast as the
 *              frames go)
 *   -t SECS    open no new connection after SECS seconds (0: no limit)
 *   -k OPEN    connections open at once: the close of connection k follows
 *              the opening of k + OPEN (0: right after its own data)
 *   -d ROUNDS  data exchanges per connection (1)
 *   -l LEN     TCP payload bytes of each data segment (64)
 *   -B BATCH   frames per sendmmsg() call (32)
 *
 * After the last frame, waits until DEV has received as many frames as were
 * sent, or until none came for a second. Prints
 * "connflood: N connections, S frames sent, R back, T us" (N: the
 * connections played, T: from the first frame to the last one back) and exits 0; 1 on an error, 2 on a bad
 * command line.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tool_util.h"

#define MAX_BATCH	256
#define MAX_PAYLOAD	1400
#define ETH_HLEN_VLAN	18
#define IP4_HLEN	20
#define TCP_HLEN	20
#define FRAME_MAX	(ETH_HLEN_VLAN + IP4_HLEN + TCP_HLEN + MAX_PAYLOAD)
#define PORTS		64000

#define TH_FIN		0x01
#define TH_SYN		0x02
#define TH_PSH		0x08
#define TH_ACK		0x10

struct opts {
	const char *dev, *mac, *client, *server;
	unsigned long cvlan, svlan, count, first, rate, secs, open, rounds, len;
	unsigned long batch;
};

struct out {
	int fd;
	uint8_t dst[6], src[6];
	uint32_t caddr, saddr;		/* network order */
	unsigned long n, sent;
	uint8_t frames[MAX_BATCH][FRAME_MAX];
	struct iovec iov[MAX_BATCH];
	struct mmsghdr msg[MAX_BATCH];
};

static void usage(void)
{
	fprintf(stderr,
		"usage: connflood -i DEV -m MAC -c VLAN -s VLAN -a CLIENT -b SERVER -n COUNT\n"
		"                 [-o FIRST] [-r RATE] [-t SECS] [-k OPEN] [-d ROUNDS] [-l LEN]\n"
		"                 [-B BATCH]\n");
	exit(2);
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static unsigned long rx_packets(const char *dev)
{
	unsigned long v = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/rx_packets", dev);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static int flush(struct out *o)
{
	unsigned long done = 0;

	while (done < o->n) {
		int ret = sendmmsg(o->fd, o->msg + done, (unsigned int)(o->n - done), 0);

		if (ret < 0) {
			/* A full queue somewhere: wait a little. */
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
				usleep(100);
				continue;
			}
			perror("connflood: sendmmsg");
			return -1;
		}
		done += (unsigned long)ret;
	}
	o->sent += o->n;
	o->n = 0;
	return 0;
}

/*
 * Queue one frame of connection @k, from the client (@c2s) or the server,
 * with sequence number @seq, acknowledgement @ack, @flags and @len bytes of
 * payload; send the batch when it is full.
 */
static int frame(struct out *o, const struct opts *op, unsigned long k,
		 bool c2s, uint32_t seq, uint32_t ack, uint8_t flags,
		 unsigned long len)
{
	uint16_t cport = (uint16_t)(1024 + k % PORTS);
	uint16_t sport = (uint16_t)(30000 + k / PORTS);
	uint16_t tcplen = (uint16_t)(TCP_HLEN + len);
	uint8_t *f = o->frames[o->n], *ip, *tcp;
	uint32_t src = c2s ? o->caddr : o->saddr;
	uint32_t dst = c2s ? o->saddr : o->caddr;
	uint32_t sum;

	memcpy(f, o->dst, 6);
	memcpy(f + 6, o->src, 6);
	put16(f + 12, ETH_P_8021Q);
	put16(f + 14, (uint16_t)(c2s ? op->cvlan : op->svlan));
	put16(f + 16, ETH_P_IP);

	ip = f + ETH_HLEN_VLAN;
	memset(ip, 0, IP4_HLEN + TCP_HLEN);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(IP4_HLEN + tcplen));
	put16(ip + 4, (uint16_t)k);
	ip[6] = 0x40;			/* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_TCP;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	put16(ip + 10, csum_fold(csum_add(0, ip, IP4_HLEN)));

	tcp = ip + IP4_HLEN;
	put16(tcp, c2s ? cport : sport);
	put16(tcp + 2, c2s ? sport : cport);
	put32(tcp + 4, seq);
	put32(tcp + 8, ack);
	tcp[12] = (TCP_HLEN / 4) << 4;
	tcp[13] = flags;
	put16(tcp + 14, 65535);
	memset(tcp + TCP_HLEN, 'c', len);
	sum = csum_add(0, ip + 12, 8);
	sum += IPPROTO_TCP + tcplen;
	sum = csum_add(sum, tcp, tcplen);
	put16(tcp + 16, csum_fold(sum));

	o->iov[o->n].iov_base = f;
	o->iov[o->n].iov_len = ETH_HLEN_VLAN + IP4_HLEN + tcplen;
	if (++o->n == op->batch)
		return flush(o);
	return 0;
}

/* The initial sequence numbers of connection @k: any will do. */
static uint32_t isn_client(unsigned long k)
{
	return (uint32_t)(k * 2654435761u);
}

static uint32_t isn_server(unsigned long k)
{
	return ~isn_client(k) ^ 0x5a5a5a5au;
}

/* Handshake and data of connection @k. */
static int conn_open(struct out *o, const struct opts *op, unsigned long k)
{
	uint32_t c = isn_client(k), s = isn_server(k);
	unsigned long r;

	if (frame(o, op, k, true, c, 0, TH_SYN, 0) ||
	    frame(o, op, k, false, s, c + 1, TH_SYN | TH_ACK, 0) ||
	    frame(o, op, k, true, c + 1, s + 1, TH_ACK, 0))
		return -1;
	c++;
	s++;
	for (r = 0; r < op->rounds; r++) {
		if (frame(o, op, k, true, c, s, TH_PSH | TH_ACK, op->len))
			return -1;
		c += (uint32_t)op->len;
		if (frame(o, op, k, false, s, c, TH_PSH | TH_ACK, op->len))
			return -1;
		s += (uint32_t)op->len;
	}
	return 0;
}

/* The close of connection @k: the client first. */
static int conn_close(struct out *o, const struct opts *op, unsigned long k)
{
	uint32_t c = isn_client(k) + 1 + (uint32_t)(op->rounds * op->len);
	uint32_t s = isn_server(k) + 1 + (uint32_t)(op->rounds * op->len);

	if (frame(o, op, k, true, c, s, TH_FIN | TH_ACK, 0) ||
	    frame(o, op, k, false, s, c + 1, TH_FIN | TH_ACK, 0) ||
	    frame(o, op, k, true, c + 1, s + 1, TH_ACK, 0))
		return -1;
	return 0;
}

static int parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

/* Wait for the frames to come back; returns when the last one did. */
static int64_t wait_back(const struct opts *op, unsigned long rx0,
			 unsigned long sent, unsigned long *back)
{
	unsigned long rx = rx_packets(op->dev) - rx0;
	int64_t last = now_us();

	while (rx < sent && now_us() - last < 1000000) {
		unsigned long r;

		usleep(1000);
		r = rx_packets(op->dev) - rx0;
		if (r != rx) {
			rx = r;
			last = now_us();
		}
	}
	*back = rx;
	return last;
}

int main(int argc, char **argv)
{
	static struct out o;
	struct opts op = { .rounds = 1, .len = 64, .batch = 32 };
	struct sockaddr_ll ll = { .sll_family = AF_PACKET };
	unsigned long i, opened = 0, rx0, back;
	int64_t start, end;
	struct ifreq ifr;
	int opt;

	while ((opt = getopt(argc, argv, "i:m:c:s:a:b:n:o:r:t:k:d:l:B:")) != -1) {
		switch (opt) {
		case 'i': op.dev = optarg; break;
		case 'm': op.mac = optarg; break;
		case 'c': op.cvlan = number(optarg, 1, 4094); break;
		case 's': op.svlan = number(optarg, 1, 4094); break;
		case 'a': op.client = optarg; break;
		case 'b': op.server = optarg; break;
		case 'n': op.count = number(optarg, 1, 100000000); break;
		case 'o': op.first = number(optarg, 0, 1000000000); break;
		case 'r': op.rate = number(optarg, 0, 10000000); break;
		case 't': op.secs = number(optarg, 0, 86400); break;
		case 'k': op.open = number(optarg, 0, 1000000); break;
		case 'd': op.rounds = number(optarg, 0, 1000); break;
		case 'l': op.len = number(optarg, 1, MAX_PAYLOAD); break;
		case 'B': op.batch = number(optarg, 1, MAX_BATCH); break;
		default: usage();
		}
	}
	if (optind != argc || !op.dev || !op.mac || !op.cvlan || !op.svlan ||
	    !op.client || !op.server || !op.count)
		usage();
	if ((op.first + op.count - 1) / PORTS > 65535 - 30000) {
		fprintf(stderr, "connflood: connection numbers past %lu use up the server ports\n",
			(65535UL - 30000 + 1) * PORTS - 1);
		return 2;
	}
	if (parse_mac(op.mac, o.dst)) {
		fprintf(stderr, "connflood: '%s' is not a MAC address\n", op.mac);
		return 2;
	}
	if (inet_pton(AF_INET, op.client, &o.caddr) != 1 ||
	    inet_pton(AF_INET, op.server, &o.saddr) != 1) {
		fprintf(stderr, "connflood: CLIENT and SERVER must be IPv4 addresses\n");
		return 2;
	}

	o.fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (o.fd < 0) {
		perror("connflood: packet socket");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	if (strlen(op.dev) >= sizeof(ifr.ifr_name)) {
		fprintf(stderr, "connflood: device name '%s' is too long\n", op.dev);
		return 2;
	}
	strcpy(ifr.ifr_name, op.dev);
	if (ioctl(o.fd, SIOCGIFHWADDR, &ifr)) {
		perror("connflood: the device's address");
		return 1;
	}
	memcpy(o.src, ifr.ifr_hwaddr.sa_data, 6);
	ll.sll_ifindex = (int)if_nametoindex(op.dev);
	if (!ll.sll_ifindex ||
	    bind(o.fd, (struct sockaddr *)&ll, sizeof(ll))) {
		perror("connflood: bind to the device");
		return 1;
	}
	for (i = 0; i < MAX_BATCH; i++) {
		o.msg[i].msg_hdr.msg_iov = &o.iov[i];
		o.msg[i].msg_hdr.msg_iovlen = 1;
	}

	rx0 = rx_packets(op.dev);
	start = now_us();
	while (opened < op.count) {
		unsigned long due = op.count;
		int64_t t = now_us() - start;

		if (op.secs && t >= (int64_t)op.secs * 1000000)
			break;
		if (op.rate) {
			due = (unsigned long)(t * (int64_t)op.rate / 1000000) + 1;
			if (due > op.count)
				due = op.count;
		}
		/* A few at a time, so that the clock is read now and then. */
		if (due > opened + 64)
			due = opened + 64;
		for (; opened < due; opened++) {
			if (conn_open(&o, &op, op.first + opened))
				return 1;
			if (opened >= op.open &&
			    conn_close(&o, &op, op.first + opened - op.open))
				return 1;
		}
		if (flush(&o))
			return 1;
		if (op.rate && opened < op.count) {
			/* Until the next connection is due. */
			int64_t next = (int64_t)opened * 1000000 / (int64_t)op.rate;

			t = now_us() - start;
			if (next > t)
				usleep((useconds_t)(next - t));
		}
	}
	for (i = opened > op.open ? opened - op.open : 0; i < opened; i++)
		if (conn_close(&o, &op, op.first + i))
			return 1;
	if (flush(&o))
		return 1;
	end = wait_back(&op, rx0, o.sent, &back);
	printf("connflood: %lu connections, %lu frames sent, %lu back, %lld us\n",
	       opened, o.sent, back, (long long)(end - start));
	close(o.fd);
	return 0;
}
