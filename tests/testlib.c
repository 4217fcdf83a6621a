// SPDX-License-Identifier: MIT
/* Test helpers; see testlib.h. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
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

#include "../db/allocvt.h"
#include "../db/migrations.h"
#include "testlib.h"

/*
 * Every SQLite connection a test opens itself reads alloc, as memdb's
 * own do (db/allocvt.c): the module is registered on each.
 */
static int alloc_module(sqlite3 *db, char **err, const void *api)
{
	(void)err;
	(void)api;
	return mdb_allocvt_register(db);
}

__attribute__((constructor)) static void register_alloc_module(void)
{
	sqlite3_auto_extension((void (*)(void))alloc_module);
}

int under_sanitizers(void)
{
	const char *s = getenv("MEMDB_SAN");

	return s && *s && strcmp(s, "0") != 0;
}

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

/* A file for a run's output, or the test fails. */
static int open_out(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		fail_msg("cannot create %s: %s", path, strerror(errno));
	return fd;
}

/*
 * Run @cmd with sh -c, its output captured in @r.  Not system(): its
 * shell would stand between the test and the command, and the command's
 * death by a signal would reach us as the exit status 128 + N.
 */
static int run_cmd(struct run *r, const char *cmd)
{
	char *out, *err;
	int st, fo, fe;
	pid_t pid;

	out = strf("%s/run.%d.out", env("TEST_TMP"), (int)getpid());
	err = strf("%s/run.%d.err", env("TEST_TMP"), (int)getpid());
	fo = open_out(out);
	fe = open_out(err);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		fail_msg("fork: %s", strerror(errno));
	if (pid == 0) {
		if (dup2(fo, 1) >= 0 && dup2(fe, 2) >= 0)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fo);
	close(fe);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			fail_msg("waitpid: %s", strerror(errno));
	r->wstatus = st;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->cmd = strdup(cmd);
	r->out = slurp(out, NULL);
	r->err = slurp(err, NULL);
	if (!r->out)
		r->out = strdup("");
	if (!r->err)
		r->err = strdup("");
	unlink(out);
	unlink(err);
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
	free(r->cmd);
	r->out = r->err = r->cmd = NULL;
}

