// SPDX-License-Identifier: MIT
/*
 * memdb report: the command line of the report engine (report/report.h).
 * The options a report may take come from the engine's table; this file
 * reads them, says which sources a report covers, and renders its rows.
 */
#include <stdlib.h>
#include <string.h>

#include "../db/clickhouse.h"
#include "../db/db.h"
#include "../report/report.h"
#include "cli.h"
#include "opts.h"
#include "picture.h"
#include "render.h"
#include "scope.h"

#include "reports_md.inc" /* reports_md[]: docs/reports.md, generated */

static const char usage_head[] =
"usage: memdb report list\n"
"       memdb report NAME [-d DB] [--source ID|all] [--top N]\n"
"                         [--format table|csv|json|folded|svg] [--human]\n"
"                         [--columns A,B,...] [--wide] [REPORT OPTIONS]\n"
"\n"
"Run a canned report (an SQL file of queries/, built into memdb) over\n"
"the database.  'memdb report list' names them with a line of help each.\n"
"\n"
"A report covers the most recently ingested source of the kind it reads\n"
"(a trace; for zones, allocinfo and growth a snapshot) unless --source\n"
"says otherwise, and says in its header which one.  Figures follow perf\n"
"kmem's and vmstat's definitions where those tools have them; totals\n"
"cover the whole source, not only the rows shown.\n"
"\n"
"Reports on snapshots: 'zones' (vmstat -z, -m, slabinfo rows in snapshot\n"
"order), 'allocinfo' (tags by bytes), and 'growth', which compares two\n"
"snapshots of a series (same --label and format at ingest): by default\n"
"the first and the last, by the time they were taken, of the series of\n"
"the selected source.  'diff' compares two traces the same way, per call\n"
"site: --from A --to B.  'buddy' lists the page allocator's free blocks\n"
"of a kernel core dump (ingest VMCORE), whose slab caches 'zones' shows.\n"
"\n"
"The hosts of a fleet (sources ingested with --label HOST, gathered by\n"
"memdb merge): --label GLOB takes the latest source of each label\n"
"matching GLOB (growth: the first and the last of each series) and adds\n"
"up allocinfo, growth, zones and callsites over them; --by label shows\n"
"one row per label; --from and --to DATE bound when they were taken.\n"
"\n";

static const char usage_tail[] =
"\n"
"In CSV and JSON, integers are plain, percentages have 6 decimals and\n"
"addresses are '0x' hex strings; warnings about the source (lost events)\n"
"go to standard error.  Reports whose rows are themselves totals\n"
"(summary) have no total row (JSON \"total\": null).\n"
"\n"
"Examples:\n"
"  memdb report fragmentation\n"
"  memdb report callsites --sort pingpong --top 10\n"
"  memdb report callsites --sort frag,hit,bytes --time 1778.25,1779\n"
"  memdb report allocs --comm bash --site kmem_cache_alloc_noprof\n"
"  memdb report leaks --min-age 5s --format csv\n"
"  memdb report summary --cpu-node cpu-node.txt\n"
"  memdb report timeline --buckets 200 --format json > live.json\n"
"  memdb report zones --source 4\n"
"  memdb report allocinfo --by module\n"
"  memdb report growth --from 3 --to 7 --top 10\n"
"  memdb report diff --from 1 --to 2 --human\n"
"  memdb report zones --sort bytes --columns name,used,bytes\n"
"  memdb report allocinfo --label 'web*' --top 10\n"
"  memdb report growth --by label --from 2026-11-22 --to 2026-11-23\n"
"  memdb report callsites --by label --site kmalloc_reserve\n"
"  memdb report callsites --wide\n";

/* OPT_PARAM + the index of a report option */
enum { OPT_HUMAN = 200, OPT_COLUMNS, OPT_CLICKHOUSE, OPT_PARAM = 256 };

