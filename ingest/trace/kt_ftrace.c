// SPDX-License-Identifier: MIT
/*
 * ftrace-era kmemtrace binary decoder and its file on disk; see
 * kt_ftrace.h.  Loads are explicit-endian and bounds-checked: no struct
 * is laid over the input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../input.h"
#include "kt_ftrace.h"

#define DETECT_RECORDS 256 /* records walked to judge the layout */
#define KTF_MAX_CPUS 65536

static unsigned hdr_size(int word)
{
	return word == 8 ? 32 : 24;
}

static unsigned alloc_size(int word)
{
	return word == 8 ? 56 : 40;
}

/* What reading the record at an offset gave. */
enum ktf_res {
	KTF_END,         /* no bytes left */
	KTF_KNOWN,       /* an ALLOC or FREE: ev filled */
	KTF_UNKNOWN,     /* unknown event or type id: skipped */
	KTF_TRUNCATED,   /* fewer bytes left than a prefix and header */
	KTF_SHORT,       /* event_size below the header size */
	KTF_PAST_END,    /* event_size runs past the end */
	KTF_SHORT_ALLOC, /* an ALLOC whose event_size cannot hold it */
};

struct ktf_rec {
	size_t off;           /* offset of the record (its prefix, if any) */
	size_t next;          /* offset of the next record */
	unsigned id, type, size, need;
	uint32_t cpu;         /* the record's */
	uint64_t ts;
	int32_t pcpu;         /* the prefix's */
	uint64_t pts;
};

/* An event's fields after the header, in layout @l. */
static void ktf_fill(struct mdb_cursor *c, const struct ktf_layout *l,
		     const struct ktf_rec *r, struct mdb_event *ev)
{
	enum mdb_order o = l->order;
	uint64_t req = 0, alloc = 0;
	uint32_t gfp = 0, node = (uint32_t)-1;

	mdb_event_init(ev);
	ev->kind = (uint8_t)r->id;
	ev->type = (uint8_t)r->type;
	ev->cpu = l->prefix ? r->pcpu : (int32_t)r->cpu;
	ev->ts = (int64_t)(l->prefix ? r->pts : r->ts);
	ev->gfp = MDB_NO_GFP;
	/* r->size >= r->need was checked: these loads cannot fail */
	(void)(mdb_cursor_word(c, o, l->word, &ev->call_site) ||
	       mdb_cursor_word(c, o, l->word, &ev->ptr));
	if (r->id == MDB_EV_ALLOC) {
		(void)(mdb_cursor_word(c, o, l->word, &req) ||
		       mdb_cursor_word(c, o, l->word, &alloc) ||
		       mdb_cursor_u32(c, o, &gfp) ||
		       mdb_cursor_u32(c, o, &node));
		ev->gfp = gfp;
	}
	ev->bytes_req = req;
	ev->bytes_alloc = alloc;
	ev->node = (int32_t)node;
}

/* Read the record at @off in layout @l. */
static enum ktf_res ktf_read(const uint8_t *buf, size_t len, size_t off,
			     const struct ktf_layout *l, struct ktf_rec *r,
			     struct mdb_event *ev)
{
	size_t pre = l->prefix ? KTF_PREFIX : 0;
	unsigned hdr = hdr_size(l->word);
	enum mdb_order o = l->order;
	struct mdb_cursor c, rec;
	uint8_t id = 0, type = 0;
	uint16_t size = 0;

