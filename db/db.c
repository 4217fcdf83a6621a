// SPDX-License-Identifier: MIT
/*
 * Opening the memdb database: pragmas, schema creation, forward migration,
 * and the source-level operations (latest, exists, delete).
 *
 * Journal: an existing database is written in WAL mode so reports can read
 * while an ingest writes.  A database this process creates has no readers
 * yet; it is filled in rollback-journal mode, which writes appended pages
 * once instead of twice (WAL, then checkpoint), and switched to WAL when
 * closed.  Both modes keep a killed ingest from leaving a partial source.
 * While it is being filled, readers are told so (they would block on its
 * locks, or see no schema yet) and other ingests wait for it to end.
 *
 * Read-only connections (reports, memdb sql, sources) are locked down:
 * an authorizer and SQLite's defensive settings let them read and use
 * TEMP tables only.  They open a WAL database where nothing can be
 * written (no -shm can be made, or the directory's mode says none may
 * be) as immutable, when no -wal or -shm exists.  A database that cannot
 * be written is refused to writers before SQLite opens it, whatever the
 * reason (its mode, its directory, the mount), in one message.
 *
 * Waiting: a busy connection retries for up to 10 minutes, and after a
 * second tells the CLI's hook once what it waits for.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db.h"

#include "allocvt.h"
#include "migrations.h"
#include "sqlutil.h"
#include "fresh.inc" /* fresh_sql[], generated: see migrations.h */
#include "fresh_db.inc" /* the file SQLite makes of it: tools/mkfresh.c */

#define BUSY_TIMEOUT_MS (10 * 60 * 1000) /* ingests wait for each other */
#define WAIT_NOTICE_MS 1000 /* then say what we wait for */

/*
 * Did SQLite fail for want of memory?  Its own allocations say
 * SQLITE_NOMEM; a mapping it could not make (the WAL index, -shm) says
 * "disk I/O error" with errno ENOMEM.
 */
static int db_nomem(struct mdb_db *db, int rc)
{
	return (rc & 0xff) == SQLITE_NOMEM ||
	       ((rc & 0xff) == SQLITE_IOERR && db->h &&
		sqlite3_system_errno(db->h) == ENOMEM);
}

int mdb_db_error(struct mdb_db *db, struct mdb_error *e, const char *what)
{
	int nomem = db->h && db_nomem(db, sqlite3_extended_errcode(db->h));

	mdb_error_set(e, nomem ? MDB_E_NOMEM : MDB_E_DB, db->path, -1, -1,
		      "%s%s", nomem ? "out of memory: " : "",
		      db->h ? sqlite3_errmsg(db->h) : "no handle");
	mdb_error_msg(e, "%s", what);
	return nomem ? -MDB_E_NOMEM : -MDB_E_DB;
}

int mdb_sql_prepare_id(struct mdb_db *db, const char *sql, int64_t id,
		       const char *text, sqlite3_stmt **st, const char *what,
		       struct mdb_error *e)
{
	if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL))
		return mdb_db_error(db, e, what);
	sqlite3_bind_int64(*st, 1, id);
	if (text)
		sqlite3_bind_text(*st, 2, text, -1, SQLITE_STATIC);
	return 0;
}

int mdb_sql_exec_id(struct mdb_db *db, const char *sql, int64_t id,
		    const char *text, const char *what, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc = mdb_sql_prepare_id(db, sql, id, text, &st, what, e);

	if (rc)
		return rc;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : mdb_db_error(db, e, what);
}

static int busy_wait(void *ctx, int n);

int mdb_db_exec(struct mdb_db *db, const char *sql, struct mdb_error *e)
{
	char *msg = NULL;
	int rc;

	/*
	 * Outside a transaction, "locked" said at once (a journal-mode
	 * switch, a lock SQLite will not wait for while another memdb makes
	 * the database) is waited out as the busy handler waits.
	 */
	for (int n = 0;; n++) {
		int idle = sqlite3_get_autocommit(db->h);

		rc = sqlite3_exec(db->h, sql, NULL, NULL, &msg);
		if (rc == SQLITE_OK || !idle || (rc & 0xff) != SQLITE_BUSY ||
		    !busy_wait(db, n))
			break;
		sqlite3_free(msg);
		msg = NULL;
	}
	if (rc != SQLITE_OK) {
		int nomem = db_nomem(db, rc);

		mdb_error_set(e, nomem ? MDB_E_NOMEM : MDB_E_DB, db->path, -1,
			      -1, "%s%s (%.40s)", nomem ? "out of memory: " : "",
			      msg ? msg : sqlite3_errmsg(db->h), sql);
		mdb_error_msg(e, "database statement failed");
		sqlite3_free(msg);
		return nomem ? -MDB_E_NOMEM : -MDB_E_DB;
	}
	return 0;
}

