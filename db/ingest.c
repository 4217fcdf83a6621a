// SPDX-License-Identifier: MIT
/* One input from its path to its commit; see ingest.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "../common/file.h"
#include "ingest.h"

/* The database, opened if it is not yet; <0 with @e set when it fails. */
static int db_need(struct mdb_ingest_db *d, struct mdb_error *e)
{
	if (d->open)
		return 0;
	if (d->failed || mdb_db_open(&d->db, d->path, 0, e) < 0) {
		d->failed = 1;
		return -1;
	}
	d->open = 1;
	return 0;
}

int mdb_ingest_db_start(struct mdb_ingest_db *d, struct mdb_error *e)
{
	if (access(d->path, F_OK) == 0 || errno != ENOENT)
		return db_need(d, e);
	return mdb_db_can_create(d->path, e);
}

int mdb_ingest_db_finish(struct mdb_ingest_db *d, int *removed,
			 struct mdb_error *e)
{
	*removed = 0;
	if (!d->open)
		return 0;
	d->open = 0;
	return mdb_db_close_or_remove(&d->db, removed, e);
}

void mdb_ingest_result_release(struct mdb_ingest_result *r)
{
	mdb_input_close(r->in);
	r->in = NULL;
	r->meta = NULL;
}

/* The source's transaction is open (@open 1) or has ended. */
static void txn(const struct mdb_ingest_hooks *h, struct mdb_db *db,
		const struct mdb_load_result *res, int open)
{
	if (h->first_source && (!open || (db->created &&
					  res->source_id == 1)))
		h->first_source(h->ctx, db->path, open);
}

/*
 * After a loader's begin returned @ret: <0 failed, 1 the data was there
 * already (a duplicate), 0 the source's transaction is open.
 */
static int begun(int ret, const struct mdb_ingest_hooks *h,
		 struct mdb_db *db, struct mdb_ingest_result *r)
{
	if (ret == 1)
		r->kind = MDB_INGESTED_DUPLICATE;
	else if (ret == 0)
		txn(h, db, &r->res, 1);
	return ret;
}

/* Decode a snapshot input into the snapshot loader. */
static int load_snapshot(struct mdb_db *db, const char *path,
			 const struct mdb_load_opts *lo,
			 const struct mdb_ingest_hooks *h,
			 struct mdb_ingest_result *r, struct mdb_error *e)
{
	struct mdb_snap_load *load;
	int ret;

	r->meta = mdb_input_meta(r->in);
	ret = begun(mdb_snap_begin(db, path, r->meta, lo, &load, &r->res, e),
		    h, db, r);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = mdb_input_decode_snap(r->in, mdb_snap_load_sink(load), &r->info,
				    e);
	if (ret < 0) {
		mdb_snap_abort(load);
		return ret;
	}
	r->kind = MDB_INGESTED_SNAPSHOT;
	return mdb_snap_commit(load, &r->info, &r->res, e);
}

/*
 * Decode a trace into the loader.  Begun without the content hash when
 * no source has the input's size (the hash comes before the commit);
 * when one has, the hash is waited for to tell whether it is this data.
 */
static int load_events(struct mdb_db *db, const char *path,
		       struct mdb_load_opts *lo,
		       const struct mdb_ingest_hooks *h,
		       struct mdb_ingest_result *r, struct mdb_error *e)
{
	const struct mdb_source_meta *m = r->meta;
	struct mdb_load *load;
	int ret, tried = 0, hash_waited = 0;

again:
	lo->hash_late = !m->hash[0] && !hash_waited;
	ret = mdb_load_begin(db, path, m, lo, &load, &r->res, e);
	if (ret == 2) {
		m = r->meta = mdb_input_meta(r->in);
		hash_waited = 1;
		goto again;
	}
	ret = begun(ret, h, db, r);
	if (ret)
		return ret < 0 ? ret : 0;
	memset(&r->st, 0, sizeof(r->st));
	ret = mdb_input_decode(r->in, mdb_load_sink(load), &r->st, e);
	if (ret == -MDB_E_ORDER && !tried) {
		/* emitted round by round, but the rounds broke the time
		 * order: drop the source's rows, read it in two passes */
		mdb_load_abort(load);
		txn(h, db, &r->res, 0);
		tried = 1;
		if (h->again)
			h->again(h->ctx);
		mdb_error_clear(e);
		goto again;
	}
	if (ret >= 0 && !m->hash[0]) {
		m = r->meta = mdb_input_meta(r->in);
		ret = mdb_map_check(mdb_load_hash(load, m->hash, e), e);
	}
	if (ret < 0) {
		mdb_load_abort(load);
		return ret;
	}
	r->kind = MDB_INGESTED_EVENTS;
	return mdb_load_commit(load, &r->st, &r->res, e);
}

int mdb_ingest_path(struct mdb_ingest_db *d, const char *path,
		    const struct mdb_ingest_opts *io_in,
		    const struct mdb_load_opts *lo_in,
		    const struct mdb_ingest_hooks *h,
		    struct mdb_ingest_result *r, struct mdb_error *e)
{
	struct mdb_ingest_opts io = *io_in;
	struct mdb_load_opts lo = *lo_in;
	const struct mdb_source_meta *m;
	int ret;

	memset(r, 0, sizeof(*r));
	io.warn = lo.warn = h->warn;
	io.warn_ctx = lo.warn_ctx = h->ctx;
	ret = mdb_input_open(path, &io, &r->in, e);
	/* perf.data reads and sorts its records while its hash is taken;
	 * read round by round, it starts on its events meanwhile */
	if (ret >= 0)
		ret = mdb_input_prepare(r->in, e);
	if (ret >= 0)
		ret = db_need(d, e);
	if (ret < 0)
		goto fail;
	m = r->meta = mdb_input_meta_early(r->in);
	/* the time it was taken: the caller's, else the input's own (a
	 * core dump's), else the modification time of @path */
	if (!lo.has_taken_at) {
		lo.taken_at = m->taken ? m->taken : m->mtime;
		lo.has_taken_at = 1;
	}
	r->taken_at = lo.taken_at;
	if (h->ready)
		h->ready(h->ctx, r->in);
	lo.progress = h->progress;
	lo.progress_ctx = h->ctx;
	ret = m->snapshot ? load_snapshot(&d->db, path, &lo, h, r, e) :
			    load_events(&d->db, path, &lo, h, r, e);
	/* committed or rolled back */
	txn(h, &d->db, &r->res, 0);
	if (ret >= 0)
		return 0;
fail:
	mdb_ingest_result_release(r);
	return ret < 0 ? ret : -1;
}
