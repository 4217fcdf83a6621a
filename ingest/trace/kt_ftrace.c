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

#include "../../common/file.h"
#include "../input.h"
#include "kt_ftrace.h"

#define DETECT_RECORDS 256 /* records walked to judge the layout */
#define KTF_MAX_CPUS 65536
#define RELEASE_STEP (16u << 20)
#define KTF_FORMAT "kmemtrace-ftrace"

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

/* Read the record at @off in layout @l. */
static enum ktf_res ktf_read(const uint8_t *buf, size_t len, size_t off,
			     const struct ktf_layout *l, struct ktf_rec *r,
			     struct mdb_event *ev)
{
	size_t left = len - off, pre = l->prefix ? KTF_PREFIX : 0;
	unsigned hdr = hdr_size(l->word);
	const uint8_t *p = buf + off;
	enum mdb_order o = l->order;
	int w8 = l->word == 8;

	r->off = off;
	if (!left)
		return KTF_END;
	if (left < pre + hdr)
		return KTF_TRUNCATED;
	if (pre) {
		r->pcpu = (int32_t)get_u32(p + 4, o);
		r->pts = get_u64(p + 8, o);
		p += pre;
		left -= pre;
	}
	r->id = p[0];
	r->type = p[1];
	r->size = get_u16(p + 2, o);
	r->cpu = get_u32(p + 4, o);
	r->ts = get_u64(p + 8, o);
	if (r->size < hdr)
		return KTF_SHORT;
	if (r->size > left)
		return KTF_PAST_END;
	r->next = off + pre + r->size;
	if (r->id > MDB_EV_FREE || r->type > MDB_TYPE_PAGE)
		return KTF_UNKNOWN;
	r->need = r->id == MDB_EV_ALLOC ? alloc_size(l->word) : hdr;
	if (r->size < r->need)
		return KTF_SHORT_ALLOC;
	if (!ev)
		return KTF_KNOWN;
	memset(ev, 0, sizeof(*ev));
	ev->kind = (uint8_t)r->id;
	ev->type = (uint8_t)r->type;
	ev->cpu = pre ? r->pcpu : (int32_t)r->cpu;
	ev->ts = (int64_t)(pre ? r->pts : r->ts);
	ev->call_site = w8 ? get_u64(p + 16, o) : get_u32(p + 16, o);
	ev->ptr = w8 ? get_u64(p + 24, o) : get_u32(p + 20, o);
	ev->gfp = MDB_NO_GFP;
	ev->node = -1;
	if (r->id == MDB_EV_ALLOC) {
		ev->bytes_req = w8 ? get_u64(p + 32, o) : get_u32(p + 24, o);
		ev->bytes_alloc = w8 ? get_u64(p + 40, o) : get_u32(p + 28, o);
		ev->gfp = get_u32(p + (w8 ? 48 : 32), o);
		ev->node = (int32_t)get_u32(p + (w8 ? 52 : 36), o);
	}
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

int ktf_detect(const void *buf, size_t len, enum mdb_order order,
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

static int ktf_error(const struct ktf_src *s, const struct ktf_rec *r,
		     enum ktf_res res, struct mdb_error *e)
{
	size_t left = s->len - r->off;
	size_t pre = s->layout.prefix ? KTF_PREFIX : 0;

	switch (res) {
	case KTF_TRUNCATED:
		return mdb_error_set(e, MDB_E_TRUNCATED, s->name,
				     (int64_t)r->off, -1, "need=%zu have=%zu",
				     pre + hdr_size(s->layout.word), left);
	case KTF_PAST_END:
		return mdb_error_set(e, MDB_E_TRUNCATED, s->name,
				     (int64_t)r->off, -1,
				     "event_size=%u have=%zu", r->size,
				     left - pre);
	case KTF_SHORT:
		mdb_error_set(e, MDB_E_CORRUPT, s->name, (int64_t)r->off, -1,
			      "event_size=%u min=%u", r->size,
			      hdr_size(s->layout.word));
		mdb_error_msg(e, "event_size smaller than the record header");
		return -MDB_E_CORRUPT;
	default:
		mdb_error_set(e, MDB_E_CORRUPT, s->name, (int64_t)r->off, -1,
			      "event_size=%u min=%u", r->size, r->need);
		mdb_error_msg(e, "event_size smaller than an alloc record");
		return -MDB_E_CORRUPT;
	}
}

int ktf_decode(const struct ktf_src *s, const struct mdb_sink *sink,
	       struct mdb_decode_stats *st, struct mdb_error *e)
{
	size_t off = 0, done_next = s->done_step;
	int64_t index = 0;
	int32_t maxcpu = -1;

	memset(st, 0, sizeof(*st));
	for (;;) {
		struct ktf_rec r;
		struct mdb_event ev;
		enum ktf_res res = ktf_read(s->buf, s->len, off, &s->layout,
					    &r, &ev);
		int ret;

		if (res == KTF_END)
			break;
		if (res != KTF_KNOWN && res != KTF_UNKNOWN)
			return ktf_error(s, &r, res, e);
		index++;
		off = r.next;
		if (res == KTF_UNKNOWN) {
			st->unknown++;
			continue;
		}
		if (ev.cpu < 0 || ev.cpu >= KTF_MAX_CPUS) {
			mdb_error_set(e, MDB_E_CORRUPT, s->name,
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
		if (s->done && off >= done_next) {
			s->done(s->done_ctx, off);
			done_next = off + s->done_step;
		}
	}
	st->records = (uint64_t)index;
	st->ncpus = maxcpu + 1;
	return 0;
}

/* ---- the file on disk ------------------------------------------------- */

struct ktf_file {
	char *path;
	struct mdb_map map;
	struct ktf_layout layout;
};

static void ktf_file_free(struct ktf_file *f)
{
	if (!f)
		return;
	mdb_unmap(&f->map);
	free(f->path);
	free(f);
}

static int ktf_input_decode(struct mdb_input *in, const struct mdb_sink *sink,
			    struct mdb_decode_stats *st, struct mdb_error *e)
{
	struct ktf_file *f = in->priv;
	struct ktf_src s = {
		.name = f->path,
		.buf = f->map.data,
		.len = f->map.len,
		.layout = f->layout,
		.done = mdb_map_done_cb,
		.done_ctx = &f->map,
		.done_step = RELEASE_STEP,
	};

	return ktf_decode(&s, sink, st, e);
}

static void ktf_input_close(struct mdb_input *in)
{
	ktf_file_free(in->priv);
	free(in);
}

static const struct mdb_input_ops ktf_ops = {
	.decode = ktf_input_decode,
	.close = ktf_input_close,
};

int ktf_input_open(const char *path, const struct mdb_ingest_opts *o,
		   struct mdb_input **out, struct mdb_error *e)
{
	struct mdb_input *in = NULL;
	struct ktf_file *f = NULL;
	struct stat st;
	int ret;

	*out = NULL;
	if (stat(path, &st) < 0)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	if (!S_ISREG(st.st_mode))
		return 1;
	in = calloc(1, sizeof(*in));
	f = calloc(1, sizeof(*f));
	if (!in || !f || !(f->path = strdup(path))) {
		ret = mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
		goto fail;
	}
	ret = mdb_map_file(path, &f->map, e);
	if (ret < 0)
		goto fail;
	if (!f->map.len ||
	    ktf_detect(f->map.data, f->map.len, o->order, &f->layout)) {
		ret = 1;
		goto fail;
	}
	ret = mdb_hash_map(KTF_FORMAT, &f->map, RELEASE_STEP, &in->meta, e);
	if (ret < 0)
		goto fail;
	in->ops = &ktf_ops;
	in->priv = f;
	in->meta.format = KTF_FORMAT;
	in->meta.abi_version = -1;
	in->meta.order = f->layout.order;
	in->meta.word_size = f->layout.word;
	in->meta.overruns = -1;
	in->meta.data_bytes = f->map.len;
	*out = in;
	return 0;
fail:
	ktf_file_free(f);
	free(in);
	return ret;
}