	r->off = off;
	mdb_cursor_init(&c, buf, len);
	if (mdb_cursor_seek(&c, off) || !mdb_cursor_left(&c))
		return KTF_END;
	if (!mdb_cursor_has(&c, pre + hdr))
		return KTF_TRUNCATED;
	if (pre) {
		uint32_t pid = 0, pcpu = 0;

		(void)(mdb_cursor_u32(&c, o, &pid) ||
		       mdb_cursor_u32(&c, o, &pcpu) ||
		       mdb_cursor_u64(&c, o, &r->pts));
		r->pcpu = (int32_t)pcpu;
	}
	rec = c;
	/* event_id, type_id, event_size, cpu, timestamp: checked above */
	(void)(mdb_cursor_u8(&rec, &id) || mdb_cursor_u8(&rec, &type) ||
	       mdb_cursor_u16(&rec, o, &size) ||
	       mdb_cursor_u32(&rec, o, &r->cpu) ||
	       mdb_cursor_u64(&rec, o, &r->ts));
	r->id = id;
	r->type = type;
	r->size = size;
	if (r->size < hdr)
		return KTF_SHORT;
	if (!mdb_cursor_has(&c, r->size))
		return KTF_PAST_END;
	r->next = off + pre + r->size;
	if (r->id > MDB_EV_FREE || r->type > MDB_TYPE_PAGE)
		return KTF_UNKNOWN;
	r->need = r->id == MDB_EV_ALLOC ? alloc_size(l->word) : hdr;
	if (r->size < r->need)
		return KTF_SHORT_ALLOC;
	if (!ev)
		return KTF_KNOWN;
	ktf_fill(&rec, l, r, ev);
	return KTF_KNOWN;
}

/*
 * Walk the first records in one layout.  Returns the number of known
 * records when every record walked is exactly what the kmemtrace tracer
 * writes (sizes of this word size, CPU numbers in range, the prefix
 * agreeing with the record), else 0.  A record cut short or too small
 * after a few good ones ends the walk: corruption further in is the
 * decoder's to report, with its offset.
 */
static size_t ktf_walk(const uint8_t *buf, size_t len,
		       const struct ktf_layout *l)
{
	size_t off = 0, n = 0, known = 0, allocs = 0;
	uint64_t prev_ts = 0;
	int rising = 1;

	while (n < DETECT_RECORDS) {
		struct ktf_rec r;
		enum ktf_res res = ktf_read(buf, len, off, l, &r, NULL);

		if (res == KTF_END)
			break;
		if (res != KTF_KNOWN && res != KTF_UNKNOWN) {
			if (known < 4)
				return 0;
			break;
		}
		if (res == KTF_KNOWN) {
			if (r.size != r.need || r.cpu >= KTF_MAX_CPUS ||
			    (l->prefix && (r.pcpu != (int32_t)r.cpu ||
					   r.pts != r.ts)))
				return 0;
			if (known && r.ts < prev_ts)
				rising = 0;
			prev_ts = r.ts;
			known++;
			allocs += r.id == MDB_EV_ALLOC;
		}
		off = r.next;
		n++;
	}
	if (!known || known < n - known)
		return 0;
	/*
	 * 24-byte FREE records without a prefix are also what a relay
	 * per-CPU file of FREEs looks like; there, offset 8 is a call site,
	 * not a clock that never runs backwards.
	 */
	if (l->word == 4 && !l->prefix && !allocs && !rising)
		return 0;
	return known;
}

int mdb_ktf_detect(const void *buf, size_t len, enum mdb_order order,
		   struct ktf_layout *l)
{
	static const enum mdb_order orders[2] = { MDB_ORDER_LITTLE,
						  MDB_ORDER_BIG };
	size_t best = 0;

	for (int prefix = 0; prefix < 2; prefix++)
		for (int oi = 0; oi < 2; oi++)
			for (int word = 4; word <= 8; word += 4) {
				struct ktf_layout c = { orders[oi], word,
							prefix };
				size_t n;

				if (order != MDB_ORDER_UNKNOWN &&
				    order != orders[oi])
					continue;
				n = ktf_walk(buf, len, &c);
				if (n > best) {
					best = n;
					*l = c;
				}
			}
	return best ? 0 : 1;
}

static int ktf_error(const char *name, size_t len,
		     const struct ktf_layout *l, const struct ktf_rec *r,
		     enum ktf_res res, struct mdb_error *e)
{
	size_t left = len - r->off; /* r->off <= len: ktf_read() seeked there */
	size_t pre = l->prefix ? KTF_PREFIX : 0;

