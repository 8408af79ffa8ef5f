// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl flows and flush: the cached flow directions.
 *
 * "flows" is a netlink dump of any size (100 000 flows and more): every
 * flow is printed as its message is read and then forgotten, so memory
 * does not grow with the table, and nothing is sorted. The kernel lists
 * each flow once, in the order the flows were learned.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/fasttrack.h>

#include "commands.h"
#include "dev.h"
#include "flow.h"
#include "json.h"
#include "parse.h"
#include "print.h"
#include "session.h"
#include "state.h"

/* An address of a filter, as the kernel sends it: 4 or 16 bytes. */
struct filter_addr {
	uint8_t len;		/* 0: not filtered */
	uint8_t a[16];
};

/*
 * The filter of "flows" and "flush". dev and families go to the kernel;
 * "flows" applies the tuple filters here, to each direction as received,
 * which works with every module; "flush" sends them in FASTTRACK_A_MATCH.
 */
struct flow_filter {
	const char *dev;	/* ingress device, or NULL: all */
	uint32_t families;	/* FASTTRACK_F_*, 0: all */
	bool dump;		/* "dump": tab-separated output */
	bool tuple;		/* any of the below */
	struct filter_addr src, dst, addr;	/* addr: src or dst */
	int sport, dport, port;	/* -1: any; port: sport or dport */
	int proto;		/* IPPROTO_*, -1: any */
};

static int parse_addr(struct ftctl *ft, const char *key, const char *s,
		      struct filter_addr *fa, uint32_t *families)
{
	if (fa->len)
		return ft_usage(ft, "'%s' given twice", key);
	if (inet_pton(AF_INET, s, fa->a) == 1) {
		fa->len = 4;
		*families |= FASTTRACK_F_IPV4;
	} else if (inet_pton(AF_INET6, s, fa->a) == 1) {
		fa->len = 16;
		*families |= FASTTRACK_F_IPV6;
	} else {
		return ft_usage(ft, "invalid address '%s' after '%s' (expected an IPv4 or IPv6 address)",
				s, key);
	}
	return FT_OK;
}

static int parse_port(struct ftctl *ft, const char *key, const char *s,
		      int *port)
{
	uint32_t v;

	if (*port >= 0)
		return ft_usage(ft, "'%s' given twice", key);
	if (parse_u32(s, &v, false) || v > 65535)
		return ft_usage(ft, "invalid port '%s' after '%s' (expected 0 to 65535)",
				s, key);
	*port = (int)v;
	return FT_OK;
}

static int parse_proto(struct ftctl *ft, const char *s, int *proto)
{
	if (*proto >= 0)
		return ft_usage(ft, "'proto' given twice");
	if (!strcmp(s, "tcp"))
		*proto = IPPROTO_TCP;
	else if (!strcmp(s, "udp"))
		*proto = IPPROTO_UDP;
	else
		return ft_usage(ft, "invalid protocol '%s' (expected tcp or udp: the fast path has no other)",
				s);
	return FT_OK;
}

/* One "KEY VALUE" tuple filter at argv[0]; FT_NOTHING if not one. */
static int parse_tuple(struct ftctl *ft, int argc, char **argv,
		       struct flow_filter *flt, uint32_t *addr_fams)
{
	const char *key = argv[0];
	int ret;

	if (strcmp(key, "src") && strcmp(key, "dst") && strcmp(key, "addr") &&
	    strcmp(key, "sport") && strcmp(key, "dport") &&
	    strcmp(key, "port") && strcmp(key, "proto"))
		return FT_NOTHING;
	if (argc < 2)
		return ft_usage(ft, "missing value after '%s'", key);
	flt->tuple = true;
	if (!strcmp(key, "src"))
		ret = parse_addr(ft, key, argv[1], &flt->src, addr_fams);
	else if (!strcmp(key, "dst"))
		ret = parse_addr(ft, key, argv[1], &flt->dst, addr_fams);
	else if (!strcmp(key, "addr"))
		ret = parse_addr(ft, key, argv[1], &flt->addr, addr_fams);
	else if (!strcmp(key, "sport"))
		ret = parse_port(ft, key, argv[1], &flt->sport);
	else if (!strcmp(key, "dport"))
		ret = parse_port(ft, key, argv[1], &flt->dport);
	else if (!strcmp(key, "port"))
		ret = parse_port(ft, key, argv[1], &flt->port);
	else
		ret = parse_proto(ft, argv[1], &flt->proto);
	return ret;
}

