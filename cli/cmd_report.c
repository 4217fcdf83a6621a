// SPDX-License-Identifier: MIT
/*
 * memdb report: run one of the canned queries of report/sql/.
 *
 * A report's header comment declares what it accepts, and this file only
 * binds: "-- by: a|b" (values of --by; a query NAME@b is the variant for
 * b, else :by is bound), "-- sort: x|y" (values of --sort, bound to
 * :sort), "-- scope: one source", "-- note: ..." (a header line).  An
 * option is refused when the chosen query has no parameter for it.
 */
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/file.h"
#include "../db/db.h"
#include "../report/queries.h"
#include "cli.h"
#include "render.h"
#include "scope.h"

static const char usage[] =
"usage: memdb report list\n"
"       memdb report NAME [-d DB] [--source ID|all] [--top N]\n"
"                         [--format table|csv|json] [REPORT OPTIONS]\n"
"\n"
"Run a canned report (an SQL file of report/sql/, built into memdb) over\n"
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
"the selected source.\n"
"\n"
"Options:\n"
"  -d, --db DB          database file (default: $MEMDB_DB, else memdb.db)\n"
"  -s, --source ID|all  source to report on (default: the latest)\n"
"  -n, --top N          rows to show; 0 for all (default: 20 in tables,\n"
"                       all in CSV and JSON)\n"
"  -f, --format FMT     table (default), csv (RFC 4180, header line, rows,\n"
"                       then a row whose first field is 'total') or json\n"
"                       ({\"report\", \"source\", \"rows\", \"total\"});\n"
"                       stacks: folded (its default: 'a;b;c BYTES' lines,\n"
"                       the input of flame-graph tools)\n"
"      --by WHAT        allocinfo, growth: add tags up per function, file\n"
"                       or module (default: tag, i.e. file:line)\n"
"      --sort KEY       allocinfo, growth: order by bytes (default) or by\n"
"                       calls (count: calls of tags, items of zones)\n"
"      --from ID        growth: the earlier snapshot (default: the first\n"
"                       of the series)\n"
"      --to ID          growth: the later snapshot (default: the last)\n"
"  -h, --help           show this help\n"
"\n"
"Report options (each only where the report takes it):\n"
"      --sort KEY       callsites: bytes (default), hits, waste, frag,\n"
"                       pingpong, live\n"
"      --by KEY         callsites: site (default), cache, type, comm, pid;\n"
"                       pages: order (default), caller;\n"
"                       pingpong: site (default), cpu;\n"
"                       timeline: seq (default), time;\n"
"                       allocinfo, growth: tag (default), function, file,\n"
"                       module\n"
"      --sort KEY       allocinfo, growth: bytes (default), calls, count\n"
"      --from ID --to ID  growth: the two snapshots to compare (default:\n"
"                       the first and last of the selected source's series)\n"
"      --at POS|TIMEs   leaks: blocks in use at a position (seq) or, with\n"
"                       an 's' suffix, a time in seconds as the trace\n"
"                       prints it (e.g. --at 1778.25s)\n"
"      --min-age AGE    leaks: only allocations at least AGE old (e.g. 5s,\n"
"                       250ms; formats with timestamps)\n"
"      --buckets N      timeline: number of buckets (default 20)\n"
"      --cpu-node FILE  summary: the traced machine's CPU-to-node map,\n"
"                       lines 'CPU NODE', for cross-node allocations\n"
"\n"
"In CSV and JSON, integers are plain, percentages have 6 decimals and\n"
"addresses are '0x' hex strings; warnings about the source (lost events)\n"
"go to standard error.  Reports whose rows are themselves totals\n"
"(summary) have no total row (JSON \"total\": null).\n"
"\n"
"Examples:\n"
"  memdb report fragmentation\n"
"  memdb report callsites --sort pingpong --top 10\n"
"  memdb report leaks --min-age 5s --format csv\n"
"  memdb report summary --cpu-node cpu-node.txt\n"
"  memdb report timeline --buckets 200 --format json > live.json\n"
"  memdb report zones --source 4\n"
"  memdb report allocinfo --by module\n"
"  memdb report growth --from 3 --to 7 --top 10\n";

