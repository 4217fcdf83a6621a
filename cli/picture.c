// SPDX-License-Identifier: MIT
/* SVG pictures of reports; see picture.h. */
#include <stdlib.h>
#include <string.h>

#include "picture.h"
#include "svg.h"

#include "flame_js.inc" /* cli/flame.js as flame_js[] */

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
		return mdb_error_nomem(e);
	g->ncol = sqlite3_column_count(st);
	for (int i = 0; i < g->ncol; i++)
		if (!(g->name[i] = strdup(sqlite3_column_name(st, i))))
			return mdb_error_nomem(e);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (grid_row(g, st))
			return mdb_error_nomem(e);
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
	svg_group(num, sizeof(num), v);
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

#define TL_X0 110.0
#define TL_PW (WIDTH - 140.0)
#define TL_PH 300.0

/* A round step (1, 2, 2.5 or 5 times a power of ten) cutting @span into
 * about @n; for counts (@whole) a whole number, never 2.5. */
static double nice_step(double span, int n, int whole)
{
	double raw = span > 0 ? span / n : 1, p = 1, m;

	while (p * 10 <= raw)
		p *= 10;
	while (p > raw)
		p /= 10;
	m = raw / p;
	if (m <= 1)
		m = 1;
	else if (m <= 2)
		m = 2;
	else if (m <= 2.5 && !(whole && p < 10))
		m = 2.5;
	else if (m <= 5)
		m = 5;
	else
		m = 10;
	return whole && m * p < 1 ? 1 : m * p;
}

/* Decimals a multiple of @step needs (0.25: 2). */
static int step_decimals(double step)
{
	int d = 0;

	for (double v = step; d < 9; d++, v *= 10) {
		double r = (double)(long long)(v + 0.5) - v;

		if (r < 1e-6 * v && r > -1e-6 * v)
			break;
	}
	return d;
}

/*
 * Where the buckets go and what the x axis says.  Buckets of equal time
 * (--by time, or events spread evenly in time) each take their own
 * column, empty ones too, under a time axis; else (--by seq, the
 * default) each row takes the next column, under an axis of events with
 * each bucket's from_seq..to_seq spread over its column.
 */
struct layout {
	int *col, ncol;    /* row r's column, out of ncol */
	double *lo, *hi;   /* row r's span on the axis */
	double amin, amax; /* the axis's span; equal: no axis */
	int time;          /* a time axis, linear */
	const char *name;
};

/* Row r's span: columns @from..@to, less the first @from (time) or less
 * one (@seq: the events before from_seq); 0 when a row lacks either. */
static int layout_spans(struct layout *l, const struct grid *g,
			const char *from, const char *to, int seq)
{
	int fc = grid_col(g, from), tc = grid_col(g, to);
	double t0;

	if (fc < 0 || tc < 0 || g->nrow == 0)
		return 0;
	for (int r = 0; r < g->nrow; r++)
		if (!*cell(g, r, fc) || !*cell(g, r, tc))
			return 0;
	t0 = seq ? 1 : strtod(cell(g, 0, fc), NULL);
	for (int r = 0; r < g->nrow; r++) {
		l->lo[r] = strtod(cell(g, r, fc), NULL) - t0;
		l->hi[r] = strtod(cell(g, r, tc), NULL) - t0 + seq;
	}
	return l->hi[g->nrow - 1] > l->lo[0];
}

/* Is each row's end in the time span of its bucket, bucket c of B
 * covering [c T/B, (c+1) T/B) since the first event (B: the last bucket
 * plus one, as --by time makes them)?  The times have 6 decimals. */
