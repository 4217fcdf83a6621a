// SPDX-License-Identifier: MIT
/*
 * Merging databases (memdb merge): the sources of another memdb database
 * copied into this one with all their rows, in one transaction per input.
 *
 * A source keeps everything but its id: label, path, times, hash, notes.
 * Ids that are the database's own are given anew: the source's id, and
 * the rowids its rows occupy in the tables read by range (alloc's
 * blocks, bad_free; mdb_source_tables()), which stay one
 * contiguous range each, moved by one offset, their owner's lo/hi
 * columns moved with them.  Everything else a row refers to (call sites,
 * strings, stacks, blocks) is numbered per source and copied as it is.
 * A source whose content hash the output already holds is skipped (the
 * same data is stored once, whichever host's database it came from).
 *
 * An input of an older schema is migrated in a copy (the input itself is
 * left as it is); one of a newer schema is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"

/* How one table's rows of a source are copied. */
struct copy {
	const struct mdb_source_table *t; /* NULL: the source row itself */
	sqlite3_stmt *sel;   /* on the input: the rows of a source */
	sqlite3_stmt *ins;   /* on the output: one row */
	sqlite3_stmt *range; /* on the input: the owner's lo, hi */
	int ncols;           /* columns selected (rowid first, if ranged) */
	int src_col;         /* the source_id column among them, or -1 */
	int64_t lo, hi;      /* the range in the output, when ranged */
	int has_range;
};

struct merge {
	struct mdb_db *out, in;
	struct mdb_error *e;
	struct copy *c;      /* the source row, then mdb_source_tables() */
	size_t nc;
	struct mdb_merge_result *res;
	char *copy_path;     /* a migrated copy of the input */
};

/* The input's error on the output's error record. */
static int in_error(struct merge *m, const char *what)
{
	return mdb_db_error(&m->in, m->e, what);
}

/*
 * Columns of table @name in the output, as "a, b, c", leaving out
 * INTEGER PRIMARY KEY aliases of the rowid (but source_id): a ranged
 * table gets its rowid explicitly, another a new one.  *@src: the
 * position of source_id among them, or -1.
 */
static char *columns(struct mdb_db *db, const char *name, int *ncols,
		     int *src, struct mdb_error *e)
{
	sqlite3_stmt *st;
	char *list = NULL;
	size_t len = 0;
	FILE *f;
	int n = 0, rc, npk = 0;

	*src = -1;
	if (sqlite3_prepare_v2(db->h, "SELECT name, type, pk, (SELECT "
			       "count(*) FROM pragma_table_info(?1) WHERE pk) "
			       "FROM pragma_table_info(?1) ORDER BY cid", -1,
			       &st, NULL))
		return mdb_db_error(db, e, "cannot read the schema"), NULL;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	f = open_memstream(&list, &len);
	if (!f) {
		sqlite3_finalize(st);
		mdb_error_nomem(e);
		return NULL;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);

		npk = sqlite3_column_int(st, 3);
		if (strcmp(col, "source_id") && sqlite3_column_int(st, 2) &&
		    npk == 1 && type && !strcasecmp(type, "INTEGER"))
			continue; /* the rowid's alias */
		if (!strcmp(col, "source_id"))
			*src = n;
		fprintf(f, "%s\"%s\"", n++ ? ", " : "", col);
	}
	sqlite3_finalize(st);
	if (fclose(f) || rc != SQLITE_DONE || !n) {
		free(list);
		if (rc != SQLITE_DONE)
			mdb_db_error(db, e, "cannot read the schema");
		else
			mdb_error_set(e, MDB_E_SCHEMA, db->path, -1, -1,
				      "table=%s", name);
		return NULL;
	}
	*ncols = n;
	return list;
}

