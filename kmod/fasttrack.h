/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fasttrack: internal types shared by the module's files.
 *
 * Life of a flow: the learn hook (learn.c) sees a forwarded packet of an
 * established connection after NAT and routing, and caches one direction of
 * it in the per-netns table (table.c). The ingress hook (fastpath.c) of an
 * enabled device looks packets up in that table and transmits them itself.
 * Entries die by teardown (FIN/RST), idle timeout, conntrack destruction or
 * invalidation (route, neighbour, device); both directions of a connection
 * always die together so conntrack sees the whole slow-path conversation.
 */
#ifndef _FT_FASTTRACK_H
#define _FT_FASTTRACK_H

#include <linux/hashtable.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/u64_stats_sync.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_conntrack_acct.h>
#include <net/dst.h>
#include <net/netns/generic.h>
#include <linux/fasttrack.h>

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ip6_route.h>

#include "compat.h"
#include "parse.h"

#define FT_LEARN_HOOKS	2

/* Every family this module knows, as FASTTRACK_F_* bits. */
#define FT_FAMILIES_ALL		(FASTTRACK_F_IPV4 | FASTTRACK_F_IPV6)

static inline u8 ft_fam_flag(enum ft_fam fam)
{
	return fam == FT_FAM_V4 ? FASTTRACK_F_IPV4 : FASTTRACK_F_IPV6;
}

/* Global counters; the order is the order of the netlink attributes. */
enum ft_stat {
	FT_STAT_LEARNED,
	FT_STAT_TABLE_FULL,
	FT_STAT_EXPIRED,
	FT_STAT_TORN_DOWN,
	FT_STAT_CT_GONE,
	FT_STAT_INVALIDATED,
	FT_STAT_FWD_PKTS,
	FT_STAT_FWD_BYTES,
	FT_STAT_PUNT_NO_ENTRY,
	FT_STAT_PUNT_FRAGMENT,
	FT_STAT_PUNT_OPTIONS,
	FT_STAT_PUNT_TTL,
	FT_STAT_PUNT_MTU,
	FT_STAT_PUNT_TCP_FLAGS,
	FT_STAT_PUNT_NOT_WRITABLE,
	FT_STAT_PUNT_MALFORMED,
	FT_STAT_PUNT_UNKNOWN,
	FT_STAT_PUNT_STALE,
	FT_STAT_ROUTE_CHANGED,
	FT_STAT_NEIGH_CHANGED,
	FT_STAT_FLUSHED,
	FT_STAT_RULESET_CHANGED,
	FT_STAT_PUNT_NOT_FORWARDING,
	FT_STAT_PUNT_PORT,
	FT_STAT_NOLEARN_ZONE,
	FT_STAT_NOLEARN_HELPER,
	FT_STAT_NOLEARN_FLOWTABLE,
	FT_STAT_NOLEARN_LWTUNNEL,
	FT_STAT_NOLEARN_VRF,
	FT_STAT_NOLEARN_XFRM,
	FT_STAT_NOLEARN_EGRESS_DEV,
	FT_STAT_NOLEARN_NO_NEIGH,
	FT_STAT_NOLEARN_RACED,
	FT_STAT_ROUTE_REVALIDATED,
	FT_STAT_RULE_SKIPPED,
	FT_STAT_NOLEARN_MANGLED,
	FT_STAT_XDP_BYPASSED,
	FT_STAT_NOLEARN_UNTRACKED,
	FT_STAT_NUM,

	/* Removal reasons no counter records (the counters go with them): */
	FT_REASON_NETNS = FT_STAT_NUM,	/* netns exit, module unload */
};

/*
 * Generations of the state a cached decision was taken under. A change
 * bumps its kind (gen.c); a flow learned under an older ruleset is stale.
 * The routing generation of a family is the head of its route change log
 * (route.c): a flow behind it is stale only if a logged change covers it.
 */
enum ft_gen_kind {
	FT_GEN_ROUTE4,		/* FIB, rules, nexthops, device changes */
	FT_GEN_ROUTE6,
	FT_GEN_RULES,		/* firewall ruleset commits */
	FT_GEN_NUM,
};

#define FT_GENS_ROUTE	(BIT(FT_GEN_ROUTE4) | BIT(FT_GEN_ROUTE6))
#define FT_GENS_RULES	BIT(FT_GEN_RULES)

static inline enum ft_gen_kind ft_gen_route(enum ft_fam fam)
{
	return fam == FT_FAM_V4 ? FT_GEN_ROUTE4 : FT_GEN_ROUTE6;
}

/*
 * One route change: the flows whose route destination is in @prefix/@plen,
 * or every flow of the family if @all (rules, nexthop objects, devices:
 * changes without a prefix). A ruleset commit is logged too, so that a
 * flow checks one number per packet for all it depends on. So is a move
 * of a family's dst generation (ft_dst_gen()), which covers no flow but
 * makes each check its dst once.
 */
struct ft_route_change {
	union ft_addr prefix;
	u8 plen;
	bool all;
	bool ruleset;		/* a firewall ruleset commit: all are stale */
	bool dst;		/* the dst generation moved: covers none */
};

#define FT_RLOG_SIZE	256	/* changes a flow may fall behind by */

