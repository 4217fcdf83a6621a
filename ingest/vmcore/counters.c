// SPDX-License-Identifier: MIT
/*
 * The counters of a dumped kernel: the global vm_stat arrays (what
 * /proc/vmstat prints, named by the kernel's own vmstat_text[]; the
 * per-CPU deltas not yet folded in are not added), the event counters
 * (per-CPU vm_event_states summed, as all_vm_events() does), each
 * populated zone's and each node's vm_stat (/proc/zoneinfo's), and the
 * kernel's clock (dump time, uptime).
 */
#include <stdlib.h>
#include <string.h>

#include "vmcore.h"

#define NAME_MAX_LEN 64
#define MAX_ITEMS 4096
#define MAX_EVENTS 1024 /* 6.1 has 140 event items, 6.18 under 200 */

struct cnt {
	const struct vm_ctx *c;
	int (*fn)(void *ctx, const char *scope, int node, const char *zone,
		  const char *name, int64_t v);
	void *ctx;
	uint64_t text;
};

static int64_t enum_or(const struct vm_ctx *c, const char *name, int64_t d)
{
	int64_t v;

	return c->types->enumval(c->types->priv, name, &v) ? d : v;
}

/* Where a run of counters goes: its scope, node and zone. */
struct where {
	const char *scope;
	int node;
	const char *zone;
};

