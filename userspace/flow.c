// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: one cached flow direction and its output forms. See flow.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/fasttrack.h>

#include "flow.h"
#include "nl.h"
#include "print.h"

_Static_assert(FASTTRACK_A_FLOW_MAX < 64, "ft_flow.have has 64 bits");

static int addr_attr(const struct nlattr *attr, uint8_t *addr, uint8_t *len)
{
	uint16_t n = mnl_attr_get_payload_len(attr);

	if (n != 4 && n != 16)
		return -1;
	memcpy(addr, mnl_attr_get_payload(attr), n);
	*len = (uint8_t)n;
	return 0;
}

static int port_attr(const struct nlattr *attr, uint16_t *port)
{
	uint16_t be;

	if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
		return -1;
	memcpy(&be, mnl_attr_get_payload(attr), sizeof(be));
	*port = ntohs(be);
	return 0;
}

static int u64_attr(const struct nlattr *attr, uint64_t *val)
{
	if (!nl_attr_is_uint(attr))
		return -1;
	*val = nl_attr_get_uint(attr);
	return 0;
}

static int u8_attr(const struct nlattr *attr, uint8_t *val)
{
	if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
		return -1;
	*val = mnl_attr_get_u8(attr);
	return 0;
}

static int u16_attr(const struct nlattr *attr, uint16_t *val)
{
	if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
		return -1;
	*val = mnl_attr_get_u16(attr);
	return 0;
}

static int u32_attr(const struct nlattr *attr, uint32_t *val)
{
	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return -1;
	*val = mnl_attr_get_u32(attr);
	return 0;
}

static int flow_attr_cb(const struct nlattr *attr, void *data)
{
	uint16_t type = mnl_attr_get_type(attr);
	struct ft_flow *f = data;
	int err;

	if (!nl_attr_known(attr, FASTTRACK_A_FLOW_MAX) ||
	    type == FASTTRACK_A_FLOW_PAD)
		return MNL_CB_OK;

	switch (type) {
	case FASTTRACK_A_FLOW_ID:
		err = u32_attr(attr, &f->id);
		break;
	case FASTTRACK_A_FLOW_FAMILY:
		err = u8_attr(attr, &f->family);
		break;
	case FASTTRACK_A_FLOW_PROTO:
		err = u8_attr(attr, &f->proto);
		break;
	case FASTTRACK_A_FLOW_DIR:
		err = u8_attr(attr, &f->dir);
		break;
	case FASTTRACK_A_FLOW_SRC:
		err = addr_attr(attr, f->src, &f->src_len);
		break;
	case FASTTRACK_A_FLOW_DST:
		err = addr_attr(attr, f->dst, &f->dst_len);
		break;
	case FASTTRACK_A_FLOW_NAT_SRC:
		err = addr_attr(attr, f->nat_src, &f->nat_src_len);
		break;
	case FASTTRACK_A_FLOW_NAT_DST:
		err = addr_attr(attr, f->nat_dst, &f->nat_dst_len);
		break;
	case FASTTRACK_A_FLOW_SPORT:
		err = port_attr(attr, &f->sport);
		break;
	case FASTTRACK_A_FLOW_DPORT:
		err = port_attr(attr, &f->dport);
		break;
	case FASTTRACK_A_FLOW_NAT_SPORT:
		err = port_attr(attr, &f->nat_sport);
		break;
	case FASTTRACK_A_FLOW_NAT_DPORT:
		err = port_attr(attr, &f->nat_dport);
		break;
	case FASTTRACK_A_FLOW_IIF:
		err = u32_attr(attr, &f->iif);
		break;
	case FASTTRACK_A_FLOW_OIF:
		err = u32_attr(attr, &f->oif);
		break;
	case FASTTRACK_A_FLOW_IIF_VLAN:
		err = u16_attr(attr, &f->iif_vlan);
		break;
	case FASTTRACK_A_FLOW_OIF_VLAN:
		err = u16_attr(attr, &f->oif_vlan);
		break;
	case FASTTRACK_A_FLOW_PACKETS:
		err = u64_attr(attr, &f->packets);
		break;
	case FASTTRACK_A_FLOW_BYTES:
		err = u64_attr(attr, &f->bytes);
		break;
	case FASTTRACK_A_FLOW_AGE_MS:
		err = u64_attr(attr, &f->age_ms);
		break;
	case FASTTRACK_A_FLOW_IDLE_MS:
		err = u64_attr(attr, &f->idle_ms);
		break;
	case FASTTRACK_A_FLOW_REASON:
		err = u32_attr(attr, &f->reason);
		break;
	default:
		/* Known to the header, not (yet) to this parser. */
		return MNL_CB_OK;
	}
	if (err)
		return nl_bad_reply();
	f->have |= 1ULL << type;
	return MNL_CB_OK;
}

