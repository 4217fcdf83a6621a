// SPDX-License-Identifier: MIT
/*
 * FreeBSD memstat binary streams, docs/formats.md §5.1 - §5.3: what
 * `sysctl -b vm.zone_stats` (UMA zones) and `sysctl -b kern.malloc_stats`
 * (malloc(9) types) return, in the byte order of the machine that wrote
 * them.
 *
 *   stream header (16 B): u32 version (1), u32 maxcpus, u32 count, u32 pad
 *   vm.zone_stats:      count x { uma_type_header (120 B),
 *                                 maxcpus x uma_percpu_stat (64 B) }
 *   kern.malloc_stats:  count x { char name[32],
 *                                 maxcpus x malloc_type_stats (64 B) }
 *
 * The two headers look alike; the record sizes tell the streams apart
 * (the file length must be exactly 16 + count x record).  Derived figures
 * are libmemstat's (memstat_sysctl_uma(), memstat_sysctl_malloc()),
 * including its uint64_t arithmetic: see the decoders below.
 */
#include <stddef.h>
#include <string.h>

#include "../snapshot.h"

#define MAX_COUNT (1u << 24) /* more zones or types than any kernel has */
#define MAX_VERSION 15       /* stream versions memdb recognises as such */

/* uma_type_header */
#define UTH_NAME 0
#define UTH_ALIGN 32
#define UTH_SIZE 36
#define UTH_RSIZE 40
#define UTH_LIMIT 48
#define UTH_KEG_FREE 56
#define UTH_ZONE_FREE 60
#define UTH_ZONE_FLAGS 68
#define UTH_ALLOCS 72
#define UTH_FREES 80
#define UTH_FAILS 88
#define UTH_SLEEPS 96
#define UTH_XDOMAIN 104
/* uma_percpu_stat */
#define UPS_ALLOCS 0
#define UPS_FREES 8
#define UPS_CACHE_FREE 16
/* malloc_type_stats */
#define MTS_MEMALLOCED 0
#define MTS_MEMFREED 8
#define MTS_NUMALLOCS 16
#define MTS_NUMFREES 24
#define MTS_SIZE 32

int mdb_memstat_header(const void *buf, size_t len, enum mdb_order *order,
		       uint32_t *version, uint32_t *maxcpus, uint32_t *count)
{
	const uint8_t *b = buf;

	if (len < MEMSTAT_HDR_SIZE)
		return 0;
	/* the version word is small: its one non-zero byte says the order */
	if (b[0] && !b[1] && !b[2] && !b[3])
		*order = MDB_ORDER_LITTLE;
	else if (!b[0] && !b[1] && !b[2] && b[3])
		*order = MDB_ORDER_BIG;
	else
		return 0;
	*version = get_u32(b, *order);
	*maxcpus = get_u32(b + 4, *order);
	*count = get_u32(b + 8, *order);
	/* versions stay small: a kmemtrace record (event_size >= 24 where
	 * a big-endian version byte would be) never passes for a header */
	return *version <= MAX_VERSION && *maxcpus >= 1 &&
	       *maxcpus <= MEMSTAT_MAX_CPUS && *count <= MAX_COUNT &&
	       get_u32(b + 12, *order) == 0;
}

/* A record name: 1 to 31 printable bytes, then NUL. */
static int plausible_name(const uint8_t *p)
{
	const uint8_t *nul = memchr(p, '\0', MEMSTAT_NAME_SIZE);

	if (!nul || nul == p)
		return 0;
	for (; p < nul; p++)
		if (*p < 0x20 || *p >= 0x7f)
			return 0;
	return 1;
}

static uint64_t uma_record_size(uint32_t maxcpus)
{
	return MEMSTAT_UMA_TYPE_SIZE + (uint64_t)maxcpus * MEMSTAT_UMA_CPU_SIZE;
}

static uint64_t malloc_record_size(uint32_t maxcpus)
{
	return MEMSTAT_NAME_SIZE + (uint64_t)maxcpus * MEMSTAT_MALLOC_CPU_SIZE;
}

/*
 * Which stream is @buf?  The one whose record size makes the length
 * exact; when neither does (a damaged stream), the first record decides:
 * a plausible name, then for UMA an alignment mask (2^n - 1), a size and
 * rsize >= size.  -1: not a memstat stream.
 */
