// SPDX-License-Identifier: GPL-2.0
/*
 * Enable rules: the device names and patterns an operator enabled, kept so
 * that a device that appears later and matches is enabled at once.
 *
 * A rule is a name or a shell glob (*, ?, [...], as glob_match() reads
 * them) and a set of families. Adding one enables every device of the
 * netns it matches; the netns's device notifier then enables each device
 * that is registered, renamed or moved in with a matching name, with no
 * userspace help, so an enable survives "ip link del" and re-creation, a
 * PPPoE reconnect or a netns move. A device a pattern matches that cannot
 * be offloaded is skipped and counted (FT_STAT_RULE_SKIPPED). A device
 * renamed away from every rule stays enabled until it is disabled.
 * Removing a rule disables the families it gave the devices it matches,
 * unless another rule gives them too. Rules and their list are under RTNL.
 */
#include <linux/glob.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "fasttrack.h"

struct ft_dev_rule {
	struct list_head list;		/* ft_net.dev_rules */
	char pattern[IFNAMSIZ];
	u8 families;
};

static bool ft_is_pattern(const char *name)
{
	return strpbrk(name, "*?[");
}

static struct ft_dev_rule *ft_dev_rule_find(struct ft_net *fn,
					    const char *pattern)
{
	struct ft_dev_rule *rule;

	ASSERT_RTNL();
	list_for_each_entry(rule, &fn->dev_rules, list)
		if (!strcmp(rule->pattern, pattern))
			return rule;
	return NULL;
}

/* The families the rules give a device of this name. */
static u8 ft_dev_rules_families(struct ft_net *fn, const char *name)
{
	struct ft_dev_rule *rule;
	u8 families = 0;

	ASSERT_RTNL();
	list_for_each_entry(rule, &fn->dev_rules, list)
		if (glob_match(rule->pattern, name))
			families |= rule->families;
	return families;
}

/*
 * Enable @dev for @families as a rule asks. A device that cannot be
 * offloaded is skipped and counted, unless the rule names it exactly.
 */
static int ft_dev_rule_apply(struct ft_net *fn, struct net_device *dev,
			     u8 families, bool exact,
			     struct netlink_ext_ack *extack)
{
	struct ft_dev *fd = ft_dev_find(fn, dev);

	if (fd && (fd->families & families) == families)
		return 0;
	if (!exact && ft_dev_check(dev, NULL)) {
		local_bh_disable();	/* the per-CPU counters' writers */
		ft_stat_inc(fn, FT_STAT_RULE_SKIPPED);
		local_bh_enable();
		return 0;
	}
	return ft_dev_enable(fn, dev, families, extack);
}

/* A name or pattern a device could have: what dev_valid_name() allows. */
static bool ft_dev_rule_valid(const char *pattern)
{
	return *pattern && strcmp(pattern, ".") && strcmp(pattern, "..") &&
	       !strpbrk(pattern, "/: \t\n");
}

int ft_dev_rule_add(struct ft_net *fn, const struct nlattr *attr,
		    u8 families, struct netlink_ext_ack *extack)
{
	const char *pattern = nla_data(attr);
	bool exact = !ft_is_pattern(pattern);
	struct ft_dev_rule *rule;
	struct net_device *dev;
	int err;

	ASSERT_RTNL();
	if (!ft_dev_rule_valid(pattern)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "not a device name or pattern: no '/', ':' or white space, not empty");
		return -EINVAL;
	}
	rule = ft_dev_rule_find(fn, pattern);
	if (!rule && fn->ndev_rules >= FT_DEV_RULES_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "at most 256 names and patterns per network namespace; disable one first");
		return -ENOSPC;
	}

	/* The devices it matches now: all enabled, or no rule is kept. */
	for_each_netdev(fn->net, dev) {
		if (!glob_match(pattern, dev->name))
			continue;
		err = ft_dev_rule_apply(fn, dev, families, exact, extack);
		if (err)
			return err;
	}

	if (rule) {
		rule->families |= families;
		return 0;
	}
	rule = kzalloc(sizeof(*rule), GFP_KERNEL);
	if (!rule)
		return -ENOMEM;
	strscpy(rule->pattern, pattern, sizeof(rule->pattern));
	rule->families = families;
	list_add_tail(&rule->list, &fn->dev_rules);
	fn->ndev_rules++;
	return 0;
}

int ft_dev_rule_del(struct ft_net *fn, const struct nlattr *attr,
		    u8 families, struct netlink_ext_ack *extack)
{
	const char *pattern = nla_data(attr);
	struct ft_dev *fd, *tmp;
	struct ft_dev_rule *rule;
	struct ft_dev_drop d;
	int err = 0;

	ASSERT_RTNL();
	rule = ft_dev_rule_find(fn, pattern);
	if (!rule) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "no such name or pattern is enabled");
		return -ENOENT;
	}
	rule->families &= ~families;
	if (!rule->families) {
		list_del(&rule->list);
		fn->ndev_rules--;
		kfree(rule);
	}

	/* One grace period and one walk of the table for all it matches. */
	ft_dev_drop_init(&d);
	list_for_each_entry_safe(fd, tmp, &fn->devs, list) {
		u8 drop;

		if (!glob_match(pattern, fd->dev->name))
			continue;
		drop = fd->families & families &
		       ~ft_dev_rules_families(fn, fd->dev->name);
		if (!drop)
			continue;
		err = ft_dev_drop_add(fn, &d, fd, drop);
		if (err)
			break;
	}
	ft_dev_drop_commit(fn, &d);
	return err;
}

/* A device registered, renamed or moved into the netns; RTNL held. */
void ft_dev_rules_event(struct ft_net *fn, struct net_device *dev)
{
	u8 families = ft_dev_rules_families(fn, dev->name);
	int err;

	if (!families)
		return;
	err = ft_dev_rule_apply(fn, dev, families, false, NULL);
	if (err)
		net_warn_ratelimited("fasttrack: cannot enable %s: %d\n",
				     dev->name, err);
}

/*
 * Dump the rules; @fill writes one. cb->args[0] counts those sent; a rule
 * added or removed between two parts of the dump may shift the rest.
 */
int ft_dev_rules_dump(struct ft_net *fn, struct sk_buff *skb,
		      struct netlink_callback *cb,
		      int (*fill)(struct sk_buff *skb,
				  struct netlink_callback *cb,
				  const char *pattern, u8 families))
{
	struct ft_dev_rule *rule;
	long idx = 0;
	int err = 0;

	rtnl_lock();
	list_for_each_entry(rule, &fn->dev_rules, list) {
		if (idx < cb->args[0]) {
			idx++;
			continue;
		}
		err = fill(skb, cb, rule->pattern, rule->families);
		if (err)
			break;
		idx++;
	}
	rtnl_unlock();
	cb->args[0] = idx;
	return err;
}

/* The netns goes. */
void ft_dev_rules_flush(struct ft_net *fn)
{
	struct ft_dev_rule *rule, *tmp;

	ASSERT_RTNL();
	list_for_each_entry_safe(rule, tmp, &fn->dev_rules, list) {
		list_del(&rule->list);
		kfree(rule);
	}
	fn->ndev_rules = 0;
}
