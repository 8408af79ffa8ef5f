// SPDX-License-Identifier: GPL-2.0
/*
 * The flows by key: an RCU hash table per netns, singly linked, whose
 * bucket array is a power of two of pointers and nothing else. rhashtable
 * puts a 64-byte header in front of its array, and kvmalloc() maps an
 * array of 2 MB or more with huge pages, rounded up to 2 MB: 4 MB of
 * buckets cost 6 MB, a quarter of what 100 000 flows cost in all.
 *
 * Readers take no lock. Writers hold the table's lock with BH off. The
 * table grows past one entry per bucket and shrinks below a quarter, in a
 * work: it links a new array as the old one's future, where entries are
 * added from then on, and moves the old entries there a few buckets at a
 * time, each chain's last entry first. An entry is linked into the new
 * array before it leaves the old one, and a reader that misses in an
 * array looks in its future; so a lookup finds every entry that is in the
 * table throughout it, during a resize too, as rhashtable's does.
 */
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "fasttrack.h"

#define FT_HASH_MIN_LOG		6	/* 64 buckets: 512 bytes */
#define FT_HASH_MAX_LOG		24	/* 16 M buckets: 128 MB */
#define FT_HASH_MOVE_BATCH	64	/* buckets moved per hold of the lock */

struct ft_harray {
	struct ft_hnode __rcu **buckets;
	u32 log;
	u32 seed;
	u32 nh[8];			/* NH key of the IPv6 addresses */
	struct ft_harray __rcu *future;	/* set under the lock, never cleared */
};

/* NH's product of address words @i and @i + 1 of an IPv6 key. */
static __always_inline u64 ft_nh_pair(const struct ft_key *k,
				      const struct ft_harray *a, int i)
{
	const u32 *x = (const u32 *)&k->v6;

	return (u64)(x[i] + a->nh[i]) * (x[i + 1] + a->nh[i + 1]);
}

/*
 * Both families hash four words with jhash2(): an IPv4 key as it is, an
 * IPv6 key's first two words with its 32 bytes of addresses compressed to
 * two by NH, the almost-universal hash of UMAC and Adiantum (a sum of
 * products of word pairs, each word offset by a key word). Under a key of
 * the array's own, two distinct pairs of addresses compress alike with a
 * chance of 2^-32 for whoever does not know the key, and an IPv6 lookup
 * hashes barely more than an IPv4 one: jhash2() mixes three words at a
 * time, and an IPv6 key has ten. The lengths are constants, so that the
 * compiler unrolls it all in line.
 */
static __always_inline u32 ft_key_hash(const struct ft_key *k,
				       const struct ft_harray *a)
{
	const u32 *w = (const u32 *)k;
	u64 nh;
	u32 v[4];

	if (k->fam == FT_FAM_V4)
		return jhash2(w, FT_KEY_LEN_V4 / sizeof(u32), a->seed);
	nh = ft_nh_pair(k, a, 0) + ft_nh_pair(k, a, 2) + ft_nh_pair(k, a, 4) +
	     ft_nh_pair(k, a, 6);
	v[0] = w[0];
	v[1] = w[1];
	v[2] = lower_32_bits(nh);
	v[3] = upper_32_bits(nh);
	return jhash2(v, ARRAY_SIZE(v), a->seed);
}

/* 64 bits of a key, @off bytes in: a key is aligned for 32 bits only. */
static __always_inline u64 ft_key_u64(const struct ft_key *k, unsigned int off)
{
	u64 v;

	memcpy(&v, (const u8 *)k + off, sizeof(v));
	return v;
}

/* The difference of the @off-th 8 bytes of two keys: 0 if they match. */
static __always_inline u64 ft_key_diff(const struct ft_key *a,
				       const struct ft_key *b, unsigned int off)
{
	return ft_key_u64(a, off) ^ ft_key_u64(b, off);
}

/* Whether the first @len bytes of two keys match, 64 bits at a time. */
static __always_inline bool ft_key_equal(const struct ft_key *a,
					 const struct ft_key *b,
					 unsigned int len)
{
	u64 diff = ft_key_diff(a, b, 0) | ft_key_diff(a, b, 8);

	BUILD_BUG_ON(FT_KEY_LEN_V4 != 16 || FT_KEY_LEN_V6 != 40);
	if (len == FT_KEY_LEN_V6)
		diff |= ft_key_diff(a, b, 16) | ft_key_diff(a, b, 24) |
			ft_key_diff(a, b, 32);
	return !diff;
}

/* Whether two keys are the same tuple; the family first. */
static __always_inline bool ft_key_match(const struct ft_key *a,
					 const struct ft_key *b)
{
	if (a->fam != b->fam)
		return false;
	if (a->fam == FT_FAM_V4)
		return ft_key_equal(a, b, FT_KEY_LEN_V4);
	return ft_key_equal(a, b, FT_KEY_LEN_V6);
}

bool ft_key_same(const struct ft_key *a, const struct ft_key *b)
{
	return ft_key_match(a, b);
}

