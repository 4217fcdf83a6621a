// SPDX-License-Identifier: MIT
/* Reading the source table for the commands; see sources.h. */
#include "sources.h"

static const char describe_sql[] =
	"SELECT id, format, path, ncpus, format_version, "
	"whole_capture, "
	"coalesce(overruns, 0), lost_events, seq_missing, unknown, "
	"malformed, notes, coalesce(label, ''), events, taken_at, "
	"(SELECT count(*) FROM zone z WHERE z.source_id = s.id), "
	"(SELECT count(*) FROM tag t WHERE t.source_id = s.id), "
	"(SELECT count(*) FROM zone z WHERE z.source_id = s.id AND z.approx) "
	"+ (SELECT count(*) FROM tag t WHERE t.source_id = s.id AND t.approx), "
	"(SELECT count(*) FROM tag t WHERE t.source_id = s.id "
	"AND NOT t.accurate), "
	"(SELECT sum(value) FROM kcounter k WHERE k.source_id = s.id "
	"AND k.scope = 'kernel' AND k.name = 'alloc_tags_skipped'), "
	"(SELECT count(*) FROM site x WHERE x.source_id = s.id AND x.addr "
	"AND NOT EXISTS (SELECT 1 FROM symbol y WHERE y.source_id = s.id "
	"AND y.addr = x.addr)) "
	"FROM source s WHERE id BETWEEN ?1 AND ?2 ORDER BY id";

static const char *col_text(sqlite3_stmt *st, int c)
{
	const char *t = (const char *)sqlite3_column_text(st, c);

	return t ? t : "";
}

static void desc_row(sqlite3_stmt *st, struct mdb_source_desc *d)
{
	int c = 0;

	d->id = sqlite3_column_int64(st, c++);
	d->format = col_text(st, c++);
	d->path = col_text(st, c++);
	d->ncpus = sqlite3_column_int(st, c++);
	d->version = col_text(st, c++);
	d->whole_capture = sqlite3_column_int(st, c++);
	d->overruns = sqlite3_column_int64(st, c++);
	d->lost_events = sqlite3_column_int64(st, c++);
	d->seq_missing = sqlite3_column_int64(st, c++);
	d->unknown = sqlite3_column_int64(st, c++);
	d->malformed = sqlite3_column_int64(st, c++);
	d->notes = col_text(st, c++);
	d->label = col_text(st, c++);
	d->events = sqlite3_column_int64(st, c++);
	d->taken_at = col_text(st, c++);
	d->zones = sqlite3_column_int64(st, c++);
	d->tags = sqlite3_column_int64(st, c++);
	d->approx = sqlite3_column_int64(st, c++);
	d->inaccurate = sqlite3_column_int64(st, c++);
	d->tags_skipped = sqlite3_column_int64(st, c++);
	d->unnamed = sqlite3_column_int64(st, c);
}

int mdb_sources_describe(struct mdb_db *db, int64_t lo, int64_t hi,
			 void (*row)(void *ctx,
				     const struct mdb_source_desc *d),
			 void *ctx, struct mdb_error *e)
{
	struct mdb_source_desc d;
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, describe_sql, -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read sources");
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		desc_row(st, &d);
		row(ctx, &d);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mdb_db_error(db, e, "cannot read sources");
	return 0;
}

/* A source's kinds from its rows: allocation tags (2) and zones (4), a
 * core dump can have both; else a trace (1). */
static const char kind_sql[] =
	"SELECT s.id, s.format, coalesce(nullif("
	"CASE WHEN EXISTS (SELECT 1 FROM tag t WHERE t.source_id = s.id) "
	"THEN 2 ELSE 0 END | "
	"CASE WHEN EXISTS (SELECT 1 FROM zone z WHERE z.source_id = s.id) "
	"THEN 4 ELSE 0 END, 0), 1) "
	"FROM source s WHERE ?1 = 0 OR s.id = ?1 ORDER BY s.id DESC";

int mdb_sources_each_id(struct mdb_db *db, sqlite3_stmt *st,
		   int (*row)(void *ctx, int64_t id), void *ctx,
		   struct mdb_error *e)
{
	int rc, ret = 0;

	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW)
		ret = row(ctx, sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	if (ret)
		return ret < 0 ? ret : 0;
	if (rc != SQLITE_DONE)
		return mdb_db_error(db, e, "cannot read sources");
	return 0;
}

int mdb_source_kinds(struct mdb_db *db, int64_t id,
		     int (*row)(void *ctx, int64_t id, const char *format,
				unsigned kinds),
		     void *ctx, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc, stop = 0;

	if (sqlite3_prepare_v2(db->h, kind_sql, -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read sources");
	sqlite3_bind_int64(st, 1, id);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW)
		stop = row(ctx, sqlite3_column_int64(st, 0), col_text(st, 1),
			   (unsigned)sqlite3_column_int(st, 2));
	sqlite3_finalize(st);
	if (!stop && rc != SQLITE_DONE)
		return mdb_db_error(db, e, "cannot read sources");
	return 0;
}

int mdb_sources_labelled(struct mdb_db *db, const char *label,
			 int (*row)(void *ctx, int64_t id), void *ctx,
			 struct mdb_error *e)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db->h, "SELECT id FROM source WHERE label = ?1 "
			       "ORDER BY taken_at DESC, id DESC", -1, &st,
			       NULL))
		return mdb_db_error(db, e, "cannot read sources");
	sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
	return mdb_sources_each_id(db, st, row, ctx, e);
}

int mdb_source_series_end(struct mdb_db *db, int64_t id, int last,
			  int64_t *out, struct mdb_error *e)
{
	static const char *const sql[2] = {
		"SELECT s.id FROM source s, source a WHERE a.id = ?1 "
		"AND s.label IS a.label AND s.format = a.format "
		"ORDER BY s.taken_at, s.id LIMIT 1",
		"SELECT s.id FROM source s, source a WHERE a.id = ?1 "
		"AND s.label IS a.label AND s.format = a.format "
		"ORDER BY s.taken_at DESC, s.id DESC LIMIT 1",
	};
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, sql[!!last], -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read sources");
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return mdb_db_error(db, e, "cannot read sources");
	return 0;
}

int mdb_sources_list(struct mdb_db *db, enum mdb_source_list which,
		     sqlite3_stmt **st, struct mdb_error *e)
{
	static const char *const sql[] = {
		[MDB_SOURCES_LIST] =
		"SELECT id, format, path, label, ingested_at, taken_at, "
		"ncpus AS cpus, byte_order, events, allocations, "
		"(SELECT count(*) FROM zone z WHERE z.source_id = s.id) + "
		"(SELECT count(*) FROM tag t WHERE t.source_id = s.id) AS "
		"snapshot_rows, "
		"coalesce(overruns, 0) + lost_events AS lost "
		"FROM source s ORDER BY id",
		[MDB_SOURCES_PAGE] =
		"SELECT id, format, path, label, taken_at, ncpus AS cpus, "
		"events, allocations, "
		"(SELECT count(*) FROM zone z WHERE z.source_id = s.id) "
		"+ (SELECT count(*) FROM tag t WHERE t.source_id = s.id) AS "
		"snapshot_rows, coalesce(overruns, 0) + lost_events AS lost "
		"FROM source s ORDER BY id",
	};

	*st = NULL;
	if (sqlite3_prepare_v2(db->h, sql[which], -1, st, NULL))
		return mdb_db_error(db, e, "cannot read sources");
	return 0;
}