enum { OPT_SORT = 256, OPT_BY, OPT_AT, OPT_MIN_AGE, OPT_BUCKETS,
       OPT_CPU_NODE, OPT_FROM, OPT_TO };

static const struct option longopts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "source", required_argument, NULL, 's' },
	{ "top", required_argument, NULL, 'n' },
	{ "format", required_argument, NULL, 'f' },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "by", required_argument, NULL, OPT_BY },
	{ "at", required_argument, NULL, OPT_AT },
	{ "min-age", required_argument, NULL, OPT_MIN_AGE },
	{ "buckets", required_argument, NULL, OPT_BUCKETS },
	{ "cpu-node", required_argument, NULL, OPT_CPU_NODE },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct ropts {
	const char *sort, *by, *at, *min_age, *cpu_node;
	int64_t buckets, from, to;
};

static int report_list(void)
{
	size_t n, w = 0;
	const struct mdb_query *q = mdb_query_all(&n);

	for (size_t i = 0; i < n; i++)
		if (strlen(q[i].name) > w)
			w = strlen(q[i].name);
	for (size_t i = 0; i < n; i++)
		if (!strchr(q[i].name, '@')) /* variants come with --by */
			printf("%-*s  %s\n", (int)w, q[i].name, q[i].help);
	return cli_finish(MEMDB_EXIT_OK);
}

/*
 * The value of header annotation "-- @key: " in @sql, copied to @buf;
 * NULL when absent.  Only the leading comment block is searched.
 */
static const char *annotation(const char *sql, const char *key, char *buf,
			      size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = sql; p && !strncmp(p, "--", 2);
	     p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v = p + 2;

		while (*v == ' ')
			v++;
		if (!strncmp(v, key, kl) && v[kl] == ':') {
			size_t n = 0;

			v += kl + 1;
			while (*v == ' ')
				v++;
			while (v[n] && v[n] != '\n' && n + 1 < len)
				n++;
			memcpy(buf, v, n);
			buf[n] = '\0';
			return buf;
		}
	}
	return NULL;
}

/* Is @val one of the '|'-separated @list? */
static int in_list(const char *list, const char *val)
{
	size_t n = strlen(val);

	for (const char *p = list; p; p = strchr(p, '|'), p = p ? p + 1 : p)
		if (!strncmp(p, val, n) && (p[n] == '|' || !p[n]))
			return 1;
	return 0;
}

static void first_of(const char *list, char *buf, size_t len)
{
	size_t n = strcspn(list, "|");

	if (n >= len)
		n = len - 1;
	memcpy(buf, list, n);
	buf[n] = '\0';
}

static void bind_named(sqlite3_stmt *st, const char *name, int64_t v)
{
	int i = st ? sqlite3_bind_parameter_index(st, name) : 0;

	if (i > 0)
		sqlite3_bind_int64(st, i, v);
}