static __always_inline struct ft_hnode __rcu **
ft_hbucket(const struct ft_harray *a, const struct ft_key *key)
{
	return &a->buckets[ft_key_hash(key, a) & (BIT(a->log) - 1)];
}

static inline struct ft_flow *ft_hnode_flow(struct ft_hnode *n)
{
	return container_of(n, struct ft_flow, node);
}

#define ft_hash_deref(ht, p) \
	rcu_dereference_protected(p, lockdep_is_held(&(ht)->lock))
#define ft_hash_deref_rcu(p) rcu_dereference_check(p, rcu_read_lock_bh_held())

/* Caller: in an RCU read section, or BH disabled. */
struct ft_flow *ft_flow_lookup(struct ft_net *fn, const struct ft_key *key)
{
	const struct ft_harray *a;
	struct ft_hnode *n;

	a = ft_hash_deref_rcu(fn->flows.cur);
	do {
		for (n = ft_hash_deref_rcu(*ft_hbucket(a, key)); n;
		     n = ft_hash_deref_rcu(n->next))
			if (ft_key_match(&ft_hnode_flow(n)->key, key))
				return ft_hnode_flow(n);
		/* The future after the chain; pairs with ft_hash_move(). */
		smp_rmb();
		a = ft_hash_deref_rcu(a->future);
	} while (unlikely(a));
	return NULL;
}

/* The array entries are added to: the future of a resize, if one runs. */
static struct ft_harray *ft_hash_newest(struct ft_htable *ht)
{
	struct ft_harray *a = ft_hash_deref(ht, ht->cur), *f;

	while ((f = ft_hash_deref(ht, a->future)))
		a = f;
	return a;
}

static bool ft_hash_grows(const struct ft_htable *ht, u32 log)
{
	return ht->nelems > BIT(log) && log < FT_HASH_MAX_LOG;
}

static bool ft_hash_shrinks(const struct ft_htable *ht, u32 log)
{
	return ht->nelems < BIT(log) / 4 && log > FT_HASH_MIN_LOG;
}

/* Start a resize if the table needs one and none runs. */
static void ft_hash_check_size(struct ft_htable *ht)
{
	struct ft_harray *a = ft_hash_deref(ht, ht->cur);

	lockdep_assert_held(&ht->lock);
	if (ht->dying || rcu_access_pointer(a->future))
		return;
	if (ft_hash_grows(ht, a->log) || ft_hash_shrinks(ht, a->log))
		queue_work(system_unbound_wq, &ht->resize_work);
}

/*
 * Where the entry of @key is linked, in whichever array, or NULL: a key
 * is in the table once at most.
 */
static struct ft_hnode __rcu **ft_hash_slot(struct ft_htable *ht,
					    const struct ft_key *key)
{
	struct ft_hnode __rcu **pp;
	struct ft_harray *a;
	struct ft_hnode *n;

	lockdep_assert_held(&ht->lock);
	for (a = ft_hash_deref(ht, ht->cur); a;
	     a = ft_hash_deref(ht, a->future))
		for (pp = ft_hbucket(a, key); (n = ft_hash_deref(ht, *pp));
		     pp = &n->next)
			if (ft_key_match(&ft_hnode_flow(n)->key, key))
				return pp;
	return NULL;
}

/* Add @flow unless a flow of the same key is in the table: -EEXIST then. */
int ft_flow_hash_insert(struct ft_net *fn, struct ft_flow *flow)
{
	struct ft_htable *ht = &fn->flows;
	struct ft_hnode __rcu **b;
	int err = -EEXIST;

	spin_lock_bh(&ht->lock);
	if (!ft_hash_slot(ht, &flow->key)) {
		b = ft_hbucket(ft_hash_newest(ht), &flow->key);
		RCU_INIT_POINTER(flow->node.next, ft_hash_deref(ht, *b));
		rcu_assign_pointer(*b, &flow->node);
		ht->nelems++;
		ft_hash_check_size(ht);
		err = 0;
	}
	spin_unlock_bh(&ht->lock);
	return err;
}

/*
 * Unlink @flow, which ft_flow_hash_insert() added. Readers that hold it
 * go on along its chain; it may be freed after a grace period.
 */
void ft_flow_hash_remove(struct ft_net *fn, struct ft_flow *flow)
{
	struct ft_htable *ht = &fn->flows;
	struct ft_hnode __rcu **pp;

	spin_lock_bh(&ht->lock);
	pp = ft_hash_slot(ht, &flow->key);
	if (!WARN_ONCE(!pp || rcu_access_pointer(*pp) != &flow->node,
		       "fasttrack: removing a flow that is not in the table\n")) {
		rcu_assign_pointer(*pp, ft_hash_deref(ht, flow->node.next));
		ht->nelems--;
		ft_hash_check_size(ht);
	}
	spin_unlock_bh(&ht->lock);
}

