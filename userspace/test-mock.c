// SPDX-License-Identifier: GPL-2.0
/*
 * A fake fasttrack kernel for ftctl tests, loaded with LD_PRELOAD.
 *
 * It takes over AF_NETLINK/NETLINK_GENERIC sockets and answers from canned
 * data, so that the whole of ftctl (requests, dumps, acks, extack, output)
 * runs without the module. Replies use what a real kernel may send: u64
 * counters after pad attributes, attribute types ftctl does not know, a
 * dump spread over several reads, NLMSG_DONE, capped acks with extack.
 *
 * Environment:
 *   FTMOCK_NOFAMILY=1  the family is not registered (ENOENT)
 *   FTMOCK_EPERM=1     the caller lacks CAP_NET_ADMIN: admin commands,
 *                      the flow dump and joining the events group fail
 *                      with EPERM; device, stats and config reads work
 *   FTMOCK_INTR=N      flag the first N dumps NLM_F_DUMP_INTR
 *   FTMOCK_EMPTY=1     no device is enabled, no flow is cached
 *   FTMOCK_FLOWS=N     the flow dump lists N generated flows instead of
 *                      the canned ones, a datagram at a time
 *   FTMOCK_OLD=1       a module from before flows, flush, events and
 *                      per-CPU statistics
 *   FTMOCK_TICK=1      every device dump and stats read counts more:
 *                      device counters grow by 1000 packets and 100000
 *                      bytes per family and dump, punts (no-entry) by 7
 *   FTMOCK_MODVER=V    /sys/module/fasttrack/version reads V (fopen is
 *                      taken over for that path; unset: not loaded)
 *   FTMOCK_NO_NOLEARN=1  a module from before the ruleset-changed,
 *                      not-forwarding, port and not-learned counters: its
 *                      last counter is FASTTRACK_A_STAT_FLUSHED
 *   FTMOCK_NO_RULES=1  a module from before name rules (RULE_ADD, RULE_DEL)
 *   FTMOCK_RULES=1     the module keeps the rules eth0 and vlan* (IPv6)
 *   FTMOCK_NO_MATCH=1  a module from before FASTTRACK_A_MATCH (flush)
 *   FTMOCK_XDP=1       a module with the XDP tier: devices report what
 *                      it would bypass and its per-family counters, the
 *                      stats its xdp-bypassed counter (without: a module
 *                      from before the tier)
 *   FTMOCK_NO_STATS_DUMP=1  a module from before the per-CPU stats dump
 *                      (implied by the two above): per-CPU counters only
 *                      with FASTTRACK_A_STATS_PERCPU
 * Every request's attributes are traced on stderr as "mock: ...".
 *
 * After NETLINK_ADD_MEMBERSHIP, reads return canned flow events, one
 * overrun (ENOBUFS) among them; when they are used up, the mock raises
 * SIGTERM, which must end "ftctl monitor" cleanly.
 *
 * Interface indexes 102-105 are the mock's own devices vlan22, vlan2222,
 * eth1 and eth2 (if_indextoname and rtnetlink's RTM_GETLINK by name are
 * taken over for them); index 199 is a device that is gone.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include <linux/fasttrack.h>

#define MOCK_FAMILY	0x2a
#define MOCK_PORTID	4242
#define MAX_REPLIES	16
#define REPLY_SIZE	8192

static int mock_fd = -1;
static int mock_peer = -1;
static int intr_left = -1;
static bool events_on;
static uint64_t dev_dumps, stats_reads;	/* FTMOCK_TICK */
static unsigned int next_event;

/* The flow dump being generated, a datagram per read. */
static struct {
	bool active;
	struct nlmsghdr req;
	unsigned long next, total;	/* generated flows */
	unsigned int canned;		/* next canned flow */
	uint32_t families;
	uint32_t iif;			/* 0: any */
	uint16_t intr;
} dump;

static struct {
	char buf[REPLY_SIZE];
	size_t len;
} replies[MAX_REPLIES];
static int nreplies, next_reply;