static void bind_text(sqlite3_stmt *st, const char *name, const char *v)
{
	int i = st ? sqlite3_bind_parameter_index(st, name) : 0;

	if (i > 0)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

/* "memdb report NAME: " + @t, later lines of @t indented to match. */
static void make_title(char *buf, size_t len, const char *name,
		       const char *t)
{
	size_t n = (size_t)snprintf(buf, len, "memdb report %s: ", name);
	size_t indent = n;

	for (; *t && n + 1 < len; t++) {
		buf[n++] = *t;
		for (size_t i = 0; *t == '\n' && i < indent && n + 1 < len; i++)
			buf[n++] = ' ';
	}
	buf[n < len ? n : len - 1] = '\0';
}

/* Values bound to every statement of a report. */
struct binds {
	int64_t src_lo, src_hi, top, at_seq, at_ts, min_age, buckets;
	int64_t from, to;
	int cpu_node_map;
	const char *by, *sort;
};

static void bind_all(sqlite3_stmt *st, const struct binds *b)
{
	bind_named(st, ":src_lo", b->src_lo);
	bind_named(st, ":src_hi", b->src_hi);
	bind_named(st, ":top", b->top ? b->top : -1);
	bind_text(st, ":by", b->by);
	bind_text(st, ":sort", b->sort);
	if (b->at_seq >= 0)
		bind_named(st, ":at_seq", b->at_seq);
	if (b->at_ts >= 0)
		bind_named(st, ":at_ts", b->at_ts);
	if (b->min_age >= 0)
		bind_named(st, ":min_age", b->min_age);
	bind_named(st, ":buckets", b->buckets > 0 ? b->buckets : 20);
	bind_named(st, ":cpu_node_map", b->cpu_node_map);
	bind_named(st, ":from", b->from);
	bind_named(st, ":to", b->to);
}

/*
 * Prepare, bind and run the report's statements in order: leading ones
 * that return no columns are set-up (e.g. a temp table both the rows and
 * the total read, so a scan runs once); then come the rows statement and,
 * optionally, the total statement, left prepared for the renderer.
 */
static int prepare(struct mdb_db *db, const struct mdb_query *q,
		   const struct binds *b, sqlite3_stmt **rows,
		   sqlite3_stmt **total, struct mdb_error *e)
{
	const char *sql = q->sql;

	*rows = *total = NULL;
	while (sql && *sql && !*total) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(db->h, sql, -1, &st, &sql) !=
		    SQLITE_OK)
			goto fail;
		if (!st)
			continue;
		bind_all(st, b);
		if (!*rows && sqlite3_column_count(st) == 0) {
			int rc = sqlite3_step(st);

			sqlite3_finalize(st);
			if (rc != SQLITE_DONE)
				goto fail;
			continue;
		}
		if (!*rows)
			*rows = st;
		else
			*total = st;
	}
	if (*rows)
		return 0;
fail:
	mdb_db_error(db, e, "cannot prepare report");
	snprintf(e->detail + strlen(e->detail),
		 sizeof(e->detail) - strlen(e->detail), " report=%s",
		 q->name);
	sqlite3_finalize(*rows);
	sqlite3_finalize(*total);
	*rows = *total = NULL;
	return -MDB_E_DB;
}

/* "5s", "250ms", "2m", "1.5h", "10" (seconds) -> ns; -1 when malformed */
static int64_t parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end), mul = 1e9;

	if (end == s || !isfinite(v) || v < 0)
		return -1;
	if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "m"))
		mul = 60e9;
	else if (!strcmp(end, "h"))
		mul = 3600e9;
	else if (*end && strcmp(end, "s"))
		return -1;
	if (v * mul > 9e18)
		return -1;
	return (int64_t)(v * mul + 0.5);
}

/* The traced machine's CPU-to-node map into temp.cpu_node. */
static int load_cpu_node(struct mdb_db *db, const char *path,
			 struct mdb_error *e)
{
	sqlite3_stmt *st = NULL;
	struct stat sb;
	char line[256];
	int64_t lineno = 0;
	int ret = 0, fd = mdb_open_regular(path, &sb, e); /* a FIFO: refused */
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");