struct ft_gens {
	u32 val[FT_GEN_NUM];
};

struct ft_stats_pcpu {
	u64_stats_t cnt[FT_STAT_NUM];
	struct u64_stats_sync syncp;
};

/*
 * Why the fast path handed a packet to the stack: each reason is a global
 * counter (ft_punt_stat[]) and a counter per device and family.
 */
enum ft_punt {
	FT_PUNT_NO_ENTRY,
	FT_PUNT_FRAGMENT,
	FT_PUNT_OPTIONS,
	FT_PUNT_TTL,
	FT_PUNT_MTU,
	FT_PUNT_TCP_FLAGS,
	FT_PUNT_NOT_WRITABLE,
	FT_PUNT_MALFORMED,
	FT_PUNT_UNKNOWN,
	FT_PUNT_STALE,
	FT_PUNT_NOT_FORWARDING,
	FT_PUNT_PORT,
	FT_PUNT_NUM,
};

extern const enum ft_stat ft_punt_stat[FT_PUNT_NUM];

struct ft_dev_stats_pcpu {
	u64_stats_t packets[FT_FAM_NUM];
	u64_stats_t bytes[FT_FAM_NUM];
	u64_stats_t xdp_packets[FT_FAM_NUM];	/* of packets: XDP tier's */
	u64_stats_t xdp_bytes[FT_FAM_NUM];
	u64_stats_t punted[FT_FAM_NUM][FT_PUNT_NUM];
	struct u64_stats_sync syncp;
};

/* Per-netns settings; written under ft_net.lock, read with READ_ONCE. */
struct ft_config {
	u32 max_flows;
	u32 tcp_timeout;	/* seconds */
	u32 udp_timeout;	/* seconds */
	u32 skip_mark;
	u32 skip_mask;
};

/* An enabled device. Lives on ft_net.devs (RTNL) and in ft_net.dev_index. */
struct ft_dev {
	/* Read per packet: one cache line (FT_HOT_LINE_CHECK()). */
	struct ft_net *fn;
	struct ft_dev_stats_pcpu __percpu *stats;
	u8 families;		/* FASTTRACK_F_*; fast path reads it lockless */

	struct list_head list;
	struct net_device *dev;		/* held */
#ifdef FT_HAVE_NETDEV_HOLD
	netdevice_tracker dev_tracker;
#endif
	struct nf_hook_ops ops;
	struct rcu_head rcu;
};

/*
 * What the stack changed between ingress and egress (a forward or
 * postrouting rule), which the fast path then sets as it was learned: skb
 * fields, and the DSCP of the header (its ECN bits stay each packet's). A
 * value set on ingress, before the fast path, stays otherwise.
 */
#define FT_META_MARK		BIT(0)
#define FT_META_PRIORITY	BIT(1)
#define FT_META_DSCP		BIT(2)
#define FT_META_BITS		3

/* What a flow rewrites: its ft_nat says to what. */
#define FT_NAT_SRC	BIT(0)
#define FT_NAT_DST	BIT(1)
#define FT_NAT_SPORT	BIT(2)
#define FT_NAT_DPORT	BIT(3)
#define FT_NAT_BITS	4

/*
 * A flow's flags. From FT_FLOW_REPLY on they are fixed before the flow is
 * inserted: what it is, kept in the word the atomic ones leave unused.
 */
enum ft_flow_bits {
	FT_FLOW_LIVE,		/* in both indexes: may be killed */
	FT_FLOW_DEAD,		/* killed: unhashed, reaped through its id */
	FT_FLOW_RECHECK,	/* route.c: next failed dst check looks up */
	FT_FLOW_NO_XFRM,	/* validated while no IPsec policy existed */
	FT_FLOW_CT_ACCT,	/* its conntrack entry has accounting */
	FT_FLOW_REPLY,		/* the reply direction of its connection */
	FT_FLOW_PRIO_TOS,	/* IPv4: priority from each packet's TOS */
	FT_FLOW_PRIO_EITHER,	/* ... which its DSCP rewrite must not change */
	FT_FLOW_NAT,		/* FT_NAT_BITS of FT_NAT_* from here */
	FT_FLOW_META = FT_FLOW_NAT + FT_NAT_BITS,	/* and FT_META_* */
	FT_FLOW_NUM_BITS = FT_FLOW_META + FT_META_BITS,
};

/* NAT rewrite of one direction: what the headers become on egress. */
struct ft_nat {
	union ft_addr src;
	union ft_addr dst;
	__be16 sport;
	__be16 dport;
};

/*
 * Fast-path counters of one direction. Atomic: any CPU may forward a flow
 * (RPS changes, LAG, RSS rebalancing, a learn on the other direction's
 * CPU), and the counts must stay exact; per-CPU copies would cost more
 * memory than the flow itself.
 */
struct ft_flow_acct {
	atomic64_t packets;
	atomic64_t bytes;
};

/* A link in a chain of the flow table, which is singly linked. */
struct ft_hnode {
	struct ft_hnode __rcu *next;
};

/*
 * The flows by key (flowhash.c). Lookups read @cur only; writers and
 * resizes hold @lock, with BH off.
 */
