/* SPDX-License-Identifier: MIT */
/*
 * perf.data (PERFILE2, tools/perf/Documentation/perf.data-file-format.txt)
 * as written by `perf kmem record` and `perf record -e kmem:...`: the file
 * header, the attributes and their ids, the data section's records, and
 * the tracing-data feature section whose event formats (parsed by
 * libtraceevent) say where each field of a tracepoint's raw payload is.
 * Pipe-mode streams (`perf record -o -`: a 16-byte header, attributes and
 * tracing data as records) and the zstd-compressed records of `perf
 * record -z` (PERF_RECORD_COMPRESSED) are read too.
 *
 * Byte order is the producer's, told by the magic: "PERFILE2" read as a
 * little-endian u64 is a little-endian file, the same bytes reversed
 * ("2ELIFREP") a big-endian one.  Samples are handed to the sink stably
 * sorted by time, ties in file order (docs/design.md, Semantics: Order);
 * seq is the position in that order, from 1.  PERF_RECORD_LOST and
 * LOST_SAMPLES are counted as lost events.
 */
#ifndef MDB_PERFDATA_H
#define MDB_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#include "../decode.h"

#define PERF_FORMAT "perf-data"
#define PERF_CPU_NODE_MAX 4096 /* bytes of perf_info.cpu_node */

/* What the header and the feature sections say beyond the events. */
struct perf_info {
	enum mdb_order order;
	int pipe;              /* pipe-mode stream */
	int ncpus;             /* HEADER_NRCPUS (available); 0 unknown */
	char release[128];     /* HEADER_OSRELEASE; "" unknown */
	uint64_t data_bytes;   /* bytes of the data section */
	int dir_format;        /* HEADER_DIR_FORMAT: a `--threads` header */
	/* HEADER_NUMA_TOPOLOGY (a pipe's HEADER_FEATURE record): the
	 * traced machine's CPU-to-node map, a JSON array of [first CPU,
	 * last CPU, node] ranges in the file's node order; "" none */
	char cpu_node[PERF_CPU_NODE_MAX];
	char numa_bad[160];    /* why the topology there was not read; "" */
	uint64_t numa_off;     /* ... and where */
};

/* Does @buf start like a perf.data file or pipe stream?  1 yes, 0 no. */
int mdb_perf_probe(const void *buf, size_t len);

/*
 * Read the header (and, for a file, its feature sections) into @info.
 * Returns 0, or a negative MDB_E_* code with @e naming @name and the
 * offset.
 */
int mdb_perf_describe(const void *buf, size_t len, const char *name,
		      struct perf_info *info, struct mdb_error *e);

/*
 * Pass one alone (an input format's prepare, see ingest/formats.h): the
 * header, the event formats, every record's place and the time order,
 * into *@state for mdb_perf_decode() (as its options' prepared), which frees
 * it; mdb_perf_unprepare() frees one that never got there.
 */
int mdb_perf_prepare(const void *buf, size_t len, const struct mdb_decode_opts *o,
		     void **state, struct mdb_error *e);
void mdb_perf_unprepare(void *state);

/* The decoder (an mdb_decode_fn): pass one unless prepared, then two. */
int mdb_perf_decode(const void *buf, size_t len, const struct mdb_decode_opts *o,
		    const struct mdb_sink *sink, struct mdb_decode_stats *st,
		    struct mdb_error *e);

#endif