/* vmstat_text[@first + i] = @arr[i] for i < @n; @what for messages. */
static int emit_array(const struct cnt *k, const struct where *w,
		      const char *what, uint64_t arr, int64_t first, int64_t n)
{
	uint64_t name_ptr, v, word = mdb_vm_word(k->c);
	int ret;

	if (n <= 0 || n > MAX_ITEMS)
		return 0;
	for (int64_t i = 0; i < n; i++) {
		char *name = NULL;

		if (mdb_vm_read_ptr(k->c, k->text + word * (uint64_t)(first + i),
				    &name_ptr) ||
		    mdb_vm_read_str(k->c, name_ptr, NAME_MAX_LEN, &name) ||
		    mdb_vm_read_ptr(k->c, arr + word * (uint64_t)i, &v)) {
			free(name);
			mdb_vm_warn(k->c, arr, "%s[%lld] not in the dump", what,
				    (long long)i);
			return 0;
		}
		/* atomic_long_t: a 32-bit kernel's is signed 32-bit */
		ret = k->fn(k->ctx, w->scope, w->node, w->zone, name,
			    word == 4 ? (int32_t)v : (int64_t)v);
		free(name);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static const struct where global = { "global", -1, NULL };

static int emit_global(const struct cnt *k, const char *sym, int64_t first,
		       int64_t n)
{
	uint64_t arr;

	if (k->c->sym(k->c->sym_ctx, sym, &arr))
		return 0;
	return emit_array(k, &global, sym, arr, first, n);
}

/*
 * The event counters (enum vm_event_item, CONFIG_VM_EVENT_COUNTERS):
 * vm_event_states is a per-CPU struct vm_event_state { unsigned long
 * event[NR_VM_EVENT_ITEMS]; }, summed over the CPUs < nr_cpu_ids (a CPU
 * going offline folds its events into a live one's and zeroes its own,
 * so this is all_vm_events()'s sum over the online CPUs).  Their names
 * follow the writeback items in vmstat_text[], at @first; the first item
 * is PGPGIN, checked by name so that another layout is not misnamed.
 */
static int emit_events(const struct cnt *k, int64_t first)
{
	const struct vm_ctx *c = k->c;
	int64_t n = enum_or(c, "NR_VM_EVENT_ITEMS", -1);
	uint64_t pcpu, name_ptr, sum[MAX_EVENTS] = { 0 }, word = mdb_vm_word(c);
	uint8_t one[MAX_EVENTS * 8];
	struct vm_member ev;
	char *name = NULL;
	int ret = 0, named;

	if (n <= 0 || n > MAX_EVENTS || enum_or(c, "PGPGIN", -1) != 0 ||
	    c->sym(c->sym_ctx, "vm_event_states", &pcpu) ||
	    c->types->member(c->types->priv, "struct vm_event_state", "event",
			     &ev) || ev.nelem != (uint64_t)n ||
	    ev.elem_size != word || ev.bit_off)
		return 0;
	named = !mdb_vm_read_ptr(c, k->text + word * (uint64_t)first, &name_ptr) &&
		!mdb_vm_read_str(c, name_ptr, NAME_MAX_LEN, &name) &&
		!strcmp(name, "pgpgin");
	free(name);
	if (!named) {
		mdb_vm_warn(c, k->text, "vmstat_text[%lld] is not pgpgin: event "
			    "counters not read", (long long)first);
		return 0;
	}
	for (uint32_t cpu = 0; cpu < c->ncpus; cpu++) {
		uint64_t a = mdb_vm_percpu(c, pcpu, cpu);

		if (c->read(c->read_ctx, a, one, (size_t)(n * (int64_t)word))) {
			mdb_vm_warn(c, a, "vm_event_states of CPU %u not in the "
				    "dump: event counters not read", cpu);
			return 0;
		}
		/* unsigned long, wrapping as the kernel's sum does */
		for (int64_t i = 0; i < n; i++)
			sum[i] += mdb_vm_get_word(c, one + word * (uint64_t)i);
	}
	if (word == 4)
		for (int64_t i = 0; i < n; i++)
			sum[i] &= 0xffffffffu;
	/* /proc/vmstat prints these two in KB, counted in sectors */
	sum[0] /= 2;
	if (n > 1 && enum_or(c, "PGPGOUT", -1) == 1)
		sum[1] /= 2;
	for (int64_t i = 0; i < n; i++) {
		if (mdb_vm_read_ptr(c, k->text + word * (uint64_t)(first + i),
				    &name_ptr) ||
		    mdb_vm_read_str(c, name_ptr, NAME_MAX_LEN, &name)) {
			mdb_vm_warn(c, k->text, "vmstat_text[%lld] not in the dump",
				    (long long)(first + i));
			break;
		}
		ret = k->fn(k->ctx, global.scope, global.node, global.zone,
			    name, (int64_t)sum[i]);
		free(name);
		name = NULL;
		if (ret < 0)
			break;
	}
	return ret;
}

/* Each populated zone's vm_stat, then the node's. */
static int emit_node(const struct cnt *k, int node, uint64_t pgdat,
		     int64_t nz, int64_t nn_first, int64_t nn)
{
	const struct vm_ctx *c = k->c;
	struct vm_member zones;
	int64_t zs = mdb_vm_off(c, "struct zone", "vm_stat"),
		zn = mdb_vm_off(c, "struct zone", "name"),
		zp = mdb_vm_off(c, "struct zone", "present_pages"),
		ns = mdb_vm_off(c, "struct pglist_data", "vm_stat");
	struct where w = { "node", node, NULL };
	int ret;

	if (c->types->member(c->types->priv, "struct pglist_data",
			     "node_zones", &zones) || zs < 0 || zn < 0 ||
	    zp < 0 || ns < 0)
		return 0;
	for (uint64_t z = 0; z < zones.nelem; z++) {
		uint64_t zone = pgdat + zones.bit_off / 8 + z * zones.elem_size,
			 present, np;
		char *name = NULL;
		struct where wz = { "zone", node, NULL };

		if (mdb_vm_read_ptr(c, zone + (uint64_t)zp, &present) || !present ||
		    mdb_vm_read_ptr(c, zone + (uint64_t)zn, &np) ||
		    mdb_vm_read_str(c, np, NAME_MAX_LEN, &name))
			continue;
		wz.zone = name;
		ret = emit_array(k, &wz, "zone.vm_stat", zone + (uint64_t)zs,
				 0, nz);
		free(name);
		if (ret < 0)
			return ret;
	}
	return emit_array(k, &w, "pglist_data.vm_stat", pgdat + (uint64_t)ns,
			  nn_first, nn);
}

static int emit_nodes(const struct cnt *k, int64_t nz, int64_t nn_first,
		      int64_t nn)
{
	const struct vm_ctx *c = k->c;
	uint64_t nd, pgdat;
	int numa = !c->sym(c->sym_ctx, "node_data", &nd), ret;

	if (!numa && c->sym(c->sym_ctx, "contig_page_data", &nd))
		return 0;
	for (uint32_t n = 0; n < (numa ? c->nnodes : 1); n++) {
		pgdat = nd;
		if (numa && (mdb_vm_read_ptr(c, nd + mdb_vm_word(c) * n, &pgdat) ||
			     !pgdat))
			continue;
		if ((ret = emit_node(k, (int)n, pgdat, nz, nn_first, nn)) < 0)
			return ret;
	}
	return 0;
}

/* Member @member of struct timekeeper at @tk, read as its type's size. */
static int tk_field(const struct vm_ctx *c, uint64_t tk, const char *member,
		    uint64_t *v)
{
	struct vm_member m;

	if (c->types->member(c->types->priv, "struct timekeeper", member, &m) ||
	    m.bit_off % 8 || m.bit_size)
		return -1;
	return mdb_vm_read_sized(c, tk + m.bit_off / 8, m.size, v);
}

int mdb_vm_clock(const struct vm_ctx *c, int64_t *wall, int64_t *uptime)
{
	uint64_t tk, x, m, b = 0;

	/* xtime_sec is u64, ktime_sec an unsigned long, offs_boot a ktime_t */
	if (c->sym(c->sym_ctx, "shadow_timekeeper", &tk) ||
	    tk_field(c, tk, "xtime_sec", &x) ||
	    tk_field(c, tk, "ktime_sec", &m) || x > INT64_MAX ||
	    m > INT64_MAX)
		return -1;
	if (tk_field(c, tk, "offs_boot", &b))
		b = 0;
	*wall = (int64_t)x;
	*uptime = (int64_t)(m + b / 1000000000u);
	return 0;
}

static int emit_clock(const struct cnt *k)
{
	int64_t wall, up;
	int ret;

	if (mdb_vm_clock(k->c, &wall, &up))
		return 0;
	if ((ret = k->fn(k->ctx, "kernel", -1, NULL, "dump_time", wall)))
		return ret;
	return k->fn(k->ctx, "kernel", -1, NULL, "uptime_sec", up);
}

int mdb_vm_counters_walk(const struct vm_ctx *c,
			 int (*fn)(void *ctx, const char *scope, int node,
				   const char *zone, const char *name, int64_t v),
			 void *ctx)
{
	struct cnt k = { .c = c, .fn = fn, .ctx = ctx };
	int64_t nz = enum_or(c, "NR_VM_ZONE_STAT_ITEMS", -1),
		nu = enum_or(c, "NR_VM_NUMA_EVENT_ITEMS", 0),
		nn = enum_or(c, "NR_VM_NODE_STAT_ITEMS", -1),
		/* nr_dirty_threshold, nr_dirty_background_threshold: computed
		 * when /proc/vmstat is read, held nowhere */
		nw = enum_or(c, "NR_VM_WRITEBACK_STAT_ITEMS", 2);
	int ret;

	if ((ret = emit_clock(&k)))
		return ret;
	if (nz < 0 || nn < 0 || c->sym(c->sym_ctx, "vmstat_text", &k.text))
		return 0;
	if ((ret = emit_global(&k, "vm_zone_stat", 0, nz)) ||
	    (ret = emit_global(&k, "vm_numa_event", nz, nu)) ||
	    (ret = emit_global(&k, "vm_node_stat", nz + nu, nn)) ||
	    (ret = emit_events(&k, nz + nu + nn + nw)))
		return ret;
	return emit_nodes(&k, nz, nz + nu, nn);
}