struct ft_harray;
struct ft_htable {
	struct ft_harray __rcu *cur;
	spinlock_t lock;	/* in another line than @cur: ft_net */
	unsigned int nelems;		/* under @lock */
	bool dying;			/* under @lock: no more resizes */
	struct work_struct resize_work;
};

/*
 * One cached direction of a connection. What the fast path reads comes
 * first, then what it writes; the lookup's hash node and key come last, so
 * that an IPv4 flow ends after its shorter key (ft_key_len()). What only
 * some flows need follows the key, each part in the flow's own cache
 * (ft_flow_size()): the NAT rewrite, then the mark and priority the slow
 * path set. Plain routed flows pay for neither.
 */
struct ft_flow {
	int iif;
	u32 route_seq;		/* route log of its family, checked up to */
	u32 dst_cookie;		/* IPv6: fib6 cookie; IPv4: rt_genid */
	u32 id;			/* in ft_net.flow_ids */

	unsigned long flags;	/* FT_FLOW_*, and what the flow is */
	struct ft_nh *nh;	/* held; neighbour MAC, MTU read per packet */
	struct dst_entry *dst;	/* held; route.c checks it per packet */
	struct nf_conn *ct;	/* held; liveness checked per packet */

	u32 last_active;	/* jiffies, 32 bits: timeouts are < 7 days */
	u32 created;		/* jiffies, 32 bits: the age wraps (dumps) */

	struct ft_flow_acct acct;
	struct ft_hnode node;	/* in ft_net.flows: flowhash.c */
	struct ft_key key;	/* last: ft_key_len(key.fam) bytes of it */
};

/* What a flow sets on egress (ft_flow_sets() says which). */
struct ft_meta {
	u32 mark;
	u32 priority;
	u8 dscp;		/* the DSCP bits of the dsfield, ECN clear */
};

/* The size of a flow of family @fam, with a rewrite and an ft_meta. */
static inline size_t ft_flow_size(enum ft_fam fam, bool nat, bool meta)
{
	return offsetof(struct ft_flow, key) + ft_key_len(fam) +
	       (nat ? sizeof(struct ft_nat) : 0) +
	       (meta ? sizeof(struct ft_meta) : 0);
}

/* What @flow rewrites, FT_NAT_*; a rewrite follows its key if any. */
static inline unsigned int ft_flow_nat(const struct ft_flow *flow)
{
	return (READ_ONCE(flow->flags) >> FT_FLOW_NAT) &
	       (BIT(FT_NAT_BITS) - 1);
}

/* What @flow sets on egress, FT_META_*; an ft_meta follows if any. */
static inline unsigned int ft_flow_sets(const struct ft_flow *flow)
{
	return (READ_ONCE(flow->flags) >> FT_FLOW_META) &
	       (BIT(FT_META_BITS) - 1);
}

static inline enum ip_conntrack_dir ft_flow_dir(const struct ft_flow *flow)
{
	return test_bit(FT_FLOW_REPLY, &flow->flags) ? IP_CT_DIR_REPLY :
						       IP_CT_DIR_ORIGINAL;
}

/* The NAT rewrite of @flow, right after its key; only if ft_flow_nat(). */
static inline struct ft_nat *ft_flow_rewrite(const struct ft_flow *flow)
{
	return (struct ft_nat *)((u8 *)&flow->key + ft_key_len(flow->key.fam));
}

/* What @flow sets on egress, after its rewrite; only if ft_flow_sets(). */
static inline struct ft_meta *ft_flow_meta(const struct ft_flow *flow)
{
	return (struct ft_meta *)((u8 *)ft_flow_rewrite(flow) +
				  (ft_flow_nat(flow) ? sizeof(struct ft_nat) : 0));
}

/*
 * A next hop cached flows share (nexthop.c): the neighbour they are sent
 * to and its device. In ft_net.nh_hash while alive; dead once unhashed,
 * and then its flows are stale. Readers check @dead before @neigh, @dev.
 */
struct ft_nh {
	/* Read per packet: one cache line (FT_HOT_LINE_CHECK()). */
	struct neighbour *neigh;	/* held until released; NULL: L3 */
	struct net_device *dev;		/* held until released */
	unsigned int mtu;		/* ft_route_mtu(): 0, the device's */
	bool dead;

	bool released;
	struct hlist_node node;
#ifdef FT_HAVE_NETDEV_HOLD
	netdevice_tracker dev_tracker;
#endif
	struct ft_net *fn;
	int ifindex;			/* of @dev, for dumps: */
	u16 vlan_id;			/* they may outlive @dev */
	refcount_t ref;			/* flows, and a pending release */
	struct rcu_head rcu;
};

/*
 * Does what a packet reads of a kmalloc()ed @type end by @member within
 * its first 32 bytes? Then it is in one cache line: kmalloc() objects of
 * up to 64 bytes, and of 128 or more, start on their own size; those of
 * 96 on 32 bytes.
 */
#define FT_HOT_LINE_CHECK(type, member) \
	BUILD_BUG_ON(offsetofend(type, member) > 32)

#define FT_NH_HASH_BITS	10

/* A flow that walks and teardowns act on. */
static inline bool ft_flow_live(const struct ft_flow *flow)
{
	return test_bit(FT_FLOW_LIVE, &flow->flags) &&
	       !test_bit(FT_FLOW_DEAD, &flow->flags);
}

