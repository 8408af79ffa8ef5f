// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl xdp: the XDP tier on and off per device, and where it is on.
 * The work is xdp.c's; this is the command line and the listing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "dev.h"
#include "json.h"
#include "parse.h"
#include "print.h"
#include "session.h"
#include "state.h"
#include "xdp.h"

struct listing {
	const struct ftctl *ft;
	struct json j;
	unsigned int n;
};

static void list_one(uint32_t ifindex, const char *ifname, void *data)
{
	struct listing *l = data;
	char now[IFNAMSIZ];

	/* The device's name now; the one it had when attached if it went. */
	if (if_indextoname(ifindex, now))
		ifname = now;
	if (l->ft->json) {
		json_obj_open(&l->j, NULL);
		json_str(&l->j, "ifname", ifname);
		json_u64(&l->j, "ifindex", ifindex);
		json_obj_close(&l->j);
	} else {
		printf("%s (ifindex %" PRIu32 "): xdp\n", ifname, ifindex);
	}
	l->n++;
}

/* "xdp show": the devices of this namespace the program is attached to. */
static int xdp_show(struct ftctl *ft)
{
	struct listing l = { .ft = ft };
	int ret;

	if (ft->json) {
		json_init(&l.j, stdout, ft->tty);
		json_arr_open(&l.j, NULL);
	}
	ret = ft_xdp_each(list_one, &l);
	if (ft->json) {
		json_arr_close(&l.j);
		json_end(&l.j);
	} else if (!ret && !l.n && ft->tty) {
		printf("the XDP tier is on no device of this network namespace\n");
	}
	if (ret) {
		ft_err("xdp: cannot read the pins under /sys/fs/bpf/fasttrack: %s",
		       strerror(-ret));
		return FT_ERR;
	}
	return FT_OK;
}

int cmd_xdp(struct ftctl *ft, int argc, char **argv)
{
	bool on;
	int ret;

	if (argc < 2 || !strcmp(argv[1], "show")) {
		if (argc > 2)
			return ft_usage(ft, "unexpected argument '%s'", argv[2]);
		return ft->check_only ? FT_CHECKED : xdp_show(ft);
	}
	if (strcmp(argv[1], "on") && strcmp(argv[1], "off"))
		return ft_usage(ft, "unknown xdp command '%s' (expected on, off or show)",
				argv[1]);
	on = !strcmp(argv[1], "on");
	if (argc < 3)
		return ft_usage(ft, "missing device name after '%s'", argv[1]);
	if (argc > 3)
		return ft_usage(ft, "unexpected argument '%s'", argv[3]);
	if (ft->json)
		return ft_usage(ft, "xdp %s prints no JSON", argv[1]);
	/*
	 * In a batch (fasttrack.conf at boot), a device that is not there
	 * yet is skipped, said, so that the rest of the file applies: the
	 * tier, unlike an enable, is not kept by name.
	 */
	if (ft->batch && (on || strcmp(argv[2], "all")) &&
	    check_ifname(argv[2]) == -ENODEV) {
		if (ft->check_only)
			return FT_CHECKED;
		ft_warn("xdp %s %s: no such device, skipped (the XDP tier is attached to a device that exists: run \"ftctl xdp %s %s\" once it does)",
			argv[1], argv[2], argv[1], argv[2]);
		return FT_OK;
	}
	if (on || strcmp(argv[2], "all")) {
		ret = ft_check_dev(ft, argv[2]);
		if (ret)
			return ret;
	}
	if (ft->check_only)
		return FT_CHECKED;

	ft_xdp_verbose(ft->verbose);
	if (on)
		ret = ft_xdp_on(ft, argv[2]);
	else if (!strcmp(argv[2], "all"))
		ret = ft_xdp_off_all(ft);
	else
		ret = ft_xdp_off(ft, argv[2]);
	return ret == FT_NOTHING ? FT_OK : ret;
}
