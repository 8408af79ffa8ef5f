// SPDX-License-Identifier: GPL-2.0
/*
 * nlgarbage: send invalid requests to the "fasttrack" generic netlink family
 * and check that each one is rejected, and that none changes any state.
 *
 *   nlgarbage [--seed N] [--random N] [--dev NAME] [-v]
 *
 * Every request carries something wrong: an unknown command or attribute,
 * a wrong length or type, a truncated or trailing attribute, garbage in a
 * nest, an out-of-range value, a device that does not exist. Requests go out
 * as doit and as dump, for every command, known or not. A request that
 * succeeds is a failure. Before and after, the settings, the enabled
 * devices and the cached flows are read; they must not change.
 *
 * --dev names an existing device the garbage may mention by name (it should
 * be one fasttrack is enabled on, so that a wrongly accepted disable would
 * show). --random N adds N random requests, each with one definite defect,
 * from the seed printed at the start (--seed reproduces a run). Without
 * CAP_NET_ADMIN, admin commands must fail with EPERM.
 *
 * Output: one line per kind of rejection (command, errno, extack message,
 * count), "lenient:" lines for well-formed but pointless requests that were
 * accepted (informational), "FAIL:" lines, and a summary. Exit 0 when
 * nothing was accepted that must not be and no state changed, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../uapi/linux/fasttrack.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif
#ifndef NLMSGERR_ATTR_MSG
#define NLMSGERR_ATTR_MSG 1
#endif

#define BUF_SIZE	65536
#define ATTRS_MAX	16384

static int sock = -1;
static uint16_t family;
static uint32_t seq = 1;
static bool verbose, is_admin;
static unsigned int failures, sent;

/* ------------------------------------------------------------ random -- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rnd_below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

/* ---------------------------------------------------------- requests -- */

/* The attributes of a request, built byte by byte: garbage is allowed. */
struct attrs {
	uint8_t b[ATTRS_MAX];
	int len;
};

static void put_raw(struct attrs *a, const void *data, int len)
{
	if (a->len + len > ATTRS_MAX)
		return;
	memcpy(a->b + a->len, data, len);
	a->len += len;
}

/* An attribute with nla_len = 4 + @len, padded to 4 bytes. */
static void put_attr(struct attrs *a, uint16_t type, const void *data, int len)
{
	struct nlattr nla = { .nla_len = NLA_HDRLEN + len, .nla_type = type };
	static const uint8_t pad[4];

	put_raw(a, &nla, sizeof(nla));
	put_raw(a, data, len);
	put_raw(a, pad, NLA_ALIGN(len) - len);
}

static void put_u32(struct attrs *a, uint16_t type, uint32_t v)
{
	put_attr(a, type, &v, sizeof(v));
}

static void put_str(struct attrs *a, uint16_t type, const char *s)
{
	put_attr(a, type, s, strlen(s) + 1);
}

static void put_nest(struct attrs *a, uint16_t type, const struct attrs *in)
{
	put_attr(a, type | NLA_F_NESTED, in->b, in->len);
}

struct reply {
	int err;		/* 0 or -errno */
	char msg[256];		/* extack message */
	int parts;		/* messages received */
	void (*cb)(const struct nlmsghdr *nlh, void *ctx);
	void *ctx;
};