int ft_flow_parse(const struct nlattr *nest, struct ft_flow *f)
{
	memset(f, 0, sizeof(*f));
	if (mnl_attr_validate(nest, MNL_TYPE_NESTED) < 0)
		return nl_bad_reply();
	if (mnl_attr_parse_nested(nest, flow_attr_cb, f) < 0)
		return MNL_CB_ERROR;
	/* Older or odd kernels: the family follows from the address. */
	if (!FT_FLOW_HAS(f, FASTTRACK_A_FLOW_FAMILY) && f->src_len)
		f->family = f->src_len == 4 ? AF_INET : AF_INET6;
	return MNL_CB_OK;
}

/* ------------------------------------------------------------ names -- */

#define IFNAME_CACHE	8

static struct {
	uint32_t ifindex;
	char name[IF_NAMESIZE];
} ifname_cache[IFNAME_CACHE];
static unsigned int ifname_next;
static bool ifname_cache_on = true;

void ft_ifname_cache(bool on)
{
	ifname_cache_on = on;
	memset(ifname_cache, 0, sizeof(ifname_cache));
}

const char *ft_ifname(uint32_t ifindex, char *buf, size_t size)
{
	char name[IF_NAMESIZE];
	unsigned int i;

	if (ifname_cache_on) {
		for (i = 0; i < IFNAME_CACHE; i++) {
			if (ifname_cache[i].ifindex == ifindex && ifindex) {
				snprintf(buf, size, "%s", ifname_cache[i].name);
				return buf;
			}
		}
	}
	if (!ifindex || !if_indextoname(ifindex, name))
		snprintf(name, sizeof(name), "if%" PRIu32, ifindex);
	if (ifname_cache_on) {
		ifname_cache[ifname_next].ifindex = ifindex;
		memcpy(ifname_cache[ifname_next].name, name, sizeof(name));
		ifname_next = (ifname_next + 1) % IFNAME_CACHE;
	}
	snprintf(buf, size, "%s", name);
	return buf;
}

const char *ft_duration(uint64_t ms, char *buf, size_t size)
{
	uint64_t s = ms / 1000;

	if (ms < 60000)
		snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "s", s, ms % 1000 / 100);
	else if (s < 3600)
		snprintf(buf, size, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, size, "%" PRIu64 "h%02" PRIu64 "m", s / 3600,
			 s % 3600 / 60);
	else
		snprintf(buf, size, "%" PRIu64 "d%02" PRIu64 "h", s / 86400,
			 s % 86400 / 3600);
	return buf;
}

const char *ft_flow_family_name(const struct ft_flow *f, char *buf, size_t size)
{
	switch (f->family) {
	case AF_INET:
		return "ipv4";
	case AF_INET6:
		return "ipv6";
	}
	snprintf(buf, size, "%u", f->family);
	return buf;
}

const char *ft_flow_proto_name(const struct ft_flow *f, char *buf, size_t size)
{
	switch (f->proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	}
	snprintf(buf, size, "%u", f->proto);
	return buf;
}

