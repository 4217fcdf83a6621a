// SPDX-License-Identifier: MIT
/*
 * The report options: one row each (see report.h), and how their values
 * are read.  A new option is a new row here and the SQL that uses its
 * parameter; the command line, the usage text and the binding follow.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/file.h"
#include "../common/num.h"
#include "report.h"

static int load_cpu_node(struct mdb_db *db, const char *path,
			 struct mdb_error *e);

/*
 * Option --@o binding the SQL parameter :@o; given, it adds " --@o VALUE"
 * to the report's title.
 */
#define TITLED(o) .opt = o, .param = ":" o, .title = " --" o " %v"

/* --from and --to: a source id or label binds :@o, a date :@o_time. */
#define SOURCE(o)                                                             \
	.opt = o, .arg = "ID|LABEL|DATE", .kind = MDB_RP_INT, .param = ":" o, \
	.alt = ":" o "_time", .lo = 1, .hi = INT64_MAX, .labels = 1,          \
	.takes = "a source id, label or date"

static const struct mdb_rparam params[] = {
	{ TITLED("by"), .arg = "KEY", .kind = MDB_RP_CHOICE, .variants = 1,
	  .timed = "time", .help = "group the rows by KEY" },
	{ TITLED("sort"), .arg = "KEY[,KEY...]", .kind = MDB_RP_SORT,
	  .help = "order the rows by KEY, largest first, then by the next "
		  "KEY among equals (perf kmem -s: ptr, callsite, bytes, hit, "
		  "pingpong, frag; for pages page, callsite, bytes, hit, "
		  "order, migtype, gfp; the report's column names too)" },
	{ .opt = "time", .arg = "START,END", .kind = MDB_RP_WINDOW,
	  .param = ":t_lo", .alt = ":t_hi", .sel = 1,
	  .takes = "START,END in seconds as the trace prints them (either "
		   "may be empty)", .title = " --time %v",
	  .help = "only allocations made from START to END, both included, "
		  "in seconds as the trace prints them (perf kmem --time; "
		  "'1778.25,' or ',1780' leave an end open); frees after END "
		  "are not seen" },
	/* a row without a cache id: the cache its type and size name */
	{ TITLED("cache"), .arg = "NAME", .kind = MDB_RP_TEXT, .sel = 1,
	  .help = "only allocations from the slab cache NAME, as "
		  "'callsites --by cache' names it" },
	{ TITLED("site"), .arg = "SYMBOL|ADDRESS", .kind = MDB_RP_TEXT,
	  .sel = 1,
	  .help = "only allocations made at the call site SYMBOL (a "
		  "function, or function+0xoff as the reports show it) or "
		  "ADDRESS (0x...)" },
	{ TITLED("pid"), .arg = "N", .kind = MDB_RP_INT, .lo = 0,
	  .hi = INT32_MAX, .takes = "a task id", .sel = 1,
	  .needs = "pid", .needs_what = "tasks",
	  .help = "only allocations made by task N (a thread id; captures "
		  "that name tasks)" },
	{ TITLED("comm"), .arg = "NAME", .kind = MDB_RP_TEXT, .sel = 1,
	  .needs = "comm_id", .needs_what = "tasks",
	  .help = "only allocations made by tasks called NAME (captures "
		  "that name tasks)" },
	{ TITLED("show"), .arg = "WHICH", .kind = MDB_RP_CHOICE,
	  .help = "which rows: 'changed' leaves out the unchanged ones, 'all' "
		  "keeps them" },
	{ .opt = "at", .arg = "POS|TIMEs", .kind = MDB_RP_POINT,
	  .param = ":at_seq", .alt = ":at_ts",
	  .takes = "a position or seconds ('1778.25s')",
	  .title = " (at a point)",
	  .help = "blocks in use at a position (seq) or, with an 's' suffix, "
		  "a time in seconds as the trace prints it "
		  "(e.g. --at 1778.25s)" },
	{ .opt = "min-age", .arg = "AGE", .kind = MDB_RP_DURATION,
	  .param = ":min_age", .takes = "a duration such as 5s or 250ms",
	  .help = "only allocations at least AGE old (e.g. 5s, 250ms; "
		  "formats with timestamps)" },
	{ .opt = "buckets", .arg = "N", .kind = MDB_RP_INT,
	  .param = ":buckets", .lo = 1, .hi = 4096, .def = 20,
	  .takes = "1 to 4096", .help = "number of buckets (default 20)" },
	{ .opt = "cpu-node", .arg = "FILE", .kind = MDB_RP_FILE,
	  .param = ":cpu_node_map", .load = load_cpu_node,
	  /* dropped first: one connection may run several reports */
	  .setup = "DROP TABLE IF EXISTS temp.cpu_node; "
		   "CREATE TEMP TABLE cpu_node (cpu INTEGER PRIMARY KEY, "
		   "node INTEGER NOT NULL)",
	  .help = "the traced machine's CPU-to-node map, lines 'CPU NODE', "
		  "for cross-node allocations" },
	{ SOURCE("from"),
	  .help = "the earlier snapshot, or trace A of a diff: a source id, "
		  "or a label (its latest source of the report's kind) "
		  "(default: the first of the series of the selected "
		  "source: same --label and format, by the time taken); "
		  "with --label GLOB (or --by label), a DATE (2026-11-22, "
		  "2026-11-22T10:00Z, @UNIXSECONDS): only sources taken then "
		  "or later" },
	{ SOURCE("to"),
	  .help = "the later snapshot, or trace B of a diff (default: the "
		  "last of the series); with --label GLOB (or --by label), "
		  "a DATE: only sources taken then or earlier" },
	{ TITLED("label"), .arg = "GLOB", .kind = MDB_RP_TEXT,
	  .help = "the hosts of a fleet: of each label matching GLOB (as "
		  "the shell matches names: *, ?, [a-z]) the latest source "
		  "of the report's kind (growth: the first and the last "
		  "snapshot of each series), within --from and --to DATEs, "
		  "figures added up over them; with --source, only its "
		  "sources of those labels" },
};

