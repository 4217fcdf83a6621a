// SPDX-License-Identifier: MIT
/* The report engine: choose, check, bind and run a report; see report.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "scan.h"

/* A command-line mistake: -MDB_E_INVAL, the message in @e->msg. */
static int usage(struct mdb_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int usage(struct mdb_error *e, const char *fmt, ...)
{
	va_list ap;

	mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, NULL);
	if (e) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -MDB_E_INVAL;
}

/* The report as its header names it ("pingpong --by cpu" for the
 * variant --by chose), else its name: up to the end of its line. */
static const char *shown(const struct mdb_report *r)
{
	size_t n;
	const char *s = r->q ? mdb_query_annot(r->q, "report", &n) : NULL;

	return s ? s : r->named->name;
}

/* shown() as the arguments of a "%.*s" */
#define SHOWN(r) (int)strcspn(shown(r), "\n"), shown(r)

/* The value of choice @i: given, else the first its header declares. */
static int choose(struct mdb_report *r, size_t i, struct mdb_error *e)
{
	const struct mdb_rparam *p = &mdb_report_params(&(size_t){ 0 })[i];
	const char *given = r->args.a[i].text, *list;
	size_t len;

	list = mdb_query_annot(r->q, p->opt, &len);
	if (!list)
		list = mdb_query_annot(r->named, p->opt, &len);
	if (!list)
		return given ? usage(e, "report '%.*s' takes no --%s",
				     SHOWN(r), p->opt) : 0;
	if (given && !mdb_query_in_list(list, len, given))
		return usage(e, "report '%.*s' takes --%s %.*s, not '%s'",
			     SHOWN(r), p->opt, (int)len, list, given);
	r->value[i] = given ? strdup(given) :
			      strndup(list, strcspn(list, "|\n"));
	if (!r->value[i])
		return mdb_error_nomem(e);
	if (p->timed && !strcmp(r->value[i], p->timed))
		r->timed = (int)i;
	if (p->variants) {
		size_t n = strlen(r->named->name) + strlen(r->value[i]) + 2;
		char *vname = malloc(n);
		const struct mdb_query *v;

		if (!vname)
			return mdb_error_nomem(e);
		snprintf(vname, n, "%s@%s", r->named->name, r->value[i]);
		v = r->fleet ? mdb_fleet_find(vname) : mdb_query_find(vname);
		free(vname);
		if (v)
			r->q = v;
	}
	return 0;
}

/* The expression of sort key @key (@n bytes) in @list, or NULL. */
static const char *sort_expr(const char *list, size_t len, const char *key,
			     size_t n, size_t *elen)
{
	const char *end = list + len;

	for (const char *p = list; p < end;) {
		size_t w = strcspn(p, "|\n"), k = strcspn(p, "=|\n");

		if (k == n && !strncmp(p, key, n)) {
			*elen = k < w ? w - k - 1 : k;
			return k < w ? p + k + 1 : p;
		}
		p += w + 1;
	}
	return NULL;
}

/* "report 'x' takes --sort KEY[,KEY...], each one of: a, b; not 'c'" */
static int bad_key(const struct mdb_report *r, const char *list, size_t len,
		   const char *key, size_t n, struct mdb_error *e)
{
	char keys[200] = "";
	const char *end = list + len;

	for (const char *p = list; p < end;) {
		size_t w = strcspn(p, "|\n"), k = strcspn(p, "=|\n");
		size_t have = strlen(keys);

		snprintf(keys + have, sizeof(keys) - have, "%s%.*s",
			 have ? ", " : "", (int)k, p);
		p += w + 1;
	}
	return usage(e, "report '%.*s' takes --sort KEY[,KEY...], each one "
		     "of: %s; not '%.*s'", SHOWN(r), keys, (int)n, key);
}

/* Append "expr DESC" for each comma-separated term of @x to @f. */
static void add_desc(FILE *f, const char *x, size_t n, int *terms)
{
	for (size_t at = 0, w; at < n; at += w + 1) {
		w = strcspn(x + at, ",");
		if (w > n - at)
			w = n - at;
		fprintf(f, "%s%.*s DESC", (*terms)++ ? ", " : "", (int)w,
			x + at);
	}
}

/*
 * The keys of --sort (option @i), given or default: their expressions
 * into r->order, the first key's name into r->value[@i].
 */
