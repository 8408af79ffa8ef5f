// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl get and set: the settings of the namespace.
 *
 * Every setting is one row of settings[] below. ftctl checks the syntax of
 * a value; the kernel's policy checks its range and says so in its extack
 * message, so the limits live in one place.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/fasttrack.h>

#include "commands.h"
#include "enabled.h"
#include "json.h"
#include "parse.h"
#include "print.h"
#include "session.h"
#include "state.h"
#include "xdp.h"

enum setting_kind {
	SET_NUMBER,	/* decimal */
	SET_MARK,	/* MARK[/MASK], hex or decimal; printed in hex */
	SET_MASK,	/* hex or decimal; printed in hex */
};

struct setting {
	const char *key;	/* command line and human output */
	const char *json;	/* JSON member name */
	uint16_t attr;		/* FASTTRACK_A_CFG_* */
	enum setting_kind kind;
	const char *form;	/* what a value looks like, for errors, */
	uint32_t limit;		/* followed by this limit unless 0 */
	const char *unit;	/* of the value, in range errors */
};

enum { MAX_FLOWS, TCP_TIMEOUT, UDP_TIMEOUT, SKIP_MARK, SKIP_MASK, NSETTINGS };

static const struct setting settings[NSETTINGS] = {
	[MAX_FLOWS] = { "max-flows", "max_flows",
		FASTTRACK_A_CFG_MAX_FLOWS, SET_NUMBER,
		"a number of flows, 1 to", FASTTRACK_MAX_FLOWS_LIMIT, "" },
	[TCP_TIMEOUT] = { "tcp-timeout", "tcp_timeout",
		FASTTRACK_A_CFG_TCP_TIMEOUT, SET_NUMBER,
		"seconds, 1 to", FASTTRACK_TIMEOUT_LIMIT, " seconds" },
	[UDP_TIMEOUT] = { "udp-timeout", "udp_timeout",
		FASTTRACK_A_CFG_UDP_TIMEOUT, SET_NUMBER,
		"seconds, 1 to", FASTTRACK_TIMEOUT_LIMIT, " seconds" },
	[SKIP_MARK] = { "skip-mark", "skip_mark",
		FASTTRACK_A_CFG_SKIP_MARK, SET_MARK,
		"MARK or MARK/MASK, each 0x... or decimal, at most 32 bits", 0, "" },
	[SKIP_MASK] = { "skip-mask", "skip_mask",
		FASTTRACK_A_CFG_SKIP_MASK, SET_MASK,
		"0x... or decimal, at most 32 bits", 0, "" },
};

struct config {
	uint32_t val[NSETTINGS];
	bool have[NSETTINGS];
};

static const struct setting *setting_by_key(const char *key)
{
	unsigned int i;

	for (i = 0; i < NSETTINGS; i++)
		if (!strcmp(settings[i].key, key))
			return &settings[i];
	return NULL;
}

static int config_attr_cb(const struct nlattr *attr, void *data)
{
	uint16_t type = mnl_attr_get_type(attr);
	struct config *cfg = data;
	unsigned int i;

	for (i = 0; i < NSETTINGS; i++) {
		if (settings[i].attr != type)
			continue;
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return nl_bad_reply();
		cfg->val[i] = mnl_attr_get_u32(attr);
		cfg->have[i] = true;
	}
	return MNL_CB_OK;
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nl_parse(nlh, config_attr_cb, data) < 0)
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

static void format_value(const struct setting *s, uint32_t val, char *buf,
			 size_t size)
{
	if (s->kind == SET_NUMBER)
		snprintf(buf, size, "%" PRIu32, val);
	else
		snprintf(buf, size, "0x%" PRIx32, val);
}

/*
 * Human output is one "KEY VALUE" line per setting: the same words that
 * "ftctl set" takes.
 */