/*
 * May the TCP connection @ct have directions cached, in its state?
 * Established, and half-closed once conntrack saw the first FIN
 * acknowledged (CLOSE_WAIT): there, only the other side's FIN or a RST
 * changes the state again, and the fast path never forwards those. In
 * FIN_WAIT the ACK of that FIN is itself the change, so it is not.
 */
static inline bool ft_tcp_cacheable(const struct nf_conn *ct)
{
	u8 state = READ_ONCE(ct->proto.tcp.state);

	return state == TCP_CONNTRACK_ESTABLISHED ||
	       state == TCP_CONNTRACK_CLOSE_WAIT;
}

/* Header fields forwarding leaves alone, but for the TTL's decrement. */
struct ft_hdr_fields {
	u32 fixed;		/* IPv4 ID and fragment offset, IPv6 flow label */
	u8 dsfield;		/* IPv4 TOS, IPv6 traffic class */
	u8 ttl;			/* IPv4 TTL, IPv6 hop limit */
};

/* What the ingress hook found under a packet's own key. */
enum ft_rx_lookup {
	FT_RX_NOT_LOOKED,	/* handed to the stack before the lookup */
	FT_RX_FREE,		/* no flow */
	FT_RX_CACHED,		/* a flow, which it left alone */
	FT_RX_TORN_DOWN,	/* a flow, whose connection it tore down */
};

/*
 * What a packet looked like when the ingress hook handed it to the stack,
 * and what the hook found of its connection.
 */
struct ft_rx_state {
	struct ft_gens gens;
	u32 mark;
	u32 priority;
	struct ft_hdr_fields hdr;
	bool hdr_ok;		/* @hdr was read */
	bool learnable;		/* no SYN, FIN or RST: the above were read */
	u8 lookup;		/* enum ft_rx_lookup */
	struct ft_key key;	/* unless FT_RX_NOT_LOOKED */
};

struct ft_route_memos;

struct ft_net {
	struct net *net;

	/*
	 * Read per packet, written rarely: one cache line, which ends with
	 * the table's @cur; its writers' lock begins the next one
	 * (ft_net_layout_check()).
	 */
	atomic_t gen[FT_GEN_NUM] ____cacheline_aligned_in_smp;
	u32 dst_gen[FT_FAM_NUM];	/* ft_dst_gen() the log last noted */
	struct ft_stats_pcpu __percpu *stats;
	struct ft_config cfg;
	struct ft_htable flows;

	atomic_t nflows ____cacheline_aligned_in_smp;
	struct xarray flow_ids;		/* id -> flow, lowest free id */
	unsigned long gc_next;		/* id the GC goes on from */
	unsigned long gc_passes;	/* whole passes, GC writes */
	struct xarray gone_iifs;	/* ifindex -> gc_passes: dev.c */

	struct list_head devs;		/* RTNL */
	struct list_head dev_rules;	/* RTNL: dev_rules.c */
	unsigned int ndev_rules;	/* RTNL */
	struct xarray dev_index;	/* ifindex -> ft_dev, RCU readers */
	unsigned int ndevs;		/* RTNL */
	struct notifier_block netdev_nb;
	spinlock_t nh_lock;		/* nh_hash writers */
	DECLARE_HASHTABLE(nh_hash, FT_NH_HASH_BITS);	/* by device */
	struct notifier_block fib_nb;	/* route watch: under lock */
	struct notifier_block nh_nb;
	struct socket *rules_sock;	/* ruleset watch: under lock */
	struct socket *route_sock;	/* route_nl.c: under lock */

	/* The second bump of a generation, one grace period later: gen.c */
	spinlock_t gen_lock;
	unsigned long gen_waiting;	/* kinds of the armed rcu_head */
	unsigned long gen_next;		/* kinds bumped since it was armed */
	bool gen_armed;
	bool gen_stopped;
	struct rcu_head gen_rcu;

	/* Route change logs, heads in gen[ft_gen_route()]: route.c */
	seqcount_spinlock_t rlog_seq;	/* writers hold gen_lock */
	struct ft_route_change rlog[FT_FAM_NUM][FT_RLOG_SIZE];
	u32 rules_seq[FT_FAM_NUM];	/* log head at the last ruleset change */
	u32 cover_seq[FT_FAM_NUM];	/* ... at the last that may cover one */
	struct ft_route_memos __percpu *rmemo;	/* BH off: route.c */

	struct nf_hook_ops learn_ops[FT_LEARN_HOOKS];	/* IPv4, IPv6 */
	struct mutex lock;		/* settings, route watch */
	struct delayed_work gc_work;
	struct delayed_work reap_work;	/* reap.c */
};

extern unsigned int ft_net_id;

static inline struct ft_net *ft_net(const struct net *net)
{
	return net_generic(net, ft_net_id);
}

/*
 * Does the conntrack mark of @ct match the skip mark, under @mask (not 0)?
 * The learn asks, and the fast path per packet while a skip mark is set:
 * ctnetlink (conntrack -U) may set it on a connection that is cached.
 */