static const struct cli_opt base_opts[] = {
	CLI_ROW_DB,
	{ "source", 's', "ID|all", "source to report on (default: the "
	  "latest)" },
	{ "top", 'n', "N", "rows to show; 0 for all (default: 20 in tables, "
	  "all in CSV and JSON)" },
	{ "format", 'f', "FMT", "table (default), csv (RFC 4180, header "
	  "line, rows, then a row whose first field is 'total') or json "
	  "({\"report\", \"source\", \"rows\", \"total\"}); stacks: folded "
	  "(its default: 'a;b;c BYTES' lines, the input of flame-graph "
	  "tools); timeline, callsites, zones, growth: svg (a picture: "
	  "bars of the top rows, live bytes and allocations over time); "
	  "stacks: svg, a flame graph by bytes (click a frame to zoom, "
	  "search frames in its box)" },
	{ "human", OPT_HUMAN, NULL, "tables: sizes in bytes as B, KiB, MiB, "
	  "GiB with one decimal (as slabtop, vmstat -h); CSV and JSON keep "
	  "the exact numbers" },
	{ "columns", OPT_COLUMNS, "A,B,...", "only these columns, in this "
	  "order, in every format (an unknown name is refused with the "
	  "report's list); a table shows them all, empty or not, cutting "
	  "their text to fit the terminal" },
	CLI_ROW_WIDE,
	{ "clickhouse", OPT_CLICKHOUSE, "URL", "the fleet form of the report "
	  "(allocinfo, growth, zones, callsites, outliers) on the ClickHouse "
	  "server URL that memdb export fills (http://HOST:8123/): each "
	  "label's latest source, as --label GLOB takes them here" },
	CLI_ROW_HELP,
	CLI_ROW_END,
};

#define NBASE (sizeof(base_opts) / sizeof(base_opts[0]) - 1)

/* base_opts, then the engine's report options. */
static const struct cli_opt *all_opts(void)
{
	static struct cli_opt all[NBASE + MDB_RP_MAX + 1];
	size_t n;
	const struct mdb_rparam *p = mdb_report_params(&n);

	if (all[0].name)
		return all;
	memcpy(all, base_opts, NBASE * sizeof(all[0]));
	for (size_t i = 0; i < n; i++)
		all[NBASE + i] = (struct cli_opt){ p[i].opt,
			OPT_PARAM + (int)i, p[i].arg, p[i].help };
	return all;
}

/* The base name of report @q: "callsites" for "callsites@cache". */
static size_t base_len(const struct mdb_query *q)
{
	return strcspn(q->name, "@");
}

/* Does @q use @param, or @alt when not NULL? */
static int uses_either(const struct mdb_query *q, const char *param,
		       const char *alt)
{
	return mdb_query_uses(q, param) || (alt && mdb_query_uses(q, alt));
}

/* Does report @q take option @p: a choice it declares, a selection
 * (slab_scan's arguments as @scan passes them, report/engine.c), or
 * the parameter the option binds? */
static int takes(const struct mdb_query *q, const struct mdb_rparam *p)
{
	size_t len;

	if (p->kind == MDB_RP_CHOICE || p->kind == MDB_RP_SORT)
		return mdb_query_annot(q, p->opt, &len) != NULL;
	if (p->sel)
		return mdb_query_uses(q, MDB_SEL_PARAM);
	return uses_either(q, p->param, p->kind == MDB_RP_INT ? p->alt : NULL);
}

/* Has a report before @q (in the table @all) the same base name and
 * option @p? */
static int seen_base(const struct mdb_query *all, const struct mdb_query *q,
		     const struct mdb_rparam *p)
{
	for (const struct mdb_query *o = all; o < q; o++)
		if (base_len(o) == base_len(q) &&
		    !strncmp(o->name, q->name, base_len(q)) && takes(o, p))
			return 1;
	return 0;
}

/* "leaks, timeline: " for the reports that take option @p. */
static void print_users(FILE *f, const struct mdb_rparam *p)
{
	size_t n, k = 0;
	const struct mdb_query *q = mdb_query_all(&n);

	for (size_t i = 0; i < n; i++)
		if (takes(&q[i], p) && !seen_base(q, &q[i], p))
			fprintf(f, "%s%.*s", k++ ? ", " : "", (int)base_len(&q[i]),
				q[i].name);
	fputs(k ? ": " : "", f);
}

/* One line per distinct "-- @key:" list: "allocinfo, growth: a, b". */
/* ", callsites --by cache" for report callsites@cache (@k-th listed). */
static void print_name(FILE *f, const struct mdb_query *q, int k)
{
	const char *at = strchr(q->name, '@');

	if (at)
		fprintf(f, "%s%.*s --by %s", k ? ", " : "",
			(int)(at - q->name), q->name, at + 1);
	else
		fprintf(f, "%s%s", k ? ", " : "", q->name);
}

