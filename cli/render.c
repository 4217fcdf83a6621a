// SPDX-License-Identifier: MIT
/* Table, CSV and JSON rendering of query results; see render.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/escape.h"
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
	return -1;
}

/* Positions, ids, CPUs and times read better without digit grouping. */
static int groupable(const char *col)
{
	static const char *const plain[] = { "seq", "id", "cpu", "node",
					     "line", "ts", "source", "pos",
					     "order", "bucket", "pfn", "at" };

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

/* One cell as text for @fmt; returns 1 when it is numeric. */
static int cell_text(sqlite3_stmt *st, int c, enum mdb_format fmt,
		     char *buf, size_t len, const char **out)
{
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

static void csv_row(FILE *out, sqlite3_stmt *st, int ncol)
{
	char buf[64];

	for (int c = 0; c < ncol; c++) {
		const char *t;

		if (c)
			fputc(',', out);
		cell_text(st, c, MDB_FMT_CSV, buf, sizeof(buf), &t);
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

static void json_object(FILE *out, sqlite3_stmt *st, int first_col)
{
	int ncol = sqlite3_column_count(st);
	char buf[64];

	fputc('{', out);
	for (int c = first_col; c < ncol; c++) {
		const char *t;
		int num;

		if (c > first_col)
			fputs(", ", out);
		json_string(out, sqlite3_column_name(st, c));
		fputs(": ", out);
		num = cell_text(st, c, MDB_FMT_JSON, buf, sizeof(buf), &t);
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
	size_t nrows, cap;
	char **cells;  /* nrows * ncol, NULL = SQL NULL */
	int *numeric;  /* per column: right-aligned */
	size_t *width;
};

static int table_add(struct table *t, sqlite3_stmt *st)
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

		if (cell_text(st, c, MDB_FMT_TABLE, buf, sizeof(buf), &s))
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

static void table_line(FILE *out, const struct table *t, char **cells)
{
	for (int c = 0; c < t->ncol; c++) {
		int last = c == t->ncol - 1;

		if (c)
			fputs("  ", out);
		if (t->numeric[c])
			fprintf(out, "%*s", (int)t->width[c], cells[c]);
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
static int total_block(FILE *out, sqlite3_stmt *total, struct mdb_error *e)
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
		const char *s;

		cell_text(total, c, MDB_FMT_TABLE, buf, sizeof(buf), &s);
		fprintf(out, "%-*s  %s\n", (int)w,
			sqlite3_column_name(total, c), s ? s : "-");
	}
	return 0;
}

static int render_table(FILE *out, const struct mdb_report_out *o,
			sqlite3_stmt *rows, sqlite3_stmt *total,
			struct mdb_error *e)
{
	struct table t = { 0 };
	size_t ntotal = 0;
	int rc, ret = 0;

	t.ncol = sqlite3_column_count(rows);
	t.numeric = calloc((size_t)t.ncol + 1, sizeof(*t.numeric));
	t.width = calloc((size_t)t.ncol + 1, sizeof(*t.width));
	if (!t.numeric || !t.width) {
		ret = mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
		goto out;
	}
	for (int c = 0; c < t.ncol; c++)
		t.width[c] = strlen(sqlite3_column_name(rows, c));
	while ((rc = sqlite3_step(rows)) == SQLITE_ROW)
		if (table_add(&t, rows)) {
			ret = mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1,
					    NULL);
			goto out;
		}
	if (rc != SQLITE_DONE) {
		ret = step_error(rows, e);
		goto out;
	}
	if (total && sqlite3_column_count(total) == t.ncol) {
		rc = sqlite3_step(total);
		if (rc == SQLITE_ROW) {
			if (table_add(&t, total)) {
				ret = mdb_error_set(e, MDB_E_NOMEM, NULL, -1,
						    -1, NULL);
				goto out;
			}
			ntotal = 1;
		} else if (rc != SQLITE_DONE) {
			ret = step_error(total, e);
			goto out;
		}
	}

	if (o->title)
		put_lines(out, o->title);
	for (const char **n = o->notes; n && *n; n++)
		put_lines(out, *n);
	if (o->title || (o->notes && *o->notes))
		fputc('\n', out);
	{
		char **hdr = calloc((size_t)t.ncol, sizeof(*hdr));
		size_t rule = 0;

		if (!hdr) {
			ret = mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1,
					    NULL);
			goto out;
		}
		for (int c = 0; c < t.ncol; c++) {
			hdr[c] = (char *)sqlite3_column_name(rows, c);
			rule += t.width[c] + (c ? 2 : 0);
		}
		table_line(out, &t, hdr);
		free(hdr);
		for (size_t i = 0; i < rule; i++)
			fputc('-', out);
		fputc('\n', out);
		for (size_t r = 0; r < t.nrows; r++) {
			if (ntotal && r == t.nrows - 1) {
				for (size_t i = 0; i < rule; i++)
					fputc('-', out);
				fputc('\n', out);
			}
			table_line(out, &t, &t.cells[r * (size_t)t.ncol]);
		}
		if (!t.nrows)
			fputs("(no rows)\n", out);
	}
	if (total && sqlite3_column_count(total) != t.ncol)
		ret = total_block(out, total, e);
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

int mdb_render(FILE *out, const struct mdb_report_out *o, sqlite3_stmt *rows,
	       sqlite3_stmt *total, struct mdb_error *e)
{
	int ncol = sqlite3_column_count(rows), rc;
	size_t n = 0;

	if (o->fmt == MDB_FMT_TABLE)
		return render_table(out, o, rows, total, e);
	if (o->fmt == MDB_FMT_FOLDED)
		return render_folded(out, rows, e);

	if (o->fmt == MDB_FMT_CSV) {
		csv_escape = isatty(fileno(out));
		for (int c = 0; c < ncol; c++) {
			if (c)
				fputc(',', out);
			csv_field(out, sqlite3_column_name(rows, c));
		}
		fputc('\n', out);
		while ((rc = sqlite3_step(rows)) == SQLITE_ROW)
			csv_row(out, rows, ncol);
		if (rc != SQLITE_DONE)
			return step_error(rows, e);
		if (total) {
			rc = sqlite3_step(total);
			if (rc == SQLITE_ROW)
				csv_row(out, total,
					sqlite3_column_count(total));
			else if (rc != SQLITE_DONE)
				return step_error(total, e);
		}
		return 0;
	}

	/* JSON */
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
		json_object(out, rows, 0);
	}
	if (rc != SQLITE_DONE)
		return step_error(rows, e);
	fputs(n ? "\n]" : "]", out);
	if (o->report) {
		rc = total ? sqlite3_step(total) : SQLITE_DONE;
		if (rc == SQLITE_ROW) {
			fputs(", \"total\": ", out);
			json_object(out, total, 1);
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
