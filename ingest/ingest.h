/* SPDX-License-Identifier: MIT */
/*
 * The public face of ingest/: open a path as one source (detecting its
 * format), describe it, and decode it into a sink.
 *
 * Opening maps the files, hashes the event data (so a caller can tell a
 * re-ingest of identical bytes before decoding) and validates headers;
 * decoding streams events in the source's global order.
 */
#ifndef MDB_INGEST_H
#define MDB_INGEST_H

#include <stdint.h>

#include "../common/bytes.h"
#include "../common/error.h"
#include "event.h"

struct mdb_ingest_opts {
	enum mdb_order order; /* forced byte order; UNKNOWN = detect */
	int abi;              /* forced ABI version; 0 = as the capture says */
	int cpu;              /* CPU of a lone per-CPU file; -1 = from name */
	const char *format;   /* read as this format (mdb_input_formats());
			       * NULL = detect */
	const char *kallsyms; /* kallsyms of the traced boot, for symbolic
			       * call sites in text; NULL = the capture's */
	const char *vmlinux;  /* core dumps: the kernel with DWARF; NULL */
	const char *btf;      /* core dumps: the kernel's BTF as a file;
			       * NULL: the BTF in the dump */
	uint64_t page_size;   /* bytes per page of page events; 0 = 4096 */
	int strict;           /* a malformed text line is an error */
	int symbolize;        /* memdb ingest names a trace's call sites
			       * after its commit when symbols are at hand */
	int stream;           /* set by the opener: PATH was "-" */
	/*
	 * The caller can drop what a decode emitted and decode again:
	 * perf.data is then emitted as it is read, round by round, and
	 * mdb_input_decode() returns -MDB_E_ORDER (the next decode reads it
	 * in two passes) when the file does not keep its rounds' order.
	 */
	int rounds;
	/*
	 * Called for what a decoder skips but the user should hear about
	 * (the first malformed lines, call sites kallsyms cannot resolve);
	 * @w->msg says what, file and line where.  May be NULL.
	 */
	void (*warn)(void *ctx, const struct mdb_error *w);
	void *warn_ctx;
};

#define MDB_HASH_HEX 33 /* 128-bit content hash as hex, with NUL */
#define MDB_MAX_ATTACH 4

/*
 * A file of a capture directory kept with the source (a kallsyms,
 * /proc/modules or sections snapshot), for memdb symbolize.
 */
struct mdb_attach {
	const char *name;  /* "kallsyms", "modules", "sections" */
	char path[4096];
	/* the bytes themselves, when a capture file carries them (a
	 * trace.dat's kallsyms): kept instead of reading path */
	const void *data;
	size_t len;
};

#define MDB_CPU_NODE_MAX 4096 /* bytes of mdb_source_meta.cpu_node */

/* What is known of a source's origin; stored in the source table. */
struct mdb_source_meta {
	const char *format;     /* "kmemtrace-relay", ... */
	int abi_version;        /* version the data was read as; -1 n/a */
	enum mdb_order order;   /* byte order of binary data */
	int word_size;          /* producer word size in bytes; 0 unknown */
	int ncpus;              /* per-CPU files, or CPUs seen */
	int64_t overruns;       /* producer's overrun count; -1 unknown */
	int hashed_ptrs;        /* pointers are hashed (%p), not addresses */
	int whole_capture;      /* every CPU of the trace: seq gaps are lost
				 * events (a capture directory) */
	char hash[MDB_HASH_HEX];
	uint64_t data_bytes;    /* bytes of event data */
	char kernel_release[128];
	char notes[512];        /* remarks for report headers, "" if none */
	struct mdb_attach attach[MDB_MAX_ATTACH]; /* see mdb_attach_scan() */
	int nattach;
	int snapshot;           /* 1: statistics snapshot (mdb_input_decode_snap) */
	int64_t mtime;          /* modification time of PATH, Unix seconds */
	int64_t taken;          /* when the input says it was taken (a
				 * core dump's time), Unix seconds; 0 none */
	/* what mdb_decode_stats.unknown counts, for messages; NULL =
	 * "records with unknown event or type ids" */
	const char *unknown_what;
	/* the traced machine's CPU-to-node map when the capture records
	 * it (perf.data): a JSON array of [first CPU, last CPU, node]
	 * ranges; "" none (source.cpu_node, db/schema-10.sql) */
	char cpu_node[MDB_CPU_NODE_MAX];
};

