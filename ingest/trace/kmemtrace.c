// SPDX-License-Identifier: MIT
/*
 * kmemtrace relay ABI v1 decoder: per-CPU record streams, byte-order
 * detection, and the seq_num merge (docs/formats.md §2.2 - §2.4).
 *
 * Record layout (packed, producer byte order):
 *   0 u8 event_id  1 u8 type_id  2 u16 event_size  4 s32 seq_num
 *   8 u64 call_site  16 u64 ptr
 * ALLOC continues:
 *   24 u64 bytes_req  32 u64 bytes_alloc  40 u32 gfp_flags  44 s32 node
 * Bytes past the known part ("features") are skipped as event_size says.
 */
#include <stdlib.h>
#include <string.h>

#include "../../common/heap.h"
#include "kmemtrace.h"

#define DETECT_RECORDS 256 /* records walked per file to judge byte order */

void mdb_kt_stream_init(struct kt_stream *s, const char *name, int cpu,
			const void *buf, size_t len, enum mdb_order order)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->cpu = cpu;
	s->buf = buf;
	s->len = len;
	s->order = order;
	mdb_cursor_init(&s->cur, buf, len);
}

/* The fixed part of a record: the header, and an ALLOC's tail. */
struct kt_fields {
	uint8_t id, type;
	uint16_t size;
	uint32_t seq;
	uint64_t call_site, ptr;
};

/* Read a record header at the cursor without consuming it. */
static int kt_peek_header(const struct mdb_cursor *c, enum mdb_order o,
			  struct kt_fields *f)
{
	struct mdb_cursor h = *c;

	if (mdb_cursor_u8(&h, &f->id) || mdb_cursor_u8(&h, &f->type) ||
	    mdb_cursor_u16(&h, o, &f->size) || mdb_cursor_u32(&h, o, &f->seq) ||
	    mdb_cursor_u64(&h, o, &f->call_site) ||
	    mdb_cursor_u64(&h, o, &f->ptr))
		return -1;
	return 0;
}

static int kt_is_known(const struct kt_fields *f)
{
	return f->id <= MDB_EV_FREE && f->type <= MDB_TYPE_PAGE;
}

/* Fill @ev from a known record of @f whose bytes follow in @body. */
static void kt_fill_event(struct kt_stream *s, const struct kt_fields *f,
			  struct mdb_cursor *body, struct mdb_event *ev)
{
	uint64_t req = 0, alloc = 0;
	uint32_t gfp = 0, node = (uint32_t)-1;

	mdb_event_init(ev);
	ev->kind = f->id;
	ev->type = f->type;
	ev->ts = MDB_NO_TS;
	ev->cpu = s->cpu;
	ev->call_site = f->call_site;
	ev->ptr = f->ptr;
	ev->gfp = MDB_NO_GFP;
	if (f->id == MDB_EV_ALLOC) {
		/* the record size was checked: these loads cannot fail */
		(void)(mdb_cursor_u64(body, s->order, &req) ||
		       mdb_cursor_u64(body, s->order, &alloc) ||
		       mdb_cursor_u32(body, s->order, &gfp) ||
		       mdb_cursor_u32(body, s->order, &node));
		ev->gfp = gfp;
	}
	ev->bytes_req = req;
	ev->bytes_alloc = alloc;
	ev->node = (int32_t)node;
}

static int kt_record_error(const struct kt_stream *s,
			   const struct kt_fields *f, size_t left,
			   struct mdb_error *e)
{
	size_t off = mdb_cursor_off(&s->cur);
	unsigned need;

	if (f->size < KT_HDR_SIZE) {
		mdb_error_set(e, MDB_E_CORRUPT, s->name, (int64_t)off, -1,
			      "event_size=%u min=%d", f->size, KT_HDR_SIZE);
		mdb_error_msg(e, "event_size smaller than the record header");
		return -MDB_E_CORRUPT;
	}
	if (f->size > left)
		return mdb_error_set(e, MDB_E_TRUNCATED, s->name,
				     (int64_t)off, -1, "event_size=%u have=%zu",
				     f->size, left);
	need = f->id == MDB_EV_ALLOC ? KT_ALLOC_SIZE : KT_HDR_SIZE;
	mdb_error_set(e, MDB_E_CORRUPT, s->name, (int64_t)off, -1,
		      "event_size=%u min=%u", f->size, need);
	mdb_error_msg(e, "event_size smaller than an %s record",
		      f->id == MDB_EV_ALLOC ? "alloc" : "free");
	return -MDB_E_CORRUPT;
}

int mdb_kt_stream_next(struct kt_stream *s, struct kt_record *r,
		       struct mdb_error *e)
{
	size_t left = mdb_cursor_left(&s->cur), off = mdb_cursor_off(&s->cur);
	struct mdb_cursor body;
	struct kt_fields f;
	unsigned need;

