// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: enable rules. "ftctl enable vlan22" and "ftctl enable 'vlan*'"
 * ask the module to keep the name or pattern, so that a device created,
 * renamed or moved in later is enabled too; a module from before rules
 * only enables devices that exist.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fasttrack.h>

#include "dev.h"
#include "parse.h"
#include "print.h"
#include "rules.h"
#include "session.h"
#include "state.h"

bool ft_is_pattern(const char *name)
{
	return strpbrk(name, "*?[");
}

static int rule_attr_cb(const struct nlattr *attr, void *data)
{
	struct ft_rule *r = data;

	switch (mnl_attr_get_type(attr)) {
	case FASTTRACK_A_IFNAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return nl_bad_reply();
		snprintf(r->pattern, sizeof(r->pattern), "%s",
			 mnl_attr_get_str(attr));
		break;
	case FASTTRACK_A_FAMILIES:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return nl_bad_reply();
		r->families = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rule_list *list = data;
	struct ft_rule *r;

	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 16;

		r = realloc(list->rules, cap * sizeof(*r));
		if (!r) {
			errno = ENOMEM;
			return MNL_CB_ERROR;
		}
		list->rules = r;
		list->cap = cap;
	}
	r = &list->rules[list->n];
	memset(r, 0, sizeof(*r));
	if (nl_parse(nlh, rule_attr_cb, r) < 0)
		return MNL_CB_ERROR;
	if (r->pattern[0])
		list->n++;
	return MNL_CB_OK;
}

static void rule_list_reset(void *data)
{
	((struct rule_list *)data)->n = 0;
}

int ft_rule_list(struct ftctl *ft, struct rule_list *list)
{
	struct nlmsghdr *nlh;
	int ret;

	list->n = 0;
	list->supported = true;
	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_RULE_GET, 0);
	ret = nl_dump(&ft->nl, nlh, rule_cb, rule_list_reset, list);
	if (ret == -EOPNOTSUPP && ft->nl.kernel_err) {
		list->supported = false;
		return 0;
	}
	return ret;
}

uint32_t ft_rules_families(const struct rule_list *list, const char *ifname)
{
	uint32_t fams = 0;
	size_t i;

	/* fnmatch() without flags reads a glob as the kernel's glob_match(). */
	for (i = 0; i < list->n; i++)
		if (!fnmatch(list->rules[i].pattern, ifname, 0))
			fams |= list->rules[i].families;
	return fams;
}

/* The kernel said there is no such rule, or device to disable. */
static bool not_enabled(const struct ftctl *ft, int err)
{
	return ft->nl.kernel_err && (err == -ENOENT || err == -ENODEV);
}

int ft_rule_change(struct ftctl *ft, bool enable, const char *dev,
		   uint32_t families, bool force)
{
	uint8_t dev_cmd = enable ? FASTTRACK_CMD_DEV_ENABLE : FASTTRACK_CMD_DEV_DISABLE;
	bool exists = check_ifname(dev) != -ENODEV;
	int ret;

	ret = ft_dev_request(ft, enable ? FASTTRACK_CMD_RULE_ADD :
					  FASTTRACK_CMD_RULE_DEL, dev, families);
	if (ret == -EOPNOTSUPP && ft->nl.kernel_err && !*ft->nl.ext_msg) {
		/* No such command: a module from before rules. */
		if (ft_is_pattern(dev)) {
			ft_err("this fasttrack module does not support patterns (upgrade the module)");
			return FT_ERR;
		}
		if (!exists && force)
			return FT_OK;
		ret = ft_check_dev(ft, dev);
		if (ret)
			return ret;
		ret = ft_dev_request(ft, dev_cmd, dev, families);
	} else if (ret == -ENOENT && ft->nl.kernel_err && !enable &&
		   !ft_is_pattern(dev) && exists) {
		/* Not a rule: a device enabled by index, or by an older ftctl. */
		ret = ft_dev_request(ft, dev_cmd, dev, families);
	}
	if (ret && force && !enable && not_enabled(ft, ret))
		return FT_OK;
	if (ret)
		return ft_request_error(ft, ret, dev, NULL);
	if (*ft->nl.ext_msg)
		ft_warn("%s", ft->nl.ext_msg);
	if (enable && !ft_is_pattern(dev) && !exists)
		ft_warn("%s does not exist yet; it is enabled when it appears", dev);
	return FT_OK;
}