static bool env(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

static void trace(const char *fmt, ...)
{
	va_list ap;

	fputs("mock: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A new datagram; later messages go into it. */
static char *new_reply(void)
{
	if (nreplies == MAX_REPLIES)
		abort();
	replies[nreplies].len = 0;
	return replies[nreplies++].buf;
}

static struct nlmsghdr *put_msg(const struct nlmsghdr *req, uint16_t type,
				uint16_t flags, uint8_t cmd)
{
	char *buf = replies[nreplies - 1].buf + replies[nreplies - 1].len;
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_pid = MOCK_PORTID;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = FASTTRACK_GENL_VERSION;
	return nlh;
}

static void end_msg(struct nlmsghdr *nlh)
{
	replies[nreplies - 1].len += NLMSG_ALIGN(nlh->nlmsg_len);
}

/*
 * An ack (error 0) or error, capped, with extack message and offset, and
 * the policy range of the bad attribute when @max is not 0.
 */
static void put_ack_range(const struct nlmsghdr *req, int error,
			  const char *msg, const struct nlattr *bad,
			  uint64_t min, uint64_t max)
{
	char *buf = replies[nreplies - 1].buf + replies[nreplies - 1].len;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *err;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED;
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_pid = MOCK_PORTID;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	err->error = error;
	err->msg = *req;
	if (msg || bad)
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	if (msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	if (bad)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS,
				 (uint32_t)((const char *)bad - (const char *)req));
	if (max) {
		struct nlattr *nest;

		nest = mnl_attr_nest_start(nlh, NLMSGERR_ATTR_POLICY);
		mnl_attr_put_u32(nlh, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U32);
		mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MIN_VALUE_U, min);
		mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, max);
		mnl_attr_nest_end(nlh, nest);
	}
	end_msg(nlh);
}

static void put_ack(const struct nlmsghdr *req, int error, const char *msg,
		    const struct nlattr *bad)
{
	put_ack_range(req, error, msg, bad, 0, 0);
}

static void put_done(const struct nlmsghdr *req, uint16_t flags)
{
	char *buf = replies[nreplies - 1].buf + replies[nreplies - 1].len;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	int *error;

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI | flags;
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_pid = MOCK_PORTID;
	error = mnl_nlmsg_put_extra_header(nlh, sizeof(*error));
	*error = 0;
	end_msg(nlh);
}

/* A u64 the way nla_put_u64_64bit() may lay it out: a pad first. */
static void put_u64_padded(struct nlmsghdr *nlh, uint16_t type, uint64_t v,
			   uint16_t pad)
{
	if (!(nlh->nlmsg_len % 8))
		mnl_attr_put(nlh, pad, 0, NULL);
	mnl_attr_put_u64(nlh, type, v);
}

struct mock_dev {
	uint32_t ifindex;
	const char *ifname;
	uint32_t families;
	uint64_t pkts[2], bytes[2];
};

static const struct mock_dev devs[] = {
	{ 7, "ifb1", FASTTRACK_F_IPV6, { 0, 42 }, { 0, 4200 } },
	{ 2, "eth0", FASTTRACK_F_IPV4 | FASTTRACK_F_IPV6,
	  { 123, 18446744073709551615ULL }, { 4567, 1 } },
	{ 5, "vlan\"22\\", FASTTRACK_F_IPV4, { 1, 0 }, { 100, 0 } },
};

static void put_dev(const struct nlmsghdr *req, uint16_t flags,
		    const struct mock_dev *d)
{
	struct nlmsghdr *nlh = put_msg(req, MOCK_FAMILY, flags,
				       FASTTRACK_CMD_DEV_GET);
	uint16_t fam_attr[2] = { FASTTRACK_A_DEV_IPV4, FASTTRACK_A_DEV_IPV6 };
	struct nlattr *nest;
	int i;

	mnl_attr_put_u32(nlh, FASTTRACK_A_IFINDEX, d->ifindex);
	mnl_attr_put_strz(nlh, FASTTRACK_A_IFNAME, d->ifname);
	mnl_attr_put_u32(nlh, FASTTRACK_A_MAX + 7, 0xdead);	/* newer kernel */
	/* vlan"22\ has a tcpdump and a shaper on it. */
	if (env("FTMOCK_XDP"))
		mnl_attr_put_u32(nlh, FASTTRACK_A_DEV_XDP_BLOCKED, d->ifindex == 5 ?
				 FASTTRACK_XDP_BLOCKED_TAP | FASTTRACK_XDP_BLOCKED_QDISC : 0);
	for (i = 0; i < 2; i++) {
		/* Leave out the IPv4 nest of ifb1: ftctl must cope. */
		if (d->ifindex == 7 && i == 0)
			continue;
		nest = mnl_attr_nest_start(nlh, fam_attr[i]);
		mnl_attr_put_u8(nlh, FASTTRACK_A_DEVFAM_ENABLED,
				!!(d->families & (1U << i)));
		put_u64_padded(nlh, FASTTRACK_A_DEVFAM_PACKETS,
			       d->pkts[i] + dev_dumps * 1000,
			       FASTTRACK_A_DEVFAM_PAD);
		put_u64_padded(nlh, FASTTRACK_A_DEVFAM_BYTES,
			       d->bytes[i] + dev_dumps * 100000,
			       FASTTRACK_A_DEVFAM_PAD);
		/* Of those, the XDP tier forwarded half. */
		if (env("FTMOCK_XDP")) {
			put_u64_padded(nlh, FASTTRACK_A_DEVFAM_XDP_PACKETS,
				       (d->pkts[i] + dev_dumps * 1000) / 2,
				       FASTTRACK_A_DEVFAM_PAD);
			put_u64_padded(nlh, FASTTRACK_A_DEVFAM_XDP_BYTES,
				       (d->bytes[i] + dev_dumps * 100000) / 2,
				       FASTTRACK_A_DEVFAM_PAD);
		}
		mnl_attr_put_u16(nlh, FASTTRACK_A_DEVFAM_MAX + 3, 1);
		mnl_attr_nest_end(nlh, nest);
	}
	end_msg(nlh);
}

struct req_attrs {
	const struct nlattr *tb[FASTTRACK_A_MAX + 1];
};

static int req_attr_cb(const struct nlattr *attr, void *data)
{
	struct req_attrs *r = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type > FASTTRACK_A_MAX) {
		trace("unknown attribute %u", type);
		return MNL_CB_OK;
	}
	r->tb[type] = attr;
	if (type == FASTTRACK_A_IFNAME)
		trace("IFNAME=%s", mnl_attr_get_str(attr));
	else if (!mnl_attr_get_payload_len(attr))
		trace("attr %u (flag)", type);
	else
		trace("attr %u=%u", type, mnl_attr_get_u32(attr));
	return MNL_CB_OK;
}