/*
 * An address implies its family: ask the kernel for that family only,
 * unless a family was named, which must then include it.
 */
static int imply_families(struct ftctl *ft, struct flow_filter *flt,
			  uint32_t addr_fams)
{
	if (!addr_fams)
		return FT_OK;
	if (addr_fams == __FASTTRACK_F_ALL)
		return ft_usage(ft, "IPv4 and IPv6 addresses together match no flow");
	if (flt->families && !(flt->families & addr_fams))
		return ft_usage(ft, "the address is %s, but only %s was asked for",
				addr_fams == FASTTRACK_F_IPV4 ? "IPv4" : "IPv6",
				addr_fams == FASTTRACK_F_IPV4 ? "ipv6" : "ipv4");
	flt->families = addr_fams;
	return FT_OK;
}

/* [dump] [dev DEV] [ipv4|ipv6]... [KEY VALUE]..., in any order. */
static int parse_filter(struct ftctl *ft, int argc, char **argv,
			bool allow_dump, struct flow_filter *flt)
{
	uint32_t addr_fams = 0;
	int i, ret;

	memset(flt, 0, sizeof(*flt));
	flt->sport = -1;
	flt->dport = -1;
	flt->port = -1;
	flt->proto = -1;
	for (i = 1; i < argc; i++) {
		uint32_t flag;

		ret = parse_tuple(ft, argc - i, argv + i, flt, &addr_fams);
		if (ret != FT_NOTHING) {
			if (ret)
				return ret;
			i++;
		} else if (allow_dump && !strcmp(argv[i], "dump")) {
			if (flt->dump)
				return ft_usage(ft, "'dump' given twice");
			flt->dump = true;
		} else if (!strcmp(argv[i], "dev")) {
			if (i + 1 >= argc)
				return ft_usage(ft, "missing device name after 'dev'");
			if (flt->dev)
				return ft_usage(ft, "only one device may be given");
			flt->dev = argv[++i];
			ret = ft_check_dev(ft, flt->dev);
			if (ret)
				return ret;
		} else if (!parse_family(argv[i], &flag)) {
			flt->families |= flag;
		} else {
			return ft_usage(ft, "unexpected argument '%s' (expected %sdev DEV, ipv4, ipv6, src, dst, addr, sport, dport, port or proto)",
					argv[i], allow_dump ? "dump, " : "");
		}
	}
	if (flt->dump && ft->json)
		return ft_usage(ft, "'dump' is an output form of its own; it does not combine with -j");
	return imply_families(ft, flt, addr_fams);
}

static bool addr_is(const struct filter_addr *fa, const uint8_t *a,
		    uint8_t len)
{
	return fa->len == len && !memcmp(fa->a, a, len);
}

/* The tuple filters, on the direction's addresses and ports as received. */
static bool flow_matches(const struct flow_filter *flt, const struct ft_flow *f)
{
	if (!flt->tuple)
		return true;
	if (flt->proto >= 0 && f->proto != flt->proto)
		return false;
	if (flt->src.len && !addr_is(&flt->src, f->src, f->src_len))
		return false;
	if (flt->dst.len && !addr_is(&flt->dst, f->dst, f->dst_len))
		return false;
	if (flt->addr.len && !addr_is(&flt->addr, f->src, f->src_len) &&
	    !addr_is(&flt->addr, f->dst, f->dst_len))
		return false;
	if (flt->sport >= 0 && f->sport != flt->sport)
		return false;
	if (flt->dport >= 0 && f->dport != flt->dport)
		return false;
	if (flt->port >= 0 && f->sport != flt->port && f->dport != flt->port)
		return false;
	return true;
}