	switch (res) {
	case KTF_TRUNCATED:
		return mdb_error_set(e, MDB_E_TRUNCATED, name,
				     (int64_t)r->off, -1, "need=%zu have=%zu",
				     pre + hdr_size(l->word), left);
	case KTF_PAST_END:
		return mdb_error_set(e, MDB_E_TRUNCATED, name,
				     (int64_t)r->off, -1,
				     "event_size=%u have=%zu", r->size,
				     left - pre);
	case KTF_SHORT:
		mdb_error_set(e, MDB_E_CORRUPT, name, (int64_t)r->off, -1,
			      "event_size=%u min=%u", r->size,
			      hdr_size(l->word));
		mdb_error_msg(e, "event_size smaller than the record header");
		return -MDB_E_CORRUPT;
	default:
		mdb_error_set(e, MDB_E_CORRUPT, name, (int64_t)r->off, -1,
			      "event_size=%u min=%u", r->size, r->need);
		mdb_error_msg(e, "event_size smaller than an alloc record");
		return -MDB_E_CORRUPT;
	}
}

int mdb_ktf_probe(const void *buf, size_t len)
{
	struct ktf_layout l;

	return len && !mdb_ktf_detect(buf, len, MDB_ORDER_UNKNOWN, &l);
}

int mdb_ktf_decode(const void *buf, size_t len, const struct mdb_decode_opts *o,
		   const struct mdb_sink *sink, struct mdb_decode_stats *st,
		   struct mdb_error *e)
{
	size_t off = 0, done_next = o->done_step;
	const char *name = o->name;
	struct ktf_layout layout;
	int64_t index = 0;
	int32_t maxcpu = -1;

	memset(st, 0, sizeof(*st));
	if (o->priv) {
		layout = *(const struct ktf_layout *)o->priv;
	} else if (mdb_ktf_detect(buf, len, o->order, &layout)) {
		mdb_error_set(e, MDB_E_FORMAT, name, 0, -1, NULL);
		mdb_error_msg(e, "not a kmemtrace ftrace-era binary");
		return -MDB_E_FORMAT;
	}
	for (;;) {
		struct ktf_rec r;
		struct mdb_event ev;
		enum ktf_res res = ktf_read(buf, len, off, &layout, &r,
					    &ev);
		int ret;

		if (res == KTF_END)
			break;
		if (res != KTF_KNOWN && res != KTF_UNKNOWN)
			return ktf_error(name, len, &layout, &r, res, e);
		index++;
		off = r.next;
		if (res == KTF_UNKNOWN) {
			st->unknown++;
			continue;
		}
		if (ev.cpu < 0 || ev.cpu >= KTF_MAX_CPUS) {
			mdb_error_set(e, MDB_E_CORRUPT, name,
				      (int64_t)r.off, -1, "cpu=%d max=%d",
				      ev.cpu, KTF_MAX_CPUS - 1);
			mdb_error_msg(e, "CPU number out of range");
			return -MDB_E_CORRUPT;
		}
		st->feature_bytes += r.size - r.need;
		ev.seq = index;
		if (ev.cpu > maxcpu)
			maxcpu = ev.cpu;
		ret = sink->event(sink->ctx, &ev);
		if (ret < 0)
			return ret;
		if (!st->events++)
			st->first_seq = index;
		st->last_seq = index;
		if (o->done && off >= done_next) {
			o->done(o->done_ctx, off);
			done_next = off + o->done_step;
		}
	}
	st->records = (uint64_t)index;
	st->ncpus = maxcpu + 1;
	return 0;
}

/* What the table row tells the source table: byte order and word size. */
int mdb_ktf_describe(const void *buf, size_t len, struct mdb_decode_opts *o,
		     struct mdb_source_meta *m, struct mdb_error *e)
{
	struct ktf_layout l;

	(void)e;
	if (!len || mdb_ktf_detect(buf, len, o->order, &l))
		return 1;
	m->order = l.order;
	m->word_size = l.word;
	return 0;
}
