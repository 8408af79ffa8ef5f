// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl top (show -r): live rates per device and family.
 *
 * Each interval takes a sample: the time (CLOCK_MONOTONIC), the enabled
 * devices with their per-family fast-path counters (DEV_GET), the
 * namespace's punt counters (STATS_GET) and each device's netdev rx
 * counters (RTM_GETLINK, IFLA_STATS64). The numbers shown are the exact
 * differences of those 64-bit counters between two samples, divided by the
 * time measured between them. The next sample is due at a fixed period
 * from the first (clock_nanosleep with an absolute time), so intervals do
 * not drift by the time the reads take.
 *
 * What the module does not count is not made up: netdev counters are per
 * device, not per family, and are shown as such. Punts are per device and
 * family (FASTTRACK_A_DEVFAM_PUNTED), and per namespace from a module
 * older than those.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/fasttrack.h>

#include "commands.h"
#include "dev.h"
#include "json.h"
#include "link.h"
#include "parse.h"
#include "print.h"
#include "rates.h"
#include "session.h"
#include "state.h"
#include "stats.h"

#define RATES_MAX_DEVS	64

struct rates_args {
	uint64_t interval_ns;
	unsigned long count;		/* intervals; 0: until interrupted */
	const char *devs[RATES_MAX_DEVS];
	uint32_t ifindex[RATES_MAX_DEVS];
	unsigned int ndevs;		/* 0: every enabled device */
};

struct sample {
	uint64_t ns;			/* CLOCK_MONOTONIC */
	struct dev_list list;
	struct ft_link_stats *rx;	/* per device of list */
	bool *have_rx;
	struct stats st;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int add_dev(struct ftctl *ft, struct rates_args *a, const char *dev)
{
	int ret;

	if (a->ndevs == RATES_MAX_DEVS)
		return ft_usage(ft, "at most %d devices", RATES_MAX_DEVS);
	ret = ft_check_dev(ft, dev);
	if (ret)
		return ret;
	a->devs[a->ndevs++] = dev;
	return FT_OK;
}

/*
 * show -r [SECONDS] [-c COUNT] [[dev] DEV...] or top [SECONDS] [-c COUNT]
 * [[dev] DEV...]: SECONDS right after -r (show) or first (top).
 */
static int parse_rates_args(struct ftctl *ft, int argc, char **argv,
			    struct rates_args *a)
{
	bool top = !strcmp(argv[0], "top");
	bool may_interval = top;
	int i, ret;

	memset(a, 0, sizeof(*a));
	a->interval_ns = 1000000000ULL;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		uint32_t count;

		if (!top && (!strcmp(arg, "-r") || !strcmp(arg, "--rate"))) {
			may_interval = true;
			continue;
		}
		if (may_interval && !ft_parse_interval(arg, &a->interval_ns)) {
			may_interval = false;
			continue;
		}
		may_interval = false;
		if (!strcmp(arg, "-c") || !strcmp(arg, "--count")) {
			if (i + 1 >= argc)
				return ft_usage(ft, "missing number after '%s'", arg);
			if (parse_u32(argv[++i], &count, false) || !count)
				return ft_usage(ft, "invalid count '%s' (expected a number of intervals, 1 or more)",
						argv[i]);
			a->count = count;
			continue;
		}
		if (!strcmp(arg, "dev")) {
			if (i + 1 >= argc)
				return ft_usage(ft, "missing device name after 'dev'");
			arg = argv[++i];
		} else if (arg[0] == '-' || !strcmp(arg, "dump")) {
			return ft_usage(ft, "unexpected argument '%s' (expected SECONDS, -c COUNT or devices)",
					arg);
		} else if (arg[0] >= '0' && arg[0] <= '9' &&
			   strspn(arg, "0123456789.") == strlen(arg)) {
			return ft_usage(ft, "invalid interval '%s' (expected seconds, 0.01 to 86400; a device named so is \"dev %s\")",
					arg, arg);
		}
		ret = add_dev(ft, a, arg);
		if (ret)
			return ret;
	}
	if (ft->batch && !a->count)
		return ft_usage(ft, "in a batch, live rates need -c COUNT");
	return FT_OK;
}