const char *ft_flow_dir_name(const struct ft_flow *f)
{
	return f->dir ? "reply" : "original";
}

const char *ft_flow_reason_name(uint32_t reason, char *buf, size_t size)
{
	static const char *const names[] = {
		[FASTTRACK_REASON_EXPIRED]	= "expired",
		[FASTTRACK_REASON_TORN_DOWN]	= "torn-down",
		[FASTTRACK_REASON_CT_GONE]	= "ct-gone",
		[FASTTRACK_REASON_DEVICE]	= "device",
		[FASTTRACK_REASON_ROUTE]	= "route",
		[FASTTRACK_REASON_NEIGH]	= "neigh",
		[FASTTRACK_REASON_FLUSH]	= "flush",
		[FASTTRACK_REASON_RULESET]	= "ruleset",
	};

	if (reason < MNL_ARRAY_SIZE(names) && names[reason])
		return names[reason];
	/* A reason added after this ftctl: its number. */
	snprintf(buf, size, "%" PRIu32, reason);
	return buf;
}

/* ------------------------------------------------------------ output -- */

#define ADDR_STR	INET6_ADDRSTRLEN
#define ENDPOINT_STR	(ADDR_STR + 8)

/*
 * Decimal digits of @v, written backwards to end at @end; returns the
 * first. printf() and inet_ntop() (which prints IPv4 with sprintf()) cost
 * most of a 100 000-flow dump otherwise.
 */
static char *u64_digits(uint64_t v, char *end)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

static void put_u64(FILE *out, uint64_t v)
{
	char buf[20];
	char *p = u64_digits(v, buf + sizeof(buf));

	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), out);
}

static const char *addr_str(const uint8_t *addr, uint8_t len, char *buf,
			    size_t size)
{
	if (len == 4 && size >= INET_ADDRSTRLEN) {
		char *p = buf;
		int i;

		for (i = 0; i < 4; i++) {
			char d[3], *q = u64_digits(addr[i], d + sizeof(d));

			while (q < d + sizeof(d))
				*p++ = *q++;
			*p++ = i < 3 ? '.' : '\0';
		}
		return buf;
	}
	if (!len || !inet_ntop(len == 4 ? AF_INET : AF_INET6, addr, buf,
			       (socklen_t)size))
		snprintf(buf, size, "-");
	return buf;
}

/* "198.18.22.2:40000", "[2001:db8:22::2]:40000" */
static const char *endpoint_str(const uint8_t *addr, uint8_t len,
				uint16_t port, char *buf, size_t size)
{
	char a[ADDR_STR];

	addr_str(addr, len, a, sizeof(a));
	snprintf(buf, size, len == 16 ? "[%s]:%u" : "%s:%u", a, port);
	return buf;
}

static bool translated(const struct ft_flow *f)
{
	if (!FT_FLOW_HAS(f, FASTTRACK_A_FLOW_NAT_SRC) &&
	    !FT_FLOW_HAS(f, FASTTRACK_A_FLOW_NAT_DST))
		return false;
	return f->nat_src_len != f->src_len || f->nat_dst_len != f->dst_len ||
	       memcmp(f->nat_src, f->src, f->src_len) ||
	       memcmp(f->nat_dst, f->dst, f->dst_len) ||
	       f->nat_sport != f->sport || f->nat_dport != f->dport;
}

/* "vlan22 vid 22", "eth1" */
static const char *dev_str(uint32_t ifindex, bool has_vlan, uint16_t vlan,
			   char *buf, size_t size)
{
	char name[IF_NAMESIZE + 8];

	ft_ifname(ifindex, name, sizeof(name));
	if (has_vlan)
		snprintf(buf, size, "%s vid %u", name, vlan);
	else
		snprintf(buf, size, "%s", name);
	return buf;
}

