// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl -b: the state of a running batch that its commands consult, and
 * what "disable all" means in it.
 *
 * "disable all" in a batch does not disable at once: at the end of the
 * batch, it disables every family that no "enable" after it named. A
 * reload with an unchanged file so changes nothing, and the cached flows
 * of devices that stay enabled are kept. Only the enable lines and this
 * reconciliation know what an enable is (a device today).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_state.h"
#include "dev.h"
#include "enabled.h"
#include "link.h"
#include "print.h"
#include "state.h"

bool ft_batch_disable_all(struct ftctl *ft, uint32_t families)
{
	struct ft_batch *b = ft->batch;

	if (!b)
		return false;
	b->replace = true;
	b->replace_families |= families;
	b->replace_line = b->line;
	b->n = 0;
	b->lost = false;
	return true;
}

void ft_batch_enabled(struct ftctl *ft, const char *dev, uint32_t families)
{
	struct ft_batch *b = ft->batch;
	struct kept *k;

	if (!b || !b->replace)
		return;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;

		k = realloc(b->kept, cap * sizeof(*k));
		if (!k) {
			b->lost = true;
			return;
		}
		b->kept = k;
		b->cap = cap;
	}
	k = &b->kept[b->n++];
	if (ft_link_index(dev, &k->ifindex))
		k->ifindex = 0;
	snprintf(k->ifname, sizeof(k->ifname), "%s", dev);
	k->families = families;
}

/* The families the batch enabled after its "disable all" on @d. */
static uint32_t kept_families(const struct ft_dev *d, void *data)
{
	const struct ft_batch *b = data;
	uint32_t fams = 0;
	size_t i;

	for (i = 0; i < b->n; i++) {
		const struct kept *k = &b->kept[i];

		/* By index, which a rename keeps, or by name. */
		if ((k->ifindex && k->ifindex == d->ifindex) ||
		    !strcmp(k->ifname, d->ifname))
			fams |= k->families;
	}
	return fams;
}

int ft_batch_end(struct ftctl *ft)
{
	struct ft_batch *b = ft->batch;

	if (!b->replace)
		return FT_OK;
	ft_where(b->name, b->replace_line);
	if (b->lost) {
		ft_err("out of memory: disabled nothing of what the batch did not enable");
		return FT_ERR;
	}
	return ft_disable_all(ft, b->replace_families, kept_families, b);
}
