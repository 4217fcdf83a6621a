// SPDX-License-Identifier: MIT
/*
 * memdb html: one self-contained HTML page for a database: its sources,
 * the summary, the pictures of cli/picture.c as inline <svg> and the top
 * rows of the reports they draw.  No link, no font, no script but the
 * flame graph's own: a file any browser opens offline.  Untrusted text is
 * escaped as in the SVG; figures are printed as the text tables print
 * them (digits grouped, 3 decimals).
 */
#include <stdlib.h>
#include <string.h>

#include "../db/sources.h"
#include "../report/report.h"
#include "cli.h"
#include "opts.h"
#include "picture.h"
#include "render.h"
#include "scope.h"
#include "svg.h"

static const char usage_head[] =
"usage: memdb html [-d DB] [-o FILE]\n"
"\n"
"Write one HTML page about the database: its sources, the summary, the\n"
"pictures (the timeline of live bytes and allocations, by time when the\n"
"trace has timestamps, the call sites by bytes, the flame graph of\n"
"allocation stacks, the largest zones and what grew between snapshots;\n"
"as 'memdb report NAME --format svg' draws them, inline) and the top 20\n"
"rows of each of those reports.  Each report covers the latest source of\n"
"its kind; a report the database has no source for is named with the\n"
"reason.  The page loads nothing: no script, style sheet, font or image\n"
"from elsewhere (the flame graph's own script zooms and searches it).\n"
"\n";

static const char usage_tail[] =
"\n"
"Examples:\n"
"  memdb html -o memdb.html\n"
"  memdb html -d boot2.db > boot2.html\n";

static const struct cli_opt opts[] = {
	CLI_ROW_DB,
	{ "output", 'o', "FILE", "write the page to FILE (default: standard "
	  "output)" },
	CLI_ROW_HELP,
	CLI_ROW_END,
};

/* A section of the page: report @name, as a picture and/or a table. */
struct section {
	const char *name;
	const char *sort;  /* --sort, or NULL */
	const char *by;    /* the picture's --by when the source has
			    * timestamps, or NULL */
	int picture, table;
};

static const struct section sections[] = {
	{ "summary", NULL, NULL, 0, 1 },
	{ "timeline", NULL, "time", 1, 0 },
	{ "callsites", NULL, NULL, 1, 1 },
	{ "stacks", NULL, NULL, 1, 0 },
	{ "zones", "bytes", NULL, 1, 1 },
	{ "growth", NULL, NULL, 1, 1 },
};

static const char style[] =
"body{font-family:sans-serif;margin:1em 2em;color:#222}"
"table{border-collapse:collapse;font-size:12px;margin:.5em 0 1.5em}"
"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
"td.t,td:first-child,th:first-child{text-align:left}"
"tr.total{font-weight:bold;background:#f3f3f3}"
"svg{max-width:100%;height:auto;border:1px solid #ddd}"
"p.none{color:#777}";

/* Cell @c of @st: integers grouped, REAL figures with 3 decimals. */
static void html_cell(FILE *f, sqlite3_stmt *st, int c)
{
	char num[48];

	switch (sqlite3_column_type(st, c)) {
	case SQLITE_INTEGER:
		if (!mdb_render_groupable(sqlite3_column_name(st, c)))
			snprintf(num, sizeof(num), "%lld", (long long)
				 sqlite3_column_int64(st, c));
		else
			svg_group(num, sizeof(num),
				  sqlite3_column_int64(st, c));
		fprintf(f, "<td>%s</td>", num);
		break;
	case SQLITE_FLOAT:
		fprintf(f, "<td>%.3f</td>", sqlite3_column_double(st, c));
		break;
	case SQLITE_TEXT:
		fputs("<td class=\"t\">", f);
		svg_escape(f, (const char *)sqlite3_column_text(st, c), -1);
		fputs("</td>", f);
		break;
	default: /* NULL (a blob: no report has one) */
		fputs("<td></td>", f);
	}
}