	if (!left)
		return 0;
	if (kt_peek_header(&s->cur, s->order, &f))
		return mdb_error_set(e, MDB_E_TRUNCATED, s->name, (int64_t)off,
				     -1, "need=%d have=%zu", KT_HDR_SIZE,
				     left);
	need = kt_is_known(&f) && f.id == MDB_EV_ALLOC ? KT_ALLOC_SIZE :
							 KT_HDR_SIZE;
	if (f.size < KT_HDR_SIZE || f.size > left ||
	    (kt_is_known(&f) && f.size < need))
		return kt_record_error(s, &f, left, e);
	(void)mdb_cursor_sub(&s->cur, f.size, &body);
	r->raw_seq = f.seq;
	r->off = off;
	if (!kt_is_known(&f)) {
		/* skipped, but its seq_num still takes its place in the
		 * global order (it is not a lost event) */
		s->unknown++;
		r->ev.cpu = s->cpu;
		return 2;
	}
	(void)mdb_cursor_skip(&body, KT_HDR_SIZE);
	kt_fill_event(s, &f, &body, &r->ev);
	s->feature_bytes += f.size - need;
	if (s->have_prev && !kt_seq_after(f.seq, s->prev_seq))
		s->disorder++;
	s->have_prev = 1;
	s->prev_seq = f.seq;
	off = mdb_cursor_off(&s->cur);
	if (s->done && off >= s->done_next) {
		s->done(s->done_ctx, off);
		s->done_next = off + s->done_step;
	}
	return 1;
}

/* Outcome of walking the start of one stream in one byte order. */
struct kt_walk {
	size_t good;      /* complete records with known ids */
	size_t unknown;   /* complete records with unknown ids */
	int bad;          /* stopped at a record no producer writes */
	size_t bad_off;
	unsigned bad_id, bad_type, bad_size;
};

/*
 * Walk up to DETECT_RECORDS records from the start, stopping at the first
 * record that cannot be right in this byte order.  Corruption further in
 * is the decoder's business: the order is judged by what came before it.
 */
static void kt_walk(const struct kt_stream *s, enum mdb_order o,
		    struct kt_walk *w)
{
	struct mdb_cursor c;
	size_t n = 0;
	uint32_t prev = 0;
	int have_prev = 0;

	memset(w, 0, sizeof(*w));
	mdb_cursor_init(&c, s->buf, s->len);
	while (n < DETECT_RECORDS) {
		struct kt_fields f;
		int known;

		if (kt_peek_header(&c, o, &f))
			break;
		known = kt_is_known(&f);
		if (f.size < KT_HDR_SIZE || !mdb_cursor_has(&c, f.size) ||
		    (known && f.id == MDB_EV_ALLOC && f.size < KT_ALLOC_SIZE) ||
		    (known && have_prev && !kt_seq_after(f.seq, prev))) {
			w->bad = 1;
			w->bad_off = mdb_cursor_off(&c);
			w->bad_id = f.id;
			w->bad_type = f.type;
			w->bad_size = f.size;
			return;
		}
		if (known) {
			w->good++;
			prev = f.seq;
			have_prev = 1;
		} else {
			w->unknown++;
		}
		(void)mdb_cursor_skip(&c, f.size);
		n++;
	}
}

int mdb_kt_detect_order(const struct kt_stream *streams, size_t n,
			enum mdb_order *order, struct mdb_error *e)
{
	static const enum mdb_order cand[2] = { MDB_ORDER_LITTLE,
						MDB_ORDER_BIG };
	size_t good[2] = { 0, 0 };
	int plausible[2] = { 1, 1 };
	const struct kt_stream *bad_s = NULL;
	struct kt_walk bad_w = { 0 };

	for (int c = 0; c < 2; c++) {
		size_t unknown = 0;

		for (size_t i = 0; i < n; i++) {
			struct kt_walk w;

			if (!streams[i].len)
				continue;
			kt_walk(&streams[i], cand[c], &w);
			good[c] += w.good;
			unknown += w.unknown;
			/* a file whose first record is impossible rules the
			 * order out */
			if (w.bad && !w.good && !w.unknown) {
				plausible[c] = 0;
				if (c == 0 && !bad_s) {
					bad_s = &streams[i];
					bad_w = w;
				}
			}
		}
		/* most records must carry known ids, and some must exist */
		if (!good[c] || unknown > good[c])
			plausible[c] = 0;
	}
	if (plausible[0] && plausible[1] && good[0] != good[1])
		plausible[good[0] > good[1]] = 0;
	if (plausible[0] != plausible[1]) {
		*order = plausible[0] ? MDB_ORDER_LITTLE : MDB_ORDER_BIG;
		return 0;
	}
	if (plausible[0]) {
		mdb_error_set(e, MDB_E_ENDIAN, n ? streams[0].name : NULL, -1,
			      -1, "records=%zu", good[0]);
		mdb_error_msg(e, "byte order cannot be told from the data");
		mdb_error_hint(e, "give --endian little or --endian big");
		return -MDB_E_ENDIAN;
	}
	if (!bad_s) {
		for (size_t i = 0; i < n && !bad_s; i++)
			if (streams[i].len)
				bad_s = &streams[i];
		if (bad_s)
			kt_walk(bad_s, MDB_ORDER_LITTLE, &bad_w);
	}
	mdb_error_set(e, MDB_E_FORMAT, bad_s ? bad_s->name : NULL,
		      (int64_t)bad_w.bad_off, -1,
		      "event_id=%u type_id=%u event_size=%u", bad_w.bad_id,
		      bad_w.bad_type, bad_w.bad_size);
	mdb_error_msg(e, "not a kmemtrace relay stream in either byte order");
	return -MDB_E_FORMAT;
}