/* Read the extack message out of an error or done message. */
static void extack(const struct nlmsghdr *nlh, int off, struct reply *r)
{
	const struct nlattr *nla;
	int left;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	nla = (const void *)((const uint8_t *)nlh + off);
	left = (int)nlh->nlmsg_len - off;
	while (left >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN && nla->nla_len <= left) {
		if ((nla->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG) {
			snprintf(r->msg, sizeof(r->msg), "%.*s",
				 (int)(nla->nla_len - NLA_HDRLEN),
				 (const char *)nla + NLA_HDRLEN);
			return;
		}
		left -= NLA_ALIGN(nla->nla_len);
		nla = (const void *)((const uint8_t *)nla + NLA_ALIGN(nla->nla_len));
	}
}

/*
 * Send one request and read until its ack, error or end of dump. @hdrlen
 * is how much of the genl header to send (GENL_HDRLEN normally).
 */
static int request(uint8_t cmd, uint16_t flags, const struct attrs *a,
		   int hdrlen, uint8_t version, uint16_t reserved, struct reply *r)
{
	static uint8_t buf[BUF_SIZE];
	struct nlmsghdr *nlh = (void *)buf;
	struct genlmsghdr g = { .cmd = cmd, .version = version, .reserved = reserved };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	uint32_t my_seq = seq++;
	int len;

	r->err = 0;
	r->msg[0] = 0;
	r->parts = 0;
	memset(buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	memcpy(buf + NLMSG_HDRLEN, &g, hdrlen);
	len = NLMSG_HDRLEN + hdrlen;
	if (a) {
		memcpy(buf + len, a->b, a->len);
		len += a->len;
	}
	nlh->nlmsg_len = len;
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = my_seq;
	if (sendto(sock, buf, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "nlgarbage: send: %s\n", strerror(errno));
		exit(2);
	}
	sent++;

	for (;;) {
		int n = recv(sock, buf, sizeof(buf), 0);

		if (n < 0) {
			fprintf(stderr, "nlgarbage: no answer to cmd %u: %s\n", cmd, strerror(errno));
			exit(2);
		}
		for (nlh = (void *)buf; NLMSG_OK(nlh, (unsigned int)n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != my_seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);

				r->err = e->error;
				if (e->error)
					extack(nlh, NLMSG_HDRLEN + sizeof(*e), r);
				return r->err;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				r->err = *(const int *)NLMSG_DATA(nlh);
				if (r->err)
					extack(nlh, NLMSG_HDRLEN + sizeof(int), r);
				return r->err;
			}
			r->parts++;
			if (r->cb)
				r->cb(nlh, r->ctx);
		}
	}
}

static const struct nlattr *attr_first(const struct nlmsghdr *nlh, int *left)
{
	int off = NLMSG_HDRLEN + GENL_HDRLEN;

	*left = (int)nlh->nlmsg_len - off;
	return (const void *)((const uint8_t *)nlh + off);
}

#define for_each_attr(nla, left)					\
	for (; (left) >= NLA_HDRLEN && (nla)->nla_len >= NLA_HDRLEN &&	\
	       (nla)->nla_len <= (left);				\
	     (left) -= NLA_ALIGN((nla)->nla_len),			\
	     (nla) = (const void *)((const uint8_t *)(nla) + NLA_ALIGN((nla)->nla_len)))

/* --------------------------------------------------------- the family -- */

static void family_cb(const struct nlmsghdr *nlh, void *ctx)
{
	const struct nlattr *nla;
	int left;

	nla = attr_first(nlh, &left);
	for_each_attr(nla, left)
		if (nla->nla_type == CTRL_ATTR_FAMILY_ID)
			family = *(const uint16_t *)((const uint8_t *)nla + NLA_HDRLEN);
}

static void resolve_family(void)
{
	struct attrs a = { .len = 0 };
	struct reply r = { .cb = family_cb };

	family = GENL_ID_CTRL;
	put_str(&a, CTRL_ATTR_FAMILY_NAME, FASTTRACK_GENL_NAME);
	request(CTRL_CMD_GETFAMILY, 0, &a, GENL_HDRLEN, 1, 0, &r);
	if (r.err || family == GENL_ID_CTRL) {
		fprintf(stderr, "nlgarbage: no generic netlink family \"%s\": %s."
			" Try `modprobe fasttrack`.\n", FASTTRACK_GENL_NAME,
			strerror(-r.err));
		exit(2);
	}
}

/* ------------------------------------------------------------- state -- */

/* What must not change: settings, enabled devices, cached flows. */
struct state {
	char text[BUF_SIZE];
	int len;
};

static void state_add(struct state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void state_add(struct state *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (s->len < (int)sizeof(s->text))
		s->len += vsnprintf(s->text + s->len, sizeof(s->text) - s->len, fmt, ap);
	va_end(ap);
	if (s->len > (int)sizeof(s->text))
		s->len = sizeof(s->text);
}

static uint32_t nla_u32(const struct nlattr *nla)
{
	uint32_t v = 0;

	memcpy(&v, (const uint8_t *)nla + NLA_HDRLEN,
	       nla->nla_len - NLA_HDRLEN < 4 ? nla->nla_len - NLA_HDRLEN : 4);
	return v;
}

static void config_cb(const struct nlmsghdr *nlh, void *ctx)
{
	const struct nlattr *nla;
	int left;

	nla = attr_first(nlh, &left);
	for_each_attr(nla, left)
		state_add(ctx, "config %u=%u\n", nla->nla_type, nla_u32(nla));
}

static void dev_cb(const struct nlmsghdr *nlh, void *ctx)
{
	const struct nlattr *nla, *in;
	int left, l2;

	nla = attr_first(nlh, &left);
	for_each_attr(nla, left) {
		uint16_t t = nla->nla_type & NLA_TYPE_MASK;

		if (t == FASTTRACK_A_IFINDEX)
			state_add(ctx, "dev %u", nla_u32(nla));
		if (t != FASTTRACK_A_DEV_IPV4 && t != FASTTRACK_A_DEV_IPV6)
			continue;
		in = (const void *)((const uint8_t *)nla + NLA_HDRLEN);
		l2 = nla->nla_len - NLA_HDRLEN;
		for_each_attr(in, l2)
			if (in->nla_type == FASTTRACK_A_DEVFAM_ENABLED)
				state_add(ctx, " %s=%u", t == FASTTRACK_A_DEV_IPV4 ?
					  "ipv4" : "ipv6",
					  *((const uint8_t *)in + NLA_HDRLEN));
	}
	state_add(ctx, "\n");
}

static void flow_cb(const struct nlmsghdr *nlh, void *ctx)
{
	const struct nlattr *nla, *in;
	int left, l2;

	nla = attr_first(nlh, &left);
	for_each_attr(nla, left) {
		if ((nla->nla_type & NLA_TYPE_MASK) != FASTTRACK_A_FLOW)
			continue;
		in = (const void *)((const uint8_t *)nla + NLA_HDRLEN);
		l2 = nla->nla_len - NLA_HDRLEN;
		for_each_attr(in, l2)
			if (in->nla_type == FASTTRACK_A_FLOW_ID)
				state_add(ctx, "flow %u\n", nla_u32(in));
	}
}

static void read_state(struct state *s)
{
	struct reply r = { .ctx = s };

	s->len = 0;
	r.cb = config_cb;
	request(FASTTRACK_CMD_CONFIG_GET, 0, NULL, GENL_HDRLEN, 1, 0, &r);
	r.cb = dev_cb;
	request(FASTTRACK_CMD_DEV_GET, NLM_F_DUMP, NULL, GENL_HDRLEN, 1, 0, &r);
	r.cb = flow_cb;
	request(FASTTRACK_CMD_FLOW_GET, NLM_F_DUMP, NULL, GENL_HDRLEN, 1, 0, &r);
}

static uint32_t config_val(const struct state *s, int attr)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), "config %d=", attr);
	p = strstr(s->text, key);
	return p ? strtoul(p + strlen(key), NULL, 10) : 0;
}