/* The statement's rows (and @total's) as an HTML table. */
static int html_table(FILE *f, sqlite3_stmt *rows, sqlite3_stmt *total)
{
	int n = sqlite3_column_count(rows), rc = SQLITE_DONE;

	fputs("<table>\n<tr>", f);
	for (int c = 0; c < n; c++) {
		fputs("<th>", f);
		svg_escape(f, sqlite3_column_name(rows, c), -1);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (sqlite3_stmt *st = rows; st && rc == SQLITE_DONE;
	     st = st == rows ? total : NULL)
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			fputs(st == rows ? "<tr>" : "<tr class=\"total\">", f);
			for (int c = 0; c < sqlite3_column_count(st); c++)
				html_cell(f, st, c);
			fputs("</tr>\n", f);
		}
	fputs("</table>\n", f);
	return rc == SQLITE_DONE ? 0 : -MDB_E_DB;
}

struct html_ctx {
	FILE *f;
	const struct mdb_report *r;
	const struct cli_scope *scope;
	int picture;
	int started;  /* emit() was called: the page has some of it */
};

static int emit(void *ctx, sqlite3_stmt *rows, sqlite3_stmt *total,
		struct mdb_error *e)
{
	struct html_ctx *c = ctx;
	char *head = mdb_report_head(c->r), *title = NULL;
	size_t len;
	FILE *t = open_memstream(&title, &len);
	int ret;

	if (!t || !head) {
		if (t)
			fclose(t);
		free(head);
		return mdb_error_nomem(e);
	}
	fprintf(t, "memdb report %s: %s", head, c->scope->title);
	fclose(t);
	c->started = 1;
	if (c->picture) {
		ret = mdb_picture(c->f, c->r->named->name, title, rows, e);
	} else {
		ret = html_table(c->f, rows, total);
		if (ret < 0)
			mdb_error_set(e, MDB_E_DB, NULL, -1, -1, "%s",
				      sqlite3_errmsg(sqlite3_db_handle(rows)));
	}
	free(title);
	free(head);
	return ret;
}

/* The sources the report covers, as memdb report would choose them. */
static int scope(struct mdb_db *db, struct mdb_report *r,
		 struct cli_scope *s, struct mdb_error *e)
{
	size_t len;
	const char *kinds = mdb_query_annot(r->q, "source", &len);
	int ret = cli_scope_resolve(db, NULL, kinds, 0, s, e);

	if (ret < 0)
		return ret;
	r->args.src_lo = s->lo;
	r->args.src_hi = s->hi;
	ret = mdb_report_check(db, r, e);
	if (ret < 0 || (!mdb_report_uses(r, ":from") &&
			!mdb_report_uses(r, ":to")))
		return ret;
	ret = cli_scope_series(db, s, 0, 0, e);
	mdb_report_arg(&r->args, "from")->v = s->from;
	mdb_report_arg(&r->args, "to")->v = s->to;
	return ret;
}

/* The report's arguments for section @sec: its --sort, --top and, when
 * @by, the picture's --by. */
static int section_args(const struct section *sec, int picture, int by,
			struct mdb_report_args *a, struct mdb_error *e)
{
	size_t n;
	const struct mdb_rparam *p = mdb_report_params(&n);
	int ret = 0;

	mdb_report_args_init(a);
	a->top = picture ? mdb_picture_top(sec->name) : 20;
	for (size_t i = 0; i < n && ret == 0; i++)
		if (sec->sort && !strcmp(p[i].opt, "sort"))
			ret = mdb_report_arg_parse(a, i, sec->sort, e);
		else if (by && !strcmp(p[i].opt, "by"))
			ret = mdb_report_arg_parse(a, i, sec->by, e);
	return ret;
}

/* One try at a picture or table of @sec (with the picture's --by when
 * @by); @c->started when some of it is in the page. */
static int section_try(struct html_ctx *c, struct mdb_db *db,
		       const struct section *sec, int by,
		       struct mdb_error *e)
{
	struct cli_scope s = { 0 };
	struct mdb_report r = { 0 };
	struct mdb_report_args a;
	int ret;

	mdb_error_clear(e);
	c->scope = &s;
	c->r = &r;
	ret = section_args(sec, c->picture, by, &a, e);
	if (ret == 0)
		ret = mdb_report_plan(&r, sec->name, &a, e);
	if (ret == 0)
		ret = scope(db, &r, &s, e);
	if (ret == 0)
		ret = mdb_report_run(db, &r, emit, c, e);
	mdb_report_release(&r);
	cli_scope_release(&s);
	return ret;
}