static void put_filter(struct nlmsghdr *nlh, const struct flow_filter *flt)
{
	if (flt->dev)
		mnl_attr_put_strz(nlh, FASTTRACK_A_IFNAME, flt->dev);
	if (flt->families)
		mnl_attr_put_u32(nlh, FASTTRACK_A_FAMILIES, flt->families);
}

/*
 * A failed FLOW_GET or FLUSH. A kernel that does not know the command says
 * EOPNOTSUPP without a message.
 */
static int flow_request_error(struct ftctl *ft, int err, const char *dev,
			      const char *what)
{
	if ((err == -EOPNOTSUPP || err == EOPNOTSUPP) && ft->nl.kernel_err &&
	    !ft->nl.ext_msg[0]) {
		ft_err("this fasttrack module does not support %s (upgrade the module)",
		       what);
		return FT_ERR;
	}
	return ft_request_error(ft, err, dev, NULL);
}

struct flows_out {
	struct ftctl *ft;
	const struct flow_filter *flt;
	struct json j;
	bool opened;		/* JSON: "[" written */
	unsigned long count;
};

static int flows_attr_cb(const struct nlattr *attr, void *data)
{
	struct flows_out *o = data;
	struct ft_flow f;

	if (mnl_attr_get_type(attr) != FASTTRACK_A_FLOW)
		return MNL_CB_OK;
	if (ft_flow_parse(attr, &f) < 0)
		return MNL_CB_ERROR;
	if (!flow_matches(o->flt, &f))
		return MNL_CB_OK;

	o->count++;
	if (o->ft->json) {
		if (!o->opened) {
			json_arr_open(&o->j, NULL);
			o->opened = true;
		}
		json_obj_open(&o->j, NULL);
		ft_flow_json(&o->j, &f);
		json_obj_close(&o->j);
	} else if (o->flt->dump) {
		ft_flow_print_dump(stdout, &f);
	} else {
		ft_flow_print_text(o->ft, stdout, &f, FT_FLOW_LIST);
		putchar('\n');
	}
	return MNL_CB_OK;
}

static int flows_cb(const struct nlmsghdr *nlh, void *data)
{
	return nl_parse(nlh, flows_attr_cb, data) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

int cmd_flows(struct ftctl *ft, int argc, char **argv)
{
	struct flow_filter flt;
	struct flows_out o = { .ft = ft, .flt = &flt };
	struct nlmsghdr *nlh;
	int ret;

	ret = parse_filter(ft, argc, argv, true, &flt);
	if (ret)
		return ret;
	ret = ft_connect(ft);
	if (ret)
		return ret;

	json_init(&o.j, stdout, ft->tty);
	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_FLOW_GET, 0);
	put_filter(nlh, &flt);
	ret = nl_dump_stream(&ft->nl, nlh, flows_cb, &o);
	if (ret) {
		/*
		 * Whatever was printed stays; an unterminated JSON array
		 * tells a JSON reader that the list is not complete.
		 */
		if (o.opened)
			putchar('\n');
		return flow_request_error(ft, ret, flt.dev, "flows");
	}

	if (ft->json) {
		if (!o.opened)
			json_arr_open(&o.j, NULL);
		json_arr_close(&o.j);
		json_end(&o.j);
	} else if (!o.count && ft->tty && !flt.dump) {
		printf("no flows are cached%s%s\n", flt.dev ? " for " : "",
		       flt.dev ? flt.dev : "");
	}

	if (ft->nl.dump_intr) {
		ft_warn("the kernel flagged the flow dump as inconsistent (NLM_F_DUMP_INTR): flows may be missing or listed twice; run it again");
		return FT_ERR;
	}
	return FT_OK;
}

