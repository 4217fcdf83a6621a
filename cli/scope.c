// SPDX-License-Identifier: MIT
/* Source selection for reports; see scope.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../ingest/ingest.h"
#include "cli.h"
#include "scope.h"

static void note(struct cli_scope *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct cli_scope *s, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (s->nnotes >= SCOPE_MAX_NOTES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) >= 0)
		s->notes[s->nnotes++] = p;
	va_end(ap);
}

void cli_scope_release(struct cli_scope *s)
{
	for (int i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	memset(s, 0, sizeof(*s));
}

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
	"AND NOT t.accurate) "
	"FROM source s WHERE id BETWEEN ?1 AND ?2 ORDER BY id";

enum {
	D_ID, D_FORMAT, D_PATH, D_NCPUS, D_VERSION, D_WHOLE, D_OVERRUNS, D_LOST,
	D_MISSING, D_UNKNOWN, D_MALFORMED, D_NOTES, D_LABEL, D_EVENTS,
	D_TAKEN, D_ZONES, D_TAGS, D_APPROX, D_INACCURATE,
};

static const char *col_text(sqlite3_stmt *st, int c)
{
	const char *t = (const char *)sqlite3_column_text(st, c);

	return t ? t : "";
}

/* "source 3: kmemtrace-relay '/x' (box1), 2 CPUs, 1,234 events" */
static void source_line(sqlite3_stmt *st, char *buf, size_t len)
{
	const char *fmt = col_text(st, D_FORMAT);
	const char *label = col_text(st, D_LABEL);
	int ncpus = sqlite3_column_int(st, D_NCPUS);
	int64_t id = sqlite3_column_int64(st, D_ID);
	char n[32];

	if (mdb_format_is_snapshot(fmt)) {
		int64_t tags = sqlite3_column_int64(st, D_TAGS);

		snprintf(buf, len, "source %" PRId64 ": %s%s%s '%s'%s%s%s, "
			 "taken %s, %s %s", id, fmt,
			 *col_text(st, D_VERSION) ? " " : "",
			 col_text(st, D_VERSION), col_text(st, D_PATH),
			 *label ? " (" : "", label, *label ? ")" : "",
			 *col_text(st, D_TAKEN) ? col_text(st, D_TAKEN) : "?",
			 cli_num(n, sizeof(n), (uint64_t)(tags ? tags :
				 sqlite3_column_int64(st, D_ZONES))),
			 tags ? "tags" : "zones");
		return;
	}
	snprintf(buf, len,
		 "source %" PRId64 ": %s '%s'%s%s%s, %d CPU%s, %s events", id,
		 fmt, col_text(st, D_PATH), *label ? " (" : "", label,
		 *label ? ")" : "", ncpus, ncpus == 1 ? "" : "s",
		 cli_num(n, sizeof(n),
			 (uint64_t)sqlite3_column_int64(st, D_EVENTS)));
}

/* The warnings a source row carries. */
static void source_notes(struct cli_scope *s, sqlite3_stmt *st)
{
	int64_t id = sqlite3_column_int64(st, D_ID);
	int64_t ov = sqlite3_column_int64(st, D_OVERRUNS);
	int64_t lost = sqlite3_column_int64(st, D_LOST);
	int64_t missing = sqlite3_column_int64(st, D_MISSING);
	int64_t unknown = sqlite3_column_int64(st, D_UNKNOWN);
	int64_t malformed = sqlite3_column_int64(st, D_MALFORMED);
	int64_t approx = sqlite3_column_int64(st, D_APPROX);
	int64_t inaccurate = sqlite3_column_int64(st, D_INACCURATE);
	const char *notes = col_text(st, D_NOTES);

	if (ov > 0)
		note(s, "warning: source %" PRId64 " lost events "
			"(total_overruns=%" PRId64 "): figures are "
			"incomplete", id, ov);
	if (lost > 0)
		note(s, "warning: source %" PRId64 " lost %" PRId64
			" events: figures are incomplete", id, lost);
	if (missing > 0 && sqlite3_column_int(st, D_WHOLE))
		note(s, "warning: source %" PRId64 ": %" PRId64
			" sequence numbers missing (lost events?)", id,
			missing);
	if (unknown > 0)
		note(s, "note: source %" PRId64 ": %" PRId64
			" records of unknown or other events skipped", id, unknown);
	if (malformed > 0)
		note(s, "note: source %" PRId64 ": %" PRId64
			" malformed lines skipped", id, malformed);
	if (approx > 0)
		note(s, "note: source %" PRId64 ": %" PRId64 " row%s humanized "
			"or rounded figures (flag approx)", id, approx,
			approx == 1 ? " has" : "s have");
	if (inaccurate > 0)
		note(s, "note: source %" PRId64 ": %" PRId64 " tag%s "
			"accurate:no: absolute values not exact, changes are "
			"(flag inaccurate)", id, inaccurate,
			inaccurate == 1 ? " says" : "s say");
	if (*notes)
		note(s, "note: source %" PRId64 ": %s", id, notes);
}

