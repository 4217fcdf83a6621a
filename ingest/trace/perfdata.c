// SPDX-License-Identifier: MIT
/*
 * perf.data decoder (see perfdata.h).
 *
 * Layout (every integer in the producer's byte order):
 *   file header   magic "PERFILE2", u64 size (104; 16 = pipe mode),
 *                 u64 attr_size, sections attrs, data, event_types
 *                 ({u64 offset, u64 size} each), u64 features[4]
 *   attrs         attr_size-byte entries: struct perf_event_attr, then a
 *                 section of the attribute's u64 sample ids
 *   data          records: u32 type, u16 misc, u16 size, body
 *   features      after the data section, one section per feature bit
 *                 set, in bit order; HEADER_TRACING_DATA is bit 1
 * A PERF_RECORD_SAMPLE body holds, in this order, the fields its
 * attribute's sample_type selects: IDENTIFIER, IP, TID, TIME, ADDR, ID,
 * STREAM_ID, CPU, PERIOD, READ, CALLCHAIN, RAW, then fields memdb does
 * not need.  RAW is the tracepoint's payload, whose fields the event
 * formats of the tracing data name.
 *
 * Two passes: the first checks every record's structure, counts lost
 * events and indexes the kmem samples (time, payload offset); the index
 * is sorted stably by time and the second pass reads the payloads by
 * field name into events (tep_kmem.c, every field checked to lie inside
 * the payload).  Only format text that passed memdb's own checks reaches
 * libtraceevent (mdb_tep_kmem_parse_format()).  The records of `perf record
 * -z` are decompressed into one buffer and walked the same way (see
 * docs/formats.md §6.1).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <zstd.h>

#include "../../common/grow.h"
#include "../../common/heap.h"
#include "../../common/hugemem.h"
#include "../../common/u64map.h"
#include "perfdata.h"
#include "../../common/prefetch.h"
#include "tep_kmem.h"

#define HDR_SIZE 104      /* struct perf_file_header */
#define PIPE_HDR_SIZE 16  /* struct perf_pipe_file_header */
#define ATTR_VER0 64      /* PERF_ATTR_SIZE_VER0 */
#define ATTR_MAX 4096     /* larger attributes are not perf's */
#define SECTION 16        /* struct perf_file_section */
#define REC_HDR 8         /* struct perf_event_header */
#define MAX_ATTRS 65536
#define ENTS_FIRST_MAX ((size_t)1 << 20) /* samples the index starts with */

enum {
	REC_LOST = 2,
	REC_COMM = 3,
	REC_FORK = 7,
	REC_SAMPLE = 9,
	REC_LOST_SAMPLES = 13,
	REC_HEADER_ATTR = 64,
	REC_TRACING_DATA = 66,
	REC_FINISHED_ROUND = 68,
	REC_AUXTRACE = 71,
	REC_COMPRESSED = 81,
};

#define S_IP (1ull << 0)
#define S_TID (1ull << 1)
#define S_TIME (1ull << 2)
#define S_ADDR (1ull << 3)
#define S_READ (1ull << 4)
#define S_CALLCHAIN (1ull << 5)
#define S_ID (1ull << 6)
#define S_CPU (1ull << 7)
#define S_PERIOD (1ull << 8)
#define S_STREAM_ID (1ull << 9)
#define S_RAW (1ull << 10)
#define S_IDENTIFIER (1ull << 16)

/* callchain context markers (PERF_CONTEXT_*): -4095 and above */
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_MAX ((uint64_t)-4095)

#define R_ENABLED (1ull << 0)
#define R_RUNNING (1ull << 1)
#define R_ID (1ull << 2)
#define R_GROUP (1ull << 3)
#define R_LOST (1ull << 4)

enum { FEAT_TRACING_DATA = 1, FEAT_OSRELEASE = 4, FEAT_NRCPUS = 7,
       FEAT_NUMA_TOPOLOGY = 14, FEAT_DIR_FORMAT = 24, FEAT_MAX = 256 };

#define REC_HEADER_FEATURE 80 /* a pipe's feature section as a record */
#define NUMA_NODES_MAX 4096   /* the kernel's MAX_NUMNODES is 1024 */
#define NUMA_RANGES_MAX 1024
#define NUMA_CPU_MAX (1u << 20)
#define NUMA_NAME_ALIGN 64    /* perf pads its strings to this */

#define PERF_TYPE_TRACEPOINT 2

struct pd_attr {
	uint32_t type;
	uint64_t config, sample_type, read_format;
	int sample_id_all;        /* other records end with sample fields */
	uint64_t at;              /* file offset, for messages */
	int kmem;                 /* a kmem tracepoint with its payload */
};

/* A run of entries in time order: the next one and the end. */
struct pd_run {
	size_t at, end;
};

/* One kmem sample of the index. */
struct pd_ent {
	int64_t ts;        /* ties keep the stream's order: the index */
	uint64_t raw;      /* offset of the payload in its buffer */
	uint32_t raw_size;
	uint32_t attr;
	int32_t cpu;
	int32_t tid;       /* MDB_NO_PID when the sample has none */
	uint32_t comm;     /* index + 1 in pd.comms; 0 unknown */
	uint64_t chain;    /* offset of the callchain's first entry */
	uint32_t nchain;   /* its entries, markers included; 0 none */
	int inz;           /* the payload is in the decompressed records */
};

/* A COMM (comm != 0) or FORK record with its time: the task timeline. */
struct pd_tev {
	int64_t ts;
	uint64_t ord;
	uint32_t tid, parent;
	uint32_t comm;     /* index + 1 in pd.comms; 0: a fork */
};

/* A task name of a COMM record, where it lies. */
struct pd_comm {
	uint64_t off;
	uint32_t len;
	int inz;
};

struct pd {
	const char *name;
	struct mdb_cursor all;
	enum mdb_order order;
	int pipe;
	const struct mdb_decode_opts *o;
	struct mdb_decode_stats *st;
	struct mdb_decode_stats st1; /* pass one's counts, until pass two */
	struct mdb_error *e;
	struct pd_attr *attrs;
	size_t nattrs;
	struct u64map ids;  /* sample id -> attribute index */
	uint64_t last_id;   /* the id last looked up, and its attribute */
	uint32_t last_attr;
	int have_last_id;
	int id_pos;         /* u64 index of the id in a sample; -1 none */
	int bound;          /* attributes matched to event formats */
	struct tep_handle *tep;
	int have_tracing;
	struct tep_kmem km;  /* the kmem events of the formats */
	int have_km;
	uint64_t page_size;
	struct pd_ent *ents;
	size_t nents, cap, ents_first;
	size_t *sorted;      /* ents by time, ties in stream order */
	size_t *runs;        /* where ents fall back in time: run starts */
	size_t nruns, runs_cap;
	int32_t maxcpu;
	uint64_t lost, lost_samples; /* sums of LOST and LOST_SAMPLES */
	/* the records of PERF_RECORD_COMPRESSED (perf record -z) */
	ZSTD_DCtx *zd;
	uint8_t *z;
	size_t zlen, zcap, zdone, zmax;
	int in_z;           /* offsets in messages are of that data */
	struct pd_comm *comms;
	size_t ncomms, comms_cap;
	struct u64map comm_of; /* tid -> index + 1 in comms */
	int64_t last_tid;      /* a tid looked up in comm_of, -1 none */
	uint32_t last_comm;    /* its value there */
	struct u64map first_comm; /* tid -> its first name in the stream */
	struct pd_tev *tev;    /* timed COMM and FORK records */
	size_t ntev, tev_cap;
	struct u64map tl;      /* tid -> name, replaying tev in time order */
	int64_t tl_tid;        /* a tid looked up in tl, -1 none */
	uint32_t tl_comm;      /* its value there, 0 absent */
	size_t tev_k;          /* tev applied to tl so far */
	uint64_t data_off, data_end; /* the data section's records */
	/*
	 * Round by round (o->rounds, see pd_round()): pass two runs behind
	 * pass one.  The entries not emitted yet are segments in time order
	 * in a heap; the segments of a flush are the runs walked since the
	 * one before.  Two passes merge the same heap once (pd_sort()).
	 */
	int rounds;
	const struct mdb_sink *sink;
	int64_t round_max;     /* the largest time at the round before */
	int64_t max_ts;        /* the largest time walked */
	int64_t emitted_ts;    /* the time of the last entry emitted */
	uint64_t round_off;    /* where the round being walked began */
	struct pd_run *heap;
	size_t nheap, heap_cap;
	size_t seg_start;      /* first entry in no segment yet */
	size_t runs_used;      /* d->runs already made segments */
	size_t nmerged;        /* entries the segments gave out */
	size_t *chunk;         /* one flush's entries, in order */
	size_t chunk_cap;
	int emit_ret;          /* a payload error, returned after the walk */
	struct u64map nameless; /* tids emitted without a name */
	uint64_t frames[MDB_MAX_STACK]; /* kernel frames of one event */
};