/* One match of a flush: a source and destination, ports, a protocol. */
struct flush_match {
	const struct filter_addr *src, *dst;
	int sport, dport;
};

static void put_match(struct nlmsghdr *nlh, const struct flow_filter *flt,
		      const struct flush_match *m)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, FASTTRACK_A_MATCH);

	if (flt->proto >= 0)
		mnl_attr_put_u8(nlh, FASTTRACK_A_FLOW_PROTO, flt->proto);
	if (m->src && m->src->len)
		mnl_attr_put(nlh, FASTTRACK_A_FLOW_SRC, m->src->len, m->src->a);
	if (m->dst && m->dst->len)
		mnl_attr_put(nlh, FASTTRACK_A_FLOW_DST, m->dst->len, m->dst->a);
	if (m->sport >= 0)
		mnl_attr_put_u16(nlh, FASTTRACK_A_FLOW_SPORT, htons(m->sport));
	if (m->dport >= 0)
		mnl_attr_put_u16(nlh, FASTTRACK_A_FLOW_DPORT, htons(m->dport));
	mnl_attr_nest_end(nlh, nest);
}

/* Two filters on the same field can both hold only if they are equal. */
static bool addr_compatible(const struct filter_addr *a, const struct filter_addr *b)
{
	return !a->len || !b->len || (a->len == b->len && !memcmp(a->a, b->a, a->len));
}

static bool port_compatible(int a, int b)
{
	return a < 0 || b < 0 || a == b;
}

/*
 * The kernel matches fields together (AND); "addr" and "port" are either
 * the source or the destination, so a flush with them is up to four
 * requests, one per way, each flushing whole connections.
 */
static int flush_tuple(struct ftctl *ft, const struct flow_filter *flt)
{
	int a, p, ways_a = flt->addr.len ? 2 : 1, ways_p = flt->port >= 0 ? 2 : 1;
	struct nlmsghdr *nlh;
	int ret;

	for (a = 0; a < ways_a; a++) {
		for (p = 0; p < ways_p; p++) {
			struct flush_match m = { &flt->src, &flt->dst, flt->sport, flt->dport };

			if (flt->addr.len) {
				if (!addr_compatible(a ? &flt->dst : &flt->src, &flt->addr))
					continue;
				*(a ? &m.dst : &m.src) = &flt->addr;
			}
			if (flt->port >= 0) {
				if (!port_compatible(p ? flt->dport : flt->sport, flt->port))
					continue;
				*(p ? &m.dport : &m.sport) = flt->port;
			}
			nlh = nl_msg(&ft->nl, FASTTRACK_CMD_FLUSH, 0);
			put_filter(nlh, flt);
			put_match(nlh, flt, &m);
			ret = nl_request(&ft->nl, nlh, NULL, NULL);
			if (ret && ft->nl.kernel_err &&
			    nl_blamed_attr(&ft->nl) == FASTTRACK_A_MATCH) {
				ft_err("flush: this fasttrack module flushes all flows, or a device's or a family's, not one connection (upgrade the module, or delete the connection from conntrack: conntrack -D -s ADDR ...)");
				return FT_ERR;
			}
			if (ret)
				return flow_request_error(ft, ret, flt->dev, "flush");
		}
	}
	return FT_OK;
}

int cmd_flush(struct ftctl *ft, int argc, char **argv)
{
	struct flow_filter flt;
	struct nlmsghdr *nlh;
	int ret;

	ret = parse_filter(ft, argc, argv, false, &flt);
	if (ret)
		return ret;
	ret = ft_connect(ft);
	if (ret)
		return ret;
	if (flt.tuple)
		return flush_tuple(ft, &flt);

	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_FLUSH, 0);
	put_filter(nlh, &flt);
	ret = nl_request(&ft->nl, nlh, NULL, NULL);
	if (ret)
		return flow_request_error(ft, ret, flt.dev, "flush");
	if (*ft->nl.ext_msg)
		ft_warn("%s", ft->nl.ext_msg);
	return FT_OK;
}
