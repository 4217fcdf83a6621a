// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the loader, from events to database rows.  The input
 * is a list of 8-byte events (below), written as one source into a
 * temporary database ($TMPDIR, removed at exit; no fsync: synchronous
 * off, journal in memory) through mdb_load_begin(), its sink and
 * mdb_load_commit() (or mdb_load_abort(), when the first byte has its
 * high bit set),
 * then the rows are checked against what went in: every ALLOC is one
 * alloc row, every FREE ends one or is one bad_free row, and the derived
 * tables and the source row agree with the rows.  A mismatch aborts.
 *
 * Event bytes: 0 flags (bit 0 FREE, bits 1-2 type % 3, bit 3 symbolic
 * call site, bit 4 cache name, bit 5 gfp text, bit 6 no timestamp),
 * 1 pointer (0 NULL, 1-3 below 4096, else one of 252 addresses),
 * 2 call site, 3 CPU (signed), 4-5 bytes requested, 6 bytes allocated
 * minus requested (signed), 7 node (signed) and cache name.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../db/db.h"
#include "../ingest/ingest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define EVENT_BYTES 8

static struct mdb_db db;
static char *db_path;

static void close_db(void)
{
	struct mdb_error e;
	char *journal;

	mdb_db_close(&db, &e);
	if (asprintf(&journal, "%s-journal", db_path) >= 0) {
		unlink(journal);
		free(journal);
	}
	unlink(db_path);
	free(db_path);
}

/* A failure that must not happen: say what, then abort. */
static void die(const char *what, const struct mdb_error *e)
{
	char buf[1400];

	mdb_error_format(e, buf, sizeof(buf));
	fprintf(stderr, "fuzz_load: %s: %s\n", what, buf);
	abort();
}

/* The temporary database, once per process. */
static void open_db(void)
{
	const char *dir = getenv("TMPDIR");
	struct mdb_error e = { 0 };
	int fd;

	if (asprintf(&db_path, "%s/memdb-fuzz-load-XXXXXX",
		     dir && *dir ? dir : "/tmp") < 0)
		abort();
	fd = mkstemp(db_path);
	if (fd < 0)
		abort();
	close(fd);
	if (mdb_db_open(&db, db_path, 0, &e) < 0)
		die("open", &e);
	atexit(close_db);
	if (mdb_db_exec(&db, "PRAGMA synchronous = OFF; "
			"PRAGMA journal_mode = MEMORY", &e) < 0)
		die("pragma", &e);
}

/* One scalar of @sql (?1 = @id, if used); aborts when the query fails. */
static int64_t q(const char *sql, int64_t id)
{
	sqlite3_stmt *st;
	int64_t v;

	if (sqlite3_prepare_v2(db.h, sql, -1, &st, NULL) != SQLITE_OK)
		abort();
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW)
		abort();
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Event @i of @p into @ev; @text holds its strings. */
static void make_event(const uint8_t *p, int64_t i, struct mdb_event *ev,
		       char text[3][32])
{
	static const char *const caches[] = { "kmalloc-64", "dentry",
					      "filp", "" };
	int64_t req = p[4] | p[5] << 8;

	mdb_event_init(ev);
	ev->seq = i;
	ev->ts = p[0] & 64 ? MDB_NO_TS : 1000 * i;
	ev->kind = p[0] & 1 ? MDB_EV_FREE : MDB_EV_ALLOC;
	ev->type = (uint8_t)((p[0] >> 1 & 3) % 3);
	ev->ptr = p[1] < 4 ? (uint64_t)p[1] * 16 :
		  UINT64_C(0xffff888100000000) + (uint64_t)p[1] * 64;
	ev->call_site = p[2] ? UINT64_C(0xffffffff81000000) + p[2] : 0;
	ev->cpu = (int8_t)p[3];
	ev->bytes_req = (uint64_t)req;
	ev->bytes_alloc = (uint64_t)(req + (int8_t)p[6] < 0 ? 0 :
				     req + (int8_t)p[6]);
	ev->node = (int8_t)p[7];
	ev->gfp = p[7] & 1 ? MDB_NO_GFP : p[7];
	if (p[0] & 8) {
		snprintf(text[0], 32, "f%u+0x%x/0x100", p[2] & 7, p[2]);
		ev->site_text = (struct mdb_str){ text[0], strlen(text[0]) };
	}
	if (p[0] & 16) {
		snprintf(text[1], 32, "%s", caches[p[7] & 3]);
		ev->cache = (struct mdb_str){ text[1], strlen(text[1]) };
	}
	if (p[0] & 32) {
		snprintf(text[2], 32, "GFP_KERNEL|0x%x", p[7]);
		ev->gfp_text = (struct mdb_str){ text[2], strlen(text[2]) };
	}
}