static int memstat_kind(const void *buf, size_t len)
{
	uint32_t version, maxcpus, count, align, size;
	struct mdb_cursor c;
	const uint8_t *r;
	enum mdb_order o;
	size_t body;

	if (!mdb_memstat_header(buf, len, &o, &version, &maxcpus, &count))
		return -1;
	mdb_cursor_init(&c, buf, len);
	if (mdb_cursor_skip(&c, MEMSTAT_HDR_SIZE))
		return -1;
	body = mdb_cursor_left(&c);
	if (body == count * uma_record_size(maxcpus))
		return MDB_ZONE_UMA;
	if (body == count * malloc_record_size(maxcpus))
		return MDB_ZONE_MALLOC;
	r = mdb_cursor_peek(&c, MEMSTAT_NAME_SIZE);
	if (!r || !plausible_name(r))
		return -1;
	r = mdb_cursor_peek(&c, MEMSTAT_UMA_TYPE_SIZE);
	if (!r)
		return MDB_ZONE_MALLOC;
	align = get_u32(r + UTH_ALIGN, o);
	size = get_u32(r + UTH_SIZE, o);
	if (align < 4096 && !(align & (align + 1)) && size &&
	    get_u32(r + UTH_RSIZE, o) >= size)
		return MDB_ZONE_UMA;
	return MDB_ZONE_MALLOC;
}

int mdb_memstat_uma_probe(const void *buf, size_t len)
{
	return memstat_kind(buf, len) == MDB_ZONE_UMA;
}

int mdb_memstat_malloc_probe(const void *buf, size_t len)
{
	return memstat_kind(buf, len) == MDB_ZONE_MALLOC;
}

/* A per-CPU counter: its offset in the record, its place in the row. */
struct cpu_field {
	unsigned off;
	size_t member; /* offsetof(struct mdb_zone_cpu, ...), an int64_t */
};

#define NCPU_FIELDS 5

/* What differs between the two streams. */
struct stream_kind {
	const char *what;       /* for messages */
	enum mdb_zone_kind kind;
	uint64_t (*rec)(uint32_t maxcpus);
	/* one CPU's counters, 64-bit each */
	struct cpu_field cpu[NCPU_FIELDS];
	size_t ncpu;
	/* the zone from its record @r and the CPU sums @sum */
	void (*zone)(const uint8_t *r, enum mdb_order o,
		     const struct mdb_zone_cpu *sum, struct mdb_zone *z);
};

#define CPU_AT(m) offsetof(struct mdb_zone_cpu, m)

/* One CPU's counters at @p; the counters the stream lacks stay 0. */
static void read_cpu(const struct stream_kind *k, const uint8_t *p,
		     enum mdb_order o, struct mdb_zone_cpu *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < k->ncpu; i++) {
		/* the same 64 bits; see snapshot.h */
		int64_t v = (int64_t)get_u64(p + k->cpu[i].off, o);

		memcpy((char *)c + k->cpu[i].member, &v, sizeof(v));
	}
}

struct stream {
	struct mdb_cursor records; /* the records, after the header */
	enum mdb_order order;
	uint32_t maxcpus, count;
	uint64_t head;  /* bytes before a record's per-CPU figures */
	uint64_t cpu;   /* bytes of one CPU's figures */
	uint64_t rec;   /* bytes per record */
};

/*
 * Validate the whole stream header against @len before any record is
 * read: version, maxcpus, and count x record size in 64 bits.
 */
static int stream_open(const void *buf, size_t len, const char *name,
		       const struct stream_kind *k, struct stream *s,
		       struct mdb_error *e)
{
	uint32_t version;
	uint64_t need, whole, rem, body;

	mdb_cursor_init(&s->records, buf, len);
	if (mdb_cursor_skip(&s->records, MEMSTAT_HDR_SIZE))
		return mdb_error_set(e, MDB_E_TRUNCATED, name, 0, -1,
				     "need=%d have=%zu", MEMSTAT_HDR_SIZE, len);
	if (!mdb_memstat_header(buf, len, &s->order, &version, &s->maxcpus,
				&s->count)) {
		mdb_error_set(e, MDB_E_FORMAT, name, 0, -1, NULL);
		mdb_error_msg(e, "not a memstat %s stream", k->what);
		return -MDB_E_FORMAT;
	}
	if (version != MEMSTAT_VERSION) {
		mdb_error_set(e, MDB_E_VERSION, name, 0, -1,
			      "version=%u supported=%d", version,
			      MEMSTAT_VERSION);
		mdb_error_msg(e, "unsupported memstat stream version");
		return -MDB_E_VERSION;
	}
	s->rec = k->rec(s->maxcpus);
	s->head = k->rec(0);
	s->cpu = k->rec(1) - s->head;
	body = mdb_cursor_left(&s->records);
	need = MEMSTAT_HDR_SIZE + s->count * s->rec;
	whole = body / s->rec;
	rem = body % s->rec;
	if (need > len && rem)
		return mdb_error_set(e, MDB_E_TRUNCATED, name,
				     (int64_t)(MEMSTAT_HDR_SIZE +
					       whole * s->rec), -1,
				     "need=%llu have=%llu",
				     (unsigned long long)s->rec,
				     (unsigned long long)rem);
	if (need > len) {
		mdb_error_set(e, MDB_E_CORRUPT, name, 8, -1,
			      "count=%u records=%llu maxcpus=%u", s->count,
			      (unsigned long long)whole, s->maxcpus);
		mdb_error_msg(e, "memstat count larger than the data");
		return -MDB_E_CORRUPT;
	}
	if (need < len) {
		mdb_error_set(e, MDB_E_CORRUPT, name, (int64_t)need, -1,
			      "count=%u extra=%llu", s->count,
			      (unsigned long long)(len - need));
		mdb_error_msg(e, "bytes after the last memstat record");
		return -MDB_E_CORRUPT;
	}
	if (!s->count) {
		mdb_error_set(e, MDB_E_EMPTY, name, 8, -1, "count=0");
		mdb_error_msg(e, "no memstat records");
		return -MDB_E_EMPTY;
	}
	return 0;
}