struct mdb_input;
struct mdb_snap_sink;
struct mdb_snap_info;

void mdb_ingest_opts_init(struct mdb_ingest_opts *o);

/*
 * Note the files of capture directory @dir that are kept with its source
 * (whatever the event format): "kallsyms", "modules" (/proc/modules) and
 * "sections" (MODULE SECTION ADDRESS lines), when they are regular files.
 * The loader stores them in the source_file table.  A symbolic link among
 * them is refused when it leads out of @dir (mdb_capture_file()).
 */
int mdb_attach_scan(struct mdb_source_meta *m, const char *dir,
		    struct mdb_error *e);

/*
 * The file @name of capture directory @dir that memdb keeps or reads
 * with the capture (kallsyms, kernel-release ...): 0 with its path in
 * *@path (malloc'ed), 1 when there is none (or a dangling link), <0 when
 * it is a symbolic link that resolves outside @dir: such a link is
 * refused, so a capture cannot make memdb store a file from elsewhere.
 */
int mdb_capture_file(const char *dir, const char *name, char **path,
		     struct mdb_error *e);

/* Fill m->kernel_release from a kernel-release file in @dir, if any;
 * <0 only for a link out of @dir (mdb_capture_file()). */
int mdb_read_release(const char *dir, struct mdb_source_meta *m,
		     struct mdb_error *e);

/* The name standard input goes by in messages and the source table. */
#define MDB_STDIN_NAME "<stdin>"

/*
 * Open @path as one source; *@in is NULL on failure.  "-" reads standard
 * input; zstd, gzip and xz inputs are decompressed (spool.h).
 */
int mdb_input_open(const char *path, const struct mdb_ingest_opts *o,
		   struct mdb_input **in, struct mdb_error *e);

/*
 * The source's description.  Its hash may still be being computed on
 * another thread (see mdb_input_prepare()): this waits for it.
 */
const struct mdb_source_meta *mdb_input_meta(struct mdb_input *in);

/*
 * The source's description as far as it is known: its hash may be
 * empty, still being computed (opened with rounds: see
 * mdb_input_prepare()); mdb_input_meta() waits for it.
 */
const struct mdb_source_meta *mdb_input_meta_early(struct mdb_input *in);

/*
 * Do now what the format reads before its first event (perf.data: all
 * its records, to sort them), while the input's hash is computed on
 * another thread, and wait for the hash; mdb_input_decode() goes on from
 * there.  Formats that stream only wait for the hash here.  Opened with
 * rounds, perf.data reads nothing here and the hash is not waited for:
 * it goes on while the events are read.  Returns 0 or -MDB_E_* (@e says
 * what; a file that shrank meanwhile is an error).
 */
int mdb_input_prepare(struct mdb_input *in, struct mdb_error *e);

/*
 * How far mdb_input_decode() has come, for progress: bytes of the input
 * read so far and its size.  Returns 0, or -1 when the size is not known.
 */
int mdb_input_position(const struct mdb_input *in, uint64_t *done,
		       uint64_t *size);

/* Decode every event into @sink, in global order; fills @st. */
int mdb_input_decode(struct mdb_input *in, const struct mdb_sink *sink,
		     struct mdb_decode_stats *st, struct mdb_error *e);

/* Decode a snapshot (meta->snapshot) into @sink; fills @info. */
int mdb_input_decode_snap(struct mdb_input *in,
			  const struct mdb_snap_sink *sink,
			  struct mdb_snap_info *info, struct mdb_error *e);

/*
 * The input formats memdb reads, in detection order: their names (as
 * --format takes them and source.format stores them), NULL-terminated.
 */
const char *const *mdb_input_formats(void);

/* What format @name is, in a sentence or two for a usage text; NULL when
 * memdb has no such format. */
const char *mdb_input_format_help(const char *name);

/* Is @format (a source.format value) a statistics snapshot? */
int mdb_format_is_snapshot(const char *format);

/* A kernel release by its first two numbers: 4.2 is { 4, 2 }. */
struct mdb_kernel_version {
	int major, minor;
};

/*
 * Do producers of @format (a source.format value) trace every slab
 * allocation path on older kernels?  1 with the first release that no
 * longer does in *@before, else 0.
 */
int mdb_format_all_paths_before(const char *format,
				struct mdb_kernel_version *before);

void mdb_input_close(struct mdb_input *in);

#endif