/* ---------------------------------------------------------- checking -- */

struct cmd_info {
	const char *name;
	bool doit, dump, admin;
};

static const struct cmd_info cmds[FASTTRACK_CMD_MAX + 1] = {
	[FASTTRACK_CMD_DEV_ENABLE]	= { "DEV_ENABLE", true, false, true },
	[FASTTRACK_CMD_DEV_DISABLE]	= { "DEV_DISABLE", true, false, true },
	[FASTTRACK_CMD_DEV_GET]		= { "DEV_GET", true, true, false },
	[FASTTRACK_CMD_STATS_GET]	= { "STATS_GET", true, true, false },
	[FASTTRACK_CMD_CONFIG_GET]	= { "CONFIG_GET", true, false, false },
	[FASTTRACK_CMD_CONFIG_SET]	= { "CONFIG_SET", true, false, true },
	[FASTTRACK_CMD_FLOW_GET]	= { "FLOW_GET", false, true, false },
	[FASTTRACK_CMD_FLUSH]		= { "FLUSH", true, false, true },
	[FASTTRACK_CMD_RULE_ADD]	= { "RULE_ADD", true, false, true },
	[FASTTRACK_CMD_RULE_DEL]	= { "RULE_DEL", true, false, true },
	[FASTTRACK_CMD_RULE_GET]	= { "RULE_GET", false, true, false },
};

static const char *cmd_name(uint8_t cmd)
{
	static char buf[16];

	if (cmd <= FASTTRACK_CMD_MAX && cmds[cmd].name)
		return cmds[cmd].name;
	snprintf(buf, sizeof(buf), "cmd%u", cmd);
	return buf;
}

/* Distinct rejections, counted: "CMD errno: extack". */
#define KINDS_MAX 512
static struct kind {
	char key[320];
	unsigned int n;
} kinds[KINDS_MAX];
static int nkinds;

static void count_kind(uint8_t cmd, bool dump, const struct reply *r)
{
	char key[320];
	int i;

	bool known = cmd <= FASTTRACK_CMD_MAX && cmds[cmd].name;

	snprintf(key, sizeof(key), "%s%s %s: %s", known ? cmd_name(cmd) : "unknown commands",
		 dump ? " dump" : "", strerrorname_np(-r->err) ?: "?",
		 r->msg[0] ? r->msg : "(no extack message)");
	for (i = 0; i < nkinds; i++)
		if (!strcmp(kinds[i].key, key)) {
			kinds[i].n++;
			return;
		}
	if (nkinds < KINDS_MAX) {
		snprintf(kinds[nkinds].key, sizeof(kinds[nkinds].key), "%s", key);
		kinds[nkinds++].n = 1;
	}
}

enum expect { MUST_FAIL, MAY_PASS };

/* Linux 6.1 and later check the genl reserved field (resv_start_op). */
static bool kernel_checks_reserved(void)
{
	unsigned int major = 0, minor = 0;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 1);
}

/*
 * Send a request that must be rejected (or, MAY_PASS, a well-formed one
 * whose acceptance is only reported) and judge the answer.
 */
