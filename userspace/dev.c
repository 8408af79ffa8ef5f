// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: devices as the module knows them: a device name from the command
 * line checked, enable and disable requests, and the enabled devices with
 * their per-family counters (FASTTRACK_CMD_DEV_GET).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/fasttrack.h>

#include "dev.h"
#include "nl.h"
#include "parse.h"
#include "print.h"
#include "session.h"
#include "state.h"
#include "stats.h"

int ft_check_dev(struct ftctl *ft, const char *dev)
{
	switch (check_ifname(dev)) {
	case -EINVAL:
		return ft_usage(ft, "invalid device name '%s' (at most %d characters, no '/', ':' or spaces)",
				dev, IFNAMSIZ - 1);
	case -ENODEV:
		ft_err("no such device: %s", dev);
		return FT_ERR;
	}
	return FT_OK;
}

/* One enable or disable request for @dev. Returns 0 or -errno. */
int ft_dev_request(struct ftctl *ft, uint8_t cmd, const char *dev,
		   uint32_t families)
{
	struct nlmsghdr *nlh;

	nlh = nl_msg(&ft->nl, cmd, 0);
	mnl_attr_put_strz(nlh, FASTTRACK_A_IFNAME, dev);
	/* "disable DEV" sends none: the kernel then disables every family. */
	if (families)
		mnl_attr_put_u32(nlh, FASTTRACK_A_FAMILIES, families);
	return nl_request(&ft->nl, nlh, NULL, NULL);
}

static int devfam_attr_cb(const struct nlattr *attr, void *data)
{
	struct ft_devfam *f = data;

	if (!nl_attr_known(attr, FASTTRACK_A_DEVFAM_MAX))
		return MNL_CB_OK;

	switch (mnl_attr_get_type(attr)) {
	case FASTTRACK_A_DEVFAM_ENABLED:
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			return nl_bad_reply();
		f->enabled = mnl_attr_get_u8(attr) != 0;
		break;
	case FASTTRACK_A_DEVFAM_PACKETS:
		if (!nl_attr_is_uint(attr))
			return nl_bad_reply();
		f->packets = nl_attr_get_uint(attr);
		break;
	case FASTTRACK_A_DEVFAM_BYTES:
		if (!nl_attr_is_uint(attr))
			return nl_bad_reply();
		f->bytes = nl_attr_get_uint(attr);
		break;
	case FASTTRACK_A_DEVFAM_PUNTED:
		return ft_stats_parse(attr, &f->punted);
	case FASTTRACK_A_DEVFAM_XDP_PACKETS:
		if (!nl_attr_is_uint(attr))
			return nl_bad_reply();
		f->xdp_packets = nl_attr_get_uint(attr);
		f->have_xdp = true;
		break;
	case FASTTRACK_A_DEVFAM_XDP_BYTES:
		if (!nl_attr_is_uint(attr))
			return nl_bad_reply();
		f->xdp_bytes = nl_attr_get_uint(attr);
		f->have_xdp = true;
		break;
	}
	return MNL_CB_OK;
}

static int dev_attr_cb(const struct nlattr *attr, void *data)
{
	uint16_t type = mnl_attr_get_type(attr);
	struct ft_dev *d = data;
	unsigned int i;

	if (!nl_attr_known(attr, FASTTRACK_A_MAX))
		return MNL_CB_OK;

	switch (type) {
	case FASTTRACK_A_IFINDEX:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return nl_bad_reply();
		d->ifindex = mnl_attr_get_u32(attr);
		return MNL_CB_OK;
	case FASTTRACK_A_IFNAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
		    mnl_attr_get_payload_len(attr) > IFNAMSIZ)
			return nl_bad_reply();
		snprintf(d->ifname, sizeof(d->ifname), "%s",
			 mnl_attr_get_str(attr));
		return MNL_CB_OK;
	case FASTTRACK_A_DEV_XDP_BLOCKED:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return nl_bad_reply();
		d->xdp_blocked = mnl_attr_get_u32(attr);
		d->have_xdp_blocked = true;
		return MNL_CB_OK;
	}

	for (i = 0; i < FT_NFAMILIES; i++) {
		if (type != ft_families[i].dev_attr)
			continue;
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return nl_bad_reply();
		if (mnl_attr_parse_nested(attr, devfam_attr_cb, &d->fam[i]) < 0)
			return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static int dev_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dev_list *list = data;
	struct ft_dev *d;

	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 16;

		d = realloc(list->devs, cap * sizeof(*d));
		if (!d) {
			errno = ENOMEM;
			return MNL_CB_ERROR;
		}
		list->devs = d;
		list->cap = cap;
	}
	d = &list->devs[list->n];
	memset(d, 0, sizeof(*d));

	if (nl_parse(nlh, dev_attr_cb, d) < 0)
		return MNL_CB_ERROR;
	if (!d->ifindex)
		return nl_bad_reply();
	if (!d->ifname[0] && !if_indextoname(d->ifindex, d->ifname))
		snprintf(d->ifname, sizeof(d->ifname), "if%" PRIu32, d->ifindex);
	list->n++;
	return MNL_CB_OK;
}

static void dev_list_reset(void *data)
{
	((struct dev_list *)data)->n = 0;
}

static int dev_cmp(const void *a, const void *b)
{
	const struct ft_dev *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

int ft_dev_list(struct ftctl *ft, struct dev_list *list)
{
	struct nlmsghdr *nlh;
	int ret;

	list->n = 0;
	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_DEV_GET, 0);
	ret = nl_dump(&ft->nl, nlh, dev_cb, dev_list_reset, list);
	if (!ret)
		qsort(list->devs, list->n, sizeof(*list->devs), dev_cmp);
	return ret;
}

int ft_dev_get(struct ftctl *ft, const char *dev, struct dev_list *list)
{
	struct nlmsghdr *nlh;

	list->n = 0;
	nlh = nl_msg(&ft->nl, FASTTRACK_CMD_DEV_GET, 0);
	mnl_attr_put_strz(nlh, FASTTRACK_A_IFNAME, dev);
	return nl_request(&ft->nl, nlh, dev_cb, list);
}

uint32_t ft_dev_families(const struct ft_dev *d)
{
	uint32_t fams = 0;
	unsigned int f;

	for (f = 0; f < FT_NFAMILIES; f++)
		if (d->fam[f].enabled)
			fams |= ft_families[f].flag;
	return fams;
}

int ft_each_dev(struct ftctl *ft,
		int (*fn)(struct ftctl *ft, const struct ft_dev *d, void *data),
		void *data)
{
	struct dev_list list = { 0 };
	size_t i;
	int ret;

	ret = ft_dev_list(ft, &list);
	if (ret)
		ret = ft_request_error(ft, ret, NULL, NULL);
	for (i = 0; !ret && i < list.n; i++)
		ret = fn(ft, &list.devs[i], data);
	free(list.devs);
	return ret;
}