static void print_config(const struct ftctl *ft, const struct config *cfg)
{
	unsigned int i;
	struct json j;
	int width = 0;
	char buf[16];

	if (ft->json) {
		json_init(&j, stdout, ft->tty);
		json_obj_open(&j, NULL);
		json_u64(&j, "json_schema_version", FT_JSON_SCHEMA_VERSION);
	}
	for (i = 0; i < NSETTINGS; i++)
		if ((int)strlen(settings[i].key) > width)
			width = (int)strlen(settings[i].key);

	for (i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];

		if (!cfg->have[i])
			continue;
		if (ft->json && s->kind == SET_NUMBER) {
			json_u64(&j, s->json, cfg->val[i]);
			continue;
		}
		format_value(s, cfg->val[i], buf, sizeof(buf));
		if (ft->json)
			json_str(&j, s->json, buf);
		else
			ft_kv(ft, "", width, s->key, "%s", buf);
	}

	if (ft->json) {
		json_obj_close(&j);
		json_end(&j);
	}
}

/*
 * "set KEY VALUE", a line per setting, in the form parse_settings()
 * takes back: the skip mark with its mask, so that "skip-mark 0x0/0x0"
 * restores a mask of 0.
 */
static int save_settings(struct ftctl *ft)
{
	struct config cfg = { 0 };
	struct nlmsghdr *nlh;
	char buf[16];
	unsigned int i;
	int ret;

	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_CONFIG_GET, 0);
	ret = nl_request(&ft->nl, nlh, config_cb, &cfg);
	if (ret)
		return ft_request_error(ft, ret, NULL, NULL);

	for (i = 0; i < NSETTINGS; i++) {
		if (!cfg.have[i] || i == SKIP_MASK)
			continue;
		format_value(&settings[i], cfg.val[i], buf, sizeof(buf));
		printf("set %s %s", settings[i].key, buf);
		if (i == SKIP_MARK && cfg.have[SKIP_MASK])
			printf("/0x%" PRIx32, cfg.val[SKIP_MASK]);
		putchar('\n');
	}
	return FT_OK;
}

static void save_xdp(uint32_t ifindex, const char *ifname, void *data)
{
	char now[IF_NAMESIZE];

	(void)ifname;
	(void)data;
	/* By its name now; a device that went has no program to restore. */
	if (if_indextoname(ifindex, now))
		printf("xdp on %s\n", now);
}

int cmd_save(struct ftctl *ft, int argc, char **argv)
{
	int ret;

	if (argc > 1)
		return ft_usage(ft, "unexpected argument '%s'", argv[1]);
	if (ft->json)
		return ft_usage(ft, "save prints commands for ftctl -b; it has no JSON form");

	ret = ft_connect(ft);
	if (ret)
		return ret;

	printf("# fasttrack state, from \"ftctl save\"; apply with \"ftctl -b FILE\".\n");
	ret = save_settings(ft);
	if (ret)
		return ret;
	/* What is not enabled below is disabled: the state is exactly this. */
	printf("disable all\n");
	ret = ft_save_enables(ft);
	if (ret)
		return ret;
	/*
	 * The XDP tier last, once the module's state is there. Its pins
	 * need root: without, it is left out, and said.
	 */
	if (ft_xdp_each(save_xdp, NULL) == -EACCES)
		ft_warn("the XDP tier's state is left out: reading its pins under /sys/fs/bpf needs root");
	return FT_OK;
}

int cmd_get(struct ftctl *ft, int argc, char **argv)
{
	struct config cfg = { 0 };
	struct nlmsghdr *nlh;
	int ret;

	if (argc > 1)
		return ft_usage(ft, "unexpected argument '%s'", argv[1]);

	ret = ft_connect(ft);
	if (ret)
		return ret;

	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_CONFIG_GET, 0);
	ret = nl_request(&ft->nl, nlh, config_cb, &cfg);
	if (ret)
		return ft_request_error(ft, ret, NULL, NULL);

	print_config(ft, &cfg);
	return FT_OK;
}

static const char *form(const struct setting *s, char *buf, size_t size)
{
	if (s->limit)
		snprintf(buf, size, "%s %u", s->form, s->limit);
	else
		snprintf(buf, size, "%s", s->form);
	return buf;
}

/* The policy's range, which the kernel sent with its refusal. */
static int range_error(struct ftctl *ft, const struct setting *s)
{
	const char *msg = *ft->nl.ext_msg ? ft->nl.ext_msg : "out of range";

	ft_err("%s: %s: it must be between %" PRIu64 " and %" PRIu64 "%s",
	       s->key, msg, ft->nl.ext_min, ft->nl.ext_max, s->unit);
	return FT_ERR;
}