static int choose_sort(struct mdb_report *r, size_t i, struct mdb_error *e)
{
	const char *given = r->args.a[i].text, *list, *keys;
	size_t len, klen = 0, olen, nkeys = 0;
	int terms = 0, ret = 0;
	FILE *f;

	list = mdb_query_annot(r->q, "sort", &len);
	if (!list)
		return given ? usage(e, "report '%.*s' takes no --sort",
				     SHOWN(r)) : 0;
	keys = given;
	if (given)
		klen = strlen(given);
	else if (!(keys = mdb_query_annot(r->q, "sort-default", &klen)))
		keys = list, klen = strcspn(list, "=|\n");
	f = open_memstream(&r->order, &olen);
	if (!f)
		return mdb_error_nomem(e);
	for (size_t at = 0, w; at <= klen && !ret; at += w + 1, nkeys++) {
		const char *x;
		size_t xn;

		w = strcspn(keys + at, ",|=\n");
		if (w > klen - at)
			w = klen - at;
		x = sort_expr(list, len, keys + at, w, &xn);
		if (!x || !w)
			ret = bad_key(r, list, len, keys + at, w, e);
		else
			add_desc(f, x, xn, &terms);
		if (!nkeys && !ret && !(r->value[i] = strndup(keys + at, w)))
			ret = mdb_error_nomem(e);
	}
	if (fclose(f) && !ret)
		ret = mdb_error_nomem(e);
	if (!ret && nkeys > 1 && !mdb_query_uses(r->q, "@sort"))
		ret = usage(e, "report '%.*s' sorts by one KEY", SHOWN(r));
	return ret;
}