static int pd_err(struct pd *d, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int pd_err(struct pd *d, int code, uint64_t off, const char *fmt, ...)
{
	char msg[sizeof(d->e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mdb_error_set(d->e, code, d->name, (int64_t)off, -1, NULL);
	mdb_error_msg(d->e, "%s%s", msg, d->in_z ? " (offset in the "
		      "decompressed records of perf record -z)" : "");
	return -code;
}

static void pd_warn(struct pd *d, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void pd_warn(struct pd *d, uint64_t off, const char *fmt, ...)
{
	struct mdb_error w;
	char msg[sizeof(w.msg)];
	va_list ap;

	if (!d->o || !d->o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mdb_error_clear(&w);
	mdb_error_set(&w, MDB_E_FORMAT, d->name, (int64_t)off, -1, NULL);
	mdb_error_msg(&w, "%s", msg);
	d->o->warn(d->o->warn_ctx, &w);
}

static int pd_trunc(struct pd *d, const struct mdb_cursor *c,
		    const char *what)
{
	return pd_err(d, MDB_E_TRUNCATED, mdb_cursor_off(c),
		      "perf.data truncated in %s", what);
}

/*
 * Round by round, an event came that the time order puts before one
 * already emitted: the caller reads the file again in two passes
 * (-MDB_E_ORDER), as perf warns "Timestamp below last timeslice flush".
 */
static int pd_reorder(struct pd *d, const char *what)
{
	pd_warn(d, 0, "perf.data %s out of the order of its finished "
		"rounds: read again in two passes", what);
	return mdb_error_set(d->e, MDB_E_ORDER, d->name, -1, -1, NULL);
}

/* ---- header ------------------------------------------------------------ */

static enum mdb_order magic_order(const uint8_t *p, size_t len)
{
	if (len < 8)
		return MDB_ORDER_UNKNOWN;
	if (!memcmp(p, "PERFILE2", 8))
		return MDB_ORDER_LITTLE;
	if (!memcmp(p, "2ELIFREP", 8))
		return MDB_ORDER_BIG;
	return MDB_ORDER_UNKNOWN;
}

int mdb_perf_probe(const void *buf, size_t len)
{
	return magic_order(buf, len) != MDB_ORDER_UNKNOWN;
}

struct pd_sec {
	uint64_t off, size;
};

struct pd_hdr {
	uint64_t attr_size;
	struct pd_sec attrs, data;
	uint64_t feat[FEAT_MAX / 64];
};

static int read_sec(struct pd *d, struct mdb_cursor *c, struct pd_sec *s,
		    const char *what)
{
	uint64_t at = mdb_cursor_off(c);
	struct mdb_cursor w;

	if (mdb_cursor_u64(c, d->order, &s->off) ||
	    mdb_cursor_u64(c, d->order, &s->size))
		return pd_trunc(d, c, "the file header");
	if (mdb_cursor_window(&w, &d->all, s->off, s->size))
		return pd_err(d, MDB_E_CORRUPT, at,
			      "%s section (offset %llu, %llu bytes) runs "
			      "past the end of the file (%zu bytes)", what,
			      (unsigned long long)s->off,
			      (unsigned long long)s->size,
			      mdb_cursor_left(&d->all));
	return 0;
}

/* The magic and size; sets d->order and d->pipe. */
static int pd_magic(struct pd *d, uint64_t *hsize)
{
	struct mdb_cursor c = d->all;

	d->order = magic_order(c.p, mdb_cursor_left(&c));
	if (d->order == MDB_ORDER_UNKNOWN) {
		if (mdb_cursor_left(&c) >= 8 && !memcmp(c.p, "PERFFILE", 8))
			return pd_err(d, MDB_E_VERSION, 0,
				      "perf.data version 1 (PERFFILE): "
				      "written by a perf older than 2.6.37");
		return pd_err(d, MDB_E_FORMAT, 0,
			      "not a perf.data file (no PERFILE2 magic)");
	}
	if (mdb_cursor_skip(&c, 8) || mdb_cursor_u64(&c, d->order, hsize))
		return pd_trunc(d, &c, "the file header");
	if (*hsize == PIPE_HDR_SIZE) {
		d->pipe = 1;
		return 0;
	}
	if (*hsize >= HDR_SIZE && *hsize > mdb_cursor_left(&d->all))
		return pd_err(d, MDB_E_TRUNCATED, mdb_cursor_left(&d->all),
			      "perf.data truncated in its %llu-byte header",
			      (unsigned long long)*hsize);
	if (*hsize < HDR_SIZE)
		return pd_err(d, MDB_E_CORRUPT, 8,
			      "perf.data header size %llu (expected %d, or "
			      "%d for a pipe)", (unsigned long long)*hsize,
			      HDR_SIZE, PIPE_HDR_SIZE);
	return 0;
}

static int pd_header(struct pd *d, struct pd_hdr *h)
{
	struct mdb_cursor c = d->all;
	uint64_t hsize;
	int ret = pd_magic(d, &hsize);

	if (ret < 0 || d->pipe)
		return ret;
	mdb_cursor_skip(&c, 16);
	if (mdb_cursor_u64(&c, d->order, &h->attr_size))
		return pd_trunc(d, &c, "the file header");
	if ((ret = read_sec(d, &c, &h->attrs, "attrs")) < 0 ||
	    (ret = read_sec(d, &c, &h->data, "data")) < 0 ||
	    mdb_cursor_skip(&c, SECTION))
		return ret < 0 ? ret : pd_trunc(d, &c, "the file header");
	for (int i = 0; i < FEAT_MAX / 64; i++)
		if (mdb_cursor_u64(&c, d->order, &h->feat[i]))
			return pd_trunc(d, &c, "the file header");
	if (h->attr_size < ATTR_VER0 + SECTION || h->attr_size > ATTR_MAX ||
	    h->attrs.size % h->attr_size)
		return pd_err(d, MDB_E_CORRUPT, 16,
			      "attr_size %llu does not divide the attrs "
			      "section (%llu bytes) into attributes",
			      (unsigned long long)h->attr_size,
			      (unsigned long long)h->attrs.size);
	return 0;
}

static int feat_set(const struct pd_hdr *h, int bit)
{
	return (int)(h->feat[bit / 64] >> (bit % 64) & 1);
}

/* The section of feature @bit, or -1 (absent) / <-1 (error). */
static int pd_feature(struct pd *d, const struct pd_hdr *h, int bit,
		      struct pd_sec *s)
{
	struct mdb_cursor c;
	uint64_t at = h->data.off + h->data.size;
	int k = 0;

	if (!feat_set(h, bit))
		return -1;
	for (int i = 0; i < bit; i++)
		k += feat_set(h, i);
	if (mdb_cursor_window(&c, &d->all, at, (uint64_t)(k + 1) * SECTION))
		return pd_err(d, MDB_E_TRUNCATED, at,
			      "perf.data truncated before its feature "
			      "sections");
	mdb_cursor_skip(&c, (size_t)k * SECTION);
	return read_sec(d, &c, s, "feature");
}

/* ---- attributes --------------------------------------------------------- */

/*
 * One struct perf_event_attr of @avail bytes at @c; the ids follow it
 * (file: a section; pipe: the rest of the record).  *@asize is the
 * attribute's own size.
 */
static int pd_attr(struct pd *d, struct mdb_cursor *c, uint64_t avail,
		   uint32_t *asize)
{
	struct pd_attr a;
	struct pd_attr *n;
	uint64_t at = mdb_cursor_off(c), period, flags = 0;

	memset(&a, 0, sizeof(a));
	a.at = at;
	if (avail < ATTR_VER0 || mdb_cursor_u32(c, d->order, &a.type) ||
	    mdb_cursor_u32(c, d->order, asize) ||
	    mdb_cursor_u64(c, d->order, &a.config) ||
	    mdb_cursor_u64(c, d->order, &period) ||
	    mdb_cursor_u64(c, d->order, &a.sample_type) ||
	    mdb_cursor_u64(c, d->order, &a.read_format))
		return pd_trunc(d, c, "an event attribute");
	/*
	 * flags, the bit-field after read_format: sample_id_all is bit 18,
	 * counted from the top on a big-endian machine (its ABI lays
	 * bit-fields out from the most significant bit)
	 */
	if (!mdb_cursor_u64(c, d->order, &flags))
		a.sample_id_all = (int)(flags >> (d->order == MDB_ORDER_BIG ?
						  63 - 18 : 18) & 1);
	if (!*asize)
		*asize = ATTR_VER0;
	if (*asize < ATTR_VER0 || *asize > avail)
		return pd_err(d, MDB_E_CORRUPT, at + 4,
			      "event attribute size %u (%d to %llu)", *asize,
			      ATTR_VER0, (unsigned long long)avail);
	if (d->nattrs >= MAX_ATTRS)
		return pd_err(d, MDB_E_LIMIT, at, "more than %d attributes",
			      MAX_ATTRS);
	n = realloc(d->attrs, (d->nattrs + 1) * sizeof(*n));
	if (!n)
		return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1, -1, NULL);
	d->attrs = n;
	d->attrs[d->nattrs++] = a;
	return 0;
}

/* @n sample ids at @c for the last attribute. */
static int pd_ids(struct pd *d, struct mdb_cursor *c, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t id, *v;
		int added;

		if (mdb_cursor_u64(c, d->order, &id))
			return pd_trunc(d, c, "the sample ids");
		v = mdb_u64map_put(&d->ids, id, d->nattrs - 1, &added);
		if (!v)
			return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1,
					     -1, NULL);
		if (!added && *v != d->nattrs - 1)
			return pd_err(d, MDB_E_CORRUPT,
				      mdb_cursor_off(c) - 8,
				      "sample id %llu belongs to two event "
				      "attributes", (unsigned long long)id);
	}
	return 0;
}

static int pd_file_attrs(struct pd *d, const struct pd_hdr *h)
{
	uint64_t n = h->attrs.size / h->attr_size;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t at = h->attrs.off + i * h->attr_size;
		struct mdb_cursor c, ids;
		struct pd_sec s;
		uint32_t asize;
		int ret;

		mdb_cursor_window(&c, &d->all, at, h->attr_size);
		ret = pd_attr(d, &c, h->attr_size - SECTION, &asize);
		if (ret < 0)
			return ret;
		mdb_cursor_window(&c, &d->all, at + h->attr_size - SECTION,
				  SECTION);
		ret = read_sec(d, &c, &s, "sample ids");
		if (ret < 0)
			return ret;
		mdb_cursor_window(&ids, &d->all, s.off, s.size);
		ret = pd_ids(d, &ids, s.size / 8);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* PERF_RECORD_HEADER_ATTR (pipe mode): the attribute, then its ids. */
static int pd_rec_attr(struct pd *d, struct mdb_cursor *c)
{
	uint64_t left = mdb_cursor_left(c), at = mdb_cursor_off(c);
	uint32_t asize;
	int ret;

	if (d->bound)
		return pd_err(d, MDB_E_CORRUPT, mdb_cursor_off(c) - REC_HDR,
			      "event attribute after the first sample");
	ret = pd_attr(d, c, left, &asize);
	if (ret < 0)
		return ret;
	mdb_cursor_window(c, c, at + asize, left - asize);
	return pd_ids(d, c, (left - asize) / 8);
}

/* Where a sample carries its id, the same for every attribute. */
static int id_pos(uint64_t t)
{
	if (t & S_IDENTIFIER)
		return 0;
	if (!(t & S_ID))
		return -1;
	return !!(t & S_IP) + !!(t & S_TID) + !!(t & S_TIME) +
	       !!(t & S_ADDR);
}

static int pd_id_pos(struct pd *d)
{
	if (!d->nattrs)
		return pd_err(d, MDB_E_CORRUPT, 0,
			      "perf.data without event attributes");
	d->id_pos = id_pos(d->attrs[0].sample_type);
	for (size_t i = 1; i < d->nattrs; i++)
		if (d->id_pos < 0 ||
		    id_pos(d->attrs[i].sample_type) != d->id_pos)
			return pd_err(d, MDB_E_CORRUPT, d->attrs[i].at + 24,
				      "event attributes whose samples do "
				      "not carry their id in one place");
	return 0;
}

/* ---- tracing data: the event formats ---------------------------------- */

/* A NUL-terminated string of at most @max bytes. */
static int td_str(struct mdb_cursor *c, size_t max, const char **s)
{
	size_t n = mdb_cursor_left(c) < max ? mdb_cursor_left(c) : max;
	const uint8_t *z = memchr(c->p, '\0', n);

	if (!z)
		return -1;
	*s = (const char *)c->p;
	c->p = z + 1;
	return 0;
}

static int td_skip_sized(struct pd *d, struct mdb_cursor *c, int wide)
{
	uint64_t n;
	uint32_t n32;

	if (wide ? mdb_cursor_u64(c, d->order, &n) :
		   (mdb_cursor_u32(c, d->order, &n32) ? -1 : (n = n32, 0)))
		return -1;
	return n > mdb_cursor_left(c) ? -1 : mdb_cursor_skip(c, (size_t)n);
}

static int td_event(struct pd *d, struct mdb_cursor *c, const char *sys)
{
	uint64_t at = mdb_cursor_off(c), n;
	const uint8_t *p;
	int ret;

	if (mdb_cursor_u64(c, d->order, &n) || n > mdb_cursor_left(c))
		return pd_trunc(d, c, "an event format of the tracing data");
	mdb_cursor_bytes(c, (size_t)n, &p);
	if (strcmp(sys, "kmem"))
		return 0;
	ret = mdb_tep_kmem_parse_format(d->tep, (const char *)p, (size_t)n, sys);
	if (ret)
		pd_warn(d, at + 8, "%s kmem event format: its events are "
			"skipped", ret > 0 ? "malformed" : "libtraceevent "
			"cannot parse a");
	return 0;
}

static int td_systems(struct pd *d, struct mdb_cursor *c)
{
	uint32_t nsys, nev;
	const char *sys;

	if (mdb_cursor_u32(c, d->order, &nsys))
		return pd_trunc(d, c, "the tracing data");
	for (uint32_t i = 0; i < nsys; i++) {
		if (td_str(c, 256, &sys) || mdb_cursor_u32(c, d->order, &nev))
			return pd_trunc(d, c, "the tracing data's systems");
		for (uint32_t j = 0; j < nev; j++) {
			int ret = td_event(d, c, sys);

			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

static int td_preamble(struct pd *d, struct mdb_cursor *c)
{
	static const char magic[10] = "\027\010\104tracing";
	const uint8_t *p;
	const char *ver;
	uint8_t big, lsize;
	uint32_t psize;
	uint64_t at = mdb_cursor_off(c);

	if (mdb_cursor_bytes(c, sizeof(magic), &p) ||
	    memcmp(p, magic, sizeof(magic)))
		return pd_err(d, MDB_E_CORRUPT, at,
			      "tracing data without its magic");
	if (td_str(c, 32, &ver) || mdb_cursor_u8(c, &big) ||
	    mdb_cursor_u8(c, &lsize) || mdb_cursor_u32(c, d->order, &psize))
		return pd_trunc(d, c, "the tracing data's header");
	if (big != (d->order == MDB_ORDER_BIG))
		return pd_err(d, MDB_E_CORRUPT, mdb_cursor_off(c) - 6,
			      "tracing data in another byte order than the "
			      "perf.data header");
	if ((lsize != 4 && lsize != 8) || psize < 512 || psize > 1 << 20 ||
	    (psize & (psize - 1)))
		return pd_err(d, MDB_E_CORRUPT, mdb_cursor_off(c) - 5,
			      "tracing data with long size %u, page size %u",
			      lsize, psize);
	tep_set_long_size(d->tep, lsize);
	tep_set_page_size(d->tep, (int)psize);
	tep_set_file_bigendian(d->tep, big ? TEP_BIG_ENDIAN :
					     TEP_LITTLE_ENDIAN);
	if (!d->page_size)
		d->page_size = psize;
	return 0;
}

/* The tracing data at @c: header page, header event, ftrace, systems. */
static int pd_tracing(struct pd *d, struct mdb_cursor *c)
{
	const char *s;
	uint32_t n;
	int ret;

	if (d->have_tracing)
		return pd_err(d, MDB_E_CORRUPT, mdb_cursor_off(c),
			      "a second tracing data section");
	d->have_tracing = 1;
	ret = td_preamble(d, c);
	if (ret < 0)
		return ret;
	if (td_str(c, 16, &s) || strcmp(s, "header_page") ||
	    td_skip_sized(d, c, 1) || td_str(c, 16, &s) ||
	    strcmp(s, "header_event") || td_skip_sized(d, c, 1))
		return pd_err(d, MDB_E_CORRUPT, mdb_cursor_off(c),
			      "tracing data's header_page or header_event "
			      "missing or cut");
	if (mdb_cursor_u32(c, d->order, &n))
		return pd_trunc(d, c, "the tracing data");
	for (uint32_t i = 0; i < n; i++)
		if (td_skip_sized(d, c, 1))
			return pd_trunc(d, c, "the tracing data's ftrace "
				       "formats");
	return td_systems(d, c);
}

/* ---- binding attributes to formats ------------------------------------ */

/* Is @a a kmem tracepoint whose samples carry its payload? */
static void bind_attr(struct pd *d, struct pd_attr *a)
{
	struct tep_event *ev;

	if (a->type != PERF_TYPE_TRACEPOINT || a->config > 0x7fffffff ||
	    !(ev = tep_find_event(d->tep, (int)a->config)) || !ev->system ||
	    strcmp(ev->system, "kmem"))
		return;
	if (!(a->sample_type & S_RAW)) {
		pd_warn(d, a->at, "kmem:%s samples without their raw data: "
			"skipped", ev->name);
		return;
	}
	a->kmem = 1;
}

/*
 * Once, at the first sample: ids and formats are all known by then.  The
 * payloads are read by tep_kmem.c, by field name.
 */
static int pd_bind(struct pd *d)
{
	int ret = pd_id_pos(d);

	if (ret < 0)
		return ret;
	if (d->have_tracing) {
		ret = mdb_tep_kmem_init(&d->km, d->tep, d->page_size ?
					d->page_size : 4096, d->name, d->e);
		if (ret < 0)
			return ret;
		d->have_km = 1;
	}
	for (size_t i = 0; d->have_km && i < d->nattrs; i++)
		bind_attr(d, &d->attrs[i]);
	d->bound = 1;
	return 0;
}

/* ---- samples ------------------------------------------------------------ */

struct pd_sample {
	uint32_t attr;
	int64_t ts;
	int32_t cpu;
	int32_t tid;
	uint64_t raw;       /* file offset of the payload */
	uint32_t raw_size;
	uint64_t chain;     /* offset of the callchain's entries */
	uint32_t nchain;
};

static int pd_sample_attr(struct pd *d, const struct mdb_cursor *body,
			  uint32_t *attr)
{
	struct mdb_cursor c = *body;
	uint64_t id, *v;

	*attr = 0;
	if (d->id_pos < 0)
		return 0;
	if (mdb_cursor_skip(&c, (size_t)d->id_pos * 8) ||
	    mdb_cursor_u64(&c, d->order, &id))
		return pd_trunc(d, &c, "a sample's id");
	if (d->have_last_id && id == d->last_id) {
		*attr = d->last_attr;
		return 0;
	}
	v = mdb_u64map_get(&d->ids, id);
	if (!v)
		return pd_err(d, MDB_E_CORRUPT, mdb_cursor_off(&c) - 8,
			      "sample id %llu of no event attribute",
			      (unsigned long long)id);
	*attr = (uint32_t)*v;
	d->last_id = id;
	d->last_attr = *attr;
	d->have_last_id = 1;
	return 0;
}

static int skip_read(struct pd *d, struct mdb_cursor *c, uint64_t rf)
{
	uint64_t per = 8 + (rf & R_ID ? 8 : 0) + (rf & R_LOST ? 8 : 0);
	uint64_t nr = 1;
	size_t head = (rf & R_ENABLED ? 8 : 0) + (rf & R_RUNNING ? 8 : 0);

	if ((rf & R_GROUP) && mdb_cursor_u64(c, d->order, &nr))
		return -1;
	if (mdb_cursor_skip(c, head) || nr > mdb_cursor_left(c) / per)
		return -1;
	return mdb_cursor_skip(c, (size_t)(nr * per));
}

static int read_callchain(struct pd *d, struct mdb_cursor *c,
			  struct pd_sample *s)
{
	uint64_t nr;

	if (mdb_cursor_u64(c, d->order, &nr) || nr > mdb_cursor_left(c) / 8)
		return -1;
	s->chain = mdb_cursor_off(c);
	s->nchain = nr > UINT32_MAX ? UINT32_MAX : (uint32_t)nr;
	return mdb_cursor_skip(c, (size_t)nr * 8);
}

/* The fields of a sample up to RAW, in the kernel's order. */
static int pd_sample_fields(struct pd *d, struct mdb_cursor *c,
			    const struct pd_attr *a, struct pd_sample *s)
{
	uint64_t t = a->sample_type, ts;
	uint32_t cpu, n, pid, tid;

	s->ts = MDB_NO_TS;
	s->cpu = -1;
	s->tid = MDB_NO_PID;
	if (((t & S_IDENTIFIER) && mdb_cursor_skip(c, 8)) ||
	    ((t & S_IP) && mdb_cursor_skip(c, 8)))
		return pd_trunc(d, c, "a sample");
	if (t & S_TID) {
		if (mdb_cursor_u32(c, d->order, &pid) ||
		    mdb_cursor_u32(c, d->order, &tid))
			return pd_trunc(d, c, "a sample's pid and tid");
		s->tid = tid > INT32_MAX ? MDB_NO_PID : (int32_t)tid;
	}
	if (t & S_TIME) {
		if (mdb_cursor_u64(c, d->order, &ts))
			return pd_trunc(d, c, "a sample's time");
		s->ts = ts > INT64_MAX ? INT64_MAX : (int64_t)ts;
	}
	if (((t & S_ADDR) && mdb_cursor_skip(c, 8)) ||
	    ((t & S_ID) && mdb_cursor_skip(c, 8)) ||
	    ((t & S_STREAM_ID) && mdb_cursor_skip(c, 8)))
		return pd_trunc(d, c, "a sample");
	if (t & S_CPU) {
		if (mdb_cursor_u32(c, d->order, &cpu) || mdb_cursor_skip(c, 4))
			return pd_trunc(d, c, "a sample's cpu");
		s->cpu = cpu > 1u << 20 ? -1 : (int32_t)cpu;
	}
	if (((t & S_PERIOD) && mdb_cursor_skip(c, 8)) ||
	    ((t & S_READ) && skip_read(d, c, a->read_format)))
		return pd_trunc(d, c, "a sample's read values");
	if ((t & S_CALLCHAIN) && read_callchain(d, c, s))
		return pd_trunc(d, c, "a sample's callchain");
	if (!(t & S_RAW))
		return 0;
	if (mdb_cursor_u32(c, d->order, &n) || n > mdb_cursor_left(c))
		return pd_trunc(d, c, "a sample's raw data");
	s->raw = mdb_cursor_off(c);
	s->raw_size = n;
	return 0;
}

/* A run of samples in time order starts at the next entry. */
static int pd_run_add(struct pd *d)
{
	if (d->nruns == d->runs_cap) {
		size_t cap = d->runs_cap ? 2 * d->runs_cap : 64;
		size_t *n = realloc(d->runs, cap * sizeof(*n));

		if (!n)
			return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1,
					     -1, NULL);
		d->runs = n;
		d->runs_cap = cap;
	}
	d->runs[d->nruns++] = d->nents;
	return 0;
}

static int pd_index_add(struct pd *d, const struct pd_sample *s)
{
	/*
	 * 56 bytes a sample, the largest array of the pass (hugemem.h):
	 * sized at first for a sample every 64 bytes of the file (perf kmem
	 * record writes 116), up to ENTS_FIRST_MAX, so it seldom has to
	 * grow.
	 */
	if (MDB_HUGE_GROW(d->ents, d->nents, d->cap, d->ents_first))
		return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1, -1,
				     NULL);
	if ((!d->nents || s->ts < d->ents[d->nents - 1].ts) &&
	    pd_run_add(d) < 0)
		return -MDB_E_NOMEM;
	if (d->rounds) {
		if (s->ts == MDB_NO_TS || s->ts < d->emitted_ts)
			return pd_reorder(d, "sample");
		if (s->ts > d->max_ts)
			d->max_ts = s->ts;
	}
	d->ents[d->nents] = (struct pd_ent){
		.ts = s->ts, .raw = s->raw,
		.raw_size = s->raw_size, .attr = s->attr, .cpu = s->cpu,
		.tid = s->tid, .chain = s->chain, .nchain = s->nchain,
		.inz = d->in_z,
	};
	if (s->tid != MDB_NO_PID && s->tid != d->last_tid) {
		uint64_t *v = mdb_u64map_get(&d->comm_of, (uint64_t)s->tid);

		d->last_tid = s->tid;
		d->last_comm = v ? (uint32_t)*v : 0;
	}
	if (s->tid != MDB_NO_PID)
		d->ents[d->nents].comm = d->last_comm;
	d->nents++;
	return 0;
}

static int pd_rec_sample(struct pd *d, struct mdb_cursor *c)
{
	struct pd_sample s = { 0 };
	int ret;

	if (!d->bound && (ret = pd_bind(d)) < 0)
		return ret;
	ret = pd_sample_attr(d, c, &s.attr);
	if (ret < 0)
		return ret;
	ret = pd_sample_fields(d, c, &d->attrs[s.attr], &s);
	if (ret < 0)
		return ret;
	if (!d->attrs[s.attr].kmem) {
		d->st->unknown++;
		return 0;
	}
	if (s.cpu > d->maxcpu)
		d->maxcpu = s.cpu;
	return pd_index_add(d, &s);
}

/* ---- records ------------------------------------------------------------ */

/*
 * The time of a non-sample record whose rest is at @c: with
 * sample_id_all, the record ends with the sample fields TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER its attribute selects.  MDB_NO_TS if none.
 */
static int64_t pd_rec_time(const struct pd *d, const struct mdb_cursor *c)
{
	uint64_t t, ts;
	size_t tail = 8, left = mdb_cursor_left(c);

	if (!d->nattrs || !d->attrs[0].sample_id_all)
		return MDB_NO_TS;
	t = d->attrs[0].sample_type;
	if (!(t & S_TIME))
		return MDB_NO_TS;
	tail += (size_t)__builtin_popcountll(t & (S_ID | S_STREAM_ID |
						  S_CPU | S_IDENTIFIER)) * 8;
	if (left < tail + (t & S_TID ? 8 : 0))
		return MDB_NO_TS;
	ts = get_u64((const uint8_t *)c->p + left - tail, d->order);
	return ts > INT64_MAX ? INT64_MAX : (int64_t)ts;
}

/* Queue a timed COMM or FORK record for the replay of pd_emit(). */
static int pd_tev_add(struct pd *d, int64_t ts, uint32_t tid,
		      uint32_t parent, uint32_t comm)
{
	if (ts == MDB_NO_TS)
		return 0;
	/* pass two applies the records of time <= an event's before it */
	if (d->rounds && ts <= d->emitted_ts)
		return pd_reorder(d, "task record");
	if (d->ntev == d->tev_cap) {
		size_t cap = d->tev_cap ? 2 * d->tev_cap : 256;
		struct pd_tev *n = realloc(d->tev, cap * sizeof(*n));

		if (!n)
			return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1,
					     -1, NULL);
		d->tev = n;
		d->tev_cap = cap;
	}
	d->tev[d->ntev] = (struct pd_tev){ .ts = ts, .ord = d->ntev,
					   .tid = tid, .parent = parent,
					   .comm = comm };
	d->ntev++;
	return 0;
}

/*
 * Task @tid is called comms[@comm - 1] from here on.  Its first name is
 * kept apart too: records of one time are written per CPU, so a sample
 * may come before the FORK or COMM record that names its task; such a
 * sample takes the first name its task gets.
 */
static int pd_name_task(struct pd *d, uint32_t tid, uint64_t comm)
{
	uint64_t *v;
	int added;

	v = mdb_u64map_put(&d->comm_of, tid, 0, &added);
	if (!v)
		return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1, -1, NULL);
	*v = comm;
	d->last_tid = -1;
	v = mdb_u64map_put(&d->first_comm, tid, comm, &added);
	if (!v)
		return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1, -1, NULL);
	/* a sample of the task went out nameless: it has a name now */
	if (d->rounds && added && mdb_u64map_get(&d->nameless, tid))
		return pd_reorder(d, "task name");
	return 0;
}

/*
 * PERF_RECORD_FORK: u32 pid, ppid, tid, ptid, u64 time.  The new task
 * has its parent's name until a COMM record names it.
 */
static int pd_rec_fork(struct pd *d, struct mdb_cursor *c)
{
	uint32_t pid, ppid, tid, ptid;
	uint64_t *v, comm;
	int ret;

	if (mdb_cursor_u32(c, d->order, &pid) ||
	    mdb_cursor_u32(c, d->order, &ppid) ||
	    mdb_cursor_u32(c, d->order, &tid) ||
	    mdb_cursor_u32(c, d->order, &ptid))
		return pd_trunc(d, c, "a fork record");
	ret = pd_tev_add(d, pd_rec_time(d, c), tid, ptid, 0);
	if (ret < 0)
		return ret; /* out of memory, or out of the rounds' order */
	v = mdb_u64map_get(&d->comm_of, ptid);
	if (!v)
		return 0;
	comm = *v;
	return pd_name_task(d, tid, comm);
}

/*
 * PERF_RECORD_COMM: u32 pid, u32 tid, the task name NUL-padded to 8
 * bytes.  The samples that follow it in the stream are the task's under
 * that name (a sample keeps the name its task had where it was read).
 */
static int pd_rec_comm(struct pd *d, struct mdb_cursor *c)
{
	uint32_t pid, tid;
	const uint8_t *p;
	size_t left;
	int ret;

	if (mdb_cursor_u32(c, d->order, &pid) ||
	    mdb_cursor_u32(c, d->order, &tid))
		return pd_trunc(d, c, "a comm record");
	left = mdb_cursor_left(c);
	p = (const uint8_t *)c->p;
	if (d->ncomms == d->comms_cap) {
		size_t cap = d->comms_cap ? 2 * d->comms_cap : 256;
		struct pd_comm *n = realloc(d->comms, cap * sizeof(*n));

		if (!n)
			return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1,
					     -1, NULL);
		d->comms = n;
		d->comms_cap = cap;
	}
	d->comms[d->ncomms] = (struct pd_comm){
		.off = mdb_cursor_off(c),
		.len = (uint32_t)strnlen((const char *)p, left > 16 ? 16 : left),
		.inz = d->in_z,
	};
	ret = pd_tev_add(d, pd_rec_time(d, c), tid, 0,
			 (uint32_t)d->ncomms + 1);
	if (ret < 0)
		return ret; /* out of memory, or out of the rounds' order */
	return pd_name_task(d, tid, ++d->ncomms);
}