/*
 * Title (when @title is not NULL) and warnings from the source rows in
 * [lo, hi]; returns how many there were in *@n.
 */
static int describe(struct mdb_db *db, struct cli_scope *s, int64_t lo,
		    int64_t hi, char *title, size_t tlen, int *n,
		    struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	if (sqlite3_prepare_v2(db->h, describe_sql, -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read sources");
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		(*n)++;
		if (title)
			source_line(st, title, tlen);
		source_notes(s, st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mdb_db_error(db, e, "cannot read sources");
	return 0;
}

int cli_scope_resolve(struct mdb_db *db, const char *arg,
		      struct cli_scope *s, struct mdb_error *e)
{
	int64_t id;
	int ret, n;

	memset(s, 0, sizeof(*s));
	if (arg && !strcmp(arg, "all")) {
		s->lo = 0;
		s->hi = INT64_MAX;
		snprintf(s->json, sizeof(s->json), "\"all\"");
		ret = describe(db, s, s->lo, s->hi, NULL, 0, &n, e);
		if (ret == 0)
			snprintf(s->title, sizeof(s->title),
				 "all sources (%d)", n);
		return ret;
	}
	if (arg) {
		if (cli_parse_i64(arg, &id) || id <= 0) {
			mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1,
				      "source='%s'", arg);
			mdb_error_msg(e, "--source takes a source id or 'all'");
			return -MDB_E_INVAL;
		}
		ret = mdb_db_source_exists(db, id, e);
		if (ret < 0)
			return ret;
		if (!ret) {
			mdb_error_set(e, MDB_E_NOTFOUND, db->path, -1, -1,
				      "id=%" PRId64, id);
			mdb_error_msg(e, "no such source");
			mdb_error_hint(e, "'memdb sources' lists them");
			return -MDB_E_NOTFOUND;
		}
	} else {
		ret = mdb_db_latest_source(db, &id, e);
		if (ret < 0)
			return ret;
		if (!id) {
			mdb_error_set(e, MDB_E_EMPTY, db->path, -1, -1, NULL);
			mdb_error_msg(e, "the database holds no sources");
			mdb_error_hint(e, "add one with 'memdb ingest PATH'");
			return -MDB_E_EMPTY;
		}
	}
	s->lo = s->hi = id;
	snprintf(s->json, sizeof(s->json), "%" PRId64, id);
	return describe(db, s, id, id, s->title, sizeof(s->title), &n, e);
}

static int no_source(struct mdb_db *db, int64_t id, const char *what,
		     struct mdb_error *e)
{
	mdb_error_set(e, MDB_E_NOTFOUND, db->path, -1, -1, "%s=%" PRId64,
		      what, id);
	mdb_error_msg(e, "no such source");
	mdb_error_hint(e, "'memdb sources' lists them");
	return -MDB_E_NOTFOUND;
}

/* First (@last = 0) or last snapshot of the series of source @id. */
static int series_end(struct mdb_db *db, int64_t id, int last, int64_t *out,
		      struct mdb_error *e)
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

	if (sqlite3_prepare_v2(db->h, sql[last], -1, &st, NULL))
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

int cli_scope_series(struct mdb_db *db, struct cli_scope *s, int64_t from,
		     int64_t to, struct mdb_error *e)
{
	char a[1000], b[1000];
	int64_t anchor = from ? from : to ? to : s->hi;
	int ret, n;

	if (s->lo != s->hi && (!from || !to)) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, NULL);
		mdb_error_msg(e, "this report compares two snapshots: give "
				 "--source ID (its series) or --from and --to");
		return -MDB_E_INVAL;
	}
	if (from && (ret = mdb_db_source_exists(db, from, e)) <= 0)
		return ret < 0 ? ret : no_source(db, from, "from", e);
	if (to && (ret = mdb_db_source_exists(db, to, e)) <= 0)
		return ret < 0 ? ret : no_source(db, to, "to", e);
	s->from = from;
	s->to = to;
	if (!from && (ret = series_end(db, anchor, 0, &s->from, e)) < 0)
		return ret;
	if (!to && (ret = series_end(db, anchor, 1, &s->to, e)) < 0)
		return ret;
	if (!from && !to && s->from == s->to) {
		mdb_error_set(e, MDB_E_EMPTY, db->path, -1, -1,
			      "source=%" PRId64, s->from);
		mdb_error_msg(e, "one snapshot in the series: nothing to "
				 "compare");
		mdb_error_hint(e, "ingest another with the same --label, or "
				  "give --from ID and --to ID");
		return -MDB_E_EMPTY;
	}
	for (int i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	s->nnotes = 0;
	ret = describe(db, s, s->from, s->from, a, sizeof(a), &n, e);
	if (ret == 0)
		ret = describe(db, s, s->to, s->to, b, sizeof(b), &n, e);
	if (ret < 0)
		return ret;
	snprintf(s->title, sizeof(s->title), "from %s\n  to %s", a, b);
	snprintf(s->json, sizeof(s->json),
		 "{\"from\": %" PRId64 ", \"to\": %" PRId64 "}", s->from,
		 s->to);
	return 0;
}
