/* SPDX-License-Identifier: MIT */
/*
 * The memdb database: opening (with schema creation and forward
 * migration), sources, and the loader that writes one source in one
 * transaction while pairing its events.
 */
#ifndef MDB_DB_H
#define MDB_DB_H

#include <sqlite3.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/error.h"
#include "../ingest/ingest.h"

#define MDB_SCHEMA_VERSION 14

enum {
	MDB_DB_READONLY = 1 << 0, /* never writes; the file must exist */
	MDB_DB_EXISTING = 1 << 1, /* the file must exist */
};

struct mdb_db {
	sqlite3 *h;
	char *path;
	int fresh;     /* empty at open: filled in rollback-journal mode */
	int created;   /* the file did not exist: this open made it */
	int imaged;    /* ... from the new-database image (db.c) */
	int readonly;
	dev_t dev;     /* the file opened (read-write opens) */
	ino_t ino;
	int64_t wait_start; /* busy handler: when this wait began, in ms */
	int wait_told;      /* and whether the wait hook was called */
	int scan_module;    /* report/engine.c registered slab_scan on h */
};

/*
 * Open (read-write: creating and migrating) the database at @path; the
 * struct must stay where it is until closed.  A read-only connection can
 * only read the database (reports, memdb sql): no writes, no ATTACH or
 * VACUUM INTO, no extensions, no pragma that changes anything; temp
 * tables are allowed.  It works where nothing can be written (read-only
 * media, a directory of someone else's) and says so when the database is
 * being created by another memdb's first ingest.
 */
int mdb_db_open(struct mdb_db *db, const char *path, unsigned flags,
		struct mdb_error *e);

/*
 * Could a database be made at @path, which is not there: 0, or <0 with
 * @e saying why not (its directory or mount is read-only).
 */
int mdb_db_can_create(const char *path, struct mdb_error *e);

/*
 * Waiting for another memdb that holds the database (locked): after about
 * a second, @fn is called once per wait with the database path and
 * whether this connection only reads; waits end after 10 minutes.
 */
typedef void (*mdb_db_wait_fn)(const char *path, int reader);
void mdb_db_on_wait(mdb_db_wait_fn fn);

/*
 * Is the file at db->path still the one opened?  (A database that a
 * failed first ingest removed is not.)  Always 1 for read-only opens.
 */
int mdb_db_same_file(struct mdb_db *db);

/*
 * Close, and when this open created the file and it holds no source (every
 * input was rejected), remove it (and its journal): *@removed says so.
 */
int mdb_db_close_or_remove(struct mdb_db *db, int *removed,
			   struct mdb_error *e);

/* Close; a fresh database is switched to WAL mode first. */
int mdb_db_close(struct mdb_db *db, struct mdb_error *e);

/* Record the last SQLite error of @db in @e and return -MDB_E_DB. */
int mdb_db_error(struct mdb_db *db, struct mdb_error *e, const char *what);

/* Run SQL without results. */
int mdb_db_exec(struct mdb_db *db, const char *sql, struct mdb_error *e);

/* Run @sql (its ?1, if any, bound to @arg); the first column of its first
 * row into *@out.  1: a row, 0: none, or -MDB_E_DB. */
int mdb_db_int_query(struct mdb_db *db, const char *sql, int64_t arg,
		     int64_t *out, struct mdb_error *e);

/* Most recently ingested source id, 0 when there is none. */
int mdb_db_latest_source(struct mdb_db *db, int64_t *id,
			 struct mdb_error *e);

/* Does source @id exist?  1 yes, 0 no, <0 error. */
int mdb_db_source_exists(struct mdb_db *db, int64_t id, struct mdb_error *e);

/* Delete every row of source @id inside the caller's transaction. */
int mdb_db_delete_rows(struct mdb_db *db, int64_t id, struct mdb_error *e);

/*
 * The tables holding a source's rows besides source itself, the one list
 * delete and merge go by: a table's rows of source ID are those whose
 * source_id is ID or, for a table with an @owner, the rowids from @lo to
 * @hi of the owner's row of ID ("source": its id), the source's rows
 * being one contiguous range there.
 */