/*
 * PERF_RECORD_LOST: events the ring buffer dropped.  LOST_SAMPLES: perf
 * (6.0 on) also writes, at the end, each event's own count of dropped
 * samples (read_format LOST): the same losses counted again, so the
 * larger of the two sums is the number lost.
 */
static int pd_rec_lost(struct pd *d, struct mdb_cursor *c, int samples)
{
	uint64_t lost;

	if ((!samples && mdb_cursor_skip(c, 8)) ||
	    mdb_cursor_u64(c, d->order, &lost))
		return pd_trunc(d, c, "a lost-events record");
	if (samples)
		d->lost_samples += lost;
	else
		d->lost += lost;
	return 0;
}

/*
 * Records whose data follows them outside their size: pipe-mode tracing
 * data and AUXTRACE.  *@extra is that data's length.
 */
static int pd_rec_trailer(struct pd *d, struct mdb_cursor *c, uint32_t type,
			  const struct mdb_cursor *after, uint64_t *extra)
{
	struct mdb_cursor t;
	uint32_t n32;
	uint64_t n;

	if (type == REC_TRACING_DATA) {
		if (mdb_cursor_u32(c, d->order, &n32))
			return pd_trunc(d, c, "a tracing-data record");
		n = n32;
	} else if (mdb_cursor_u64(c, d->order, &n)) {
		return pd_trunc(d, c, "an auxtrace record");
	}
	if (n > mdb_cursor_left(after))
		return pd_err(d, MDB_E_TRUNCATED, mdb_cursor_off(after),
			      "perf.data truncated in the %llu bytes after "
			      "a %s record", (unsigned long long)n,
			      type == REC_TRACING_DATA ? "tracing-data" :
							 "auxtrace");
	*extra = n;
	if (type != REC_TRACING_DATA)
		return 0;
	mdb_cursor_window(&t, after, mdb_cursor_off(after), n);
	return pd_tracing(d, &t);
}

