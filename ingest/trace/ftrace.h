/* SPDX-License-Identifier: MIT */
/*
 * ftrace kmem tracepoints as text (docs/formats.md §3): what `cat trace`,
 * `trace_pipe`, `perf script` and `trace-cmd report` print, from 2.6.30 to
 * today.  A pure decoder over (buf, len): lines in, struct mdb_event out,
 * in the file's line order (docs/design.md §4.2: the text is already
 * merged by the kernel's clock).  An event's seq is its line number.
 *
 * A line is one of: a kmem event; another event or a stack-trace line
 * (skipped, counted in stats.unknown); a header, blank or lost-events
 * line (counted in stats.records only; lost events add to
 * stats.lost_events); or malformed (counted, reported through warn(),
 * an error when strict).  Fields are found by name, never by position.
 */
#ifndef MDB_FTRACE_H
#define MDB_FTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/error.h"
#include "../decode.h"
#include "../event.h"
#include "../ingest.h"
#include "../kallsyms.h"

#define FT_PAGE_SIZE 4096  /* default bytes per page of page events */
#define FT_WARN_LINES 5    /* malformed lines reported one by one */
#define FT_HASH_TAG (1ULL << 32) /* marks a hashed pointer below 4096 */

/*
 * What mdb_ft_decode() reads from struct mdb_decode_opts.priv: what the start
 * of the file said (mdb_ft_sniff()).  priv NULL: the decoder sniffs itself.
 */
struct ft_params {
	int hashed;     /* pointers are hashed %p values */
	int ptr_digits; /* width of bare-hex pointers; 0 = any */
};

/* What the start of a file says about it (mdb_ft_sniff()). */
struct mdb_ft_sniff {
	int is_trace;        /* ftrace text: a tracer header or trace lines */
	int ptr_digits;      /* width of bare-hex pointers (16, 8), 0 none */
	int hashed;          /* pointers look like hashed %p values */
	int ncpus;           /* from a "#P:N" or "cpus=N" header; 0 unknown */
	uint64_t lines, events, pointers;
};

/*
 * Look at the first @len bytes of a file (a prefix: the last line may be
 * cut) and decide whether it is ftrace text, the width of its pointers
 * and whether they are hashed.  Pure; never fails.
 */
void mdb_ft_sniff(const void *buf, size_t len, struct mdb_ft_sniff *s);

/*
 * Decode every line of @buf into @sink.  Fills @st (records = lines).
 * Errors: a malformed line when o->strict (-MDB_E_CORRUPT, file and line
 * in @e), or the sink's.  Symbolic call sites that o->ksyms cannot
 * resolve keep address 0 and are reported once through warn().
 */
int mdb_ft_decode(const void *buf, size_t len, const struct mdb_decode_opts *o,
		  const struct mdb_sink *sink, struct mdb_decode_stats *st,
		  struct mdb_error *e);

/* The format table's probe and describe (see ingest/formats.h). */
int mdb_ft_probe(const void *buf, size_t len);
int mdb_ft_describe(const void *buf, size_t len, struct mdb_decode_opts *o,
		    struct mdb_source_meta *m, struct mdb_error *e);

#endif