/* Prepare the statements copying @c's rows (c->t NULL: the source). */
static int prepare_copy(struct merge *m, struct copy *c)
{
	const char *name = c->t ? c->t->name : "source";
	int ranged = c->t && c->t->owner, n, ret = 0;
	char *cols = columns(m->out, name, &n, &c->src_col, m->e), *sql;

	if (!cols)
		return -MDB_E_DB;
	c->ncols = n + ranged;
	if (ranged && c->src_col >= 0)
		c->src_col++;
	/* the input's rows of a source: ?1 its id, or ?1 to ?2 its range */
	if (asprintf(&sql, "SELECT %s%s FROM \"%s\" WHERE %s",
		     ranged ? "rowid, " : "", cols, name,
		     !c->t ? "id = ?1" : ranged ? "rowid BETWEEN ?1 AND ?2" :
		     "source_id = ?1") < 0)
		goto nomem;
	if (sqlite3_prepare_v2(m->in.h, sql, -1, &c->sel, NULL))
		ret = in_error(m, "cannot read the input database");
	free(sql);
	if (ret == 0 && ranged) {
		if (asprintf(&sql, "SELECT %s, %s FROM %s WHERE %s = ?1",
			     c->t->lo, c->t->hi, c->t->owner,
			     strcmp(c->t->owner, "source") ? "source_id" :
			     "id") < 0)
			goto nomem;
		if (sqlite3_prepare_v2(m->in.h, sql, -1, &c->range, NULL))
			ret = in_error(m, "cannot read the input database");
		free(sql);
	}
	if (ret == 0) {
		FILE *f;
		size_t len;

		sql = NULL;
		f = open_memstream(&sql, &len);
		if (!f)
			goto nomem;
		fprintf(f, "INSERT INTO \"%s\" (%s%s) VALUES (", name,
			ranged ? "rowid, " : "", cols);
		for (int i = 0; i < c->ncols; i++)
			fprintf(f, "%s?", i ? ", " : "");
		fputs(")", f);
		if (fclose(f)) {
			free(sql);
			goto nomem;
		}
		if (sqlite3_prepare_v2(m->out->h, sql, -1, &c->ins, NULL))
			ret = mdb_db_error(m->out, m->e,
					   "cannot write to database");
		free(sql);
	}
	free(cols);
	return ret;
nomem:
	free(cols);
	return mdb_error_nomem(m->e);
}

/* A rowid one past the largest of @table in the output. */
static int next_rowid(struct merge *m, const char *table, int64_t *next)
{
	char sql[160];
	int ret;

	snprintf(sql, sizeof(sql), "SELECT coalesce(max(rowid), 0) + 1 "
		 "FROM \"%s\"", table);
	ret = mdb_db_int_query(m->out, sql, 0, next, m->e);
	return ret < 0 ? ret : 0;
}

/*
 * Copy the rows @c->sel returns (bound) into the output: rowid moved by
 * @delta when ranged, source_id @id.  Adds the count to *@rows.
 */
static int copy_rows(struct merge *m, struct copy *c, int64_t id,
		     int64_t delta, int64_t *rows)
{
	int ranged = c->t && c->t->owner, rc;

	while ((rc = sqlite3_step(c->sel)) == SQLITE_ROW) {
		for (int i = 0; i < c->ncols; i++) {
			if (i == c->src_col)
				sqlite3_bind_int64(c->ins, i + 1, id);
			else if (ranged && i == 0)
				sqlite3_bind_int64(c->ins, 1,
					sqlite3_column_int64(c->sel, 0) +
					delta);
			else
				sqlite3_bind_value(c->ins, i + 1,
					sqlite3_column_value(c->sel, i));
		}
		rc = sqlite3_step(c->ins);
		sqlite3_reset(c->ins);
		if (rc != SQLITE_DONE) {
			sqlite3_reset(c->sel);
			return mdb_db_error(m->out, m->e,
					    "cannot write to database");
		}
		(*rows)++;
	}
	sqlite3_reset(c->sel);
	return rc == SQLITE_DONE ? 0 :
	       in_error(m, "cannot read the input database");
}