static int pd_walk(struct pd *d, const struct mdb_cursor *buf, uint64_t off,
		   uint64_t end);
static int pd_round(struct pd *d);

/* Walk the complete records decompressed so far. */
static int pd_z_walk(struct pd *d)
{
	struct mdb_cursor zall;
	size_t end = d->zdone;
	int ret;

	while (d->zlen - end >= REC_HDR) {
		uint16_t size = get_u16(d->z + end + 6, d->order);

		if (size < REC_HDR) {
			end = d->zlen; /* pd_walk says what is wrong */
			break;
		}
		if (size > d->zlen - end)
			break;
		end += size;
	}
	if (end == d->zdone)
		return 0;
	mdb_cursor_init(&zall, d->z, d->zlen);
	d->in_z = 1;
	ret = pd_walk(d, &zall, d->zdone, end);
	d->in_z = 0;
	d->zdone = end;
	return ret;
}

static int pd_z_grow(struct pd *d, uint64_t at)
{
	size_t need = d->zlen + ZSTD_DStreamOutSize(), cap;
	uint8_t *n;

	if (d->zcap - d->zlen >= ZSTD_DStreamOutSize())
		return 0;
	cap = d->zcap * 2 > need ? d->zcap * 2 : need;
	if (cap > d->zmax)
		cap = d->zmax;
	if (cap < need)
		return pd_err(d, MDB_E_LIMIT, at, "compressed records expand "
			      "to more than %zu bytes", d->zmax);
	n = realloc(d->z, cap);
	if (!n)
		return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1, -1, NULL);
	d->z = n;
	d->zcap = cap;
	return 0;
}

