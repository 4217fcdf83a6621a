// SPDX-License-Identifier: MIT
/*
 * The core-dump reader's pieces against synthetic inputs built here: the
 * flattened format, VMCOREINFO, the BTF type lookup (anonymous unions,
 * bitfields), and the SLUB, buddy and alloc_tag walks over a small fake
 * kernel memory whose figures are counted by hand below; the alloc tags
 * also through the database and the reports.  The real dumps are
 * test_vmcore_real.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/btf.h>

#include "../common/bytes.h"
#include "../db/db.h"
#include "../ingest/vmcore/vmcore.h"
#include "../ingest/vmcore/vminput.h"
#include "testlib.h"

/* ---- flattened format ------------------------------------------------ */

static uint8_t *flat_build(size_t *len, int end)
{
	uint8_t *b = calloc(1, 8192);
	size_t p = VM_FLAT_HDR;

	memcpy(b, VM_FLAT_SIG, sizeof(VM_FLAT_SIG));
	put_be64(b + 16, 1);
	put_be64(b + 24, 1);
	/* "world" at 6, then "hello " at 0: records in any order */
	put_be64(b + p, 6);
	put_be64(b + p + 8, 5);
	memcpy(b + p + 16, "world", 5);
	p += 21;
	put_be64(b + p, 0);
	put_be64(b + p + 8, 6);
	memcpy(b + p + 16, "hello ", 6);
	p += 22;
	if (end) {
		put_be64(b + p, (uint64_t)-1);
		put_be64(b + p + 8, (uint64_t)-1);
		p += 16;
	}
	*len = p;
	return b;
}

static void test_flat(void **state)
{
	struct mdb_error e;
	size_t len;
	uint8_t *b = flat_build(&len, 1);
	char got[16] = { 0 };
	int fd;

	(void)state;
	assert_true(mdb_vm_flat_probe(b, len));
	assert_int_equal(mdb_vm_flat_reassemble(b, len, "t", &fd, &e), 0);
	assert_int_equal(pread(fd, got, sizeof(got), 0), 11);
	assert_string_equal(got, "hello world");
	close(fd);
	free(b);

	/* no end record: an error at the offset where it should be */
	b = flat_build(&len, 0);
	mdb_error_clear(&e);
	assert_int_equal(mdb_vm_flat_reassemble(b, len, "t", &fd, &e),
			 -MDB_E_CORRUPT);
	assert_int_equal(e.offset, (int64_t)len);
	/* a record size beyond the end */
	put_be64(b + VM_FLAT_HDR + 8, 1u << 20);
	assert_int_equal(mdb_vm_flat_reassemble(b, len, "t", &fd, &e),
			 -MDB_E_CORRUPT);
	assert_int_equal(e.offset, VM_FLAT_HDR + 8);
	free(b);
}

/* ---- VMCOREINFO ------------------------------------------------------ */

static void test_vmcoreinfo(void **state)
{
	static const char note[] =
		"OSRELEASE=6.1.0-56-cloud-amd64\nBUILD-ID=abcdef01\n"
		"PAGESIZE=4096\nSYMBOL(init_uts_ns)=ffffffff8a212340\n"
		"SYMBOL(node_online_map)=ffffffff8a1b5f88\n"
		"KERNELOFFSET=9000000\n";
	struct vm_info vi;
	struct mdb_error e;
	uint64_t a;

	(void)state;
	assert_int_equal(mdb_vm_info_parse(&vi, note, strlen(note), "t", &e), 0);
	assert_string_equal(vi.release, "6.1.0-56-cloud-amd64");
	assert_string_equal(vi.build_id, "abcdef01");
	assert_int_equal(vi.page_size, 4096);
	assert_int_equal(vi.kernel_offset, 0x9000000);
	assert_int_equal(vi.crash_time, -1);
	assert_int_equal(mdb_vm_info_symbol(&vi, "init_uts_ns", &a), 0);
	assert_int_equal(a, 0xffffffff8a212340ull);
	assert_int_equal(mdb_vm_info_symbol(&vi, "nope", &a), -1);
	mdb_vm_info_release(&vi);

	/* a malformed number: its line named */
	mdb_error_clear(&e);
	assert_int_equal(mdb_vm_info_parse(&vi, "OSRELEASE=x\nPAGESIZE=4k\n", 24,
					   "t", &e), -MDB_E_CORRUPT);
	assert_int_equal(e.line, 2);
	assert_int_equal(mdb_vm_info_parse(&vi, "PAGESIZE=4096\n", 14, "t", &e),
			 -MDB_E_CORRUPT);
}

/* ---- a synthetic kernel: BTF ------------------------------------------ */

struct kb {
	struct btf *b;
	int u16, u32, u64, lh, vm;
};

static int field(struct kb *k, const char *name, int type, unsigned bit,
		 unsigned bits)
{
	return btf__add_field(k->b, name, type, bit, bits);
}

static int arr(struct kb *k, int elem, unsigned n)
{
	return btf__add_array(k->b, k->u32, elem, n);
}

/* The 6.1 SLUB layout, reduced; struct slab's fields inside anonymous
 * unions and structs as the kernel's are. */
