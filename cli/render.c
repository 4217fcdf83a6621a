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
int mdb_render_groupable(const char *col)
{
	static const char *const plain[] = { "seq", "id", "cpu", "cpus",
					     "node", "line", "ts", "source",
					     "pos", "order", "bucket", "pfn",
					     "at", "pid", "tid", "tgid",
					     "ppid", "year", "lineno" };

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
	if (!isatty(fileno(out)))
		return 0;
	if (!ioctl(fileno(out), TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	return 80; /* a terminal that does not say (a serial console) */
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
		return mdb_error_nomem(e);
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
		    mdb_render_groupable(sqlite3_column_name(st, c)))
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

/* ---- display width -------------------------------------------------- */

/*
 * The terminal columns of code point @cp: 0 for combining marks and
 * zero-width characters, 2 for East Asian wide and fullwidth forms and
 * emoji, else 1 (Markus Kuhn's wcwidth ranges, without the locale
 * wcwidth(3) needs).
 */
static size_t cp_width(unsigned cp)
{
	static const unsigned zero[][2] = {
		{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
		{ 0x0610, 0x061a }, { 0x064b, 0x065f }, { 0x1ab0, 0x1aff },
		{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x20d0, 0x20ff },
		{ 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff },
	};
	static const unsigned wide[][2] = {
		{ 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x4dbf },
		{ 0x4e00, 0xa4cf }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
		{ 0xfe30, 0xfe4f }, { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 },
		{ 0x1f300, 0x1f64f }, { 0x1f900, 0x1f9ff },
		{ 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
	};

	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (cp >= zero[i][0] && cp <= zero[i][1])
			return 0;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (cp >= wide[i][0] && cp <= wide[i][1])
			return 2;
	return 1;
}

/* The character at @p: its bytes (a byte that is not UTF-8 alone), and
 * its columns in *@w. */
static size_t char_at(const char *p, size_t *w)
{
	unsigned cp;
	int n = mdb_utf8_len((const unsigned char *)p, &cp);

	*w = n > 0 ? cp_width(cp) : 1;
	return n > 0 ? (size_t)n : 1;
}

/* The columns @s takes on a terminal (escaped text: valid UTF-8). */
static size_t text_width(const char *s)
{
	size_t w = 0, cw;

	while (*s) {
		s += char_at(s, &cw);
		w += cw;
	}
	return w;
}

/* The bytes of the longest start of @s at most @w columns wide (its
 * columns in *@got). */
static size_t head_fit(const char *s, size_t w, size_t *got)
{
	size_t at = 0, used = 0, n, cw;

	while (s[at]) {
		n = char_at(s + at, &cw);
		if (used + cw > w)
			break;
		used += cw;
		at += n;
	}
	*got = used;
	return at;
}

/* Where the shortest end of @s at most @w columns wide starts (its
 * columns in *@got). */
static size_t tail_fit(const char *s, size_t w, size_t *got)
{
	size_t left = text_width(s), at = 0, cw;

	while (s[at] && left > w) {
		at += char_at(s + at, &cw);
		left -= cw;
	}
	*got = left;
	return at;
}

static void pad(FILE *out, size_t n)
{
	fprintf(out, "%*s", (int)n, "");
}

/*
 * @s in @w columns: whole when it fits, else cut with "..." at its end
 * or, @mid (paths: the file name is at the end), in its middle; then
 * blanks up to @w when @fill.
 */
static void put_cut(FILE *out, const char *s, size_t w, int fill, int mid)
{
	size_t used = text_width(s), head, tail = 0, hw, tw = 0;

	if (used > w && w < 4) { /* no room for "..." */
		fwrite(s, 1, head_fit(s, w, &used), out);
	} else if (used > w) {
		head = head_fit(s, mid ? (w - 3) / 3 : w - 3, &hw);
		if (mid)
			tail = tail_fit(s, w - 3 - hw, &tw);
		fwrite(s, 1, head, out);
		fputs("...", out);
		if (mid)
			fputs(s + tail, out);
		used = hw + 3 + tw;
	} else {
		fputs(s, out);
	}
	if (fill && used < w)
		pad(out, w - used);
}

/*
 * One line @s in at most @width columns, broken at blanks: the later
 * lines indented two more than the first, a word longer than a line cut
 * in its middle.  @width 0 (or too narrow to wrap): as it is.
 */
static void put_wrapped(FILE *out, char *s, size_t width)
{
	size_t ind = strspn(s, " "), cont = ind + 2, at = ind, start = ind;
	char *p = s + ind;

	if (width < 16 || text_width(s) <= width) {
		fprintf(out, "%s\n", s);
		return;
	}
	if (cont > width / 2)
		cont = 2;
	pad(out, ind);
	while (*p) {
		size_t n = strcspn(p, " "), w;
		char end = p[n];

		p[n] = '\0';
		w = text_width(p);
		if (at > start && at + 1 + w > width) {
			fputc('\n', out);
			pad(out, cont);
			at = start = cont;
		} else if (at > start) {
			fputc(' ', out);
			at++;
		}
		put_cut(out, p, width - at, 0, 1);
		at += w < width - at ? w : width - at;
		p[n] = end;
		p += n + strspn(p + n, " ");
	}
	fputc('\n', out);
}

/* @s (a title: file names, labels) escaped, its own newlines kept, each
 * line wrapped to @width. */
static void put_lines(FILE *out, const char *s, size_t width)
{
	char *t = mdb_escape(s, MDB_ESC_KEEP_NL);

	if (!t) {
		fputs("?\n", out);
		return;
	}
	for (char *l = t, *nl; l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		put_wrapped(out, l, width);
	}
	free(t);
}

/* ---- table ---------------------------------------------------------- */

/* Why a column is not shown. */
enum { SHOWN, HIDE_EMPTY, HIDE_FIT };

struct tcol {
	int numeric;   /* right-aligned, never cut */
	int hidden;    /* SHOWN, HIDE_EMPTY or HIDE_FIT */
	int mid;       /* a path: cut in the middle */
	size_t full;   /* columns of its widest cell or header */
	size_t width;  /* as shown: less than full when cut */
	size_t filled; /* cells not NULL */
};

struct table {
	int ncol;
	int human;     /* sizes as KiB, MiB, ... */
	size_t nrows, cap;
	char **cells;  /* nrows * ncol, NULL = SQL NULL */
	struct tcol *col;
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
		struct tcol *k = &t->col[c];
		size_t w;

		if (table_cell(t, st, m->idx[c], m->names[c], buf, sizeof(buf),
			       &s))
			k->numeric = 1;
		/* a table is for people: names from inputs are escaped */
		*cell = s ? mdb_escape(s, 0) : strdup("-");
		if (!*cell) {
			for (int d = 0; d < c; d++)
				free(t->cells[t->nrows * (size_t)t->ncol +
					      (size_t)d]);
			return -1;
		}
		k->filled += s != NULL;
		w = text_width(*cell);
		if (w > k->full)
			k->full = w;
	}
	t->nrows++;
	return 0;
}

/* The width of the table's lines. */
static size_t table_width(const struct table *t)
{
	size_t w = 0;
	int shown = 0;

	for (int c = 0; c < t->ncol; c++)
		if (!t->col[c].hidden)
			w += t->col[c].width + (shown++ ? 2 : 0);
	return w;
}

/* The table's columns with nothing in any row, left out; not when that
 * would be all of them. */
static void table_skip_empty(struct table *t)
{
	int any = 0;

	for (int c = 0; c < t->ncol; c++)
		any |= t->col[c].filled > 0;
	for (int c = 0; any && c < t->ncol; c++)
		if (!t->col[c].filled)
			t->col[c].hidden = HIDE_EMPTY;
}

/* A text column is cut down to SOFT_CUT columns (or its header) before
 * any column is left out, and down to MIN_CUT when none is left to go. */
#define SOFT_CUT 32
#define MIN_CUT 20

/*
 * Cut the widest text column by one, again and again, down to its
 * header's width (at least @min), until the table is @width wide;
 * numbers are never cut.  Returns the width reached.
 */
static size_t table_narrow(struct table *t, const char *const *names,
			   size_t width, size_t min)
{
	size_t have = table_width(t);

	while (have > width) {
		int wide = -1;

		for (int c = 0; c < t->ncol; c++) {
			const struct tcol *k = &t->col[c];
			size_t head = text_width(names[c]);

			if (!k->hidden && !k->numeric && k->width > min &&
			    k->width > head &&
			    (wide < 0 || k->width > t->col[wide].width))
				wide = c;
		}
		if (wide < 0)
			break;
		t->col[wide].width--;
		have--;
	}
	return have;
}

/*
 * The next column of the list @*next (names separated by blanks) that
 * is shown, -1 when none is left.  The last text column is kept: it
 * names the rows (callsites' call_site when no symbol is known).
 */
static int next_drop(const struct table *t, const char *const *names,
		     const char **next)
{
	const char *p = *next;
	int text = 0;

	for (int c = 0; c < t->ncol; c++)
		text += !t->col[c].hidden && !t->col[c].numeric;
	while (p && *(p += strspn(p, " "))) {
		size_t n = strcspn(p, " ");

		for (int c = 0; c < t->ncol; c++)
			if (!t->col[c].hidden && strlen(names[c]) == n &&
			    !strncmp(names[c], p, n) &&
			    (t->col[c].numeric || text > 1)) {
				*next = p + n;
				return c;
			}
		p += n;
	}
	*next = p;
	return -1;
}

/*
 * Fit the table in @width columns: cut its long text (down to SOFT_CUT);
 * when that is not enough, leave out the next column of @drop and try
 * again from the whole text; when no column is left to go, cut the text
 * down to MIN_CUT.  What still does not fit is as wide as it is.
 */
static void table_fit(struct table *t, const char *const *names,
		      size_t width, const char *drop)
{
	const char *next = drop;

	for (;;) {
		int c;

		for (c = 0; c < t->ncol; c++)
			t->col[c].width = t->col[c].full;
		if (table_narrow(t, names, width, SOFT_CUT) <= width)
			return;
		c = next_drop(t, names, &next);
		if (c < 0)
			break;
		t->col[c].hidden = HIDE_FIT;
	}
	table_narrow(t, names, width, MIN_CUT);
}

static void table_line(FILE *out, const struct table *t, char **cells)
{
	int last = t->ncol - 1, first = 1;

	while (last > 0 && t->col[last].hidden)
		last--;
	for (int c = 0; c <= last; c++) {
		const struct tcol *k = &t->col[c];

		if (k->hidden)
			continue;
		if (!first)
			fputs("  ", out);
		first = 0;
		if (k->numeric) {
			pad(out, k->width - text_width(cells[c]));
			fputs(cells[c], out);
		} else {
			put_cut(out, cells[c], k->width, c != last, k->mid);
		}
	}
	fputc('\n', out);
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * (size_t)t->ncol; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->col);
}

/* Is column @name a path or a file name (cut in its middle)? */
static int is_path(const char *name)
{
	size_t n = strlen(name);

	return !strcmp(name, "path") || !strcmp(name, "file") ||
	       (n > 5 && (!strcmp(name + n - 5, "_path") ||
			  !strcmp(name + n - 5, "_file")));
}

/* ---- driver --------------------------------------------------------- */

static int step_error(sqlite3_stmt *st, struct mdb_error *e)
{
	mdb_error_set(e, MDB_E_DB, NULL, -1, -1, "%s",
		      sqlite3_errmsg(sqlite3_db_handle(st)));
	mdb_error_msg(e, "query failed");
	return -MDB_E_DB;
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
			return mdb_error_nomem(e);
	if (rc != SQLITE_DONE)
		return step_error(rows, e);
	if (!tm)
		return 0;
	rc = sqlite3_step(total);
	if (rc == SQLITE_ROW) {
		if (table_add(t, total, tm))
			return mdb_error_nomem(e);
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

/* "left out to fit 100 columns: a, b (--wide shows them)": the columns
 * table_fit() left out, in the table's order. */
static void dropped_note(FILE *out, const struct table *t,
			 const char *const *names, size_t width)
{
	char *s = NULL;
	size_t len;
	FILE *f;
	int n = 0;

	for (int c = 0; c < t->ncol; c++)
		n += t->col[c].hidden == HIDE_FIT;
	if (!n || !(f = open_memstream(&s, &len)))
		return;
	fprintf(f, "left out to fit %zu columns:", width);
	for (int c = 0, k = 0; c < t->ncol; c++)
		if (t->col[c].hidden == HIDE_FIT)
			fprintf(f, "%s %s", k++ ? "," : "", names[c]);
	fputs(" (--wide shows them)", f);
	if (fclose(f) == 0)
		put_wrapped(out, s, width);
	free(s);
}

static void table_print(FILE *out, const struct mdb_report_out *o,
			const struct table *t, const struct colmap *m,
			size_t ntotal)
{
	size_t rule = table_width(t), width = (size_t)o->width;

	if (o->title)
		put_lines(out, o->title, width);
	for (const char **n = o->notes; n && *n; n++)
		put_lines(out, *n, width);
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
	dropped_note(out, t, m->names, width);
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

	t.col = calloc((size_t)t.ncol + 1, sizeof(*t.col));
	if (!t.col) {
		ret = mdb_error_nomem(e);
		goto out;
	}
	for (int c = 0; c < t.ncol; c++) {
		t.col[c].full = text_width(m->names[c]);
		t.col[c].mid = is_path(m->names[c]);
	}
	ret = table_fill(&t, rows, m, total, same ? tm : NULL, &ntotal, e);
	if (ret < 0)
		goto out;
	/* no rows: every column is empty, and the header says what
	 * there would be */
	if (o->skip_empty && t.nrows > ntotal)
		table_skip_empty(&t);
	for (int c = 0; c < t.ncol; c++)
		t.col[c].width = t.col[c].full;
	if (o->width > 0)
		table_fit(&t, m->names, (size_t)o->width, o->drop);
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