static int mdb_db_user_version(struct mdb_db *db, int *v, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read the database");
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc == SQLITE_NOTADB)
			return mdb_db_error(db, e, "not a memdb database");
		return mdb_db_error(db, e, "cannot read the database");
	}
	*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

static int mdb_db_migrate(struct mdb_db *db, struct mdb_error *e)
{
	const int nmig = MDB_NMIGRATIONS;
	int v, ret;
	char sql[64];

	ret = mdb_db_user_version(db, &v, e);
	if (ret < 0)
		return ret;
	if (v == MDB_SCHEMA_VERSION)
		return 0;
	if (v > MDB_SCHEMA_VERSION)
		goto newer;
	/* re-read under the write lock: another process may migrate too */
	ret = mdb_db_exec(db, "BEGIN IMMEDIATE", e);
	if (ret < 0)
		return ret;
	ret = mdb_db_user_version(db, &v, e);
	if (ret < 0)
		goto rollback;
	if (v > MDB_SCHEMA_VERSION) {
		mdb_db_exec(db, "ROLLBACK", NULL);
		goto newer;
	}
	if (v == 0) {
		/* an existing file with tables but no version is not ours */
		sqlite3_stmt *st;
		int n = 0;

		if (sqlite3_prepare_v2(db->h,
				       "SELECT count(*) FROM sqlite_master", -1,
				       &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
		if (n) {
			mdb_error_set(e, MDB_E_SCHEMA, db->path, -1, -1,
				      "tables=%d user_version=0", n);
			mdb_error_msg(e, "not a memdb database");
			ret = -MDB_E_SCHEMA;
			goto rollback;
		}
	}
	/* an empty file: the migrations' result at once (migrations.h) */
	if (v == 0 && nmig == MDB_SCHEMA_VERSION) {
		ret = mdb_db_exec(db, fresh_sql, e);
		if (ret < 0)
			goto rollback;
		v = nmig;
	}
	for (; v < MDB_SCHEMA_VERSION && v < nmig; v++) {
		ret = mdb_db_exec(db, mdb_migrations[v], e);
		if (ret < 0)
			goto rollback;
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
		 MDB_SCHEMA_VERSION);
	ret = mdb_db_exec(db, sql, e);
	if (ret < 0)
		goto rollback;
	return mdb_db_exec(db, "COMMIT", e);
rollback:
	mdb_db_exec(db, "ROLLBACK", NULL);
	return ret;
newer:
	mdb_error_set(e, MDB_E_SCHEMA, db->path, -1, -1,
		      "user_version=%d supported=%d", v, MDB_SCHEMA_VERSION);
	mdb_error_msg(e, "database written by a newer memdb");
	return -MDB_E_SCHEMA;
}

/* ---- waiting for another memdb ---------------------------------------- */

static mdb_db_wait_fn wait_hook;

void mdb_db_on_wait(mdb_db_wait_fn fn)
{
	wait_hook = fn;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * SQLite's busy handler: sleep and retry, up to BUSY_TIMEOUT_MS, and
 * after WAIT_NOTICE_MS tell the hook once what we wait for.
 */
static int busy_wait(void *ctx, int n)
{
	struct mdb_db *db = ctx;
	int64_t now = now_ms();
	struct timespec nap = { 0, 0 };

	if (n == 0)
		db->wait_start = now;
	if (now - db->wait_start >= BUSY_TIMEOUT_MS)
		return 0;
	if (now - db->wait_start >= WAIT_NOTICE_MS && !db->wait_told) {
		db->wait_told = 1;
		if (wait_hook)
			wait_hook(db->path, db->readonly);
	}
	nap.tv_nsec = (n < 7 ? 1L << n : 100L) * 1000000L;
	nanosleep(&nap, NULL);
	return 1;
}

/* ---- read-only opens ------------------------------------------------- */

/*
 * Does another process hold the write lock of the rollback-journal
 * database at @path (SQLite's RESERVED byte, which only a writer locks)?
 * Probed before this process opens it: closing a descriptor drops the
 * process's own POSIX locks on the file.
 */
static int writer_holds(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0x40000001, .l_len = 1 };
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), held;

	if (fd < 0)
		return 0;
	held = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
	close(fd);
	return held;
}

/* 1 when the database file at @path is in rollback-journal mode. */
static int rollback_mode(const char *path)
{
	unsigned char hdr[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n = fd >= 0 ? read(fd, hdr, sizeof(hdr)) : -1;

	if (fd >= 0)
		close(fd);
	/* an empty file is what a first ingest starts from */
	return n == 0 || (n == (ssize_t)sizeof(hdr) && hdr[18] == 1);
}

/*
 * A first ingest fills a new database in rollback-journal mode and holds
 * it locked until it ends (see the top of this file): say so rather than
 * fail on a half-made file or wait silently.
 */
static int being_created(struct mdb_db *db, struct mdb_error *e)
{
	if (!rollback_mode(db->path) || !writer_holds(db->path))
		return 0;
	mdb_error_set(e, MDB_E_DB, db->path, -1, -1, "journal=rollback");
	mdb_error_msg(e, "the database is being created by another memdb "
			 "(its first ingest)");
	mdb_error_hint(e, "try again when that ingest has ended: a new "
			  "database can be read once its first ingest is done");
	return -MDB_E_DB;
}

static int exists(const char *path, const char *suffix)
{
	char *p;
	int r;

	if (asprintf(&p, "%s%s", path, suffix) < 0)
		return 1;
	r = access(p, F_OK) == 0;
	free(p);
	return r;
}

/*
 * Why @path (of mode @mode) cannot be written, as "key=value" for a
 * message, or NULL when it can: access(2) says no (permissions, a
 * read-only mount, which root gets too), or no write bit is set at all
 * (root passes access(2) whatever the mode, but a file or directory
 * made read-only for everyone is meant to stay so).  Malloc'ed.
 */
static char *why_readonly(const char *path, mode_t mode, const char *what)
{
	int err = access(path, W_OK) < 0 ? errno : 0, n = 0;
	char *s = NULL;

	if (err == EROFS)
		n = asprintf(&s, "mount=read-only");
	else if (err && err != ENOENT)
		n = asprintf(&s, "%s=not-writable", what);
	else if (!(mode & 0222))
		n = asprintf(&s, "%s_mode=%04o", what,
			     (unsigned)(mode & 07777));
	return n < 0 ? NULL : s;
}

/* Why the directory of @path cannot be written (why_readonly()). */
static char *dir_readonly(const char *path)
{
	char *d = strdup(path), *dir = d ? dirname(d) : NULL, *why = NULL;
	struct stat st;

	if (dir && stat(dir, &st) == 0)
		why = why_readonly(dir, st.st_mode, "directory");
	free(d);
	return why;
}

/*
 * A database a write cannot go to (its file, its directory where SQLite
 * puts the -wal, -shm or journal, or the mount): one message whichever
 * the reason, and what still works.
 */
static int readonly_error(struct mdb_db *db, const struct stat *st,
			  struct mdb_error *e)
{
	char *why = why_readonly(db->path, st->st_mode, "file");

	if (!why)
		why = dir_readonly(db->path);
	if (!why)
		return 0;
	mdb_error_set(e, MDB_E_DB, db->path, -1, -1, "%s", why);
	mdb_error_msg(e, "the database is read-only");
	mdb_error_hint(e, "reports, memdb sql and memdb sources read it; "
			  "ingest, symbolize and sources --delete cannot "
			  "write it");
	free(why);
	return -MDB_E_DB;
}

int mdb_db_can_create(const char *path, struct mdb_error *e)
{
	char *why = dir_readonly(path);

	if (!why)
		return 0;
	mdb_error_set(e, MDB_E_DB, path, -1, -1, "%s", why);
	mdb_error_msg(e, "cannot create the database");
	free(why);
	return -MDB_E_DB;
}

/* "file:PATH?immutable=1" with PATH percent-encoded where URIs need it */
static char *immutable_uri(const char *path)
{
	size_t n = strlen(path);
	char *u = malloc(n * 3 + 32), *o = u;

	if (!u)
		return NULL;
	o += sprintf(o, "file:%s", path[0] == '/' ? "//" : "");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p == '%' || *p == '?' || *p == '#' || *p <= 0x20 ||
		    *p >= 0x7f)
			o += sprintf(o, "%%%02X", *p);
		else
			*o++ = (char)*p;
	strcpy(o, "?immutable=1");
	return u;
}

/*
 * A WAL database in a place we cannot write (no -shm can be made) cannot
 * be opened the usual way.  With no -wal and no -shm, every committed
 * page is in the file itself and nobody can be writing it (a writer
 * would have made them): open it immutable, which needs neither.
 */
static int reopen_immutable(struct mdb_db *db, int oflags,
			    struct mdb_error *e)
{
	char *uri;
	int rc;

	if (exists(db->path, "-wal") || exists(db->path, "-shm")) {
		mdb_db_error(db, e, "cannot read the database");
		mdb_error_hint(e, "its -wal file holds changes a read-only "
				  "open cannot apply: open it once where it "
				  "can be written (any memdb ingest)");
		return -MDB_E_DB;
	}
	uri = immutable_uri(db->path);
	if (!uri)
		return mdb_error_set(e, MDB_E_NOMEM, db->path, -1, -1, NULL);
	sqlite3_close(db->h);
	db->h = NULL;
	rc = sqlite3_open_v2(uri, &db->h, oflags | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc == SQLITE_OK)
		rc = mdb_allocvt_register(db->h);
	if (rc != SQLITE_OK)
		return mdb_db_error(db, e, "cannot open database");
	return 0;
}

/* Is @name a pragma that only reads (with an argument: names a table)? */
static int pragma_reads(const char *name, const char *arg)
{
	static const char *const plain[] = {
		"user_version", "schema_version", "application_id",
		"page_size", "page_count", "freelist_count", "encoding",
		"journal_mode", "data_version", "compile_options",
		"database_list", "collation_list", "function_list",
		"module_list", "pragma_list", NULL,
	};
	static const char *const with_arg[] = {
		"table_info", "table_xinfo", "table_list", "index_info",
		"index_xinfo", "index_list", "foreign_key_list",
		"foreign_key_check", "integrity_check", "quick_check", NULL,
	};

	for (const char *const *p = with_arg; *p; p++)
		if (!strcmp(name, *p))
			return 1;
	for (const char *const *p = plain; !arg && *p; p++)
		if (!strcmp(name, *p))
			return 1;
	return 0;
}

/*
 * The authorizer of read-only connections: reading anything, and temp
 * objects (the reports' scratch tables); no writes to the database, no
 * ATTACH (VACUUM INTO and ATTACH would create files), no extensions, no
 * fts3_tokenizer(), no pragma that changes anything.
 */
static int authorize(void *ctx, int action, const char *a3, const char *a4,
		     const char *dbname, const char *trigger)
{
	int temp = dbname && !strcmp(dbname, "temp");

	(void)ctx;
	(void)trigger;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
	case SQLITE_TRANSACTION:
	case SQLITE_SAVEPOINT:
	case SQLITE_CREATE_TEMP_INDEX:
	case SQLITE_CREATE_TEMP_TABLE:
	case SQLITE_CREATE_TEMP_TRIGGER:
	case SQLITE_CREATE_TEMP_VIEW:
	case SQLITE_DROP_TEMP_INDEX:
	case SQLITE_DROP_TEMP_TABLE:
	case SQLITE_DROP_TEMP_TRIGGER:
	case SQLITE_DROP_TEMP_VIEW:
		return SQLITE_OK;
	case SQLITE_FUNCTION:
		/* fts3_tokenizer() returns (one argument) and takes (two) a
		 * pointer into the library: not for SQL from the command line */
		return a4 && (!strcasecmp(a4, "load_extension") ||
			      !strcasecmp(a4, "fts3_tokenizer")) ?
			       SQLITE_DENY : SQLITE_OK;
	case SQLITE_UPDATE:
		/* table-valued pragmas (pragma_table_info()) ask for this
		 * when they set up; the file is open read-only anyway */
		if (a3 && !strcmp(a3, "sqlite_master"))
			return SQLITE_OK;
		/* fall through */
	case SQLITE_INSERT:
	case SQLITE_DELETE:
		return temp || (a3 && !strcmp(a3, "sqlite_temp_master")) ?
			       SQLITE_OK : SQLITE_DENY;
	case SQLITE_PRAGMA:
		return a3 && pragma_reads(a3, a4) ? SQLITE_OK : SQLITE_DENY;
	default: /* ATTACH, DETACH, ANALYZE, ALTER, CREATE/DROP, VTABLE... */
		return SQLITE_DENY;
	}
}