/* The NUL-terminated name at @p, at most MEMSTAT_NAME_SIZE bytes. */
static struct mdb_str record_name(const uint8_t *p)
{
	const void *nul = memchr(p, '\0', MEMSTAT_NAME_SIZE);
	struct mdb_str s = { (const char *)p,
			     nul ? (size_t)((const uint8_t *)nul - p) :
				   MEMSTAT_NAME_SIZE };

	return s;
}

static int64_t u64(uint64_t v)
{
	return (int64_t)v; /* the same 64 bits; see snapshot.h */
}

/* Add @c to @sum the way libmemstat does: uint64_t sums, masks OR-ed. */
static void cpu_add(struct mdb_zone_cpu *sum, const struct mdb_zone_cpu *c)
{
	sum->allocs = u64((uint64_t)sum->allocs + (uint64_t)c->allocs);
	sum->frees = u64((uint64_t)sum->frees + (uint64_t)c->frees);
	sum->cache_free = u64((uint64_t)sum->cache_free +
			      (uint64_t)c->cache_free);
	sum->mem_alloced = u64((uint64_t)sum->mem_alloced +
			       (uint64_t)c->mem_alloced);
	sum->mem_freed = u64((uint64_t)sum->mem_freed +
			     (uint64_t)c->mem_freed);
	sum->sizemask |= c->sizemask;
}

static int cpu_idle(const struct mdb_zone_cpu *c)
{
	return !c->allocs && !c->frees && !c->cache_free && !c->mem_alloced &&
	       !c->mem_freed && !c->sizemask;
}

/*
 * Every record: its CPUs summed, the zone derived from the sums and
 * handed to @sink, then the CPUs that are not idle (malloc_stats holds
 * MAXCPU slots, most of them empty).  Fields a stream does not have are
 * MDB_NA in the per-CPU rows.
 */
static int stream_decode(const void *buf, size_t len, const char *name,
			 const struct stream_kind *k,
			 const struct mdb_snap_sink *sink,
			 struct mdb_snap_info *info, struct mdb_error *e)
{
	struct stream s;
	int ret;

