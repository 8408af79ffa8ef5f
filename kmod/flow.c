// SPDX-License-Identifier: GPL-2.0
/*
 * A flow as an object: the slab caches flows come from, one per family and
 * optional part, and what a flow holds (its conntrack entry, dst and next
 * hop) dropped when it is freed. The table (table.c) links flows; the
 * reaper (reap.c) frees them after a grace period.
 */
#include <linux/slab.h>
#include <net/dst.h>

#include "fasttrack.h"

/* Per family, with or without a rewrite, with or without an ft_meta. */
static struct kmem_cache *ft_flow_caches[FT_FAM_NUM][2][2];

static const char *const ft_flow_cache_names[FT_FAM_NUM][2][2] = {
	[FT_FAM_V4] = { { "ft_flow", "ft_flow_meta" },
			{ "ft_flow_nat", "ft_flow_nat_meta" } },
	[FT_FAM_V6] = { { "ft_flow6", "ft_flow6_meta" },
			{ "ft_flow6_nat", "ft_flow6_nat_meta" } },
};

/*
 * No SLAB_HWCACHE_ALIGN: it would round a flow up to 256 bytes, and at a
 * million flows memory counts more than false sharing between neighbours.
 * A packet reads nearly all of a flow, though, so a flow that a line
 * boundary would cost a line more is aligned to one where that costs at
 * most an eighth of its size: a plain IPv6 flow (120 bytes) starts on one
 * and spans two lines, where packed it would span three 7 times in 8.
 */
static size_t ft_flow_align(size_t size)
{
	size_t pad = ALIGN(size, L1_CACHE_BYTES) - size;

	return pad * 8 <= size ? L1_CACHE_BYTES : __alignof__(struct ft_flow);
}

int ft_flow_cache_init(void)
{
	int fam, nat, meta;

	/* Memory per direction: a plain IPv4 flow fills 96 bytes at most. */
	BUILD_BUG_ON(offsetof(struct ft_flow, key) + FT_KEY_LEN_V4 > 96);
	BUILD_BUG_ON(FT_FLOW_NUM_BITS > BITS_PER_LONG);
	for (fam = 0; fam < FT_FAM_NUM; fam++)
		for (nat = 0; nat < 2; nat++)
			for (meta = 0; meta < 2; meta++) {
				struct kmem_cache **c = &ft_flow_caches[fam][nat][meta];

				*c = kmem_cache_create(ft_flow_cache_names[fam][nat][meta],
						       ft_flow_size(fam, nat, meta),
						       ft_flow_align(ft_flow_size(fam, nat, meta)),
						       0, NULL);
				if (!*c)
					goto err;
			}
	return 0;

err:
	ft_flow_cache_exit();
	return -ENOMEM;
}

/* Also unwinds a partial init: kmem_cache_destroy(NULL) does nothing. */
void ft_flow_cache_exit(void)
{
	struct kmem_cache **c = &ft_flow_caches[0][0][0];
	int i;

	for (i = sizeof(ft_flow_caches) / sizeof(*c) - 1; i >= 0; i--) {
		kmem_cache_destroy(c[i]);
		c[i] = NULL;
	}
}

struct ft_flow *ft_flow_alloc(enum ft_fam fam, bool nat, bool meta)
{
	struct ft_flow *flow;

	flow = kmem_cache_zalloc(ft_flow_caches[fam][nat][meta], GFP_ATOMIC);
	if (flow)
		flow->key.fam = fam;
	return flow;
}

/* Free @flow and drop what it holds; no reader can reach it any more. */
void ft_flow_destroy(struct ft_flow *flow)
{
	nf_ct_put(flow->ct);
	dst_release(flow->dst);
	ft_nh_put(flow->nh);
	kmem_cache_free(ft_flow_caches[flow->key.fam][!!ft_flow_nat(flow)]
					[!!ft_flow_sets(flow)], flow);
}
