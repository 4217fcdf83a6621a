// SPDX-License-Identifier: MIT
/*
 * A core dump's event counters (ingest/vmcore/counters.c) on a small fake
 * kernel built here, the figures worked out by hand: the per-CPU
 * vm_event_states summed over the CPUs, named by vmstat_text[] after the
 * zone, node and writeback entries, pgpgin and pgpgout halved as
 * /proc/vmstat prints them; no event row, with a warning, when the name
 * at that index is not pgpgin or a CPU's counters are not in the dump;
 * none, silently, without the enum.  The real dumps against the guest's
 * /proc/vmstat are test_vmcore_real.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <bpf/btf.h>

#include "../common/bytes.h"
#include "../ingest/vmcore/vmcore.h"

#define TEXT 0xffffffff82000000ull    /* vmstat_text[] */
#define STRS 0xffffffff82001000ull    /* the names */
#define ZONE_STAT 0xffffffff82002000ull
#define NODE_STAT 0xffffffff82002100ull
#define EVENTS 0x2de20ull             /* a per-CPU symbol: an offset */
#define CPU0 0xffff88807fc00000ull    /* __per_cpu_offset[] */
#define CPU1 0xffff88807fd00000ull

static const char *const names[] = {
	"nr_free_pages", "nr_zone_active_anon", /* zone_stat_item */
	"nr_inactive_anon",                      /* node_stat_item */
	"nr_dirty_threshold", "nr_dirty_background_threshold",
	"pgpgin", "pgpgout", "pgfault",         /* vm_event_item */
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

struct fake {
	uint8_t text[NNAMES * 8], strs[512], zone[16], node[8];
	uint8_t ev[2][24];   /* each CPU's struct vm_event_state */
	int cpu1_gone;       /* CPU 1's area not in the dump */
	int no_events;       /* the types lack enum vm_event_item */
	struct vm_types t;
	struct vm_ctx c;
	uint64_t offs[2];
	int warnings;
	char last[256];
	/* the rows */
	char got[16][48];
	int64_t val[16];
	int n;
};

static int in(uint64_t a, size_t len, uint64_t base, size_t size)
{
	return a >= base && a - base <= size && len <= size - (a - base);
}

static int fake_read(void *ctx, uint64_t a, void *buf, size_t len)
{
	struct fake *f = ctx;
	const struct {
		uint64_t base;
		const uint8_t *p;
		size_t size;
	} r[] = {
		{ TEXT, f->text, sizeof(f->text) },
		{ STRS, f->strs, sizeof(f->strs) },
		{ ZONE_STAT, f->zone, sizeof(f->zone) },
		{ NODE_STAT, f->node, sizeof(f->node) },
		{ CPU0 + EVENTS, f->ev[0], sizeof(f->ev[0]) },
		{ CPU1 + EVENTS, f->ev[1], f->cpu1_gone ? 0 : sizeof(f->ev[1]) },
	};

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (in(a, len, r[i].base, r[i].size)) {
			memcpy(buf, r[i].p + (a - r[i].base), len);
			return 0;
		}
	return -1;
}

static int fake_sym(void *ctx, const char *name, uint64_t *addr)
{
	static const struct {
		const char *name;
		uint64_t v;
	} s[] = {
		{ "vmstat_text", TEXT }, { "vm_zone_stat", ZONE_STAT },
		{ "vm_node_stat", NODE_STAT }, { "vm_event_states", EVENTS },
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (!strcmp(name, s[i].name)) {
			*addr = s[i].v;
			return 0;
		}
	return -1;
}

static void fake_warn(void *ctx, const struct mdb_error *w)
{
	struct fake *f = ctx;

	f->warnings++;
	mdb_error_format(w, f->last, sizeof(f->last));
}

static void enum_of(struct btf *b, const char *name,
		    const char *const *items, int n)
{
	btf__add_enum(b, name, 4);
	for (int i = 0; i < n; i++)
		btf__add_enum_value(b, items[i], i);
}

/* 6.1's enums, reduced: two zone items, no NUMA ones, one node item,
 * the two writeback items, three events. */
static void types_init(struct fake *f)
{
	static const char *const zone[] = { "NR_FREE_PAGES",
		"NR_ZONE_ACTIVE_ANON", "NR_VM_ZONE_STAT_ITEMS" };
	static const char *const node[] = { "NR_INACTIVE_ANON",
		"NR_VM_NODE_STAT_ITEMS" };
	static const char *const wb[] = { "NR_DIRTY_THRESHOLD",
		"NR_DIRTY_BG_THRESHOLD", "NR_VM_WRITEBACK_STAT_ITEMS" };
	static const char *const ev[] = { "PGPGIN", "PGPGOUT", "PGFAULT",
		"NR_VM_EVENT_ITEMS" };
	struct btf *b = btf__new_empty();
	struct mdb_error e;
	const void *raw;
	uint32_t len;
	int ul, arr;

	assert_non_null(b);
	ul = btf__add_int(b, "long unsigned int", 8, 0);
	enum_of(b, "zone_stat_item", zone, 3);
	enum_of(b, "node_stat_item", node, 2);
	enum_of(b, "writeback_stat_item", wb, 3);
	if (!f->no_events)
		enum_of(b, "vm_event_item", ev, 4);
	arr = btf__add_array(b, ul, ul, 3);
	btf__add_struct(b, "vm_event_state", 24);
	assert_int_equal(btf__add_field(b, "event", arr, 0, 0), 0);
	raw = btf__raw_data(b, &len);
	assert_non_null(raw);
	assert_int_equal(mdb_vm_types_btf(&f->t, raw, len, "t", &e), 0);
	btf__free(b);
}

static void fake_init(struct fake *f)
{
	size_t at = 0;

	types_init(f);
	for (size_t i = 0; i < NNAMES; i++) {
		put_le64(f->text + 8 * i, STRS + at);
		memcpy(f->strs + at, names[i], strlen(names[i]) + 1);
		at += strlen(names[i]) + 1;
	}
	put_le64(f->zone, 45711);
	put_le64(f->zone + 8, 483);
	put_le64(f->node, 2337);
	/* pgpgin (sectors), pgpgout (sectors), pgfault per CPU */
	put_le64(f->ev[0], 10);
	put_le64(f->ev[0] + 8, 6);
	put_le64(f->ev[0] + 16, 58000);
	put_le64(f->ev[1], 5);
	put_le64(f->ev[1] + 8, 3);
	put_le64(f->ev[1] + 16, 761);
	f->offs[0] = CPU0;
	f->offs[1] = CPU1;
	f->c = (struct vm_ctx){
		.read = fake_read, .read_ctx = f, .types = &f->t,
		.sym = fake_sym, .sym_ctx = f, .warn = fake_warn,
		.warn_ctx = f, .name = "fake", .page_size = 4096, .ncpus = 2,
		.cpu_offset = f->offs, .nnodes = 1, .max_steps = 1u << 20,
	};
}

static int on_counter(void *ctx, const char *scope, int node,
		      const char *zone, const char *name, int64_t v)
{
	struct fake *f = ctx;

	assert_string_equal(scope, "global");
	assert_int_equal(node, -1);
	assert_null(zone);
	assert_true(f->n < 16);
	snprintf(f->got[f->n], sizeof(f->got[0]), "%s", name);
	f->val[f->n++] = v;
	return 0;
}

static void walk(struct fake *f)
{
	assert_int_equal(mdb_vm_counters_walk(&f->c, on_counter, f), 0);
	mdb_vm_types_release(&f->t);
}

static void row(const struct fake *f, int i, const char *name, int64_t v)
{
	assert_true(i < f->n);
	assert_string_equal(f->got[i], name);
	assert_int_equal(f->val[i], v);
}

/* The zone and node counters, then the events: the two CPUs summed,
 * pgpgin (10 + 5) / 2, pgpgout (6 + 3) / 2 in KB; nothing for the
 * writeback entries. */
static void test_events(void **state)
{
	struct fake f = { .n = 0 };

	(void)state;
	fake_init(&f);
	walk(&f);
	assert_int_equal(f.n, 6);
	row(&f, 0, "nr_free_pages", 45711);
	row(&f, 1, "nr_zone_active_anon", 483);
	row(&f, 2, "nr_inactive_anon", 2337);
	row(&f, 3, "pgpgin", 7);
	row(&f, 4, "pgpgout", 4);
	row(&f, 5, "pgfault", 58761);
	assert_int_equal(f.warnings, 0);
}

/* Another layout: the name where pgpgin belongs is not pgpgin. */
static void test_layout(void **state)
{
	struct fake f = { .n = 0 };

	(void)state;
	fake_init(&f);
	put_le64(f.text + 8 * 5, STRS); /* "nr_free_pages" */
	walk(&f);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.warnings, 1);
	assert_non_null(strstr(f.last, "vmstat_text[5] is not pgpgin"));
}

/* A CPU's counters missing from the dump: no partial sums. */
static void test_cpu_gone(void **state)
{
	struct fake f = { .cpu1_gone = 1 };

	(void)state;
	fake_init(&f);
	walk(&f);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.warnings, 1);
	assert_non_null(strstr(f.last, "vm_event_states of CPU 1 not in the "
				       "dump"));
	assert_non_null(strstr(f.last, "0xffff88807fd2de20"));
}

/* A kernel without CONFIG_VM_EVENT_COUNTERS: no enum, no rows, no
 * warning. */
static void test_no_events(void **state)
{
	struct fake f = { .no_events = 1 };

	(void)state;
	fake_init(&f);
	walk(&f);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.warnings, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_cpu_gone),
		cmocka_unit_test(test_no_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