/* The name of signal @sig ("SIGTERM"), NULL when not one of these. */
static const char *sig_name(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" },
		{ SIGQUIT, "SIGQUIT" }, { SIGILL, "SIGILL" },
		{ SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" },
		{ SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" },
		{ SIGKILL, "SIGKILL" }, { SIGUSR1, "SIGUSR1" },
		{ SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" },
		{ SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" },
		{ SIGTERM, "SIGTERM" }, { SIGXCPU, "SIGXCPU" },
		{ SIGXFSZ, "SIGXFSZ" }, { SIGSYS, "SIGSYS" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].sig == sig)
			return names[i].name;
	return NULL;
}

/* "signal 15 (SIGTERM)" into @f. */
static void put_signal(FILE *f, int sig)
{
	const char *name = sig_name(sig);

	fprintf(f, "signal %d", sig);
	if (name)
		fprintf(f, " (%s)", name);
}

/* @n bytes of @p, printable: other bytes (and \) as C escapes. */
static void put_escaped(FILE *f, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f))
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
}

#define SHOW_CMD 400     /* bytes of the command line shown */
#define SHOW_HEAD 1024   /* stderr longer than SHOW_HEAD + SHOW_TAIL: */
#define SHOW_TAIL 3072   /* its start and its end (where errors are) */

char *run_describe(const struct run *r)
{
	const char *cmd = r->cmd ? r->cmd : "?", *err = r->err ? r->err : "";
	size_t clen = strlen(cmd), elen = strlen(err), len;
	int st = r->wstatus;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		fail_msg("out of memory");
	if (WIFSIGNALED(st)) {
		fputs("killed by ", f);
		put_signal(f, WTERMSIG(st));
		if (WCOREDUMP(st))
			fputs(", core dumped", f);
	} else if (WIFEXITED(st)) {
		fprintf(f, "exit status %d", WEXITSTATUS(st));
		/* what sh reports of a command a signal killed */
		if (WEXITSTATUS(st) > 128 && sig_name(WEXITSTATUS(st) - 128)) {
			fprintf(f, " (128 + %d: a command of the shell killed "
				"by ", WEXITSTATUS(st) - 128);
			put_signal(f, WEXITSTATUS(st) - 128);
			fputs("?)", f);
		}
	} else {
		fprintf(f, "wait status 0x%x", (unsigned)st);
	}
	fputs("\n$ ", f);
	put_escaped(f, cmd, clen > SHOW_CMD ? SHOW_CMD : clen);
	fputs(clen > SHOW_CMD ? " ...\n" : "\n", f);
	if (elen && err[elen - 1] == '\n')
		elen--;
	if (!elen) {
		fputs("stderr empty", f);
	} else if (elen <= SHOW_HEAD + SHOW_TAIL) {
		fputs("stderr:\n", f);
		put_escaped(f, err, elen);
	} else {
		fprintf(f, "stderr (%zu bytes, the middle cut):\n", elen);
		put_escaped(f, err, SHOW_HEAD);
		fprintf(f, "\n[... %zu bytes ...]\n",
			elen - SHOW_HEAD - SHOW_TAIL);
		put_escaped(f, err + elen - SHOW_TAIL, SHOW_TAIL);
	}
	if (fclose(f) != 0 || !buf)
		fail_msg("out of memory");
	return buf;
}

void run_expect(int ok, const struct run *r, const char *file, int line,
		const char *fmt, ...)
{
	char *what = NULL, *how;
	va_list ap;

	if (ok)
		return;
	if (fmt) {
		va_start(ap, fmt);
		what = vstrf(fmt, ap);
		va_end(ap);
	}
	how = run_describe(r);
	print_error("ERROR: %s%s%s\n", what ? what : "", what ? ": " : "",
		    how);
	free(what);
	free(how);
	_fail(file, line);
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
	assert_run_ok(&r);
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
	run(r, "exec '%s' %s -d '%s'", env("MEMDB"), args, db);
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

void run_ok(const char *fmt, ...)
{
	struct run r;
	va_list ap;
	char *cmd;

	va_start(ap, fmt);
	cmd = vstrf(fmt, ap);
	va_end(ap);
	run(&r, "%s", cmd);
	if (r.status)
		run_expect(0, &r, __FILE__, __LINE__, "%s", cmd);
	run_free(&r);
	free(cmd);
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
		run_expect(0, &r, __FILE__, __LINE__, "ingest %s failed", args);
	run_free(&r);
	free(args);
}

char *db_text(const char *db, const char *sql)
{
	struct run r;
	char *s;

	run(&r, "'%s' sql -d '%s' -f csv \"%s\" | tail -n +2", env("MEMDB"),
	    db, sql);
	assert_run_ok(&r);
	s = strdup(r.out);
	run_free(&r);
	return s;
}

char *report_csv(const char *db, const char *name)
{
	struct run r;
	char *out;

	run_memdb(&r, db, "report %s --format csv", name);
	assert_run_ok_msg(&r, "report %s", name);
	out = r.out;
	r.out = NULL;
	run_free(&r);
	return out;
}

char *schema_of_version(int version, const char *where)
{
	sqlite3 *m;
	sqlite3_stmt *st;
	char *msg = NULL, *sql = NULL;

	if (sqlite3_open(":memory:", &m))
		fail_msg("cannot open a database in memory");
	for (int v = 0; v < version; v++)
		if (sqlite3_exec(m, mdb_migrations[v], NULL, NULL, &msg))
			fail_msg("migration %d: %s", v, msg);
	sql = strf("SELECT group_concat(sql, '; ') FROM sqlite_master "
		   "WHERE %s", where);
	if (sqlite3_prepare_v2(m, sql, -1, &st, NULL) ||
	    sqlite3_step(st) != SQLITE_ROW ||
	    sqlite3_column_type(st, 0) == SQLITE_NULL)
		fail_msg("nothing of schema %d where %s: %s", version, where,
			 sqlite3_errmsg(m));
	free(sql);
	sql = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(m);
	return sql;
}

void db_exec(const char *db, const char *sql)
{
	sqlite3 *h;
	char *msg = NULL;

	if (sqlite3_open(db, &h) ||
	    sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", db, msg ? msg : sqlite3_errmsg(h));
	sqlite3_close(h);
}

void db_as_schema12(const char *db)
{
	/* schema 12's bad_free table of rows, from the migrations, and its
	 * alloc_blk without schema 14's position ranges */
	char *table = schema_of_version(12, "name = 'bad_free'");
	char *sql = strf("CREATE TEMP TABLE rows12 AS SELECT * FROM "
			 "bad_free; DROP TABLE bad_free; DROP TABLE "
			 "bad_free_blk; %s; INSERT INTO bad_free SELECT * "
			 "FROM temp.rows12; DROP TABLE temp.rows12; "
			 "ALTER TABLE alloc_blk DROP COLUMN min_seq; "
			 "ALTER TABLE alloc_blk DROP COLUMN max_seq; "
			 "PRAGMA user_version = 12", table);

	db_exec(db, sql);
	free(table);
	free(sql);
}

const char slicing_tables_sql[] =
	"CREATE TABLE slice_meta (source_id); "
	"CREATE TABLE slice_block (source_id); "
	"CREATE TABLE slice_bucket (source_id); "
	"CREATE TABLE slice_key (source_id); "
	"CREATE TABLE slice_pid (source_id); "
	"CREATE TABLE slice_bucket_comm (source_id); "
	"CREATE TABLE slice_pp (source_id); "
	"CREATE TABLE slice_stack (source_id); "
	"CREATE TABLE slice_ptr (source_id); "
	"CREATE TABLE slice_bucket_pid (source_id); "
	"CREATE TABLE slice_pp_pid (source_id); "
	"CREATE TABLE slice_col (source_id)";

void db_as_schema10(const char *db)
{
	/* the schema-10 alloc table and its indexes, from the migrations */
	char *table = schema_of_version(10, "tbl_name = 'alloc'");
	char *sql = strf("CREATE TEMP TABLE rows10 AS SELECT * FROM alloc; "
			 "DROP TABLE alloc; DROP TABLE alloc_blk; %s; %s; "
			 "INSERT INTO alloc SELECT * FROM temp.rows10; "
			 "DROP TABLE temp.rows10; PRAGMA user_version = 10",
			 table, slicing_tables_sql);

	db_as_schema12(db);
	db_exec(db, sql);
	free(table);
	free(sql);
}