static void print_choices(FILE *f, const char *key)
{
	size_t n, len, olen;
	const struct mdb_query *q = mdb_query_all(&n);

	for (size_t i = 0; i < n; i++) {
		const char *v = mdb_query_annot(&q[i], key, &len), *o;
		int k = 0, dup = 0;

		for (size_t j = 0; v && j < i && !dup; j++)
			dup = (o = mdb_query_annot(&q[j], key, &olen)) &&
			      olen == len && !strncmp(o, v, len);
		if (!v || dup)
			continue;
		fputs("\n  ", f);
		for (size_t j = i; j < n; j++)
			if ((o = mdb_query_annot(&q[j], key, &olen)) &&
			    olen == len && !strncmp(o, v, len))
				print_name(f, &q[j], k++);
		for (size_t at = 0, w; at < len; at += w + 1) {
			w = strcspn(v + at, "|\n");
			fprintf(f, "%s %.*s", at ? "," : ":",
				(int)strcspn(v + at, "=|\n"), v + at);
		}
		if (!strcmp(key, "sort") &&
		    (o = mdb_query_annot(&q[i], "sort-default", &olen)))
			fprintf(f, " (default %.*s)", (int)olen, o);
	}
}

/* The usage text of a report option: its help and the reports taking it. */
static char *param_help(const struct mdb_rparam *p)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (p->kind == MDB_RP_CHOICE || p->kind == MDB_RP_SORT) {
		fprintf(f, "%s; the first listed is the default:", p->help);
		print_choices(f, p->opt);
	} else {
		print_users(f, p);
		fputs(p->help, f);
	}
	fclose(f);
	return text;
}

static int report_usage(void)
{
	size_t n;
	const struct mdb_rparam *p = mdb_report_params(&n);
	struct cli_opt ro[MDB_RP_MAX + 1] = { 0 };
	int col;

	for (size_t i = 0; i < n; i++) /* NULL help: out of memory */
		ro[i] = (struct cli_opt){ p[i].opt, OPT_PARAM + (int)i,
					  p[i].arg, param_help(&p[i]) };
	col = cli_opts_col(ro, cli_opts_col(base_opts, 0));
	fputs(usage_head, stdout);
	fputs("Options:\n", stdout);
	cli_print_opts_at(stdout, base_opts, col);
	fputs("\nReport options (each only where the report takes it):\n",
	      stdout);
	cli_print_opts_at(stdout, ro, col);
	for (size_t i = 0; i < n; i++)
		free((char *)ro[i].help);
	return cli_help(usage_tail);
}

/* docs/reports.md's section "## @title": its text after the title line,
 * its length in *@len; NULL when there is none. */
static const char *section(const char *title, size_t *len)
{
	size_t tl = strlen(title);
	const char *end;

	for (const char *s = strstr(reports_md, "\n## "); s;
	     s = strstr(s + 1, "\n## ")) {
		if (strncmp(s + 4, title, tl) || s[4 + tl] != '\n')
			continue;
		s += 5 + tl;
		end = strstr(s, "\n## ");
		*len = end ? (size_t)(end - s) + 1 : strlen(s);
		return s;
	}
	return NULL;
}

/*
 * memdb report NAME [--by KEY] --help: what the report's rows and columns
 * are (its section of docs/reports.md) and the options it takes.
 */
static int report_help(const char *name, const char *by)
{
	size_t n, len;
	const struct mdb_rparam *p = mdb_report_params(&n);
	const struct mdb_query *q = mdb_query_find(name), *v = NULL;
	const char *text;
	char *title = NULL;
	int k = 0;

	if (!q || strchr(name, '@'))
		return cli_usage_error("report", "no report '%s' ('memdb "
				       "report list' names them)", name);
	if (by && asprintf(&title, "%s@%s", name, by) >= 0) {
		v = mdb_query_find(title);
		free(title);
		title = NULL;
	}
	if (v && asprintf(&title, "%s --by %s", name, by) < 0) {
		cli_errorf("out of memory");
		return 1;
	}
	text = section(title ? title : name, &len);
	if (!text) {
		/* test_docs holds a section for every report */
		cli_errorf("docs/reports.md has no section '%s'",
			   title ? title : name);
		free(title);
		return 1;
	}
	while (len && text[len - 1] == '\n')
		len--;
	printf("usage: memdb report %s [-d DB] [--source ID|all] [--top N]\n"
	       "       [--format FMT] [OPTIONS]\n", title ? title : name);
	fwrite(text, 1, len, stdout);
	printf("\n\nIts own options:");
	for (size_t i = 0, col = 16; i < n; i++) {
		if (!takes(q, &p[i]) && !(v && takes(v, &p[i])))
			continue;
		if (col + strlen(p[i].opt) + 4 > 76) {
			printf("%s\n ", k ? "," : "");
			col = 1;
		} else if (k) {
			putchar(',');
		}
		col += printf(" --%s", p[i].opt) + 1;
		k++;
	}
	printf("%s\nEvery report's options, and what each does: 'memdb report "
	       "--help'.\n", k ? "" : " none");
	free(title);
	return 0;
}