/*
 * One picture or table of @sec; what stopped it, in the page, unless
 * that is @shown (the picture's reason, said once for both; @len bytes,
 * the reason written there).
 */
static int section_part(FILE *f, struct mdb_db *db, const struct section *sec,
			int picture, char *shown, size_t len)
{
	struct html_ctx c = { .f = f, .picture = picture };
	struct mdb_error e;
	char why[sizeof(e.msg) + sizeof(e.detail) + 2];
	int by = picture && sec->by, ret;

	ret = section_try(&c, db, sec, by, &e);
	/* a source without timestamps: the picture by the default --by */
	if (ret < 0 && by && !c.started && ret != -MDB_E_NOMEM &&
	    ret != -MDB_E_IO)
		ret = section_try(&c, db, sec, 0, &e);
	if (ret < 0 && ret != -MDB_E_NOMEM && ret != -MDB_E_IO) {
		snprintf(why, sizeof(why), "%s%s%s", e.msg[0] ? e.msg :
			 mdb_strerror(ret), e.detail[0] ? ": " : "", e.detail);
		if (strcmp(why, shown)) {
			fputs("<p class=\"none\">not shown: ", f);
			svg_escape(f, why, -1);
			fputs("</p>\n", f);
			snprintf(shown, len, "%s", why);
		}
		ret = 0;
	}
	return ret;
}

static int sources_table(FILE *f, struct mdb_db *db)
{
	sqlite3_stmt *st;
	struct mdb_error e;
	int ret;

	if (mdb_sources_list(db, MDB_SOURCES_PAGE, &st, &e) < 0)
		return -MDB_E_DB;
	ret = html_table(f, st, NULL);
	sqlite3_finalize(st);
	return ret;
}

static int write_page(FILE *f, struct mdb_db *db, const char *dbpath)
{
	int ret = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\"/>\n<title>memdb: ", f);
	svg_escape(f, dbpath, -1);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n"
		"<h1>memdb: ", style);
	svg_escape(f, dbpath, -1);
	fputs("</h1>\n<h2 id=\"sources\">sources</h2>\n", f);
	ret = sources_table(f, db);
	for (size_t i = 0; ret == 0 &&
	     i < sizeof(sections) / sizeof(sections[0]); i++) {
		char shown[600] = "";

		fprintf(f, "<h2 id=\"%s\">%s</h2>\n", sections[i].name,
			sections[i].name);
		if (sections[i].picture)
			ret = section_part(f, db, &sections[i], 1, shown,
					   sizeof(shown));
		if (ret == 0 && sections[i].table)
			ret = section_part(f, db, &sections[i], 0, shown,
					   sizeof(shown));
	}
	fputs("</body>\n</html>\n", f);
	return ret;
}

/* -o FILE into *@ctx */
static int html_opt(void *ctx, int c, const char *arg)
{
	if (c != 'o')
		return CLI_SHARED;
	*(const char **)ctx = arg;
	return CLI_TAKEN;
}

int cmd_html(int argc, char **argv)
{
	struct cli_common co = {
		.cmd = "html", .opts = opts, .head = usage_head,
		.tail = usage_tail, .db = cli_default_db(),
	};
	const char *output = NULL;
	struct mdb_db db = { 0 };
	struct mdb_error e;
	FILE *f = stdout;
	int ret;

	ret = cli_parse(&co, argc, argv, html_opt, &output);
	if (ret >= 0)
		return ret;
	mdb_error_clear(&e);
	ret = mdb_db_open(&db, co.db, MDB_DB_READONLY, &e);
	if (ret < 0) {
		cli_error(&e);
		return cli_finish(MEMDB_EXIT_FAIL);
	}
	if (output && !(f = fopen(output, "w"))) {
		cli_errorf("%s: cannot write: %m", output);
		mdb_db_close(&db, NULL);
		return cli_finish(MEMDB_EXIT_FAIL);
	}
	ret = write_page(f, &db, co.db);
	if (ret < 0)
		cli_errorf("%s: %s", co.db, sqlite3_errmsg(db.h));
	if (output && fclose(f)) {
		cli_errorf("%s: cannot write: %m", output);
		ret = -MDB_E_IO;
	}
	mdb_db_close(&db, NULL);
	return cli_finish(ret < 0 ? MEMDB_EXIT_FAIL : MEMDB_EXIT_OK);
}