/* Copy table @c's rows of input source @old as those of output @id. */
static int copy_table(struct merge *m, struct copy *c, int64_t old,
		      int64_t id, int64_t *rows)
{
	int64_t lo, hi, delta = 0;
	int rc, ret;

	c->has_range = 0;
	if (!c->t->owner) {
		sqlite3_bind_int64(c->sel, 1, old);
		return copy_rows(m, c, id, 0, rows);
	}
	sqlite3_bind_int64(c->range, 1, old);
	rc = sqlite3_step(c->range);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		sqlite3_reset(c->range);
		return in_error(m, "cannot read the input database");
	}
	/* no owner row or no range: the source has no such rows */
	if (rc != SQLITE_ROW || sqlite3_column_type(c->range, 0) == SQLITE_NULL ||
	    sqlite3_column_type(c->range, 1) == SQLITE_NULL) {
		sqlite3_reset(c->range);
		return 0;
	}
	lo = sqlite3_column_int64(c->range, 0);
	hi = sqlite3_column_int64(c->range, 1);
	sqlite3_reset(c->range);
	ret = next_rowid(m, c->t->name, &c->lo);
	if (ret < 0)
		return ret;
	delta = c->lo - lo;
	c->hi = hi + delta;
	c->has_range = 1;
	sqlite3_bind_int64(c->sel, 1, lo);
	sqlite3_bind_int64(c->sel, 2, hi);
	return copy_rows(m, c, id, delta, rows);
}

/* The ranges moved: their owners' lo and hi columns in the output. */
static int fix_ranges(struct merge *m, int64_t id)
{
	for (size_t i = 1; i < m->nc; i++) {
		const struct copy *c = &m->c[i];
		sqlite3_stmt *st;
		char *sql;
		int rc;

		if (!c->has_range)
			continue;
		if (asprintf(&sql, "UPDATE %s SET %s = ?2, %s = ?3 WHERE %s = "
			     "?1", c->t->owner, c->t->lo, c->t->hi,
			     strcmp(c->t->owner, "source") ? "source_id" :
			     "id") < 0)
			return mdb_error_nomem(m->e);
		rc = sqlite3_prepare_v2(m->out->h, sql, -1, &st, NULL);
		free(sql);
		if (rc)
			return mdb_db_error(m->out, m->e,
					    "cannot write to database");
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, c->lo);
		sqlite3_bind_int64(st, 3, c->hi);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return mdb_db_error(m->out, m->e,
					    "cannot write to database");
	}
	return 0;
}

/* Append @s to res->sources. */
static int add_result(struct merge *m, const struct mdb_merge_source *s)
{
	struct mdb_merge_result *r = m->res;
	struct mdb_merge_source *n;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;

		n = realloc(r->sources, cap * sizeof(*n));
		if (!n)
			return mdb_error_nomem(m->e);
		r->sources = n;
		r->cap = cap;
	}
	r->sources[r->n++] = *s;
	return 0;
}

static char *dup_col(sqlite3_stmt *st, int col)
{
	const char *t = (const char *)sqlite3_column_text(st, col);

	return t ? strdup(t) : NULL;
}

/* Copy input source @old (content @hash) and every row of it. */
static int copy_source(struct merge *m, sqlite3_stmt *list, int64_t old)
{
	struct mdb_merge_source s = { .in_id = old };
	struct copy *c = &m->c[0];
	sqlite3_stmt *st;
	int64_t rows = 0;
	int ret, rc;

	s.format = dup_col(list, 1);
	s.label = dup_col(list, 2);
	s.path = dup_col(list, 3);
	/* the same data already there: say which source holds it */
	if (sqlite3_prepare_v2(m->out->h, "SELECT id, label FROM source WHERE "
			       "hash = ?1 ORDER BY id LIMIT 1", -1, &st, NULL)) {
		ret = mdb_db_error(m->out, m->e, "cannot query sources");
		goto out;
	}
	sqlite3_bind_value(st, 1, sqlite3_column_value(list, 4));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		s.skipped = 1;
		s.out_id = sqlite3_column_int64(st, 0);
		s.out_label = dup_col(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		ret = mdb_db_error(m->out, m->e, "cannot query sources");
		goto out;
	}
	if (s.skipped) {
		m->res->skipped++;
		ret = add_result(m, &s);
		if (ret == 0)
			return 0;
		goto out;
	}
	sqlite3_bind_int64(c->sel, 1, old);
	ret = copy_rows(m, c, 0, 0, &rows);
	if (ret < 0)
		goto out;
	s.out_id = sqlite3_last_insert_rowid(m->out->h);
	for (size_t i = 1; i < m->nc && ret == 0; i++)
		ret = copy_table(m, &m->c[i], old, s.out_id, &s.rows);
	if (ret == 0)
		ret = fix_ranges(m, s.out_id);
	if (ret == 0) {
		m->res->merged++;
		m->res->rows += s.rows;
		ret = add_result(m, &s);
		if (ret == 0)
			return 0;
	}
out:
	free(s.format);
	free(s.label);
	free(s.path);
	free(s.out_label);
	return ret;
}