static int report_list(void)
{
	size_t n, w = 0, len;
	const struct mdb_query *q = mdb_query_all(&n);

	for (size_t i = 0; i < n; i++)
		if (strlen(q[i].name) > w)
			w = strlen(q[i].name);
	for (size_t i = 0; i < n; i++) {
		const char *help = mdb_query_annot(&q[i], "help", &len);

		if (!strchr(q[i].name, '@')) /* variants come with --by */
			printf("%-*s  %.*s\n", (int)w, q[i].name,
			       help ? (int)len : 0, help ? help : "");
	}
	return cli_finish(MEMDB_EXIT_OK);
}

/* "memdb report HEAD: " + @t, later lines of @t indented to match. */
static char *make_title(const char *head, const char *t)
{
	size_t indent = strlen("memdb report : ") + strlen(head), n = 1;
	char *title, *o;

	for (const char *c = t; *c; c++)
		n += 1 + (*c == '\n' ? indent : 0);
	title = malloc(indent + n);
	if (!title)
		return NULL;
	o = title + sprintf(title, "memdb report %s: ", head);
	for (; *t; t++) {
		*o++ = *t;
		if (*t == '\n')
			o += sprintf(o, "%*s", (int)indent, "");
	}
	*o = '\0';
	return title;
}

struct emit_ctx {
	const struct mdb_report *r;
	struct cli_scope *scope;
	struct mdb_db *db;   /* a fleet's title: its set-up's temp.rsrc */
	const struct mdb_fleet_scope *fs; /* or, on ClickHouse, its scope */
	const char *ch_url;
	int fmt;
	FILE *out;           /* where the report goes */
	int human;
	const char *columns;
	int wide;            /* --wide */
	const char *by;      /* --by VALUE, NULL when not given */
};

/* Take the word @w out of the blank-separated @list. */
static void drop_word(char *list, const char *w)
{
	size_t n = strlen(w);

	for (char *p = list; *(p += strspn(p, " ")); p += strcspn(p, " "))
		if (strcspn(p, " ") == n && !strncmp(p, w, n)) {
			memmove(p, p + n, strlen(p + n) + 1);
			return;
		}
}

/* Render the report's rows with its title and notes. */
static int emit(void *ctx, sqlite3_stmt *rows, sqlite3_stmt *total,
		struct mdb_error *e)
{
	const struct emit_ctx *c = ctx;
	const char *notes[SCOPE_MAX_NOTES + 2], *note, *drop;
	char *head = mdb_report_head(c->r), *title = NULL, *nbuf = NULL,
	     *dbuf = NULL;
	/* the columns the user named are shown, empty or not */
	struct mdb_report_out out = { .fmt = c->fmt,
				      .report = c->r->named->name,
				      .source_json = c->scope->json,
				      .notes = notes, .human = c->human,
				      .columns = c->columns,
				      .skip_empty = !c->wide && !c->columns };
	size_t len, dlen;
	int nn = 0, ret = -MDB_E_NOMEM, fit;

