// SPDX-License-Identifier: MIT
/*
 * The source row every loader starts with: one transaction per source,
 * opened here; identical data (same content hash) already ingested makes
 * the load a no-op unless forced, which replaces the earlier source.
 */
#include <stdlib.h>
#include <string.h>

#include "../common/file.h"
#include "db.h"
#include "sqlutil.h"

#define MAX_SAME 64 /* sources with one hash (only --force makes more) */

/* Sources holding identical data: how many, the first in *@first; with
 * @drop, each is deleted (inside the caller's transaction). */
static int find_or_drop_same(struct mdb_db *db,
			     const struct mdb_source_meta *m, int drop,
			     int64_t *first, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int64_t ids[MAX_SAME];
	int n = 0, rc, ret = 0;

	if (sqlite3_prepare_v2(db->h,
			       "SELECT id FROM source WHERE hash = ?1 "
			       "ORDER BY id", -1, &st, NULL))
		return mdb_db_error(db, e, "cannot query sources");
	sqlite3_bind_text(st, 1, m->hash, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < MAX_SAME)
		ids[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return mdb_db_error(db, e, "cannot query sources");
	if (n)
		*first = ids[0];
	for (int i = 0; drop && i < n && ret >= 0; i++)
		ret = mdb_db_delete_rows(db, ids[i], e);
	return ret < 0 ? ret : n;
}

/* Is there a source of @m's data size (in any format: a --format forced
 * once may differ)?  1, 0 or -MDB_E_DB. */
static int same_size(struct mdb_db *db, const struct mdb_source_meta *m,
		     struct mdb_error *e)
{
	int64_t one;

	return mdb_db_int_query(db, "SELECT 1 FROM source WHERE "
				"data_bytes = ?1", (int64_t)m->data_bytes,
				&one, e);
}

int mdb_source_hash(struct mdb_db *db, int64_t source_id, const char *hash,
		    struct mdb_error *e)
{
	return mdb_sql_exec_id(db, "UPDATE source SET hash = ?2 WHERE id = ?1",
			       source_id, hash, "cannot write to database", e);
}

static int insert_source(struct mdb_db *db, const char *path,
			 const struct mdb_source_meta *m,
			 const struct mdb_load_opts *opts, int64_t *id,
			 struct mdb_error *e)
{
	sqlite3_stmt *st;
	char *real;

	if (sqlite3_prepare_v2(db->h,
			       "INSERT INTO source (path, format, hash, "
			       "ingested_at, taken_at, label, kernel_release, "
			       "abi_version, byte_order, word_size, ncpus, "
			       "hashed_ptrs, data_bytes, overruns, notes, "
			       "whole_capture, cpu_node) "
			       "VALUES (?1, ?2, ?3, "
			       "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), "
			       "strftime('%Y-%m-%dT%H:%M:%SZ', ?14, "
			       "'unixepoch'), ?4, ?5, "
			       "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?15, "
			       "?16)",
			       -1, &st, NULL))
		return mdb_db_error(db, e, "cannot write to database");
	real = realpath(path, NULL);
	sqlite3_bind_text(st, 1, real ? real : path, -1, SQLITE_TRANSIENT);
	free(real);
	sqlite3_bind_text(st, 2, m->format, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, m->hash, -1, SQLITE_STATIC);
	bind_text_or_null(st, 4, opts->label);
	bind_text_or_null(st, 5, m->kernel_release);
	bind_opt(st, 6, m->abi_version, m->abi_version < 0);
	bind_text_or_null(st, 7, order_name(m->order));
	bind_opt(st, 8, m->word_size, !m->word_size);
	bind_opt(st, 9, m->ncpus, !m->ncpus);
	sqlite3_bind_int(st, 10, m->hashed_ptrs);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)m->data_bytes);
	bind_opt(st, 12, m->overruns, m->overruns < 0);
	bind_text_or_null(st, 13, m->notes);
	bind_opt(st, 14, opts->taken_at, !opts->has_taken_at);
	sqlite3_bind_int(st, 15, m->whole_capture);
	bind_text_or_null(st, 16, m->cpu_node);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		return mdb_db_error(db, e, "cannot write to database");
	}
	sqlite3_finalize(st);
	*id = sqlite3_last_insert_rowid(db->h);
	return 0;
}

/* Largest capture file kept with a source (a kallsyms is ~10 MB). */
#define MAX_ATTACH_BYTES (256u << 20)

