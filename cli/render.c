// SPDX-License-Identifier: MIT
/* Table, CSV and JSON rendering of query results; see render.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../common/escape.h"
#include "picture.h"
#include "render.h"

int mdb_format_parse(const char *s)
{
	if (!strcmp(s, "table"))
		return MDB_FMT_TABLE;
	if (!strcmp(s, "csv"))
		return MDB_FMT_CSV;
	if (!strcmp(s, "json"))
		return MDB_FMT_JSON;
	if (!strcmp(s, "folded"))
		return MDB_FMT_FOLDED;
	if (!strcmp(s, "svg"))
		return MDB_FMT_SVG;
	return -1;
}

/*
 * Positions, ids (task ids too), CPUs, times and years read better
 * without digit grouping: a column of one of these names, or whose name
 * ends in '_' and one of them.
 */
static int groupable(const char *col)
{
	static const char *const plain[] = { "seq", "id", "cpu", "node",
					     "line", "ts", "source", "pos",
					     "order", "bucket", "pfn", "at",
					     "pid", "tid", "tgid", "ppid",
					     "year", "lineno" };

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		size_t n = strlen(col), m = strlen(plain[i]);

		if (!strcmp(col, plain[i]) ||
		    (n > m && col[n - m - 1] == '_' &&
		     !strcmp(col + n - m, plain[i])))
			return 0;
	}
	return 1;
}

static void fmt_grouped(char *buf, size_t len, sqlite3_int64 v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%lld", (long long)v), o = 0;
	int neg = tmp[0] == '-', digits = n - neg;

	for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
		int from_end = n - i;

		buf[o++] = tmp[i];
		if (i >= neg && from_end > 1 && (from_end - 1) % 3 == 0 &&
		    digits > 3)
			buf[o++] = ',';
	}
	buf[o] = '\0';
}

int mdb_render_is_size(const char *name)
{
	static const char *const sizes[] = { "size", "waste", "avg_alloc" };

	if (strstr(name, "bytes"))
		return 1;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcmp(name, sizes[i]))
			return 1;
	return 0;
}

void mdb_render_human(char *buf, size_t len, long long v)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB",
					    "PiB", "EiB" };
	double d = v < 0 ? -(double)v : (double)v;
	int u = -1;

	if (d < 1024) {
		snprintf(buf, len, "%lldB", v);
		return;
	}
	while (d >= 1024 && u < 5) {
		d /= 1024;
		u++;
	}
	/* 1023.96 KiB would print as 1024.0KiB: it is 1.0MiB */
	if (d >= 1023.95 && u < 5) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, "%s%.1f%s", v < 0 ? "-" : "", d, unit[u]);
}

int mdb_render_width(FILE *out)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;

	if (c && *c) {
		char *end;
		long n = strtol(c, &end, 10);

		if (!*end && n > 0 && n < 100000)
			return (int)n;
	}
	if (isatty(fileno(out)) && !ioctl(fileno(out), TIOCGWINSZ, &ws) &&
	    ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

/* ---- column selection ----------------------------------------------- */

/* The columns shown: statement column idx[i] is the i-th. */
struct colmap {
	int n;
	int *idx;           /* -1: the statement lacks it (a total row) */
	const char **names; /* the i-th column's name */
};

static void colmap_free(struct colmap *m)
{
	free(m->idx);
	free((void *)m->names);
	m->idx = NULL;
	m->names = NULL;
}

static int column_index(sqlite3_stmt *st, const char *name, size_t len)
{
	for (int c = 0; c < sqlite3_column_count(st); c++) {
		const char *cn = sqlite3_column_name(st, c);

		if (strlen(cn) == len && !strncmp(cn, name, len))
			return c;
	}
	return -1;
}

/* "unknown column 'x'; this report has: a, b, c" */
static int unknown_column(sqlite3_stmt *st, const char *name, size_t len,
			  struct mdb_error *e)
{
	size_t at;

	mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, NULL);
	at = (size_t)snprintf(e->msg, sizeof(e->msg), "--columns: no column "
			      "'%.*s'; the columns are", (int)len, name);
	for (int c = 0; c < sqlite3_column_count(st) && at < sizeof(e->msg);
	     c++)
		at += (size_t)snprintf(e->msg + at, sizeof(e->msg) - at,
				       "%s %s", c ? "," : "",
				       sqlite3_column_name(st, c));
	return -MDB_E_INVAL;
}

