// SPDX-License-Identifier: MIT
/* SVG pictures of reports; see picture.h. */
#include <stdlib.h>
#include <string.h>

#include "picture.h"
#include "svg.h"

#define WIDTH 1200

/* The report's rows as text, row-major. */
struct grid {
	int ncol, nrow;
	char **name;  /* column names */
	char **cell;  /* nrow * ncol, NULL for SQL NULL */
};

static void grid_free(struct grid *g)
{
	for (int i = 0; i < g->ncol; i++)
		free(g->name[i]);
	for (long i = 0; i < (long)g->nrow * g->ncol; i++)
		free(g->cell[i]);
	free(g->name);
	free(g->cell);
}

static int grid_row(struct grid *g, sqlite3_stmt *st)
{
	char **c = realloc(g->cell, sizeof(*c) * (size_t)(g->nrow + 1) *
			   (size_t)g->ncol);

	if (!c)
		return -1;
	g->cell = c;
	c += (size_t)g->nrow * (size_t)g->ncol;
	memset(c, 0, sizeof(*c) * (size_t)g->ncol);
	g->nrow++; /* counted now: grid_free() frees what is filled */
	for (int i = 0; i < g->ncol; i++) {
		const char *t = (const char *)sqlite3_column_text(st, i);
		char real[64];

		/* REAL figures as the CSV prints them: 6 decimals */
		if (sqlite3_column_type(st, i) == SQLITE_FLOAT) {
			snprintf(real, sizeof(real), "%.6f",
				 sqlite3_column_double(st, i));
			t = real;
		}
		if (t && !(c[i] = strdup(t)))
			return -1;
	}
	return 0;
}

static int grid_read(struct grid *g, sqlite3_stmt *st, struct mdb_error *e)
{
	int rc;

	memset(g, 0, sizeof(*g));
	g->name = calloc((size_t)sqlite3_column_count(st) + 1,
			 sizeof(*g->name));
	if (!g->name)
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	g->ncol = sqlite3_column_count(st);
	for (int i = 0; i < g->ncol; i++)
		if (!(g->name[i] = strdup(sqlite3_column_name(st, i))))
			return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (grid_row(g, st))
			return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1,
					     NULL);
	if (rc != SQLITE_DONE)
		return mdb_error_set(e, MDB_E_DB, NULL, -1, -1, "%s",
				     sqlite3_errmsg(sqlite3_db_handle(st)));
	return 0;
}

static int grid_col(const struct grid *g, const char *name)
{
	for (int i = 0; i < g->ncol; i++)
		if (!strcmp(g->name[i], name))
			return i;
	return -1;
}

static const char *cell(const struct grid *g, int r, int c)
{
	const char *s = c < 0 ? NULL : g->cell[(size_t)r * (size_t)g->ncol +
					       (size_t)c];

	return s ? s : "";
}

static long long cell_ll(const struct grid *g, int r, int c)
{
	return strtoll(cell(g, r, c), NULL, 10);
}

static int need_col(const struct grid *g, const char *name,
		    struct mdb_error *e)
{
	int c = grid_col(g, name);

	if (c < 0)
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "the picture "
			      "needs column '%s', which this report lacks",
			      name);
	return c;
}

/* The label of row @r: its symbol when it has one, else its first column. */
static const char *row_label(const struct grid *g, int r)
{
	int s = grid_col(g, "symbol");

	if (s >= 0 && *cell(g, r, s))
		return cell(g, r, s);
	return cell(g, r, 0);
}

/* ---- bars ------------------------------------------------------------ */

static void bar_row(FILE *f, const struct grid *g, int r, int vc,
		    long long maxv, double y)
{
	const double lx = 380, area = WIDTH - lx - 140;
	long long v = cell_ll(g, r, vc);
	double w = maxv ? area * (double)llabs(v) / (double)maxv : 0;
	char *tip = NULL, num[32];
	size_t len;
	FILE *t = open_memstream(&tip, &len);

	if (t) {
		fprintf(t, "%s: %s=%lld", row_label(g, r), g->name[vc], v);
		fclose(t);
	}
	svg_text(f, lx - 6, y + 14, "end", 12, row_label(g, r), 56);
	svg_rect(f, lx, y + 2, w, 16, v < 0 ? "#4a7fb5" : "#d9612b", tip);
	snprintf(num, sizeof(num), "%lld", v);
	svg_text(f, lx + w + 6, y + 14, "start", 12, num, -1);
	free(tip);
}

/* One bar per row, length |column @value|, labelled with its figure. */
static int draw_bars(FILE *f, const struct grid *g, const char *value,
		     const char *title, struct mdb_error *e)
{
	int vc = need_col(g, value, e), h;
	long long maxv = 0;

	if (vc < 0)
		return -MDB_E_INVAL;
	for (int r = 0; r < g->nrow; r++)
		if (llabs(cell_ll(g, r, vc)) > maxv)
			maxv = llabs(cell_ll(g, r, vc));
	h = 70 + 22 * g->nrow;
	svg_begin(f, WIDTH, h, title);
	svg_text(f, 10, 22, "start", 15, title, 150);
	svg_text(f, 380, 46, "start", 12, value, -1);
	for (int r = 0; r < g->nrow; r++)
		bar_row(f, g, r, vc, maxv, 52 + 22.0 * r);
	svg_line(f, 380, 50, 380, h - 10, "#333333");
	svg_end(f);
	return 0;
}