/* The user_version of the database at @path, read without memdb's
 * checks; -1 when it cannot be read. */
static int raw_version(const char *path)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK &&
	    sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) ==
	    SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	return v;
}

static void unlink_copy(const char *path)
{
	static const char *const sfx[] = { "", "-journal", "-wal", "-shm" };

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		char *p;

		if (asprintf(&p, "%s%s", path, sfx[i]) >= 0) {
			unlink(p);
			free(p);
		}
	}
}

/*
 * The input at @path of an older schema @v: copied (SQLite's backup) to
 * a temporary file, which opening migrates, then opened read-only.
 */
static int open_migrated(struct merge *m, const char *path, int v)
{
	const char *tmp = getenv("TMPDIR");
	sqlite3 *src = NULL, *dst = NULL;
	sqlite3_backup *b;
	struct mdb_db mig;
	int fd, rc = SQLITE_ERROR, ret;

	if (asprintf(&m->copy_path, "%s/memdb-merge-XXXXXX",
		     tmp && *tmp ? tmp : "/tmp") < 0) {
		m->copy_path = NULL;
		return mdb_error_nomem(m->e);
	}
	fd = mkstemp(m->copy_path);
	if (fd < 0) {
		ret = mdb_error_set(m->e, MDB_E_IO, m->copy_path, -1, -1,
				    "%s", strerror(errno));
		mdb_error_msg(m->e, "cannot make a copy of '%s' to migrate",
			      path);
		free(m->copy_path);
		m->copy_path = NULL;
		return ret;
	}
	close(fd);
	if (sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK &&
	    sqlite3_open_v2(m->copy_path, &dst, SQLITE_OPEN_READWRITE, NULL) ==
	    SQLITE_OK && (b = sqlite3_backup_init(dst, "main", src, "main"))) {
		rc = sqlite3_backup_step(b, -1);
		sqlite3_backup_finish(b);
	}
	sqlite3_close(src);
	sqlite3_close(dst);
	if (rc != SQLITE_DONE) {
		mdb_error_set(m->e, MDB_E_DB, path, -1, -1,
			      "user_version=%d", v);
		mdb_error_msg(m->e, "cannot copy the database to migrate it");
		return -MDB_E_DB;
	}
	ret = mdb_db_open(&mig, m->copy_path, MDB_DB_EXISTING, m->e);
	if (ret == 0)
		ret = mdb_db_close(&mig, m->e);
	if (ret == 0)
		ret = mdb_db_open(&m->in, m->copy_path, MDB_DB_READONLY, m->e);
	if (ret < 0) {
		/* the message names the input, not the copy */
		snprintf(m->e->file, sizeof(m->e->file), "%s", path);
		return ret;
	}
	m->res->migrated_from = v;
	return 0;
}

/* Open the input read-only, migrating a copy of an older one. */
static int open_input(struct merge *m, const char *path)
{
	struct stat st;
	int ret, v;

	if (stat(path, &st) == 0 && m->out->ino && st.st_dev == m->out->dev &&
	    st.st_ino == m->out->ino) {
		mdb_error_set(m->e, MDB_E_INVAL, path, -1, -1, NULL);
		mdb_error_msg(m->e, "the database is the one merged into");
		return -MDB_E_INVAL;
	}
	ret = mdb_db_open(&m->in, path, MDB_DB_READONLY, m->e);
	if (ret != -MDB_E_SCHEMA)
		return ret;
	v = raw_version(path);
	if (v <= 0 || v >= MDB_SCHEMA_VERSION) {
		if (v > MDB_SCHEMA_VERSION) {
			mdb_error_msg(m->e, "database written by a newer memdb "
				      "(schema %d; this one reads up to %d)",
				      v, MDB_SCHEMA_VERSION);
			mdb_error_hint(m->e, "merge it with that memdb, or "
				       "into a database of its own");
		}
		return ret;
	}
	mdb_error_clear(m->e);
	return open_migrated(m, path, v);
}