/* @sql with every @tok outside comments and strings replaced by @with. */
static char *expand(const char *sql, const char *tok, const char *with)
{
	char *out = NULL;
	size_t n;
	FILE *f = open_memstream(&out, &n);
	const char *p;

	if (!f)
		return NULL;
	while ((p = mdb_sql_find(sql, tok))) {
		fprintf(f, "%.*s%s", (int)(p - sql), sql, with);
		sql = p + strlen(tok);
	}
	fputs(sql, f);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* :sel and :tsel: a selection given, a window among them. */
static void selections(struct mdb_report *r)
{
	size_t n;
	const struct mdb_rparam *p = mdb_report_params(&n);

	for (size_t i = 0; i < n; i++) {
		if (!p[i].sel || !r->args.a[i].text)
			continue;
		r->selected = 1;
		if (p[i].kind == MDB_RP_WINDOW)
			r->windowed = 1;
	}
}

/* Does @r run the set-up of its report first (report.h)? */
static int shares_setup(const struct mdb_report *r)
{
	size_t len;

	return r->q != r->named && mdb_query_annot(r->q, "setup", &len);
}

/* Does what @r runs use @tok, its report's set-up included? */
static int uses(const struct mdb_report *r, const char *tok)
{
	return mdb_query_uses(r->q, tok) ||
	       (shares_setup(r) && mdb_query_uses(r->named, tok));
}

/* @sql with @sort expanded. */
static char *expand_sort(const struct mdb_report *r, const char *sql)
{
	return expand(sql, "@sort", r->order ? r->order : "1");
}

/* r->sql: the SQL of what runs, @sort expanded; the same of
 * r->setup_sql. */
static int expand_sql(struct mdb_report *r, struct mdb_error *e)
{
	r->sql = expand_sort(r, r->q->sql);
	if (r->sql && shares_setup(r)) {
		r->setup_sql = expand_sort(r, r->named->sql);
		if (!r->setup_sql) {
			free(r->sql);
			r->sql = NULL;
		}
	}
	return r->sql ? 0 : mdb_error_nomem(e);
}

static int plan(struct mdb_report *r, const char *name,
		const struct mdb_report_args *a, int fleet,
		struct mdb_error *e)
{
	size_t n;
	const struct mdb_rparam *p = mdb_report_params(&n);

	memset(r, 0, sizeof(*r));
	r->args = *a;
	r->timed = -1;
	r->fleet = fleet;
	if (strchr(name, '@'))
		return usage(e, "no report called '%s' (variants are chosen "
			     "with --by)", name);
	r->named = r->q = fleet ? mdb_fleet_find(name) : mdb_query_find(name);
	if (!r->q && fleet && mdb_query_find(name))
		return usage(e, "report '%s' has no fleet form (--clickhouse: "
			     "allocinfo, growth, zones, callsites, outliers)",
			     name);
	if (!r->q)
		return usage(e, "no report called '%s' ('memdb report list' "
			     "names them)", name);
	for (size_t i = 0; i < n; i++) {
		const struct mdb_rarg *v = &a->a[i];
		int ret;

		if (p[i].kind == MDB_RP_CHOICE || p[i].kind == MDB_RP_SORT) {
			ret = p[i].kind == MDB_RP_SORT ? choose_sort(r, i, e) :
							 choose(r, i, e);
			if (ret < 0)
				return ret;
			continue;
		}
		if (v->text && p[i].kind == MDB_RP_INT && p[i].alt &&
		    uses(r, v->time ? p[i].param : p[i].alt) &&
		    !uses(r, v->time ? p[i].alt : p[i].param))
			return usage(e, "report '%s' takes --%s %s, not '%s'",
				     name, p[i].opt, v->time ? "ID|LABEL" :
				     "DATE (2026-11-22, 2026-11-22T10:00Z, "
				     "@UNIXSECONDS)", v->text);
		/* a selection: the arguments of slab_scan that @scan
		 * passes (a scan without them selects nothing) */
		if (v->text && (p[i].sel ? !uses(r, MDB_SEL_PARAM) :
				!uses(r, (v->time && p[i].alt) ? p[i].alt :
					 p[i].param)))
			return usage(e, "report '%.*s' takes no --%s",
				     SHOWN(r), p[i].opt);
		if (v->text && (p[i].kind == MDB_RP_DURATION ||
				p[i].kind == MDB_RP_WINDOW ||
				(p[i].kind == MDB_RP_POINT && v->time)))
			r->timed = (int)i;
	}
	selections(r);
	return expand_sql(r, e);
}

int mdb_report_plan(struct mdb_report *r, const char *name,
		    const struct mdb_report_args *a, struct mdb_error *e)
{
	return plan(r, name, a, 0, e);
}

int mdb_report_plan_fleet(struct mdb_report *r, const char *name,
			  const struct mdb_report_args *a, struct mdb_error *e)
{
	return plan(r, name, a, 1, e);
}

int mdb_report_uses(const struct mdb_report *r, const char *param)
{
	return uses(r, param);
}

/* Do the sources @r covers have timestamps?  1, 0, or <0. */
static int sources_timed(struct mdb_db *db, const struct mdb_report *r,
			 struct mdb_error *e)
{
	sqlite3_stmt *st;
	int timed = 0;

	if (sqlite3_prepare_v2(db->h, "SELECT count(first_ts) FROM source "
			       "WHERE id BETWEEN ?1 AND ?2", -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read the sources");
	sqlite3_bind_int64(st, 1, r->args.src_lo);
	sqlite3_bind_int64(st, 2, r->args.src_hi);
	if (sqlite3_step(st) == SQLITE_ROW)
		timed = sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return timed;
}

/* Does an alloc row of the sources @r covers have @col?  1, 0, or <0. */
static int sources_have(struct mdb_db *db, const struct mdb_report *r,
			const char *col, struct mdb_error *e)
{
	sqlite3_stmt *st;
	char *sql;
	int have;

	if (asprintf(&sql, "SELECT 1 FROM source s JOIN alloc a ON a.id "
		     "BETWEEN s.alloc_lo AND s.alloc_hi WHERE s.id BETWEEN ?1 "
		     "AND ?2 AND a.%s IS NOT NULL LIMIT 1", col) < 0)
		return mdb_error_nomem(e);
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL)) {
		free(sql);
		return mdb_db_error(db, e, "cannot read the allocations");
	}
	free(sql);
	sqlite3_bind_int64(st, 1, r->args.src_lo);
	sqlite3_bind_int64(st, 2, r->args.src_hi);
	have = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return have;
}

/* An option given whose column no allocation of the sources has. */
static int check_needs(struct mdb_db *db, const struct mdb_report *r,
		       struct mdb_error *e)
{
	size_t n;
	const struct mdb_rparam *p = mdb_report_params(&n);

	for (size_t i = 0; i < n; i++) {
		int have;

		if (!p[i].needs || !r->args.a[i].text)
			continue;
		have = sources_have(db, r, p[i].needs, e);
		if (have < 0)
			return have;
		if (!have)
			return usage(e, "the source names no %s, which --%s "
				     "needs", p[i].needs_what, p[i].opt);
	}
	return 0;
}

int mdb_report_check(struct mdb_db *db, const struct mdb_report *r,
		     struct mdb_error *e)
{
	const struct mdb_rparam *p = mdb_report_params(&(size_t){ 0 });
	const char *scope;
	size_t len;
	int timed, ret;

	scope = mdb_query_annot(r->q, "scope", &len);
	if (scope && len == 10 && !strncmp(scope, "one source", len) &&
	    r->args.src_lo != r->args.src_hi)
		return usage(e, "report '%.*s' covers one source: give "
			     "--source ID", SHOWN(r));
	ret = check_needs(db, r, e);
	if (ret < 0 || r->timed < 0)
		return ret;
	timed = sources_timed(db, r, e);
	if (timed < 0)
		return timed;
	if (!timed) {
		const struct mdb_rparam *t = &p[r->timed];

		return usage(e, "the source has no timestamps, which --%s%s%s "
			     "needs", t->opt,
			     t->kind == MDB_RP_CHOICE ? " " :
			     t->kind == MDB_RP_POINT ? " TIMEs" : "",
			     t->kind == MDB_RP_CHOICE ? r->value[r->timed] :
							"");
	}
	return 0;
}

/* Append @s, with "%v" replaced by @v, to the malloc'ed *@buf. */
static int append(char **buf, const char *s, const char *v)
{
	const char *mark = strstr(s, "%v");
	size_t have = strlen(*buf), n = strlen(s) + (mark ? strlen(v) : 0);
	char *b = realloc(*buf, have + n + 1);

	if (!b)
		return -1;
	if (mark)
		snprintf(b + have, n + 1, "%.*s%s%s", (int)(mark - s), s, v,
			 mark + 2);
	else
		memcpy(b + have, s, strlen(s) + 1);
	*buf = b;
	return 0;
}

char *mdb_report_head(const struct mdb_report *r)
{
	size_t n;
	const struct mdb_rparam *p = mdb_report_params(&n);
	char *head = strdup(r->named->name);

	for (size_t i = 0; i < n && head; i++) {
		const char *v = r->args.a[i].text;

		if (v && p[i].title && append(&head, p[i].title, v) < 0) {
			free(head);
			head = NULL;
		}
	}
	return head;
}

/* *@iv = @v, and the kind of value that is. */
static int int_value(int64_t *iv, int64_t v)
{
	*iv = v;
	return MDB_PV_INT;
}

int mdb_report_param(const struct mdb_report *r, const char *name,
		     int64_t *iv, const char **text)
{
	size_t n;
	const struct mdb_rparam *p = mdb_report_params(&n);
	const struct mdb_rarg *a = r->args.a;
	static const char given[] = ":given_";

	if (!strcmp(name, ":src_lo"))
		return int_value(iv, r->args.src_lo);
	if (!strcmp(name, ":src_hi"))
		return int_value(iv, r->args.src_hi);
	if (!strcmp(name, ":top"))
		return int_value(iv, r->args.top ? r->args.top : -1);
	if (!strcmp(name, ":sel"))
		return int_value(iv, r->selected);
	if (!strcmp(name, MDB_SEL_PARAM))
		return int_value(iv, r->windowed);
	if (!strcmp(name, ":fleet"))
		return int_value(iv, r->args.fleet);
	for (size_t i = 0; i < n; i++) {
		int is_param = !strcmp(name, p[i].param);
		int is_alt = p[i].alt && !strcmp(name, p[i].alt);

		/* :given_OPT: 1 when the selection OPT is given */
		if (p[i].sel && !strncmp(name, given, sizeof(given) - 1) &&
		    !strcmp(name + sizeof(given) - 1, p[i].opt))
			return int_value(iv, a[i].text != NULL);
		if (!is_param && !is_alt)
			continue;
		switch (p[i].kind) {
		case MDB_RP_CHOICE:
		case MDB_RP_SORT:
			*text = r->value[i] ? r->value[i] : "";
			return MDB_PV_TEXT;
		case MDB_RP_INT:
			/* a date is the alt parameter's value, the other
			 * stays at its default */
			if (is_alt)
				return a[i].time && a[i].text ?
				       int_value(iv, a[i].v) : MDB_PV_NULL;
			return int_value(iv, p[i].alt && a[i].time ?
					 p[i].def : a[i].v);
		case MDB_RP_FILE:
			return int_value(iv, a[i].v);
		case MDB_RP_DURATION:
		case MDB_RP_POINT:
			return a[i].text && is_alt == !!a[i].time ?
			       int_value(iv, a[i].v) : MDB_PV_NULL;
		case MDB_RP_WINDOW:
			return int_value(iv, is_param ? a[i].v : a[i].v2);
		case MDB_RP_TEXT:
			if (!a[i].text)
				return MDB_PV_NULL;
			*text = a[i].text;
			return MDB_PV_TEXT;
		}
	}
	return MDB_PV_UNKNOWN;
}

/* Every value of @r to the parameters of @st that use it. */
static void bind_all(sqlite3_stmt *st, const struct mdb_report *r)
{
	int n = sqlite3_bind_parameter_count(st);

	for (int k = 1; k <= n; k++) {
		const char *name = sqlite3_bind_parameter_name(st, k), *text;
		int64_t v;

		if (!name)
			continue;
		switch (mdb_report_param(r, name, &v, &text)) {
		case MDB_PV_INT:
			sqlite3_bind_int64(st, k, v);
			break;
		case MDB_PV_TEXT:
			sqlite3_bind_text(st, k, text, -1, SQLITE_TRANSIENT);
			break;
		default: /* NULL */
			break;
		}
	}
}

/* The options' temp tables, and the files given read into them. */
static int setup(struct mdb_db *db, const struct mdb_report *r,
		 struct mdb_error *e)
{
	size_t n;
	const struct mdb_rparam *p = mdb_report_params(&n);
	int ret;

	for (size_t i = 0; i < n; i++) {
		if (p[i].setup && (ret = mdb_db_exec(db, p[i].setup, e)) < 0)
			return ret;
		if (p[i].load && r->args.a[i].text &&
		    (ret = p[i].load(db, r->args.a[i].text, e)) < 0)
			return ret;
	}
	return 0;
}

/* Run the leading statements of @sql that return nothing (set-up). */
static int run_setup(struct mdb_db *db, const struct mdb_report *r,
		     const char *sql)
{
	while (sql && *sql) {
		sqlite3_stmt *st = NULL;
		int rc;

		if (sqlite3_prepare_v2(db->h, sql, -1, &st, &sql) != SQLITE_OK)
			return -1;
		if (!st)
			continue;
		if (sqlite3_column_count(st)) {
			sqlite3_finalize(st);
			return 0;
		}
		bind_all(st, r);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return -1;
	}
	return 0;
}

/*
 * Prepare, bind and run the statements of @r in order (after its report's
 * set-up when it shares it), up to the rows statement and the total
 * statement, left prepared.
 */
static int prepare(struct mdb_db *db, const struct mdb_report *r,
		   sqlite3_stmt **rows, sqlite3_stmt **total,
		   struct mdb_error *e)
{
	const char *sql = r->sql;

	*rows = *total = NULL;
	/* report/scan.c's slab_scan, once per connection */
	if (!db->scan_module) {
		if (mdb_scan_register(db->h) != SQLITE_OK)
			goto fail;
		db->scan_module = 1;
	}
	if (run_setup(db, r, r->setup_sql) < 0)
		goto fail;
	while (sql && *sql && !*total) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(db->h, sql, -1, &st, &sql) !=
		    SQLITE_OK)
			goto fail;
		if (!st)
			continue;
		bind_all(st, r);
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
		 r->q->name);
	sqlite3_finalize(*rows);
	sqlite3_finalize(*total);
	*rows = *total = NULL;
	return -MDB_E_DB;
}

int mdb_report_run(struct mdb_db *db, const struct mdb_report *r,
		   mdb_report_emit_fn emit, void *ctx, struct mdb_error *e)
{
	sqlite3_stmt *rows, *total;
	int ret = setup(db, r, e);

	if (ret < 0)
		return ret;
	ret = prepare(db, r, &rows, &total, e);
	if (ret < 0)
		return ret;
	ret = emit(ctx, rows, total, e);
	sqlite3_finalize(rows);
	sqlite3_finalize(total);
	return ret;
}

void mdb_report_release(struct mdb_report *r)
{
	free(r->sql);
	free(r->setup_sql);
	free(r->order);
	r->sql = r->setup_sql = r->order = NULL;
	for (size_t i = 0; i < MDB_RP_MAX; i++) {
		free(r->value[i]);
		r->value[i] = NULL;
	}
}