static void try(enum expect ex, const char *what, uint8_t cmd, bool dump,
		const struct attrs *a, int hdrlen, uint16_t reserved)
{
	bool known = cmd <= FASTTRACK_CMD_MAX && cmds[cmd].name;
	struct reply r = { 0 };

	request(cmd, dump ? NLM_F_DUMP : 0, a, hdrlen, FASTTRACK_GENL_VERSION,
		reserved, &r);
	if (verbose)
		printf("  %-11s %-5s %-44s -> %s%s%s\n", cmd_name(cmd), dump ? "dump" : "doit",
		       what, r.err ? strerrorname_np(-r.err) : "accepted",
		       r.msg[0] ? ": " : "", r.msg);
	if (!r.err) {
		if (ex == MAY_PASS) {
			printf("lenient: %s%s accepts %s\n", cmd_name(cmd),
			       dump ? " dump" : "", what);
			return;
		}
		printf("FAIL: %s%s accepted %s\n", cmd_name(cmd), dump ? " dump" : "", what);
		failures++;
		return;
	}
	count_kind(cmd, dump, &r);
	/* Without CAP_NET_ADMIN, the permission check must come first. */
	if (!is_admin && known && cmds[cmd].admin && hdrlen == GENL_HDRLEN &&
	    (dump ? cmds[cmd].dump : cmds[cmd].doit) && r.err != -EPERM) {
		printf("FAIL: %s %s: %s instead of EPERM for an unprivileged user\n",
		       cmd_name(cmd), what, strerrorname_np(-r.err) ?: "?");
		failures++;
	}
}

/* Both ways in which a known command can be called, or the one it has. */
static void try_cmd(enum expect ex, const char *what, uint8_t cmd,
		    const struct attrs *a)
{
	if (cmds[cmd].doit)
		try(ex, what, cmd, false, a, GENL_HDRLEN, 0);
	if (cmds[cmd].dump)
		try(ex, what, cmd, true, a, GENL_HDRLEN, 0);
}

/* ----------------------------------------------------------- garbage -- */

static const uint16_t u32_attrs[] = {
	FASTTRACK_A_IFINDEX, FASTTRACK_A_FAMILIES, FASTTRACK_A_CFG_MAX_FLOWS,
	FASTTRACK_A_CFG_TCP_TIMEOUT, FASTTRACK_A_CFG_UDP_TIMEOUT,
	FASTTRACK_A_CFG_SKIP_MARK, FASTTRACK_A_CFG_SKIP_MASK,
};
static const uint16_t reject_attrs[] = {
	FASTTRACK_A_DEV_IPV4, FASTTRACK_A_DEV_IPV6, FASTTRACK_A_STATS,
	FASTTRACK_A_STATS_CPU, FASTTRACK_A_FLOW,
};
#define N(x) (sizeof(x) / sizeof((x)[0]))

/* Definite defects at the policy level: each makes any request invalid. */
static void policy_defect(struct attrs *a, int kind, char *what, size_t wlen)
{
	uint8_t junk[64];
	struct attrs in = { .len = 0 };
	struct nlattr nla;
	uint16_t t;
	int i, len;

	for (i = 0; i < (int)sizeof(junk); i++)
		junk[i] = rnd();
	switch (kind) {
	case 0:		/* unknown type */
		t = (uint16_t[]){ FASTTRACK_A_UNSPEC, FASTTRACK_A_PAD,
				  FASTTRACK_A_MAX + 1, FASTTRACK_A_MAX + 7, 0x3fff }
			[rnd_below(5)];
		put_u32(a, t, rnd());
		snprintf(what, wlen, "unknown attribute %u", t);
		break;
	case 1:		/* a reply-only attribute */
		t = reject_attrs[rnd_below(N(reject_attrs))];
		if (rnd() & 1) {
			put_u32(&in, rnd_below(8), rnd());
			put_nest(a, t, &in);
		} else {
			put_u32(a, t, rnd());
		}
		snprintf(what, wlen, "reply-only attribute %u", t);
		break;
	case 2:		/* a u32 of the wrong length */
		t = u32_attrs[rnd_below(N(u32_attrs))];
		len = (int[]){ 0, 1, 2, 3, 5, 6, 8, 16 }[rnd_below(8)];
		put_attr(a, t, junk, len);
		snprintf(what, wlen, "attribute %u (u32) of %d bytes", t, len);
		break;
	case 3:		/* a flag with a payload */
		len = 1 + rnd_below(8);
		put_attr(a, FASTTRACK_A_STATS_PERCPU, junk, len);
		snprintf(what, wlen, "flag STATS_PERCPU with %d bytes", len);
		break;
	case 4:		/* a name without its NUL, or too long */
		len = (int[]){ 0, 1, 15, 16, 17, 40 }[rnd_below(6)];
		memset(junk, 'x', len);
		put_attr(a, FASTTRACK_A_IFNAME, junk, len);
		snprintf(what, wlen, "IFNAME of %d bytes without NUL", len);
		break;
	case 5:		/* a nest flag on a plain attribute */
		t = u32_attrs[rnd_below(N(u32_attrs))];
		put_u32(&in, 1 + rnd_below(4), rnd());
		put_attr(a, t | NLA_F_NESTED, in.b, in.len);
		snprintf(what, wlen, "attribute %u with NLA_F_NESTED", t);
		break;
	case 6:		/* an attribute longer than the message */
		nla.nla_len = NLA_HDRLEN + 8 + rnd_below(200);
		nla.nla_type = u32_attrs[rnd_below(N(u32_attrs))];
		put_raw(a, &nla, sizeof(nla));
		put_raw(a, junk, 4);
		snprintf(what, wlen, "attribute %u with nla_len %u past the end",
			 nla.nla_type, nla.nla_len);
		break;
	case 7:		/* nla_len below the header */
		nla.nla_len = rnd_below(NLA_HDRLEN);
		nla.nla_type = u32_attrs[rnd_below(N(u32_attrs))];
		put_raw(a, &nla, sizeof(nla));
		put_raw(a, junk, 4);
		snprintf(what, wlen, "attribute with nla_len %u", nla.nla_len);
		break;
	default:	/* trailing bytes that are not an attribute */
		len = 1 + rnd_below(3);
		put_raw(a, junk, len);
		snprintf(what, wlen, "%d trailing bytes", len);
		break;
	}
}
#define POLICY_DEFECTS 9