static void release(struct merge *m)
{
	for (size_t i = 0; m->c && i < m->nc; i++) {
		sqlite3_finalize(m->c[i].sel);
		sqlite3_finalize(m->c[i].ins);
		sqlite3_finalize(m->c[i].range);
	}
	free(m->c);
	if (m->in.h)
		mdb_db_close(&m->in, NULL);
	if (m->copy_path)
		unlink_copy(m->copy_path);
	free(m->copy_path);
}

void mdb_merge_result_release(struct mdb_merge_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->sources[i].format);
		free(r->sources[i].label);
		free(r->sources[i].path);
		free(r->sources[i].out_label);
	}
	free(r->sources);
	memset(r, 0, sizeof(*r));
}

int mdb_db_merge(struct mdb_db *out, const char *in_path,
		 struct mdb_merge_result *res, struct mdb_error *e)
{
	struct merge m = { .out = out, .e = e, .res = res };
	size_t nt;
	const struct mdb_source_table *t = mdb_source_tables(&nt);
	sqlite3_stmt *list = NULL;
	int ret, rc, in_txn = 0, out_txn = 0;

	memset(res, 0, sizeof(*res));
	ret = open_input(&m, in_path);
	if (ret < 0)
		goto out;
	m.nc = nt + 1;
	m.c = calloc(m.nc, sizeof(*m.c));
	if (!m.c) {
		ret = mdb_error_nomem(e);
		goto out;
	}
	/* one read transaction: the input as of one moment */
	ret = mdb_db_exec(&m.in, "BEGIN", e);
	if (ret < 0)
		goto out;
	in_txn = 1;
	ret = mdb_db_exec(out, "BEGIN IMMEDIATE", e);
	if (ret < 0)
		goto out;
	out_txn = 1;
	for (size_t i = 0; i < m.nc && ret == 0; i++) {
		m.c[i].t = i ? &t[i - 1] : NULL;
		ret = prepare_copy(&m, &m.c[i]);
	}
	if (ret < 0)
		goto out;
	if (sqlite3_prepare_v2(m.in.h, "SELECT id, format, label, path, hash "
			       "FROM source ORDER BY id", -1, &list, NULL)) {
		ret = in_error(&m, "cannot read the input database");
		goto out;
	}
	while (ret == 0 && (rc = sqlite3_step(list)) == SQLITE_ROW)
		ret = copy_source(&m, list, sqlite3_column_int64(list, 0));
	if (ret == 0 && rc != SQLITE_DONE)
		ret = in_error(&m, "cannot read the input database");
	if (ret == 0) {
		ret = mdb_db_exec(out, "COMMIT", e);
		out_txn = ret < 0;
	}
out:
	sqlite3_finalize(list);
	if (out_txn)
		mdb_db_exec(out, "ROLLBACK", NULL);
	if (in_txn)
		mdb_db_exec(&m.in, "ROLLBACK", NULL);
	release(&m);
	if (ret < 0) {
		int migrated = res->migrated_from;

		mdb_merge_result_release(res);
		res->migrated_from = migrated;
		/* a failure names the input, or, the output's, both */
		if (!e->file[0]) {
			snprintf(e->file, sizeof(e->file), "%s", in_path);
		} else if (strcmp(e->file, in_path)) {
			char msg[sizeof(e->msg)];

			snprintf(msg, sizeof(msg), "%s", e->msg);
			mdb_error_msg(e, "%s, merging '%s' into it", msg,
				      in_path);
		}
	}
	return ret;
}