static int bad_value(const struct setting *s, const char *val, int err)
{
	char buf[80];

	ft_err("invalid %s '%s': %s (expected %s)", s->key, val,
	       err == -ERANGE ? "too large" : "not a number",
	       form(s, buf, sizeof(buf)));
	return FT_USAGE;
}

/*
 * KEY VALUE pairs into @cfg. "skip-mark MARK" without a mask implies mask
 * 0xffffffff, unless skip-mask is given too.
 */
static int parse_settings(struct ftctl *ft, int argc, char **argv,
			  struct config *cfg)
{
	bool mask_in_mark = false;
	int i, ret;

	if (argc < 2)
		return ft_usage(ft, "nothing to set");

	for (i = 1; i < argc; i += 2) {
		const struct setting *s = setting_by_key(argv[i]);
		const char *val = argv[i + 1];
		bool has_mask = false;
		uint32_t mask;
		int idx;

		if (!s)
			return ft_usage(ft, "unknown setting '%s' (expected max-flows, tcp-timeout, udp-timeout, skip-mark or skip-mask)",
					argv[i]);
		if (i + 1 >= argc) {
			char buf[80];

			return ft_usage(ft, "missing value for %s (expected %s)",
					s->key, form(s, buf, sizeof(buf)));
		}
		idx = (int)(s - settings);
		if (cfg->have[idx])
			return ft_usage(ft, "%s given twice", s->key);

		if (s->kind == SET_MARK)
			ret = parse_mark(val, &cfg->val[idx], &mask, &has_mask);
		else
			ret = parse_u32(val, &cfg->val[idx], s->kind == SET_MASK);
		if (ret)
			return bad_value(s, val, ret);
		cfg->have[idx] = true;

		if (has_mask) {
			mask_in_mark = true;
			cfg->val[SKIP_MASK] = mask;
		}
		if (mask_in_mark && cfg->have[SKIP_MASK])
			return ft_usage(ft, "skip-mask given twice (once in skip-mark MARK/MASK)");
	}

	if (mask_in_mark) {
		cfg->have[SKIP_MASK] = true;
	} else if (cfg->have[SKIP_MARK] && !cfg->have[SKIP_MASK]) {
		cfg->val[SKIP_MASK] = UINT32_MAX;
		cfg->have[SKIP_MASK] = true;
	}

	if (cfg->have[SKIP_MARK] &&
	    (cfg->val[SKIP_MARK] & ~cfg->val[SKIP_MASK]))
		ft_warn("skip-mark 0x%" PRIx32 " has bits outside skip-mask 0x%" PRIx32 ": no masked mark can equal it",
			cfg->val[SKIP_MARK], cfg->val[SKIP_MASK]);
	return FT_OK;
}

int cmd_set(struct ftctl *ft, int argc, char **argv)
{
	struct config cfg = { 0 };
	struct nlmsghdr *nlh;
	unsigned int i;
	int ret;

	ret = parse_settings(ft, argc, argv, &cfg);
	if (ret)
		return ret;

	ret = ft_connect(ft);
	if (ret)
		return ret;

	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_CONFIG_SET, 0);
	for (i = 0; i < NSETTINGS; i++)
		if (cfg.have[i])
			mnl_attr_put_u32(nlh, settings[i].attr, cfg.val[i]);

	ret = nl_request(&ft->nl, nlh, NULL, NULL);
	if (ret) {
		/* Name the setting the kernel rejected, if it says which. */
		uint16_t blamed = nl_blamed_attr(&ft->nl);
		const struct setting *s = NULL;

		for (i = 0; i < NSETTINGS; i++)
			if (blamed && settings[i].attr == blamed)
				s = &settings[i];
		if (s && ft->nl.kernel_err && ft->nl.has_ext_range)
			return range_error(ft, s);
		return ft_request_error(ft, ret, NULL, s ? s->key : NULL);
	}
	if (*ft->nl.ext_msg)
		ft_warn("%s", ft->nl.ext_msg);
	return FT_OK;
}
