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
 * Per packet, without a cache model (what a code change moves, whatever
 * the placement): pkt=ADDR starts a packet at each run of the block at
 * ADDR (pktgen's mod_cur_headers(): once per frame built), and for each
 * packet of a window the plugin counts
 *   d:  distinct 64-byte data lines touched (reads and writes, physical
 *       addresses of the access's first byte): first touches since the
 *       packet started, a line -> packet stamp set;
 *   i:  distinct code lines fetched (host address of the code);
 *   a:  atomic instructions executed: LOCK-prefixed, xchg with memory,
 *       and a LOCK_PREFIX site the kernel patched to a DS prefix (3e) on
 *       one CPU (alternatives_smp_unlock()) before a lockable
 *       read-modify-write of memory; u: those last ones alone;
 *   n:  instructions;
 *   m:  the model's L1d misses ("l1d") and L2 misses ("l2", data and
 *       code), which with many flows tell a packet's own misses (the
 *       median) from background work's (a GC pass: the mean);
 * for the whole guest ("all"), for instructions in the module area
 * (modlo <= PC < modhi: x86-64's MODULES_VADDR..MODULES_END without KASLR,
 * "mod"), and per module: mods=FILE lists "name 0xADDR size" (the guest's
 * /proc/modules), an instruction belongs to the module of the highest
 * ADDR <= PC with PC < ADDR + size, else to "?" (module area, no module).
 * The stamps make each count exact: a packet's count does not depend on
 * where its lines sit in a cache, only on which lines they are (an object
 * that straddles a line boundary in one boot and not in another still
 * moves it by one).
 * dump=K: also write OUT.N.lines, the data lines of the K-th full packet
 * of window N, one a line: "PHYS PC VADDR RW COUNT MPC" (the line's
 * physical address, the instruction and address of its first access, r,
 * w or rw, its accesses, and the first instruction in the module area that
 * touched it, or 0), to name what a path touches.
 * d: and a: are per module, i: and n: for "all" and "mod" only. OUT.N.pkt:
 * a header line of column names ("d:all d:mod d:NAME... i:all ...
 * m:l1d m:l2"), then
 * one line per packet; the first line (window open to first packet) and
 * the last (to window close) are partial.
 *
 * usage: -plugin ftcache.so,start=0xADDR,stop=0xADDR,out=PATH[,all=1]
 *        [,pkt=0xADDR,mods=FILE,dump=K,modlo=0xffffffffc0000000,
 *        modhi=0xffffffffff000000]
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

/* A set of lines, emptied at each packet: a slot is used if its stamp is
 * the current packet's. Open addressing, grown at half full. */
struct lineset {
	uint64_t *line;
	uint32_t *stamp;
	uint32_t mask, n;
};

#define MAXMODS 128

struct mod {
	char name[64];
	uint64_t base, end;
};

static struct mod mods[MAXMODS + 1];	/* sorted by base; [nmods] is "?" */
static int nmods;
static uint64_t pkt_pc, modlo = 0xffffffffc0000000ULL, modhi = 0xffffffffff000000ULL;
static uint32_t stamp = 1;
/* Sets and counters: data lines (all, mod, per module), code lines (all,
 * mod); atomics and UP-patched atomics (all, mod, per module);
 * instructions (all, mod). */
static struct lineset *dset, iset[2];
static uint32_t *acnt, *ucnt, ncnt[2], mcnt[2];
static int ncol;
static GArray *rows;

struct insn_info {
	uint64_t pc;
	int mod;		/* mod_of(pc) */
};

/* dump=K: the lines of the K-th packet of each window, by line. */
struct dump_line {
	uint64_t line, pc, va, mpc;
	unsigned int rw, n;
};

static unsigned int dump_at;
static bool dumping;
static GHashTable *dump_lines;

static void dump_add(uint64_t line, const struct insn_info *ii, uint64_t va,
		     bool store)
{
	struct dump_line *dl = g_hash_table_lookup(dump_lines, &line);

	if (!dl) {
		dl = g_new0(struct dump_line, 1);
		dl->line = line;
		dl->pc = ii->pc;
		dl->va = va;
		g_hash_table_insert(dump_lines, &dl->line, dl);
	}
	if (!dl->mpc && ii->mod)
		dl->mpc = ii->pc;
	dl->rw |= store ? 2 : 1;
	dl->n++;
}

static gint dump_cmp(gconstpointer a, gconstpointer b)
{
	const struct dump_line *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

static void dump_write(const char *path)
{
	static const char *const rw[] = { "-", "r", "w", "rw" };
	GList *v = g_list_sort(g_hash_table_get_values(dump_lines), dump_cmp), *l;
	FILE *f = fopen(path, "w");

	for (l = v; f && l; l = l->next) {
		struct dump_line *dl = l->data;

		fprintf(f, "%" PRIx64 " %" PRIx64 " %" PRIx64 " %s %u %" PRIx64 "\n",
			dl->line << 6, dl->pc, dl->va, rw[dl->rw], dl->n, dl->mpc);
	}
	if (f)
		fclose(f);
	g_list_free(v);
	g_hash_table_remove_all(dump_lines);
}

static void lineset_init(struct lineset *s, uint32_t size)
{
	s->line = g_new0(uint64_t, size);
	s->stamp = g_new0(uint32_t, size);
	s->mask = size - 1;
	s->n = 0;
}

static void lineset_add(struct lineset *s, uint64_t line);

static void lineset_grow(struct lineset *s)
{
	struct lineset old = *s;
	uint32_t i;

	lineset_init(s, (old.mask + 1) * 2);
	for (i = 0; i <= old.mask; i++)
		if (old.stamp[i] == stamp)
			lineset_add(s, old.line[i]);
	g_free(old.line);
	g_free(old.stamp);
}

static void lineset_add(struct lineset *s, uint64_t line)
{
	uint32_t h = (uint32_t)((line * 0x9e3779b97f4a7c15ULL) >> 32) & s->mask;

	while (s->stamp[h] == stamp) {
		if (s->line[h] == line)
			return;
		h = (h + 1) & s->mask;
	}
	s->line[h] = line;
	s->stamp[h] = stamp;
	if (++s->n * 2 > s->mask)
		lineset_grow(s);
}

/* The module of an instruction: 0 outside the module area, else 1 + its
 * index in mods[] (nmods: "?"). */
static int mod_of(uint64_t pc)
{
	int i, m = nmods;

	if (pc < modlo || pc >= modhi)
		return 0;
	for (i = 0; i < nmods && mods[i].base <= pc; i++)
		if (pc < mods[i].end)
			m = i;
	return 1 + m;
}

/* What on_mem() needs of an instruction, one per address. */
static GHashTable *insn_infos;

static struct insn_info *insn_info(uint64_t pc)
{
	struct insn_info *ii = g_hash_table_lookup(insn_infos, &pc);

	if (!ii) {
		ii = g_new0(struct insn_info, 1);
		ii->pc = pc;
		ii->mod = mod_of(pc);
		g_hash_table_insert(insn_infos, &ii->pc, ii);
	}
	return ii;
}

static int mod_cmp(const void *a, const void *b)
{
	const struct mod *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

static int mods_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char name[64];
	unsigned long long base, size;

	if (!f)
		return -1;
	while (nmods < MAXMODS && fscanf(f, "%63s %llx %llu", name, &base, &size) == 3) {
		snprintf(mods[nmods].name, sizeof(mods[nmods].name), "%s", name);
		mods[nmods].base = base;
		mods[nmods].end = base + size;
		nmods++;
	}
	fclose(f);
	qsort(mods, nmods, sizeof(mods[0]), mod_cmp);
	return 0;
}

/* Per-module columns: "all", "mod", then each module and "?". */
#define NPER (2 + nmods + 1)

static void pkt_init(void)
{
	int i;

	snprintf(mods[nmods].name, sizeof(mods[nmods].name), "?");
	dset = g_new0(struct lineset, NPER);
	for (i = 0; i < NPER; i++)
		lineset_init(&dset[i], 1024);
	lineset_init(&iset[0], 1024);
	lineset_init(&iset[1], 1024);
	acnt = g_new0(uint32_t, NPER);
	ucnt = g_new0(uint32_t, NPER);
	ncol = 3 * NPER + 6;
	rows = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	insn_infos = g_hash_table_new(g_int64_hash, g_int64_equal);
	dump_lines = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
}

/* The packet so far as a row; the next one starts empty. */
static void pkt_row(void)
{
	int i;

	for (i = 0; i < NPER; i++) {
		g_array_append_val(rows, dset[i].n);
		dset[i].n = 0;
	}
	for (i = 0; i < 2; i++) {
		g_array_append_val(rows, iset[i].n);
		iset[i].n = 0;
	}
	g_array_append_vals(rows, acnt, NPER);
	g_array_append_vals(rows, ucnt, NPER);
	g_array_append_vals(rows, ncnt, 2);
	g_array_append_vals(rows, mcnt, 2);
	memset(acnt, 0, NPER * sizeof(*acnt));
	memset(ucnt, 0, NPER * sizeof(*ucnt));
	memset(ncnt, 0, sizeof(ncnt));
	memset(mcnt, 0, sizeof(mcnt));
	stamp++;
	if (dumping) {
		char path[4096];

		snprintf(path, sizeof(path), "%s.%d.lines", out, window);
		dump_write(path);
	}
	dumping = dump_at && rows->len / ncol == dump_at;
}

static void pkt_write(const char *path)
{
	static const char *const kind[] = { "d", "a", "u" };
	FILE *f = fopen(path, "w");
	guint r;
	int i, k;

	if (!f)
		return;
	for (k = 0; k < 3; k++) {
		for (i = 0; i < NPER; i++)
			fprintf(f, "%s:%s ", kind[k], i == 0 ? "all" : i == 1 ? "mod" : mods[i - 2].name);
		if (k == 0)
			fprintf(f, "i:all i:mod ");
	}
	fprintf(f, "n:all n:mod m:l1d m:l2\n");
	for (r = 0; r + ncol <= rows->len; r += ncol) {
		/* stored as d, i, a, u, n, m: the header's order */
		for (i = 0; i < ncol; i++)
			fprintf(f, "%u%c", g_array_index(rows, uint32_t, r + i),
				i == ncol - 1 ? '\n' : ' ');
	}
	fclose(f);
	g_array_set_size(rows, 0);
}

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
	if (!counting)
		return;
	win[what]++;
	if (what == L1D_M)
		mcnt[0]++;
	else if (what == L2_M)
		mcnt[1]++;
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

/* udata: the instruction's insn_info. */
static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	const struct insn_info *ii = udata;
	uint64_t addr;
	int m = ii->mod;

	if (hw && qemu_plugin_hwaddr_is_io(hw))
		return;
	addr = hw ? qemu_plugin_hwaddr_phys_addr(hw) : vaddr;
	model_access(&l1d, L1D_A, addr);
	if (!counting || !pkt_pc)
		return;
	lineset_add(&dset[0], addr >> 6);
	if (dumping)
		dump_add(addr >> 6, ii, vaddr, qemu_plugin_mem_is_store(info));
	if (m) {
		lineset_add(&dset[1], addr >> 6);
		lineset_add(&dset[1 + m], addr >> 6);
	}
}

static void on_insn(unsigned int vcpu, void *udata)
{
	count(INSNS);
	model_access(&l1i, L1I_A, (uint64_t)(uintptr_t)udata);
	if (!counting || !pkt_pc)
		return;
	ncnt[0]++;
	lineset_add(&iset[0], (uint64_t)(uintptr_t)udata >> 6);
}

static void on_mod_insn(unsigned int vcpu, void *udata)
{
	if (!counting || !pkt_pc)
		return;
	ncnt[1]++;
	lineset_add(&iset[1], (uint64_t)(uintptr_t)udata >> 6);
}

/* udata: mod_of() << 1 | (LOCK patched to DS). */
static void on_atomic(unsigned int vcpu, void *udata)
{
	int m = (int)((uintptr_t)udata >> 1), up = (uintptr_t)udata & 1;

	if (!counting || !pkt_pc)
		return;
	acnt[0]++;
	ucnt[0] += up;
	if (m) {
		acnt[1]++;
		acnt[1 + m]++;
		ucnt[1] += up;
		ucnt[1 + m] += up;
	}
}

static void on_pkt(unsigned int vcpu, void *udata)
{
	if (counting)
		pkt_row();
}

/*
 * An atomic read-modify-write: 1 LOCK prefix or xchg with memory, 2 a
 * lockable instruction on memory behind a DS prefix (the kernel's
 * LOCK_PREFIX sites on one CPU), 0 otherwise.
 */
static int atomic_kind(const uint8_t *p, size_t n)
{
	bool lock = false, ds = false, mem;
	size_t i;
	uint8_t op, reg;

	for (i = 0; i < n; i++) {
		if (p[i] == 0xf0)
			lock = true;
		else if (p[i] == 0x3e)
			ds = true;
		else if (p[i] != 0xf2 && p[i] != 0xf3 && p[i] != 0x2e && p[i] != 0x36 &&
			 p[i] != 0x26 && p[i] != 0x64 && p[i] != 0x65 && p[i] != 0x66 &&
			 p[i] != 0x67)
			break;
	}
	if (i < n && (p[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i + 1 >= n)
		return 0;
	op = p[i];
	if (op == 0x0f) {
		if (i + 2 >= n)
			return 0;
		mem = p[i + 2] >> 6 != 3;
		reg = (p[i + 2] >> 3) & 7;
		op = p[i + 1];
		if (lock)
			return 1;
		return ds && mem && (op == 0xb0 || op == 0xb1 || op == 0xc0 || op == 0xc1 ||
				     op == 0xab || op == 0xb3 || op == 0xbb ||
				     (op == 0xba && reg >= 5) || (op == 0xc7 && reg == 1)) ? 2 : 0;
	}
	mem = p[i + 1] >> 6 != 3;
	reg = (p[i + 1] >> 3) & 7;
	if ((op == 0x86 || op == 0x87) && mem)
		return 1;
	if (lock)
		return 1;
	if (!ds || !mem)
		return 0;
	if (op < 0x38 && (op & 7) <= 1)		/* add or adc sbb and sub xor */
		return 2;
	if ((op == 0x80 || op == 0x81 || op == 0x83) && reg != 7)
		return 2;
	if ((op == 0xf6 || op == 0xf7) && (reg == 2 || reg == 3))
		return 2;
	if ((op == 0xfe || op == 0xff) && reg <= 1)
		return 2;
	return 0;
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
	if (pkt_pc) {
		pkt_row();
		g_array_set_size(rows, 0);
		dumping = false;
		g_hash_table_remove_all(dump_lines);
	}
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
	if (pkt_pc) {
		pkt_row();
		snprintf(path, sizeof(path), "%s.%d.pkt", out, window - 1);
		pkt_write(path);
	}
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
	if (pkt_pc && pc == pkt_pc)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_pkt, QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (!modelling)
		return;
	/* cache.c's order: the fetch, then the instruction's data accesses. */
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		void *haddr = qemu_plugin_insn_haddr(insn);
		int m = mod_of(qemu_plugin_insn_vaddr(insn));
		int a = atomic_kind(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn));

		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, haddr);
		if (m)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mod_insn,
							       QEMU_PLUGIN_CB_NO_REGS, haddr);
		if (a)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_atomic, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)(m << 1 | (a == 2)));
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW,
						 insn_info(qemu_plugin_insn_vaddr(insn)));
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
		else if (!strcmp(argv[i], "dump"))
			dump_at = n;
		else if (!strcmp(argv[i], "pkt"))
			pkt_pc = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "mods")) {
			if (mods_load(v))
				return -1;
		} else if (!strcmp(argv[i], "modlo"))
			modlo = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "modhi"))
			modhi = strtoull(v, NULL, 0);
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
	pkt_init();
	cache_init(&l1d, dsize, dassoc, blk);
	cache_init(&l1i, isize, iassoc, blk);
	cache_init(&l2, l2size, l2assoc, blk);
	self = id;
	modelling = all;
	on_reset(id);
	return 0;
}
