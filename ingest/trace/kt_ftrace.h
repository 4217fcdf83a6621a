/* SPDX-License-Identifier: MIT */
/*
 * ftrace-era kmemtrace binary (docs/formats.md §2.5; kernels 2.6.30 to about
 * 2.6.34): the kmemtrace tracer's records, struct kmemtrace_user_event
 * and _alloc, not packed, in the producer's word size and byte order,
 * one file for all CPUs in time order, each record optionally after the
 * 16-byte prefix of ftrace's "bin" option (int pid, int cpu, u64 ts).
 *
 *            LP64 off/size   ILP32 off/size
 *   event_id     0/1             0/1
 *   type_id      1/1             1/1
 *   event_size   2/2             2/2
 *   cpu          4/4             4/4
 *   timestamp    8/8             8/8
 *   call_site   16/8            16/4
 *   ptr         24/8            20/4
 *   bytes_req   32/8            24/4
 *   bytes_alloc 40/8            28/4
 *   gfp_flags   48/4            32/4
 *   node        52/4            36/4
 *   ALLOC/FREE  56/32           40/24
 *
 * event_size tells the word size; the byte order is the one in which it
 * reads as one of these sizes.  Event seq is the record's index (from 1).
 */
#ifndef MDB_KT_FTRACE_H
#define MDB_KT_FTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/bytes.h"
#include "../../common/error.h"
#include "../decode.h"
#include "../event.h"
#include "../ingest.h"

#define KTF_PREFIX 16 /* "bin" option: int pid, int cpu, u64 timestamp */

struct ktf_layout {
	enum mdb_order order;
	int word;   /* 8 (LP64) or 4 (ILP32) */
	int prefix; /* records follow a KTF_PREFIX-byte prefix */
};

/*
 * Judge the layout from the first records: the only (byte order, word
 * size, prefix) in which they all read as kmemtrace records.  @order
 * UNKNOWN tries both orders.  Returns 0 with *@l set, 1 when no layout
 * fits (not this format).
 */
int mdb_ktf_detect(const void *buf, size_t len, enum mdb_order order,
		   struct ktf_layout *l);

/*
 * Decode every record into @sink, in file order.  Unknown event or type
 * ids are skipped and counted; a record that is too short or runs past
 * the end is an error naming the byte offset.  o->priv, when not NULL, is
 * the struct ktf_layout to read with; else it is detected (o->order).
 */
int mdb_ktf_decode(const void *buf, size_t len, const struct mdb_decode_opts *o,
		   const struct mdb_sink *sink, struct mdb_decode_stats *st,
		   struct mdb_error *e);

/* The format table's probe and describe (see ingest/formats.h). */
int mdb_ktf_probe(const void *buf, size_t len);
int mdb_ktf_describe(const void *buf, size_t len, struct mdb_decode_opts *o,
		     struct mdb_source_meta *m, struct mdb_error *e);

#endif
