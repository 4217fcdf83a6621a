// SPDX-License-Identifier: MIT
/*
 * Opening the memdb database: pragmas, schema creation, forward migration,
 * and the source-level operations (latest, exists, delete).
 *
 * Journal: an existing database is written in WAL mode so reports can read
 * while an ingest writes.  A database this process creates has no readers
 * yet; it is filled in rollback-journal mode, which writes appended pages
 * once instead of twice (WAL, then checkpoint), and switched to WAL when
 * closed.  Both modes keep a killed ingest from leaving a partial source.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db.h"

#include "schema.inc" /* schema_sql[], generated from db/schema.sql */

#define BUSY_TIMEOUT_MS (10 * 60 * 1000) /* ingests wait for each other */

/*
 * migrations[v] moves a database from user_version v to v + 1.  Version 0
 * is an empty file.  Append, never edit, once a version has shipped.
 */
static const char *const migrations[] = {
	schema_sql,
};

int mdb_db_error(struct mdb_db *db, struct mdb_error *e, const char *what)
{
	mdb_error_set(e, MDB_E_DB, db->path, -1, -1, "%s",
		      db->h ? sqlite3_errmsg(db->h) : "no handle");
	mdb_error_msg(e, "%s", what);
	return -MDB_E_DB;
}

int mdb_db_exec(struct mdb_db *db, const char *sql, struct mdb_error *e)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		mdb_error_set(e, MDB_E_DB, db->path, -1, -1, "%s",
			      msg ? msg : sqlite3_errmsg(db->h));
		mdb_error_msg(e, "database statement failed");
		sqlite3_free(msg);
		return -MDB_E_DB;
	}
	return 0;
}

static int mdb_db_user_version(struct mdb_db *db, int *v, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read the database");
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc == SQLITE_NOTADB)
			return mdb_db_error(db, e, "not a memdb database");
		return mdb_db_error(db, e, "cannot read the database");
	}
	*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