/* SQLite's defensive settings, for connections that only read. */
static void lock_down(struct mdb_db *db)
{
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0,
			  NULL);
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0,
			  NULL);
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_ENABLE_VIEW, 1, NULL);
	sqlite3_limit(db->h, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_set_authorizer(db->h, authorize, NULL);
}

/* Read-only: check the schema version, falling back to an immutable
 * open where the place cannot be written. */
static int open_readonly(struct mdb_db *db, int oflags, struct mdb_error *e)
{
	char *dir_why = dir_readonly(db->path);
	int v = 0, ret = 0, immutable;

	lock_down(db);
	/* a directory nothing may be written to (root could still make a
	 * -shm there): immutable at once, when no -wal or -shm is there */
	immutable = dir_why && !exists(db->path, "-wal") &&
		    !exists(db->path, "-shm");
	free(dir_why);
	if (!immutable) {
		int rc;

		ret = mdb_db_user_version(db, &v, e);
		rc = sqlite3_extended_errcode(db->h) & 0xff;
		immutable = ret < 0 && (rc == SQLITE_READONLY ||
					rc == SQLITE_CANTOPEN);
	}
	if (immutable) {
		ret = reopen_immutable(db, oflags, e);
		if (ret < 0)
			return ret;
		sqlite3_busy_handler(db->h, busy_wait, db);
		sqlite3_extended_result_codes(db->h, 1);
		lock_down(db);
		ret = mdb_db_user_version(db, &v, e);
	}
	if (ret < 0)
		return ret;
	if (v == MDB_SCHEMA_VERSION)
		return 0;
	ret = mdb_error_set(e, MDB_E_SCHEMA, db->path, -1, -1,
			    "user_version=%d supported=%d", v,
			    MDB_SCHEMA_VERSION);
	mdb_error_msg(e, v ? "unsupported database schema" :
			     "not a memdb database");
	if (v && v < MDB_SCHEMA_VERSION)
		mdb_error_hint(e, "any 'memdb ingest' into it migrates it");
	return ret;
}

