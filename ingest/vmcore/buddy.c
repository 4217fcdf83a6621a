// SPDX-License-Identifier: MIT
/*
 * The buddy allocator's free lists: for each online node (node_data[],
 * else contig_page_data), each populated zone, each order and
 * migratetype, the blocks on free_area[order].free_list[mt] (the list
 * heads live in struct page, which makedumpfile keeps when it filters
 * free pages out) and free_area[order].nr_free.  What /proc/buddyinfo
 * and /proc/pagetypeinfo print.
 */
#include <stdlib.h>
#include <string.h>

#include "vmcore.h"

#define NAME_MAX_LEN 64
#define MAX_MT 16

static const struct {
	const char *enumerator, *name;
} mt_names[] = {
	{ "MIGRATE_UNMOVABLE", "Unmovable" },
	{ "MIGRATE_MOVABLE", "Movable" },
	{ "MIGRATE_RECLAIMABLE", "Reclaimable" },
	{ "MIGRATE_HIGHATOMIC", "HighAtomic" },
	{ "MIGRATE_CMA", "CMA" },
	{ "MIGRATE_ISOLATE", "Isolate" },
};

struct buddy {
	const struct vm_ctx *c;
	int64_t z_name, z_present, z_free_area, fa_free_list, fa_nr_free;
	struct vm_member zones, areas, lists;
	const char *mt[MAX_MT];
	int (*fn)(void *ctx, const struct vm_buddy *b);
	void *ctx;
};

static int buddy_layout(struct buddy *b, struct mdb_error *e)
{
	const struct vm_ctx *c = b->c;
	const struct vm_types *t = c->types;

	b->z_name = mdb_vm_off(c, "struct zone", "name");
	b->z_present = mdb_vm_off(c, "struct zone", "present_pages");
	b->z_free_area = mdb_vm_off(c, "struct zone", "free_area");
	b->fa_free_list = mdb_vm_off(c, "struct free_area", "free_list");
	b->fa_nr_free = mdb_vm_off(c, "struct free_area", "nr_free");
	if (b->z_name < 0 || b->z_present < 0 || b->z_free_area < 0 ||
	    b->fa_free_list < 0 || b->fa_nr_free < 0 ||
	    t->member(t->priv, "struct pglist_data", "node_zones", &b->zones) ||
	    t->member(t->priv, "struct zone", "free_area", &b->areas) ||
	    t->member(t->priv, "struct free_area", "free_list", &b->lists) ||
	    !b->zones.nelem || !b->areas.nelem || !b->lists.nelem ||
	    b->lists.nelem > MAX_MT)
		return mdb_error_fail(e, MDB_E_FORMAT, c->name, -1, -1,
				      "the kernel's types have no buddy "
				      "allocator layout memdb knows (struct "
				      "pglist_data, zone, free_area)", NULL);
	for (size_t i = 0; i < sizeof(mt_names) / sizeof(mt_names[0]); i++) {
		int64_t v;

		if (!t->enumval(t->priv, mt_names[i].enumerator, &v) &&
		    v >= 0 && (uint64_t)v < b->lists.nelem)
			b->mt[v] = mt_names[i].name;
	}
	return 0;
}

/* Blocks on the list at @head, at most @bound; -1 when cut short. */
static int64_t list_len(const struct buddy *b, uint64_t head, uint64_t bound,
			const char *zone, int order)
{
	uint64_t p, n = 0;

	if (mdb_vm_read_ptr(b->c, head, &p))
		goto bad;
	while (p != head) {
		if (++n > bound) {
			mdb_vm_warn(b->c, p, "zone %s order %d: free list longer "
				    "than nr_free (a loop?)", zone, order);
			return -1;
		}
		if (mdb_vm_read_ptr(b->c, p, &p))
			goto bad;
	}
	return (int64_t)n;
bad:
	mdb_vm_warn(b->c, head, "zone %s order %d: free list not in the dump",
		    zone, order);
	return -1;
}

static int walk_area(const struct buddy *b, int node, const char *zone,
		     uint64_t area, int order)
{
	uint64_t nr_free;
	int ret;

	if (mdb_vm_read_ptr(b->c, area + (uint64_t)b->fa_nr_free, &nr_free))
		nr_free = (uint64_t)-1;
	for (uint64_t mt = 0; mt < b->lists.nelem; mt++) {
		uint64_t head = area + (uint64_t)b->fa_free_list +
				mt * b->lists.elem_size;
		struct vm_buddy r = {
			.node = node, .zone = zone, .order = order,
			.migratetype = b->mt[mt] ? b->mt[mt] : "?",
			.nr_free = nr_free == (uint64_t)-1 ? -1 :
							     (int64_t)nr_free,
		};
		uint64_t bound = nr_free == (uint64_t)-1 ? b->c->max_steps :
							   nr_free;
		int64_t n = list_len(b, head, bound, zone, order);

		r.incomplete = n < 0;
		r.blocks = n < 0 ? 0 : n;
		if ((ret = b->fn(b->ctx, &r)) < 0)
			return ret;
	}
	return 0;
}

static int walk_zone(const struct buddy *b, int node, uint64_t zone)
{
	uint64_t present, name_ptr;
	char *name = NULL;
	int ret = 0;

	if (mdb_vm_read_ptr(b->c, zone + (uint64_t)b->z_present, &present) ||
	    mdb_vm_read_ptr(b->c, zone + (uint64_t)b->z_name, &name_ptr) ||
	    mdb_vm_read_str(b->c, name_ptr, NAME_MAX_LEN, &name)) {
		mdb_vm_warn(b->c, zone, "node %d: struct zone not in the dump",
			    node);
		return 0;
	}
	for (uint64_t o = 0; present && !ret && o < b->areas.nelem; o++)
		ret = walk_area(b, node, name, zone + (uint64_t)b->z_free_area +
					 o * b->areas.elem_size, (int)o);
	free(name);
	return ret;
}

int mdb_vm_buddy_walk(const struct vm_ctx *c,
		      int (*fn)(void *ctx, const struct vm_buddy *r), void *ctx,
		      struct mdb_error *e)
{
	struct buddy b = { .c = c, .fn = fn, .ctx = ctx };
	uint64_t nd, pgdat;
	int numa, ret;

	if ((ret = buddy_layout(&b, e)))
		return ret;
	numa = !c->sym(c->sym_ctx, "node_data", &nd);
	if (!numa && c->sym(c->sym_ctx, "contig_page_data", &nd))
		return mdb_error_fail(e, MDB_E_FORMAT, c->name, -1, -1,
				      "neither node_data nor contig_page_data "
				      "in the symbols", NULL);
	for (uint32_t n = 0; n < (numa ? c->nnodes : 1); n++) {
		pgdat = nd;
		if (numa && mdb_vm_read_ptr(c, nd + mdb_vm_word(c) * n, &pgdat)) {
			mdb_vm_warn(c, nd + mdb_vm_word(c) * n, "node_data[%u] not in the "
				    "dump", n);
			continue;
		}
		if (!pgdat)
			continue;
		for (uint64_t z = 0; z < b.zones.nelem; z++) {
			uint64_t zone = pgdat + b.zones.bit_off / 8 +
					z * b.zones.elem_size;

			if ((ret = walk_zone(&b, (int)n, zone)) < 0)
				return ret;
		}
	}
	return 0;
}