static int layout_even(const struct layout *l, const struct grid *g,
		       int bc)
{
	long long b = bc < 0 ? 0 : cell_ll(g, g->nrow - 1, bc) + 1;
	double t = l->hi[g->nrow - 1], d = 1e-6 * (double)b / t;

	if (b < 1 || b > 100000)
		return 0;
	for (int r = 0; r < g->nrow; r++) {
		double v = l->hi[r] * (double)b / t;
		long long c = cell_ll(g, r, bc);
		long long lo = v - d < 0 ? 0 : (long long)(v - d);
		long long hi = (long long)(v + d);

		if (lo > b - 1)
			lo = b - 1;
		if (hi > b - 1)
			hi = b - 1;
		if (c < lo || c > hi || (r && c <= cell_ll(g, r - 1, bc)))
			return 0;
	}
	return 1;
}

static int layout_read(struct layout *l, const struct grid *g)
{
	int bc = grid_col(g, "bucket");

	l->col = calloc((size_t)g->nrow + 1, sizeof(*l->col));
	l->lo = calloc((size_t)g->nrow + 1, sizeof(*l->lo));
	l->hi = calloc((size_t)g->nrow + 1, sizeof(*l->hi));
	if (!l->col || !l->lo || !l->hi)
		return -1;
	l->ncol = g->nrow;
	for (int r = 0; r < g->nrow; r++)
		l->col[r] = r;
	if (layout_spans(l, g, "from_s", "to_s", 0) &&
	    layout_even(l, g, bc)) {
		l->time = 1;
		l->name = "time since the first event (s)";
		l->ncol = (int)cell_ll(g, g->nrow - 1, bc) + 1;
		for (int r = 0; r < g->nrow; r++)
			l->col[r] = (int)cell_ll(g, r, bc);
		l->amax = l->hi[g->nrow - 1];
	} else if (layout_spans(l, g, "from_seq", "to_seq", 1)) {
		l->name = "events since the start of the trace";
		l->amin = l->lo[0];
		l->amax = l->hi[g->nrow - 1];
	}
	return 0;
}

static void layout_free(struct layout *l)
{
	free(l->col);
	free(l->lo);
	free(l->hi);
}

/* Where value @v of the axis is: in proportion on a time axis; else in
 * the column of the bucket that holds it, in proportion there, on the
 * border of two buckets when between them. */
static double layout_x(const struct layout *l, int n, double v)
{
	const double bw = TL_PW / l->ncol;

	if (l->time)
		return TL_X0 + TL_PW * v / l->amax;
	for (int r = 0; r < n; r++) {
		if (v < l->lo[r])
			return TL_X0 + bw * r;
		if (v <= l->hi[r])
			return TL_X0 + bw * (r + (l->hi[r] > l->lo[r] ?
				(v - l->lo[r]) / (l->hi[r] - l->lo[r]) : 0.5));
	}
	return TL_X0 + TL_PW;
}

/* Ticks at round values under the panels at @top1 and @top2, labels
 * under the second; a tick too close to the last one is left out. */
static void layout_axis(FILE *f, const struct layout *l, int n, double top1,
			double top2)
{
	double step = nice_step(l->amax - l->amin, 8, !l->time), last = -1e9;
	int dec = l->time ? step_decimals(step) : 0;
	char num[48];

	fputs("<g class=\"x-axis\">\n", f);
	for (long long i = (long long)(l->amin / step + 1 - 1e-9);
	     (double)i * step <= l->amax + (l->amax - l->amin) * 1e-9; i++) {
		double v = (double)i * step, px = layout_x(l, n, v);

		if (px - last < 48)
			continue;
		last = px;
		svg_line(f, px, top1 + TL_PH, px, top1 + TL_PH + 4, "#333333");
		svg_line(f, px, top2 + TL_PH, px, top2 + TL_PH + 4, "#333333");
		if (l->time)
			snprintf(num, sizeof(num), "%.*f", dec, v);
		else
			svg_group(num, sizeof(num), (long long)(v + 0.5));
		svg_text(f, px, top2 + TL_PH + 18, "middle", 11, num, -1);
	}
	fputs("</g>\n", f);
	svg_text(f, TL_X0 + TL_PW / 2, top2 + TL_PH + 40, "middle", 12,
		 l->name, -1);
}