/*
 * The columns of @st named by @list ("a,b"), or all when @list is NULL.
 * With @ref (the rows' map, for a total row), a name @st lacks maps to -1
 * and the names are @ref's; without, it is an error.
 */
static int colmap_make(struct colmap *m, sqlite3_stmt *st, const char *list,
		       const struct colmap *ref, struct mdb_error *e)
{
	int n = sqlite3_column_count(st);

	for (const char *p = list; p && *p; p++)
		n += *p == ',';
	m->n = 0;
	m->idx = calloc((size_t)n + 1, sizeof(*m->idx));
	m->names = calloc((size_t)n + 1, sizeof(*m->names));
	if (!m->idx || !m->names) {
		colmap_free(m);
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	}
	for (; !list && m->n < n; m->n++) {
		m->idx[m->n] = m->n;
		m->names[m->n] = sqlite3_column_name(st, m->n);
	}
	for (const char *p = list; p; p = *p ? p + 1 : NULL) {
		size_t len = strcspn(p, ",");
		int c = column_index(st, p, len);

		if (c < 0 && !ref) {
			colmap_free(m);
			return unknown_column(st, p, len, e);
		}
		m->idx[m->n] = c;
		m->names[m->n] = ref ? ref->names[m->n] :
				       sqlite3_column_name(st, c);
		m->n++;
		p += len;
	}
	return 0;
}

/* One cell as text for @fmt; returns 1 when it is numeric. */
static int cell_text(sqlite3_stmt *st, int c, enum mdb_format fmt,
		     char *buf, size_t len, const char **out)
{
	if (c < 0) { /* a selected column the total row lacks */
		*out = NULL;
		return 0;
	}
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_INTEGER:
		if (fmt == MDB_FMT_TABLE &&
		    groupable(sqlite3_column_name(st, c)))
			fmt_grouped(buf, len, sqlite3_column_int64(st, c));
		else
			snprintf(buf, len, "%lld",
				 (long long)sqlite3_column_int64(st, c));
		*out = buf;
		return 1;
	case SQLITE_FLOAT:
		snprintf(buf, len, fmt == MDB_FMT_TABLE ? "%.3f" : "%.6f",
			 sqlite3_column_double(st, c));
		*out = buf;
		return 1;
	case SQLITE_NULL:
		*out = NULL;
		return 0;
	case SQLITE_BLOB:
		snprintf(buf, len, "<blob %d bytes>",
			 sqlite3_column_bytes(st, c));
		*out = buf;
		return 0;
	default:
		*out = (const char *)sqlite3_column_text(st, c);
		return 0;
	}
}

/* ---- CSV ------------------------------------------------------------ */

static void csv_quoted(FILE *out, const char *s);

/* CSV to a terminal is read by a person: escape what it would act on.
 * To a file or a pipe it carries the data as stored. */
static int csv_escape;

static void csv_field(FILE *out, const char *str)
{
	char *esc = NULL;
	const char *s = str;

	if (!s)
		return;
	if (csv_escape && mdb_escape_needed(s, 0)) {
		esc = mdb_escape(s, 0);
		s = esc ? esc : "?";
	}
	csv_quoted(out, s);
	free(esc);
}

static void csv_quoted(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_row(FILE *out, sqlite3_stmt *st, const struct colmap *m)
{
	char buf[64];

	for (int c = 0; c < m->n; c++) {
		const char *t;

		if (c)
			fputc(',', out);
		cell_text(st, m->idx[c], MDB_FMT_CSV, buf, sizeof(buf), &t);
		csv_field(out, t);
	}
	fputc('\n', out);
}

/* ---- JSON ----------------------------------------------------------- */

static void json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	while (*s) {
		unsigned cp;
		int n;

		if (*s == '"' || *s == '\\') {
			fputc('\\', out);
			fputc(*s++, out);
		} else if (*s < 0x20) {
			fprintf(out, "\\u%04x", *s++);
		} else if ((n = mdb_utf8_len(s, &cp)) > 0) {
			/* the same string, safe on a terminal and in JS */
			if (mdb_cp_unsafe(cp))
				fprintf(out, "\\u%04x", cp);
			else
				fwrite(s, 1, (size_t)n, out);
			s += n;
		} else {
			fputs("\\ufffd", out); /* invalid UTF-8 byte */
			s++;
		}
	}
	fputc('"', out);
}

