// SPDX-License-Identifier: GPL-2.0
/* Reading the per-CPU counters; fasttrack.h adds to them. */
#include "fasttrack.h"

void ft_stats_read_cpu(struct ft_net *fn, int cpu, u64 *out)
{
	const struct ft_stats_pcpu *s = per_cpu_ptr(fn->stats, cpu);
	unsigned int start;
	int i;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		for (i = 0; i < FT_STAT_NUM; i++)
			out[i] = u64_stats_read(&s->cnt[i]);
	} while (u64_stats_fetch_retry(&s->syncp, start));
}

void ft_stats_read(struct ft_net *fn, u64 *out)
{
	u64 v[FT_STAT_NUM];
	int cpu, i;

	memset(out, 0, sizeof(*out) * FT_STAT_NUM);
	for_each_possible_cpu(cpu) {
		ft_stats_read_cpu(fn, cpu, v);
		for (i = 0; i < FT_STAT_NUM; i++)
			out[i] += v[i];
	}
}

/* The reason a flow was removed, for events, from its counter. */
u32 ft_stat_reason(enum ft_stat stat)
{
	switch (stat) {
	case FT_STAT_EXPIRED:
		return FASTTRACK_REASON_EXPIRED;
	case FT_STAT_TORN_DOWN:
		return FASTTRACK_REASON_TORN_DOWN;
	case FT_STAT_CT_GONE:
		return FASTTRACK_REASON_CT_GONE;
	case FT_STAT_ROUTE_CHANGED:
		return FASTTRACK_REASON_ROUTE;
	case FT_STAT_NEIGH_CHANGED:
		return FASTTRACK_REASON_NEIGH;
	case FT_STAT_FLUSHED:
		return FASTTRACK_REASON_FLUSH;
	case FT_STAT_RULESET_CHANGED:
		return FASTTRACK_REASON_RULESET;
	case FT_REASON_NETNS:
		return FASTTRACK_REASON_NETNS;
	default:
		return FASTTRACK_REASON_DEVICE;
	}
}

void ft_dev_stats_read(const struct ft_dev *fd, enum ft_fam fam,
		       struct ft_dev_counts *c)
{
	int cpu;

	memset(c, 0, sizeof(*c));
	for_each_possible_cpu(cpu) {
		const struct ft_dev_stats_pcpu *s = per_cpu_ptr(fd->stats, cpu);
		struct ft_dev_counts v;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			v.packets = u64_stats_read(&s->packets[fam]);
			v.bytes = u64_stats_read(&s->bytes[fam]);
			v.xdp_packets = u64_stats_read(&s->xdp_packets[fam]);
			v.xdp_bytes = u64_stats_read(&s->xdp_bytes[fam]);
		} while (u64_stats_fetch_retry(&s->syncp, start));

		c->packets += v.packets;
		c->bytes += v.bytes;
		c->xdp_packets += v.xdp_packets;
		c->xdp_bytes += v.xdp_bytes;
	}
}

const enum ft_stat ft_punt_stat[FT_PUNT_NUM] = {
	[FT_PUNT_NO_ENTRY]		= FT_STAT_PUNT_NO_ENTRY,
	[FT_PUNT_FRAGMENT]		= FT_STAT_PUNT_FRAGMENT,
	[FT_PUNT_OPTIONS]		= FT_STAT_PUNT_OPTIONS,
	[FT_PUNT_TTL]			= FT_STAT_PUNT_TTL,
	[FT_PUNT_MTU]			= FT_STAT_PUNT_MTU,
	[FT_PUNT_TCP_FLAGS]		= FT_STAT_PUNT_TCP_FLAGS,
	[FT_PUNT_NOT_WRITABLE]		= FT_STAT_PUNT_NOT_WRITABLE,
	[FT_PUNT_MALFORMED]		= FT_STAT_PUNT_MALFORMED,
	[FT_PUNT_UNKNOWN]		= FT_STAT_PUNT_UNKNOWN,
	[FT_PUNT_STALE]			= FT_STAT_PUNT_STALE,
	[FT_PUNT_NOT_FORWARDING]	= FT_STAT_PUNT_NOT_FORWARDING,
	[FT_PUNT_PORT]			= FT_STAT_PUNT_PORT,
};

void ft_dev_punts_read(const struct ft_dev *fd, enum ft_fam fam,
		       u64 punted[FT_PUNT_NUM])
{
	int cpu, i;

	memset(punted, 0, sizeof(*punted) * FT_PUNT_NUM);
	for_each_possible_cpu(cpu) {
		const struct ft_dev_stats_pcpu *s = per_cpu_ptr(fd->stats, cpu);
		u64 v[FT_PUNT_NUM];
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < FT_PUNT_NUM; i++)
				v[i] = u64_stats_read(&s->punted[fam][i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));

		for (i = 0; i < FT_PUNT_NUM; i++)
			punted[i] += v[i];
	}
}
