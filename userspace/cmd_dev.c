// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl enable, disable and show: per-device state.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fasttrack.h>

#include "batch_state.h"
#include "commands.h"
#include "dev.h"
#include "dispatch.h"
#include "enabled.h"
#include "json.h"
#include "parse.h"
#include "print.h"
#include "rules.h"
#include "session.h"
#include "state.h"
#include "stats.h"
#include "xdp.h"

/* The family words after a device name; 0 when none is named. */
static int parse_families(struct ftctl *ft, int argc, char **argv,
			  uint32_t *families)
{
	int i;

	*families = 0;
	for (i = 0; i < argc; i++) {
		uint32_t flag;

		if (parse_family(argv[i], &flag))
			return ft_usage(ft, "unknown family '%s' (expected ipv4 or ipv6)",
					argv[i]);
		if (*families & flag)
			return ft_usage(ft, "family '%s' given twice", argv[i]);
		*families |= flag;
	}
	return FT_OK;
}

struct dev_args {
	const char *dev;	/* NULL with "all" */
	uint32_t families;	/* 0 when no family is named */
	bool force;		/* -f: not enabled is not an error */
	bool all;		/* "disable all" */
};

/*
 * [-f|--force] DEV [FAMILY...], or for disable also "all"; -f only for
 * disable.
 */