static void btf_slub(struct kb *k)
{
	int oo, anon, anon2, anon3, anon4, nodes = arr(k, k->u64, 4);

	oo = btf__add_struct(k->b, "kmem_cache_order_objects", 4);
	field(k, "x", k->u32, 0, 0);
	btf__add_struct(k->b, "kmem_cache", 96);
	field(k, "cpu_slab", k->u64, 0, 0);
	field(k, "size", k->u32, 64, 0);
	field(k, "object_size", k->u32, 96, 0);
	field(k, "offset", k->u32, 128, 0);
	field(k, "oo", oo, 160, 0);
	field(k, "refcount", k->u32, 192, 0);
	field(k, "name", k->u64, 256, 0);
	field(k, "list", k->lh, 320, 0);
	field(k, "random", k->u64, 448, 0);
	field(k, "node", nodes, 512, 0);
	btf__add_struct(k->b, "kmem_cache_cpu", 32);
	field(k, "freelist", k->u64, 0, 0);
	field(k, "tid", k->u64, 64, 0);
	field(k, "slab", k->u64, 128, 0);
	field(k, "partial", k->u64, 192, 0);
	btf__add_struct(k->b, "kmem_cache_node", 48);
	field(k, "list_lock", k->u32, 0, 0);
	field(k, "nr_partial", k->u64, 64, 0);
	field(k, "partial", k->lh, 128, 0);
	field(k, "nr_slabs", k->u64, 256, 0);
	field(k, "total_objects", k->u64, 320, 0);
	/* struct slab { flags; union { slab_list; struct { next; slabs; } };
	 *   slab_cache; struct { freelist; union { counters; struct {
	 *   inuse:16, objects:15, frozen:1 }; }; }; } */
	anon2 = btf__add_struct(k->b, NULL, 16);
	field(k, "next", k->u64, 0, 0);
	field(k, "slabs", k->u32, 64, 0);
	anon = btf__add_union(k->b, NULL, 16);
	field(k, "slab_list", k->lh, 0, 0);
	field(k, NULL, anon2, 0, 0);
	anon4 = btf__add_struct(k->b, NULL, 4);
	field(k, "inuse", k->u32, 0, 16);
	field(k, "objects", k->u32, 16, 15);
	field(k, "frozen", k->u32, 31, 1);
	anon3 = btf__add_union(k->b, NULL, 8);
	field(k, "counters", k->u64, 0, 0);
	field(k, NULL, anon4, 0, 0);
	oo = btf__add_struct(k->b, NULL, 16);
	field(k, "freelist", k->u64, 0, 0);
	field(k, NULL, anon3, 64, 0);
	btf__add_struct(k->b, "slab", 64);
	field(k, "__page_flags", k->u64, 0, 0);
	field(k, NULL, anon, 64, 0);
	field(k, "slab_cache", k->u64, 192, 0);
	field(k, NULL, oo, 256, 0);
	btf__add_struct(k->b, "page", 64);
	field(k, "flags", k->u64, 0, 0);
	field(k, "lru", k->lh, 64, 0);
}

static void btf_buddy(struct kb *k)
{
	int fa, zone, lists = arr(k, k->lh, 5), areas, zones;

	btf__add_enum(k->b, "migratetype", 4);
	btf__add_enum_value(k->b, "MIGRATE_UNMOVABLE", 0);
	btf__add_enum_value(k->b, "MIGRATE_MOVABLE", 1);
	btf__add_enum_value(k->b, "MIGRATE_RECLAIMABLE", 2);
	btf__add_enum_value(k->b, "MIGRATE_HIGHATOMIC", 3);
	btf__add_enum_value(k->b, "MIGRATE_ISOLATE", 4);
	btf__add_enum_value(k->b, "MIGRATE_TYPES", 5);
	fa = btf__add_struct(k->b, "free_area", 88);
	field(k, "free_list", lists, 0, 0);
	field(k, "nr_free", k->u64, 640, 0);
	areas = arr(k, fa, 3);
	zone = btf__add_struct(k->b, "zone", 16 + 3 * 88);
	field(k, "name", k->u64, 0, 0);
	field(k, "present_pages", k->u64, 64, 0);
	field(k, "free_area", areas, 128, 0);
	zones = arr(k, zone, 2);
	btf__add_struct(k->b, "pglist_data", 2 * (16 + 3 * 88));
	field(k, "node_zones", zones, 0, 0);
}

/* The 6.10+ alloc_tag layout: struct codetag { flags; lineno; modname;
 * function; filename; } (32 bytes), then the per-CPU counters pointer. */
static void btf_tags(struct kb *k)
{
	int ch = btf__add_int(k->b, "char", 1, BTF_INT_SIGNED),
	    str = btf__add_ptr(k->b, btf__add_const(k->b, ch)), ct, cnt;

	ct = btf__add_struct(k->b, "codetag", 32);
	field(k, "flags", k->u32, 0, 0);
	field(k, "lineno", k->u32, 32, 0);
	field(k, "modname", str, 64, 0);
	field(k, "function", str, 128, 0);
	field(k, "filename", str, 192, 0);
	cnt = btf__add_struct(k->b, "alloc_tag_counters", 16);
	field(k, "bytes", k->u64, 0, 0);
	field(k, "calls", k->u64, 64, 0);
	cnt = btf__add_ptr(k->b, btf__add_type_tag(k->b, "percpu", cnt));
	btf__add_struct(k->b, "alloc_tag", 40);
	field(k, "ct", ct, 0, 0);
	field(k, "counters", cnt, 256, 0);
}