static void handle_ctrl(const struct nlmsghdr *req)
{
	const struct nlattr *attr;
	struct nlmsghdr *nlh;

	new_reply();
	mnl_attr_for_each(attr, req, GENL_HDRLEN) {
		if (mnl_attr_get_type(attr) != CTRL_ATTR_FAMILY_NAME)
			continue;
		trace("GETFAMILY %s", mnl_attr_get_str(attr));
		if (env("FTMOCK_NOFAMILY") ||
		    strcmp(mnl_attr_get_str(attr), FASTTRACK_GENL_NAME)) {
			put_ack(req, -ENOENT, NULL, NULL);
			return;
		}
	}
	nlh = put_msg(req, GENL_ID_CTRL, 0, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, FASTTRACK_GENL_NAME);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, MOCK_FAMILY);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, FASTTRACK_GENL_VERSION);
	if (!env("FTMOCK_OLD")) {
		struct nlattr *groups, *grp;

		groups = mnl_attr_nest_start(nlh, CTRL_ATTR_MCAST_GROUPS);
		grp = mnl_attr_nest_start(nlh, 1);
		mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME, "other");
		mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, 11);
		mnl_attr_nest_end(nlh, grp);
		grp = mnl_attr_nest_start(nlh, 2);
		mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME,
				  FASTTRACK_MCGRP_EVENTS);
		mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, 12);
		mnl_attr_nest_end(nlh, grp);
		mnl_attr_nest_end(nlh, groups);
	}
	end_msg(nlh);
	put_ack(req, 0, NULL, NULL);
}

/* NLM_F_DUMP_INTR for the first FTMOCK_INTR dumps, 0 after them. */
static uint16_t dump_intr(void)
{
	if (intr_left < 0)
		intr_left = getenv("FTMOCK_INTR") ? atoi(getenv("FTMOCK_INTR")) : 0;
	if (intr_left > 0) {
		intr_left--;
		return NLM_F_DUMP_INTR;
	}
	return 0;
}

static void handle_dev_get(const struct nlmsghdr *req, struct req_attrs *r)
{
	uint16_t intr = 0;
	unsigned int i;

	if (req->nlmsg_flags & NLM_F_DUMP) {
		intr = dump_intr();
		trace("DEV_GET dump%s", intr ? " (interrupted)" : "");
		if (env("FTMOCK_TICK"))
			dev_dumps++;
		if (env("FTMOCK_EMPTY")) {
			new_reply();
			put_done(req, intr);
			return;
		}
		/* One device per read, the way a big dump arrives. */
		for (i = 0; i < MNL_ARRAY_SIZE(devs); i++) {
			new_reply();
			put_dev(req, NLM_F_MULTI | (i ? intr : 0), &devs[i]);
		}
		put_done(req, intr);
		return;
	}

	trace("DEV_GET");
	new_reply();
	for (i = 0; i < MNL_ARRAY_SIZE(devs); i++) {
		if (r->tb[FASTTRACK_A_IFNAME] &&
		    !strcmp(mnl_attr_get_str(r->tb[FASTTRACK_A_IFNAME]),
			    devs[i].ifname)) {
			put_dev(req, 0, &devs[i]);
			put_ack(req, 0, NULL, NULL);
			return;
		}
	}
	put_ack(req, -ENOENT, "fasttrack: fasttrack is not enabled on this device",
		r->tb[FASTTRACK_A_IFNAME]);
}

/*
 * Name rules: ifb1 may be kept although no device has that name; only
 * eth0 and vlan* are rules to remove. A module from before rules does not
 * know the commands.
 */
static void handle_rule_change(const struct nlmsghdr *req, uint8_t cmd,
			       struct req_attrs *r)
{
	const char *name = r->tb[FASTTRACK_A_IFNAME] ?
			   mnl_attr_get_str(r->tb[FASTTRACK_A_IFNAME]) : "";

	trace("%s", cmd == FASTTRACK_CMD_RULE_ADD ? "RULE_ADD" : "RULE_DEL");
	new_reply();
	if (env("FTMOCK_EPERM"))
		put_ack(req, -EPERM, NULL, NULL);
	else if (cmd == FASTTRACK_CMD_RULE_ADD && !strcmp(name, "lo"))
		put_ack(req, -EOPNOTSUPP, "device is not Ethernet-like",
			r->tb[FASTTRACK_A_IFNAME]);
	else if (cmd == FASTTRACK_CMD_RULE_DEL && strcmp(name, "eth0") &&
		 strcmp(name, "vlan*"))
		put_ack(req, -ENOENT, "no such name or pattern is enabled",
			r->tb[FASTTRACK_A_IFNAME]);
	else
		put_ack(req, 0, NULL, NULL);
}

/* The rule dump: none, or with FTMOCK_RULES eth0 and vlan* (IPv6). */
static void handle_rule_get(const struct nlmsghdr *req)
{
	static const struct { const char *pattern; uint32_t families; } rules[] = {
		{ "eth0", FASTTRACK_F_IPV4 | FASTTRACK_F_IPV6 },
		{ "vlan*", FASTTRACK_F_IPV6 },
	};
	struct nlmsghdr *nlh;
	unsigned int i;

	trace("RULE_GET dump");
	new_reply();
	for (i = 0; env("FTMOCK_RULES") && i < MNL_ARRAY_SIZE(rules); i++) {
		nlh = put_msg(req, MOCK_FAMILY, NLM_F_MULTI, FASTTRACK_CMD_RULE_GET);
		mnl_attr_put_strz(nlh, FASTTRACK_A_IFNAME, rules[i].pattern);
		mnl_attr_put_u32(nlh, FASTTRACK_A_FAMILIES, rules[i].families);
		end_msg(nlh);
	}
	put_done(req, 0);
}

static void handle_dev_change(const struct nlmsghdr *req, uint8_t cmd,
			      struct req_attrs *r)
{
	const char *name = r->tb[FASTTRACK_A_IFNAME] ?
			   mnl_attr_get_str(r->tb[FASTTRACK_A_IFNAME]) : "";