/* ---- timeline -------------------------------------------------------- */

/* A panel of column @vc over the buckets at @top: a line, or bars. */
static void panel(FILE *f, const struct grid *g, int vc, double top,
		  int bars)
{
	const double x0 = 110, pw = WIDTH - 140, ph = 300;
	double *xs = calloc((size_t)g->nrow + 1, sizeof(*xs));
	double *ys = calloc((size_t)g->nrow + 1, sizeof(*ys));
	long long maxv = 1;
	char num[32];

	for (int r = 0; r < g->nrow; r++)
		if (cell_ll(g, r, vc) > maxv)
			maxv = cell_ll(g, r, vc);
	svg_text(f, x0, top - 8, "start", 13, g->name[vc], -1);
	snprintf(num, sizeof(num), "%lld", maxv);
	svg_text(f, x0 - 6, top + 10, "end", 11, num, -1);
	svg_text(f, x0 - 6, top + ph, "end", 11, "0", -1);
	svg_line(f, x0, top, x0, top + ph, "#333333");
	svg_line(f, x0, top + ph, x0 + pw, top + ph, "#333333");
	for (int r = 0; xs && ys && r < g->nrow; r++) {
		double bw = pw / g->nrow, v = (double)cell_ll(g, r, vc);

		xs[r] = x0 + bw * (r + 0.5);
		ys[r] = top + ph - ph * v / (double)maxv;
		if (bars)
			svg_rect(f, x0 + bw * r + 1, ys[r], bw - 2,
				 top + ph - ys[r], "#d9612b", NULL);
	}
	if (!bars && xs && ys)
		svg_polyline(f, xs, ys, g->nrow, "#4a7fb5");
	free(xs);
	free(ys);
}

/* Invisible columns over both panels, each a tooltip of its bucket. */
static void bucket_tips(FILE *f, const struct grid *g, double top, double h)
{
	const double x0 = 110, pw = WIDTH - 140;

	for (int r = 0; r < g->nrow; r++) {
		char *tip = NULL;
		size_t len;
		FILE *t = open_memstream(&tip, &len);

		if (!t)
			continue;
		for (int c = 0; c < g->ncol; c++)
			fprintf(t, "%s%s=%s", c ? " " : "", g->name[c],
				cell(g, r, c));
		fclose(t);
		svg_rect(f, x0 + pw / g->nrow * r, top, pw / g->nrow, h,
			 "transparent", tip);
		free(tip);
	}
}

static int draw_timeline(FILE *f, const struct grid *g, const char *title,
			 struct mdb_error *e)
{
	int lb = need_col(g, "live_bytes", e), al;
	const char *x = grid_col(g, "to_s") >= 0 ? "to_s" : "to_seq";
	int xc = grid_col(g, x);

	if (lb < 0 || (al = need_col(g, "allocs", e)) < 0)
		return -MDB_E_INVAL;
	svg_begin(f, WIDTH, 820, title);
	svg_text(f, 10, 22, "start", 15, title, 150);
	panel(f, g, lb, 70, 0);
	panel(f, g, al, 430, 1);
	if (g->nrow && xc >= 0) {
		svg_text(f, 110, 750, "start", 11, cell(g, 0, xc), -1);
		svg_text(f, WIDTH - 30, 750, "end", 11,
			 cell(g, g->nrow - 1, xc), -1);
	}
	svg_text(f, WIDTH / 2, 770, "middle", 12, x, -1);
	bucket_tips(f, g, 70, 660);
	svg_end(f);
	return 0;
}

/* ---- flame graph ----------------------------------------------------- */

struct fstack {
	char **frame; /* root first */
	int depth;
	long long bytes;
};

struct flame {
	FILE *f;
	struct fstack *s;
	int n, maxdepth;
	long long total;
	double h;     /* the picture's height */
};

static int fstack_cmp(const void *a, const void *b)
{
	const struct fstack *x = a, *y = b;

	for (int i = 0; i < x->depth && i < y->depth; i++) {
		int c = strcmp(x->frame[i], y->frame[i]);

		if (c)
			return c;
	}
	return x->depth - y->depth;
}

/* Split "a;b;c" into frames (in place in @text). */
static int fstack_split(struct fstack *s, char *text, long long bytes)
{
	int n = 1;

	for (char *p = text; *p; p++)
		n += *p == ';';
	s->frame = calloc((size_t)n, sizeof(*s->frame));
	if (!s->frame)
		return -1;
	s->depth = 0;
	for (char *p = text, *q; p; p = q) {
		q = strchr(p, ';');
		if (q)
			*q++ = '\0';
		s->frame[s->depth++] = p;
	}
	s->bytes = bytes;
	return 0;
}