static int no_tag_types; /* types_init() leaves struct alloc_tag out */

static void types_init(struct vm_types *t)
{
	struct kb k = { .b = btf__new_empty() };
	struct mdb_error e;
	const void *raw;
	uint32_t len;

	assert_non_null(k.b);
	k.u16 = btf__add_int(k.b, "u16", 2, 0);
	k.u32 = btf__add_int(k.b, "unsigned int", 4, 0);
	k.u64 = btf__add_int(k.b, "long unsigned int", 8, 0);
	k.lh = btf__add_struct(k.b, "list_head", 16);
	field(&k, "next", k.u64, 0, 0);
	field(&k, "prev", k.u64, 64, 0);
	btf_slub(&k);
	btf_buddy(&k);
	if (!no_tag_types)
		btf_tags(&k);
	/* through raw bytes, as the reader gets them out of a dump */
	raw = btf__raw_data(k.b, &len);
	assert_non_null(raw);
	assert_int_equal(mdb_vm_types_btf(t, raw, len, "t", &e), 0);
	btf__free(k.b);
}

static void test_types(void **state)
{
	struct vm_types t;
	struct vm_member m;
	uint64_t size;
	int64_t v;

	(void)state;
	types_init(&t);
	assert_int_equal(t.size(t.priv, "struct slab", &size), 0);
	assert_int_equal(size, 64);
	/* through an anonymous union */
	assert_int_equal(t.member(t.priv, "struct slab", "next", &m), 0);
	assert_int_equal(m.bit_off, 64);
	assert_int_equal(t.member(t.priv, "struct slab", "slab_list.prev", &m),
			 0);
	assert_int_equal(m.bit_off, 128);
	/* a bitfield two anonymous levels down */
	assert_int_equal(t.member(t.priv, "struct slab", "objects", &m), 0);
	assert_int_equal(m.bit_off, 256 + 64 + 16);
	assert_int_equal(m.bit_size, 15);
	assert_int_equal(t.member(t.priv, "struct kmem_cache", "node", &m), 0);
	assert_int_equal(m.nelem, 4);
	assert_int_equal(m.elem_size, 8);
	assert_int_equal(t.member(t.priv, "struct slab", "nope", &m), -1);
	assert_int_equal(t.member(t.priv, "struct nope", "x", &m), -1);
	assert_int_equal(t.enumval(t.priv, "MIGRATE_ISOLATE", &v), 0);
	assert_int_equal(v, 4);
	mdb_vm_types_release(&t);
}

/* ---- a synthetic kernel: memory ----------------------------------------- */

#define PAGE_OFF 0xffff888000000000ull
#define VMEMMAP 0xffffea0000000000ull
#define SYMS 0xffffffff81000000ull
#define RANDOM 0x1234567890abcdefull

struct region {
	uint64_t addr;
	size_t len;
	uint8_t *buf;
};

struct fake {
	struct region r[64];
	int n;
	uint64_t tags_start, tags_stop, modules; /* 0: no such symbol */
	struct vm_ctx c;
	struct vm_types t;
	int warnings;
	char last[256];
};

static uint8_t *at(struct fake *f, uint64_t addr, size_t len)
{
	for (int i = 0; i < f->n; i++)
		if (addr >= f->r[i].addr &&
		    addr + len <= f->r[i].addr + f->r[i].len)
			return f->r[i].buf + (addr - f->r[i].addr);
	assert_true(f->n < 64);
	f->r[f->n].addr = addr & ~0xfffull;
	f->r[f->n].len = (size_t)((addr + len + 0xfff) & ~0xfffull) -
			 (size_t)0 - (size_t)f->r[f->n].addr;
	f->r[f->n].buf = calloc(1, f->r[f->n].len);
	return f->r[f->n++].buf + (addr & 0xfff);
}

static void w64(struct fake *f, uint64_t addr, uint64_t v)
{
	put_le64(at(f, addr, 8), v);
}

static void w32(struct fake *f, uint64_t addr, uint32_t v)
{
	put_le32(at(f, addr, 4), v);
}

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake *f = ctx;

	for (int i = 0; i < f->n; i++)
		if (addr >= f->r[i].addr &&
		    addr + len <= f->r[i].addr + f->r[i].len) {
			memcpy(buf, f->r[i].buf + (addr - f->r[i].addr), len);
			return 0;
		}
	return -1;
}

static const char *const sym_names[] = {
	"page_offset_base", "vmemmap_base", "nr_cpu_ids", "nr_node_ids",
	"__per_cpu_offset", "slab_caches", "node_data",
};