void ft_flow_print_text(const struct ftctl *ft, FILE *out,
			const struct ft_flow *f, enum ft_flow_event ev)
{
	char src[ENDPOINT_STR], dst[ENDPOINT_STR], b1[16], b2[16];
	char in[IF_NAMESIZE + 32], o[IF_NAMESIZE + 32];
	/* Padding on a terminal only: room for IPv4 endpoints and names. */
	int ew = ft->tty ? 21 : 0, dw = ft->tty ? 16 : 0;
	int pw = ft->tty ? 8 : 0, bw = ft->tty ? 10 : 0;

	fprintf(out, "%s %s %-*s -> %-*s",
		ft_flow_family_name(f, b1, sizeof(b1)),
		ft_flow_proto_name(f, b2, sizeof(b2)),
		ew, endpoint_str(f->src, f->src_len, f->sport, src, sizeof(src)),
		ew, endpoint_str(f->dst, f->dst_len, f->dport, dst, sizeof(dst)));
	if (translated(f))
		fprintf(out, " %snat%s %s -> %s", ft_color(ft, FT_C_BOLD),
			ft_color(ft, FT_C_RESET),
			endpoint_str(f->nat_src, f->nat_src_len, f->nat_sport,
				     src, sizeof(src)),
			endpoint_str(f->nat_dst, f->nat_dst_len, f->nat_dport,
				     dst, sizeof(dst)));
	fprintf(out, " in %-*s out %-*s dir %-*s",
		dw, dev_str(f->iif, FT_FLOW_HAS(f, FASTTRACK_A_FLOW_IIF_VLAN),
			    f->iif_vlan, in, sizeof(in)),
		dw, dev_str(f->oif, FT_FLOW_HAS(f, FASTTRACK_A_FLOW_OIF_VLAN),
			    f->oif_vlan, o, sizeof(o)),
		ft->tty ? 8 : 0, ft_flow_dir_name(f));
	if (ev != FT_FLOW_EV_NEW)
		fprintf(out, " packets %*" PRIu64 " bytes %*" PRIu64 " age %s idle %s",
			pw, f->packets, bw, f->bytes,
			ft_duration(f->age_ms, src, sizeof(src)),
			ft_duration(f->idle_ms, dst, sizeof(dst)));
	fprintf(out, " id %" PRIu32, f->id);
}

/* A dump field: the value, or "-" when the kernel did not send it. */
static void dump_u64(FILE *out, const struct ft_flow *f, uint16_t attr,
		     uint64_t val, bool last)
{
	if (FT_FLOW_HAS(f, attr))
		put_u64(out, val);
	else
		fputc('-', out);
	fputc(last ? '\n' : '\t', out);
}

static void dump_str(FILE *out, const char *s)
{
	fputs(s, out);
	fputc('\t', out);
}

void ft_flow_print_dump(FILE *out, const struct ft_flow *f)
{
	char a[ADDR_STR], b[16];

	dump_u64(out, f, FASTTRACK_A_FLOW_ID, f->id, false);
	dump_str(out, ft_flow_family_name(f, b, sizeof(b)));
	dump_str(out, ft_flow_proto_name(f, b, sizeof(b)));
	dump_str(out, ft_flow_dir_name(f));
	dump_str(out, addr_str(f->src, f->src_len, a, sizeof(a)));
	dump_u64(out, f, FASTTRACK_A_FLOW_SPORT, f->sport, false);
	dump_str(out, addr_str(f->dst, f->dst_len, a, sizeof(a)));
	dump_u64(out, f, FASTTRACK_A_FLOW_DPORT, f->dport, false);
	dump_str(out, addr_str(f->nat_src, f->nat_src_len, a, sizeof(a)));
	dump_u64(out, f, FASTTRACK_A_FLOW_NAT_SPORT, f->nat_sport, false);
	dump_str(out, addr_str(f->nat_dst, f->nat_dst_len, a, sizeof(a)));
	dump_u64(out, f, FASTTRACK_A_FLOW_NAT_DPORT, f->nat_dport, false);
	dump_str(out, ft_ifname(f->iif, a, sizeof(a)));
	dump_u64(out, f, FASTTRACK_A_FLOW_IIF_VLAN, f->iif_vlan, false);
	dump_str(out, ft_ifname(f->oif, a, sizeof(a)));
	dump_u64(out, f, FASTTRACK_A_FLOW_OIF_VLAN, f->oif_vlan, false);
	dump_u64(out, f, FASTTRACK_A_FLOW_PACKETS, f->packets, false);
	dump_u64(out, f, FASTTRACK_A_FLOW_BYTES, f->bytes, false);
	dump_u64(out, f, FASTTRACK_A_FLOW_AGE_MS, f->age_ms, false);
	dump_u64(out, f, FASTTRACK_A_FLOW_IDLE_MS, f->idle_ms, true);
}

