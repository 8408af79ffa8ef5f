/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: one cached flow direction, as FASTTRACK_CMD_FLOW_GET and the
 * flow events carry it (a FASTTRACK_A_FLOW nest), and its three output
 * forms: a text line, a tab-separated "dump" line and a JSON object.
 * Shared by "flows" and "monitor".
 */
#ifndef FTCTL_FLOW_H
#define FTCTL_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "state.h"
#include "json.h"

struct nlattr;

struct ft_flow {
	uint64_t have;		/* bit (1 << FASTTRACK_A_FLOW_*) per attribute */
	uint32_t id;
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t proto;		/* IPPROTO_* */
	uint8_t dir;		/* 0 original, 1 reply */
	uint8_t src[16], dst[16], nat_src[16], nat_dst[16];
	uint8_t src_len, dst_len, nat_src_len, nat_dst_len;
	uint16_t sport, dport, nat_sport, nat_dport;	/* host order */
	uint32_t iif, oif;
	uint16_t iif_vlan, oif_vlan;
	uint64_t packets, bytes, age_ms, idle_ms;
	uint32_t reason;	/* enum fasttrack_flow_reason */
};

#define FT_FLOW_HAS(f, attr)	(!!((f)->have & (1ULL << (attr))))

/* The kinds of line a flow is printed as. */
enum ft_flow_event {
	FT_FLOW_LIST,		/* "ftctl flows" */
	FT_FLOW_EV_NEW,		/* "ftctl monitor", FASTTRACK_CMD_FLOW_NEW */
	FT_FLOW_EV_DEL,		/* FASTTRACK_CMD_FLOW_DEL */
};

/*
 * Parse a FASTTRACK_A_FLOW nest into @f. Attributes this ftctl does not
 * know are skipped; a known one of the wrong size is a malformed reply.
 * Returns MNL_CB_OK or MNL_CB_ERROR (errno set).
 */
int ft_flow_parse(const struct nlattr *nest, struct ft_flow *f);

/*
 * Interface names, from if_indextoname(); "if<N>" when there is no such
 * interface (any more). With the cache on, the last few lookups are
 * remembered, which spares two system calls per flow of a long dump; a
 * long-running monitor turns it off so that renames show.
 */
void ft_ifname_cache(bool on);
const char *ft_ifname(uint32_t ifindex, char *buf, size_t size);

/* "12.3s", "4m05s", "2h03m", "3d04h": a duration in ms for people. */
const char *ft_duration(uint64_t ms, char *buf, size_t size);

/* "ipv4", "tcp", "original", "torn-down": names used in every form. */
const char *ft_flow_family_name(const struct ft_flow *f, char *buf, size_t size);
const char *ft_flow_proto_name(const struct ft_flow *f, char *buf, size_t size);
const char *ft_flow_dir_name(const struct ft_flow *f);
const char *ft_flow_reason_name(uint32_t reason, char *buf, size_t size);

/*
 * The text line, without a newline:
 *   ipv4 tcp 198.18.22.2:40000 -> 198.18.222.2:5201
 *   [nat 198.18.2.1:40000 -> 198.18.222.2:5201]
 *   in vlan22 vid 22 out vlan2222 vid 2222 dir original
 *   packets 10 bytes 1500 age 12.3s idle 0.5s id 17
 * On a terminal the columns are padded to fixed widths. A new-flow event
 * leaves out the counters (they are all zero).
 */
void ft_flow_print_text(const struct ftctl *ft, FILE *out,
			const struct ft_flow *f, enum ft_flow_event ev);

/* The tab-separated line of "flows dump", with its newline: 20 fields. */
void ft_flow_print_dump(FILE *out, const struct ft_flow *f);
#define FT_FLOW_DUMP_FIELDS	20

/* The members of one flow's JSON object (the caller opens and closes it). */
void ft_flow_json(struct json *j, const struct ft_flow *f);

#endif /* FTCTL_FLOW_H */
