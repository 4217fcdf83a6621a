// SPDX-License-Identifier: MIT
/* Test helpers; see testlib.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "testlib.h"

const char *env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v)
		fail_msg("environment variable %s is not set (run the tests "
			 "through make)", name);
	return v;
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf) {
				fclose(f);
				return NULL;
			}
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (!got)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *vstrf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		fail_msg("out of memory");
	return s;
}

char *strf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vstrf(fmt, ap);
	va_end(ap);
	return s;
}

char *restrf(char *old, const char *fmt, ...)
{
	va_list ap;
	char *s;

	free(old);
	va_start(ap, fmt);
	s = vstrf(fmt, ap);
	va_end(ap);
	return s;
}

/* Run @cmd with its output captured in @r. */
static int run_cmd(struct run *r, const char *cmd)
{
	char *out, *err, *full;
	int st;

	out = strf("%s/run.%d.out", env("TEST_TMP"), (int)getpid());
	err = strf("%s/run.%d.err", env("TEST_TMP"), (int)getpid());
	full = strf("(%s) >'%s' 2>'%s'", cmd, out, err);
	st = system(full);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->out = slurp(out, NULL);
	r->err = slurp(err, NULL);
	if (!r->out)
		r->out = strdup("");
	if (!r->err)
		r->err = strdup("");
	unlink(out);
	unlink(err);
	free(full);
	free(err);
	free(out);
	return r->status;
}

int run(struct run *r, const char *fmt, ...)
{
	va_list ap;
	char *cmd;

	va_start(ap, fmt);
	cmd = vstrf(fmt, ap);
	va_end(ap);
	run_cmd(r, cmd);
	free(cmd);
	return r->status;
}

void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

char *tmpdir(const char *name)
{
	const char *base = env("TEST_TMP");
	char *p;
	struct run r;

	mkdir(base, 0755);
	if (asprintf(&p, "%s/%s", base, name) < 0)
		fail_msg("out of memory");
	run(&r, "rm -rf '%s' && mkdir -p '%s'", p, p);
	assert_int_equal(r.status, 0);
	run_free(&r);
	return p;
}

int64_t db_int(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL))
		fail_msg("cannot open %s", db);
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL))
		fail_msg("bad test SQL: %s: %s", sql, sqlite3_errmsg(h));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

char *db_counts(const char *db)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	char *acc = strdup("");

	if (access(db, F_OK) != 0)
		return acc;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL))
		fail_msg("cannot open %s", db);
	if (sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master WHERE "
			       "type = 'table' ORDER BY name", -1, &st, NULL))
		fail_msg("cannot list tables");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		char *q = strf("SELECT count(*) FROM \"%s\"", t), *n;
		sqlite3_stmt *c;

		if (sqlite3_prepare_v2(h, q, -1, &c, NULL))
			fail_msg("cannot count %s", t);
		free(q);
		sqlite3_step(c);
		if (asprintf(&n, "%s%s=%lld;", acc, t,
			     (long long)sqlite3_column_int64(c, 0)) < 0)
			fail_msg("out of memory");
		sqlite3_finalize(c);
		free(acc);
		acc = n;
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	return acc;
}

int run_memdb(struct run *r, const char *db, const char *fmt, ...)
{
	va_list ap;
	char *args;

	va_start(ap, fmt);
	args = vstrf(fmt, ap);
	va_end(ap);
	run(r, "'%s' %s -d '%s'", env("MEMDB"), args, db);
	free(args);
	return r->status;
}

char *path_in(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		fail_msg("out of memory");
	return p;
}

char *fresh_db(const char *dir, const char *name)
{
	char *p = path_in(dir, name);
	struct run r;

	run(&r, "rm -f '%s' '%s-wal' '%s-shm'", p, p, p);
	run_free(&r);
	return p;
}

void ingest_ok(const char *db, const char *fmt, ...)
{
	struct run r;
	va_list ap;
	char *args;

	va_start(ap, fmt);
	args = vstrf(fmt, ap);
	va_end(ap);
	run_memdb(&r, db, "ingest -q %s", args);
	if (r.status)
		fail_msg("ingest %s failed: %s", args, r.err);
	run_free(&r);
	free(args);
}

char *db_text(const char *db, const char *sql)
{
	struct run r;
	char *s;

	run(&r, "'%s' sql -d '%s' -f csv \"%s\" | tail -n +2", env("MEMDB"),
	    db, sql);
	assert_int_equal(r.status, 0);
	s = strdup(r.out);
	run_free(&r);
	return s;
}

char *report_csv(const char *db, const char *name)
{
	struct run r;
	char *out;

	run_memdb(&r, db, "report %s --format csv", name);
	if (r.status)
		fail_msg("report %s: %s", name, r.err);
	out = r.out;
	r.out = NULL;
	run_free(&r);
	return out;
}