/* A panel of column @vc, called @name, at @top: the value at each
 * bucket's end as a line, or each bucket's as a bar.  The y axis runs
 * from 0 up to a round value, with a tick at each round step. */
static void panel(FILE *f, const struct grid *g, const struct layout *l,
		  int vc, const char *name, double top, int bars)
{
	const double x0 = TL_X0, pw = TL_PW, ph = TL_PH, bw = pw / l->ncol;
	double *xs = calloc((size_t)g->nrow + 1, sizeof(*xs));
	double *ys = calloc((size_t)g->nrow + 1, sizeof(*ys));
	long long maxv = 0, k;
	double step, ymax;
	char num[32];

	for (int r = 0; r < g->nrow; r++)
		if (cell_ll(g, r, vc) > maxv)
			maxv = cell_ll(g, r, vc);
	step = nice_step((double)maxv, 5, 1);
	k = (long long)((double)maxv / step);
	if ((double)k * step < (double)maxv || k == 0)
		k++;
	ymax = (double)k * step;
	svg_text(f, x0, top - 10, "start", 13, name, -1);
	fputs("<g class=\"y-axis\">\n", f);
	for (long long i = 0; i <= k; i++) {
		double y = top + ph - ph * (double)i / (double)k;

		if (i)
			svg_line(f, x0, y, x0 + pw, y, "#eeeeee");
		svg_line(f, x0 - 4, y, x0, y, "#333333");
		svg_group(num, sizeof(num),
			  (long long)((double)i * step + 0.5));
		svg_text(f, x0 - 7, y + 4, "end", 11, num, -1);
	}
	fputs("</g>\n", f);
	svg_line(f, x0, top, x0, top + ph, "#333333");
	svg_line(f, x0, top + ph, x0 + pw, top + ph, "#333333");
	for (int r = 0; xs && ys && r < g->nrow; r++) {
		double v = (double)cell_ll(g, r, vc);

		xs[r] = l->amax > l->amin ? layout_x(l, g->nrow, l->hi[r]) :
			x0 + bw * (l->col[r] + 0.5);
		ys[r] = top + ph - ph * v / ymax;
		if (bars)
			svg_rect(f, x0 + bw * l->col[r] + 1, ys[r], bw - 2,
				 top + ph - ys[r], "#d9612b", NULL);
	}
	if (!bars && xs && ys)
		svg_polyline(f, xs, ys, g->nrow, "#4a7fb5");
	free(xs);
	free(ys);
}

/* Invisible columns over both panels, each a tooltip of its bucket. */
static void bucket_tips(FILE *f, const struct grid *g,
			const struct layout *l, double top, double h)
{
	const double bw = TL_PW / l->ncol;

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
		svg_rect(f, TL_X0 + bw * l->col[r], top, bw, h, "transparent",
			 tip);
		free(tip);
	}
}

static int draw_timeline(FILE *f, const struct grid *g, const char *title,
			 struct mdb_error *e)
{
	int lb = need_col(g, "live_bytes", e), al;
	struct layout l = { 0 };

