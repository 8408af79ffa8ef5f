// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts the guest instructions executed at each
 * address while the guest holds a window open, as bench/prof/ftcache.c's:
 *
 *   start=ADDR  a window opens (its counts start from zero) when a block
 *               at ADDR runs (bench/guest/pktgen.sh: proc_do_uuid(), just
 *               before pktgen starts);
 *   stop=ADDR   the window closes and its "pc count" lines go to OUT.N, N
 *               from 0 (proc_do_uts_string(), just after pktgen's run).
 *               The first stop only arms the plugin: what ran at boot opens
 *               nothing.
 *
 * So a window holds a pktgen run and little else: the instructions in the
 * time pktgen measures. bench/prof/profile.sh drives it.
 *
 * usage: -plugin ftprof.so,start=0xADDR,stop=0xADDR,out=PATH
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	uint64_t count;		/* executions, added inline */
	size_t n;
	uint64_t pc[];		/* of each instruction */
};

static GHashTable *blocks;	/* (start ^ n << 56) -> struct block */
static uint64_t start_pc, stop_pc;
static const char *out = "ftprof";
static bool armed, in_window;
static int window;

static void dump(void)
{
	GHashTableIter it;
	GHashTable *sum = g_hash_table_new(g_int64_hash, g_int64_equal);
	gpointer k, v;
	char path[4096];
	FILE *f;

	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct block *b = v;
		size_t i;

		if (!b->count)
			continue;
		for (i = 0; i < b->n; i++) {
			uint64_t *c = g_hash_table_lookup(sum, &b->pc[i]);

			if (!c) {
				c = g_new0(uint64_t, 2);
				c[0] = b->pc[i];
				g_hash_table_insert(sum, c, c);
			}
			c[1] += b->count;
		}
	}
	snprintf(path, sizeof(path), "%s.%d", out, window);
	f = fopen(path, "w");
	if (f) {
		g_hash_table_iter_init(&it, sum);
		while (g_hash_table_iter_next(&it, &k, &v))
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n", ((uint64_t *)v)[0],
				((uint64_t *)v)[1]);
		fclose(f);
	}
	g_hash_table_destroy(sum);
}

static void zero(void)
{
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &k, &v))
		((struct block *)v)->count = 0;
}

static void on_start(unsigned int vcpu, void *udata)
{
	if (!armed)
		return;
	zero();
	in_window = true;
}

static void on_stop(unsigned int vcpu, void *udata)
{
	if (!armed) {
		armed = true;
		return;
	}
	if (!in_window)
		return;
	dump();
	window++;
	in_window = false;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t start = qemu_plugin_tb_vaddr(tb);
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	uint64_t key = start ^ ((uint64_t)n << 56);
	struct block *b = g_hash_table_lookup(blocks, &key);

	if (!b) {
		uint64_t *kp = g_new(uint64_t, 1);

		b = g_malloc0(sizeof(*b) + n * sizeof(uint64_t));
		b->n = n;
		for (i = 0; i < n; i++)
			b->pc[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
		*kp = key;
		g_hash_table_insert(blocks, kp, b);
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
	if (start == start_pc)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_start,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (start == stop_pc)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_stop,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "start=", 6))
			start_pc = strtoull(argv[i] + 6, NULL, 0);
		else if (!strncmp(argv[i], "stop=", 5))
			stop_pc = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "out=", 4))
			out = strdup(argv[i] + 4);
	}
	blocks = g_hash_table_new(g_int64_hash, g_int64_equal);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	return 0;
}