#define NPARAMS (sizeof(params) / sizeof(params[0]))

_Static_assert(NPARAMS <= MDB_RP_MAX, "raise MDB_RP_MAX");

const struct mdb_rparam *mdb_report_params(size_t *n)
{
	*n = NPARAMS;
	return params;
}

void mdb_report_args_init(struct mdb_report_args *a)
{
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < NPARAMS; i++) {
		a->a[i].v = params[i].kind == MDB_RP_WINDOW ? INT64_MIN :
							       params[i].def;
		a->a[i].v2 = INT64_MAX;
	}
}

struct mdb_rarg *mdb_report_arg(struct mdb_report_args *a, const char *opt)
{
	for (size_t i = 0; i < NPARAMS; i++)
		if (!strcmp(params[i].opt, opt))
			return &a->a[i];
	return NULL;
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


/* "1778.25s" -> ns, *@time = 1; "1234" -> 1234, *@time = 0; -1 if bad */
static int64_t parse_point(const char *s, int *time)
{
	size_t n = strlen(s);
	int64_t v;

	*time = n > 1 && s[n - 1] == 's';
	if (*time) {
		char *end;
		double t = strtod(s, &end);

		if (end != s + n - 1 || !isfinite(t) || t < 0 || t > 9e9)
			return -1;
		return (int64_t)(t * 1e9 + 0.5);
	}
	return mdb_parse_int(s, &v) || v < 0 ? -1 : v;
}

/* Seconds "1778.250001" -> ns, exactly; -1 when malformed. */
static int64_t parse_secs(const char *s, size_t n)
{
	int64_t v = 0, frac = 0, scale = 1000000000;
	size_t i = 0;

	for (; i < n && isdigit((unsigned char)s[i]); i++) {
		if (v > 9000000000LL)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (!i && (n < 2 || s[0] != '.'))
		return -1;
	if (i < n && s[i++] != '.')
		return -1;
	for (; i < n; i++) {
		if (!isdigit((unsigned char)s[i]) || scale == 1)
			return -1;
		scale /= 10;
		frac += (s[i] - '0') * scale;
	}
	return v * 1000000000 + frac;
}

/* "START,END", either empty -> ns (INT64_MIN, INT64_MAX); 1 if bad */
static int parse_window(const char *s, int64_t *lo, int64_t *hi)
{
	const char *comma = strchr(s, ',');
	size_t n1, n2;

	if (!comma)
		return 1;
	n1 = (size_t)(comma - s);
	n2 = strlen(comma + 1);
	*lo = n1 ? parse_secs(s, n1) : INT64_MIN;
	*hi = n2 ? parse_secs(comma + 1, n2) : INT64_MAX;
	return *lo == -1 || *hi == -1 || *lo > *hi;
}

int mdb_report_arg_parse(struct mdb_report_args *a, size_t i, const char *s,
			 struct mdb_error *e)
{
	const struct mdb_rparam *p = &params[i];
	struct mdb_rarg *r = &a->a[i];
	int64_t v = 0;
	int bad = 0;

	switch (p->kind) {
	case MDB_RP_INT:
		/* a date (2026-11-22..., @SECONDS) for the alt parameter */
		r->time = p->alt && (*s == '@' || (strlen(s) >= 5 &&
			  isdigit((unsigned char)s[0]) && s[4] == '-'));
		if (r->time) {
			bad = mdb_parse_time(s, &v);
			break;
		}
		bad = mdb_parse_int(s, &v) || v < p->lo || v > p->hi;
		/* not a number: a label, when the option takes one */
		r->label = p->labels && *s && !isdigit((unsigned char)*s) &&
			   *s != '-' && *s != '+';
		if (r->label) {
			bad = 0;
			v = 0;
		}
		break;
	case MDB_RP_DURATION:
		v = parse_duration(s);
		bad = v < 0;
		break;
	case MDB_RP_POINT:
		v = parse_point(s, &r->time);
		bad = v < 0;
		break;
	case MDB_RP_WINDOW:
		bad = parse_window(s, &v, &r->v2);
		break;
	case MDB_RP_CHOICE: /* checked against the report's header */
	case MDB_RP_SORT:
	case MDB_RP_TEXT:
		break;
	case MDB_RP_FILE:
		v = 1;
		break;
	}
	if (bad) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, NULL);
		mdb_error_msg(e, "--%s takes %s, not '%s'", p->opt, p->takes, s);
		return -MDB_E_INVAL;
	}
	r->text = s;
	r->v = v;
	return 0;
}

/* The traced machine's CPU-to-node map into temp.cpu_node. */
static int load_cpu_node(struct mdb_db *db, const char *path,
			 struct mdb_error *e)
{
	sqlite3_stmt *st = NULL;
	struct stat sb;
	char *line = NULL;
	size_t cap = 0;
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
	while (getline(&line, &cap, f) > 0) {
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
	free(line);
	sqlite3_finalize(st);
	fclose(f);
	return ret;
}