/* Keep the capture's snapshot files with the source (source_file). */
static int write_attachments(struct mdb_db *db, int64_t source_id,
			     const struct mdb_source_meta *m,
			     struct mdb_error *e)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (!m->nattach)
		return 0;
	if (sqlite3_prepare_v2(db->h,
			       "INSERT INTO source_file (source_id, name, "
			       "data) VALUES (?1, ?2, ?3)", -1, &st, NULL))
		return mdb_db_error(db, e, "cannot write to database");
	for (int i = 0; i < m->nattach && ret >= 0; i++) {
		struct mdb_map map = { m->attach[i].data, m->attach[i].len,
				       0 };

		if (!m->attach[i].data)
			ret = mdb_map_file(m->attach[i].path, &map, e);
		if (ret < 0)
			break;
		if (map.len > MAX_ATTACH_BYTES) {
			if (!m->attach[i].data)
				mdb_unmap(&map);
			ret = mdb_error_set(e, MDB_E_LIMIT,
					    m->attach[i].path, -1, -1,
					    "size=%zu max=%u", map.len,
					    MAX_ATTACH_BYTES);
			mdb_error_msg(e, "capture file too large to keep");
			break;
		}
		sqlite3_bind_int64(st, 1, source_id);
		sqlite3_bind_text(st, 2, m->attach[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_blob64(st, 3, map.data ? (const void *)map.data :
				    (const void *)"", map.len, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = mdb_db_error(db, e,
					   "cannot write to database");
		sqlite3_reset(st);
		if (!m->attach[i].data)
			mdb_unmap(&map);
		ret = mdb_map_check(ret, e); /* shrank while stored */
	}
	sqlite3_finalize(st);
	return ret;
}

/*
 * Identical data is already source @id: a --label given now applies to it
 * (res->relabeled), as the only thing a re-ingest can change.  Ends the
 * transaction; returns 1, or <0 on error.
 */
static int relabel(struct mdb_db *db, int64_t id,
		   const struct mdb_load_opts *opts,
		   struct mdb_load_result *res, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc;

	if (!opts->label) {
		mdb_db_exec(db, "ROLLBACK", NULL);
		return 1;
	}
	if (sqlite3_prepare_v2(db->h, "UPDATE source SET label = ?2 "
			       "WHERE id = ?1 AND label IS NOT ?2", -1, &st,
			       NULL)) {
		mdb_db_error(db, e, "cannot write to database");
		mdb_db_exec(db, "ROLLBACK", NULL);
		return -MDB_E_DB;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, opts->label, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		mdb_db_error(db, e, "cannot write to database");
		mdb_db_exec(db, "ROLLBACK", NULL);
		return -MDB_E_DB;
	}
	res->relabeled = sqlite3_changes(db->h) > 0;
	if (mdb_db_exec(db, "COMMIT", e) < 0) {
		mdb_db_exec(db, "ROLLBACK", NULL);
		return -MDB_E_DB;
	}
	return 1;
}

int mdb_source_begin(struct mdb_db *db, const char *path,
		     const struct mdb_source_meta *m,
		     const struct mdb_load_opts *opts,
		     struct mdb_load_result *res, struct mdb_error *e)
{
	int64_t same = 0;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = mdb_db_exec(db, "BEGIN IMMEDIATE", e);
	if (ret < 0)
		return ret;
	if (!mdb_db_same_file(db)) {
		mdb_db_exec(db, "ROLLBACK", NULL);
		mdb_error_set(e, MDB_E_DB, db->path, -1, -1, NULL);
		mdb_error_msg(e, "the database file was removed or replaced "
				 "while this ingest waited for it");
		mdb_error_hint(e, "ingest again");
		return -MDB_E_DB;
	}
	/* no hash yet (mdb_input_meta_early()): no source of this size, no
	 * duplicate (the transaction keeps others out until
	 * mdb_load_hash()); else the caller waits for the hash */
	if (!m->hash[0] && opts->hash_late) {
		ret = same_size(db, m, e);
		if (ret != 0) {
			mdb_db_exec(db, "ROLLBACK", NULL);
			return ret < 0 ? ret : 2;
		}
	}
	ret = m->hash[0] || !opts->hash_late ?
	      find_or_drop_same(db, m, opts->force, &same, e) : 0;
	if (ret > 0 && !opts->force) {
		res->source_id = same;
		res->duplicate_of = 1;
		return relabel(db, same, opts, res, e);
	}
	if (ret >= 0)
		ret = insert_source(db, path, m, opts, &res->source_id, e);
	if (ret >= 0)
		ret = write_attachments(db, res->source_id, m, e);
	if (ret < 0) {
		mdb_db_exec(db, "ROLLBACK", NULL);
		return ret;
	}
	return 0;
}

int mdb_load_head_begin(struct mdb_load_head *h, struct mdb_db *db,
			const char *path, const struct mdb_source_meta *meta,
			const struct mdb_load_opts *opts,
			struct mdb_load_result *res, struct mdb_error *e)
{
	int ret;

	h->db = db;
	h->e = e;
	h->opts = *opts;
	ret = mdb_source_begin(db, path, meta, opts, res, e);
	h->source_id = res->source_id;
	return ret;
}

int mdb_load_head_commit(const struct mdb_load_head *h,
			 struct mdb_load_result *res, struct mdb_error *e)
{
	int ret = mdb_db_exec(h->db, "COMMIT", e);

	if (ret < 0) {
		mdb_db_exec(h->db, "ROLLBACK", NULL);
		return ret;
	}
	res->source_id = h->source_id;
	return 0;
}