	/* a fleet: the sources its set-up picked (ClickHouse: counted by
	 * its last statement) */
	if (c->fs) {
		/* growth's SQLite form compares two sources */
		const struct mdb_query *sq = mdb_query_find(c->r->named->name);

		cli_scope_fleet_title(c->scope, mdb_report_arg(
			(struct mdb_report_args *)&c->r->args, "label")->text,
			sq && mdb_query_uses(sq, ":from"), c->fs->labels,
			c->fs->sources, c->fs->first, c->fs->last, c->ch_url);
	} else if (c->r->args.fleet &&
	    (ret = cli_scope_fleet(c->db, c->scope,
				   mdb_report_arg((struct mdb_report_args *)
						  &c->r->args, "label")->text,
				   mdb_report_uses(c->r, ":from"), e)) < 0) {
		free(head);
		return ret;
	}
	ret = -MDB_E_NOMEM;
	note = mdb_query_annot(c->r->q, "note", &len);
	if (note && (nbuf = strndup(note, len)))
		notes[nn++] = nbuf;
	/* what may be left out to fit: not what the user named, nor the
	 * column the rows are grouped by (allocinfo --by module) */
	drop = mdb_query_annot(c->r->q, "drop", &dlen);
	fit = drop && !c->wide && !c->columns;
	if (fit)
		out.drop = dbuf = strndup(drop, dlen);
	if (dbuf && c->by)
		drop_word(dbuf, c->by);
	if (!c->wide)
		out.width = mdb_render_width(c->out);
	for (int i = 0; i < c->scope->nnotes; i++)
		notes[nn++] = c->scope->notes[i];
	notes[nn] = NULL;
	title = head ? make_title(head, c->scope->title) : NULL;
	out.title = title;
	if (c->fmt != MDB_FMT_TABLE)
		for (int i = 0; i < c->scope->nnotes; i++)
			fprintf(stderr, "memdb: %s\n", c->scope->notes[i]);
	if (title && (!note || nbuf) && (!fit || dbuf))
		ret = mdb_render(c->out, &out, rows, total, e);
	else
		mdb_error_nomem(e);
	free(dbuf);
	free(nbuf);
	free(title);
	free(head);
	return ret;
}

/*
 * The sources @r covers, into its arguments; for reports comparing two
 * snapshots, the two.  0, a negative MDB_E_* code with @e filled, or
 * MEMDB_EXIT_USAGE once the usage error is printed.
 */
static int resolve_sources(struct mdb_db *db, const char *source,
			   struct mdb_report *r, struct cli_scope *scope,
			   struct mdb_error *e)
{
	struct mdb_rarg *from = mdb_report_arg(&r->args, "from");
	struct mdb_rarg *to = mdb_report_arg(&r->args, "to");
	struct mdb_rarg *label = mdb_report_arg(&r->args, "label");
	struct mdb_rarg *by = mdb_report_arg(&r->args, "by");
	size_t len;
	/* the kinds of source the report reads: a value up to its line's end */
	const char *kinds = mdb_query_annot(r->q, "source", &len);
	unsigned mask = cli_scope_kinds(kinds);
	int ret = 0, pairs = mdb_report_uses(r, ":from");
	/* "-- scope: fleet": the report has no other form */
	const char *sc = mdb_query_annot(r->q, "scope", &len);
	int fleet_only = sc && len == 5 && !strncmp(sc, "fleet", 5);
	int ids = (from->text && !from->time) || (to->text && !to->time);
	int dates = (from->text && from->time) || (to->text && to->time);

	/* a fleet: each label's latest source (growth: the first and the
	 * last of each series), picked by the report's own set-up */
	r->args.fleet = mdb_report_uses(r, ":fleet") && !source && !ids &&
			(label->text || fleet_only ||
			 (by->text && !strcmp(by->text, "label")));
	if (dates && !r->args.fleet)
		return cli_usage_error("report", "--from DATE and --to DATE "
				       "bound the sources of a fleet: give "
				       "--label GLOB or --by label, without "
				       "--source%s", pairs ? " or source ids" :
				       "");
	if (label->text && pairs && !r->args.fleet)
		return cli_usage_error("report", "--label compares the series "
				       "of each label matching it: give DATEs "
				       "to --from and --to, not --source or "
				       "source ids");
	if (r->args.fleet) {
		memset(scope, 0, sizeof(*scope));
		scope->kinds = mask;
		r->args.src_lo = 0;
		r->args.src_hi = INT64_MAX;
		ret = mdb_report_check(db, r, e);
		return ret == -MDB_E_INVAL ? cli_usage_error("report", "%s",
							     e->msg) : ret;
	}