/*
 * PERF_RECORD_COMPRESSED: zstd frames of records, appended to one buffer
 * (a record may span two of them) and walked as they complete.
 */
static int pd_rec_compressed(struct pd *d, struct mdb_cursor *body)
{
	uint64_t at = mdb_cursor_off(body) - REC_HDR;
	ZSTD_inBuffer in = { body->p, mdb_cursor_left(body), 0 };

	if (d->in_z)
		return pd_err(d, MDB_E_CORRUPT, at, "a compressed record "
			      "inside compressed records");
	if (!d->zd && !(d->zd = ZSTD_createDCtx()))
		return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1, -1, NULL);
	while (in.pos < in.size) {
		ZSTD_outBuffer out;
		size_t r;
		int ret = pd_z_grow(d, at);

		if (ret < 0)
			return ret;
		out = (ZSTD_outBuffer){ d->z, d->zcap, d->zlen };
		r = ZSTD_decompressStream(d->zd, &out, &in);
		if (ZSTD_isError(r))
			return pd_err(d, MDB_E_CORRUPT, at, "compressed record "
				      "that zstd cannot read: %s",
				      ZSTD_getErrorName(r));
		d->zlen = out.pos;
	}
	return pd_z_walk(d);
}

static int pd_record(struct pd *d, uint32_t type, struct mdb_cursor *body,
		     const struct mdb_cursor *after, uint64_t *extra)
{
	switch (type) {
	case REC_SAMPLE:
		return pd_rec_sample(d, body);
	case REC_LOST:
		return pd_rec_lost(d, body, 0);
	case REC_COMM:
		return pd_rec_comm(d, body);
	case REC_FORK:
		return pd_rec_fork(d, body);
	case REC_LOST_SAMPLES:
		return pd_rec_lost(d, body, 1);
	case REC_HEADER_ATTR:
		return pd_rec_attr(d, body);
	case REC_TRACING_DATA:
	case REC_AUXTRACE:
		return pd_rec_trailer(d, body, type, after, extra);
	case REC_COMPRESSED:
		return pd_rec_compressed(d, body);
	case REC_FINISHED_ROUND:
		return d->rounds ? pd_round(d) : 0;
	default:
		return 0;
	}
}

/*
 * A round ended at @at and was flushed: every entry of the rounds before
 * it was emitted (their times are at most the bound), so the file before
 * this round's first record is not read again and its pages can go.
 */
static void pd_round_done(struct pd *d, uint64_t at)
{
	if (d->o && d->o->done && d->round_off > d->data_off)
		d->o->done(d->o->done_ctx, (size_t)d->round_off);
	d->round_off = at;
}

/* Pass one over the records of [@off, @end). */
static int pd_walk(struct pd *d, const struct mdb_cursor *buf, uint64_t off,
		   uint64_t end)
{
	struct mdb_cursor c;

	mdb_cursor_window(&c, buf, off, end - off);
	while (mdb_cursor_left(&c)) {
		struct mdb_cursor body, after;
		uint64_t at = mdb_cursor_off(&c), extra = 0;
		uint32_t type;
		uint16_t misc, size;
		int ret;

		if (mdb_cursor_u32(&c, d->order, &type) ||
		    mdb_cursor_u16(&c, d->order, &misc) ||
		    mdb_cursor_u16(&c, d->order, &size))
			return pd_trunc(d, &c, "a record header");
		if (size < REC_HDR)
			return pd_err(d, MDB_E_CORRUPT, at,
				      "record of type %u with size %u", type,
				      size);
		if ((size_t)(size - REC_HDR) > mdb_cursor_left(&c))
			return pd_err(d, MDB_E_TRUNCATED, at,
				      "perf.data truncated in a record of "
				      "type %u (size %u, %zu bytes left)",
				      type, size, mdb_cursor_left(&c) + 8);
		mdb_cursor_window(&body, &c, mdb_cursor_off(&c),
				  size - REC_HDR);
		mdb_cursor_skip(&c, size - REC_HDR);
		after = c;
		ret = pd_record(d, type, &body, &after, &extra);
		if (ret < 0)
			return ret;
		if (type == REC_FINISHED_ROUND && d->rounds && !d->in_z)
			pd_round_done(d, at);
		mdb_cursor_skip(&c, (size_t)extra);
		d->st->records++;
		/* the share of the data section read, as a share of the
		 * file (the features after the data are not read here) */
		if (d->rounds && !d->in_z && d->o && d->o->progress &&
		    d->data_end > d->data_off)
			atomic_store_explicit(d->o->progress,
				(uint64_t)((double)(d->all.end -
				d->all.start) * (double)(mdb_cursor_off(&c) -
				d->data_off) / (double)(d->data_end -
				d->data_off)), memory_order_relaxed);
	}
	return 0;
}