static inline bool ft_ct_skip_marked(const struct ft_net *fn,
				     const struct nf_conn *ct, u32 mask)
{
#if IS_ENABLED(CONFIG_NF_CONNTRACK_MARK)
	return (READ_ONCE(ct->mark) & mask) == READ_ONCE(fn->cfg.skip_mark);
#else
	return false;
#endif
}

/*
 * stats.c: per-CPU counters. Writers run with BH disabled (softirq, or a
 * process context caller that disabled it), so a CPU's counters have one
 * writer. In line: the fast path counts every packet it forwards, and a
 * call costs about as much as the add.
 */
static inline void ft_stat_add(struct ft_net *fn, enum ft_stat stat, u64 val)
{
	struct ft_stats_pcpu *s;

	lockdep_assert_in_softirq();
	s = this_cpu_ptr(fn->stats);
	u64_stats_update_begin(&s->syncp);
	u64_stats_add(&s->cnt[stat], val);
	u64_stats_update_end(&s->syncp);
}

static inline void ft_stat_inc(struct ft_net *fn, enum ft_stat stat)
{
	ft_stat_add(fn, stat, 1);
}

void ft_stats_read(struct ft_net *fn, u64 *out);
void ft_stats_read_cpu(struct ft_net *fn, int cpu, u64 *out);
u32 ft_stat_reason(enum ft_stat stat);
/* What a device forwarded of a family, all tiers and the XDP tier's. */
struct ft_dev_counts {
	u64 packets;
	u64 bytes;
	u64 xdp_packets;
	u64 xdp_bytes;
};

void ft_dev_stats_read(const struct ft_dev *fd, enum ft_fam fam,
		       struct ft_dev_counts *c);
void ft_dev_punts_read(const struct ft_dev *fd, enum ft_fam fam,
		       u64 punted[FT_PUNT_NUM]);

/* gen.c */
void ft_gen_init(struct ft_net *fn);
void ft_gen_exit(struct ft_net *fn);
void ft_gen_bump(struct ft_net *fn, unsigned long kinds);
void ft_gen_bump_once(struct ft_net *fn, unsigned long kinds);
void ft_route_log_append(struct ft_net *fn, enum ft_fam fam,
			 const struct ft_route_change *c);
void ft_route_log(struct ft_net *fn, enum ft_fam fam,
		  const struct ft_route_change *c);
void ft_route_dst_gen_note(struct ft_net *fn, enum ft_fam fam, u32 gen);

static inline void ft_gens_read(struct ft_net *fn, struct ft_gens *g)
{
	int i;

	for (i = 0; i < FT_GEN_NUM; i++)
		g->val[i] = atomic_read(&fn->gen[i]);
	/* Read the state the generations cover only after them. */
	smp_rmb();
}

/*
 * Why a decision taken under @g is stale: the removal counter of the first
 * generation that moved since (FT_STAT_ROUTE_CHANGED, _RULESET_CHANGED), or
 * 0 while it holds.
 */
static inline enum ft_stat ft_gens_stale(struct ft_net *fn,
					 const struct ft_gens *g)
{
	static const enum ft_stat reason[FT_GEN_NUM] = {
		[FT_GEN_ROUTE4]	= FT_STAT_ROUTE_CHANGED,
		[FT_GEN_ROUTE6]	= FT_STAT_ROUTE_CHANGED,
		[FT_GEN_RULES]	= FT_STAT_RULESET_CHANGED,
	};
	int i;

	for (i = 0; i < FT_GEN_NUM; i++)
		if (g->val[i] != (u32)atomic_read(&fn->gen[i]))
			return reason[i];
	return 0;
}

/* flow.c */
int ft_flow_cache_init(void);
void ft_flow_cache_exit(void);
struct ft_flow *ft_flow_alloc(enum ft_fam fam, bool nat, bool meta);
void ft_flow_destroy(struct ft_flow *flow);

/* reap.c */
void ft_reap_init(struct ft_net *fn);
void ft_reap_exit(struct ft_net *fn);
void ft_flow_reap(struct ft_net *fn, struct ft_flow *flow);

/* flowhash.c */
int ft_flow_hash_init(struct ft_net *fn);
void ft_flow_hash_exit(struct ft_net *fn);
int ft_flow_hash_insert(struct ft_net *fn, struct ft_flow *flow);
void ft_flow_hash_remove(struct ft_net *fn, struct ft_flow *flow);
struct ft_flow *ft_flow_lookup(struct ft_net *fn, const struct ft_key *key);
unsigned int ft_flow_hash_buckets(struct ft_net *fn);
bool ft_key_same(const struct ft_key *a, const struct ft_key *b);

/* table.c */
/* A flow came (@reason 0) or went (why): ft_flow_notifier_register(). */
struct ft_flow_event {
	struct ft_net *fn;
	const struct ft_flow *flow;
	enum ft_stat reason;
};

int ft_flow_notifier_register(struct notifier_block *nb);
void ft_flow_notifier_unregister(struct notifier_block *nb);
int ft_table_init(struct ft_net *fn);
void ft_table_exit(struct ft_net *fn);
int ft_flow_insert(struct ft_net *fn, struct ft_flow *flow);
void ft_flow_teardown(struct ft_net *fn, struct ft_flow *flow,
		      enum ft_stat reason);
void ft_key_from_tuple(struct ft_key *key,
		       const struct nf_conntrack_tuple *t);
