/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: enable rules, the device names and patterns the module keeps
 * (FASTTRACK_CMD_RULE_ADD, _DEL and the _GET dump).
 */
#ifndef FTCTL_RULES_H
#define FTCTL_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#include "state.h"

struct ft_rule {
	char pattern[IFNAMSIZ];
	uint32_t families;
};

struct rule_list {
	struct ft_rule *rules;
	size_t n, cap;
	bool supported;		/* false: a module from before rules */
};

/* A shell glob, which the module matches against device names. */
bool ft_is_pattern(const char *name);

/*
 * The rules, in the order they were added, into @list (emptied first;
 * the caller frees list->rules). An older module has none. Returns 0 or
 * -errno, for ft_request_error().
 */
int ft_rule_list(struct ftctl *ft, struct rule_list *list);

/* The families the rules of @list give a device named @ifname. */
uint32_t ft_rules_families(const struct rule_list *list, const char *ifname);

/*
 * enable or disable DEV (a device, a name no device has yet, or a
 * pattern): as a rule, or on a module from before rules as a device; a
 * disable of what is not a rule disables the device (enabled by index or
 * by an older ftctl). @force: what is not enabled is no error. Returns
 * FT_OK or FT_ERR (said).
 */
int ft_rule_change(struct ftctl *ft, bool enable, const char *dev,
		   uint32_t families, bool force);

#endif /* FTCTL_RULES_H */