	if (fd < 0)
		return fd;
	if (!f) {
		close(fd);
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	}
	if (sqlite3_prepare_v2(db->h, "INSERT OR REPLACE INTO temp.cpu_node "
			       "VALUES (?1, ?2)", -1, &st, NULL)) {
		fclose(f);
		return mdb_db_error(db, e, "cannot load the CPU-node map");
	}
	while (fgets(line, sizeof(line), f)) {
		long cpu, node;
		char *p = line, *end;

		lineno++;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		cpu = strtol(p, &end, 10);
		if (end == p || cpu < 0 || cpu > 65535)
			goto bad;
		p = end;
		node = strtol(p, &end, 10);
		if (end == p || node < 0 || node > 65535)
			goto bad;
		while (isspace((unsigned char)*end))
			end++;
		if (*end)
			goto bad;
		sqlite3_bind_int64(st, 1, cpu);
		sqlite3_bind_int64(st, 2, node);
		sqlite3_step(st);
		sqlite3_reset(st);
	}
	goto out;
bad:
	mdb_error_set(e, MDB_E_CORRUPT, path, -1, lineno,
		      "expected 'CPU NODE'");
	mdb_error_msg(e, "malformed CPU-node map");
	ret = -MDB_E_CORRUPT;
out:
	sqlite3_finalize(st);
	fclose(f);
	return ret;
}

/* Do the selected sources have timestamps? */
static int sources_timed(struct mdb_db *db, const struct cli_scope *sc)
{
	sqlite3_stmt *st;
	int timed = 0;

	if (sqlite3_prepare_v2(db->h, "SELECT count(first_ts) FROM source "
			       "WHERE id BETWEEN ?1 AND ?2", -1, &st, NULL))
		return 0;
	sqlite3_bind_int64(st, 1, sc->lo);
	sqlite3_bind_int64(st, 2, sc->hi);
	if (sqlite3_step(st) == SQLITE_ROW)
		timed = sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return timed;
}