/* The frame @name at @depth over @x..@x+@bytes, with a tooltip. */
static void flame_box(struct flame *fl, const char *name, int depth,
		      long long x, long long bytes)
{
	const double fw = WIDTH - 20;
	double px = 10 + fw * (double)x / (double)fl->total;
	double w = fw * (double)bytes / (double)fl->total;
	double y = fl->h - 30 - 17.0 * (depth + 1);
	char colour[32], *tip = NULL;
	size_t len;
	FILE *t = open_memstream(&tip, &len);

	if (t) {
		fprintf(t, "%s: bytes=%lld (%.2f%%)", name, bytes,
			100.0 * (double)bytes / (double)fl->total);
		fclose(t);
	}
	svg_colour(colour, sizeof(colour), name);
	fputs("<g>", fl->f);
	svg_rect(fl->f, px, y, w - 0.5, 16, colour, tip);
	if ((w - 6) / 6.5 >= 4) /* room for "a..." at least */
		svg_text(fl->f, px + 3, y + 12, "start", 11, name,
			 (long)((w - 6) / 6.5));
	fputs("</g>\n", fl->f);
	free(tip);
}

/* Stacks @lo..@hi share their frames above @depth: draw from @depth up. */
static void flame_level(struct flame *fl, int lo, int hi, int depth,
			long long x)
{
	int i = lo;

	while (i < hi) {
		int j = i;
		long long bytes = 0;

		while (i < hi && fl->s[i].depth <= depth) {
			x += fl->s[i].bytes; /* ended below: its own width */
			i++;
		}
		if (i >= hi)
			break;
		for (j = i; j < hi && fl->s[j].depth > depth &&
			    !strcmp(fl->s[j].frame[depth],
				    fl->s[i].frame[depth]); j++)
			bytes += fl->s[j].bytes;
		flame_box(fl, fl->s[i].frame[depth], depth, x, bytes);
		flame_level(fl, i, j, depth + 1, x);
		x += bytes;
		i = j;
	}
}

static int draw_flame(FILE *f, const struct grid *g, const char *title,
		      struct mdb_error *e)
{
	struct flame fl = { .f = f };
	char head[96];
	int ret = 0;

	fl.s = calloc((size_t)g->nrow + 1, sizeof(*fl.s));
	if (!fl.s || g->ncol < 2)
		return mdb_error_set(e, g->ncol < 2 ? MDB_E_INVAL : MDB_E_NOMEM,
				     NULL, -1, -1, "a flame graph needs "
				     "stacks and weights");
	for (int r = 0; r < g->nrow && !ret; r++, fl.n++) {
		ret = fstack_split(&fl.s[r], g->cell[(size_t)r * g->ncol] ?
				   g->cell[(size_t)r * g->ncol] : (char *)"",
				   cell_ll(g, r, 1));
		fl.total += fl.s[r].bytes;
		if (fl.s[r].depth > fl.maxdepth)
			fl.maxdepth = fl.s[r].depth;
	}
	if (ret)
		ret = mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	qsort(fl.s, (size_t)fl.n, sizeof(*fl.s), fstack_cmp);
	fl.h = 80 + 17.0 * fl.maxdepth;
	svg_begin(f, WIDTH, (int)fl.h, title);
	svg_text(f, 10, 22, "start", 15, title, 150);
	snprintf(head, sizeof(head), "bytes=%lld in %d stacks", fl.total,
		 fl.n);
	svg_text(f, 10, 42, "start", 12, head, -1);
	if (fl.total > 0 && !ret)
		flame_level(&fl, 0, fl.n, 0, 0);
	svg_end(f);
	for (int i = 0; i < fl.n; i++)
		free(fl.s[i].frame);
	free(fl.s);
	return ret;
}

/* ---- dispatch -------------------------------------------------------- */

static const struct {
	const char *report;
	const char *value; /* bars of this column; NULL: its own drawing */
	int (*draw)(FILE *f, const struct grid *g, const char *title,
		    struct mdb_error *e);
} pictures[] = {
	{ "timeline", NULL, draw_timeline },
	{ "callsites", "bytes_alloc", NULL },
	{ "zones", "bytes", NULL },
	{ "growth", "bytes_delta", NULL },
	{ "stacks", NULL, draw_flame },
};

static int find(const char *report)
{
	size_t n = strcspn(report, "@");

	for (size_t i = 0; i < sizeof(pictures) / sizeof(pictures[0]); i++)
		if (strlen(pictures[i].report) == n &&
		    !strncmp(pictures[i].report, report, n))
			return (int)i;
	return -1;
}

int mdb_picture_has(const char *report)
{
	return find(report) >= 0;
}

long mdb_picture_top(const char *report)
{
	int i = find(report);

	return i >= 0 && pictures[i].value ? 20 : 0;
}

int mdb_picture(FILE *out, const char *report, const char *title,
		sqlite3_stmt *rows, struct mdb_error *e)
{
	struct grid g;
	int i = find(report), ret;

	if (i < 0)
		return mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "report "
				     "'%s' has no picture", report);
	ret = grid_read(&g, rows, e);
	if (ret == 0 && pictures[i].value)
		ret = draw_bars(out, &g, pictures[i].value, title, e);
	else if (ret == 0)
		ret = pictures[i].draw(out, &g, title, e);
	grid_free(&g);
	return ret;
}