	memset(info, 0, sizeof(*info));
	ret = stream_open(buf, len, name, k, &s, e);
	if (ret < 0)
		return ret;
	strcpy(info->version, "1");
	for (uint32_t i = 0; i < s.count; i++) {
		struct mdb_cursor rc;
		const uint8_t *r;
		struct mdb_zone_cpu sum = { 0 }, c;
		struct mdb_zone z;

		/* stream_open() checked count x record size against len */
		if (mdb_cursor_sub(&s.records, s.rec, &rc) ||
		    !(r = mdb_cursor_peek(&rc, s.rec)))
			return mdb_error_set(e, MDB_E_TRUNCATED, name,
					     (int64_t)mdb_cursor_off(&s.records),
					     -1, "record=%u", i);
		for (uint32_t n = 0; n < s.maxcpus; n++) {
			read_cpu(k, r + s.head + n * s.cpu, s.order, &c);
			cpu_add(&sum, &c);
		}
		mdb_zone_init(&z, k->kind);
		z.name = record_name(r);
		k->zone(r, s.order, &sum, &z);
		info->records++;
		info->zones++;
		ret = sink->zone(sink->ctx, &z);
		for (uint32_t n = 0; ret >= 0 && n < s.maxcpus; n++) {
			read_cpu(k, r + s.head + n * s.cpu, s.order, &c);
			if (cpu_idle(&c))
				continue;
			c.cpu = (int32_t)n;
			if (k->kind == MDB_ZONE_UMA)
				c.mem_alloced = c.mem_freed = c.sizemask =
					MDB_NA;
			else
				c.cache_free = MDB_NA;
			info->zone_cpus++;
			ret = sink->zone_cpu(sink->ctx, &c);
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* ---- vm.zone_stats ---------------------------------------------------- */

/*
 * As memstat_sysctl_uma() derives a zone:
 *   numallocs = allocs + sum(cpu allocs), numfrees = frees + sum(cpu frees)
 *   numallocs = max(numallocs, numfrees)   (totals only: counter(9)
 *                                           snapshots can show more frees)
 *   used = numallocs - numfrees, bytes = used * size
 *   free = sum(cpu cache_free) + zone_free + keg_free, keg_free only for a
 *          primary zone (a secondary zone shares its primary's keg)
 */
static void uma_zone(const uint8_t *r, enum mdb_order o,
		     const struct mdb_zone_cpu *sum, struct mdb_zone *z)
{
	uint64_t allocs = get_u64(r + UTH_ALLOCS, o) + (uint64_t)sum->allocs;
	uint64_t frees = get_u64(r + UTH_FREES, o) + (uint64_t)sum->frees;
	uint32_t flags = get_u32(r + UTH_ZONE_FLAGS, o);
	uint32_t size = get_u32(r + UTH_SIZE, o);
	uint32_t keg_free = get_u32(r + UTH_KEG_FREE, o);
	uint32_t zone_free = get_u32(r + UTH_ZONE_FREE, o);

	if (allocs < frees)
		allocs = frees;
	z->v[MDB_ZC_SIZE] = size;
	z->v[MDB_ZC_LIMIT] = get_u32(r + UTH_LIMIT, o);
	z->v[MDB_ZC_USED] = u64(allocs - frees);
	z->v[MDB_ZC_FREE] = u64((uint64_t)sum->cache_free + zone_free +
			       (flags & UTH_ZONE_SECONDARY ? 0 : keg_free));
	z->v[MDB_ZC_REQUESTS] = u64(allocs);
	z->v[MDB_ZC_FREES] = u64(frees);
	z->v[MDB_ZC_FAILS] = u64(get_u64(r + UTH_FAILS, o));
	z->v[MDB_ZC_SLEEPS] = u64(get_u64(r + UTH_SLEEPS, o));
	z->v[MDB_ZC_XDOMAIN] = u64(get_u64(r + UTH_XDOMAIN, o));
	z->v[MDB_ZC_BYTES] = u64((allocs - frees) * size);
	z->v[MDB_ZC_KEG_FREE] = keg_free;
	z->v[MDB_ZC_ZONE_FREE] = zone_free;
	z->v[MDB_ZC_ZONE_FLAGS] = flags;
}

static const struct stream_kind uma_kind = {
	"zone_stats", MDB_ZONE_UMA, uma_record_size,
	{ { UPS_ALLOCS, CPU_AT(allocs) }, { UPS_FREES, CPU_AT(frees) },
	  { UPS_CACHE_FREE, CPU_AT(cache_free) } }, 3, uma_zone,
};

int mdb_memstat_uma_decode(const void *buf, size_t len, const char *name,
			   const struct mdb_snap_sink *sink,
			   struct mdb_snap_info *info, struct mdb_error *e)
{
	return stream_decode(buf, len, name, &uma_kind, sink, info, e);
}

/* ---- kern.malloc_stats ------------------------------------------------ */

/*
 * As memstat_sysctl_malloc() derives a type: bytes = memalloced -
 * memfreed, used = numallocs - numfrees, no clamp.  libmemstat computes
 * them in uint64_t; memdb stores the same 64 bits, so a snapshot with
 * more frees than allocations reads negative instead of near 2^64.
 */
static void malloc_zone(const uint8_t *r, enum mdb_order o,
			const struct mdb_zone_cpu *sum, struct mdb_zone *z)
{
	(void)r;
	(void)o;
	z->v[MDB_ZC_USED] = u64((uint64_t)sum->allocs - (uint64_t)sum->frees);
	z->v[MDB_ZC_REQUESTS] = sum->allocs;
	z->v[MDB_ZC_FREES] = sum->frees;
	z->v[MDB_ZC_BYTES] = u64((uint64_t)sum->mem_alloced -
				 (uint64_t)sum->mem_freed);
	z->v[MDB_ZC_SIZEMASK] = sum->sizemask;
}

static const struct stream_kind malloc_kind = {
	"malloc_stats", MDB_ZONE_MALLOC, malloc_record_size,
	{ { MTS_MEMALLOCED, CPU_AT(mem_alloced) },
	  { MTS_MEMFREED, CPU_AT(mem_freed) },
	  { MTS_NUMALLOCS, CPU_AT(allocs) }, { MTS_NUMFREES, CPU_AT(frees) },
	  { MTS_SIZE, CPU_AT(sizemask) } }, 5,
	malloc_zone,
};

int mdb_memstat_malloc_decode(const void *buf, size_t len, const char *name,
			      const struct mdb_snap_sink *sink,
			      struct mdb_snap_info *info,
			      struct mdb_error *e)
{
	return stream_decode(buf, len, name, &malloc_kind, sink, info, e);
}