static int parse_dev_args(struct ftctl *ft, int argc, char **argv,
			  bool disable, struct dev_args *a)
{
	int i = 1, ret;

	memset(a, 0, sizeof(*a));
	while (disable && i < argc &&
	       (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force"))) {
		a->force = true;
		i++;
	}
	if (i >= argc)
		return ft_usage(ft, "missing device name");
	if (argv[i][0] == '-')
		return ft_usage(ft, "unknown option '%s'", argv[i]);

	ret = parse_families(ft, argc - i - 1, argv + i + 1, &a->families);
	if (ret)
		return ret;
	if (disable && !strcmp(argv[i], "all")) {
		a->all = true;
		return FT_OK;
	}
	a->dev = argv[i];
	/* A name no device has yet, or a pattern, may be a rule. */
	if (check_ifname(a->dev) == -ENODEV)
		return FT_OK;
	return ft_check_dev(ft, a->dev);
}

int cmd_enable(struct ftctl *ft, int argc, char **argv)
{
	struct dev_args a;
	int ret;

	ret = parse_dev_args(ft, argc, argv, false, &a);
	if (ret)
		return ret;
	/* "enable DEV" means both families. */
	if (!a.families)
		a.families = __FASTTRACK_F_ALL;

	ret = ft_connect(ft);
	if (ret)
		return ret;
	/* Enabling is additive, so enabling what is enabled succeeds. */
	ret = ft_rule_change(ft, true, a.dev, a.families, false);
	if (ret)
		return ret;
	ft_batch_enabled(ft, a.dev, a.families);
	return FT_OK;
}

int cmd_disable(struct ftctl *ft, int argc, char **argv)
{
	struct dev_args a;
	int ret;

	ret = parse_dev_args(ft, argc, argv, true, &a);
	if (ret)
		return ret;
	/* Forced: without the module, nothing is enabled. */
	if (a.force && access("/sys/module/fasttrack", F_OK))
		return FT_OK;

	ret = ft_connect(ft);
	if (ret)
		return ret;
	if (a.all) {
		/* In a batch, what the rest of the batch enables stays. */
		if (!a.families)
			a.families = __FASTTRACK_F_ALL;
		if (ft_batch_disable_all(ft, a.families))
			return FT_OK;
		return ft_disable_all(ft, a.families, NULL, NULL);
	}

	return ft_rule_change(ft, false, a.dev, a.families, a.force);
}

/* "punted": {"no_entry": N, ...}, if the module counts them per device. */
static void json_punted(struct json *j, const struct stats *punted)
{
	const struct stat_desc *s;
	bool open = false;

	for (s = ft_punted_stats; s->attr; s++) {
		if (!punted->have[s->attr])
			continue;
		if (!open)
			json_obj_open(j, "punted");
		open = true;
		json_u64(j, s->json, punted->val[s->attr]);
	}
	if (open)
		json_obj_close(j);
}

/*
 * The tier that carries @d's packets, where the module has the XDP tier:
 * "xdp" when the program is attached to it (or to the real device under
 * it), "skb" otherwise; NULL when that cannot be told (the pins need
 * root) or the module has no XDP tier.
 */
static const char *dev_tier(const struct ft_dev *d)
{
	int on;

	if (!d->have_xdp_blocked)
		return NULL;
	on = ft_xdp_tier(d->ifindex, d->ifname);
	return on < 0 ? NULL : on ? "xdp" : "skb";
}

/* "tier", "xdp_blocked": [...] and, per family, "xdp": {...} if sent. */
static void json_xdp(struct json *j, const struct ft_dev *d)
{
	const char *tier = dev_tier(d);
	unsigned int b;

	if (tier)
		json_str(j, "tier", tier);
	if (!d->have_xdp_blocked)
		return;
	json_arr_open(j, "xdp_blocked");
	for (b = 0; ft_xdp_blocked_names[b]; b++)
		if (d->xdp_blocked & (1U << b))
			json_str(j, NULL, ft_xdp_blocked_names[b]);
	json_arr_close(j);
}

static void json_fam_xdp(struct json *j, const struct ft_devfam *fam)
{
	if (!fam->have_xdp)
		return;
	json_obj_open(j, "xdp");
	json_u64(j, "packets", fam->xdp_packets);
	json_u64(j, "bytes", fam->xdp_bytes);
	json_obj_close(j);
}

/*
 * "  tier: xdp" or "skb", and why the XDP tier steps aside:
 * "  tier: skb (xdp steps aside: tap, qdisc)". Nothing from a module
 * without the XDP tier.
 */
static void print_tier(const struct ft_dev *d)
{
	const char *tier = dev_tier(d);
	const char *sep = "";
	unsigned int b;

	if (!d->have_xdp_blocked)
		return;
	printf("  tier: %s", tier ? tier : "unknown (reading the XDP tier's pins needs root)");
	if (d->xdp_blocked) {
		printf(" (xdp steps aside:");
		for (b = 0; ft_xdp_blocked_names[b]; b++) {
			if (!(d->xdp_blocked & (1U << b)))
				continue;
			printf("%s %s", sep, ft_xdp_blocked_names[b]);
			sep = ",";
		}
		putchar(')');
	}
	putchar('\n');
}

static void print_json(const struct ftctl *ft, const struct dev_list *list)
{
	struct json j;
	size_t i;
	unsigned int f;

	json_init(&j, stdout, ft->tty);
	json_arr_open(&j, NULL);
	for (i = 0; i < list->n; i++) {
		const struct ft_dev *d = &list->devs[i];

		json_obj_open(&j, NULL);
		json_str(&j, "ifname", d->ifname);
		json_u64(&j, "ifindex", d->ifindex);
		for (f = 0; f < FT_NFAMILIES; f++) {
			json_obj_open(&j, ft_families[f].name);
			json_bool(&j, "enabled", d->fam[f].enabled);
			json_u64(&j, "packets", d->fam[f].packets);
			json_u64(&j, "bytes", d->fam[f].bytes);
			json_punted(&j, &d->fam[f].punted);
			json_fam_xdp(&j, &d->fam[f]);
			json_obj_close(&j);
		}
		json_xdp(&j, d);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_end(&j);
}

static int num_width(uint64_t v)
{
	int w = 1;

	while (v >= 10) {
		v /= 10;
		w++;
	}
	return w;
}

/*
 * vlan22 (ifindex 5)
 *   ipv4: on  packets 123 bytes 4567 (xdp packets 100 bytes 4000)
 *   ipv6: off packets 0 bytes 0 (xdp packets 0 bytes 0)
 *   tier: xdp
 *
 * (the xdp parts from a module with the XDP tier).
 * On a terminal the counters are right-aligned across all devices.
 */
static void print_human(const struct ftctl *ft, const struct dev_list *list)
{
	int pw = 0, bw = 0;
	unsigned int f;
	size_t i;

	if (ft->tty) {
		for (i = 0; i < list->n; i++) {
			for (f = 0; f < FT_NFAMILIES; f++) {
				const struct ft_devfam *fam = &list->devs[i].fam[f];

				if (num_width(fam->packets) > pw)
					pw = num_width(fam->packets);
				if (num_width(fam->bytes) > bw)
					bw = num_width(fam->bytes);
			}
		}
		if (!list->n)
			printf("fasttrack is not enabled on any device\n");
	}

	for (i = 0; i < list->n; i++) {
		const struct ft_dev *d = &list->devs[i];

		printf("%s%s%s (ifindex %" PRIu32 ")\n", ft_color(ft, FT_C_BOLD),
		       d->ifname, ft_color(ft, FT_C_RESET), d->ifindex);
		for (f = 0; f < FT_NFAMILIES; f++) {
			const struct ft_devfam *fam = &d->fam[f];

			printf("  %s: %s%-*s%s packets %*" PRIu64 " bytes %*" PRIu64,
			       ft_families[f].name,
			       ft_color(ft, fam->enabled ? FT_C_ON : FT_C_OFF),
			       ft->tty ? 3 : 0, fam->enabled ? "on" : "off",
			       ft_color(ft, FT_C_RESET),
			       pw, fam->packets, bw, fam->bytes);
			/* Of those, the XDP tier's, from a module with it. */
			if (fam->have_xdp)
				printf(" (xdp packets %" PRIu64 " bytes %" PRIu64 ")",
				       fam->xdp_packets, fam->xdp_bytes);
			putchar('\n');
		}
		print_tier(d);
	}
}

/*
 * "show dump": one line per device, tab-separated, for scripts:
 * ifname ifindex ipv4_enabled ipv4_packets ipv4_bytes ipv6_enabled
 * ipv6_packets ipv6_bytes, "enabled" being "on" or "off". The order of
 * the fields never changes; new ones are only ever appended.
 */
static void print_dump(const struct dev_list *list)
{
	unsigned int f;
	size_t i;

	for (i = 0; i < list->n; i++) {
		const struct ft_dev *d = &list->devs[i];

		printf("%s\t%" PRIu32, d->ifname, d->ifindex);
		for (f = 0; f < FT_NFAMILIES; f++)
			printf("\t%s\t%" PRIu64 "\t%" PRIu64,
			       d->fam[f].enabled ? "on" : "off",
			       d->fam[f].packets, d->fam[f].bytes);
		putchar('\n');
	}
}

/*
 * The rules and the enabled devices each matches now:
 *   rules:
 *     vlan* ipv4 ipv6: vlan22 vlan2222
 *     ppp0 ipv4: no device
 * or in JSON, [{"name": "vlan*", "ipv4": true, "ipv6": true,
 * "devices": ["vlan22", "vlan2222"]}, ...].
 */
static void print_rules(const struct ftctl *ft, const struct rule_list *rules,
			const struct dev_list *list)
{
	struct json j;
	unsigned int f;
	size_t i, k;

	if (ft->json) {
		json_init(&j, stdout, ft->tty);
		json_arr_open(&j, NULL);
	} else if (rules->n) {
		printf("rules:\n");
	}
	for (i = 0; i < rules->n; i++) {
		const struct ft_rule *r = &rules->rules[i];
		bool any = false;

		if (ft->json) {
			json_obj_open(&j, NULL);
			json_str(&j, "name", r->pattern);
			for (f = 0; f < FT_NFAMILIES; f++)
				json_bool(&j, ft_families[f].name,
					  r->families & ft_families[f].flag);
			json_arr_open(&j, "devices");
		} else {
			printf("  %s", r->pattern);
			for (f = 0; f < FT_NFAMILIES; f++)
				if (r->families & ft_families[f].flag)
					printf(" %s", ft_families[f].name);
			putchar(':');
		}
		for (k = 0; k < list->n; k++) {
			const struct rule_list one = { (struct ft_rule *)r, 1, 1, true };

			if (!ft_rules_families(&one, list->devs[k].ifname))
				continue;
			if (ft->json)
				json_str(&j, NULL, list->devs[k].ifname);
			else
				printf(" %s", list->devs[k].ifname);
			any = true;
		}
		if (ft->json) {
			json_arr_close(&j);
			json_obj_close(&j);
		} else {
			printf("%s\n", any ? "" : " no device");
		}
	}
	if (ft->json) {
		json_arr_close(&j);
		json_end(&j);
	}
}

/*
 * [dump] [[dev] DEV] or "rules", in any order. The keywords win over a
 * device of that name, which "dev dump" reaches.
 */
static int parse_show_args(struct ftctl *ft, int argc, char **argv,
			   const char **dev, bool *dump, bool *rules)
{
	int i;

	*dev = NULL;
	*dump = false;
	*rules = false;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "dump") && !*dump) {
			*dump = true;
			continue;
		}
		if (!strcmp(argv[i], "rules") && !*rules && !*dev) {
			*rules = true;
			continue;
		}
		if (*dev)
			return ft_usage(ft, "unexpected argument '%s'", argv[i]);
		if (!strcmp(argv[i], "dev")) {
			if (i + 1 >= argc)
				return ft_usage(ft, "missing device name after 'dev'");
			i++;
		}
		*dev = argv[i];
	}
	if (*dump && ft->json)
		return ft_usage(ft, "'dump' is an output form of its own; it does not combine with -j");
	if (*rules && (*dump || *dev))
		return ft_usage(ft, "'show rules' takes no device and no 'dump'");
	return *dev ? ft_check_dev(ft, *dev) : FT_OK;
}