/* The row as an object; a total row (@total) without its label column. */
static void json_object(FILE *out, sqlite3_stmt *st, const struct colmap *m,
			int total)
{
	char buf[64];
	int k = 0;

	fputc('{', out);
	for (int c = 0; c < m->n; c++) {
		const char *t;
		int num;

		if (total && m->idx[c] == 0)
			continue;
		if (k++)
			fputs(", ", out);
		json_string(out, m->names[c]);
		fputs(": ", out);
		num = cell_text(st, m->idx[c], MDB_FMT_JSON, buf, sizeof(buf),
				&t);
		if (!t)
			fputs("null", out);
		else if (num)
			fputs(t, out);
		else
			json_string(out, t);
	}
	fputc('}', out);
}

/* ---- table ---------------------------------------------------------- */

struct table {
	int ncol;
	int human;     /* sizes as KiB, MiB, ... */
	size_t nrows, cap;
	char **cells;  /* nrows * ncol, NULL = SQL NULL */
	int *numeric;  /* per column: right-aligned */
	size_t *width;
	size_t *cut;   /* per column: cells longer are cut; 0: none */
};

/* A table cell of column @c of @st, named @name; 1 when numeric. */
static int table_cell(const struct table *t, sqlite3_stmt *st, int c,
		      const char *name, char *buf, size_t len,
		      const char **out)
{
	if (t->human && c >= 0 &&
	    sqlite3_column_type(st, c) == SQLITE_INTEGER &&
	    mdb_render_is_size(name)) {
		mdb_render_human(buf, len, sqlite3_column_int64(st, c));
		*out = buf;
		return 1;
	}
	return cell_text(st, c, MDB_FMT_TABLE, buf, len, out);
}

static int table_add(struct table *t, sqlite3_stmt *st,
		     const struct colmap *m)
{
	char buf[64];

	if (t->nrows == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		char **nc = realloc(t->cells, ncap * (size_t)t->ncol *
						      sizeof(*nc));

		if (!nc)
			return -1;
		t->cells = nc;
		t->cap = ncap;
	}
	for (int c = 0; c < t->ncol; c++) {
		const char *s;
		char **cell = &t->cells[t->nrows * (size_t)t->ncol + (size_t)c];
		size_t w;

		if (table_cell(t, st, m->idx[c], m->names[c], buf, sizeof(buf),
			       &s))
			t->numeric[c] = 1;
		/* a table is for people: names from inputs are escaped */
		*cell = s ? mdb_escape(s, 0) : strdup("-");
		if (!*cell) {
			for (int d = 0; d < c; d++)
				free(t->cells[t->nrows * (size_t)t->ncol +
					      (size_t)d]);
			return -1;
		}
		w = strlen(*cell);
		if (w > t->width[c])
			t->width[c] = w;
	}
	t->nrows++;
	return 0;
}

/* The width of the table's lines. */
static size_t table_width(const struct table *t)
{
	size_t w = 0;

	for (int c = 0; c < t->ncol; c++)
		w += t->width[c] + (c ? 2 : 0);
	return w;
}

/* A text column is not cut narrower than this (or its header). */
#define MIN_CUT 20

/*
 * Fit the table in @width columns: narrow the widest text column, one
 * column at a time, down to its header's width (at least MIN_CUT);
 * numbers are never cut.  The cells wider than their column are cut with
 * "...".
 */
static void table_fit(struct table *t, const char *const *names,
		      size_t width)
{
	size_t have = table_width(t);

	while (have > width) {
		int wide = -1;

		for (int c = 0; c < t->ncol; c++) {
			size_t min = strlen(names[c]) > MIN_CUT ?
				     strlen(names[c]) : MIN_CUT;

			if (!t->numeric[c] && t->width[c] > min &&
			    (wide < 0 || t->width[c] > t->width[wide]))
				wide = c;
		}
		if (wide < 0)
			break;
		t->width[wide]--;
		t->cut[wide] = t->width[wide];
		have--;
	}
}

/* @s cut to @w bytes, its end "..." (not inside a UTF-8 sequence). */
static void put_cut(FILE *out, const char *s, size_t w, int pad)
{
	size_t n = strlen(s), keep;

	if (!w || n <= w) {
		fprintf(out, "%-*s", pad ? (int)w : 0, s);
		return;
	}
	keep = w - 3;
	while (keep && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	fprintf(out, "%.*s...%*s", (int)keep, s, pad ? (int)(w - 3 - keep) :
		0, "");
}

static void table_line(FILE *out, const struct table *t, char **cells)
{
	for (int c = 0; c < t->ncol; c++) {
		int last = c == t->ncol - 1;

		if (c)
			fputs("  ", out);
		if (t->numeric[c])
			fprintf(out, "%*s", (int)t->width[c], cells[c]);
		else if (t->cut[c])
			put_cut(out, cells[c], t->cut[c], !last);
		else if (last)
			fputs(cells[c], out);
		else
			fprintf(out, "%-*s", (int)t->width[c], cells[c]);
	}
	fputc('\n', out);
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * (size_t)t->ncol; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->numeric);
	free(t->width);
	free(t->cut);
}

