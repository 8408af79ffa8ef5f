// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that models the caches as qemu's contrib/plugins/cache.c
 * does (same lookup, LRU and addresses: physical for data, the host address
 * of the code for fetches; L1 misses of both go to a unified L2) and counts
 * their accesses and misses in windows the guest opens and closes:
 *
 *   start=ADDR  a window opens (or, open, starts over) when a block at ADDR
 *               runs (bench/guest/cache.sh: proc_do_uuid());
 *   stop=ADDR   the window closes; its counts go to OUT.N, N from 0
 *               (proc_do_uts_string()). The first stop only arms the
 *               plugin: what ran at boot opens nothing.
 *
 * Nothing is modelled before the first window opens, so that priming a
 * million flows runs at TCG's speed: opening it swaps the instrumentation
 * in with qemu_plugin_reset(). It is never swapped out: qemu 7.2 frees the
 * memory callbacks' descriptors at that flush while the vCPU may still
 * point at them (CPUState.plugin_mem_cbs), and aborts in
 * qemu_plugin_vcpu_mem_cb(). So the model runs from the first window to
 * the end of the boot, and bench/prof/cache.sh boots once per long
 * priming.
 * all=1 models the whole run, and writes its totals to OUT.all at exit:
 * with cache.c loaded beside it, the two must agree (cache.sh --check).
 *
 * usage: -plugin ftcache.so,start=0xADDR,stop=0xADDR,out=PATH[,all=1]
 *        [,dcachesize=32768,dassoc=8,icachesize=32768,iassoc=8,
 *        l2cachesize=1048576,l2assoc=16,blksize=64]
 * OUT.N: "l1d_access l1d_miss l1i_access l1i_miss l2_access l2_miss insns".
 * One vCPU (make bench boots one): nothing is locked.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct cache {
	int sets, assoc, shift;
	uint64_t set_mask, tag_mask;
	uint64_t *tag;		/* [set * assoc + way] */
	uint64_t *prio;		/* LRU stamp, as cache.c's lru_priorities */
	uint64_t *gen;		/* per set */
	bool *valid;
};

enum { L1D_A, L1D_M, L1I_A, L1I_M, L2_A, L2_M, INSNS, NCOUNT };

static struct cache l1d, l1i, l2;
static uint64_t win[NCOUNT], total[NCOUNT];
static uint64_t start_pc, stop_pc;
static const char *out = "ftcache";
static bool all, armed, counting, modelling;
static int window;
static qemu_plugin_id_t self;

static void cache_init(struct cache *c, int size, int assoc, int blk)
{
	c->assoc = assoc;
	c->sets = size / (blk * assoc);
	c->shift = __builtin_ctz(blk);
	c->set_mask = (uint64_t)(c->sets - 1) << c->shift;
	c->tag_mask = ~(c->set_mask | (blk - 1));
	c->tag = g_new0(uint64_t, c->sets * assoc);
	c->prio = g_new0(uint64_t, c->sets * assoc);
	c->gen = g_new0(uint64_t, c->sets);
	c->valid = g_new0(bool, c->sets * assoc);
}

/* cache.c's access_cache() with its LRU policy: true on a hit. */
static bool cache_access(struct cache *c, uint64_t addr)
{
	uint64_t tag = addr & c->tag_mask;
	int set = (addr & c->set_mask) >> c->shift;
	int base = set * c->assoc, i, victim = -1;

	for (i = 0; i < c->assoc; i++) {
		if (c->valid[base + i] && c->tag[base + i] == tag) {
			c->prio[base + i] = c->gen[set]++;
			return true;
		}
	}
	for (i = 0; i < c->assoc && victim < 0; i++)
		if (!c->valid[base + i])
			victim = i;
	if (victim < 0) {
		victim = 0;
		for (i = 1; i < c->assoc; i++)
			if (c->prio[base + i] < c->prio[base + victim])
				victim = i;
	}
	c->prio[base + victim] = c->gen[set]++;
	c->tag[base + victim] = tag;
	c->valid[base + victim] = true;
	return false;
}

static void count(int what)
{
	total[what]++;
	if (counting)
		win[what]++;
}

static void model_access(struct cache *l1, int a, uint64_t addr)
{
	count(a);
	if (cache_access(l1, addr))
		return;
	count(a + 1);
	count(L2_A);
	if (!cache_access(&l2, addr))
		count(L2_M);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

	if (hw && qemu_plugin_hwaddr_is_io(hw))
		return;
	model_access(&l1d, L1D_A, hw ? qemu_plugin_hwaddr_phys_addr(hw) : vaddr);
}

static void on_insn(unsigned int vcpu, void *udata)
{
	count(INSNS);
	model_access(&l1i, L1I_A, (uint64_t)(uintptr_t)udata);
}

static void write_counts(const char *path, const uint64_t *c)
{
	FILE *f = fopen(path, "w");
	int i;

	if (!f)
		return;
	for (i = 0; i < NCOUNT; i++)
		fprintf(f, "%" PRIu64 "%c", c[i], i == NCOUNT - 1 ? '\n' : ' ');
	fclose(f);
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void on_atexit(qemu_plugin_id_t id, void *p);

/* After a reset: the callbacks of the new mode (modelling or not). */
static void on_reset(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
}

static void on_start(unsigned int vcpu, void *udata)
{
	if (!armed)
		return;
	memset(win, 0, sizeof(win));
	counting = true;
	if (!modelling) {
		modelling = true;
		qemu_plugin_reset(self, on_reset);
	}
}

static void on_stop(unsigned int vcpu, void *udata)
{
	char path[4096];

	if (!armed) {
		armed = true;
		return;
	}
	if (!counting)
		return;
	snprintf(path, sizeof(path), "%s.%d", out, window++);
	write_counts(path, win);
	counting = false;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	if (pc == start_pc)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_start, QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (pc == stop_pc)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_stop, QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (!modelling)
		return;
	/* cache.c's order: the fetch, then the instruction's data accesses. */
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS,
						       qemu_plugin_insn_haddr(insn));
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
	}
}

static void on_atexit(qemu_plugin_id_t id, void *p)
{
	char path[4096];

	if (!all)
		return;
	snprintf(path, sizeof(path), "%s.all", out);
	write_counts(path, total);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	long dsize = 32768, dassoc = 8, isize = 32768, iassoc = 8;
	long l2size = 1048576, l2assoc = 16, blk = 64;
	int i;

	for (i = 0; i < argc; i++) {
		char *v = strchr(argv[i], '=');
		long n;

		if (!v)
			return -1;
		*v++ = 0;
		n = strtol(v, NULL, 0);
		if (!strcmp(argv[i], "start"))
			start_pc = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "stop"))
			stop_pc = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "out"))
			out = strdup(v);
		else if (!strcmp(argv[i], "all"))
			all = n;
		else if (!strcmp(argv[i], "dcachesize"))
			dsize = n;
		else if (!strcmp(argv[i], "dassoc"))
			dassoc = n;
		else if (!strcmp(argv[i], "icachesize"))
			isize = n;
		else if (!strcmp(argv[i], "iassoc"))
			iassoc = n;
		else if (!strcmp(argv[i], "l2cachesize"))
			l2size = n;
		else if (!strcmp(argv[i], "l2assoc"))
			l2assoc = n;
		else if (!strcmp(argv[i], "blksize"))
			blk = n;
		else
			return -1;
	}
	cache_init(&l1d, dsize, dassoc, blk);
	cache_init(&l1i, isize, iassoc, blk);
	cache_init(&l2, l2size, l2assoc, blk);
	self = id;
	modelling = all;
	on_reset(id);
	return 0;
}