/*
 * Another memdb is filling this new database (rollback-journal mode, its
 * write lock held): wait until it is done before opening, rather than
 * open and then wait holding a read lock, which the other's switch to
 * WAL at its end would have to wait for in turn.
 */
static void wait_for_creator(struct mdb_db *db)
{
	int64_t start = now_ms();
	struct timespec nap = { 0, 50 * 1000000L };

	while (rollback_mode(db->path) && writer_holds(db->path) &&
	       now_ms() - start < BUSY_TIMEOUT_MS) {
		if (now_ms() - start >= WAIT_NOTICE_MS && !db->wait_told) {
			db->wait_told = 1;
			if (wait_hook)
				wait_hook(db->path, 0);
		}
		nanosleep(&nap, NULL);
	}
}

/* Write the new-database image to @fd: zeros but for its runs. */
static int write_image(int fd)
{
	unsigned char *img = calloc(1, FRESH_DB_SIZE);
	const unsigned char *p = fresh_db_data;
	size_t done = 0;

	if (!img)
		return -1;
	for (size_t i = 0; i < sizeof(fresh_db_runs) / sizeof(*fresh_db_runs);
	     i++) {
		memcpy(img + fresh_db_runs[i].off, p, fresh_db_runs[i].len);
		p += fresh_db_runs[i].len;
	}
	while (done < FRESH_DB_SIZE) {
		ssize_t n = write(fd, img + done, FRESH_DB_SIZE - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	free(img);
	return done == FRESH_DB_SIZE ? 0 : -1;
}

/*
 * A new database starts as the file SQLite made of fresh_sql[] at build
 * time (fresh_db.inc, tools/mkfresh.c): written in @path's directory
 * under no name (O_TMPFILE), synced, then given @path, which fails if
 * something is there by then.  So no other process ever sees it half
 * written, and there is no schema to create in a transaction of its own
 * (a first ingest saves that transaction; SQLite reads the schema either
 * way).  The zeros are written too: a file with holes where the tables'
 * first pages are made the first COMMIT slower than the schema's own
 * transaction was.
 * 1 when made; 0 when it could not be done (no O_TMPFILE on this file
 * system, no /proc, a dangling symbolic link at @path) or a file is at
 * @path by then: the caller goes on as before there was an image, SQLite
 * opens the file, making it if need be, and fresh_sql[] is run on it if
 * it has no schema yet.  (Two first ingests racing into one path were
 * and are both opened as new: both switch to WAL when closing, best
 * effort, and neither removes a file a source went into; test_concurrency
 * runs two.)
 */
static int from_image(const char *path)
{
	char *dir = strdup(path), *fdpath = NULL;
	int fd, ok = 0, there = 0;

	if (!dir)
		return 0;
	fd = open(dirname(dir), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	free(dir);
	if (fd < 0)
		return 0;
	if (write_image(fd) == 0 && fdatasync(fd) == 0 &&
	    asprintf(&fdpath, "/proc/self/fd/%d", fd) >= 0) {
		ok = linkat(AT_FDCWD, fdpath, AT_FDCWD, path,
			    AT_SYMLINK_FOLLOW) == 0;
		there = !ok && errno == EEXIST;
		free(fdpath);
	}
	close(fd);
	return ok ? 1 : there ? -1 : 0;
}

/* The file at @path, before opening: missing (db->created, made from
 * the image when possible, unless its directory is read-only), empty
 * (db->fresh), being created by another memdb (an error), or, to write
 * it, read-only (an error). */
static int check_file(struct mdb_db *db, unsigned flags, struct mdb_error *e)
{
	struct stat st;
	int ret;

	if (stat(db->path, &st) < 0) {
		if (errno != ENOENT || (flags & MDB_DB_EXISTING)) {
			ret = mdb_error_set(e, errno == ENOENT ?
					    MDB_E_NOTFOUND : MDB_E_IO,
					    db->path, -1, -1, "%s",
					    strerror(errno));
			mdb_error_msg(e, "cannot open database");
			if (errno == ENOENT)
				mdb_error_hint(e, "create it with 'memdb "
						  "ingest -d %s PATH'",
					       db->path);
			return ret;
		}
		ret = mdb_db_can_create(db->path, e);
		if (ret < 0)
			return ret;
		db->fresh = db->created = 1;
		if (!db->readonly)
			db->imaged = from_image(db->path);
		if (db->imaged >= 0)
			return 0;
		/* another memdb made it meanwhile: open it as theirs */
		db->imaged = db->fresh = db->created = 0;
		if (stat(db->path, &st) < 0)
			return mdb_error_set(e, MDB_E_IO, db->path, -1, -1,
					     "%s", strerror(errno));
	}
	if (!S_ISREG(st.st_mode)) {
		mdb_error_set(e, MDB_E_IO, db->path, -1, -1, "%s",
			      S_ISDIR(st.st_mode) ? strerror(EISDIR) :
			      "not a regular file");
		mdb_error_msg(e, "cannot open database");
		return -MDB_E_IO;
	}
	if (db->readonly) {
		db->fresh = rollback_mode(db->path);
		return being_created(db, e);
	}
	ret = readonly_error(db, &st, e);
	if (ret < 0)
		return ret;
	if (st.st_size == 0)
		db->fresh = 1;
	else
		wait_for_creator(db);
	return 0;
}

int mdb_db_open(struct mdb_db *db, const char *path, unsigned flags,
		struct mdb_error *e)
{
	struct stat st;
	int ret, oflags;

	memset(db, 0, sizeof(*db));
	db->path = strdup(path);
	if (!db->path)
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	db->readonly = !!(flags & MDB_DB_READONLY);
	if (db->readonly)
		flags |= MDB_DB_EXISTING;
	ret = check_file(db, flags, e);
	if (ret < 0)
		goto fail;
	/*
	 * One connection is never used by two threads at once, so SQLite's
	 * per-connection mutex is pure overhead on the insert path; so is
	 * its memory accounting.  (sqlite3_config fails harmlessly once the
	 * library is initialised.)
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	oflags = (db->readonly ? SQLITE_OPEN_READONLY :
		  SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
		 SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &db->h, oflags, NULL) != SQLITE_OK ||
	    mdb_allocvt_register(db->h) != SQLITE_OK) {
		ret = mdb_db_error(db, e, "cannot open database");
		goto fail;
	}
	sqlite3_busy_handler(db->h, busy_wait, db);
	sqlite3_extended_result_codes(db->h, 1);
	if (db->readonly) {
		ret = open_readonly(db, oflags, e);
		if (ret < 0)
			goto fail;
		return 0;
	}
	if (stat(path, &st) == 0) {
		db->dev = st.st_dev;
		db->ino = st.st_ino;
	}
	/*
	 * A database already in WAL mode needs no exclusive lock to say so.
	 * A new one gets 64 KB pages, SQLite's largest (its default is
	 * 4 KB): fewer pages, page writes and B-tree balancing for the same
	 * rows, so a bulk insert is faster, and a block of alloc_blk (10 to
	 * 40 KB) fits in one page; the page size is the file's for good.
	 */
	ret = db->fresh || rollback_mode(path) ?
	      mdb_db_exec(db, db->fresh ? "PRAGMA page_size = 65536;"
					  "PRAGMA journal_mode = DELETE" :
				  "PRAGMA journal_mode = WAL", e) : 0;
	/*
	 * A database another memdb is filling as its first source is still
	 * in rollback mode, and the switch to WAL needs it alone: SQLite says
	 * "locked" at once, not after its busy handler.  Go on in rollback
	 * mode (its transactions wait for the lock); its maker switches it
	 * when it closes.
	 */
	if (ret < 0 && !db->fresh &&
	    (sqlite3_errcode(db->h) & 0xff) == SQLITE_BUSY)
		ret = 0;
	if (ret < 0)
		goto fail;
	/*
	 * A small page cache (2 MB): an ingest appends, so SQLite writes
	 * full pages out as it goes (the kernel flushing them meanwhile)
	 * instead of all at COMMIT, whose fsync then has less to wait for.
	 */
	ret = mdb_db_exec(db, "PRAGMA synchronous = NORMAL;"
			      "PRAGMA cache_size = -2048;"
			      "PRAGMA temp_store = MEMORY", e);
	if (ret < 0)
		goto fail;
	ret = mdb_db_migrate(db, e);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	sqlite3_close(db->h);
	free(db->path);
	memset(db, 0, sizeof(*db));
	return ret;
}

int mdb_db_close(struct mdb_db *db, struct mdb_error *e)
{
	int ret = 0;

	if (!db->h)
		goto out;
	/* best effort: the data is committed whatever the journal mode, and
	 * a reader that arrived meanwhile may hold the file */
	if (db->fresh && !db->readonly)
		mdb_db_exec(db, "PRAGMA journal_mode = WAL", NULL);
	if (sqlite3_close(db->h) != SQLITE_OK && !ret)
		ret = mdb_db_error(db, e, "cannot close database");
out:
	free(db->path);
	memset(db, 0, sizeof(*db));
	return ret;
}

int mdb_db_same_file(struct mdb_db *db)
{
	struct stat st;

	return db->readonly || (stat(db->path, &st) == 0 &&
				st.st_dev == db->dev && st.st_ino == db->ino);
}

/* The files SQLite keeps next to a database in either journal mode. */
static void unlink_db(const char *path)
{
	static const char *const sfx[] = { "-journal", "-wal", "-shm" };

	unlink(path);
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		char *p;

		if (asprintf(&p, "%s%s", path, sfx[i]) >= 0) {
			unlink(p);
			free(p);
		}
	}
}

int mdb_db_close_or_remove(struct mdb_db *db, int *removed,
			   struct mdb_error *e)
{
	int64_t n = -1;

	*removed = 0;
	if (!db->h || !db->created || db->readonly)
		return mdb_db_close(db, e);
	/* under the write lock, so no other memdb is filling it */
	if (mdb_db_exec(db, "BEGIN IMMEDIATE", NULL) < 0)
		return mdb_db_close(db, e);
	if (mdb_db_int_query(db, "SELECT count(*) FROM source", 0, &n,
			     NULL) > 0 && n == 0 && mdb_db_same_file(db)) {
		unlink_db(db->path);
		*removed = 1;
	}
	mdb_db_exec(db, "ROLLBACK", NULL);
	if (*removed)
		db->fresh = 0; /* nothing to switch to WAL */
	return mdb_db_close(db, e);
}

int mdb_db_int_query(struct mdb_db *db, const char *sql, int64_t arg,
		     int64_t *out, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return mdb_db_error(db, e, "cannot query the database");
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_int64(st, 1, arg);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return mdb_db_error(db, e, "cannot query the database");
	return rc == SQLITE_ROW;
}

int mdb_db_latest_source(struct mdb_db *db, int64_t *id, struct mdb_error *e)
{
	int ret;

	*id = 0;
	ret = mdb_db_int_query(db, "SELECT max(id) FROM source", 0, id, e);
	return ret < 0 ? ret : 0;
}

int mdb_db_source_exists(struct mdb_db *db, int64_t id, struct mdb_error *e)
{
	int64_t one = 0;

	return mdb_db_int_query(db, "SELECT 1 FROM source WHERE id = ?1", id,
				&one, e);
}

/*
 * Every table holding rows of a source, in the order they are deleted
 * (db.h): a table after those whose rowid ranges it holds.  A
 * new per-source table is a row here, or merge and delete miss it
 * (tests/test_merge.c checks every table with a source_id column is).
 */
static const struct mdb_source_table source_tables[] = {
	{ "alloc_blk", "source", "alloc_lo", "alloc_hi" },
	{ "bad_free_blk", "source", "bad_lo", "bad_hi" },
	{ "site", NULL, NULL, NULL },
	{ "str", NULL, NULL, NULL },
	{ "site_stats", NULL, NULL, NULL },
	{ "cache_stats", NULL, NULL, NULL },
	{ "pingpong_stats", NULL, NULL, NULL },
	{ "node_stats", NULL, NULL, NULL },
	{ "anomaly", NULL, NULL, NULL },
	{ "timeline", NULL, NULL, NULL },
	{ "symbol", NULL, NULL, NULL },
	{ "source_file", NULL, NULL, NULL },
	{ "zone", NULL, NULL, NULL },
	{ "zone_cpu", NULL, NULL, NULL },
	{ "tag", NULL, NULL, NULL },
	{ "buddy", NULL, NULL, NULL },
	{ "kcounter", NULL, NULL, NULL },
	{ "stack", NULL, NULL, NULL },
	{ "stack_frame", NULL, NULL, NULL },
};

const struct mdb_source_table *mdb_source_tables(size_t *n)
{
	*n = sizeof(source_tables) / sizeof(source_tables[0]);
	return source_tables;
}

/* Run @sql with ?1 bound to @id. */
static int exec_id(struct mdb_db *db, const char *sql, int64_t id,
		   struct mdb_error *e)
{
	return mdb_sql_exec_id(db, sql, id, NULL, "cannot delete source", e);
}

int mdb_db_delete_rows(struct mdb_db *db, int64_t id, struct mdb_error *e)
{
	size_t n;
	const struct mdb_source_table *t = mdb_source_tables(&n);
	char sql[512];
	int ret = 0;

	for (size_t i = 0; i < n && ret == 0; i++) {
		const char *key = t[i].owner && !strcmp(t[i].owner, "source") ?
				  "id" : "source_id";

		if (t[i].owner)
			snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE rowid "
				 "BETWEEN (SELECT %s FROM %s WHERE %s = ?1) "
				 "AND (SELECT %s FROM %s WHERE %s = ?1)",
				 t[i].name, t[i].lo, t[i].owner, key, t[i].hi,
				 t[i].owner, key);
		else
			snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE "
				 "source_id = ?1", t[i].name);
		ret = exec_id(db, sql, id, e);
	}
	return ret ? ret : exec_id(db, "DELETE FROM source WHERE id = ?1", id,
				   e);
}