/* A random, possibly valid, attribute. */
static void random_attr(struct attrs *a)
{
	static const uint32_t vals[] = { 0, 1, 2, 3, 4, 0x7fffffff, 0x80000000,
		0xffffffff, FASTTRACK_MAX_FLOWS_LIMIT + 1, FASTTRACK_TIMEOUT_LIMIT + 1 };
	uint8_t junk[80];
	uint16_t t = rnd() & 1 ? rnd_below(FASTTRACK_A_MAX + 3) : rnd() & 0x7fff;
	int len, i;

	for (i = 0; i < (int)sizeof(junk); i++)
		junk[i] = rnd();
	if (rnd_below(8) == 0)
		t |= rnd() & 1 ? NLA_F_NESTED : NLA_F_NET_BYTEORDER;
	switch (rnd_below(4)) {
	case 0:
		put_u32(a, t, vals[rnd_below(N(vals))]);
		break;
	case 1:
		put_u32(a, t, rnd());
		break;
	case 2:
		len = rnd_below(sizeof(junk));
		put_attr(a, t, junk, len);
		break;
	default: {
		struct attrs in = { .len = 0 };

		for (i = rnd_below(4); i >= 0; i--)
			put_u32(&in, rnd_below(30), rnd());
		put_nest(a, t, &in);
	}
	}
}

/* A request with random attributes and one definite defect among them. */
static void random_request(int i)
{
	struct attrs a = { .len = 0 };
	char what[160], defect[120];
	int n = rnd_below(6), at = rnd_below(n + 1), k;
	uint8_t cmd;
	bool dump;

	for (k = 0; k <= n; k++) {
		if (k == at)
			policy_defect(&a, rnd_below(POLICY_DEFECTS), defect, sizeof(defect));
		else
			random_attr(&a);
	}
	cmd = rnd_below(4) ? 1 + rnd_below(FASTTRACK_CMD_MAX) : rnd();
	dump = rnd() & 1;
	snprintf(what, sizeof(what), "random #%d (%s)", i, defect);
	try(MUST_FAIL, what, cmd, dump, &a, GENL_HDRLEN, 0);
}

/* Every command number, known or not, both ways, with a defect or none. */
static void garbage_commands(void)
{
	char what[160];
	int cmd, k;

	for (cmd = 0; cmd < 256; cmd++) {
		bool known = cmd <= FASTTRACK_CMD_MAX && cmds[cmd].name;

		if (!known) {
			try(MUST_FAIL, "an unknown command", cmd, false, NULL, GENL_HDRLEN, 0);
			try(MUST_FAIL, "an unknown command", cmd, true, NULL, GENL_HDRLEN, 0);
			continue;
		}
		if (!cmds[cmd].doit)
			try(MUST_FAIL, "doit of a dump-only command", cmd, false, NULL, GENL_HDRLEN, 0);
		if (!cmds[cmd].dump)
			try(MUST_FAIL, "dump of a doit-only command", cmd, true, NULL, GENL_HDRLEN, 0);
		/* A header cut short. */
		try(MUST_FAIL, "a genl header of 2 bytes", cmd, false, NULL, 2, 0);
		/* Each policy defect, alone. */
		for (k = 0; k < POLICY_DEFECTS; k++) {
			struct attrs a = { .len = 0 };

			policy_defect(&a, k, what, sizeof(what));
			try_cmd(MUST_FAIL, what, cmd, &a);
		}
		/* Well-formed, but the reserved header bytes are not zero. */
		if (!cmds[cmd].admin && cmds[cmd].doit && cmd != FASTTRACK_CMD_DEV_GET)
			try(kernel_checks_reserved() ? MUST_FAIL : MAY_PASS,
			    "a non-zero genl reserved field", cmd, false,
			    NULL, GENL_HDRLEN, 0xffff);
	}
}