/* ---- pass two: payloads to events --------------------------------------- */

/*
 * The kernel frames of @en's callchain into d->frames, innermost first:
 * the entries under PERF_CONTEXT_KERNEL (or before any marker), the
 * markers themselves skipped.
 */
static uint32_t pd_frames(struct pd *d, const struct pd_ent *en)
{
	const uint8_t *base = en->inz ? d->z : d->all.start;
	int kernel = 1;
	uint32_t n = 0;

	for (uint32_t i = 0; i < en->nchain && n < MDB_MAX_STACK; i++) {
		uint64_t ip = get_u64(base + en->chain + (size_t)i * 8,
				      d->order);

		if (ip >= CTX_MAX) {
			kernel = ip == CTX_KERNEL;
			continue;
		}
		if (kernel)
			d->frames[n++] = ip;
	}
	return n;
}

/* pid, comm and stack of @en into @ev; -1: out of memory. */
static int pd_task(struct pd *d, const struct pd_ent *en,
		   struct mdb_event *ev)
{
	uint32_t comm = en->comm;
	int added;

	if (en->tid != MDB_NO_PID) {
		if (en->tid != d->tl_tid) {
			uint64_t *t = mdb_u64map_get(&d->tl, (uint64_t)en->tid);

			d->tl_tid = en->tid;
			d->tl_comm = t ? (uint32_t)*t : 0;
		}
		ev->pid = en->tid;
		if (d->tl_comm)
			comm = d->tl_comm;
		if (!comm) {
			uint64_t *v = mdb_u64map_get(&d->first_comm,
						     (uint64_t)en->tid);

			comm = v ? (uint32_t)*v : 0;
		}
		/* a name walked later would have been this one's */
		if (!comm && d->rounds &&
		    !mdb_u64map_put(&d->nameless, (uint64_t)en->tid, 1, &added))
			return -1;
	}
	if (comm) {
		const struct pd_comm *c = &d->comms[comm - 1];

		ev->comm.p = (const char *)(c->inz ? d->z : d->all.start) +
			     c->off;
		ev->comm.len = c->len;
	}
	ev->nstack = pd_frames(d, en);
	ev->stack = ev->nstack ? d->frames : NULL;
	return 0;
}

/*
 * Apply the COMM and FORK records of time <= @ts not applied yet (from
 * d->tev_k on, d->tev sorted by time) to the timeline d->tl, as perf
 * does when it reads the records in time order.  -1: out of memory.
 */
static int pd_replay(struct pd *d, int64_t ts)
{
	for (; d->tev_k < d->ntev && d->tev[d->tev_k].ts <= ts; d->tev_k++) {
		const struct pd_tev *t = &d->tev[d->tev_k];
		uint64_t comm = t->comm, *v;
		int added;

		if (!comm) {
			v = mdb_u64map_get(&d->tl, t->parent);
			if (!v)
				continue;
			comm = *v;
		}
		v = mdb_u64map_put(&d->tl, t->tid, 0, &added);
		if (!v)
			return -1;
		*v = comm;
		d->tl_tid = -1;
	}
	return 0;
}

/*
 * Entries are emitted in time order, which is not the stream's: each
 * entry and its payload would be a cache miss, and so would the pairing's
 * lookup of the event's address.  So pass two asks for the entry
 * PD_AHEAD places on and the payload (both its ends) of the one
 * PD_AHEAD / 2 on, and decodes PD_RING events ahead of the sink, telling
 * it of each (its ahead()).
 */
#define PD_AHEAD 32
#define PD_RING 8

/* Entry idx[@i] of the @n to emit is next. */
static inline void pd_prefetch(const struct pd *d, const size_t *idx,
			       size_t n, size_t i)
{
	if (i + PD_AHEAD < n)
		mdb_prefetch(&d->ents[idx[i + PD_AHEAD]]);
	if (i + PD_AHEAD / 2 < n) {
		const struct pd_ent *en = &d->ents[idx[i + PD_AHEAD / 2]];
		const uint8_t *raw = (en->inz ? d->z : d->all.start) + en->raw;

		mdb_prefetch(raw);
		mdb_prefetch(raw + (en->raw_size ? en->raw_size - 1 : 0));
	}
}

/* An event decoded ahead: mdb_tep_kmem_event()'s result and event. */
struct pd_dec {
	int ret;
	struct mdb_event ev;
};

static void pd_decode(struct pd *d, size_t ent, struct pd_dec *x,
		      const struct mdb_sink *sink)
{
	const struct pd_ent *en = &d->ents[ent];
	const uint8_t *raw = (en->inz ? d->z : d->all.start) + en->raw;

	mdb_event_init(&x->ev);
	x->ret = mdb_tep_kmem_event(&d->km, raw, en->raw_size, &x->ev);
	if (x->ret > 0 && sink->ahead)
		sink->ahead(sink->ctx, &x->ev);
}

/* Pass two: the entries idx[0..@n), in that order, to @sink. */
static int pd_emit(struct pd *d, const struct mdb_sink *sink,
		   const size_t *idx, size_t n)
{
	struct pd_dec ring[PD_RING];

	for (size_t i = 0; i < PD_RING && i < n; i++)
		pd_decode(d, idx[i], &ring[i], sink);
	for (size_t i = 0; i < n; i++) {
		const struct pd_ent *en = &d->ents[idx[i]];
		struct pd_dec *x = &ring[i % PD_RING];
		int ret;

		pd_prefetch(d, idx, n, i);
		if (d->o && d->o->progress && !d->rounds && !(i & 255))
			atomic_store_explicit(d->o->progress,
				(uint64_t)((double)(d->all.end -
				d->all.start) * (double)i / (double)n),
				memory_order_relaxed);
		if (pd_replay(d, en->ts) < 0)
			return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1,
					     -1, NULL);
		d->in_z = en->inz;
		if (x->ret < 0) {
			/* later events older than this one: out of order */
			d->emitted_ts = en->ts;
			ret = pd_err(d, MDB_E_CORRUPT, en->raw, "kmem raw data "
				     "of %u bytes without room for the fields "
				     "its format names", en->raw_size);
			if (d->rounds)
				d->emit_ret = ret;
			return ret;
		}
		if (!x->ret) { /* a kmem event memdb does not read */
			d->st->unknown++;
		} else {
			x->ev.seq = (int64_t)++d->st->events;
			x->ev.ts = en->ts;
			x->ev.cpu = en->cpu < 0 ? 0 : en->cpu;
			if (pd_task(d, en, &x->ev) < 0)
				return mdb_error_set(d->e, MDB_E_NOMEM,
						     d->name, -1, -1, NULL);
			ret = sink->event(sink->ctx, &x->ev);
			if (ret < 0)
				return ret;
		}
		d->emitted_ts = en->ts;
		if (i + PD_RING < n)
			pd_decode(d, idx[i + PD_RING], x, sink);
	}
	return 0;
}

/* What pass two counted when it is over. */
static void pd_emitted(struct pd *d)
{
	if (d->st->events) {
		d->st->first_seq = 1;
		d->st->last_seq = (int64_t)d->st->events;
	}
	d->st->ncpus = d->maxcpu + 1;
}

static int tev_cmp(const void *pa, const void *pb)
{
	const struct pd_tev *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->ord < b->ord ? -1 : a->ord > b->ord;
}

/* Does run @a's next entry come before run @b's (time, then stream)? */
static inline int run_before(const struct pd_ent *ents, const struct pd_run *a,
			     const struct pd_run *b)
{
	int64_t ta = ents[a->at].ts, tb = ents[b->at].ts;

	return ta < tb || (ta == tb && a->at < b->at);
}

MDB_HEAP_SIFT_DOWN(heap_down, struct pd_run, const struct pd_ent *, run_before)

/*
 * d->sorted: the entries stably by time, ties in stream order.  perf
 * writes each CPU's buffer a round at a time, so the stream is a few
 * runs already in time order (53 in 550,000 samples of a 2-CPU perf
 * kmem record), which pass one noted (d->runs); they are merged through
 * a heap of their heads.  qsort() of the 64-byte entries took a fifth of
 * the decoding.
 */
/*
 * The runs walked since the last call (d->runs from d->runs_used, the
 * entries from d->seg_start) join the heap of segments not merged yet.
 */
static int pd_segments(struct pd *d)
{
	size_t at = d->seg_start;

	for (; d->runs_used <= d->nruns; d->runs_used++) {
		size_t end = d->runs_used < d->nruns ? d->runs[d->runs_used] :
						       d->nents;

		if (end <= at)
			continue;
		if (MDB_GROW(d->heap, d->nheap, d->heap_cap, 64))
			return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1,
					     -1, NULL);
		d->heap[d->nheap++] = (struct pd_run){ at, end };
		at = end;
	}
	d->runs_used = d->nruns;
	d->seg_start = d->nents;
	for (size_t i = d->nheap / 2; i-- > 0;)
		heap_down(d->ents, d->heap, d->nheap, i);
	return 0;
}

