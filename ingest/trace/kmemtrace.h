/* SPDX-License-Identifier: MIT */
/*
 * kmemtrace relay ABI version 1 (docs/formats.md §2.1 - §2.4): per-CPU
 * streams of packed records without timestamps, merged into one global
 * order by seq_num.
 */
#ifndef MDB_KMEMTRACE_H
#define MDB_KMEMTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/bytes.h"
#include "../../common/error.h"
#include "../decode.h"
#include "../event.h"

#define KT_HDR_SIZE 24   /* event_id .. ptr */
#define KT_ALLOC_SIZE 48 /* header + bytes_req .. node */
#define KT_ABI_VERSION 1

/* One per-CPU stream: a pure view of bytes, no file access. */
struct kt_stream {
	const char *name;   /* for messages */
	const uint8_t *buf;
	size_t len;
	struct mdb_cursor cur; /* at the next record */
	int cpu;
	enum mdb_order order;
	uint64_t unknown;       /* records skipped for unknown ids */
	uint64_t feature_bytes; /* bytes past the known part of records */
	uint64_t disorder;      /* records whose seq did not rise */
	int have_prev;
	uint32_t prev_seq;
	/*
	 * Optional: called with the offset read so far each time another
	 * @done_step bytes have been consumed (to release input memory).
	 */
	void (*done)(void *ctx, size_t off);
	void *done_ctx;
	size_t done_step, done_next;
};

/* A decoded record: the event plus its raw 32-bit sequence number. */
struct kt_record {
	struct mdb_event ev;
	uint32_t raw_seq;
	size_t off;         /* byte offset of the record in its stream */
};

void mdb_kt_stream_init(struct kt_stream *s, const char *name, int cpu,
			const void *buf, size_t len, enum mdb_order order);

/*
 * Decode the next record.  Returns 1 with @r filled, 2 for a record with
 * an unknown event or type id (only raw_seq, off and cpu filled; counted
 * in @s->unknown), 0 at the end of the stream, or a negative MDB_E_* code
 * (file and offset in @e).
 */
int mdb_kt_stream_next(struct kt_stream *s, struct kt_record *r,
		       struct mdb_error *e);

/*
 * Decide the byte order of a capture from its data: in the right order,
 * event ids are 0/1, type ids 0..2, sizes fit, seq rises within a file.
 * @streams' order fields are ignored.  Returns 0 with *@order set,
 * -MDB_E_ENDIAN when both orders fit, -MDB_E_FORMAT when neither does.
 */
int mdb_kt_detect_order(const struct kt_stream *streams, size_t n,
			enum mdb_order *order, struct mdb_error *e);

/*
 * Do the bytes of a lone file read as relay records, in either byte order
 * (mdb_kt_detect_order() finds one order, or both)?  The format has no magic:
 * this is what claims a lone file not named cpuN.
 */
int mdb_kt_probe(const void *buf, size_t len);

/*
 * Merge @n streams by seq_num with serial-number arithmetic and hand every
 * event to @sink in global order.  Event seq is the unwrapped 64-bit
 * sequence number.  Fills @st.
 */
int mdb_kt_merge(struct kt_stream *streams, size_t n, const struct mdb_sink *sink,
		 struct mdb_decode_stats *st, struct mdb_error *e);

/*
 * The one decoder shape (ingest/decode.h) over one per-CPU file: CPU
 * o->cpu (0 when -1), byte order o->order or detected.  A capture of
 * several files is merged by mdb_kt_merge() (kt_capture.c opens them).
 */
int mdb_kt_decode(const void *buf, size_t len, const struct mdb_decode_opts *o,
		  const struct mdb_sink *sink, struct mdb_decode_stats *st,
		  struct mdb_error *e);

/* Serial-number comparison: is @a after @b? */
static inline int kt_seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

#endif
