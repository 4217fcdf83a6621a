// SPDX-License-Identifier: MIT
/*
 * The SLUB walk: every cache on slab_caches, its per-node lists and its
 * per-CPU slabs, counted the way /proc/slabinfo counts (per-CPU slabs as
 * full) and exactly (every free list walked: a slab's own, the per-CPU
 * lockless one, the per-CPU partial slabs').  Full slabs are on no list
 * without slub_debug, so allocated = total_objects - free objects found.
 *
 * Layouts are read from the kernel's types, never assumed: struct slab
 * (5.17+) or struct page, kmem_cache_cpu's slab or page, hardened free
 * pointers (CONFIG_SLAB_FREELIST_HARDENED: kmem_cache.random present).
 */
#include <stdlib.h>
#include <string.h>

#include "vmcore.h"

#define MAX_CACHES 65536
#define NAME_MAX_LEN 256
#define OO_SHIFT 16

struct slub {
	const struct vm_ctx *c;
	const char *slab;  /* "struct slab" or "struct page" */
	int64_t kc_list, kc_name, kc_objsize, kc_size, kc_oo, kc_offset,
		kc_random, kc_cpu_slab, kc_node, kc_refcount, kc_red_left;
	int64_t cpu_freelist, cpu_slab, cpu_partial;
	int64_t sl_list, sl_freelist, sl_next;
	struct vm_member sl_inuse, sl_objects;
	int64_t n_partial, n_nr_partial, n_nr_slabs, n_total;
	uint64_t node_max;
};

/* The current cache's state during its walk. */
struct kcache {
	struct vm_cache k;
	uint64_t addr, random, offset, size, red_left;
	int hardened;
};

static int layout_slab(struct slub *s)
{
	const struct vm_types *t = s->c->types;
	void *p = t->priv;

	s->slab = mdb_vm_size(s->c, "struct slab") > 0 ? "struct slab" :
						      "struct page";
	s->sl_list = mdb_vm_off(s->c, s->slab, "slab_list");
	if (s->sl_list < 0)
		s->sl_list = mdb_vm_off(s->c, s->slab, "lru");
	s->sl_freelist = mdb_vm_off(s->c, s->slab, "freelist");
	s->sl_next = mdb_vm_off(s->c, s->slab, "next");
	if (t->member(p, s->slab, "inuse", &s->sl_inuse) ||
	    t->member(p, s->slab, "objects", &s->sl_objects))
		return -1;
	return s->sl_list < 0 || s->sl_freelist < 0 ? -1 : 0;
}

static int layout(struct slub *s, struct mdb_error *e)
{
	const struct vm_ctx *c = s->c;
	const char *kc = "struct kmem_cache", *cpu = "struct kmem_cache_cpu",
		   *kn = "struct kmem_cache_node";
	struct vm_member node;

	s->kc_list = mdb_vm_off(c, kc, "list");
	s->kc_name = mdb_vm_off(c, kc, "name");
	s->kc_objsize = mdb_vm_off(c, kc, "object_size");
	s->kc_size = mdb_vm_off(c, kc, "size");
	s->kc_oo = mdb_vm_off(c, kc, "oo");
	s->kc_offset = mdb_vm_off(c, kc, "offset");
	s->kc_random = mdb_vm_off(c, kc, "random");
	s->kc_cpu_slab = mdb_vm_off(c, kc, "cpu_slab");
	s->kc_node = mdb_vm_off(c, kc, "node");
	s->kc_refcount = mdb_vm_off(c, kc, "refcount");
	s->kc_red_left = mdb_vm_off(c, kc, "red_left_pad");
	s->cpu_freelist = mdb_vm_off(c, cpu, "freelist");
	s->cpu_slab = mdb_vm_off(c, cpu, "slab");
	if (s->cpu_slab < 0)
		s->cpu_slab = mdb_vm_off(c, cpu, "page");
	s->cpu_partial = mdb_vm_off(c, cpu, "partial");
	s->n_partial = mdb_vm_off(c, kn, "partial");
	s->n_nr_partial = mdb_vm_off(c, kn, "nr_partial");
	s->n_nr_slabs = mdb_vm_off(c, kn, "nr_slabs");
	s->n_total = mdb_vm_off(c, kn, "total_objects");
	if (c->types->member(c->types->priv, kc, "node", &node))
		node.nelem = 0;
	s->node_max = node.nelem;
	if (s->kc_list < 0 || s->kc_name < 0 || s->kc_size < 0 ||
	    s->kc_objsize < 0 || s->kc_oo < 0 || s->kc_offset < 0 ||
	    s->kc_cpu_slab < 0 || s->kc_node < 0 || s->cpu_freelist < 0 ||
	    s->cpu_slab < 0 || s->n_partial < 0 || s->n_nr_partial < 0 ||
	    layout_slab(s) < 0)
		return mdb_error_fail(e, MDB_E_FORMAT, c->name, -1, -1,
				      "the kernel's types have no SLUB "
				      "layout memdb knows (struct kmem_cache,"
				      " kmem_cache_cpu, kmem_cache_node, slab)",
				      "SLAB kernels (before 6.8, without "
				      "CONFIG_SLUB) are not read");
	if (s->n_nr_slabs < 0 || s->n_total < 0)
		return mdb_error_fail(e, MDB_E_FORMAT, c->name, -1, -1,
				      "kmem_cache_node has no nr_slabs or "
				      "total_objects", "a kernel built "
				      "without CONFIG_SLUB_DEBUG");
	return 0;
}