/* ---- driver --------------------------------------------------------- */

static int step_error(sqlite3_stmt *st, struct mdb_error *e)
{
	mdb_error_set(e, MDB_E_DB, NULL, -1, -1, "%s",
		      sqlite3_errmsg(sqlite3_db_handle(st)));
	mdb_error_msg(e, "query failed");
	return -MDB_E_DB;
}

/* @s (a title: file names, labels) escaped, its own newlines kept. */
static void put_lines(FILE *out, const char *s)
{
	char *t = mdb_escape(s, MDB_ESC_KEEP_NL);

	fprintf(out, "%s\n", t ? t : "?");
	free(t);
}

/*
 * A total row whose columns are not the rows' (pages: the summary under
 * the order table): one "name  value" line per column after the first.
 */
static int total_block(FILE *out, const struct table *t,
		       sqlite3_stmt *total, struct mdb_error *e)
{
	int rc = sqlite3_step(total), n = sqlite3_column_count(total);
	size_t w = 0;

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return step_error(total, e);
	for (int c = 1; c < n; c++)
		if (strlen(sqlite3_column_name(total, c)) > w)
			w = strlen(sqlite3_column_name(total, c));
	fputc('\n', out);
	for (int c = 1; c < n; c++) {
		char buf[64];
		const char *s, *name = sqlite3_column_name(total, c);

		table_cell(t, total, c, name, buf, sizeof(buf), &s);
		fprintf(out, "%-*s  %s\n", (int)w, name, s ? s : "-");
	}
	return 0;
}

/* The rows of @rows and the total row of @total (when it has the same
 * columns; *@ntotal = 1 then) into @t. */
static int table_fill(struct table *t, sqlite3_stmt *rows,
		      const struct colmap *m, sqlite3_stmt *total,
		      const struct colmap *tm, size_t *ntotal,
		      struct mdb_error *e)
{
	int rc;

	while ((rc = sqlite3_step(rows)) == SQLITE_ROW)
		if (table_add(t, rows, m))
			return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1,
					     NULL);
	if (rc != SQLITE_DONE)
		return step_error(rows, e);
	if (!tm)
		return 0;
	rc = sqlite3_step(total);
	if (rc == SQLITE_ROW) {
		if (table_add(t, total, tm))
			return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1,
					     NULL);
		*ntotal = 1;
	} else if (rc != SQLITE_DONE) {
		return step_error(total, e);
	}
	return 0;
}

static void rule_line(FILE *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc('-', out);
	fputc('\n', out);
}

static void table_print(FILE *out, const struct mdb_report_out *o,
			const struct table *t, const struct colmap *m,
			size_t ntotal)
{
	size_t rule = table_width(t);

	if (o->title)
		put_lines(out, o->title);
	for (const char **n = o->notes; n && *n; n++)
		put_lines(out, *n);
	if (o->title || (o->notes && *o->notes))
		fputc('\n', out);
	table_line(out, t, (char **)m->names);
	rule_line(out, rule);
	for (size_t r = 0; r < t->nrows; r++) {
		if (ntotal && r == t->nrows - 1) {
			if (t->nrows == 1)
				fputs("(no rows)\n", out);
			rule_line(out, rule);
		}
		table_line(out, t, &t->cells[r * (size_t)t->ncol]);
	}
	if (!t->nrows)
		fputs("(no rows)\n", out);
}

static int render_table(FILE *out, const struct mdb_report_out *o,
			sqlite3_stmt *rows, sqlite3_stmt *total,
			const struct colmap *m, const struct colmap *tm,
			struct mdb_error *e)
{
	struct table t = { .ncol = m->n, .human = o->human };
	/* a total of other columns is printed as a block of its own */
	int same = total && sqlite3_column_count(total) ==
			    sqlite3_column_count(rows);
	size_t ntotal = 0;
	int ret;