void ft_flow_teardown_ct(struct ft_net *fn, struct nf_conn *ct,
			 enum ft_stat reason);
void ft_flow_acct_read(const struct ft_flow *flow, u64 *packets, u64 *bytes);
void ft_ct_refresh(struct ft_flow *flow, u32 last);

#define FT_GC_SWEEP	(8 * HZ)	/* longest GC pass over a big table */

/*
 * Count @packets forwarded packets of @flow, @bytes in all; BH disabled.
 * conntrack's own counters grow at once, as the stack's per-packet
 * accounting and the flowtable's "counter" make them grow. Not through
 * nf_ct_acct_add(): it is out of line and takes 32-bit amounts.
 */
static inline void ft_flow_acct_add(struct ft_flow *flow, u64 packets,
				    u64 bytes)
{
	u32 now = (u32)jiffies;

	atomic64_add(packets, &flow->acct.packets);
	atomic64_add(bytes, &flow->acct.bytes);
	/* What the GC reads to tell an active flow from an idle one. */
	if (READ_ONCE(flow->last_active) != now)
		WRITE_ONCE(flow->last_active, now);
	if (test_bit(FT_FLOW_CT_ACCT, &flow->flags)) {
		struct nf_conn_acct *ct_acct = nf_conn_acct_find(flow->ct);

		if (likely(ct_acct)) {
			struct nf_conn_counter *c = &ct_acct->counter[ft_flow_dir(flow)];

			atomic64_add(packets, &c->packets);
			atomic64_add(bytes, &c->bytes);
		}
	}
}

/* Which flows a flush or a dump is about: 0 / all families match all. */
/* One connection's fields, as a flow direction receives them. */
#define FT_MATCH_PROTO	BIT(0)
#define FT_MATCH_SRC	BIT(1)
#define FT_MATCH_DST	BIT(2)
#define FT_MATCH_SPORT	BIT(3)
#define FT_MATCH_DPORT	BIT(4)

struct ft_match {
	u8 fields;		/* FT_MATCH_*: those that count */
	u8 l4proto;
	u8 fam;			/* of src and dst */
	__be16 sport;
	__be16 dport;
	union ft_addr src;
	union ft_addr dst;
};

struct ft_filter {
	int iif;
	const struct net_device *dev;	/* ingress or egress */
	struct xarray *devs;		/* the same, by ifindex: families */
	u8 families;
	struct ft_match match;
};

bool ft_filter_match(const struct ft_filter *f, const struct ft_flow *flow);
void ft_table_kill(struct ft_net *fn, const struct ft_filter *f,
		   enum ft_stat reason);
void ft_table_kill_devs(struct ft_net *fn, struct xarray *devs);
void ft_table_kill_iif(struct ft_net *fn, int ifindex);
struct ft_flow *ft_flow_next(struct ft_net *fn, unsigned long *id);

/* dev.c */
/*
 * How the fast path sends on a device. An Ethernet-like device gets a
 * frame to the neighbour's address. A layer-3 device (ppp, WireGuard, tun,
 * point-to-point tunnels) builds no link-layer header: dev_hard_header()
 * adds nothing without header_ops->create (WireGuard and ip_tunnel devices
 * have header_ops to parse the protocol only). It gets the bare packet,
 * which its own transmit encapsulates, and no neighbour is resolved for it:
 * a tunnel without a remote address takes its outer destination from the
 * route the packet carries (ft_xmit()).
 */
enum ft_dev_kind {
	FT_DEV_NONE,		/* loopback, another link-layer header */
	FT_DEV_ETHER,
	FT_DEV_L3,
};

static inline enum ft_dev_kind ft_dev_kind(const struct net_device *dev)
{
	if (dev->flags & IFF_LOOPBACK)
		return FT_DEV_NONE;
	if (!dev->header_ops || !dev->header_ops->create)
		return FT_DEV_L3;
	if (dev->type == ARPHRD_ETHER && dev->addr_len == ETH_ALEN)
		return FT_DEV_ETHER;
	return FT_DEV_NONE;
}

struct ft_dev *ft_dev_find(struct ft_net *fn, const struct net_device *dev);
int ft_dev_check(const struct net_device *dev, struct netlink_ext_ack *extack);
int ft_dev_enable(struct ft_net *fn, struct net_device *dev, u8 families,
		  struct netlink_ext_ack *extack);
int ft_dev_disable(struct ft_net *fn, struct ft_dev *fd, u8 families);

/* Devices disabled in one change (dev.c); RTNL. */
struct ft_dev_drop {
	struct xarray devs;	/* ifindex -> families dropped (xa value) */
	struct list_head gone;	/* ft_devs left without a family */
};

void ft_dev_drop_init(struct ft_dev_drop *d);
int ft_dev_drop_add(struct ft_net *fn, struct ft_dev_drop *d,
		    struct ft_dev *fd, u8 families);
void ft_dev_drop_commit(struct ft_net *fn, struct ft_dev_drop *d);
void ft_dev_disable_all(struct ft_net *fn);
void ft_dev_destroy(struct ft_net *fn, struct ft_dev *fd);
void ft_dev_gone(struct ft_net *fn, int ifindex);