	trace("%s", cmd == FASTTRACK_CMD_DEV_ENABLE ? "DEV_ENABLE" : "DEV_DISABLE");
	new_reply();
	if (env("FTMOCK_EPERM"))
		put_ack(req, -EPERM, NULL, NULL);
	else if (!strcmp(name, "lo"))
		put_ack(req, -EOPNOTSUPP, "fasttrack: device is not Ethernet-like",
			r->tb[FASTTRACK_A_IFNAME]);
	else if (!strcmp(name, "ifb1"))
		put_ack(req, -ENODEV, "no such device", NULL);
	else if (cmd == FASTTRACK_CMD_DEV_DISABLE && !strcmp(name, "eth1"))
		put_ack(req, -ENOENT, "fasttrack: fasttrack is not enabled on this device",
			r->tb[FASTTRACK_A_IFNAME]);
	else
		put_ack(req, 0, NULL, NULL);
}

/* The last counter the mocked module knows. */
static uint16_t stats_last(void)
{
	/* An older module knows neither STAT_CPU nor what follows it. */
	if (env("FTMOCK_OLD"))
		return FASTTRACK_A_STAT_CPU - 1;
	if (env("FTMOCK_NO_NOLEARN"))
		return FASTTRACK_A_STAT_FLUSHED;
	if (!env("FTMOCK_XDP"))
		return FASTTRACK_A_STAT_XDP_BYPASSED - 1;
	return FASTTRACK_A_STAT_MAX;
}

/* Counters of CPU @idx of two; the second leaves out the punts after MTU. */
static void put_cpu_counters(struct nlmsghdr *nlh, uint32_t idx)
{
	uint16_t last = stats_last(), t;

	for (t = FASTTRACK_A_STAT_LEARNED; t <= last; t++) {
		if (t == FASTTRACK_A_STAT_CPU ||
		    (idx && t > FASTTRACK_A_STAT_PUNT_MTU &&
		     t <= FASTTRACK_A_STAT_PUNT_STALE))
			continue;
		put_u64_padded(nlh, t, (uint64_t)t * 10 + idx,
			       FASTTRACK_A_STAT_PAD);
	}
	put_u64_padded(nlh, FASTTRACK_A_STAT_MAX + 1, 99, FASTTRACK_A_STAT_PAD);
}

/* The per-CPU dump: CPUs 0 and 3, a message each, one per read. */
static void handle_stats_dump(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	uint32_t idx;

	trace("STATS_GET dump");
	new_reply();
	if (env("FTMOCK_OLD") || env("FTMOCK_NO_NOLEARN") ||
	    env("FTMOCK_NO_STATS_DUMP")) {
		put_ack(req, -EOPNOTSUPP, NULL, NULL);
		return;
	}
	for (idx = 0; idx < 2; idx++) {
		if (idx)
			new_reply();
		nlh = put_msg(req, MOCK_FAMILY, NLM_F_MULTI,
			      FASTTRACK_CMD_STATS_GET);
		mnl_attr_put_u32(nlh, FASTTRACK_A_CPU, idx * 3);
		nest = mnl_attr_nest_start(nlh, FASTTRACK_A_STATS);
		put_cpu_counters(nlh, idx);
		mnl_attr_nest_end(nlh, nest);
		end_msg(nlh);
	}
	put_done(req, 0);
}

static void handle_stats(const struct nlmsghdr *req, struct req_attrs *r)
{
	uint16_t last = stats_last();
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	uint32_t idx;
	uint16_t t;

	if (req->nlmsg_flags & NLM_F_DUMP) {
		handle_stats_dump(req);
		return;
	}
	trace("STATS_GET");
	if (env("FTMOCK_TICK"))
		stats_reads++;
	new_reply();
	if (r->tb[FASTTRACK_A_STATS_PERCPU] && env("FTMOCK_OLD")) {
		put_ack(req, -EINVAL, "Unknown attribute type",
			r->tb[FASTTRACK_A_STATS_PERCPU]);
		return;
	}
	nlh = put_msg(req, MOCK_FAMILY, 0, FASTTRACK_CMD_STATS_GET);
	nest = mnl_attr_nest_start(nlh, FASTTRACK_A_STATS);
	for (t = FASTTRACK_A_STAT_FLOWS; t <= last; t++) {
		if (t == FASTTRACK_A_STAT_CPU)
			continue;
		put_u64_padded(nlh, t, t == FASTTRACK_A_STAT_FORWARDED_BYTES ?
			       18446744073709551615ULL : (uint64_t)t * 1000 +
			       (t == FASTTRACK_A_STAT_PUNT_NO_ENTRY ? stats_reads * 7 : 0),
			       FASTTRACK_A_STAT_PAD);
	}
	put_u64_padded(nlh, FASTTRACK_A_STAT_MAX + 1, 99, FASTTRACK_A_STAT_PAD);
	mnl_attr_nest_end(nlh, nest);

	for (idx = 0; r->tb[FASTTRACK_A_STATS_PERCPU] && idx < 2; idx++) {
		nest = mnl_attr_nest_start(nlh, FASTTRACK_A_STATS_CPU);
		mnl_attr_put_u32(nlh, FASTTRACK_A_STAT_CPU, idx * 3);
		put_cpu_counters(nlh, idx);
		mnl_attr_nest_end(nlh, nest);
	}
	end_msg(nlh);
	put_ack(req, 0, NULL, NULL);
}

/* ---------------------------------------------------------------- flows */

struct mock_flow {
	uint32_t id;
	uint8_t family, proto, dir;
	const char *src, *dst, *nat_src, *nat_dst;
	uint16_t sport, dport, nat_sport, nat_dport;
	uint32_t iif, oif;
	uint16_t iif_vlan, oif_vlan;	/* 0: not a VLAN */
	uint64_t packets, bytes, age_ms, idle_ms;
};

