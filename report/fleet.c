// SPDX-License-Identifier: MIT
/*
 * The fleet forms of the reports (queries/fleet/NAME.sql) run on
 * ClickHouse: each statement sent with the option values written in as
 * literals (ClickHouse 18.16's HTTP interface has no bound parameters),
 * the same values the engine binds for the SQLite form
 * (mdb_report_param()); the TabSeparatedWithNamesAndTypes results loaded
 * into an in-memory SQLite table, so that cli/ renders them exactly as
 * it renders the SQLite form's rows.  See report.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/clickhouse.h"
#include "fragment.h"
#include "report.h"

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* GLOB @g (SQLite's: *, ?, [...] with ^ to negate) as an RE2 regex. */
static char *glob_re(const char *g)
{
	char *re = malloc(strlen(g) * 2 + 8), *o = re;

	if (!re)
		return NULL;
	*o++ = '^';
	for (; *g; g++) {
		if (*g == '*') {
			*o++ = '.';
			*o++ = '*';
		} else if (*g == '?') {
			*o++ = '.';
		} else if (*g == '[' && strchr(g + 1 + (g[1] == '^') +
					       (g[1 + (g[1] == '^')] == ']'),
					       ']')) {
			/* a set, up to its ']' (one right after [ or [^ is
			 * a member) */
			const char *end = strchr(g + 1 + (g[1] == '^') +
						 (g[1 + (g[1] == '^')] == ']'),
						 ']');

			*o++ = '[';
			for (g++; g < end; g++) {
				if (*g == '\\' || (*g == '[' && g[1] == ':'))
					*o++ = '\\';
				*o++ = *g;
			}
			*o++ = ']';
		} else {
			if (strchr(".+()|{}$^\\[]", *g))
				*o++ = '\\';
			*o++ = *g;
		}
	}
	*o++ = '$';
	*o = '\0';
	return re;
}

/* The literal parameter @name stands for in @r's fleet form. */
static char *literal(const struct mdb_report *r, const char *name)
{
	const char *text;
	int64_t v;
	char *s = NULL;

	if (!strcmp(name, ":top")) {
		/* LIMIT takes no -1: all is the largest Int64 */
		v = r->args.top > 0 ? r->args.top : INT64_MAX;
		return asprintf(&s, "%lld", (long long)v) < 0 ? NULL : s;
	}
	if (!strcmp(name, ":label_re")) {
		struct mdb_rarg *l = mdb_report_arg(
			(struct mdb_report_args *)&r->args, "label");
		char *re = glob_re(l && l->text ? l->text : "*");

		s = re ? mdb_ch_quote(re) : NULL;
		free(re);
		return s;
	}
	switch (mdb_report_param(r, name, &v, &text)) {
	case MDB_PV_INT:
		return asprintf(&s, "%lld", (long long)v) < 0 ? NULL : s;
	case MDB_PV_TEXT:
		return mdb_ch_quote(text);
	case MDB_PV_NULL:
		return strdup("NULL");
	default:
		return strdup("");
	}
}

/*
 * Statement @sql (@n bytes) with its parameters as literals, then
 * @suffix; comments, quoted strings and identifiers are left as they
 * are.  NULL with @e set for an unknown parameter or no memory.
 */
static char *substitute(const struct mdb_report *r, const char *sql,
			size_t n, const char *suffix, struct mdb_error *e)
{
	const char *p = sql, *end = sql + n;
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		goto nomem;
	while (p < end) {
		if (p[0] == '-' && p + 1 < end && p[1] == '-') {
			size_t k = strcspn(p, "\n");

			fwrite(p, 1, k, f);
			p += k;
		} else if (*p == '\'' || *p == '"' || *p == '`') {
			const char *q = p + 1;

			while (q < end && *q != *p)
				q += *q == '\\' ? 2 : 1;
			q = q < end ? q + 1 : end;
			fwrite(p, 1, (size_t)(q - p), f);
			p = q;
		} else if (*p == ':' && p + 1 < end && ident_char(p[1]) &&
			   (p == sql || !ident_char(p[-1]))) {
			const char *q = p + 1;
			char *name, *lit;

			while (q < end && ident_char(*q))
				q++;
			name = strndup(p, (size_t)(q - p));
			lit = name ? literal(r, name) : NULL;
			if (!lit || !*lit) {
				if (lit) {
					mdb_error_set(e, MDB_E_INVAL, NULL, -1,
						      -1, "report=%s param=%s",
						      r->q->name, name);
					mdb_error_msg(e, "the fleet form uses "
						      "an unknown parameter");
				}
				free(lit);
				free(name);
				fclose(f);
				free(out);
				return lit ? NULL : (mdb_error_nomem(e), NULL);
			}
			fputs(lit, f);
			free(lit);
			free(name);
			p = q;
		} else {
			fputc(*p++, f);
		}
	}
	fputs(suffix, f);
	if (fclose(f))
		goto nomem;
	return out;
nomem:
	free(out);
	mdb_error_nomem(e);
	return NULL;
}