int mdb_db_delete_source(struct mdb_db *db, int64_t id, struct mdb_error *e)
{
	int ret = mdb_db_exec(db, "BEGIN IMMEDIATE", e);

	if (ret < 0)
		return ret;
	ret = mdb_db_source_exists(db, id, e);
	if (ret == 0) {
		mdb_error_set(e, MDB_E_NOTFOUND, db->path, -1, -1, "id=%lld",
			      (long long)id);
		mdb_error_msg(e, "no such source");
		ret = -MDB_E_NOTFOUND;
	}
	if (ret > 0)
		ret = mdb_db_delete_rows(db, id, e);
	if (ret < 0) {
		mdb_db_exec(db, "ROLLBACK", NULL);
		return ret;
	}
	return mdb_db_exec(db, "COMMIT", e);
}

int mdb_db_source_file(struct mdb_db *db, int64_t id, const char *name,
		       void **data, size_t *len, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc, ret = 0;

	*data = NULL;
	*len = 0;
	rc = mdb_sql_prepare_id(db, "SELECT data FROM source_file WHERE "
				"source_id = ?1 AND name = ?2", id, name, &st,
				"cannot read source files", e);
	if (rc)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const void *p = sqlite3_column_blob(st, 0);
		size_t n = (size_t)sqlite3_column_bytes(st, 0);

		/* one spare byte: text parsers may want a NUL */
		*data = malloc(n + 1);
		if (!*data) {
			ret = mdb_error_set(e, MDB_E_NOMEM, db->path, -1, -1,
					    NULL);
		} else {
			if (n)
				memcpy(*data, p, n);
			((char *)*data)[n] = '\0';
			*len = n;
			ret = 1;
		}
	} else if (rc != SQLITE_DONE) {
		ret = mdb_db_error(db, e, "cannot read source files");
	}
	sqlite3_finalize(st);
	return ret;
}