/* Run @q with the report options; prints, returns an exit status. */
static int run_report(const char *name, const char *dbpath,
		      const char *source, int64_t top, int fmt,
		      const struct ropts *ro)
{
	const struct mdb_query *q = mdb_query_find(name), *variant;
	struct mdb_report_out out = { 0 };
	sqlite3_stmt *rows = NULL, *total = NULL;
	struct cli_scope scope = { 0 };
	struct mdb_db db = { 0 };
	struct mdb_error e;
	char by[64] = "", sort[64] = "", list[256], vname[160], note[256];
	char title[2400];
	const char *notes[SCOPE_MAX_NOTES + 2];
	int64_t at_seq = -1, at_ts = -1, min_age = -1;
	int status = MEMDB_EXIT_FAIL, nn = 0;

	if (!q)
		return cli_usage_error("report", "no report called '%s' "
				       "('memdb report list' names them)",
				       name);
	/* "-- format: folded": the report's default and extra format */
	if (annotation(q->sql, "format", list, sizeof(list)) &&
	    !strcmp(list, "folded")) {
		if (fmt < 0)
			fmt = MDB_FMT_FOLDED;
	} else if (fmt == MDB_FMT_FOLDED) {
		return cli_usage_error("report", "report '%s' has no folded "
				       "format", name);
	}
	if (fmt < 0)
		fmt = MDB_FMT_TABLE;
	/* --by: a variant query, or the :by parameter */
	if (annotation(q->sql, "by", list, sizeof(list))) {
		if (ro->by && !in_list(list, ro->by))
			return cli_usage_error("report", "report '%s' takes "
					       "--by %s, not '%s'", name,
					       list, ro->by);
		if (ro->by)
			snprintf(by, sizeof(by), "%s", ro->by);
		else
			first_of(list, by, sizeof(by));
		snprintf(vname, sizeof(vname), "%s@%s", name, by);
		variant = mdb_query_find(vname);
		if (variant)
			q = variant;
	} else if (ro->by) {
		return cli_usage_error("report", "report '%s' takes no --by",
				       name);
	}
	if (annotation(q->sql, "sort", list, sizeof(list)) ||
	    annotation(mdb_query_find(name)->sql, "sort", list,
		       sizeof(list))) {
		if (ro->sort && !in_list(list, ro->sort))
			return cli_usage_error("report", "report '%s' takes "
					       "--sort %s, not '%s'", name,
					       list, ro->sort);
		if (ro->sort)
			snprintf(sort, sizeof(sort), "%s", ro->sort);
		else
			first_of(list, sort, sizeof(sort));
	} else if (ro->sort) {
		return cli_usage_error("report", "report '%s' takes no --sort",
				       name);
	}
	if (ro->at) {
		size_t n = strlen(ro->at);

		if (n > 1 && ro->at[n - 1] == 's') {
			char *end;
			double t = strtod(ro->at, &end);

			if (end != ro->at + n - 1 || !isfinite(t) || t < 0 ||
			    t > 9e9)
				return cli_usage_error("report", "--at takes "
					"a position or seconds ('1778.25s'), "
					"not '%s'", ro->at);
			at_ts = (int64_t)(t * 1e9 + 0.5);
		} else if (cli_parse_i64(ro->at, &at_seq) || at_seq < 0) {
			return cli_usage_error("report", "--at takes a "
				"position or seconds ('1778.25s'), not '%s'",
				ro->at);
		}
	}
	if (ro->min_age) {
		min_age = parse_duration(ro->min_age);
		if (min_age < 0)
			return cli_usage_error("report", "--min-age takes a "
				"duration such as 5s or 250ms, not '%s'",
				ro->min_age);
	}

	mdb_error_clear(&e);
	if (mdb_db_open(&db, dbpath, MDB_DB_READONLY, &e) < 0)
		goto fail;
	/* the CPU-node map lives in a temp table the summary joins */
	if (mdb_db_exec(&db, "CREATE TEMP TABLE cpu_node (cpu INTEGER "
			     "PRIMARY KEY, node INTEGER NOT NULL)", &e) < 0)
		goto fail;
	{
		static const struct {
			const char *opt, *param;
		} need[] = {
			{ "--at", ":at_seq" }, { "--min-age", ":min_age" },
			{ "--buckets", ":buckets" },
			{ "--cpu-node", ":cpu_node_map" },
			{ "--from", ":from" }, { "--to", ":to" },
		};
		const int given[] = { ro->at != NULL, ro->min_age != NULL,
				      ro->buckets > 0, ro->cpu_node != NULL,
				      ro->from > 0, ro->to > 0 };

		for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
			if (given[i] && !mdb_query_uses(q, need[i].param)) {
				status = cli_usage_error("report", "report "
					"'%s' takes no %s", name, need[i].opt);
				goto out;
			}
	}
	if (cli_scope_resolve(&db, source, annotation(q->sql, "source", list,
							sizeof(list)),
			      ro->from && ro->to, &scope, &e) < 0)
		goto fail;
	if (annotation(q->sql, "scope", list, sizeof(list)) &&
	    !strcmp(list, "one source") && scope.lo != scope.hi) {
		status = cli_usage_error("report", "report '%s' covers one "
					 "source: give --source ID", name);
		goto out;
	}
	if ((at_ts >= 0 || min_age >= 0 || !strcmp(by, "time")) &&
	    !sources_timed(&db, &scope)) {
		status = cli_usage_error("report", "the source has no "
					 "timestamps, which %s needs",
					 min_age >= 0 ? "--min-age" :
					 at_ts >= 0 ? "--at TIMEs" :
					 "--by time");
		goto out;
	}
	if (ro->cpu_node && load_cpu_node(&db, ro->cpu_node, &e) < 0)
		goto fail;
	if ((mdb_query_uses(q, ":from") || mdb_query_uses(q, ":to")) &&
	    cli_scope_series(&db, &scope, ro->from, ro->to, &e) < 0)
		goto fail;
	{
		struct binds b = {
			.from = scope.from, .to = scope.to,
			.src_lo = scope.lo, .src_hi = scope.hi, .top = top,
			.at_seq = at_seq, .at_ts = at_ts, .min_age = min_age,
			.buckets = ro->buckets,
			.cpu_node_map = ro->cpu_node != NULL,
			.by = by, .sort = sort,
		};

		if (prepare(&db, q, &b, &rows, &total, &e) < 0)
			goto fail;
	}

	{
		char head[200];

		snprintf(head, sizeof(head), "%s%s%s%s", name,
			 ro->by ? " --by " : "", ro->by ? ro->by : "",
			 at_seq >= 0 || at_ts >= 0 ? " (at a point)" : "");
		make_title(title, sizeof(title), head, scope.title);
	}
	if (annotation(q->sql, "note", note, sizeof(note)))
		notes[nn++] = note;
	for (int i = 0; i < scope.nnotes; i++)
		notes[nn++] = scope.notes[i];
	notes[nn] = NULL;
	out.fmt = fmt;
	out.report = name;
	out.source_json = scope.json;
	out.title = title;
	out.notes = notes;
	if (fmt != MDB_FMT_TABLE)
		for (int i = 0; i < scope.nnotes; i++)
			fprintf(stderr, "memdb: %s\n", scope.notes[i]);
	if (mdb_render(stdout, &out, rows, total, &e) < 0)
		goto fail;
	status = MEMDB_EXIT_OK;
	goto out;
fail:
	cli_error(&e);
	if (e.code == MDB_E_INVAL) /* --source, --from, --to of no use */
		status = MEMDB_EXIT_USAGE;
out:
	sqlite3_finalize(rows);
	sqlite3_finalize(total);
	cli_scope_release(&scope);
	if (db.h)
		mdb_db_close(&db, NULL);
	return cli_finish(status);
}