static void json_u64_if(struct json *j, const struct ft_flow *f,
			uint16_t attr, const char *key, uint64_t val)
{
	if (FT_FLOW_HAS(f, attr))
		json_u64(j, key, val);
}

static void json_addr_if(struct json *j, const struct ft_flow *f,
			 uint16_t attr, const char *key, const uint8_t *addr,
			 uint8_t len)
{
	char a[ADDR_STR];

	if (FT_FLOW_HAS(f, attr))
		json_str(j, key, addr_str(addr, len, a, sizeof(a)));
}

void ft_flow_json(struct json *j, const struct ft_flow *f)
{
	char b[IF_NAMESIZE + 8];

	json_u64_if(j, f, FASTTRACK_A_FLOW_ID, "id", f->id);
	json_str(j, "family", ft_flow_family_name(f, b, sizeof(b)));
	json_str(j, "proto", ft_flow_proto_name(f, b, sizeof(b)));
	json_str(j, "dir", ft_flow_dir_name(f));
	json_addr_if(j, f, FASTTRACK_A_FLOW_SRC, "src", f->src, f->src_len);
	json_u64_if(j, f, FASTTRACK_A_FLOW_SPORT, "sport", f->sport);
	json_addr_if(j, f, FASTTRACK_A_FLOW_DST, "dst", f->dst, f->dst_len);
	json_u64_if(j, f, FASTTRACK_A_FLOW_DPORT, "dport", f->dport);
	json_addr_if(j, f, FASTTRACK_A_FLOW_NAT_SRC, "nat_src", f->nat_src,
		     f->nat_src_len);
	json_u64_if(j, f, FASTTRACK_A_FLOW_NAT_SPORT, "nat_sport", f->nat_sport);
	json_addr_if(j, f, FASTTRACK_A_FLOW_NAT_DST, "nat_dst", f->nat_dst,
		     f->nat_dst_len);
	json_u64_if(j, f, FASTTRACK_A_FLOW_NAT_DPORT, "nat_dport", f->nat_dport);
	if (FT_FLOW_HAS(f, FASTTRACK_A_FLOW_IIF)) {
		json_u64(j, "iif", f->iif);
		json_str(j, "iif_name", ft_ifname(f->iif, b, sizeof(b)));
	}
	json_u64_if(j, f, FASTTRACK_A_FLOW_IIF_VLAN, "iif_vlan", f->iif_vlan);
	if (FT_FLOW_HAS(f, FASTTRACK_A_FLOW_OIF)) {
		json_u64(j, "oif", f->oif);
		json_str(j, "oif_name", ft_ifname(f->oif, b, sizeof(b)));
	}
	json_u64_if(j, f, FASTTRACK_A_FLOW_OIF_VLAN, "oif_vlan", f->oif_vlan);
	json_u64_if(j, f, FASTTRACK_A_FLOW_PACKETS, "packets", f->packets);
	json_u64_if(j, f, FASTTRACK_A_FLOW_BYTES, "bytes", f->bytes);
	json_u64_if(j, f, FASTTRACK_A_FLOW_AGE_MS, "age_ms", f->age_ms);
	json_u64_if(j, f, FASTTRACK_A_FLOW_IDLE_MS, "idle_ms", f->idle_ms);
}