/*
 * A field of @m at @base: plain integers as sized, bitfields extracted
 * from the 8 bytes holding them.  The types count a bitfield's bits from
 * the start of the struct in memory order: from the lowest bit of a
 * little-endian word, from the highest of a big-endian one.
 */
static int read_field(const struct vm_ctx *c, uint64_t base,
		      const struct vm_member *m, uint64_t *v)
{
	uint64_t word;
	unsigned sh;

	if (!m->bit_size)
		return mdb_vm_read_sized(c, base + m->bit_off / 8, m->size, v);
	if (mdb_vm_read_u64(c, base + m->bit_off / 64 * 8, &word))
		return -1;
	sh = (unsigned)(m->bit_off % 64);
	if (sh + m->bit_size > 64)
		return -1;
	if (c->order == MDB_ORDER_BIG)
		sh = 64 - sh - m->bit_size;
	*v = (word >> sh) & ((1ull << m->bit_size) - 1);
	return 0;
}

/* Free objects on free list @head of slab @slab (@objects slots). */
static int64_t walk_freelist(const struct slub *s, struct kcache *kc,
			     uint64_t slab, uint64_t head, uint64_t objects)
{
	const struct vm_ctx *c = s->c;
	uint64_t base, p = head;
	int64_t n = 0;

	if (!head)
		return 0;
	if (mdb_vm_page_addr(c, slab, &base)) {
		mdb_vm_warn(c, slab, "cache %s: slab pointer outside the page "
			    "array", kc->k.name);
		return -1;
	}
	while (p) {
		uint64_t rel = p - base - kc->red_left, next;

		if (p < base + kc->red_left || rel % kc->size ||
		    rel / kc->size >= objects) {
			mdb_vm_warn(c, p, "cache %s: free pointer outside slab "
				    "0x%llx", kc->k.name, (unsigned long long)slab);
			return -1;
		}
		if ((uint64_t)++n > objects) {
			mdb_vm_warn(c, p, "cache %s: free list of slab 0x%llx "
				    "loops", kc->k.name, (unsigned long long)slab);
			return -1;
		}
		if (mdb_vm_read_ptr(c, p + kc->offset, &next)) {
			mdb_vm_warn(c, p + kc->offset, "cache %s: free pointer "
				    "not in the dump", kc->k.name);
			return -1;
		}
		/* freelist_ptr(): ptr ^ s->random ^ swab(ptr_addr), swab of
		 * an unsigned long */
		if (kc->hardened)
			next ^= kc->random ^
				(mdb_vm_word(c) == 4 ?
				 __builtin_bswap32((uint32_t)(p + kc->offset)) :
				 __builtin_bswap64(p + kc->offset));
		p = next;
	}
	return n;
}

/* Slab @slab's figures: its slot count and inuse. */
static int slab_counts(const struct slub *s, struct kcache *kc,
		       uint64_t slab, uint64_t *objects, uint64_t *inuse,
		       uint64_t *freelist)
{
	if (read_field(s->c, slab, &s->sl_objects, objects) ||
	    read_field(s->c, slab, &s->sl_inuse, inuse) ||
	    mdb_vm_read_ptr(s->c, slab + (uint64_t)s->sl_freelist, freelist)) {
		mdb_vm_warn(s->c, slab, "cache %s: slab not in the dump",
			    kc->k.name);
		return -1;
	}
	return 0;
}

/* Free objects of one slab by its free list; -1 marks the cache. */
static int64_t slab_free(const struct slub *s, struct kcache *kc,
			 uint64_t slab, uint64_t *inuse)
{
	uint64_t objects, fl;
	int64_t n;

	if (slab_counts(s, kc, slab, &objects, inuse, &fl))
		return -1;
	n = walk_freelist(s, kc, slab, fl, objects);
	return n;
}