static void sample_free(struct sample *s)
{
	free(s->list.devs);
	free(s->rx);
	free(s->have_rx);
	memset(s, 0, sizeof(*s));
}

static bool wanted(const struct rates_args *a, const struct ft_dev *d)
{
	unsigned int i;

	if (!a->ndevs)
		return true;
	for (i = 0; i < a->ndevs; i++)
		if (a->ifindex[i] == d->ifindex)
			return true;
	return false;
}

/* Keep the devices asked for, in ifindex order. */
static void filter_devs(const struct rates_args *a, struct dev_list *list)
{
	size_t i, n = 0;

	for (i = 0; i < list->n; i++)
		if (wanted(a, &list->devs[i]))
			list->devs[n++] = list->devs[i];
	list->n = n;
}

static int sample_take(struct ftctl *ft, struct ft_link *link,
		       const struct rates_args *a, struct sample *s)
{
	size_t i;
	int ret;

	s->ns = now_ns();
	ret = ft_dev_list(ft, &s->list);
	if (ret)
		return ft_request_error(ft, ret, NULL, NULL);
	ret = ft_stats_read(ft, &s->st);
	if (ret)
		return ft_request_error(ft, ret, NULL, NULL);
	filter_devs(a, &s->list);

	s->rx = calloc(s->list.n + 1, sizeof(*s->rx));
	s->have_rx = calloc(s->list.n + 1, sizeof(*s->have_rx));
	if (!s->rx || !s->have_rx) {
		ft_err("out of memory");
		return FT_ERR;
	}
	/* A device that went away since the dump has no rx counters. */
	for (i = 0; i < s->list.n; i++)
		s->have_rx[i] = !ft_link_stats(link, s->list.devs[i].ifindex,
					       &s->rx[i]);
	return FT_OK;
}

/* The device of @prev with @d's ifindex, or -1. */
static long find_prev(const struct sample *prev, const struct ft_dev *d)
{
	size_t i;

	for (i = 0; i < prev->list.n; i++)
		if (prev->list.devs[i].ifindex == d->ifindex)
			return (long)i;
	return -1;
}

/* The deltas of one device over an interval. */
struct dev_delta {
	const struct ft_dev *d;
	bool have_rx;
	uint64_t rx_packets, rx_bytes;
	uint64_t packets[FT_NFAMILIES], bytes[FT_NFAMILIES];
	bool have_punted[FT_NFAMILIES];
	uint64_t punted[FT_NFAMILIES][FASTTRACK_A_STAT_MAX + 1];
	bool have_xdp[FT_NFAMILIES];	/* a module with the XDP tier */
	uint64_t xdp_packets[FT_NFAMILIES], xdp_bytes[FT_NFAMILIES];
};

/* The punts of a family over the interval, by reason, if both samples have them. */
static void punt_deltas(const struct ft_devfam *cur, const struct ft_devfam *prev,
			bool *have, uint64_t *delta)
{
	const struct stat_desc *s;

	*have = false;
	for (s = ft_punted_stats; s->attr; s++) {
		if (!cur->punted.have[s->attr] || !prev->punted.have[s->attr])
			continue;
		*have = true;
		if (cur->punted.val[s->attr] >= prev->punted.val[s->attr])
			delta[s->attr] = cur->punted.val[s->attr] - prev->punted.val[s->attr];
	}
}

/*
 * @d's deltas since @prev. False when it cannot have any: new in this
 * interval, or its counters went back (disabled and enabled again).
 */