int mdb_kt_probe(const void *buf, size_t len)
{
	struct kt_stream s;
	enum mdb_order o;
	int ret;

	if (!len)
		return 0;
	mdb_kt_stream_init(&s, NULL, 0, buf, len, MDB_ORDER_UNKNOWN);
	ret = mdb_kt_detect_order(&s, 1, &o, NULL);
	return ret == 0 || ret == -MDB_E_ENDIAN;
}

/* ---- merge ---------------------------------------------------------- */

struct kt_head {
	struct kt_record rec;
	size_t stream;
	int skip;       /* unknown record: takes its place, is not an event */
};

/* Is head @a before head @b in global order?  Ties go to the lower CPU. */
static inline int kt_before(const struct kt_head *a, const struct kt_head *b)
{
	if (a->rec.raw_seq != b->rec.raw_seq)
		return kt_seq_after(b->rec.raw_seq, a->rec.raw_seq);
	return a->rec.ev.cpu < b->rec.ev.cpu ||
	       (a->rec.ev.cpu == b->rec.ev.cpu && a->stream < b->stream);
}

/* kt_before() as the heap calls it (no context). */
static inline int kt_heap_before(const void *ctx, const struct kt_head *a,
				 const struct kt_head *b)
{
	(void)ctx;
	return kt_before(a, b);
}

MDB_HEAP_SIFT_DOWN(kt_sift_down, struct kt_head, const void *, kt_heap_before)

int mdb_kt_merge(struct kt_stream *streams, size_t n, const struct mdb_sink *sink,
		 struct mdb_decode_stats *st, struct mdb_error *e)
{
	struct kt_head *heap;
	size_t nh = 0;
	int64_t pos = 0;
	uint32_t last = 0;
	int first = 1, ret = 0;

	memset(st, 0, sizeof(*st));
	heap = calloc(n ? n : 1, sizeof(*heap));
	if (!heap)
		return mdb_error_nomem(e);
	for (size_t i = 0; i < n; i++) {
		ret = mdb_kt_stream_next(&streams[i], &heap[nh].rec, e);
		if (ret < 0)
			goto out;
		if (ret) {
			heap[nh].stream = i;
			heap[nh].skip = ret == 2;
			nh++;
		}
	}
	for (size_t i = nh; i-- > 0;)
		kt_sift_down(NULL, heap, nh, i);

	while (nh) {
		struct kt_head *h = &heap[0];
		uint32_t raw = h->rec.raw_seq;

		if (first) {
			pos = raw; /* as unsigned: positions stay positive */
			st->first_seq = pos;
			first = 0;
		} else {
			int32_t d = (int32_t)(raw - last);

			if (d <= 0) {
				/* a repeated or backward seq (corrupt input):
				 * keep positions unique and rising */
				st->seq_disorder++;
				d = 1;
			}
			st->seq_missing += (uint64_t)(d - 1);
			pos += d;
		}
		last = raw;
		st->last_seq = pos;
		if (!h->skip) {
			h->rec.ev.seq = pos;
			st->events++;
			ret = sink->event(sink->ctx, &h->rec.ev);
			if (ret < 0)
				goto out;
		}
		ret = mdb_kt_stream_next(&streams[h->stream], &h->rec, e);
		if (ret < 0)
			goto out;
		h->skip = ret == 2;
		if (!ret)
			heap[0] = heap[--nh];
		kt_sift_down(NULL, heap, nh, 0);
	}
	for (size_t i = 0; i < n; i++) {
		st->unknown += streams[i].unknown;
		st->feature_bytes += streams[i].feature_bytes;
	}
	st->records = st->events + st->unknown;
	ret = 0;
out:
	free(heap);
	return ret;
}

int mdb_kt_decode(const void *buf, size_t len, const struct mdb_decode_opts *o,
		  const struct mdb_sink *sink, struct mdb_decode_stats *st,
		  struct mdb_error *e)
{
	struct kt_stream s;
	enum mdb_order order = o->order;
	int ret;

	mdb_kt_stream_init(&s, o->name, o->cpu >= 0 ? o->cpu : 0, buf, len,
			   order);
	if (order == MDB_ORDER_UNKNOWN) {
		ret = mdb_kt_detect_order(&s, 1, &order, e);
		if (ret < 0)
			return ret;
		s.order = order;
	}
	s.done = o->done;
	s.done_ctx = o->done_ctx;
	s.done_step = o->done_step;
	s.done_next = o->done_step;
	return mdb_kt_merge(&s, 1, sink, st, e);
}