/* The node partial lists: slabinfo's free count and the exact one. */
static void walk_node(const struct slub *s, struct kcache *kc, uint64_t node,
		      int64_t *sfree, int64_t *xfree)
{
	const struct vm_ctx *c = s->c;
	uint64_t head = node + (uint64_t)s->n_partial, p, nr, bound, steps = 0;

	if (mdb_vm_read_ptr(c, node + (uint64_t)s->n_nr_partial, &nr) ||
	    mdb_vm_read_ptr(c, head, &p)) {
		mdb_vm_warn(c, node, "cache %s: kmem_cache_node not in the dump",
			    kc->k.name);
		kc->k.incomplete = 1;
		return;
	}
	bound = nr < c->max_steps ? 2 * nr + 64 : c->max_steps;
	while (p != head) {
		uint64_t slab = p - (uint64_t)s->sl_list, inuse = 0, objects;
		int64_t n;

		if (++steps > bound) {
			mdb_vm_warn(c, p, "cache %s: partial list longer than "
				    "nr_partial=%llu (a loop?)", kc->k.name,
				    (unsigned long long)nr);
			kc->k.incomplete = 1;
			return;
		}
		n = slab_free(s, kc, slab, &inuse);
		if (n < 0 || read_field(c, slab, &s->sl_objects, &objects)) {
			kc->k.incomplete = 1;
			return;
		}
		*xfree += n;
		*sfree += (int64_t)objects - (int64_t)inuse;
		if (mdb_vm_read_ptr(c, p, &p)) {
			mdb_vm_warn(c, p, "cache %s: partial list not in the dump",
				    kc->k.name);
			kc->k.incomplete = 1;
			return;
		}
	}
}

/* Per-node totals (nr_slabs, total_objects) and partial lists. */
static int walk_nodes(const struct slub *s, struct kcache *kc,
		      int64_t *sfree, int64_t *xfree)
{
	const struct vm_ctx *c = s->c;
	uint32_t nn = c->nnodes;

	if (s->node_max && nn > s->node_max)
		nn = (uint32_t)s->node_max;
	for (uint32_t i = 0; i < nn; i++) {
		uint64_t node, slabs, total;

		if (mdb_vm_read_ptr(c, kc->addr + (uint64_t)s->kc_node +
					mdb_vm_word(c) * i, &node))
			return -1;
		if (!node)
			continue;
		if (mdb_vm_read_ptr(c, node + (uint64_t)s->n_nr_slabs, &slabs) ||
		    mdb_vm_read_ptr(c, node + (uint64_t)s->n_total, &total)) {
			mdb_vm_warn(c, node, "cache %s: kmem_cache_node not in "
				    "the dump", kc->k.name);
			kc->k.incomplete = 1;
			continue;
		}
		kc->k.slabs += (int64_t)slabs;
		kc->k.total += (int64_t)total;
		walk_node(s, kc, node, sfree, xfree);
	}
	return 0;
}

/* One CPU's slab, lockless free list and partial slabs: free objects. */
static int64_t walk_cpu(const struct slub *s, struct kcache *kc,
			uint64_t cpu)
{
	const struct vm_ctx *c = s->c;
	uint64_t slab, fl, part = 0, inuse, objects, sfl, steps = 0;
	int64_t n = 0, m;

	if (mdb_vm_read_ptr(c, cpu + (uint64_t)s->cpu_slab, &slab) ||
	    mdb_vm_read_ptr(c, cpu + (uint64_t)s->cpu_freelist, &fl) ||
	    (s->cpu_partial >= 0 &&
	     mdb_vm_read_ptr(c, cpu + (uint64_t)s->cpu_partial, &part))) {
		mdb_vm_warn(c, cpu, "cache %s: kmem_cache_cpu not in the dump",
			    kc->k.name);
		return -1;
	}
	if (slab) {
		if (slab_counts(s, kc, slab, &objects, &inuse, &sfl))
			return -1;
		if ((m = walk_freelist(s, kc, slab, fl, objects)) < 0)
			return -1;
		n += m;
		if ((m = walk_freelist(s, kc, slab, sfl, objects)) < 0)
			return -1;
		n += m;
	}
	for (; part; steps++) {
		if (steps > c->max_steps || s->sl_next < 0) {
			mdb_vm_warn(c, part, "cache %s: per-CPU partial list "
				    "loops", kc->k.name);
			return -1;
		}
		if ((m = slab_free(s, kc, part, &inuse)) < 0)
			return -1;
		n += m;
		if (mdb_vm_read_ptr(c, part + (uint64_t)s->sl_next, &part))
			return -1;
	}
	return n;
}