static bool dev_delta(const struct sample *prev, const struct sample *cur,
		      size_t i, struct dev_delta *dd)
{
	const struct ft_dev *d = &cur->list.devs[i];
	const struct ft_dev *p;
	long pi = find_prev(prev, d);
	unsigned int f;

	if (pi < 0)
		return false;
	p = &prev->list.devs[pi];
	memset(dd, 0, sizeof(*dd));
	dd->d = d;
	for (f = 0; f < FT_NFAMILIES; f++) {
		if (d->fam[f].packets < p->fam[f].packets ||
		    d->fam[f].bytes < p->fam[f].bytes)
			return false;
		dd->packets[f] = d->fam[f].packets - p->fam[f].packets;
		dd->bytes[f] = d->fam[f].bytes - p->fam[f].bytes;
		punt_deltas(&d->fam[f], &p->fam[f], &dd->have_punted[f], dd->punted[f]);
		dd->have_xdp[f] = d->fam[f].have_xdp && p->fam[f].have_xdp &&
				  d->fam[f].xdp_packets >= p->fam[f].xdp_packets &&
				  d->fam[f].xdp_bytes >= p->fam[f].xdp_bytes;
		if (dd->have_xdp[f]) {
			dd->xdp_packets[f] = d->fam[f].xdp_packets - p->fam[f].xdp_packets;
			dd->xdp_bytes[f] = d->fam[f].xdp_bytes - p->fam[f].xdp_bytes;
		}
	}
	dd->have_rx = cur->have_rx[i] && prev->have_rx[pi] &&
		      cur->rx[i].rx_packets >= prev->rx[pi].rx_packets &&
		      cur->rx[i].rx_bytes >= prev->rx[pi].rx_bytes;
	if (dd->have_rx) {
		dd->rx_packets = cur->rx[i].rx_packets - prev->rx[pi].rx_packets;
		dd->rx_bytes = cur->rx[i].rx_bytes - prev->rx[pi].rx_bytes;
	}
	return true;
}

static uint64_t stat_delta(const struct sample *prev, const struct sample *cur,
			   uint16_t attr)
{
	if (!cur->st.have[attr] || !prev->st.have[attr] ||
	    cur->st.val[attr] < prev->st.val[attr])
		return 0;
	return cur->st.val[attr] - prev->st.val[attr];
}

/* {"packets":N,"bytes":N,"pps":X,"bit_s":X} members. */
static void json_counts(struct json *j, uint64_t packets, uint64_t bytes,
			uint64_t ns)
{
	json_u64(j, "packets", packets);
	json_u64(j, "bytes", bytes);
	json_f64(j, "pps", ft_rate(packets, ns), 3);
	json_f64(j, "bit_s", ft_rate(bytes * 8, ns), 3);
}

static void json_dev(struct json *j, const struct dev_delta *dd, uint64_t ns)
{
	unsigned int f;

	json_obj_open(j, NULL);
	json_str(j, "ifname", dd->d->ifname);
	json_u64(j, "ifindex", dd->d->ifindex);
	if (dd->have_rx) {
		json_obj_open(j, "rx");
		json_counts(j, dd->rx_packets, dd->rx_bytes, ns);
		json_obj_close(j);
	}
	for (f = 0; f < FT_NFAMILIES; f++) {
		json_obj_open(j, ft_families[f].name);
		json_bool(j, "enabled", dd->d->fam[f].enabled);
		json_counts(j, dd->packets[f], dd->bytes[f], ns);
		if (dd->have_rx && dd->rx_packets)
			json_f64(j, "share_pct",
				 100.0 * (double)dd->packets[f] / (double)dd->rx_packets, 2);
		if (dd->have_xdp[f]) {
			json_obj_open(j, "xdp");
			json_counts(j, dd->xdp_packets[f], dd->xdp_bytes[f], ns);
			json_obj_close(j);
		}
		if (dd->have_punted[f]) {
			const struct stat_desc *s;

			json_obj_open(j, "punted");
			for (s = ft_punted_stats; s->attr; s++)
				json_u64(j, s->json, dd->punted[f][s->attr]);
			json_obj_close(j);
			json_obj_open(j, "punted_pps");
			for (s = ft_punted_stats; s->attr; s++)
				json_f64(j, s->json, ft_rate(dd->punted[f][s->attr], ns), 3);
			json_obj_close(j);
		}
		json_obj_close(j);
	}
	json_obj_close(j);
}