struct mdb_source_table {
	const char *name;
	const char *owner, *lo, *hi; /* NULL: rows by source_id */
};

const struct mdb_source_table *mdb_source_tables(size_t *n);

/*
 * The capture file @name ("kallsyms", "modules", "sections") kept with
 * source @id: 1 with *@data (malloc'ed, NUL-terminated) and *@len, 0 when
 * the source has none, <0 on error.
 */
int mdb_db_source_file(struct mdb_db *db, int64_t id, const char *name,
		       void **data, size_t *len, struct mdb_error *e);

/* Delete source @id and every row of it, in one transaction. */
int mdb_db_delete_source(struct mdb_db *db, int64_t id, struct mdb_error *e);

/* ---- merging databases ----------------------------------------------- */

/* A source of a merged database: copied, or skipped as already there. */
struct mdb_merge_source {
	int64_t in_id;     /* its id in the input */
	int64_t out_id;    /* its id in the output: the new one, or, when
			    * skipped, the source already holding its data */
	int skipped;       /* its content hash was in the output already */
	char *format, *label, *path; /* the input's (label may be NULL) */
	char *out_label;   /* skipped: the label of the one there */
	int64_t rows;      /* rows copied besides the source's own */
};

struct mdb_merge_result {
	struct mdb_merge_source *sources; /* in the input's order */
	size_t n, cap;
	int64_t merged, skipped, rows;
	int migrated_from; /* the input's schema version when it was older
			    * and a migrated copy was read, else 0 */
};

/*
 * Copy every source of the database at @in_path into @out (opened to
 * write) with all its rows, in one transaction: new source ids, rows of
 * the tables read by rowid range moved to new ranges, labels and
 * everything else kept; a source whose content hash @out holds already
 * is skipped.  An input of an older schema is read from a migrated copy
 * (the file itself is not changed), one of a newer schema refused.  On
 * error @out is as it was.  mdb_merge_result_release() @res after.
 */
int mdb_db_merge(struct mdb_db *out, const char *in_path,
		 struct mdb_merge_result *res, struct mdb_error *e);

void mdb_merge_result_release(struct mdb_merge_result *r);

/* ---- loading one source ---------------------------------------------- */

struct mdb_load;

struct mdb_load_opts {
	int force;         /* re-ingest identical data, replacing the old */
	const char *label; /* machine label, may be NULL */
	int64_t taken_at;  /* when the data was captured, Unix seconds */
	int has_taken_at;  /* 0: not known (source.taken_at NULL) */
	/* the meta's hash may still be empty, to come before the COMMIT
	 * (mdb_source_begin()) */
	int hash_late;
	/* progress: called every few hundred thousand events, may be NULL */
	void (*progress)(void *ctx, uint64_t events);
	void *progress_ctx;
	/* a snapshot decoder's warnings (mdb_snap_sink.warn), may be NULL;
	 * the snapshot loader also keeps them in the source's notes */
	void (*warn)(void *ctx, const struct mdb_error *w);
	void *warn_ctx;
};

/* Counts of what a load wrote; for the CLI's one-line summary. */
struct mdb_load_result {
	int64_t source_id;
	int duplicate_of;   /* 1 when identical data was already present */
	int relabeled;      /* and its label was set to opts->label */
	uint64_t allocations;
	uint64_t bad_frees;
	uint64_t live;
	uint64_t zones, zone_cpus, tags; /* snapshots */
};

/*
 * Start writing a source (every loader begins here): clear @res, BEGIN
 * IMMEDIATE, then either find identical data already ingested (returns 1
 * with res->source_id the existing source and res->duplicate_of set, its
 * label set to opts->label when one is given (res->relabeled when that
 * changed it), the transaction ended; unless opts->force, which deletes
 * it and goes on) or
 * insert the source row (returns 0 with res->source_id, the transaction
 * open).  On error the transaction is rolled back.  With
 * opts->hash_late, a @meta with no hash yet (mdb_input_meta_early()) is
 * inserted without one when no source
 * has its data size, so none can hold the same data; else
 * this returns 2, the transaction ended, for the caller to come back
 * with the hash.  The hash is then set by mdb_source_hash() before the
 * COMMIT.
 */