/* The attributes each command takes: the request lists of the YNL spec. */
static bool takes(uint8_t cmd, bool dump, uint16_t type)
{
	bool dev = type == FASTTRACK_A_IFINDEX || type == FASTTRACK_A_IFNAME;

	switch (cmd) {
	case FASTTRACK_CMD_DEV_ENABLE:
	case FASTTRACK_CMD_DEV_DISABLE:
		return dev || type == FASTTRACK_A_FAMILIES;
	case FASTTRACK_CMD_FLOW_GET:
	case FASTTRACK_CMD_FLUSH:
		return dev || type == FASTTRACK_A_FAMILIES || type == FASTTRACK_A_MATCH;
	case FASTTRACK_CMD_RULE_ADD:
	case FASTTRACK_CMD_RULE_DEL:
		return type == FASTTRACK_A_IFNAME || type == FASTTRACK_A_FAMILIES;
	case FASTTRACK_CMD_DEV_GET:
		return !dump && dev;
	case FASTTRACK_CMD_STATS_GET:
		return !dump && type == FASTTRACK_A_STATS_PERCPU;
	case FASTTRACK_CMD_CONFIG_SET:
		return type >= FASTTRACK_A_CFG_MAX_FLOWS &&
		       type <= FASTTRACK_A_CFG_SKIP_MASK;
	}
	return false;
}

/*
 * Each command, both ways, with a well-formed attribute it does not take
 * next to a request it would accept (naming @dev where it needs one).
 */
static void garbage_foreign_attrs(const char *dev)
{
	char what[96];
	uint16_t type;
	int cmd, way;

	for (cmd = 1; cmd <= FASTTRACK_CMD_MAX; cmd++) {
		for (way = 0; cmds[cmd].name && way < 2; way++) {
			bool dump = way, named = takes(cmd, dump, FASTTRACK_A_IFNAME);

			if (!(dump ? cmds[cmd].dump : cmds[cmd].doit) || (named && !dev))
				continue;
			for (type = FASTTRACK_A_PAD; type <= FASTTRACK_A_MAX + 1; type++) {
				struct attrs a = { .len = 0 };

				if (takes(cmd, dump, type))
					continue;
				if (named)
					put_str(&a, FASTTRACK_A_IFNAME, dev);
				put_u32(&a, type, 1);
				snprintf(what, sizeof(what), "attribute %u, which it does not take",
					 type);
				try(MUST_FAIL, what, cmd, dump, &a, GENL_HDRLEN, 0);
			}
		}
	}
}

/* Connection matches with addresses of no family, or of two. */
static void garbage_match(uint8_t cmd, bool dump)
{
	static const uint8_t addr[16] = { 198, 18, 22, 2 };
	static const int bad_len[] = { 0, 1, 3, 5, 8, 15, 17 };
	struct attrs m, a;
	char what[96];
	unsigned int i;

	for (i = 0; i < N(bad_len); i++) {
		m.len = 0;
		put_attr(&m, i & 1 ? FASTTRACK_A_FLOW_DST : FASTTRACK_A_FLOW_SRC,
			 addr, bad_len[i]);
		a.len = 0;
		put_nest(&a, FASTTRACK_A_MATCH, &m);
		snprintf(what, sizeof(what), "MATCH with a %d-byte address", bad_len[i]);
		try(MUST_FAIL, what, cmd, dump, &a, GENL_HDRLEN, 0);
	}
	m.len = 0;
	put_attr(&m, FASTTRACK_A_FLOW_SRC, addr, 4);
	put_attr(&m, FASTTRACK_A_FLOW_DST, addr, 16);
	a.len = 0;
	put_nest(&a, FASTTRACK_A_MATCH, &m);
	try(MUST_FAIL, "MATCH with an IPv4 source and an IPv6 destination", cmd, dump,
	    &a, GENL_HDRLEN, 0);
	m.len = 0;
	put_u32(&m, FASTTRACK_A_FLOW_ID, 1);
	a.len = 0;
	put_nest(&a, FASTTRACK_A_MATCH, &m);
	try(MUST_FAIL, "MATCH with an id, which it does not take", cmd, dump, &a,
	    GENL_HDRLEN, 0);
}