/*
 * Merge the segments' entries of time <= @bound into @out (room for all
 * not merged yet), in time order, ties in stream order; how many.
 */
static size_t pd_merge(struct pd *d, int64_t bound, size_t *out)
{
	size_t k = 0;

	while (d->nheap && d->ents[d->heap[0].at].ts <= bound) {
		out[k++] = d->heap[0].at++;
		if (d->heap[0].at == d->heap[0].end)
			d->heap[0] = d->heap[--d->nheap];
		heap_down(d->ents, d->heap, d->nheap, 0);
	}
	d->nmerged += k;
	return k;
}

/* Two passes: every entry into d->sorted, in time order. */
static int pd_sort(struct pd *d)
{
	int ret = pd_segments(d);

	if (ret < 0)
		return ret;
	d->sorted = mdb_huge_alloc(d->nents ? d->nents : 1, sizeof(*d->sorted));
	if (!d->sorted)
		return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1, -1, NULL);
	pd_merge(d, INT64_MAX, d->sorted);
	return 0;
}

/*
 * Round by round, after a flush: the entries before every segment's
 * next one were emitted, and are not read again.  Once they are at
 * least half the array, the others move to its start, so the array
 * holds what the rounds have not emitted yet rather than the whole file
 * (every new page of it is zeroed by the kernel as it is first touched,
 * on the decoding thread, and it was most of the decoder's memory).
 */
static void pd_compact(struct pd *d)
{
	size_t lo = d->nents;

	for (size_t i = 0; i < d->nheap; i++)
		if (d->heap[i].at < lo)
			lo = d->heap[i].at;
	if (!lo || lo < d->nents - lo)
		return;
	memmove(d->ents, d->ents + lo, (d->nents - lo) * sizeof(*d->ents));
	for (size_t i = 0; i < d->nheap; i++) {
		d->heap[i].at -= lo;
		d->heap[i].end -= lo;
	}
	for (size_t i = d->runs_used; i < d->nruns; i++)
		d->runs[i] -= lo;
	d->nents -= lo;
	d->seg_start -= lo;
	d->nmerged -= lo;
}

/*
 * Round by round: emit, in time order, the entries of time <= @bound
 * not emitted yet.  A payload error is kept for the end of the walk
 * (d->emit_ret), as pass one's errors come first in two passes.
 */
static int pd_flush(struct pd *d, int64_t bound)
{
	int in_z = d->in_z, ret = pd_segments(d);
	size_t k;

	if (ret < 0)
		return ret;
	while (d->chunk_cap < d->nents - d->nmerged)
		if (MDB_GROW(d->chunk, d->chunk_cap, d->chunk_cap, 4096))
			return mdb_error_set(d->e, MDB_E_NOMEM, d->name, -1,
					     -1, NULL);
	k = pd_merge(d, bound, d->chunk);
	if (!k || d->emit_ret < 0)
		return 0;
	/* the task records of the flush, in time order for pd_replay() */
	if (d->ntev - d->tev_k > 1)
		qsort(d->tev + d->tev_k, d->ntev - d->tev_k, sizeof(*d->tev),
		      tev_cmp);
	ret = pd_emit(d, d->sink, d->chunk, k);
	d->in_z = in_z;
	pd_compact(d);
	return d->emit_ret < 0 ? 0 : ret;
}

/*
 * PERF_RECORD_FINISHED_ROUND.  perf writes every CPU's buffer a round at
 * a time, so at the end of a round no event to come is older than the
 * newest one of the round before: those up to it can be emitted, as
 * perf's own ordered-events queue does.  Whether the file keeps to that
 * is checked on each event walked after (pd_reorder()).
 */
static int pd_round(struct pd *d)
{
	int64_t bound = d->round_max;

	d->round_max = d->max_ts;
	return bound == INT64_MIN ? 0 : pd_flush(d, bound);
}

/* ---- the decoder -------------------------------------------------------- */

static int pd_file(struct pd *d)
{
	struct pd_hdr h;
	struct pd_sec s;
	struct mdb_cursor c;
	int ret = pd_header(d, &h);

	if (ret < 0 || d->pipe)
		return ret;
	if (feat_set(&h, FEAT_DIR_FORMAT))
		return pd_err(d, MDB_E_VERSION, 72,
			      "perf.data of `perf record --threads` (a "
			      "directory of per-thread files) is not "
			      "supported");
	ret = pd_file_attrs(d, &h);
	if (ret < 0)
		return ret;
	ret = pd_feature(d, &h, FEAT_TRACING_DATA, &s);
	if (ret < -1)
		return ret;
	if (ret == 0) {
		mdb_cursor_window(&c, &d->all, s.off, s.size);
		ret = pd_tracing(d, &c);
		if (ret < 0)
			return ret;
	}
	d->data_off = h.data.off;
	d->data_end = h.data.off + h.data.size;
	return 0;
}

static void pd_release(struct pd *d)
{
	if (d->tep)
		tep_free(d->tep);
	mdb_u64map_release(&d->ids);
	if (d->have_km)
		mdb_tep_kmem_release(&d->km);
	ZSTD_freeDCtx(d->zd);
	free(d->z);
	free(d->attrs);
	mdb_huge_free(d->ents, d->cap, sizeof(*d->ents));
	mdb_huge_free(d->sorted, d->nents ? d->nents : 1, sizeof(*d->sorted));
	free(d->runs);
	free(d->comms);
	free(d->tev);
	mdb_u64map_release(&d->tl);
	mdb_u64map_release(&d->comm_of);
	mdb_u64map_release(&d->first_comm);
	mdb_u64map_release(&d->nameless);
	free(d->heap);
	free(d->chunk);
}

/*
 * The header and formats into a new *@out, which keeps its own
 * statistics until pass two.  -MDB_E_* on failure, with nothing left to
 * free.
 */
static int pd_open(const void *buf, size_t len,
		   const struct mdb_decode_opts *o, struct pd **out,
		   struct mdb_error *e)
{
	struct pd *d = calloc(1, sizeof(*d));
	int ret;

	*out = NULL;
	if (!d)
		return mdb_error_set(e, MDB_E_NOMEM,
				     o && o->name ? o->name : "perf.data",
				     -1, -1, NULL);
	d->name = o && o->name ? o->name : "perf.data";
	d->o = o;
	d->st = &d->st1;
	d->e = e;
	d->page_size = o ? o->page_size : 0;
	d->rounds = o && o->rounds;
	d->round_max = d->max_ts = d->emitted_ts = INT64_MIN;
	d->maxcpu = -1;
	d->last_tid = -1;
	d->tl_tid = -1;
	/* a zstd bomb stops here: perf's level-1 ratio is about 20 */
	d->zmax = len > SIZE_MAX / 256 ? SIZE_MAX : (len + 4096) * 256;
	mdb_cursor_init(&d->all, buf, len);
	/* a sample every 64 bytes, up to 1M (56 MB, more by mremap) */
	d->ents_first = len / 64 < 1024 ? 1024 :
			len / 64 > ENTS_FIRST_MAX ? ENTS_FIRST_MAX : len / 64;
	mdb_u64map_init(&d->ids);
	mdb_u64map_init(&d->comm_of);
	mdb_u64map_init(&d->tl);
	mdb_u64map_init(&d->first_comm);
	mdb_u64map_init(&d->nameless);
	tep_set_loglevel(TEP_LOG_NONE);
	d->tep = tep_alloc();
	ret = d->tep ? pd_file(d) :
		       mdb_error_set(e, MDB_E_NOMEM, d->name, -1, -1, NULL);
	if (ret >= 0 && d->pipe) {
		d->data_off = PIPE_HDR_SIZE;
		d->data_end = len;
	}
	if (ret < 0) {
		pd_release(d);
		free(d);
		return ret;
	}
	*out = d;
	return 0;
}

/*
 * Pass one: walk the records (round by round, emitting as it goes),
 * check what only the end can tell; in two passes, sort.
 */
static int pd_pass_one(struct pd *d)
{
	int ret = pd_walk(d, &d->all, d->data_off, d->data_end);

	if (ret >= 0 && d->zdone != d->zlen) {
		d->in_z = 1;
		ret = pd_err(d, MDB_E_TRUNCATED, d->zdone, "perf.data "
			     "compressed records end inside a record");
	}
	if (ret >= 0 && !d->have_tracing && d->nattrs)
		pd_warn(d, 0, "perf.data without tracing data: no event "
			"formats, no kmem events read");
	if (ret < 0)
		return ret;
	d->st->lost_events = d->lost > d->lost_samples ? d->lost :
			     d->lost_samples;
	if (!d->page_size)
		d->page_size = 4096;
	if (d->rounds)
		return 0;
	ret = pd_sort(d);
	if (ret >= 0 && d->ntev > 1)
		qsort(d->tev, d->ntev, sizeof(*d->tev), tev_cmp);
	return ret;
}

/* pd_open(), and in two passes pass one. */
static int pd_prepare(const void *buf, size_t len,
		      const struct mdb_decode_opts *o, struct pd **out,
		      struct mdb_error *e)
{
	int ret = pd_open(buf, len, o, out, e);

	if (ret < 0 || (*out)->rounds)
		return ret;
	ret = pd_pass_one(*out);
	if (ret < 0) {
		pd_release(*out);
		free(*out);
		*out = NULL;
	}
	return ret;
}