int mdb_source_begin(struct mdb_db *db, const char *path,
		     const struct mdb_source_meta *meta,
		     const struct mdb_load_opts *opts,
		     struct mdb_load_result *res, struct mdb_error *e);

/* What every loader (trace, snapshot) keeps of the source it writes. */
struct mdb_load_head {
	struct mdb_db *db;
	struct mdb_error *e;       /* where its callbacks' errors go */
	struct mdb_load_opts opts;
	int64_t source_id;
};

/* Fill @h from the arguments and mdb_source_begin() its source. */
int mdb_load_head_begin(struct mdb_load_head *h, struct mdb_db *db,
			const char *path, const struct mdb_source_meta *meta,
			const struct mdb_load_opts *opts,
			struct mdb_load_result *res, struct mdb_error *e);

/* COMMIT the source of @h (res->source_id), or ROLLBACK when that fails. */
int mdb_load_head_commit(const struct mdb_load_head *h,
			 struct mdb_load_result *res, struct mdb_error *e);

/* Set the hash of source @source_id (begun without one), in its
 * transaction. */
int mdb_source_hash(struct mdb_db *db, int64_t source_id, const char *hash,
		    struct mdb_error *e);

/* mdb_source_hash() of the source @l writes. */
int mdb_load_hash(struct mdb_load *l, const char *hash, struct mdb_error *e);

/*
 * Begin a source: BEGIN IMMEDIATE, and either find identical data already
 * ingested (returns 1, res->source_id set, nothing written; unless
 * opts->force, which deletes it and continues) or insert the source row
 * (returns 0), or (2) wants the hash first (mdb_source_begin()).  On 0
 * the caller feeds mdb_load_sink() and then calls mdb_load_commit() or
 * mdb_load_abort().
 */
int mdb_load_begin(struct mdb_db *db, const char *path,
		   const struct mdb_source_meta *meta,
		   const struct mdb_load_opts *opts, struct mdb_load **out,
		   struct mdb_load_result *res, struct mdb_error *e);

/* The sink the decoder writes into. */
const struct mdb_sink *mdb_load_sink(struct mdb_load *l);

/* Pair what is left, write aggregates and counters, COMMIT, free @l. */
int mdb_load_commit(struct mdb_load *l, const struct mdb_decode_stats *st,
		    struct mdb_load_result *res, struct mdb_error *e);

/* ROLLBACK and free @l: the database is as before mdb_load_begin(). */
void mdb_load_abort(struct mdb_load *l);


/* ---- loading one snapshot -------------------------------------------- */

struct mdb_snap_load;
struct mdb_snap_sink;
struct mdb_snap_info;

/*
 * Begin a snapshot source, as mdb_load_begin(): 1 when identical data is
 * already present (nothing written), 0 with *@out to feed through
 * mdb_snap_load_sink() and finish with mdb_snap_commit() or
 * mdb_snap_abort().
 */
int mdb_snap_begin(struct mdb_db *db, const char *path,
		   const struct mdb_source_meta *meta,
		   const struct mdb_load_opts *opts, struct mdb_snap_load **out,
		   struct mdb_load_result *res, struct mdb_error *e);

/* The sink the snapshot decoder writes into. */
const struct mdb_snap_sink *mdb_snap_load_sink(struct mdb_snap_load *l);

/* Record what the decoder learnt, COMMIT, free @l. */
int mdb_snap_commit(struct mdb_snap_load *l, const struct mdb_snap_info *info,
		    struct mdb_load_result *res, struct mdb_error *e);

/* ROLLBACK and free @l: the database is as before mdb_snap_begin(). */
void mdb_snap_abort(struct mdb_snap_load *l);

#endif