static const struct mock_flow flows[] = {
	{ 1, AF_INET, IPPROTO_TCP, 0, "198.18.22.2", "198.18.222.2",
	  "198.18.22.2", "198.18.222.2", 40000, 5201, 40000, 5201,
	  102, 103, 22, 2222, 10, 1500, 12345, 500 },
	{ 2, AF_INET, IPPROTO_TCP, 1, "198.18.222.2", "198.18.22.2",
	  "198.18.222.2", "198.18.22.2", 5201, 40000, 5201, 40000,
	  103, 102, 2222, 22, 20, 30000, 12345, 0 },
	{ 7, AF_INET6, IPPROTO_UDP, 0, "2001:db8:1::2", "2001:db8:2::2",
	  "2001:db8:2::1", "2001:db8:2::2", 5353, 53, 1024, 53,
	  104, 105, 0, 0, 18446744073709551615ULL, 0, 3723000, 90061000 },
	{ 9, AF_INET, IPPROTO_UDP, 1, "198.18.2.2", "198.18.2.1",
	  "198.18.2.2", "198.18.1.2", 53, 1024, 53, 5353,
	  199, 104, 0, 0, 1, 60, 61000, 59999 },
};

static void put_addr(struct nlmsghdr *nlh, uint16_t type, uint8_t family,
		     const char *s)
{
	uint8_t a[16];

	inet_pton(family, s, a);
	mnl_attr_put(nlh, type, family == AF_INET ? 4 : 16, a);
}

static void put_port(struct nlmsghdr *nlh, uint16_t type, uint16_t port)
{
	mnl_attr_put_u16(nlh, type, htons(port));
}

/*
 * A FASTTRACK_A_FLOW nest, with an attribute from the future inside, and
 * a FASTTRACK_A_FLOW_REASON unless @reason is negative.
 */
static void put_flow_nest(struct nlmsghdr *nlh, const struct mock_flow *f,
			  long reason)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, FASTTRACK_A_FLOW);

	mnl_attr_put_u32(nlh, FASTTRACK_A_FLOW_ID, f->id);
	mnl_attr_put_u8(nlh, FASTTRACK_A_FLOW_FAMILY, f->family);
	mnl_attr_put_u8(nlh, FASTTRACK_A_FLOW_PROTO, f->proto);
	mnl_attr_put_u8(nlh, FASTTRACK_A_FLOW_DIR, f->dir);
	put_addr(nlh, FASTTRACK_A_FLOW_SRC, f->family, f->src);
	put_addr(nlh, FASTTRACK_A_FLOW_DST, f->family, f->dst);
	put_port(nlh, FASTTRACK_A_FLOW_SPORT, f->sport);
	put_port(nlh, FASTTRACK_A_FLOW_DPORT, f->dport);
	put_addr(nlh, FASTTRACK_A_FLOW_NAT_SRC, f->family, f->nat_src);
	put_addr(nlh, FASTTRACK_A_FLOW_NAT_DST, f->family, f->nat_dst);
	put_port(nlh, FASTTRACK_A_FLOW_NAT_SPORT, f->nat_sport);
	put_port(nlh, FASTTRACK_A_FLOW_NAT_DPORT, f->nat_dport);
	mnl_attr_put_u32(nlh, FASTTRACK_A_FLOW_IIF, f->iif);
	mnl_attr_put_u32(nlh, FASTTRACK_A_FLOW_OIF, f->oif);
	if (f->iif_vlan)
		mnl_attr_put_u16(nlh, FASTTRACK_A_FLOW_IIF_VLAN, f->iif_vlan);
	if (f->oif_vlan)
		mnl_attr_put_u16(nlh, FASTTRACK_A_FLOW_OIF_VLAN, f->oif_vlan);
	mnl_attr_put_u32(nlh, FASTTRACK_A_FLOW_MAX + 5, 0xfeed);
	put_u64_padded(nlh, FASTTRACK_A_FLOW_PACKETS, f->packets,
		       FASTTRACK_A_FLOW_PAD);
	put_u64_padded(nlh, FASTTRACK_A_FLOW_BYTES, f->bytes, FASTTRACK_A_FLOW_PAD);
	put_u64_padded(nlh, FASTTRACK_A_FLOW_AGE_MS, f->age_ms,
		       FASTTRACK_A_FLOW_PAD);
	put_u64_padded(nlh, FASTTRACK_A_FLOW_IDLE_MS, f->idle_ms,
		       FASTTRACK_A_FLOW_PAD);
	if (reason >= 0)
		mnl_attr_put_u32(nlh, FASTTRACK_A_FLOW_REASON, (uint32_t)reason);
	mnl_attr_nest_end(nlh, nest);
}

static bool flow_matches(const struct mock_flow *f)
{
	uint32_t fam = f->family == AF_INET ? FASTTRACK_F_IPV4 : FASTTRACK_F_IPV6;

	return (!dump.families || (dump.families & fam)) &&
	       (!dump.iif || dump.iif == f->iif);
}

/* Flow number @i of FTMOCK_FLOWS: UDP, both directions of i / 2. */
static void gen_flow(unsigned long i, struct mock_flow *f, char *a, char *b)
{
	unsigned long conn = i / 2;

	memset(f, 0, sizeof(*f));
	f->id = (uint32_t)(i + 1);
	f->family = AF_INET;
	f->proto = IPPROTO_UDP;
	f->dir = i % 2;
	snprintf(a, 16, "10.%lu.%lu.2", conn / 60000 % 256, conn / 250 % 240);
	snprintf(b, 16, "198.18.2.2");
	f->src = f->nat_src = f->dir ? b : a;
	f->dst = f->nat_dst = f->dir ? a : b;
	f->sport = f->nat_sport = f->dir ? 9 : (uint16_t)(1024 + conn % 60000);
	f->dport = f->nat_dport = f->dir ? (uint16_t)(1024 + conn % 60000) : 9;
	f->iif = f->dir ? 105 : 104;
	f->oif = f->dir ? 104 : 105;
	f->packets = i;
	f->bytes = i * 100;
}