	t.numeric = calloc((size_t)t.ncol + 1, sizeof(*t.numeric));
	t.width = calloc((size_t)t.ncol + 1, sizeof(*t.width));
	t.cut = calloc((size_t)t.ncol + 1, sizeof(*t.cut));
	if (!t.numeric || !t.width || !t.cut) {
		ret = mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
		goto out;
	}
	for (int c = 0; c < t.ncol; c++)
		t.width[c] = strlen(m->names[c]);
	ret = table_fill(&t, rows, m, total, same ? tm : NULL, &ntotal, e);
	if (ret < 0)
		goto out;
	if (o->width > 0)
		table_fit(&t, m->names, (size_t)o->width);
	table_print(out, o, &t, m, ntotal);
	if (total && !same)
		ret = total_block(out, &t, total, e);
out:
	table_free(&t);
	return ret;
}

/* "stack weight" per row: kernel symbols, printed as they are. */
static int render_folded(FILE *out, sqlite3_stmt *rows, struct mdb_error *e)
{
	int rc;

	if (sqlite3_column_count(rows) < 2)
		return mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1,
				     "folded output needs two columns");
	while ((rc = sqlite3_step(rows)) == SQLITE_ROW) {
		const unsigned char *s = sqlite3_column_text(rows, 0);

		fprintf(out, "%s %lld\n", s ? (const char *)s : "",
			(long long)sqlite3_column_int64(rows, 1));
	}
	return rc == SQLITE_DONE ? 0 : step_error(rows, e);
}

static int render_csv(FILE *out, sqlite3_stmt *rows, sqlite3_stmt *total,
		      const struct colmap *m, const struct colmap *tm,
		      struct mdb_error *e)
{
	int rc;

	csv_escape = isatty(fileno(out));
	for (int c = 0; c < m->n; c++) {
		if (c)
			fputc(',', out);
		csv_field(out, m->names[c]);
	}
	fputc('\n', out);
	while ((rc = sqlite3_step(rows)) == SQLITE_ROW)
		csv_row(out, rows, m);
	if (rc != SQLITE_DONE)
		return step_error(rows, e);
	if (total) {
		rc = sqlite3_step(total);
		if (rc == SQLITE_ROW)
			csv_row(out, total, tm);
		else if (rc != SQLITE_DONE)
			return step_error(total, e);
	}
	return 0;
}

static int render_json(FILE *out, const struct mdb_report_out *o,
		       sqlite3_stmt *rows, sqlite3_stmt *total,
		       const struct colmap *m, const struct colmap *tm,
		       struct mdb_error *e)
{
	size_t n = 0;
	int rc;

	if (o->report) {
		fputs("{\"report\": ", out);
		json_string(out, o->report);
		fprintf(out, ", \"source\": %s, \"rows\": [",
			o->source_json ? o->source_json : "null");
	} else {
		fputc('[', out);
	}
	while ((rc = sqlite3_step(rows)) == SQLITE_ROW) {
		fputs(n++ ? ",\n  " : "\n  ", out);
		json_object(out, rows, m, 0);
	}
	if (rc != SQLITE_DONE)
		return step_error(rows, e);
	fputs(n ? "\n]" : "]", out);
	if (o->report) {
		rc = total ? sqlite3_step(total) : SQLITE_DONE;
		if (rc == SQLITE_ROW) {
			fputs(", \"total\": ", out);
			json_object(out, total, tm, 1);
		} else if (rc == SQLITE_DONE) {
			fputs(", \"total\": null", out);
		} else {
			return step_error(total, e);
		}
		fputc('}', out);
	}
	fputc('\n', out);
	return 0;
}

int mdb_render(FILE *out, const struct mdb_report_out *o, sqlite3_stmt *rows,
	       sqlite3_stmt *total, struct mdb_error *e)
{
	struct colmap m = { 0 }, tm = { 0 };
	int ret;

	if (o->fmt == MDB_FMT_FOLDED)
		return render_folded(out, rows, e);
	if (o->fmt == MDB_FMT_SVG)
		return mdb_picture(out, o->report ? o->report : "", o->title ?
				   o->title : "", rows, e);
	ret = colmap_make(&m, rows, o->columns, NULL, e);
	if (ret == 0 && total)
		ret = colmap_make(&tm, total, o->columns, &m, e);
	if (ret < 0)
		goto out;
	if (o->fmt == MDB_FMT_TABLE)
		ret = render_table(out, o, rows, total, &m, &tm, e);
	else if (o->fmt == MDB_FMT_CSV)
		ret = render_csv(out, rows, total, &m, &tm, e);
	else
		ret = render_json(out, o, rows, total, &m, &tm, e);
out:
	colmap_free(&m);
	colmap_free(&tm);
	return ret;
}