static void print_json(const struct sample *prev, const struct sample *cur)
{
	uint64_t ns = cur->ns - prev->ns;
	const struct stat_desc *s;
	struct dev_delta dd;
	struct json j;
	size_t i;

	json_init(&j, stdout, false);
	json_obj_open(&j, NULL);
	json_u64(&j, "json_schema_version", FT_JSON_SCHEMA_VERSION);
	json_u64(&j, "elapsed_ns", ns);
	json_arr_open(&j, "devices");
	for (i = 0; i < cur->list.n; i++)
		if (dev_delta(prev, cur, i, &dd))
			json_dev(&j, &dd, ns);
	json_arr_close(&j);

	json_obj_open(&j, "forwarded");
	json_counts(&j, stat_delta(prev, cur, FASTTRACK_A_STAT_FORWARDED_PKTS),
		    stat_delta(prev, cur, FASTTRACK_A_STAT_FORWARDED_BYTES), ns);
	json_obj_close(&j);
	json_obj_open(&j, "punted");
	for (s = ft_punted_stats; s->attr; s++)
		if (cur->st.have[s->attr])
			json_u64(&j, s->json, stat_delta(prev, cur, s->attr));
	json_obj_close(&j);
	json_obj_open(&j, "punted_pps");
	for (s = ft_punted_stats; s->attr; s++)
		if (cur->st.have[s->attr])
			json_f64(&j, s->json,
				 ft_rate(stat_delta(prev, cur, s->attr), ns), 3);
	json_obj_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

/* "  punted: no-entry 3/s stale 1/s", the reasons that moved, or "none". */
static void print_punts(const uint64_t *delta, uint64_t ns)
{
	const struct stat_desc *s;
	bool any = false;
	char b[32];

	printf("  punted:");
	for (s = ft_punted_stats; s->attr; s++) {
		if (!delta[s->attr])
			continue;
		printf(" %s %s", s->label, ft_si(ft_rate(delta[s->attr], ns), "/s", b, sizeof(b)));
		any = true;
	}
	if (!any)
		printf(" none");
}

/*
 * vlan22 (ifindex 5): received 12.5 kpps 151 Mbit/s
 *   ipv4 on   fast path 12.3 kpps 149 Mbit/s  98.4% of received  xdp 12 kpps 145 Mbit/s
 *   ipv6 off  fast path 0 pps 0 bit/s
 * ("xdp": of the fast path's, the XDP tier's, from a module with it).
 */
static void print_dev(const struct ftctl *ft, const struct dev_delta *dd,
		      uint64_t ns)
{
	char b1[32], b2[32];
	unsigned int f;

	printf("%s%s%s (ifindex %" PRIu32 "): ", ft_color(ft, FT_C_BOLD),
	       dd->d->ifname, ft_color(ft, FT_C_RESET), dd->d->ifindex);
	if (dd->have_rx)
		printf("received %s %s\n",
		       ft_si(ft_rate(dd->rx_packets, ns), "pps", b1, sizeof(b1)),
		       ft_si(ft_rate(dd->rx_bytes * 8, ns), "bit/s", b2, sizeof(b2)));
	else
		printf("received: no counters\n");
	for (f = 0; f < FT_NFAMILIES; f++) {
		const struct ft_devfam *fam = &dd->d->fam[f];

		printf("  %s %s%-3s%s fast path %10s %12s", ft_families[f].name,
		       ft_color(ft, fam->enabled ? FT_C_ON : FT_C_OFF),
		       fam->enabled ? "on" : "off", ft_color(ft, FT_C_RESET),
		       ft_si(ft_rate(dd->packets[f], ns), "pps", b1, sizeof(b1)),
		       ft_si(ft_rate(dd->bytes[f] * 8, ns), "bit/s", b2, sizeof(b2)));
		if (dd->have_rx && dd->rx_packets)
			printf("  %5.1f%% of received",
			       100.0 * (double)dd->packets[f] / (double)dd->rx_packets);
		/* Of the fast path's, the XDP tier's. */
		if (dd->have_xdp[f])
			printf("  xdp %s %s",
			       ft_si(ft_rate(dd->xdp_packets[f], ns), "pps", b1, sizeof(b1)),
			       ft_si(ft_rate(dd->xdp_bytes[f] * 8, ns), "bit/s", b2, sizeof(b2)));
		if (dd->have_punted[f])
			print_punts(dd->punted[f], ns);
		putchar('\n');
	}
}

static void print_human(const struct ftctl *ft, const struct sample *prev,
			const struct sample *cur)
{
	uint64_t ns = cur->ns - prev->ns;
	const struct stat_desc *s;
	struct dev_delta dd;
	unsigned int shown = 0;
	bool any = false;
	char b[32];
	size_t i;

	if (ft->tty)
		fputs("\033[H\033[2J", stdout);
	printf("%sfasttrack rates over %.3f s%s (netdev rx counts every family)\n",
	       ft_color(ft, FT_C_BOLD), (double)ns / 1e9, ft_color(ft, FT_C_RESET));
	for (i = 0; i < cur->list.n; i++) {
		if (!dev_delta(prev, cur, i, &dd))
			continue;
		print_dev(ft, &dd, ns);
		shown++;
	}
	if (!shown)
		printf("no enabled device to show\n");
	printf("punted, all devices:");
	for (s = ft_punted_stats; s->attr; s++) {
		uint64_t d = stat_delta(prev, cur, s->attr);

		if (!d)
			continue;
		printf(" %s %s", s->label, ft_si(ft_rate(d, ns), "/s", b, sizeof(b)));
		any = true;
	}
	printf("%s\n", any ? "" : " none");
	if (!ft->tty)
		putchar('\n');
	fflush(stdout);
}

/* The devices named on the command line must be enabled at the start. */
static int check_named(struct ftctl *ft, struct rates_args *a)
{
	struct dev_list list = { 0 };
	unsigned int i;
	int ret = FT_OK;

	for (i = 0; i < a->ndevs && ret == FT_OK; i++) {
		ret = ft_dev_get(ft, a->devs[i], &list);
		if (ret) {
			ret = ft_request_error(ft, ret, a->devs[i], NULL);
			break;
		}
		a->ifindex[i] = list.n ? list.devs[0].ifindex : 0;
	}
	free(list.devs);
	return ret;
}

static void wait_until(uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline / 1000000000ULL),
		.tv_nsec = (long)(deadline % 1000000000ULL),
	};

	while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					NULL) == EINTR)
		;
}

