/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: devices as the module knows them: a device name checked, enable
 * and disable requests, and the enabled devices with their per-family
 * counters, as FASTTRACK_CMD_DEV_GET reports them. Shared by show, save,
 * "disable all", the rules and the live rates.
 */
#ifndef FTCTL_DEV_H
#define FTCTL_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#include "parse.h"
#include "state.h"
#include "stats.h"

struct ft_devfam {
	bool enabled;
	uint64_t packets;
	uint64_t bytes;
	struct stats punted;	/* by reason; have[] empty: an older module */
	bool have_xdp;		/* the XDP tier's counters: a module with it */
	uint64_t xdp_packets;	/* of packets, those the XDP tier forwarded */
	uint64_t xdp_bytes;
};

struct ft_dev {
	uint32_t ifindex;
	char ifname[IFNAMSIZ];
	struct ft_devfam fam[FT_NFAMILIES];	/* as ft_families[] */
	bool have_xdp_blocked;	/* the module has the XDP tier */
	uint32_t xdp_blocked;	/* enum fasttrack_xdp_blocked bits */
};

/*
 * A device name from the command line: valid, and present in this network
 * namespace. Returns FT_OK, or prints why not and returns FT_USAGE/FT_ERR.
 */
int ft_check_dev(struct ftctl *ft, const char *dev);

struct dev_list {
	struct ft_dev *devs;
	size_t n, cap;
};

/*
 * Every enabled device, sorted by ifindex, into @list (emptied first; the
 * caller frees list->devs). Returns 0 or -errno, for ft_request_error().
 */
int ft_dev_list(struct ftctl *ft, struct dev_list *list);
/* One device, by name, into @list. Returns 0 or -errno. */
int ft_dev_get(struct ftctl *ft, const char *dev, struct dev_list *list);

/* The FASTTRACK_F_* bits enabled on @d. */
uint32_t ft_dev_families(const struct ft_dev *d);

/*
 * FASTTRACK_CMD_DEV_ENABLE or _DISABLE of @dev (or RULE_ADD, _DEL of a
 * name); families 0: none sent. Returns 0 or -errno.
 */
int ft_dev_request(struct ftctl *ft, uint8_t cmd, const char *dev,
		   uint32_t families);

/*
 * Run @fn on every enabled device, in ifindex order, until it returns an
 * error. Returns FT_OK or the error (said).
 */
int ft_each_dev(struct ftctl *ft,
		int (*fn)(struct ftctl *ft, const struct ft_dev *d, void *data),
		void *data);

#endif /* FTCTL_DEV_H */
