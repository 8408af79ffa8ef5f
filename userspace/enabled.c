// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: what is enabled, names and patterns (rules) and devices taken
 * together: "disable all" of it, but for what a caller keeps, and the
 * "enable" lines of "ftctl save" that enable it again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/fasttrack.h>

#include "dev.h"
#include "enabled.h"
#include "parse.h"
#include "rules.h"
#include "session.h"
#include "state.h"

struct disable_all {
	uint32_t families;
	uint32_t (*keep)(const struct ft_dev *d, void *data);
	void *data;
	struct rule_list rules;	/* those left: their devices stay */
};

/* The kernel said the device is not enabled (or is gone). */
static bool not_enabled(const struct ftctl *ft, int err)
{
	return ft->nl.kernel_err && (err == -ENOENT || err == -ENODEV);
}

static int disable_one(struct ftctl *ft, const struct ft_dev *d, void *data)
{
	const struct disable_all *da = data;
	uint32_t drop = ft_dev_families(d) & da->families;
	int ret;

	if (da->keep)
		drop &= ~da->keep(d, da->data);
	drop &= ~ft_rules_families(&da->rules, d->ifname);
	if (!drop)
		return FT_OK;
	ret = ft_dev_request(ft, FASTTRACK_CMD_DEV_DISABLE, d->ifname, drop);
	/* A device that went away meanwhile is disabled too. */
	if (ret && !not_enabled(ft, ret))
		return ft_request_error(ft, ret, d->ifname, NULL);
	return FT_OK;
}

/* Remove @da->families from each rule but what @da->keep keeps of it. */
static int disable_rules(struct ftctl *ft, struct disable_all *da)
{
	struct ft_dev as_dev = { 0 };
	size_t i;
	int ret;

	ret = ft_rule_list(ft, &da->rules);
	for (i = 0; !ret && i < da->rules.n; i++) {
		struct ft_rule *r = &da->rules.rules[i];
		uint32_t drop = r->families & da->families;

		/* A rule is kept by the batch line that names it. */
		snprintf(as_dev.ifname, sizeof(as_dev.ifname), "%s", r->pattern);
		if (da->keep)
			drop &= ~da->keep(&as_dev, da->data);
		if (!drop)
			continue;
		ret = ft_dev_request(ft, FASTTRACK_CMD_RULE_DEL, r->pattern, drop);
		if (ret && !not_enabled(ft, ret))
			return ft_request_error(ft, ret, r->pattern, NULL);
		r->families &= ~drop;
		ret = 0;
	}
	return ret ? ft_request_error(ft, ret, NULL, NULL) : FT_OK;
}

int ft_disable_all(struct ftctl *ft, uint32_t families,
		   uint32_t (*keep)(const struct ft_dev *d, void *data),
		   void *data)
{
	struct disable_all da = { families, keep, data, { 0 } };
	int ret;

	ret = disable_rules(ft, &da);
	if (!ret)
		ret = ft_each_dev(ft, disable_one, &da);
	free(da.rules.rules);
	return ret;
}

/* "enable NAME [FAMILY]", the form "ftctl -b" reads back. */
static void save_line(const char *name, uint32_t fams)
{
	unsigned int f;

	if (fams == __FASTTRACK_F_ALL) {
		printf("enable %s\n", name);
		return;
	}
	for (f = 0; f < FT_NFAMILIES; f++)
		if (fams & ft_families[f].flag)
			printf("enable %s %s\n", name, ft_families[f].name);
}

/* A device's families that no rule gives it: enabled by index. */
static int save_enable(struct ftctl *ft, const struct ft_dev *d, void *data)
{
	uint32_t fams = ft_dev_families(d) & ~ft_rules_families(data, d->ifname);

	(void)ft;
	if (fams)
		save_line(d->ifname, fams);
	return FT_OK;
}

/* The rules, in their order, then what devices have beyond them. */
int ft_save_enables(struct ftctl *ft)
{
	struct rule_list rules = { 0 };
	size_t i;
	int ret;

	ret = ft_rule_list(ft, &rules);
	if (ret) {
		free(rules.rules);
		return ft_request_error(ft, ret, NULL, NULL);
	}
	for (i = 0; i < rules.n; i++)
		save_line(rules.rules[i].pattern, rules.rules[i].families);
	ret = ft_each_dev(ft, save_enable, &rules);
	free(rules.rules);
	return ret;
}