static struct ft_harray *ft_harray_alloc(u32 log)
{
	struct ft_harray *a;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return NULL;
	/* Exactly a power of two of bytes: no header, no rounding. */
	a->buckets = kvcalloc(BIT(log), sizeof(*a->buckets), GFP_KERNEL);
	if (!a->buckets) {
		kfree(a);
		return NULL;
	}
	a->log = log;
	a->seed = get_random_u32();
	get_random_bytes(a->nh, sizeof(a->nh));
	return a;
}

static void ft_harray_free(struct ft_harray *a)
{
	kvfree(a->buckets);
	kfree(a);
}

/*
 * Move the chain of bucket @i of @old to @new, last entry first. A reader
 * behind that entry has seen the rest of the chain, and goes on into the
 * new one. The entry is in @new before it leaves @old: a reader that finds
 * it gone from @old finds it in @new, which it reads after (smp_rmb() in
 * ft_flow_lookup()).
 */
static void ft_hash_move(struct ft_htable *ht, struct ft_harray *old,
			 struct ft_harray *new, u32 i)
{
	struct ft_hnode __rcu **pp, **b;
	struct ft_hnode *n, *next;

	lockdep_assert_held(&ht->lock);
	while ((n = ft_hash_deref(ht, old->buckets[i]))) {
		pp = &old->buckets[i];
		while ((next = ft_hash_deref(ht, n->next))) {
			pp = &n->next;
			n = next;
		}
		b = ft_hbucket(new, &ft_hnode_flow(n)->key);
		rcu_assign_pointer(n->next, ft_hash_deref(ht, *b));
		rcu_assign_pointer(*b, n);
		/* In @new before out of @old; pairs with ft_flow_lookup(). */
		smp_wmb();
		RCU_INIT_POINTER(*pp, NULL);
	}
}

/*
 * The size the table should have for its entries, as a log: grown to a
 * load of a half to one, shrunk to a quarter to a half.
 */
static u32 ft_hash_want(const struct ft_htable *ht, u32 log)
{
	if (ft_hash_grows(ht, log))
		return min_t(u32, order_base_2(ht->nelems), FT_HASH_MAX_LOG);
	if (ft_hash_shrinks(ht, log))
		return max_t(u32, order_base_2(ht->nelems) + 1, FT_HASH_MIN_LOG);
	return log;
}

static void ft_hash_resize_work(struct work_struct *work)
{
	struct ft_htable *ht = container_of(work, struct ft_htable,
					    resize_work);
	struct ft_harray *old, *new;
	u32 log, i;

	spin_lock_bh(&ht->lock);
	old = ft_hash_deref(ht, ht->cur);
	log = ft_hash_want(ht, old->log);
	spin_unlock_bh(&ht->lock);
	if (log == old->log)
		return;
	/* On failure the chains grow longer, and the next change retries. */
	new = ft_harray_alloc(log);
	if (!new)
		return;

	spin_lock_bh(&ht->lock);
	if (ht->dying) {
		spin_unlock_bh(&ht->lock);
		ft_harray_free(new);
		return;
	}
	rcu_assign_pointer(old->future, new);
	spin_unlock_bh(&ht->lock);

	for (i = 0; i < BIT(old->log); i += FT_HASH_MOVE_BATCH) {
		u32 j, end = min_t(u32, i + FT_HASH_MOVE_BATCH, BIT(old->log));

		spin_lock_bh(&ht->lock);
		for (j = i; j < end; j++)
			ft_hash_move(ht, old, new, j);
		spin_unlock_bh(&ht->lock);
		cond_resched();
	}

	spin_lock_bh(&ht->lock);
	rcu_assign_pointer(ht->cur, new);
	spin_unlock_bh(&ht->lock);
	/* Readers that started in @old follow its future until then. */
	synchronize_rcu();
	ft_harray_free(old);

	/* Entries came and went during the move. */
	spin_lock_bh(&ht->lock);
	ft_hash_check_size(ht);
	spin_unlock_bh(&ht->lock);
}

/* The buckets of the array lookups start in; for tests and reports. */
unsigned int ft_flow_hash_buckets(struct ft_net *fn)
{
	unsigned int n;

	rcu_read_lock();
	n = BIT(rcu_dereference(fn->flows.cur)->log);
	rcu_read_unlock();
	return n;
}

int ft_flow_hash_init(struct ft_net *fn)
{
	struct ft_htable *ht = &fn->flows;
	struct ft_harray *a;

	a = ft_harray_alloc(FT_HASH_MIN_LOG);
	if (!a)
		return -ENOMEM;
	spin_lock_init(&ht->lock);
	ht->nelems = 0;
	ht->dying = false;
	INIT_WORK(&ht->resize_work, ft_hash_resize_work);
	RCU_INIT_POINTER(ht->cur, a);
	return 0;
}

/* The table is empty: every flow was removed and reaped. */
void ft_flow_hash_exit(struct ft_net *fn)
{
	struct ft_htable *ht = &fn->flows;

	spin_lock_bh(&ht->lock);
	ht->dying = true;
	spin_unlock_bh(&ht->lock);
	cancel_work_sync(&ht->resize_work);
	WARN_ON_ONCE(ht->nelems);
	ft_harray_free(rcu_dereference_protected(ht->cur, true));
}