static int mdb_db_migrate(struct mdb_db *db, struct mdb_error *e)
{
	const int nmig = (int)(sizeof(migrations) / sizeof(migrations[0]));
	int v, ret;
	char sql[64];

	ret = mdb_db_user_version(db, &v, e);
	if (ret < 0)
		return ret;
	if (v == MDB_SCHEMA_VERSION)
		return 0;
	if (v > MDB_SCHEMA_VERSION)
		goto newer;
	/* re-read under the write lock: another process may migrate too */
	ret = mdb_db_exec(db, "BEGIN IMMEDIATE", e);
	if (ret < 0)
		return ret;
	ret = mdb_db_user_version(db, &v, e);
	if (ret < 0)
		goto rollback;
	if (v > MDB_SCHEMA_VERSION) {
		mdb_db_exec(db, "ROLLBACK", NULL);
		goto newer;
	}
	if (v == 0) {
		/* an existing file with tables but no version is not ours */
		sqlite3_stmt *st;
		int n = 0;

		if (sqlite3_prepare_v2(db->h,
				       "SELECT count(*) FROM sqlite_master", -1,
				       &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
		if (n) {
			mdb_error_set(e, MDB_E_SCHEMA, db->path, -1, -1,
				      "tables=%d user_version=0", n);
			mdb_error_msg(e, "not a memdb database");
			ret = -MDB_E_SCHEMA;
			goto rollback;
		}
	}
	for (; v < MDB_SCHEMA_VERSION && v < nmig; v++) {
		ret = mdb_db_exec(db, migrations[v], e);
		if (ret < 0)
			goto rollback;
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
		 MDB_SCHEMA_VERSION);
	ret = mdb_db_exec(db, sql, e);
	if (ret < 0)
		goto rollback;
	return mdb_db_exec(db, "COMMIT", e);
rollback:
	mdb_db_exec(db, "ROLLBACK", NULL);
	return ret;
newer:
	mdb_error_set(e, MDB_E_SCHEMA, db->path, -1, -1,
		      "user_version=%d supported=%d", v, MDB_SCHEMA_VERSION);
	mdb_error_msg(e, "database written by a newer memdb");
	return -MDB_E_SCHEMA;
}

int mdb_db_open(struct mdb_db *db, const char *path, unsigned flags,
		struct mdb_error *e)
{
	struct stat st;
	int ret, oflags;

	memset(db, 0, sizeof(*db));
	db->path = strdup(path);
	if (!db->path)
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	db->readonly = !!(flags & MDB_DB_READONLY);
	if (stat(path, &st) < 0) {
		if (errno != ENOENT || db->readonly) {
			ret = mdb_error_set(e, errno == ENOENT ?
					    MDB_E_NOTFOUND : MDB_E_IO, path,
					    -1, -1, "%s", strerror(errno));
			mdb_error_msg(e, "cannot open database");
			if (errno == ENOENT)
				mdb_error_hint(e, "create it with 'memdb "
						  "ingest -d %s PATH'", path);
			goto fail;
		}
		db->fresh = 1;
	} else if (st.st_size == 0 && !db->readonly) {
		db->fresh = 1;
	}
	/*
	 * One connection is never used by two threads at once, so SQLite's
	 * per-connection mutex is pure overhead on the insert path; so is
	 * its memory accounting.  (sqlite3_config fails harmlessly once the
	 * library is initialised.)
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	oflags = (db->readonly ? SQLITE_OPEN_READONLY :
		  SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
		 SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &db->h, oflags, NULL) != SQLITE_OK) {
		ret = mdb_db_error(db, e, "cannot open database");
		goto fail;
	}
	sqlite3_busy_timeout(db->h, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(db->h, 1);
	if (db->readonly) {
		int v;

		ret = mdb_db_user_version(db, &v, e);
		if (ret < 0)
			goto fail;
		if (v != MDB_SCHEMA_VERSION) {
			ret = mdb_error_set(e, MDB_E_SCHEMA, path, -1, -1,
					    "user_version=%d supported=%d", v,
					    MDB_SCHEMA_VERSION);
			mdb_error_msg(e, v ? "unsupported database schema" :
					     "not a memdb database");
			if (v && v < MDB_SCHEMA_VERSION)
				mdb_error_hint(e, "any 'memdb ingest' into it "
						  "migrates it");
			goto fail;
		}
		return 0;
	}
	ret = mdb_db_exec(db, db->fresh ?
			  "PRAGMA journal_mode = DELETE" :
			  "PRAGMA journal_mode = WAL", e);
	if (ret < 0)
		goto fail;
	ret = mdb_db_exec(db, "PRAGMA synchronous = NORMAL;"
			      "PRAGMA cache_size = -16384;"
			      "PRAGMA temp_store = MEMORY", e);
	if (ret < 0)
		goto fail;
	ret = mdb_db_migrate(db, e);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	sqlite3_close(db->h);
	free(db->path);
	memset(db, 0, sizeof(*db));
	return ret;
}

int mdb_db_close(struct mdb_db *db, struct mdb_error *e)
{
	int ret = 0;

	if (!db->h)
		goto out;
	/* best effort: the data is committed whatever the journal mode, and
	 * a reader that arrived meanwhile may hold the file */
	if (db->fresh && !db->readonly)
		mdb_db_exec(db, "PRAGMA journal_mode = WAL", NULL);
	if (sqlite3_close(db->h) != SQLITE_OK && !ret)
		ret = mdb_db_error(db, e, "cannot close database");
out:
	free(db->path);
	memset(db, 0, sizeof(*db));
	return ret;
}

static int mdb_db_int_query(struct mdb_db *db, const char *sql, int64_t arg,
			    int64_t *out, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return mdb_db_error(db, e, "cannot query the database");
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_int64(st, 1, arg);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return mdb_db_error(db, e, "cannot query the database");
	return rc == SQLITE_ROW;
}

int mdb_db_latest_source(struct mdb_db *db, int64_t *id, struct mdb_error *e)
{
	int ret;

	*id = 0;
	ret = mdb_db_int_query(db, "SELECT max(id) FROM source", 0, id, e);
	return ret < 0 ? ret : 0;
}

int mdb_db_source_exists(struct mdb_db *db, int64_t id, struct mdb_error *e)
{
	int64_t one = 0;

	return mdb_db_int_query(db, "SELECT 1 FROM source WHERE id = ?1", id,
				&one, e);
}

int mdb_db_delete_rows(struct mdb_db *db, int64_t id, struct mdb_error *e)
{
	static const char *const del[] = {
		"DELETE FROM alloc WHERE id BETWEEN "
		"(SELECT alloc_lo FROM source WHERE id = ?1) AND "
		"(SELECT alloc_hi FROM source WHERE id = ?1)",
		"DELETE FROM bad_free WHERE id BETWEEN "
		"(SELECT bad_lo FROM source WHERE id = ?1) AND "
		"(SELECT bad_hi FROM source WHERE id = ?1)",
		"DELETE FROM site WHERE source_id = ?1",
		"DELETE FROM str WHERE source_id = ?1",
		"DELETE FROM site_stats WHERE source_id = ?1",
		"DELETE FROM cache_stats WHERE source_id = ?1",
		"DELETE FROM pingpong_stats WHERE source_id = ?1",
		"DELETE FROM node_stats WHERE source_id = ?1",
		"DELETE FROM anomaly WHERE source_id = ?1",
		"DELETE FROM timeline WHERE source_id = ?1",
		"DELETE FROM symbol WHERE source_id = ?1",
		"DELETE FROM source_file WHERE source_id = ?1",
		"DELETE FROM zone WHERE source_id = ?1",
		"DELETE FROM zone_cpu WHERE source_id = ?1",
		"DELETE FROM tag WHERE source_id = ?1",
		"DELETE FROM source WHERE id = ?1",
	};

	for (size_t i = 0; i < sizeof(del) / sizeof(del[0]); i++) {
		sqlite3_stmt *st;
		int rc;

		if (sqlite3_prepare_v2(db->h, del[i], -1, &st, NULL))
			return mdb_db_error(db, e, "cannot delete source");
		sqlite3_bind_int64(st, 1, id);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return mdb_db_error(db, e, "cannot delete source");
	}
	return 0;
}

int mdb_db_delete_source(struct mdb_db *db, int64_t id, struct mdb_error *e)
{
	int ret = mdb_db_exec(db, "BEGIN IMMEDIATE", e);

	if (ret < 0)
		return ret;
	ret = mdb_db_source_exists(db, id, e);
	if (ret == 0) {
		mdb_error_set(e, MDB_E_NOTFOUND, db->path, -1, -1, "id=%lld",
			      (long long)id);
		mdb_error_msg(e, "no such source");
		ret = -MDB_E_NOTFOUND;
	}
	if (ret > 0)
		ret = mdb_db_delete_rows(db, id, e);
	if (ret < 0) {
		mdb_db_exec(db, "ROLLBACK", NULL);
		return ret;
	}
	return mdb_db_exec(db, "COMMIT", e);
}

int mdb_db_source_file(struct mdb_db *db, int64_t id, const char *name,
		       void **data, size_t *len, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc, ret = 0;

	*data = NULL;
	*len = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT data FROM source_file WHERE "
			       "source_id = ?1 AND name = ?2", -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read source files");
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const void *p = sqlite3_column_blob(st, 0);
		size_t n = (size_t)sqlite3_column_bytes(st, 0);

		/* one spare byte: text parsers may want a NUL */
		*data = malloc(n + 1);
		if (!*data) {
			ret = mdb_error_set(e, MDB_E_NOMEM, db->path, -1, -1,
					    NULL);
		} else {
			if (n)
				memcpy(*data, p, n);
			((char *)*data)[n] = '\0';
			*len = n;
			ret = 1;
		}
	} else if (rc != SQLITE_DONE) {
		ret = mdb_db_error(db, e, "cannot read source files");
	}
	sqlite3_finalize(st);
	return ret;
}