	/* --from and --to given as labels: their latest source */
	if (from->label)
		ret = cli_scope_label(db, from->text, mask, "from",
				      &from->v, e);
	if (ret == 0 && to->label)
		ret = cli_scope_label(db, to->text, mask, "to", &to->v, e);
	if (ret == 0)
		ret = cli_scope_resolve(db, source, kinds,
					from->text && to->text, scope, e);
	if (ret < 0)
		return ret;
	r->args.src_lo = scope->lo;
	r->args.src_hi = scope->hi;
	ret = mdb_report_check(db, r, e);
	if (ret < 0)
		return ret == -MDB_E_INVAL ? cli_usage_error("report", "%s",
							     e->msg) : ret;
	if (!mdb_report_uses(r, ":from") && !mdb_report_uses(r, ":to"))
		return 0;
	ret = cli_scope_series(db, scope, from->v, to->v, e);
	from->v = scope->from;
	to->v = scope->to;
	return ret;
}

/* The fleet form of report @name on ClickHouse (--clickhouse URL). */
static int run_fleet(const char *name, const char *source,
		     struct emit_ctx *ctx, const struct mdb_report_args *a)
{
	struct cli_scope scope = { 0 };
	struct mdb_fleet_scope fs;
	struct mdb_report_args fa = *a;
	struct mdb_report r;
	struct mdb_ch ch = { 0 };
	struct mdb_rarg *from = mdb_report_arg(&fa, "from");
	struct mdb_rarg *to = mdb_report_arg(&fa, "to");
	struct mdb_error e;
	int ret;

	if (source)
		return cli_usage_error("report", "--clickhouse reports on "
				       "each label's latest source: --label "
				       "GLOB picks the labels, not --source");
	if ((from->text && !from->time) || (to->text && !to->time))
		return cli_usage_error("report", "--clickhouse takes DATEs "
				       "to --from and --to (2026-11-22, "
				       "2026-11-22T10:00Z, @UNIXSECONDS)");
	fa.fleet = 1;
	mdb_error_clear(&e);
	ret = mdb_report_plan_fleet(&r, name, &fa, &e);
	if (ret == -MDB_E_INVAL) {
		mdb_report_release(&r);
		return cli_usage_error("report", "%s", e.msg);
	}
	if (ret == 0 && ctx->fmt != MDB_FMT_TABLE && ctx->fmt != MDB_FMT_CSV &&
	    ctx->fmt != MDB_FMT_JSON && ctx->fmt >= 0) {
		mdb_report_release(&r);
		return cli_usage_error("report", "--clickhouse reports are "
				       "tables, CSV or JSON");
	}
	if (ctx->fmt < 0)
		ctx->fmt = MDB_FMT_TABLE;
	scope.kinds = cli_scope_kinds(mdb_query_annot(r.q, "source",
						      &(size_t){ 0 }));
	ctx->r = &r;
	ctx->scope = &scope;
	ctx->fs = &fs;
	if (ret == 0)
		ret = mdb_ch_open(&ch, ctx->ch_url, &e);
	if (ret == 0)
		ctx->ch_url = ch.shown; /* no password in titles */
	if (ret == 0)
		ret = mdb_report_run_fleet(&ch, &r, emit, ctx, &fs, &e);
	if (ret == -MDB_E_EMPTY)
		cli_scope_fleet_title(&scope, mdb_report_arg(&fa,
				      "label")->text, 0, 0, 0, "", "",
				      ctx->ch_url);
	if (ret < 0)
		cli_error(&e);
	mdb_report_release(&r);
	mdb_ch_close(&ch);
	cli_scope_release(&scope);
	return cli_finish(ret == -MDB_E_INVAL ? MEMDB_EXIT_USAGE :
			  ret < 0 ? MEMDB_EXIT_FAIL : MEMDB_EXIT_OK);
}