/* dev_rules.c */
#define FT_DEV_RULES_MAX	256
int ft_dev_rule_add(struct ft_net *fn, const struct nlattr *attr,
		    u8 families, struct netlink_ext_ack *extack);
int ft_dev_rule_del(struct ft_net *fn, const struct nlattr *attr,
		    u8 families, struct netlink_ext_ack *extack);
void ft_dev_rules_event(struct ft_net *fn, struct net_device *dev);
int ft_dev_rules_dump(struct ft_net *fn, struct sk_buff *skb,
		      struct netlink_callback *cb,
		      int (*fill)(struct sk_buff *skb,
				  struct netlink_callback *cb,
				  const char *pattern, u8 families));
void ft_dev_rules_flush(struct ft_net *fn);

/* dev_events.c */
int ft_dev_notifier_init(struct ft_net *fn);
void ft_dev_notifier_exit(struct ft_net *fn);

/* learn.c */
int ft_learn_start(struct ft_net *fn, struct netlink_ext_ack *extack);
void ft_learn_stop(struct ft_net *fn);

/* nexthop.c */
struct ft_nh *ft_nh_get(struct ft_net *fn, struct neighbour *n,
			struct net_device *dev, unsigned int mtu);
void ft_nh_put(struct ft_nh *nh);
void ft_nh_kill_dev(struct ft_net *fn, const struct net_device *dev);
void ft_nh_init(struct ft_net *fn);
void ft_nh_exit(struct ft_net *fn);

/* route.c */
int ft_route_watch_start(struct ft_net *fn, struct netlink_ext_ack *extack);
void ft_route_watch_stop(struct ft_net *fn);
int ft_route_memo_init(struct ft_net *fn);
void ft_route_memo_exit(struct ft_net *fn);
bool ft_route_nexthop(struct dst_entry *dst, const struct sk_buff *skb,
		      enum ft_fam fam, union ft_addr *nh);
u32 ft_dst_cookie(struct dst_entry *dst, enum ft_fam fam);
enum ft_stat ft_route_gc_check(struct ft_net *fn, const struct ft_flow *flow);
enum ft_stat ft_route_recheck(struct ft_net *fn, struct ft_flow *flow,
			      struct sk_buff *skb, bool dst_ok);

/* nl_watch.c */
int ft_nl_watch_open(struct ft_net *fn, int proto, u32 groups,
		     void (*data_ready)(struct sock *sk),
		     void (*error_report)(struct sock *sk),
		     struct socket **sockp);
void ft_nl_watch_close(struct socket **sockp);

/* route_nl.c */
int ft_route_nl_start(struct ft_net *fn, struct netlink_ext_ack *extack);
void ft_route_nl_stop(struct ft_net *fn);

/* netevent.c */
int ft_netevent_init(void);
void ft_netevent_exit(void);

/*
 * The MTU of a flow through @dst, as ip_forward() and ip6_forward() find
 * it (ip_dst_mtu_maybe_forward(dst, true) and its IPv6 twin, at least
 * IPV6_MIN_MTU), if the route fixes it; 0 if it is the egress device's,
 * which the fast path reads per packet (ft_flow_too_big()) as the stack
 * does: IPv6's (net.ipv6.conf.DEV.mtu, a router advertisement's) changes
 * without any event. Any other change moves the route or the device.
 */
static inline unsigned int ft_route_mtu(const struct dst_entry *dst)
{
	unsigned int mtu;

	if (dst->ops->family == AF_INET) {
		mtu = ip_dst_mtu_maybe_forward(dst, true);
		return mtu == READ_ONCE(dst->dev->mtu) ? 0 : mtu;
	}
	/* ip6_dst_mtu_maybe_forward(): a locked route MTU, or the device's */
	if (!dst_metric_locked(dst, RTAX_MTU) || !dst_metric_raw(dst, RTAX_MTU))
		return 0;
	return max_t(unsigned int, ft_ip6_dst_mtu_forward(dst), IPV6_MIN_MTU);
}

/*
 * Would forwarded packets meet IPsec: policies that xfrm4_route_forward()
 * and the forward policy check look up, or a default that is not accept?
 * Their changes move the route generations without being logged.
 */
static inline bool ft_xfrm_active(const struct net *net)
{
#ifdef CONFIG_XFRM
	return READ_ONCE(net->xfrm.policy_count[XFRM_POLICY_OUT]) ||
	       READ_ONCE(net->xfrm.policy_count[XFRM_POLICY_FWD]) ||
	       READ_ONCE(net->xfrm.policy_default[XFRM_POLICY_OUT]) !=
			XFRM_USERPOLICY_ACCEPT ||
	       READ_ONCE(net->xfrm.policy_default[XFRM_POLICY_FWD]) !=
			XFRM_USERPOLICY_ACCEPT;
#else
	return false;
#endif
}

/*
 * The dst generation of @fam: IPv4's rt_genid, IPv6's fib6_sernum. Every
 * change that a dst check of the family can see moves it (IPv6: just
 * before the change, whose serial numbers come from it), but the passing
 * of a route's expiry time.
 */
static inline u32 ft_dst_gen(const struct net *net, enum ft_fam fam)
{
	if (fam == FT_FAM_V4)
		return (u32)rt_genid_ipv4(net);
	return (u32)rt_genid_ipv6(net);
}