static int cache_head(const struct slub *s, struct kcache *kc)
{
	const struct vm_ctx *c = s->c;
	uint64_t name, oo = 0, v;
	uint32_t u;

	if (mdb_vm_read_ptr(c, kc->addr + (uint64_t)s->kc_name, &name) ||
	    mdb_vm_read_str(c, name, NAME_MAX_LEN, &kc->k.name))
		return -1;
	if (mdb_vm_read_u32(c, kc->addr + (uint64_t)s->kc_size, &u))
		return -1;
	kc->size = kc->k.size = u;
	if (mdb_vm_read_u32(c, kc->addr + (uint64_t)s->kc_objsize, &u))
		return -1;
	kc->k.object_size = u;
	if (mdb_vm_read_u32(c, kc->addr + (uint64_t)s->kc_oo, &u))
		return -1;
	oo = u;
	kc->k.order = (int64_t)(oo >> OO_SHIFT);
	kc->k.objperslab = (int64_t)(oo & ((1u << OO_SHIFT) - 1));
	if (mdb_vm_read_u32(c, kc->addr + (uint64_t)s->kc_offset, &u))
		return -1;
	kc->offset = u;
	kc->k.refcount = -1;
	if (s->kc_refcount >= 0 &&
	    !mdb_vm_read_u32(c, kc->addr + (uint64_t)s->kc_refcount, &u))
		kc->k.refcount = (int32_t)u;
	if (s->kc_red_left >= 0 &&
	    !mdb_vm_read_u32(c, kc->addr + (uint64_t)s->kc_red_left, &u))
		kc->red_left = u;
	if (s->kc_random >= 0) {
		if (mdb_vm_read_ptr(c, kc->addr + (uint64_t)s->kc_random, &v))
			return -1;
		kc->random = v;
		kc->hardened = 1;
	}
	return kc->size && (int64_t)kc->size >= kc->k.object_size ? 0 : -1;
}

static int walk_cache(const struct slub *s, struct kcache *kc)
{
	const struct vm_ctx *c = s->c;
	int64_t sfree = 0, xfree = 0;
	uint64_t cpus;

	if (walk_nodes(s, kc, &sfree, &xfree) < 0)
		return -1;
	if (mdb_vm_read_ptr(c, kc->addr + (uint64_t)s->kc_cpu_slab, &cpus))
		return -1;
	for (uint32_t i = 0; cpus && i < c->ncpus; i++) {
		int64_t n = walk_cpu(s, kc, mdb_vm_percpu(c, cpus, i));

		if (n < 0)
			kc->k.incomplete = 1;
		else
			xfree += n;
	}
	kc->k.active_objs = kc->k.total - sfree;
	kc->k.allocated = kc->k.total - xfree;
	return 0;
}

int mdb_vm_slub_walk(const struct vm_ctx *c,
		     int (*fn)(void *ctx, const struct vm_cache *k), void *ctx,
		     struct mdb_error *e)
{
	struct slub s = { .c = c };
	uint64_t head, p, n = 0;
	int ret;

	if ((ret = layout(&s, e)))
		return ret;
	if (c->sym(c->sym_ctx, "slab_caches", &head) ||
	    mdb_vm_read_ptr(c, head, &p))
		return mdb_error_fail(e, MDB_E_FORMAT, c->name, -1, -1,
				      "cannot read slab_caches", NULL);
	while (p != head) {
		struct kcache kc;

		if (++n > MAX_CACHES) {
			mdb_vm_warn(c, p, "slab_caches: more than %d caches (a "
				    "loop?)", MAX_CACHES);
			break;
		}
		memset(&kc, 0, sizeof(kc));
		kc.addr = p - (uint64_t)s.kc_list;
		if (cache_head(&s, &kc) || walk_cache(&s, &kc)) {
			mdb_vm_warn(c, kc.addr, "slab_caches: kmem_cache %s "
				    "unreadable; the list ends here",
				    kc.k.name ? kc.k.name : "?");
			free(kc.k.name);
			return 1;
		}
		ret = fn(ctx, &kc.k);
		free(kc.k.name);
		if (ret < 0)
			return ret;
		if (mdb_vm_read_ptr(c, kc.addr + (uint64_t)s.kc_list, &p)) {
			mdb_vm_warn(c, kc.addr, "slab_caches: list not in the "
				    "dump");
			return 1;
		}
	}
	return 0;
}