/* Round by round: the walk emits; what it left, at its end. */
static int pd_stream(struct pd *d, const struct mdb_sink *sink)
{
	int ret;

	d->sink = sink;
	ret = pd_pass_one(d);
	if (ret >= 0)
		ret = pd_flush(d, INT64_MAX);
	return ret < 0 ? ret : d->emit_ret;
}

int mdb_perf_prepare(const void *buf, size_t len, const struct mdb_decode_opts *o,
		     void **state, struct mdb_error *e)
{
	struct pd *d;
	int ret = pd_prepare(buf, len, o, &d, e);

	*state = ret < 0 ? NULL : d;
	return ret;
}

void mdb_perf_unprepare(void *state)
{
	if (state) {
		pd_release(state);
		free(state);
	}
}

int mdb_perf_decode(const void *buf, size_t len, const struct mdb_decode_opts *o,
		    const struct mdb_sink *sink, struct mdb_decode_stats *st,
		    struct mdb_error *e)
{
	struct pd *d = o ? o->prepared : NULL;
	int ret = 0;

	if (!d)
		ret = pd_prepare(buf, len, o, &d, e);
	if (ret < 0) {
		memset(st, 0, sizeof(*st));
		return ret;
	}
	/* pass two: what pass one counted is the caller's from here */
	*st = *d->st;
	d->st = st;
	d->o = o;
	d->e = e;
	ret = d->rounds ? pd_stream(d, sink) :
			  pd_emit(d, sink, d->sorted, d->nents);
	if (ret >= 0)
		pd_emitted(d);
	mdb_perf_unprepare(d);
	return ret;
}

/* ---- describe ---------------------------------------------------------- */

struct numa_range {
	uint32_t lo, hi, node;
};

static int range_cmp(const void *pa, const void *pb)
{
	const struct numa_range *a = pa, *b = pb;

	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* A CPU list ("0-3,8-11", what sysfs prints; "" a node without CPUs)
 * of @node into @r; NULL, or why not. */
static const char *numa_cpus(const uint8_t *p, size_t n, uint32_t node,
			     struct numa_range *r, size_t *nr)
{
	size_t i = 0;

	while (i < n && p[i]) {
		uint64_t v[2] = { 0, 0 };

		for (int k = 0; k < 2; k++) {
			size_t start = i;

			while (i < n && p[i] >= '0' && p[i] <= '9' &&
			       v[k] < NUMA_CPU_MAX)
				v[k] = v[k] * 10 + (uint64_t)(p[i++] - '0');
			if (i == start || v[k] >= NUMA_CPU_MAX)
				return "a CPU list that is not numbers";
			if (k == 1 || i >= n || p[i] != '-') {
				if (k == 0)
					v[1] = v[0];
				break;
			}
			i++;
		}
		if (v[1] < v[0])
			return "a CPU range that runs backwards";
		if (*nr == NUMA_RANGES_MAX)
			return "too many CPU ranges";
		r[(*nr)++] = (struct numa_range){ (uint32_t)v[0],
						  (uint32_t)v[1], node };
		if (i < n && p[i] == ',')
			i++;
		else if (i < n && p[i])
			return "a CPU list that is not numbers";
	}
	return NULL;
}

/*
 * HEADER_NUMA_TOPOLOGY at @c (tools/perf/util/header.c
 * write_numa_topology): u32 nr, then per node u32 node, u64 mem_total,
 * u64 mem_free and its CPU list as a perf string (u32 length, that many
 * bytes, NUL-padded), in the file's byte order.  Into info->cpu_node,
 * else info->numa_bad says why.
 */
static void numa_topology(struct pd *d, struct mdb_cursor *c,
			  struct perf_info *info)
{
	struct numa_range *r = malloc(NUMA_RANGES_MAX * sizeof(*r));
	const char *why = NULL;
	size_t nr = 0, len = 0;
	uint32_t n;

	info->numa_off = mdb_cursor_off(c);
	if (!r) {
		why = "out of memory";
		goto out;
	}
	if (mdb_cursor_u32(c, d->order, &n) || n > NUMA_NODES_MAX) {
		why = "a node count that is cut short or not possible";
		goto out;
	}
	for (uint32_t i = 0; i < n && !why; i++) {
		uint32_t node, slen;
		uint64_t mem;
		const uint8_t *p;

		info->numa_off = mdb_cursor_off(c);
		if (mdb_cursor_u32(c, d->order, &node) ||
		    mdb_cursor_u64(c, d->order, &mem) ||
		    mdb_cursor_u64(c, d->order, &mem) ||
		    mdb_cursor_u32(c, d->order, &slen) ||
		    mdb_cursor_bytes(c, slen, &p))
			why = "a node cut short";
		else if (node >= NUMA_NODES_MAX)
			why = "a node number that is not possible";
		else
			why = numa_cpus(p, slen, node, r, &nr);
	}
	if (why)
		goto out;
	/* a CPU in two nodes is no map */
	qsort(r, nr, sizeof(*r), range_cmp);
	for (size_t i = 1; i < nr && !why; i++)
		if (r[i].lo <= r[i - 1].hi)
			why = "a CPU in two nodes";
	for (size_t i = 0; i <= nr && !why; i++) {
		int k = i == nr ?
			snprintf(info->cpu_node + len, sizeof(info->cpu_node) -
				 len, "]") :
			snprintf(info->cpu_node + len, sizeof(info->cpu_node) -
				 len, "%s[%u,%u,%u]", i ? "," : "[", r[i].lo,
				 r[i].hi, r[i].node);

		if (k < 0 || (size_t)k >= sizeof(info->cpu_node) - len)
			why = "too many CPU ranges";
		else
			len += (size_t)k;
	}
out:
	if (why) {
		info->cpu_node[0] = '\0';
		snprintf(info->numa_bad, sizeof(info->numa_bad), "%s", why);
	}
	free(r);
}

/* A pipe: the HEADER_FEATURE record of the topology, among the records
 * perf writes before the events (attributes, features, tracing data). */
static void describe_pipe_numa(struct pd *d, struct perf_info *info)
{
	struct mdb_cursor c;

	mdb_cursor_window(&c, &d->all, PIPE_HDR_SIZE,
			  mdb_cursor_left(&d->all) - PIPE_HDR_SIZE);
	for (int k = 0; k < 4096 && mdb_cursor_left(&c) >= REC_HDR; k++) {
		struct mdb_cursor body;
		uint32_t type, n32;
		uint16_t misc, size;
		uint64_t feat;

		if (mdb_cursor_u32(&c, d->order, &type) ||
		    mdb_cursor_u16(&c, d->order, &misc) ||
		    mdb_cursor_u16(&c, d->order, &size) || size < REC_HDR ||
		    mdb_cursor_window(&body, &c, mdb_cursor_off(&c),
				      size - REC_HDR))
			return; /* the decoder says what is wrong */
		mdb_cursor_skip(&c, size - REC_HDR);
		if (type == REC_SAMPLE || type == REC_FINISHED_ROUND ||
		    type == REC_COMPRESSED)
			return;
		if (type == REC_TRACING_DATA &&
		    (mdb_cursor_u32(&body, d->order, &n32) ||
		     mdb_cursor_skip(&c, n32)))
			return;
		if (type == REC_HEADER_FEATURE &&
		    !mdb_cursor_u64(&body, d->order, &feat) &&
		    feat == FEAT_NUMA_TOPOLOGY) {
			numa_topology(d, &body, info);
			return;
		}
	}
}

static void describe_release(struct pd *d, const struct pd_hdr *h,
			     struct perf_info *info)
{
	struct pd_sec s;
	struct mdb_cursor c;
	uint32_t n, avail;
	const uint8_t *p;

	if (pd_feature(d, h, FEAT_OSRELEASE, &s) == 0) {
		mdb_cursor_window(&c, &d->all, s.off, s.size);
		if (!mdb_cursor_u32(&c, d->order, &n) &&
		    !mdb_cursor_bytes(&c, n, &p)) {
			size_t k = 0;

			while (k < n && k + 1 < (uint32_t)sizeof(info->release) &&
			       p[k] > 0x20 && p[k] < 0x7f)
				k++;
			memcpy(info->release, p, k);
			info->release[k] = '\0';
		}
	}
	if (pd_feature(d, h, FEAT_NRCPUS, &s) == 0) {
		mdb_cursor_window(&c, &d->all, s.off, s.size);
		if (!mdb_cursor_u32(&c, d->order, &avail) && avail < 1u << 20)
			info->ncpus = (int)avail;
	}
	if (pd_feature(d, h, FEAT_NUMA_TOPOLOGY, &s) == 0) {
		mdb_cursor_window(&c, &d->all, s.off, s.size);
		numa_topology(d, &c, info);
	}
}

int mdb_perf_describe(const void *buf, size_t len, const char *name,
		      struct perf_info *info, struct mdb_error *e)
{
	struct pd d;
	struct pd_hdr h;
	int ret;

	memset(&d, 0, sizeof(d));
	memset(info, 0, sizeof(*info));
	d.name = name;
	d.e = e;
	mdb_cursor_init(&d.all, buf, len);
	ret = pd_header(&d, &h);
	if (ret < 0)
		return ret;
	info->order = d.order;
	info->pipe = d.pipe;
	if (d.pipe) {
		info->data_bytes = len - PIPE_HDR_SIZE;
		describe_pipe_numa(&d, info);
		return 0;
	}
	info->data_bytes = h.data.size;
	info->dir_format = feat_set(&h, FEAT_DIR_FORMAT);
	describe_release(&d, &h, info);
	return 0;
}
