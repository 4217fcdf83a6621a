// SPDX-License-Identifier: MIT
/* Source selection for reports; see scope.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

/* Title and warnings from the source rows in [lo, hi]. */
static int describe(struct mdb_db *db, struct cli_scope *s, int all,
		    struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	if (sqlite3_prepare_v2(db->h,
			       "SELECT id, format, path, ncpus, NULL, "
			       "coalesce(overruns, 0), lost_events, "
			       "seq_missing, unknown, malformed, notes, "
			       "coalesce(label, ''), events "
			       "FROM source WHERE id BETWEEN ?1 AND ?2 "
			       "ORDER BY id", -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read sources");
	sqlite3_bind_int64(st, 1, s->lo);
	sqlite3_bind_int64(st, 2, s->hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *fmt = (const char *)sqlite3_column_text(st, 1);
		const char *path = (const char *)sqlite3_column_text(st, 2);
		int ncpus = sqlite3_column_int(st, 3);
		int64_t ov = sqlite3_column_int64(st, 5);
		int64_t lost = sqlite3_column_int64(st, 6);
		int64_t missing = sqlite3_column_int64(st, 7);
		int64_t unknown = sqlite3_column_int64(st, 8);
		int64_t malformed = sqlite3_column_int64(st, 9);
		const char *notes = (const char *)sqlite3_column_text(st, 10);
		const char *label = (const char *)sqlite3_column_text(st, 11);
		char ev[32];

		n++;
		if (!all)
			snprintf(s->title, sizeof(s->title),
				 "source %" PRId64 ": %s '%s'%s%s%s, %d CPU%s, "
				 "%s events", id, fmt, path,
				 *label ? " (" : "", label, *label ? ")" : "",
				 ncpus, ncpus == 1 ? "" : "s",
				 cli_num(ev, sizeof(ev),
					 (uint64_t)sqlite3_column_int64(st,
									12)));
		if (ov > 0)
			note(s, "warning: source %" PRId64 " lost events "
				"(total_overruns=%" PRId64 "): figures are "
				"incomplete", id, ov);
		if (lost > 0)
			note(s, "warning: source %" PRId64 " lost %" PRId64
				" events: figures are incomplete", id, lost);
		if (missing > 0 && ncpus > 1)
			note(s, "warning: source %" PRId64 ": %" PRId64
				" sequence numbers missing (lost events?)",
				id, missing);
		if (unknown > 0)
			note(s, "note: source %" PRId64 ": %" PRId64
				" records of unknown or other events skipped",
				id, unknown);
		if (malformed > 0)
			note(s, "note: source %" PRId64 ": %" PRId64
				" malformed lines skipped", id, malformed);
		if (notes && *notes)
			note(s, "note: source %" PRId64 ": %s", id, notes);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mdb_db_error(db, e, "cannot read sources");
	if (all)
		snprintf(s->title, sizeof(s->title), "all sources (%d)", n);
	return 0;
}

int cli_scope_resolve(struct mdb_db *db, const char *arg,
		      struct cli_scope *s, struct mdb_error *e)
{
	int64_t id;
	int ret;

	memset(s, 0, sizeof(*s));
	if (arg && !strcmp(arg, "all")) {
		s->lo = 0;
		s->hi = INT64_MAX;
		snprintf(s->json, sizeof(s->json), "\"all\"");
		return describe(db, s, 1, e);
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
	return describe(db, s, 0, e);
}