static int fake_sym(void *ctx, const char *name, uint64_t *addr)
{
	const struct fake *f = ctx;
	const struct {
		const char *name;
		uint64_t v;
	} var[] = {
		{ "__start_alloc_tags", f->tags_start },
		{ "__stop_alloc_tags", f->tags_stop },
		{ "modules", f->modules },
	};

	for (size_t i = 0; i < sizeof(var) / sizeof(var[0]); i++)
		if (!strcmp(name, var[i].name)) {
			*addr = var[i].v;
			return var[i].v ? 0 : -1;
		}
	for (size_t i = 0; i < sizeof(sym_names) / sizeof(sym_names[0]); i++)
		if (!strcmp(name, sym_names[i])) {
			*addr = SYMS + 0x100 * i;
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

static uint64_t page_of(uint64_t pfn)
{
	return VMEMMAP + 64 * pfn;
}

static uint64_t obj(uint64_t pfn, unsigned i)
{
	return PAGE_OFF + 4096 * pfn + 64 * i;
}

/* Free list of slab @pfn through objects @idx (hardened pointers at
 * offset 32); the head is returned. */
static uint64_t freelist(struct fake *f, uint64_t pfn, const unsigned *idx,
			 unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t p = obj(pfn, idx[i]) + 32,
			 next = i + 1 < n ? obj(pfn, idx[i + 1]) : 0;

		w64(f, p, next ^ RANDOM ^ __builtin_bswap64(p));
	}
	return n ? obj(pfn, idx[0]) : 0;
}

/* struct slab at pfn: freelist, inuse, objects = 64 */
static void slab(struct fake *f, uint64_t pfn, uint64_t fl, unsigned inuse)
{
	w64(f, page_of(pfn) + 32, fl);
	w64(f, page_of(pfn) + 40, inuse | (64u << 16) | (1ull << 31));
}

#define CACHE 0xffff888100000000ull
#define NODE 0xffff888100001000ull
#define CPU_SLAB 0x30000ull
#define CPU0 0xffff88813e000000ull
#define CPU1 0xffff88813f000000ull

/*
 * One cache "test-64" (size 64, object_size 56, 64 per slab, order 0),
 * one node, two CPUs:
 *   slab 10: node partial, inuse 60, free list of 4
 *   slab 11: full, on no list
 *   slab 12: CPU 0's slab: lockless free list of 10, slab free list of 2
 *   slab 13: CPU 1's partial slab: inuse 59, free list of 5
 * nr_slabs 4, total_objects 256.  Free objects: 4 + 10 + 2 + 5 = 21, so
 * allocated 235; /proc/slabinfo counts only slab 10's 4 free: 252.
 */
static void fake_slub(struct fake *f)
{
	static const unsigned a[] = { 3, 9, 1, 63 }, b[] = { 0, 1, 2, 3, 4, 5,
		6, 7, 8, 9 }, c2[] = { 40, 41 }, d[] = { 5, 10, 15, 20, 25 };
	uint64_t head = SYMS + 0x500;

	w64(f, SYMS, PAGE_OFF);
	w64(f, SYMS + 0x100, VMEMMAP);
	w32(f, SYMS + 0x200, 2);
	w32(f, SYMS + 0x300, 1);
	w64(f, SYMS + 0x400, CPU0 - CPU_SLAB);
	w64(f, SYMS + 0x408, CPU1 - CPU_SLAB);
	/* slab_caches -> cache.list -> slab_caches */
	w64(f, head, CACHE + 40);
	w64(f, CACHE + 40, head);
	w64(f, CACHE, CPU_SLAB);
	w32(f, CACHE + 8, 64);
	w32(f, CACHE + 12, 56);
	w32(f, CACHE + 16, 32);
	w32(f, CACHE + 20, 64);
	w32(f, CACHE + 24, 1);
	w64(f, CACHE + 32, CACHE + 0x200);
	memcpy(at(f, CACHE + 0x200, 8), "test-64", 8);
	w64(f, CACHE + 56, RANDOM);
	w64(f, CACHE + 64, NODE);
	/* node: nr_partial 1, partial = { slab 10 }, 4 slabs, 256 objs */
	w64(f, NODE + 8, 1);
	w64(f, NODE + 16, page_of(10) + 8);
	w64(f, page_of(10) + 8, NODE + 16);
	w64(f, NODE + 32, 4);
	w64(f, NODE + 40, 256);
	slab(f, 10, freelist(f, 10, a, 4), 60);
	slab(f, 11, 0, 64);
	slab(f, 12, freelist(f, 12, c2, 2), 64);
	w64(f, CPU0, freelist(f, 12, b, 10));
	w64(f, CPU0 + 16, page_of(12));
	w64(f, CPU1 + 24, page_of(13));
	slab(f, 13, freelist(f, 13, d, 5), 59);
}

static void fake_init(struct fake *f)
{
	struct mdb_error e;

	memset(f, 0, sizeof(*f));
	types_init(&f->t);
	f->c.read = fake_read;
	f->c.read_ctx = f;
	f->c.types = &f->t;
	f->c.sym = fake_sym;
	f->c.sym_ctx = f;
	f->c.warn = fake_warn;
	f->c.warn_ctx = f;
	f->c.name = "fake";
	f->c.page_size = 4096;
	f->c.max_steps = 1u << 20;
	fake_slub(f);
	assert_int_equal(mdb_vm_arch_init(&f->c, &e), 0);
	assert_int_equal(f->c.ncpus, 2);
	assert_int_equal(f->c.nnodes, 1);
}

static void fake_release(struct fake *f)
{
	mdb_vm_arch_release(&f->c);
	mdb_vm_types_release(&f->t);
	for (int i = 0; i < f->n; i++)
		free(f->r[i].buf);
}

struct got {
	int n;
	struct vm_cache k;
	char name[32];
};

static int got_cache(void *ctx, const struct vm_cache *k)
{
	struct got *g = ctx;

	g->n++;
	g->k = *k;
	snprintf(g->name, sizeof(g->name), "%s", k->name);
	g->k.name = g->name;
	return 0;
}

static void test_slub(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct got g = { 0 };
	struct mdb_error e;

	(void)state;
	fake_init(f);
	assert_int_equal(mdb_vm_slub_walk(&f->c, got_cache, &g, &e), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.name, "test-64");
	assert_int_equal(g.k.size, 64);
	assert_int_equal(g.k.object_size, 56);
	assert_int_equal(g.k.objperslab, 64);
	assert_int_equal(g.k.order, 0);
	assert_int_equal(g.k.slabs, 4);
	assert_int_equal(g.k.total, 256);
	assert_int_equal(g.k.allocated, 235);
	assert_int_equal(g.k.active_objs, 252);
	assert_int_equal(g.k.incomplete, 0);
	assert_int_equal(f->warnings, 0);
	fake_release(f);
	free(f);
}

/* A free list that loops, and one that leaves its slab: warnings naming
 * the cache and the address, the cache marked incomplete, no hang. */
static void test_slub_corrupt(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct got g = { 0 };
	struct mdb_error e;
	uint64_t p = obj(10, 63) + 32;

	(void)state;
	fake_init(f);
	/* slab 10's last free object points back to its first */
	w64(f, p, obj(10, 3) ^ RANDOM ^ __builtin_bswap64(p));
	assert_int_equal(mdb_vm_slub_walk(&f->c, got_cache, &g, &e), 0);
	assert_int_equal(g.k.incomplete, 1);
	assert_int_equal(f->warnings, 1);
	assert_non_null(strstr(f->last, "test-64"));
	assert_non_null(strstr(f->last, "loops"));
	/* now out of the slab */
	w64(f, p, obj(11, 0) ^ RANDOM ^ __builtin_bswap64(p));
	f->warnings = 0;
	assert_int_equal(mdb_vm_slub_walk(&f->c, got_cache, &g, &e), 0);
	assert_int_equal(g.k.incomplete, 1);
	assert_int_equal(f->warnings, 1);
	assert_non_null(strstr(f->last, "outside slab"));
	/* the cache list itself loops onto the cache: bounded */
	w64(f, CACHE + 40, CACHE + 40);
	f->warnings = 0;
	g.n = 0;
	assert_int_equal(mdb_vm_slub_walk(&f->c, got_cache, &g, &e), 0);
	assert_true(f->warnings >= 1);
	fake_release(f);
	free(f);
}

/* ---- buddy ------------------------------------------------------------ */

#define PGDAT 0xffff888100002000ull
#define ZSIZE (16 + 3 * 88)

struct bgot {
	int rows, incomplete;
	int64_t blocks[2][3][5];
	int64_t nr_free[2][3];
	char zone[2][16];
};

static int got_buddy(void *ctx, const struct vm_buddy *b)
{
	struct bgot *g = ctx;
	int z = !strcmp(b->zone, "DMA32") ? 0 : 1;

	g->rows++;
	assert_true(b->order < 3);
	g->incomplete += b->incomplete;
	snprintf(g->zone[z], sizeof(g->zone[z]), "%s", b->zone);
	g->nr_free[z][b->order] = b->nr_free;
	if (!strcmp(b->migratetype, "Unmovable"))
		g->blocks[z][b->order][0] = b->blocks;
	if (!strcmp(b->migratetype, "Movable"))
		g->blocks[z][b->order][1] = b->blocks;
	return 0;
}

/*
 * Node 0, zone DMA32 (present) and zone Normal (no pages: skipped, as
 * /proc/buddyinfo skips it).  Order 0 Unmovable: 3 blocks; order 2
 * Movable: 1 block; every other list empty.
 */
static void fake_buddy(struct fake *f)
{
	w64(f, SYMS + 0x600, PGDAT);
	w64(f, PGDAT, PGDAT + 0x1000);
	memcpy(at(f, PGDAT + 0x1000, 6), "DMA32", 6);
	w64(f, PGDAT + 8, 1000);
	for (int o = 0; o < 3; o++)
		for (int mt = 0; mt < 5; mt++) {
			uint64_t h = PGDAT + 16 + 88 * (uint64_t)o +
				     16 * (uint64_t)mt;

			w64(f, h, h);
		}
	/* order 0 Unmovable: head -> p1 -> p2 -> p3 -> head */
	w64(f, PGDAT + 16, page_of(100) + 8);
	w64(f, page_of(100) + 8, page_of(101) + 8);
	w64(f, page_of(101) + 8, page_of(102) + 8);
	w64(f, page_of(102) + 8, PGDAT + 16);
	w64(f, PGDAT + 16 + 80, 3);
	/* order 2 Movable */
	w64(f, PGDAT + 16 + 176 + 16, page_of(200) + 8);
	w64(f, page_of(200) + 8, PGDAT + 16 + 176 + 16);
	w64(f, PGDAT + 16 + 176 + 80, 1);
	w64(f, PGDAT + ZSIZE, PGDAT + 0x1010);
	memcpy(at(f, PGDAT + 0x1010, 7), "Normal", 7);
}

static void test_buddy(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct bgot g = { 0 };
	struct mdb_error e;

	(void)state;
	fake_init(f);
	fake_buddy(f);
	assert_int_equal(mdb_vm_buddy_walk(&f->c, got_buddy, &g, &e), 0);
	assert_int_equal(g.rows, 3 * 5);
	assert_string_equal(g.zone[0], "DMA32");
	assert_int_equal(g.blocks[0][0][0], 3);
	assert_int_equal(g.blocks[0][2][1], 1);
	assert_int_equal(g.blocks[0][1][0], 0);
	assert_int_equal(g.nr_free[0][0], 3);
	assert_int_equal(g.nr_free[0][2], 1);
	assert_int_equal(f->warnings, 0);
	/* a free list that loops: bounded by nr_free, warned */
	w64(f, page_of(102) + 8, page_of(100) + 8);
	memset(&g, 0, sizeof(g));
	assert_int_equal(mdb_vm_buddy_walk(&f->c, got_buddy, &g, &e), 0);
	assert_int_equal(g.incomplete, 1);
	assert_int_equal(f->warnings, 1);
	assert_non_null(strstr(f->last, "DMA32"));
	fake_release(f);
	free(f);
}

/* ---- alloc tags ------------------------------------------------------ */

#define TAGS 0xffffffff82000000ull
#define STRS 0xffffffff82100000ull
#define PCPU 0x31000ull /* a per-CPU pointer: + __per_cpu_offset[cpu] */
#define TAG_SIZE 40

static void str_at(struct fake *f, uint64_t addr, const char *v)
{
	memcpy(at(f, addr, strlen(v) + 1), v, strlen(v) + 1);
}

/* alloc_tag @i: flags, lineno, the three strings, the counters. */
static void tag_at(struct fake *f, unsigned i, uint32_t flags, uint32_t line,
		   uint64_t mod, uint64_t func, uint64_t file, uint64_t cnt)
{
	uint64_t t = TAGS + TAG_SIZE * (uint64_t)i;

	w32(f, t, flags);
	w32(f, t + 4, line);
	w64(f, t + 8, mod);
	w64(f, t + 16, func);
	w64(f, t + 24, file);
	w64(f, t + 32, cnt);
}

/* The counters at per-CPU pointer @p on CPU 0 and CPU 1. */
static void counters(struct fake *f, uint64_t p, uint64_t b0, uint64_t c0,
		     uint64_t b1, uint64_t c1)
{
	uint64_t a0 = p + CPU0 - CPU_SLAB, a1 = p + CPU1 - CPU_SLAB;

	w64(f, a0, b0);
	w64(f, a0 + 8, c0);
	w64(f, a1, b1);
	w64(f, a1 + 8, c1);
}

/*
 * Four vmlinux tags, two CPUs:
 *   0  mm/slub.c:100 func:kmalloc_x: CPU 0 4096 bytes 2 calls, CPU 1
 *      8192 bytes 1 call: 12288 3
 *   1  fs/inode.c:200 func:alloc_inode: all zero: 0 0 (printed)
 *   2  its filename pointer outside memory: skipped, warned
 *   3  kernel/fork.c:400 [foomod] func:dup_task, flags 1 (inaccurate):
 *      CPU 0 8192 bytes 2 calls, CPU 1 -4096 bytes -1 call (freed
 *      there): 4096 1
 */
static void fake_tags(struct fake *f)
{
	str_at(f, STRS, "mm/slub.c");
	str_at(f, STRS + 0x40, "kmalloc_x");
	str_at(f, STRS + 0x80, "fs/inode.c");
	str_at(f, STRS + 0xc0, "alloc_inode");
	str_at(f, STRS + 0x100, "kernel/fork.c");
	str_at(f, STRS + 0x140, "dup_task");
	str_at(f, STRS + 0x180, "foomod");
	str_at(f, STRS + 0x1c0, "lost_fn");
	tag_at(f, 0, 0, 100, 0, STRS + 0x40, STRS, PCPU);
	counters(f, PCPU, 4096, 2, 8192, 1);
	tag_at(f, 1, 0, 200, 0, STRS + 0xc0, STRS + 0x80, PCPU + 0x10);
	counters(f, PCPU + 0x10, 0, 0, 0, 0);
	tag_at(f, 2, 0, 300, 0, STRS + 0x1c0, 0xdead000000000000ull,
	       PCPU + 0x20);
	counters(f, PCPU + 0x20, 64, 1, 0, 0);
	tag_at(f, 3, 1, 400, STRS + 0x180, STRS + 0x140, STRS + 0x100,
	       PCPU + 0x30);
	counters(f, PCPU + 0x30, 8192, 2, (uint64_t)-4096, (uint64_t)-1);
	f->tags_start = TAGS;
	f->tags_stop = TAGS + 4 * TAG_SIZE;
}

struct tgot {
	int n;
	char line[8][128];
};

/* Each tag as /proc/allocinfo prints it (without the column padding). */
static int got_tag(void *ctx, const struct vm_tag *t)
{
	struct tgot *g = ctx;

	if (g->n < 8)
		snprintf(g->line[g->n], sizeof(g->line[0]),
			 "%llu: %lld %lld %s:%u%s%s%s func:%s%s",
			 (unsigned long long)t->index, (long long)t->bytes,
			 (long long)t->calls, t->file, t->lineno,
			 t->module ? " [" : "", t->module ? t->module : "",
			 t->module ? "]" : "", t->function,
			 t->inaccurate ? " accurate:no" : "");
	g->n++;
	return 0;
}

static void test_alloctag(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct vm_tag_stats st;
	struct tgot g = { 0 };

	(void)state;
	fake_init(f);
	fake_tags(f);
	assert_int_equal(mdb_vm_alloctag_walk(&f->c, got_tag, &g, &st), 0);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.line[0], "0: 12288 3 mm/slub.c:100 "
				       "func:kmalloc_x");
	assert_string_equal(g.line[1], "1: 0 0 fs/inode.c:200 "
				       "func:alloc_inode");
	assert_string_equal(g.line[2], "3: 4096 1 kernel/fork.c:400 [foomod] "
				       "func:dup_task accurate:no");
	assert_int_equal(st.present, 1);
	assert_int_equal(st.tags, 4);
	assert_int_equal(st.skipped, 1);
	/* no "modules" symbol: module tags may exist, said once; then the
	 * skipped tag, named */
	assert_int_equal(f->warnings, 2);
	assert_non_null(strstr(f->last, "alloc tag 2: filename not in the "
					"dump"));
	assert_non_null(strstr(f->last, "addr=0xffffffff82000050"));

	/* no module loaded (an empty modules list): no word of them */
	f->modules = SYMS + 0x900;
	w64(f, f->modules, f->modules);
	f->warnings = 0;
	memset(&g, 0, sizeof(g));
	assert_int_equal(mdb_vm_alloctag_walk(&f->c, got_tag, &g, &st), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(f->warnings, 1);
	/* a module loaded */
	w64(f, f->modules, 0xffffffffc0001000ull);
	f->warnings = 0;
	assert_int_equal(mdb_vm_alloctag_walk(&f->c, got_tag, &g, &st), 0);
	assert_int_equal(f->warnings, 2);

	/* a kernel without memory allocation profiling: nothing, silently */
	f->tags_start = f->tags_stop = 0;
	f->warnings = 0;
	memset(&g, 0, sizeof(g));
	assert_int_equal(mdb_vm_alloctag_walk(&f->c, got_tag, &g, &st), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(st.present, 0);
	assert_int_equal(f->warnings, 0);
	fake_release(f);
	free(f);
}

/* Bad strings, counters out of the dump, a bad range, a huge one, no
 * types: rows skipped with warnings, never a crash or a hang. */
static void test_alloctag_bad(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct vm_tag_stats st;
	struct tgot g = { 0 };
	uint8_t *p;

	(void)state;
	fake_init(f);
	fake_tags(f);
	f->modules = SYMS + 0x900;
	w64(f, f->modules, f->modules);
	/* tag 0's function: 5000 bytes without a NUL */
	p = at(f, STRS + 0x1000, 5000);
	memset(p, 'a', 5000);
	w64(f, TAGS + 16, STRS + 0x1000);
	/* tag 1's filename has a space */
	str_at(f, STRS + 0x3000, "fs/in ode.c");
	w64(f, TAGS + TAG_SIZE + 24, STRS + 0x3000);
	/* tag 3's counters: not in the dump */
	w64(f, TAGS + 3 * TAG_SIZE + 32, PCPU + 0x200000);
	assert_int_equal(mdb_vm_alloctag_walk(&f->c, got_tag, &g, &st), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(st.skipped, 4);
	assert_int_equal(f->warnings, 4);
	assert_non_null(strstr(f->last, "alloc tag 3: counters not in the "
					"dump"));

	/* the range: a tail shorter than a tag; reversed */
	fake_release(f);
	fake_init(f);
	fake_tags(f);
	f->modules = SYMS + 0x900;
	w64(f, f->modules, f->modules);
	f->tags_stop += 8;
	memset(&g, 0, sizeof(g));
	assert_int_equal(mdb_vm_alloctag_walk(&f->c, got_tag, &g, &st), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(f->warnings, 2);
	f->tags_stop = TAGS - TAG_SIZE;
	f->warnings = 0;
	memset(&g, 0, sizeof(g));
	assert_int_equal(mdb_vm_alloctag_walk(&f->c, got_tag, &g, &st), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(st.present, 0);
	assert_int_equal(f->warnings, 1);

	/* more than 2^20 tags: the first 2^20 tried, ten skipped tags
	 * named, then a count; tags 4.. of the page are zeros (NULL
	 * strings), the rest not in the dump */
	f->tags_stop = TAGS + TAG_SIZE * ((1ull << 20) + 5);
	f->warnings = 0;
	memset(&g, 0, sizeof(g));
	assert_int_equal(mdb_vm_alloctag_walk(&f->c, got_tag, &g, &st), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(st.tags, (1ull << 20) + 5);
	assert_int_equal(st.skipped, (1ull << 20) + 5 - 3);
	assert_int_equal(f->warnings, 1 + 10 + 1);
	assert_non_null(strstr(f->last, "1048578 of 1048581 alloc tags "
					"skipped"));
	fake_release(f);

	/* symbols but no struct alloc_tag in the types: one warning */
	no_tag_types = 1;
	fake_init(f);
	no_tag_types = 0;
	fake_tags(f);
	assert_int_equal(mdb_vm_alloctag_walk(&f->c, got_tag, &g, &st), 0);
	assert_int_equal(st.present, 0);
	assert_int_equal(f->warnings, 1);
	assert_non_null(strstr(f->last, "no struct alloc_tag layout"));
	fake_release(f);
	free(f);
}

/* The dump's rows into a database (the decoder's own glue), then what
 * the reports make of them: allocinfo, --by module, zones, growth
 * against a /proc/allocinfo text of the same machine. */
static void test_alloctag_db(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	char *dir = tmpdir("vmcore-alloctag"), *db = fresh_db(dir, "t.db"),
	     *ai = path_in(dir, "allocinfo"), *out;
	struct mdb_source_meta m = { 0 };
	struct mdb_load_opts lo = { .label = "box1", .has_taken_at = 1,
				    .taken_at = 1000 };
	struct mdb_load_result res;
	struct mdb_snap_load *load;
	struct mdb_snap_info info = { 0 };
	struct mdb_error e;
	struct mdb_db h;
	struct run r;
	FILE *fp;

	(void)state;
	fake_init(f);
	fake_buddy(f);
	fake_tags(f);
	m.format = "vmcore";
	m.snapshot = 1;
	m.abi_version = -1;
	m.overruns = -1;
	m.ncpus = 2;
	snprintf(m.hash, sizeof(m.hash), "test-alloctag");
	mdb_error_clear(&e);
	assert_int_equal(mdb_db_open(&h, db, 0, &e), 0);
	assert_int_equal(mdb_snap_begin(&h, "fake", &m, &lo, &load, &res, &e),
			 0);
	snprintf(info.version, sizeof(info.version), "BTF");
	assert_int_equal(mdb_vm_decode_walks(&f->c, mdb_snap_load_sink(load),
					     &info, &e), 0);
	assert_int_equal(info.zones, 1);
	assert_int_equal(info.tags, 3);
	assert_int_equal(info.inaccurate, 1);
	assert_int_equal(mdb_snap_commit(load, &info, &res, &e), 0);
	assert_int_equal(mdb_db_close(&h, &e), 0);
	assert_int_equal(db_int(db, "SELECT value FROM kcounter WHERE "
				    "name = 'alloc_tags'"), 4);
	assert_int_equal(db_int(db, "SELECT value FROM kcounter WHERE "
				    "name = 'alloc_tags_skipped'"), 1);
	/* input_line: the tag's position in the section, from 1 */
	out = db_text(db, "SELECT input_line, file, lineno, function, "
			  "module, bytes, calls, extra, accurate, approx "
			  "FROM tag ORDER BY pos");
	assert_string_equal(out,
		"1,mm/slub.c,100,kmalloc_x,,12288,3,,1,0\n"
		"2,fs/inode.c,200,alloc_inode,,0,0,,1,0\n"
		"4,kernel/fork.c,400,dup_task,foomod,4096,1,accurate:no,0,0\n");
	free(out);

	out = report_csv(db, "allocinfo");
	assert_string_equal(out,
		"tag,function,module,bytes,calls,tags,flags\n"
		"mm/slub.c:100,kmalloc_x,,12288,3,1,\n"
		"kernel/fork.c:400,dup_task,foomod,4096,1,1,inaccurate\n"
		"fs/inode.c:200,alloc_inode,,0,0,1,\n"
		"total,,,16384,4,3,\n");
	free(out);
	out = report_csv(db, "allocinfo --by module");
	assert_string_equal(out,
		"tag,function,module,bytes,calls,tags,flags\n"
		",,,12288,3,2,\n"
		",,foomod,4096,1,1,inaccurate\n"
		"total,,,16384,4,3,\n");
	free(out);
	/* the skipped tag is said in the report's header */
	run_memdb(&r, db, "report allocinfo");
	assert_run_ok(&r);
	if (!strstr(r.out, "1 alloc tag unreadable") &&
	    !strstr(r.err, "1 alloc tag unreadable"))
		fail_msg("no note of the skipped tag:\n%s%s", r.out, r.err);
	run_free(&r);
	/* the same source is still a zone snapshot */
	out = report_csv(db, "zones");
	assert_non_null(strstr(out, "test-64"));
	free(out);

	/* growth from the dump to /proc/allocinfo of the same machine:
	 * tags only (the text has no zones) */
	fp = fopen(ai, "w");
	assert_non_null(fp);
	fputs("allocinfo - version: 1.0\n"
	      "#     <size>  <calls> <tag info>\n"
	      "       16384        4 mm/slub.c:100 func:kmalloc_x \n"
	      "           0        0 fs/inode.c:200 func:alloc_inode \n"
	      "        4096        1 kernel/fork.c:400 [foomod] "
	      "func:dup_task \n", fp);
	assert_int_equal(fclose(fp), 0);
	ingest_ok(db, "--label box1 --time 2000 '%s'", ai);
	out = report_csv(db, "growth --from 1 --to 2");
	assert_null(strstr(out, "test-64"));
	assert_non_null(strstr(out, "mm/slub.c:100,kmalloc_x,,tag,12288,"
				    "16384,4096,3,4,1,\n"));
	assert_non_null(strstr(out, "total,,,,16384,20480,4096,4,5,1,\n"));
	free(out);
	fake_release(f);
	free(f);
	free(ai);
	free(db);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_vmcoreinfo),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_slub),
		cmocka_unit_test(test_slub_corrupt),
		cmocka_unit_test(test_buddy),
		cmocka_unit_test(test_alloctag),
		cmocka_unit_test(test_alloctag_bad),
		cmocka_unit_test(test_alloctag_db),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