/* The next datagram of the flow dump: as many flows as fit, then DONE. */
static void dump_next(void)
{
	char a[16], b[16];

	nreplies = next_reply = 0;
	new_reply();
	for (;;) {
		const struct mock_flow *f = NULL;
		struct mock_flow gen;
		struct nlmsghdr *nlh;

		if (dump.total) {
			if (dump.next == dump.total)
				break;
			gen_flow(dump.next++, &gen, a, b);
			f = &gen;
		} else {
			while (dump.canned < MNL_ARRAY_SIZE(flows) &&
			       !flow_matches(&flows[dump.canned]))
				dump.canned++;
			if (dump.canned == MNL_ARRAY_SIZE(flows))
				break;
			f = &flows[dump.canned++];
		}
		nlh = put_msg(&dump.req, MOCK_FAMILY,
			      NLM_F_MULTI | (f->id > 1 ? dump.intr : 0),
			      FASTTRACK_CMD_FLOW_GET);
		mnl_attr_put_u32(nlh, FASTTRACK_A_MAX + 3, 1);	/* newer kernel */
		put_flow_nest(nlh, f, -1);
		end_msg(nlh);
		/* The canned flows come one per read, the others in bulk. */
		if (!dump.total || replies[0].len + 512 > REPLY_SIZE)
			return;
	}
	put_done(&dump.req, dump.intr);
	dump.active = false;
}

static uint32_t mock_ifindex(const char *name);

static void handle_flow_get(const struct nlmsghdr *req, struct req_attrs *r)
{
	const char *total = getenv("FTMOCK_FLOWS");

	trace("FLOW_GET%s", req->nlmsg_flags & NLM_F_DUMP ? " dump" : "");
	new_reply();
	if (!(req->nlmsg_flags & NLM_F_DUMP)) {
		put_ack(req, -EOPNOTSUPP, NULL, NULL);
		return;
	}
	/* Flows reveal connections: CAP_NET_ADMIN, as conntrack -L. */
	if (env("FTMOCK_EPERM")) {
		put_ack(req, -EPERM, NULL, NULL);
		return;
	}
	memset(&dump, 0, sizeof(dump));
	dump.req = *req;
	dump.intr = dump_intr();
	dump.total = total ? strtoul(total, NULL, 10) : 0;
	if (r->tb[FASTTRACK_A_FAMILIES])
		dump.families = mnl_attr_get_u32(r->tb[FASTTRACK_A_FAMILIES]);
	if (r->tb[FASTTRACK_A_IFNAME]) {
		const char *name = mnl_attr_get_str(r->tb[FASTTRACK_A_IFNAME]);

		dump.iif = mock_ifindex(name);
		if (!dump.iif) {
			put_ack(req, -ENOENT, "fasttrack: fasttrack is not enabled on this device",
				r->tb[FASTTRACK_A_IFNAME]);
			return;
		}
	}
	if (env("FTMOCK_EMPTY")) {
		put_done(req, 0);
		return;
	}
	nreplies = 0;
	dump.active = true;
	dump_next();
}

/* A flush; a match is traced field by field ("match TYPE/LEN"). */
static void handle_flush(const struct nlmsghdr *req, struct req_attrs *r)
{
	const struct nlattr *a;

	trace("FLUSH");
	new_reply();
	if (r->tb[FASTTRACK_A_MATCH] && env("FTMOCK_NO_MATCH")) {
		put_ack(req, -EINVAL, "Unknown attribute type",
			r->tb[FASTTRACK_A_MATCH]);
		return;
	}
	if (r->tb[FASTTRACK_A_MATCH])
		mnl_attr_for_each_nested(a, r->tb[FASTTRACK_A_MATCH])
			trace("match %u/%u", mnl_attr_get_type(a),
			      mnl_attr_get_payload_len(a));
	if (env("FTMOCK_EPERM"))
		put_ack(req, -EPERM, NULL, NULL);
	else
		put_ack(req, 0, NULL, NULL);
}

/* --------------------------------------------------------------- events */

/* The next canned event; false when there are none left. */
static bool event_next(void)
{
	static const struct nlmsghdr ev = { .nlmsg_seq = 0 };
	struct nlmsghdr *nlh;
	unsigned int i = next_event++;

	nreplies = next_reply = 0;
	new_reply();
	switch (i) {
	case 0:
	case 1:
	case 3:
	case 5:
		nlh = put_msg(&ev, MOCK_FAMILY, 0,
			      i < 2 ? FASTTRACK_CMD_FLOW_NEW : FASTTRACK_CMD_FLOW_DEL);
		nlh->nlmsg_pid = 0;
		if (i == 3)
			mnl_attr_put_u32(nlh, FASTTRACK_A_MAX + 2, 1);
		put_flow_nest(nlh, &flows[i == 0 || i == 3 ? 0 : 2],
			      i < 2 ? -1 : i == 3 ? FASTTRACK_REASON_TORN_DOWN : 99);
		end_msg(nlh);
		return true;
	case 2:
		/* An event this ftctl does not know. */
		nlh = put_msg(&ev, MOCK_FAMILY, 0, FASTTRACK_CMD_MAX + 1);
		nlh->nlmsg_pid = 0;
		end_msg(nlh);
		return true;
	case 4:
		nreplies = 0;
		return true;	/* the overrun */
	case 6:
		/* Removed because the firewall ruleset was committed. */
		nlh = put_msg(&ev, MOCK_FAMILY, 0, FASTTRACK_CMD_FLOW_DEL);
		nlh->nlmsg_pid = 0;
		put_flow_nest(nlh, &flows[1], FASTTRACK_REASON_RULESET);
		end_msg(nlh);
		return true;
	}
	return false;
}