/* TSV field @f in place: ClickHouse's escapes undone; its length. */
static size_t unescape(char *f)
{
	char *o = f;

	for (char *p = f; *p; p++) {
		if (*p != '\\' || !p[1]) {
			*o++ = *p;
			continue;
		}
		switch (*++p) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'r': *o++ = '\r'; break;
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case '0': *o++ = '\0'; break;
		default: *o++ = *p; break;
		}
	}
	*o = '\0';
	return (size_t)(o - f);
}

/* The fields of line @l (tabs), in place, into @v (at most @max). */
static int split(char *l, char **v, int max)
{
	int n = 0;

	for (char *p = l; n < max;) {
		v[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

#define MAX_COLS 64

/*
 * The TabSeparatedWithNamesAndTypes @body into table @name of @mem:
 * integers as integers, floats as reals, \N as NULL, the rest as text.
 */
static int load(sqlite3 *mem, const char *name, char *body,
		struct mdb_error *e)
{
	char *names[MAX_COLS], *types[MAX_COLS], *v[MAX_COLS], *save = NULL;
	char *l1 = strtok_r(body, "\n", &save), *l2, *line, *sql = NULL;
	size_t len;
	sqlite3_stmt *ins = NULL;
	FILE *f;
	int nc, ret = 0;

	l2 = l1 ? strtok_r(NULL, "\n", &save) : NULL;
	if (!l1 || !l2)
		goto bad;
	nc = split(l1, names, MAX_COLS);
	if (split(l2, types, MAX_COLS) != nc)
		goto bad;
	f = open_memstream(&sql, &len);
	if (!f)
		return mdb_error_nomem(e);
	fprintf(f, "CREATE TABLE %s (", name);
	for (int i = 0; i < nc; i++) {
		unescape(names[i]);
		fputc(i ? ',' : ' ', f);
		fputc('"', f);
		for (const char *c = names[i]; *c; c++)
			fprintf(f, *c == '"' ? "\"\"" : "%c", *c);
		fputc('"', f);
	}
	fprintf(f, "); INSERT INTO %s VALUES (", name);
	for (int i = 0; i < nc; i++)
		fputs(i ? ", ?" : "?", f);
	fputs(")", f);
	if (fclose(f)) {
		free(sql);
		return mdb_error_nomem(e);
	}
	{
		char *ins_sql = strstr(sql, "; INSERT");

		*ins_sql = '\0';
		if (sqlite3_exec(mem, sql, NULL, NULL, NULL) ||
		    sqlite3_prepare_v2(mem, ins_sql + 2, -1, &ins, NULL)) {
			free(sql);
			return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1,
					     "%s", sqlite3_errmsg(mem));
		}
	}
	free(sql);
	while (ret == 0 && (line = strtok_r(NULL, "\n", &save))) {
		if (split(line, v, MAX_COLS) != nc) {
			sqlite3_finalize(ins);
			goto bad;
		}
		for (int i = 0; i < nc; i++) {
			const char *t = types[i];

			if (!strncmp(t, "Nullable(", 9)) {
				t += 9;
				if (!strcmp(v[i], "\\N")) {
					sqlite3_bind_null(ins, i + 1);
					continue;
				}
			}
			if (!strncmp(t, "Int", 3) || !strncmp(t, "UInt", 4))
				sqlite3_bind_int64(ins, i + 1,
					t[0] == 'U' ?
					(int64_t)strtoull(v[i], NULL, 10) :
					strtoll(v[i], NULL, 10));
			else if (!strncmp(t, "Float", 5))
				sqlite3_bind_double(ins, i + 1,
						    strtod(v[i], NULL));
			else
				sqlite3_bind_text(ins, i + 1, v[i],
						  (int)unescape(v[i]),
						  SQLITE_TRANSIENT);
		}
		if (sqlite3_step(ins) != SQLITE_DONE)
			ret = mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1,
					    "%s", sqlite3_errmsg(mem));
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	return ret;
bad:
	mdb_error_set(e, MDB_E_CORRUPT, NULL, -1, -1, "table=%s", name);
	mdb_error_msg(e, "ClickHouse's answer is not the table asked for");
	return -MDB_E_CORRUPT;
}

/*
 * The answer @body of a statement WITH TOTALS: its rows into t0, its
 * totals row (after the rows and a blank line) into t1, under the same
 * header.
 */
static int load_totals(sqlite3 *mem, char *body, struct mdb_error *e)
{
	char *blank = strstr(body, "\n\n"), *head_end, *t = NULL;
	int ret;

	head_end = strchr(body, '\n');
	head_end = head_end ? strchr(head_end + 1, '\n') : NULL;
	/* no rows: the header, then the blank line */
	if (!blank && head_end && head_end[1] == '\n')
		blank = head_end;
	if (!blank || !head_end || head_end > blank) {
		mdb_error_set(e, MDB_E_CORRUPT, NULL, -1, -1, NULL);
		mdb_error_msg(e, "ClickHouse's answer has no totals row");
		return -MDB_E_CORRUPT;
	}
	if (asprintf(&t, "%.*s%s", (int)(head_end + 1 - body), body,
		     blank + 2) < 0)
		return mdb_error_nomem(e);
	blank[1] = '\0';
	ret = load(mem, "t0", body, e);
	if (ret == 0)
		ret = load(mem, "t1", t, e);
	free(t);
	return ret;
}

int mdb_report_run_fleet(struct mdb_ch *ch, const struct mdb_report *r,
			 mdb_report_emit_fn emit, void *ctx,
			 struct mdb_fleet_scope *scope, struct mdb_error *e)
{
	sqlite3 *mem = NULL;
	sqlite3_stmt *rows = NULL, *total = NULL, *sc = NULL;
	const struct mdb_query *shared;
	const char *at, *s;
	char *whole;
	size_t n;
	int k = 0, ret = 0;
	/*
	 * "-- total: none": the rows, then the scope (no total row);
	 * "-- total: totals": the same, the rows' statement ending in
	 * GROUP BY ... WITH TOTALS, whose totals row (after a blank line)
	 * is the total: one pass over the rows, not a second statement.
	 * Either way the rows go to t0, the total to t1, the scope to t2.
	 */
	const char *tn = mdb_query_annot(r->q, "total", &n);
	int none = tn && n == 4 && !strncmp(tn, "none", 4);
	int totals = tn && n == 6 && !strncmp(tn, "totals", 6);
	int stmts = none || totals ? 2 : 3;

	memset(scope, 0, sizeof(*scope));
	/* _shared.sql holds fragments, not a report */
	if (r->named->name[0] == '_') {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, NULL);
		mdb_error_msg(e, "no report called '%s' ('memdb report list' "
			      "names them)", r->named->name);
		return -MDB_E_INVAL;
	}
	shared = mdb_fleet_find("_shared");
	whole = mdb_sql_expand(r->sql, strlen(r->sql),
			       shared ? shared->sql : NULL,
			       "queries/fleet/_shared.sql", &n, e);
	if (!whole)
		return -MDB_E_INVAL;
	at = whole;
	if (sqlite3_open(":memory:", &mem) != SQLITE_OK) {
		sqlite3_close(mem);
		free(whole);
		return mdb_error_nomem(e);
	}
	while (ret == 0 && k < stmts && mdb_sql_next_stmt(&at, &s, &n)) {
		char *sql = substitute(r, s, n, "\nFORMAT "
				       "TabSeparatedWithNamesAndTypes", e);
		char *body = NULL, name[16];

		if (!sql) {
			ret = -MDB_E_INVAL;
			break;
		}
		ret = mdb_ch_query(ch, sql, &body, NULL, e);
		free(sql);
		snprintf(name, sizeof(name), "t%d", k && stmts == 2 ? 2 : k);
		if (ret == 0 && totals && k == 0)
			ret = load_totals(mem, body, e);
		else if (ret == 0)
			ret = load(mem, name, body, e);
		k++;
		free(body);
	}
	if (ret == 0 && k < stmts) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "report=%s",
			      r->q->name);
		mdb_error_msg(e, "a fleet form has three statements: rows, "
			      "total (unless '-- total: none' or "
			      "'totals'), scope");
		ret = -MDB_E_INVAL;
	}
	if (ret == 0 && sqlite3_prepare_v2(mem, "SELECT * FROM t2", -1, &sc,
					   NULL) == SQLITE_OK &&
	    sqlite3_step(sc) == SQLITE_ROW && sqlite3_column_count(sc) >= 4) {
		scope->labels = sqlite3_column_int64(sc, 0);
		scope->sources = sqlite3_column_int64(sc, 1);
		snprintf(scope->first, sizeof(scope->first), "%s",
			 sqlite3_column_text(sc, 2) ?
			 (const char *)sqlite3_column_text(sc, 2) : "");
		snprintf(scope->last, sizeof(scope->last), "%s",
			 sqlite3_column_text(sc, 3) ?
			 (const char *)sqlite3_column_text(sc, 3) : "");
	}
	sqlite3_finalize(sc);
	if (ret == 0 && !scope->sources) {
		mdb_error_set(e, MDB_E_EMPTY, NULL, -1, -1, "report=%s",
			      r->named->name);
		mdb_error_msg(e, "no source of the fleet matches");
		ret = -MDB_E_EMPTY;
	}
	if (ret == 0 &&
	    (sqlite3_prepare_v2(mem, "SELECT * FROM t0 ORDER BY rowid", -1,
				&rows, NULL) ||
	     (!none && sqlite3_prepare_v2(mem, "SELECT * FROM t1", -1,
					  &total, NULL))))
		ret = mdb_error_nomem(e);
	if (ret == 0)
		ret = emit(ctx, rows, total, e);
	sqlite3_finalize(rows);
	sqlite3_finalize(total);
	sqlite3_close(mem);
	free(whole);
	return ret;
}