	if (lb < 0 || (al = need_col(g, "allocs", e)) < 0)
		return -MDB_E_INVAL;
	if (layout_read(&l, g)) {
		layout_free(&l);
		return mdb_error_nomem(e);
	}
	svg_begin(f, WIDTH, 830, title);
	svg_text(f, 10, 22, "start", 15, title, 150);
	panel(f, g, &l, lb, "live bytes at the end of each bucket "
	      "(live_bytes)", 70, 0);
	panel(f, g, &l, al, "allocations in each bucket (allocs)", 430, 1);
	if (l.amax > l.amin)
		layout_axis(f, &l, g->nrow, 70, 430);
	bucket_tips(f, g, &l, 70, 660);
	svg_end(f);
	layout_free(&l);
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
	int boxes;    /* drawn so far: the next box's id is "f<boxes>" */
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

/* The frame @name at @depth over @x..@x+@bytes, with a tooltip; its
 * offset, bytes and depth as attributes for the script (flame_script). */
static void flame_box(struct flame *fl, const char *name, int depth,
		      long long x, long long bytes)
{
	const double fw = WIDTH - 20;
	double px = 10 + fw * (double)x / (double)fl->total;
	double w = fw * (double)bytes / (double)fl->total;
	double y = fl->h - 30 - 17.0 * (depth + 1);
	long room = (long)((w - 6) / 6.5);
	char colour[32], *tip = NULL;
	size_t len;
	FILE *t = open_memstream(&tip, &len);

	if (t) {
		fprintf(t, "%s: bytes=%lld (%.2f%%)", name, bytes,
			100.0 * (double)bytes / (double)fl->total);
		fclose(t);
	}
	svg_colour(colour, sizeof(colour), name);
	fprintf(fl->f, "<g class=\"f\" id=\"f%d\" data-x=\"%lld\" "
		"data-b=\"%lld\" data-d=\"%d\">", fl->boxes++, x, bytes,
		depth);
	svg_rect(fl->f, px, y, w - 0.5, 16, colour, tip);
	/* a label when there is room for "a..." at least; an empty one
	 * else, for the script to fill when zoomed */
	svg_text(fl->f, px + 3, y + 12, "start", 11, room >= 4 ? name : "",
		 room >= 4 ? room : -1);
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

/* The controls flame_js shows (hidden until it runs: a picture shown
 * without scripts has no dead box), then the script itself. */
static void flame_script(const struct flame *fl)
{
	fprintf(fl->f, "<text class=\"fg-reset\" x=\"%d\" y=\"46\" "
		"text-anchor=\"end\" font-size=\"12\" fill=\"#1a5fb4\" "
		"text-decoration=\"underline\" display=\"none\">reset zoom"
		"</text>\n", WIDTH - 270);
	fprintf(fl->f, "<foreignObject class=\"fg-search\" x=\"%d\" "
		"y=\"30\" width=\"250\" height=\"24\" display=\"none\">"
		"<input xmlns=\"http://www.w3.org/1999/xhtml\" type=\"search\" "
		"placeholder=\"search frames: regex or text\" "
		"style=\"width:100%%;box-sizing:border-box;font-size:12px\"/>"
		"</foreignObject>\n", WIDTH - 260);
	fprintf(fl->f, "<text class=\"fg-match\" x=\"%d\" y=\"%.0f\" "
		"text-anchor=\"end\" font-size=\"12\"></text>\n", WIDTH - 10,
		fl->h - 10);
	fprintf(fl->f, "<text class=\"fg-info\" x=\"10\" y=\"%.0f\" "
		"font-size=\"12\" fill=\"#555555\"></text>\n", fl->h - 10);
	/* flame_js never holds "]]>" (tests/test_html_page.c checks) */
	fprintf(fl->f, "<script><![CDATA[\n%s(%lld, 10, %d);\n]]></script>\n",
		flame_js, fl->total, WIDTH - 20);
}

static int draw_flame(FILE *f, const struct grid *g, const char *title,
		      struct mdb_error *e)
{
	struct flame fl = { .f = f };
	char head[96], num[32];
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
		ret = mdb_error_nomem(e);
	qsort(fl.s, (size_t)fl.n, sizeof(*fl.s), fstack_cmp);
	/* 70 above the frames (title, figures, search box), 30 below */
	fl.h = 100 + 17.0 * fl.maxdepth;
	svg_begin(f, WIDTH, (int)fl.h, title);
	svg_text(f, 10, 22, "start", 15, title, 150);
	svg_group(num, sizeof(num), fl.total);
	snprintf(head, sizeof(head), "%s bytes in %d stacks", num, fl.n);
	svg_text(f, 10, 46, "start", 12, head, -1);
	if (fl.total > 0 && !ret) {
		flame_level(&fl, 0, fl.n, 0, 0);
		flame_script(&fl);
	}
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