/* Values that are well-formed but wrong, against the commands using them. */
static void garbage_values(const char *dev, const struct state *st)
{
	static const uint32_t bad_fams[] = { 0, 4, 0x100, 0x101, 0x80000000, 0xffffffff };
	static const uint32_t bad_ifindex[] = { 0, 0x7fffffff, 0x80000000, 0xffffffff, 999999 };
	static const uint8_t dev_cmds[] = { FASTTRACK_CMD_DEV_ENABLE,
		FASTTRACK_CMD_DEV_DISABLE, FASTTRACK_CMD_DEV_GET };
	static const uint8_t filter_cmds[] = { FASTTRACK_CMD_FLUSH, FASTTRACK_CMD_FLOW_GET };
	uint32_t dev_index = dev ? if_nametoindex(dev) : 0;
	char what[160], name[IF_NAMESIZE];
	unsigned int i, j;

	for (i = 0; i < N(dev_cmds); i++) {
		uint8_t c = dev_cmds[i];
		struct attrs a = { .len = 0 };

		try(MUST_FAIL, "no device", c, false, NULL, GENL_HDRLEN, 0);
		for (j = 0; j < N(bad_ifindex); j++) {
			if (bad_ifindex[j] && if_indextoname(bad_ifindex[j], name))
				continue;
			a.len = 0;
			put_u32(&a, FASTTRACK_A_IFINDEX, bad_ifindex[j]);
			snprintf(what, sizeof(what), "IFINDEX %u (no such device)", bad_ifindex[j]);
			try(MUST_FAIL, what, c, false, &a, GENL_HDRLEN, 0);
			if (!dev)
				continue;
			put_str(&a, FASTTRACK_A_IFNAME, dev);
			snprintf(what, sizeof(what), "IFINDEX %u (no such device) with IFNAME %s",
				 bad_ifindex[j], dev);
			try(MUST_FAIL, what, c, false, &a, GENL_HDRLEN, 0);
		}
		a.len = 0;
		put_str(&a, FASTTRACK_A_IFNAME, "");
		try(MUST_FAIL, "IFNAME \"\"", c, false, &a, GENL_HDRLEN, 0);
		a.len = 0;
		put_str(&a, FASTTRACK_A_IFNAME, "nosuchdev0");
		try(MUST_FAIL, "IFNAME nosuchdev0", c, false, &a, GENL_HDRLEN, 0);
		a.len = 0;
		put_str(&a, FASTTRACK_A_IFNAME, "lo");
		try(MUST_FAIL, "IFNAME lo (loopback)", c, false, &a, GENL_HDRLEN, 0);
		if (!dev)
			continue;
		a.len = 0;
		put_u32(&a, FASTTRACK_A_IFINDEX, dev_index);
		put_str(&a, FASTTRACK_A_IFNAME, "lo");
		snprintf(what, sizeof(what), "IFINDEX of %s with IFNAME lo", dev);
		try(MUST_FAIL, what, c, false, &a, GENL_HDRLEN, 0);
		if (c == FASTTRACK_CMD_DEV_GET)
			continue;
		for (j = 0; j < N(bad_fams); j++) {
			a.len = 0;
			put_str(&a, FASTTRACK_A_IFNAME, dev);
			put_u32(&a, FASTTRACK_A_FAMILIES, bad_fams[j]);
			snprintf(what, sizeof(what), "FAMILIES %#x", bad_fams[j]);
			try(MUST_FAIL, what, c, false, &a, GENL_HDRLEN, 0);
		}
	}

	for (i = 0; i < N(filter_cmds); i++) {
		uint8_t c = filter_cmds[i];
		bool dump = c == FASTTRACK_CMD_FLOW_GET;
		struct attrs a = { .len = 0 };

		for (j = 0; j < N(bad_fams); j++) {
			a.len = 0;
			put_u32(&a, FASTTRACK_A_FAMILIES, bad_fams[j]);
			snprintf(what, sizeof(what), "FAMILIES %#x", bad_fams[j]);
			try(MUST_FAIL, what, c, dump, &a, GENL_HDRLEN, 0);
		}
		a.len = 0;
		put_str(&a, FASTTRACK_A_IFNAME, "nosuchdev0");
		try(MUST_FAIL, "IFNAME nosuchdev0", c, dump, &a, GENL_HDRLEN, 0);
		a.len = 0;
		put_str(&a, FASTTRACK_A_IFNAME, "");
		try(MUST_FAIL, "IFNAME \"\"", c, dump, &a, GENL_HDRLEN, 0);
		garbage_match(c, dump);
		/*
		 * A filter on a device that does not exist: IFNAME is refused
		 * with ENODEV, so IFINDEX must be too. IFINDEX 0 would be "no
		 * filter": a flush of everything.
		 */
		for (j = 0; j < N(bad_ifindex); j++) {
			if (bad_ifindex[j] && if_indextoname(bad_ifindex[j], name))
				continue;
			a.len = 0;
			put_u32(&a, FASTTRACK_A_IFINDEX, bad_ifindex[j]);
			snprintf(what, sizeof(what), "IFINDEX %u (no such device)", bad_ifindex[j]);
			try(dump ? MAY_PASS : MUST_FAIL, what, c, dump, &a, GENL_HDRLEN, 0);
		}
		if (!dev)
			continue;
		a.len = 0;
		put_u32(&a, FASTTRACK_A_IFINDEX, 999999);
		put_str(&a, FASTTRACK_A_IFNAME, dev);
		snprintf(what, sizeof(what), "IFINDEX 999999 (no such device) with IFNAME %s", dev);
		try(dump ? MAY_PASS : MUST_FAIL, what, c, dump, &a, GENL_HDRLEN, 0);
	}

	/* Settings: each out of range, alone and next to a valid change. */
	{
		static const uint16_t ranged[] = { FASTTRACK_A_CFG_MAX_FLOWS,
			FASTTRACK_A_CFG_TCP_TIMEOUT, FASTTRACK_A_CFG_UDP_TIMEOUT };
		static const uint32_t limits[] = { FASTTRACK_MAX_FLOWS_LIMIT,
			FASTTRACK_TIMEOUT_LIMIT, FASTTRACK_TIMEOUT_LIMIT };
		uint8_t c = FASTTRACK_CMD_CONFIG_SET;
		struct attrs a;

		for (i = 0; i < N(ranged); i++) {
			const uint32_t bad[] = { 0, limits[i] + 1, 0x7fffffff, 0x80000000, 0xffffffff };
			uint16_t other = ranged[(i + 1) % N(ranged)];
			uint32_t cur = config_val(st, other);
			uint32_t valid = cur > 1 ? cur - 1 : cur + 1;

			for (j = 0; j < N(bad); j++) {
				a.len = 0;
				put_u32(&a, ranged[i], bad[j]);
				snprintf(what, sizeof(what), "attribute %u = %u", ranged[i], bad[j]);
				try(MUST_FAIL, what, c, false, &a, GENL_HDRLEN, 0);
				put_u32(&a, other, valid);
				snprintf(what, sizeof(what), "attribute %u = %u with %u = %u (valid)",
					 ranged[i], bad[j], other, valid);
				try(MUST_FAIL, what, c, false, &a, GENL_HDRLEN, 0);
			}
		}
		{
			const uint32_t pairs[][2] = { { 0xffffffff, 0 }, { 1, 2 },
				{ 0x80000000, 0x7fffffff }, { 0x100, 0xff } };

			for (j = 0; j < N(pairs); j++) {
				a.len = 0;
				put_u32(&a, FASTTRACK_A_CFG_SKIP_MARK, pairs[j][0]);
				put_u32(&a, FASTTRACK_A_CFG_SKIP_MASK, pairs[j][1]);
				put_u32(&a, FASTTRACK_A_CFG_TCP_TIMEOUT,
					config_val(st, FASTTRACK_A_CFG_TCP_TIMEOUT) + 1);
				snprintf(what, sizeof(what),
					 "SKIP_MARK %#x outside SKIP_MASK %#x, with a valid TCP_TIMEOUT",
					 pairs[j][0], pairs[j][1]);
				try(MUST_FAIL, what, c, false, &a, GENL_HDRLEN, 0);
			}
		}
		if (config_val(st, FASTTRACK_A_CFG_SKIP_MASK) != 0xffffffff) {
			a.len = 0;
			put_u32(&a, FASTTRACK_A_CFG_SKIP_MARK,
				~config_val(st, FASTTRACK_A_CFG_SKIP_MASK));
			try(MUST_FAIL, "SKIP_MARK outside the current SKIP_MASK", c, false,
			    &a, GENL_HDRLEN, 0);
		}
	}

	/* Well-formed attributes a command has no use for. */
	for (i = FASTTRACK_CMD_STATS_GET; i <= FASTTRACK_CMD_CONFIG_GET; i++) {
		struct attrs a = { .len = 0 };

		put_u32(&a, FASTTRACK_A_IFINDEX, 1);
		try(MAY_PASS, "an IFINDEX it does not use", i, false, &a, GENL_HDRLEN, 0);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", 1, NULL, 's' }, { "random", 1, NULL, 'r' },
		{ "dev", 1, NULL, 'd' }, { "verbose", 0, NULL, 'v' },
		{ "help", 0, NULL, 'h' }, { NULL }
	};
	unsigned long long seed = 0;
	struct state before, after;
	const char *dev = NULL;
	bool have_seed = false;
	long nrandom = 2000;
	int one = 1, o, i;
	struct timeval tv = { .tv_sec = 10 };

	while ((o = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (o) {
		case 's': seed = strtoull(optarg, NULL, 0); have_seed = true; break;
		case 'r': nrandom = strtol(optarg, NULL, 0); break;
		case 'd': dev = optarg; break;
		case 'v': verbose = true; break;
		case 'h':
			puts("usage: nlgarbage [--seed N] [--random N] [--dev NAME] [-v]");
			return 0;
		default:
			return 2;
		}
	}
	if (dev && !if_nametoindex(dev)) {
		fprintf(stderr, "nlgarbage: no device %s\n", dev);
		return 2;
	}
	if (!have_seed)
		seed = (unsigned long long)time(NULL) << 16 ^ getpid();
	rng_state = seed;
	is_admin = geteuid() == 0;	/* as the selftests run it: root or nobody */
	printf("nlgarbage: seed %llu (reproduce: nlgarbage --seed %llu --random %ld%s%s), uid %u\n",
	       seed, seed, nrandom, dev ? " --dev " : "", dev ?: "", geteuid());

	sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (sock < 0) {
		perror("nlgarbage: netlink socket");
		return 2;
	}
	setsockopt(sock, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(sock, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	resolve_family();

	read_state(&before);
	garbage_commands();
	garbage_foreign_attrs(dev);
	garbage_values(dev, &before);
	for (i = 0; i < nrandom; i++)
		random_request(i);
	read_state(&after);

	for (i = 0; i < nkinds; i++)
		printf("rejected %5u x %s\n", kinds[i].n, kinds[i].key);
	if (before.len != after.len || memcmp(before.text, after.text, before.len)) {
		printf("FAIL: state changed.\nbefore:\n%.*safter:\n%.*s",
		       before.len, before.text, after.len, after.text);
		failures++;
	}
	printf("nlgarbage: %u requests, %u accepted wrongly or state changed; seed %llu\n",
	       sent, failures, seed);
	return failures ? 1 : 0;
}