/* A property of the rows that must hold: say which failed, then abort. */
static void expect(int ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_load: the rows disagree with the events: %s\n",
		what);
	abort();
}

/* The rows of source @id against the @nalloc ALLOCs and @nfree FREEs. */
static void check_rows(int64_t id, const struct mdb_load_result *res,
		       int64_t nalloc, int64_t nfree)
{
	int64_t bad = q("SELECT count(*) FROM bad_free WHERE source_id = ?1",
			id);

	expect(q("SELECT count(*) FROM alloc WHERE source_id = ?1", id) ==
	       nalloc && (int64_t)res->allocations == nalloc,
	       "one alloc row per ALLOC");
	expect(q("SELECT count(*) FROM alloc WHERE source_id = ?1 AND "
		 "state = 1", id) + bad == nfree,
	       "each FREE ends an allocation or is a bad_free row");
	expect(bad == (int64_t)res->bad_frees, "bad_free rows counted");
	expect(q("SELECT coalesce(sum(hits), 0) FROM site_stats WHERE "
		 "source_id = ?1", id) == nalloc &&
	       q("SELECT coalesce(sum(hits), 0) FROM cache_stats WHERE "
		 "source_id = ?1", id) == nalloc &&
	       q("SELECT coalesce(sum(allocations), 0) FROM node_stats "
		 "WHERE source_id = ?1", id) == nalloc,
	       "site, cache and node figures add up to the allocations");
	expect(q("SELECT count(*) FROM alloc WHERE source_id = ?1 AND "
		 "state = 0", id) == (int64_t)res->live, "live at the end");
	/* every anomalous free is in the anomaly table by its class */
	expect(q("SELECT coalesce(sum(a.count), 0) FROM anomaly a JOIN "
		 "anomaly_class c ON c.id = a.class WHERE a.source_id = ?1 "
		 "AND c.name IN ('null_free', 'unknown_free', "
		 "'duplicate_free', 'duplicate_free_suspect')", id) == bad,
	       "anomalous frees in the anomaly table");
	expect(!q("SELECT count(*) FROM alloc a LEFT JOIN site s ON "
		  "s.source_id = a.source_id AND s.id = a.site_id WHERE "
		  "a.source_id = ?1 AND s.id IS NULL", id),
	       "every call site in the site table");
	expect(q("SELECT allocations + bad_frees FROM source WHERE id = ?1",
		 id) == (int64_t)(res->allocations + res->bad_frees),
	       "the source row's counts");
}

/* Feed every event; 0, or <0 when the loader failed. */
static int feed(struct mdb_load *l, const uint8_t *data, size_t n,
		int64_t *nalloc, int64_t *nfree)
{
	const struct mdb_sink *sink = mdb_load_sink(l);

	for (size_t i = 0; i < n; i++) {
		struct mdb_event ev;
		char text[3][32];

		make_event(data + i * EVENT_BYTES, (int64_t)i, &ev, text);
		*nalloc += ev.kind == MDB_EV_ALLOC;
		*nfree += ev.kind == MDB_EV_FREE;
		if (sink->event(sink->ctx, &ev) < 0)
			return -1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdb_source_meta m = { .format = "fuzz-events", .abi_version = -1,
				     .overruns = -1, .hash = "fuzz" };
	struct mdb_load_opts lo = { .force = 1 };
	struct mdb_decode_stats st = { 0 };
	struct mdb_load_result res;
	struct mdb_load *l;
	struct mdb_error e = { 0 };
	size_t n = size / EVENT_BYTES;
	int64_t nalloc = 0, nfree = 0, before;

	if (!db_path)
		open_db();
	if (n > 4096)
		return 0;
	before = q("SELECT count(*) FROM source", 0);
	if (mdb_load_begin(&db, "fuzz", &m, &lo, &l, &res, &e) != 0)
		die("begin", &e);
	if (feed(l, data, n, &nalloc, &nfree) < 0)
		die("events", &e);
	if (n && data[0] & 128) {
		/* given up: the database is as it was */
		mdb_load_abort(l);
		if (q("SELECT count(*) FROM source", 0) != before)
			abort();
		return 0;
	}
	st.records = st.events = n;
	st.first_seq = 0;
	st.last_seq = n ? (int64_t)n - 1 : 0;
	if (mdb_load_commit(l, &st, &res, &e) < 0)
		die("commit", &e);
	check_rows(res.source_id, &res, nalloc, nfree);
	return 0;
}