/*
 * Has nothing that @flow's route depends on changed since its dst was last
 * checked? Its family's log (route changes, the ruleset, and moves of the
 * dst generation, which the first packet to see one logs) is where the
 * flow read it up to, and the flow already went through here in this
 * jiffy (a passing expiry time moves no number). Not while a change of
 * the flow's own may still be on its way (FT_FLOW_RECHECK, route.c), nor
 * once its dst is dead. Per packet: then ft_flow_dst_ok() is not needed.
 */
#ifdef FT_TEST_HOOKS
bool ft_test_fresh_hold(void);	/* testhooks.c: no expiry by time */
#else
static inline bool ft_test_fresh_hold(void) { return false; }
#endif

static inline bool ft_flow_fresh(struct ft_net *fn, const struct ft_flow *flow,
				 const struct net *net)
{
	enum ft_fam fam = flow->key.fam;

	if (ft_dst_gen(net, fam) != READ_ONCE(fn->dst_gen[fam]))
		return false;
	/* The log entry of that move before its note: ft_route_dst_gen_note() */
	smp_rmb();
	return READ_ONCE(flow->route_seq) ==
	       (u32)atomic_read(&fn->gen[ft_gen_route(fam)]) &&
	       (READ_ONCE(flow->last_active) == (u32)jiffies ||
		ft_test_fresh_hold()) &&
	       !test_bit(FT_FLOW_RECHECK, &flow->flags) &&
	       READ_ONCE(READ_ONCE(flow->dst)->obsolete) == DST_OBSOLETE_FORCE_CHK;
}

/*
 * Does the route @flow was cached with still hold, as far as the dst can
 * tell? IPv4 input routes carry the netns route generation, which any FIB
 * change moves, so the flow keeps the one it was last checked under and
 * route.c moves it on past changes that are not its own. When a flow is
 * not ft_flow_fresh(): it also notes a move of the dst generation in the
 * log, where every flow of the family then sees it.
 */
static inline bool ft_flow_dst_ok(struct ft_net *fn, const struct ft_flow *flow,
				  const struct net *net)
{
	struct dst_entry *dst = READ_ONCE(flow->dst);
	enum ft_fam fam = flow->key.fam;
	u32 gen = ft_dst_gen(net, fam);

	if (unlikely(gen != READ_ONCE(fn->dst_gen[fam])))
		ft_route_dst_gen_note(fn, fam, gen);
	if (fam == FT_FAM_V4)
		return READ_ONCE(dst->obsolete) == DST_OBSOLETE_FORCE_CHK &&
		       READ_ONCE(flow->dst_cookie) == (u32)rt_genid_ipv4(net);
	return dst_check(dst, READ_ONCE(flow->dst_cookie));
}

/* rules.c */
int ft_rules_watch_start(struct ft_net *fn, struct netlink_ext_ack *extack);
void ft_rules_watch_stop(struct ft_net *fn);

/* rx.c */
const struct ft_rx_state *ft_rx_state(const struct sk_buff *skb);
bool ft_hdr_fields(const struct sk_buff *skb, enum ft_fam fam,
		   struct ft_hdr_fields *f);
void ft_rx_note(struct ft_net *fn, enum ft_fam fam, const struct sk_buff *skb,
		const struct ft_key *key, enum ft_rx_lookup lookup,
		bool learnable);

/* fastpath.c */
unsigned int ft_ingress_hook(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state);

/* xdp.c: the XDP tier, where the kernel has kfuncs and the module BTF */
#ifdef FT_HAVE_XDP_TIER
struct xdp_md;
struct fasttrack_xdp_out;
int bpf_fasttrack_xdp(struct xdp_md *ctx, struct fasttrack_xdp_out *out,
		      u32 out_len);
void ft_xdp_init(void);
bool ft_xdp_available(void);
u32 ft_xdp_dev_blocked(struct net_device *dev);
#else
static inline void ft_xdp_init(void)
{
}

static inline bool ft_xdp_available(void)
{
	return false;
}

static inline u32 ft_xdp_dev_blocked(struct net_device *dev)
{
	return 0;
}
#endif

/* testhooks.c */
#ifdef FT_TEST_HOOKS
int ft_testhooks_init(void);
void ft_testhooks_exit(void);
void ft_test_insert_window(const struct ft_flow *flow);
bool ft_test_gc_paused(void);
struct dentry *ft_test_debugfs_dir(void);
/* testhooks_netns.c */
void ft_test_netns_init(void);
void ft_test_net_init(struct ft_net *fn);
void ft_test_net_exit(struct ft_net *fn);
#else
static inline int ft_testhooks_init(void) { return 0; }
static inline void ft_testhooks_exit(void) {}
static inline void ft_test_insert_window(const struct ft_flow *flow) {}
static inline bool ft_test_gc_paused(void) { return false; }
static inline void ft_test_netns_init(void) {}
static inline void ft_test_net_init(struct ft_net *fn) {}
static inline void ft_test_net_exit(struct ft_net *fn) {}
#endif

/* netlink.c */
int ft_genl_init(void);
void ft_genl_exit(void);

#endif /* _FT_FASTTRACK_H */