static void handle_config_get(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh;

	trace("CONFIG_GET");
	new_reply();
	nlh = put_msg(req, MOCK_FAMILY, 0, FASTTRACK_CMD_CONFIG_GET);
	mnl_attr_put_u32(nlh, FASTTRACK_A_CFG_MAX_FLOWS, 65536);
	mnl_attr_put_u32(nlh, FASTTRACK_A_CFG_TCP_TIMEOUT, 300);
	mnl_attr_put_u32(nlh, FASTTRACK_A_CFG_UDP_TIMEOUT, 30);
	mnl_attr_put_u32(nlh, FASTTRACK_A_CFG_SKIP_MARK, 0x10);
	mnl_attr_put_u32(nlh, FASTTRACK_A_CFG_SKIP_MASK, 0xffffffff);
	mnl_attr_put_u32(nlh, FASTTRACK_A_MAX + 1, 5);
	end_msg(nlh);
	put_ack(req, 0, NULL, NULL);
}

static void handle_config_set(const struct nlmsghdr *req, struct req_attrs *r)
{
	const struct nlattr *a;

	trace("CONFIG_SET");
	new_reply();
	if (env("FTMOCK_EPERM")) {
		put_ack(req, -EPERM, NULL, NULL);
		return;
	}
	a = r->tb[FASTTRACK_A_CFG_MAX_FLOWS];
	if (a && (!mnl_attr_get_u32(a) ||
		  mnl_attr_get_u32(a) > FASTTRACK_MAX_FLOWS_LIMIT)) {
		put_ack_range(req, -ERANGE, "integer out of range", a, 1,
			      FASTTRACK_MAX_FLOWS_LIMIT);
		return;
	}
	a = r->tb[FASTTRACK_A_CFG_TCP_TIMEOUT];
	if (a && !mnl_attr_get_u32(a)) {
		put_ack(req, -ERANGE, NULL, a);	/* no message, only offset */
		return;
	}
	put_ack(req, 0, NULL, NULL);
}

static void handle(const struct nlmsghdr *req)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(req);
	struct req_attrs r = { 0 };

	nreplies = next_reply = 0;
	if (req->nlmsg_type == GENL_ID_CTRL) {
		handle_ctrl(req);
		return;
	}
	mnl_attr_parse(req, GENL_HDRLEN, req_attr_cb, &r);

	switch (genl->cmd) {
	case FASTTRACK_CMD_DEV_ENABLE:
	case FASTTRACK_CMD_DEV_DISABLE:
		handle_dev_change(req, genl->cmd, &r);
		break;
	case FASTTRACK_CMD_RULE_ADD:
	case FASTTRACK_CMD_RULE_DEL:
		if (env("FTMOCK_OLD") || env("FTMOCK_NO_RULES"))
			goto unknown;
		handle_rule_change(req, genl->cmd, &r);
		break;
	case FASTTRACK_CMD_RULE_GET:
		if (env("FTMOCK_OLD") || env("FTMOCK_NO_RULES"))
			goto unknown;
		handle_rule_get(req);
		break;
	case FASTTRACK_CMD_DEV_GET:
		handle_dev_get(req, &r);
		break;
	case FASTTRACK_CMD_STATS_GET:
		handle_stats(req, &r);
		break;
	case FASTTRACK_CMD_FLOW_GET:
		if (env("FTMOCK_OLD"))
			goto unknown;
		handle_flow_get(req, &r);
		break;
	case FASTTRACK_CMD_FLUSH:
		if (env("FTMOCK_OLD"))
			goto unknown;
		handle_flush(req, &r);
		break;
	case FASTTRACK_CMD_CONFIG_GET:
		handle_config_get(req);
		break;
	case FASTTRACK_CMD_CONFIG_SET:
		handle_config_set(req, &r);
		break;
	default:
unknown:
		new_reply();
		put_ack(req, -EOPNOTSUPP, NULL, NULL);
	}
}

/* The mock's devices; other names and indexes are the host's. */
static const struct {
	uint32_t ifindex;
	const char *name;
} mock_ifs[] = {
	{ 102, "vlan22" }, { 103, "vlan2222" }, { 104, "eth1" }, { 105, "eth2" },
};

static uint32_t mock_ifindex(const char *name)
{
	unsigned int i;

	for (i = 0; i < MNL_ARRAY_SIZE(mock_ifs); i++)
		if (!strcmp(mock_ifs[i].name, name))
			return mock_ifs[i].ifindex;
	return 0;
}

/*
 * RTM_GETLINK by name on an rtnetlink socket (ftctl's ft_link_index()):
 * the mock's devices are answered here, one answer pending at a time;
 * other requests go to the host.
 */
static int route_fd = -1;
static char route_reply[256];
static size_t route_len;

static bool is_route_socket(int fd)
{
	int domain = 0, proto = 0;
	socklen_t len = sizeof(domain);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) || domain != AF_NETLINK)
		return false;
	len = sizeof(proto);
	return !getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) &&
	       proto == NETLINK_ROUTE;
}

/* True if @buf asks for a mock device by name; its answer is then pending. */
static bool route_answer(int fd, const void *buf)
{
	const struct nlmsghdr *req = buf;
	const struct nlattr *attr;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	uint32_t ifindex = 0;

	if (req->nlmsg_type != RTM_GETLINK || !is_route_socket(fd))
		return false;
	mnl_attr_for_each(attr, req, sizeof(struct ifinfomsg))
		if (mnl_attr_get_type(attr) == IFLA_IFNAME)
			ifindex = mock_ifindex(mnl_attr_get_str(attr));
	if (!ifindex)
		return false;
	nlh = mnl_nlmsg_put_header(route_reply);
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_pid = req->nlmsg_pid;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = (int)ifindex;
	route_fd = fd;
	route_len = nlh->nlmsg_len;
	return true;
}