int cmd_report(int argc, char **argv)
{
	const char *dbpath = cli_default_db(), *source = NULL;
	struct ropts ro = { 0 };
	int64_t top = -2;
	int fmt = -1, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:s:n:f:h", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'd':
			dbpath = optarg;
			break;
		case 's':
			source = optarg;
			break;
		case 'n':
			if (cli_parse_i64(optarg, &top) || top < 0)
				return cli_usage_error("report",
					"--top takes a number of rows, not "
					"'%s'", optarg);
			break;
		case 'f':
			fmt = mdb_format_parse(optarg);
			if (fmt < 0)
				return cli_usage_error("report",
					"--format takes table, csv, json or "
					"folded, not '%s'", optarg);
			break;
		case OPT_SORT:
			ro.sort = optarg;
			break;
		case OPT_BY:
			ro.by = optarg;
			break;
		case OPT_AT:
			ro.at = optarg;
			break;
		case OPT_MIN_AGE:
			ro.min_age = optarg;
			break;
		case OPT_BUCKETS:
			if (cli_parse_i64(optarg, &ro.buckets) ||
			    ro.buckets < 1 || ro.buckets > 4096)
				return cli_usage_error("report",
					"--buckets takes 1 to 4096, not '%s'",
					optarg);
			break;
		case OPT_CPU_NODE:
			ro.cpu_node = optarg;
			break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_parse_i64(optarg, c == OPT_FROM ? &ro.from :
					  &ro.to) ||
			    (c == OPT_FROM ? ro.from : ro.to) <= 0)
				return cli_usage_error("report", "--%s takes "
					"a source id, not '%s'",
					c == OPT_FROM ? "from" : "to", optarg);
			break;
		case 'h':
			return cli_help(usage);
		default:
			return cli_usage_error("report", "unknown option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("report", "which report? "
				       "('memdb report list' names them)");
	if (!strcmp(argv[optind], "list"))
		return report_list();
	if (optind + 1 < argc)
		return cli_usage_error("report", "unexpected argument '%s'",
				       argv[optind + 1]);
	if (strchr(argv[optind], '@'))
		return cli_usage_error("report", "no report called '%s' "
				       "(variants are chosen with --by)",
				       argv[optind]);
	if (top == -2)
		top = fmt == MDB_FMT_TABLE || fmt < 0 ? 20 : 0;
	return run_report(argv[optind], dbpath, source, top, fmt, &ro);
}
