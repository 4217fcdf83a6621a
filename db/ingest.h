/* SPDX-License-Identifier: MIT */
/*
 * One input from its path to its commit, the steps of memdb ingest: open
 * and prepare the input, open the database when the first input is
 * ready, begin the source (waiting for the content hash when a source of
 * its size is there), decode into the loader, read a perf.data file again
 * in two passes when its rounds broke the time order, and commit.  The
 * caller hears of progress, warnings and the source's transaction through
 * hooks, and renders the result; nothing here prints.
 */
#ifndef MDB_DB_INGEST_H
#define MDB_DB_INGEST_H

#include "../ingest/snapshot.h"
#include "db.h"

/*
 * The database inputs go into.  One that is not there yet is made only
 * when the first input is open (standard input read to its end, a file
 * mapped and hashed): an ingest stopped before that (a pipe that never
 * delivers) leaves no file, as a rejected first ingest leaves none
 * (mdb_db_close_or_remove()).
 */
struct mdb_ingest_db {
	const char *path;
	struct mdb_db db;
	int open;
	int failed;   /* could not be opened: no input is tried after */
};

/*
 * Before the first input: a database that is there is opened (or
 * refused) now; of one that is not, only whether it can be made.
 */
int mdb_ingest_db_start(struct mdb_ingest_db *d, struct mdb_error *e);

/*
 * After the last input: close the database; a new one that nothing went
 * into is removed (*@removed = 1).  Nothing to do when it was never
 * opened.
 */
int mdb_ingest_db_finish(struct mdb_ingest_db *d, int *removed,
			 struct mdb_error *e);

/* What the caller hears during one ingest; every member may be NULL. */
struct mdb_ingest_hooks {
	/* the input is open and the database too: decoding starts */
	void (*ready)(void *ctx, const struct mdb_input *in);
	/* mdb_load_opts.progress */
	void (*progress)(void *ctx, uint64_t events);
	/* what a decoder skipped but reports (mdb_ingest_opts.warn) */
	void (*warn)(void *ctx, const struct mdb_error *w);
	/* the decode is dropped and read again, in two passes: the
	 * warnings it said are said again */
	void (*again)(void *ctx);
	/*
	 * The source's transaction opened (@open 1) as the first source of
	 * a database this ingest made (source id 1): the caller may remove
	 * database @path when killed meanwhile; @open 0: the input's
	 * transaction, if one began, has ended.
	 */
	void (*first_source)(void *ctx, const char *path, int open);
	void *ctx;
};

enum mdb_ingest_kind {
	MDB_INGESTED_EVENTS = 1,  /* a trace: st, res */
	MDB_INGESTED_SNAPSHOT,    /* a snapshot: info, res */
	MDB_INGESTED_DUPLICATE,   /* identical data was there: res */
};

/* What one ingest wrote; mdb_ingest_result_release() after use. */
struct mdb_ingest_result {
	enum mdb_ingest_kind kind;
	const struct mdb_source_meta *meta; /* the input's, while held */
	struct mdb_load_result res;
	struct mdb_decode_stats st;
	struct mdb_snap_info info;
	int64_t taken_at;   /* the source's time, as stored */
	struct mdb_input *in;
};

/*
 * Ingest @path into @d (opened here when not yet) as one source: the
 * input is read with @io (its warn members are the hooks'), the source
 * written with @lo (its progress and warn members are the hooks'); the
 * source's time is @lo's, else the input's own (a core dump's), else the
 * modification time of @path.  0 with @r filled (release it), or <0 with
 * @e set and nothing of the input in the database.
 */
int mdb_ingest_path(struct mdb_ingest_db *d, const char *path,
		    const struct mdb_ingest_opts *io,
		    const struct mdb_load_opts *lo,
		    const struct mdb_ingest_hooks *hooks,
		    struct mdb_ingest_result *r, struct mdb_error *e);

void mdb_ingest_result_release(struct mdb_ingest_result *r);

#endif