/* The libc calls libmnl makes, taken over for the mock socket. */

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);

	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	int sv[2];

	if (domain != AF_NETLINK || protocol != NETLINK_GENERIC)
		return real(domain, type, protocol);
	/* A socket that poll() always finds readable: its peer wrote a byte. */
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return -1;
	mock_fd = sv[0];
	mock_peer = sv[1];
	if (write(mock_peer, "", 1) != 1)
		return -1;
	return mock_fd;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	static int (*real)(int, const struct sockaddr *, socklen_t);

	if (fd == mock_fd)
		return 0;
	if (!real)
		real = (int (*)(int, const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "bind");
	return real(fd, addr, len);
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	static int (*real)(int, struct sockaddr *, socklen_t *);
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_pid = MOCK_PORTID };

	if (fd == mock_fd) {
		memcpy(addr, &nl, sizeof(nl));
		*len = sizeof(nl);
		return 0;
	}
	if (!real)
		real = (int (*)(int, struct sockaddr *, socklen_t *))
			dlsym(RTLD_NEXT, "getsockname");
	return real(fd, addr, len);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	static int (*real)(int, int, int, const void *, socklen_t);

	if (fd == mock_fd) {
		if (level == SOL_NETLINK && name == NETLINK_ADD_MEMBERSHIP) {
			trace("setsockopt NETLINK_ADD_MEMBERSHIP %u",
			      *(const unsigned int *)val);
			if (*(const unsigned int *)val != 12) {
				errno = EINVAL;
				return -1;
			}
			if (env("FTMOCK_EPERM")) {
				errno = EPERM;
				return -1;
			}
			events_on = true;
		} else if (level == SOL_NETLINK) {
			trace("setsockopt %s",
			      name == NETLINK_EXT_ACK ? "NETLINK_EXT_ACK" :
			      name == NETLINK_CAP_ACK ? "NETLINK_CAP_ACK" : "?");
		}
		return 0;
	}
	if (!real)
		real = (int (*)(int, int, int, const void *, socklen_t))
			dlsym(RTLD_NEXT, "setsockopt");
	return real(fd, level, name, val, len);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t alen)
{
	static ssize_t (*real)(int, const void *, size_t, int,
			       const struct sockaddr *, socklen_t);

	if (fd == mock_fd) {
		handle(buf);
		return (ssize_t)len;
	}
	if (route_answer(fd, buf))
		return (ssize_t)len;
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, int,
				    const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "sendto");
	return real(fd, buf, len, flags, addr, alen);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	size_t len;

	if (fd == route_fd && route_len) {
		len = route_len < msg->msg_iov[0].iov_len ? route_len :
							      msg->msg_iov[0].iov_len;
		memcpy(msg->msg_iov[0].iov_base, route_reply, len);
		memcpy(msg->msg_name, &nl, sizeof(nl));
		msg->msg_namelen = sizeof(nl);
		msg->msg_flags = 0;
		route_len = 0;
		return (ssize_t)len;
	}
	if (fd != mock_fd) {
		if (!real)
			real = (ssize_t (*)(int, struct msghdr *, int))
				dlsym(RTLD_NEXT, "recvmsg");
		return real(fd, msg, flags);
	}
	if (next_reply >= nreplies && dump.active)
		dump_next();
	if (next_reply >= nreplies && events_on) {
		if (!event_next()) {
			/* Nothing more will come: stop "ftctl monitor". */
			raise(SIGTERM);
			errno = EAGAIN;
			return -1;
		}
		if (!nreplies) {
			errno = ENOBUFS;
			return -1;
		}
	}
	if (next_reply >= nreplies) {
		if (flags & MSG_DONTWAIT) {
			errno = EAGAIN;
			return -1;
		}
		trace("recvmsg with nothing to read: ftctl would block");
		exit(99);
	}
	len = replies[next_reply].len;
	msg->msg_flags = 0;
	if (len > msg->msg_iov[0].iov_len) {
		len = msg->msg_iov[0].iov_len;
		msg->msg_flags = MSG_TRUNC;
	}
	memcpy(msg->msg_iov[0].iov_base, replies[next_reply].buf, len);
	memcpy(msg->msg_name, &nl, sizeof(nl));
	msg->msg_namelen = sizeof(nl);
	/* As netlink: MSG_PEEK leaves it queued, MSG_TRUNC says its size. */
	if (flags & MSG_TRUNC)
		len = replies[next_reply].len;
	if (!(flags & MSG_PEEK))
		next_reply++;
	return (ssize_t)len;
}

char *if_indextoname(unsigned int ifindex, char name[IF_NAMESIZE])
{
	static char *(*real)(unsigned int, char *);
	unsigned int i;

	for (i = 0; i < MNL_ARRAY_SIZE(mock_ifs); i++) {
		if (mock_ifs[i].ifindex == ifindex) {
			snprintf(name, IF_NAMESIZE, "%s", mock_ifs[i].name);
			return name;
		}
	}
	if (ifindex == 199) {
		errno = ENXIO;
		return NULL;
	}
	if (!real)
		real = (char *(*)(unsigned int, char *))dlsym(RTLD_NEXT,
							      "if_indextoname");
	return real(ifindex, name);
}

/* The module's version in sysfs: FTMOCK_MODVER, or not loaded. */
FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);
	static char ver[64];
	const char *v = getenv("FTMOCK_MODVER");

	if (!strcmp(path, "/sys/module/fasttrack/version")) {
		if (!v) {
			errno = ENOENT;
			return NULL;
		}
		snprintf(ver, sizeof(ver), "%s\n", v);
		return fmemopen(ver, strlen(ver), "r");
	}
	if (!real)
		real = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "fopen");
	return real(path, mode);
}
