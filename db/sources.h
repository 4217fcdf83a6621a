/* SPDX-License-Identifier: MIT */
/*
 * Reading the source table for the commands: what a report's header says
 * of its sources, the kind of a source, a label's and a series' sources,
 * and the list memdb sources and memdb html show.  The SQL is here; the
 * commands word and render what it returns.
 */
#ifndef MDB_DB_SOURCES_H
#define MDB_DB_SOURCES_H

#include "db.h"

/* A source row as a report's header describes it; strings never NULL. */
struct mdb_source_desc {
	int64_t id;
	const char *format, *path, *version, *notes, *label, *taken_at;
	int ncpus, whole_capture;
	int64_t overruns, lost_events, seq_missing, unknown, malformed;
	int64_t events;
	int64_t zones, tags;   /* snapshot rows */
	int64_t approx;        /* zone and tag rows flagged approx */
	int64_t inaccurate;    /* tag rows not accurate */
	int64_t tags_skipped;  /* a core dump's unreadable alloc tags */
	int64_t unnamed;       /* call sites (not 0) with no symbol */
};

/*
 * @row for each source with an id in [@lo, @hi], by id; the strings hold
 * until @row returns.  <0 with @e set ("cannot read sources") when the
 * database cannot be read.
 */
int mdb_sources_describe(struct mdb_db *db, int64_t lo, int64_t hi,
			 void (*row)(void *ctx,
				     const struct mdb_source_desc *d),
			 void *ctx, struct mdb_error *e);

/* Kinds of source, from its rows. */
enum {
	MDB_KIND_TRACE = 1 << 0, /* neither of the others: alloc/free events */
	MDB_KIND_TAGS = 1 << 1,  /* allocation tags (allocinfo) */
	MDB_KIND_ZONES = 1 << 2, /* zones, malloc types, slab caches */
};

/*
 * @row for source @id (0: every source, the newest first) with its
 * format and kinds (MDB_KIND_*; a core dump has tags and zones), until
 * @row returns nonzero.  <0 with @e set when the database cannot be read.
 */
int mdb_source_kinds(struct mdb_db *db, int64_t id,
		     int (*row)(void *ctx, int64_t id, const char *format,
				unsigned kinds),
		     void *ctx, struct mdb_error *e);

/*
 * @row for each source labelled @label, the latest first (by taken_at,
 * then id), until it returns nonzero (or <0: returned as it is).
 */
int mdb_sources_labelled(struct mdb_db *db, const char *label,
			 int (*row)(void *ctx, int64_t id), void *ctx,
			 struct mdb_error *e);

/*
 * Step @st (finalized here), calling @row for the id in its column 0 of
 * each row until @row returns nonzero; <0 (@row's, or "cannot read
 * sources") on failure.
 */
int mdb_sources_each_id(struct mdb_db *db, sqlite3_stmt *st,
			int (*row)(void *ctx, int64_t id), void *ctx,
			struct mdb_error *e);

/* The first (@last 0) or the last source of the series of source @id
 * (same label and format, by taken_at, then id) into *@out. */
int mdb_source_series_end(struct mdb_db *db, int64_t id, int last,
			  int64_t *out, struct mdb_error *e);

/* The lists of sources, one row a source, ready to step. */
enum mdb_source_list {
	MDB_SOURCES_LIST,  /* memdb sources: every column it shows */
	MDB_SOURCES_PAGE,  /* memdb html's table: without ingested_at and
			    * byte order */
};

int mdb_sources_list(struct mdb_db *db, enum mdb_source_list which,
		     sqlite3_stmt **st, struct mdb_error *e);

#endif