/* Run report @name with @a; prints, returns an exit status. */
static int run_report(const char *name, const char *dbpath,
		      const char *source, struct emit_ctx *how,
		      const struct mdb_report_args *a)
{
	struct cli_scope scope = { 0 };
	struct mdb_db db = { 0 };
	struct mdb_report r;
	struct emit_ctx ctx = *how;
	struct mdb_error e;
	int ret;

	ctx.r = &r;
	ctx.scope = &scope;
	ctx.db = &db;
	mdb_error_clear(&e);
	if (how->ch_url)
		return run_fleet(name, source, &ctx, a);
	ret = mdb_report_plan(&r, name, a, &e);
	if (ret == -MDB_E_INVAL) {
		mdb_report_release(&r);
		return cli_usage_error("report", "%s", e.msg);
	}
	if (ret == 0) {
		size_t len;
		const char *f = mdb_query_annot(r.named, "format", &len);

		/* "-- format: folded": the report's default and extra format */
		if (f && len >= 6 && !strncmp(f, "folded", 6)) {
			if (ctx.fmt < 0)
				ctx.fmt = MDB_FMT_FOLDED;
		} else if (ctx.fmt == MDB_FMT_FOLDED) {
			mdb_report_release(&r);
			return cli_usage_error("report", "report '%s' has no "
					       "folded format", name);
		}
		if (ctx.fmt == MDB_FMT_SVG && !mdb_picture_has(name)) {
			mdb_report_release(&r);
			return cli_usage_error("report", "report '%s' has no "
					       "picture (--format svg: timeline, "
					       "callsites, zones, growth, "
					       "stacks)", name);
		}
		if (ctx.fmt < 0)
			ctx.fmt = MDB_FMT_TABLE;
	}
	if (ret == 0)
		ret = mdb_db_open(&db, dbpath, MDB_DB_READONLY, &e);
	if (ret == 0)
		ret = resolve_sources(&db, source, &r, &scope, &e);
	if (ret == 0)
		ret = mdb_report_run(&db, &r, emit, &ctx, &e);
	if (ret < 0)
		cli_error(&e);
	/* a --source, --from or --to of no use is a command-line mistake */
	if (ret < 0 && e.code == MDB_E_INVAL)
		ret = MEMDB_EXIT_USAGE;
	mdb_report_release(&r);
	cli_scope_release(&scope);
	if (db.h)
		mdb_db_close(&db, NULL);
	return cli_finish(ret == MEMDB_EXIT_USAGE ? MEMDB_EXIT_USAGE :
			  ret < 0 ? MEMDB_EXIT_FAIL : MEMDB_EXIT_OK);
}

int cmd_report(int argc, char **argv)
{
	struct cli_common co = {
		.cmd = "report", .formats = "table, csv, json, folded or svg",
		.db = cli_default_db(), .fmt = -1,
	};
	const struct cli_opt *opts = all_opts();
	struct emit_ctx how = { 0 };
	struct mdb_report_args a;
	struct mdb_error e;
	int c, ret, help = 0;

	mdb_report_args_init(&a);
	a.top = -1;
	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 'n':
			if (cli_parse_i64(optarg, &a.top) || a.top < 0)
				return cli_usage_error("report",
					"--top takes a number of rows, not "
					"'%s'", optarg);
			break;
		case OPT_HUMAN:
			how.human = 1;
			break;
		case CLI_OPT_WIDE:
			how.wide = 1;
			break;
		case OPT_CLICKHOUSE:
			how.ch_url = optarg;
			break;
		case OPT_COLUMNS:
			if (!*optarg || strstr(optarg, ",,") ||
			    optarg[strlen(optarg) - 1] == ',' || *optarg == ',')
				return cli_usage_error("report", "--columns "
					"takes column names separated by "
					"commas, not '%s'", optarg);
			how.columns = optarg;
			break;
		case 'h':
			help = 1;
			break;
		default:
			if (c >= OPT_PARAM) {
				if (mdb_report_arg_parse(&a,
						(size_t)(c - OPT_PARAM),
						optarg, &e) < 0)
					return cli_usage_error("report", "%s",
							       e.msg);
				break;
			}
			ret = cli_common_opt(&co, c, optarg);
			if (ret >= 0)
				return ret;
		}
	}
	if (help)
		return optind < argc && strcmp(argv[optind], "list") ?
		       report_help(argv[optind],
				   mdb_report_arg(&a, "by")->text) :
		       report_usage();
	if (optind >= argc)
		return cli_usage_error("report", "which report? "
				       "('memdb report list' names them)");
	if (!strcmp(argv[optind], "list"))
		return report_list();
	if (optind + 1 < argc)
		return cli_usage_error("report", "unexpected argument '%s'",
				       argv[optind + 1]);
	how.fmt = co.fmt;
	if (a.top < 0 && how.fmt == MDB_FMT_SVG)
		a.top = mdb_picture_top(argv[optind]);
	if (a.top < 0)
		a.top = how.fmt == MDB_FMT_TABLE || how.fmt < 0 ? 20 : 0;
	how.out = stdout;
	how.by = mdb_report_arg(&a, "by")->text;
	return run_report(argv[optind], co.db, co.source, &how, &a);
}