static int rates_loop(struct ftctl *ft, struct ft_link *link,
		      const struct rates_args *a)
{
	struct sample s[2] = { { 0 }, { 0 } };
	unsigned long n = 0;
	uint64_t start;
	int cur = 0, ret;

	ret = sample_take(ft, link, a, &s[cur]);
	start = s[cur].ns;
	while (!ret && !stop && (!a->count || n < a->count)) {
		wait_until(start + (n + 1) * a->interval_ns);
		if (stop)
			break;
		cur ^= 1;
		sample_free(&s[cur]);
		ret = sample_take(ft, link, a, &s[cur]);
		if (ret)
			break;
		if (ft->json)
			print_json(&s[cur ^ 1], &s[cur]);
		else
			print_human(ft, &s[cur ^ 1], &s[cur]);
		n++;
	}
	sample_free(&s[0]);
	sample_free(&s[1]);
	return ret;
}

int cmd_rates(struct ftctl *ft, int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct rates_args a;
	struct ft_link link;
	int ret;

	ret = parse_rates_args(ft, argc, argv, &a);
	if (ret)
		return ret;
	ret = ft_connect(ft);
	if (ret)
		return ret;
	ret = check_named(ft, &a);
	if (ret)
		return ret;
	ret = ft_link_open(&link);
	if (ret) {
		ft_err("cannot open an rtnetlink socket for the device counters: %s",
		       strerror(-ret));
		return FT_ERR;
	}

	stop = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = rates_loop(ft, &link, &a);
	ft_link_close(&link);
	return ret;
}
