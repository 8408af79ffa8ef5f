// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl flows and flush: the cached flow directions.
 *
 * "flows" is a netlink dump of any size (100 000 flows and more): every
 * flow is printed as its message is read and then forgotten, so memory
 * does not grow with the table, and nothing is sorted. The kernel lists
 * each flow once, in the order the flows were learned.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/fasttrack.h>

#include "flow.h"
#include "ftctl.h"
#include "json.h"
#include "parse.h"
#include "print.h"

struct flow_filter {
	const char *dev;	/* ingress device, or NULL: all */
	uint32_t families;	/* FASTTRACK_F_*, 0: all */
	bool dump;		/* "dump": tab-separated output */
};

/* [dump] [dev DEV] [ipv4|ipv6]..., in any order. */
static int parse_filter(struct ftctl *ft, int argc, char **argv,
			bool allow_dump, struct flow_filter *flt)
{
	int i, ret;

	memset(flt, 0, sizeof(*flt));
	for (i = 1; i < argc; i++) {
		uint32_t flag;

		if (allow_dump && !strcmp(argv[i], "dump")) {
			if (flt->dump)
				return ft_usage(ft, "'dump' given twice");
			flt->dump = true;
		} else if (!strcmp(argv[i], "dev")) {
			if (i + 1 >= argc)
				return ft_usage(ft, "missing device name after 'dev'");
			if (flt->dev)
				return ft_usage(ft, "only one device may be given");
			flt->dev = argv[++i];
			ret = ft_check_dev(ft, flt->dev);
			if (ret)
				return ret;
		} else if (!parse_family(argv[i], &flag)) {
			flt->families |= flag;
		} else {
			return ft_usage(ft, "unexpected argument '%s' (expected %sdev DEV, ipv4 or ipv6)",
					argv[i], allow_dump ? "dump, " : "");
		}
	}
	if (flt->dump && ft->json)
		return ft_usage(ft, "'dump' is an output form of its own; it does not combine with -j");
	return FT_OK;
}

static void put_filter(struct nlmsghdr *nlh, const struct flow_filter *flt)
{
	if (flt->dev)
		mnl_attr_put_strz(nlh, FASTTRACK_A_IFNAME, flt->dev);
	if (flt->families)
		mnl_attr_put_u32(nlh, FASTTRACK_A_FAMILIES, flt->families);
}

/*
 * A failed FLOW_GET or FLUSH. A kernel that does not know the command says
 * EOPNOTSUPP without a message.
 */
static int flow_request_error(struct ftctl *ft, int err, const char *dev,
			      const char *what)
{
	if ((err == -EOPNOTSUPP || err == EOPNOTSUPP) && ft->nl.kernel_err &&
	    !ft->nl.ext_msg[0]) {
		ft_err("this fasttrack module does not support %s (upgrade the module)",
		       what);
		return FT_ERR;
	}
	return ft_request_error(ft, err, dev, NULL);
}

struct flows_out {
	struct ftctl *ft;
	const struct flow_filter *flt;
	struct json j;
	bool opened;		/* JSON: "[" written */
	unsigned long count;
};

static int flows_attr_cb(const struct nlattr *attr, void *data)
{
	struct flows_out *o = data;
	struct ft_flow f;

	if (mnl_attr_get_type(attr) != FASTTRACK_A_FLOW)
		return MNL_CB_OK;
	if (ft_flow_parse(attr, &f) < 0)
		return MNL_CB_ERROR;

	o->count++;
	if (o->ft->json) {
		if (!o->opened) {
			json_arr_open(&o->j, NULL);
			o->opened = true;
		}
		json_obj_open(&o->j, NULL);
		ft_flow_json(&o->j, &f);
		json_obj_close(&o->j);
	} else if (o->flt->dump) {
		ft_flow_print_dump(stdout, &f);
	} else {
		ft_flow_print_text(o->ft, stdout, &f, FT_FLOW_LIST);
		putchar('\n');
	}
	return MNL_CB_OK;
}

static int flows_cb(const struct nlmsghdr *nlh, void *data)
{
	return nl_parse(nlh, flows_attr_cb, data) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

int cmd_flows(struct ftctl *ft, int argc, char **argv)
{
	struct flow_filter flt;
	struct flows_out o = { .ft = ft, .flt = &flt };
	struct nlmsghdr *nlh;
	int ret;

	ret = parse_filter(ft, argc, argv, true, &flt);
	if (ret)
		return ret;
	ret = ft_connect(ft);
	if (ret)
		return ret;

	json_init(&o.j, stdout, ft->tty);
	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_FLOW_GET, 0);
	put_filter(nlh, &flt);
	ret = nl_dump_stream(&ft->nl, nlh, flows_cb, &o);
	if (ret) {
		/*
		 * Whatever was printed stays; an unterminated JSON array
		 * tells a JSON reader that the list is not complete.
		 */
		if (o.opened)
			putchar('\n');
		return flow_request_error(ft, ret, flt.dev, "flows");
	}

	if (ft->json) {
		if (!o.opened)
			json_arr_open(&o.j, NULL);
		json_arr_close(&o.j);
		json_end(&o.j);
	} else if (!o.count && ft->tty && !flt.dump) {
		printf("no flows are cached%s%s\n", flt.dev ? " for " : "",
		       flt.dev ? flt.dev : "");
	}

	if (ft->nl.dump_intr) {
		ft_warn("the kernel flagged the flow dump as inconsistent (NLM_F_DUMP_INTR): flows may be missing or listed twice; run it again");
		return FT_ERR;
	}
	return FT_OK;
}

int cmd_flush(struct ftctl *ft, int argc, char **argv)
{
	struct flow_filter flt;
	struct nlmsghdr *nlh;
	int ret;

	ret = parse_filter(ft, argc, argv, false, &flt);
	if (ret)
		return ret;
	ret = ft_connect(ft);
	if (ret)
		return ret;

	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_FLUSH, 0);
	put_filter(nlh, &flt);
	ret = nl_request(&ft->nl, nlh, NULL, NULL);
	if (ret)
		return flow_request_error(ft, ret, flt.dev, "flush");
	if (*ft->nl.ext_msg)
		ft_warn("%s", ft->nl.ext_msg);
	return FT_OK;
}