int cmd_show(struct ftctl *ft, int argc, char **argv)
{
	struct rule_list rules = { 0 };
	struct dev_list list = { 0 };
	bool dump, show_rules;
	const char *dev;
	int i, ret;

	/*
	 * "show -r": live rates, the command "top", reached through the
	 * table; ft->cmd stays "show", which its messages name.
	 */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-r") || !strcmp(argv[i], "--rate"))
			return ft_find_command(ft, "top")->fn(ft, argc, argv);

	ret = parse_show_args(ft, argc, argv, &dev, &dump, &show_rules);
	if (ret)
		return ret;

	ret = ft_connect(ft);
	if (ret)
		return ret;

	ret = dev ? ft_dev_get(ft, dev, &list) : ft_dev_list(ft, &list);
	if (!ret && !dev && !dump)
		ret = ft_rule_list(ft, &rules);
	if (ret) {
		ret = ft_request_error(ft, ret, dev, NULL);
		goto out;
	}

	if (show_rules) {
		print_rules(ft, &rules, &list);
	} else if (ft->json) {
		print_json(ft, &list);
	} else if (dump) {
		print_dump(&list);
	} else {
		print_human(ft, &list);
		print_rules(ft, &rules, &list);
	}
	ret = FT_OK;
out:
	free(rules.rules);
	free(list.devs);
	return ret;
}
