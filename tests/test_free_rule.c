// SPDX-License-Identifier: MIT
/*
 * Which frees are errors (docs/design.md §4.3; issue 11), end to end
 * through the binary:
 *   - every real capture (the 6.18 trace, perf script and tracefs text,
 *     the kmemtrace relay conversion, perf.data files, a tracefs copy):
 *     memdb check is clean (the lossy perf.data only says it lost
 *     events), report errors has no row with error 1, and the free
 *     classes equal those of tests/free_classes.awk, an independent
 *     replay of the text (of the same events, for the binary forms);
 *   - a planted double free (a traced allocation freed twice) is an error
 *     in a kmemtrace relay capture, and a suspect when the capture says
 *     it comes from a kernel with untraced allocation paths (a
 *     kernel-release of 4.2 or later) or is ftrace text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../db/db.h"
#include "testlib.h"

static char *tmp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("free-rule");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

/* Output of a shell command line that must succeed. */
static char *out_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *out_of(const char *fmt, ...)
{
	struct run r;
	char *cmd, *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	assert_true(n >= 0);
	run(&r, "%s", cmd);
	assert_run_ok(&r);
	s = strdup(r.out);
	assert_non_null(s);
	run_free(&r);
	free(cmd);
	return s;
}

/* Field @n (1-based) of the CSV line starting with "@key,"; 0 if none. */
static long long csv_num(const char *csv, const char *key, int n)
{
	size_t kl = strlen(key);

	for (const char *p = csv; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (strncmp(p, key, kl) || p[kl] != ',')
			continue;
		for (int i = 1; i < n && p; i++) {
			p = strchr(p, ',');
			p = p ? p + 1 : p;
		}
		assert_non_null(p);
		return strtoll(p, NULL, 10);
	}
	return 0;
}

/* Fail when a row of the errors report (CSV) has error 1 (but for
 * lost_events when @lossy). */
static void assert_no_error_row(const char *csv, const char *what,
				int lossy)
{
	for (const char *p = strchr(csv, '\n'); p && p[1];
	     p = strchr(p + 1, '\n')) {
		const char *f = p + 1;

		for (int i = 1; i < 3 && f; i++) {
			f = strchr(f, ',');
			f = f ? f + 1 : f;
		}
		if (lossy && !strncmp(p + 1, "lost_events,", 12))
			continue;
		if (f && !strncmp(f, "1,", 2))
			fail_msg("%s: error row: %.80s", what, p + 1);
	}
}

static const char *const classes[] = {
	"null_free", "unknown_free", "duplicate_free",
	"duplicate_free_suspect",
};

/*
 * memdb on @path (check, then ingest and report errors) against the awk
 * replay of @text (with all_traced @strict): clean, no error row, the
 * same count per free class.  A @lossy capture lost events: check says
 * so, and nothing else.
 */
static void compare(const char *path, const char *text, int strict,
		    int lossy)
{
	char *db = fresh_db(tmp, "real.db"), *csv, *awk;
	struct run r;

	run(&r, "'%s' check -q '%s'", env("MEMDB"), path);
	if (lossy ? r.status != 3 || !strstr(r.out, "NOT CLEAN: ") ||
		    strchr(strstr(r.out, "NOT CLEAN: "), ',') ||
		    !strstr(r.out, "events lost") : r.status != 0)
		fail_run(&r, "%s: check: %s", path, r.out);
	run_free(&r);
	ingest_ok(db, "'%s'", path);
	csv = out_of("'%s' report errors -d '%s' --format csv --top 0",
		     env("MEMDB"), db);
	assert_no_error_row(csv, path, lossy);
	awk = out_of("awk -v all_traced=%d -f '%s/free_classes.awk' '%s'",
		     strict, env("TESTS_DIR"), text);
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		char key[64];
		long long want = -1;
		const char *p = strstr(awk, classes[i]);

		while (p && p[strlen(classes[i])] != ' ')
			p = strstr(p + 1, classes[i]);
		assert_non_null(p);
		want = strtoll(p + strlen(classes[i]) + 1, NULL, 10);
		snprintf(key, sizeof(key), "%s,slab", classes[i]);
		if (csv_num(csv, key, 4) != want)
			fail_msg("%s: %s: memdb %lld, awk %lld", path,
				 classes[i], csv_num(csv, key, 4), want);
	}
	free(awk);
	free(csv);
	free(db);
}

/* Decompress @td_rel (under $TESTDATA) into @dir/@name; the path. */
static char *unpack(const char *td_rel, const char *name)
{
	char *to = path_in(tmp, name);

	free(out_of("zstd -dqf '%s/%s' -o '%s'", env("TESTDATA"), td_rel,
		    to));
	return to;
}

static void test_real_captures(void **state)
{
	static const char *const texts[] = {
		"real-6.18-small/ftrace.txt.zst",
		"real-6.18-small/ftrace-hashed.txt.zst",
		"real-6.18-perf/perf-mixed.txt.zst",
		"real-6.18-perf/perf-fs.txt.zst",
		"real-6.18-tracefs/trace.txt.zst",
	};
	char *ft = NULL, *kt = path_in(tmp, "kt");

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char name[32], *t;

		snprintf(name, sizeof(name), "text%zu.txt", i);
		t = unpack(texts[i], name);
		compare(t, t, 0, 0);
		if (!ft)
			ft = t;
		else
			free(t);
	}
	/* the relay conversion of the same events as ftrace.txt: a
	 * kmemtrace-era format without a kernel-release, judged strictly */
	free(out_of("mkdir -p '%s' && cp '%s/real-6.18-small/kmemtrace-v1-le/"
		    "abi_version' '%s/'", kt, env("TESTDATA"), kt));
	free(unpack("real-6.18-small/kmemtrace-v1-le/cpu0.out.zst",
		    "kt/cpu0.out"));
	free(unpack("real-6.18-small/kmemtrace-v1-le/cpu1.out.zst",
		    "kt/cpu1.out"));
	compare(kt, ft, 1, 0);
	free(ft);
	free(kt);
}

/*
 * perf.data files (their perf script text replayed) and a tracefs copy
 * (the trace text of the same ring buffer replayed).
 */
static void test_real_binary(void **state)
{
	static const char *const perf[] = {
		"cg", "lossy", "page", "pipe", "slab", "zrec",
	};
	char *dir = path_in(env("TESTDATA"), "real-tracefs"), *t;

	(void)state;
	for (size_t i = 0; i < sizeof(perf) / sizeof(perf[0]); i++) {
		char rel[64], name[32], *data, *text;

		snprintf(rel, sizeof(rel), "real-perf/%s.data.zst", perf[i]);
		snprintf(name, sizeof(name), "%s.data", perf[i]);
		data = unpack(rel, name);
		snprintf(rel, sizeof(rel), "real-perf/%s.script.zst", perf[i]);
		snprintf(name, sizeof(name), "%s.script", perf[i]);
		text = unpack(rel, name);
		compare(data, text, 0, !strcmp(perf[i], "lossy"));
		free(data);
		free(text);
	}
	t = unpack("real-tracefs/trace.txt.zst", "tracefs.txt");
	compare(dir, t, 0, 0);
	free(t);
	free(dir);
}

#define PLANT "--seed 3 --events 20000 --cpus 2 --live 300 --dup-frees 5 " \
	      "--unknown-frees 4"

/* errors CSV of @path ingested into a fresh database */
static char *errors_of(const char *path, const char *dbname)
{
	char *db = fresh_db(tmp, dbname), *csv;

	ingest_ok(db, "'%s'", path);
	csv = out_of("'%s' report errors -d '%s' --format csv --top 0",
		     env("MEMDB"), db);
	free(db);
	return csv;
}

static void test_planted_double_free(void **state)
{
	char *cap = path_in(tmp, "plant"), *text = path_in(tmp, "plant.txt");
	char *csv;
	struct run r;

	(void)state;
	free(out_of("rm -rf '%s' && '%s' " PLANT " '%s' && '%s' " PLANT
		    " --format ftrace-text '%s'", cap, env("KTGEN"), cap,
		    env("KTGEN"), text));

	/* kmemtrace relay: every allocation path traced, an error */
	run(&r, "'%s' check '%s'", env("MEMDB"), cap);
	assert_run_status(&r, 3);
	assert_non_null(strstr(r.out, "NOT CLEAN: 5 duplicate frees"));
	run_free(&r);
	csv = errors_of(cap, "plant-relay.db");
	assert_non_null(strstr(csv, "\nduplicate_free,slab,1,5,"));
	assert_null(strstr(csv, "\nduplicate_free_suspect,"));
	assert_int_equal(csv_num(csv, "unknown_free,slab", 4), 4);
	assert_int_equal(csv_num(csv, "total", 4), 5);
	free(csv);

	/* the same text from ftrace: untraced paths exist, a suspect */
	run(&r, "'%s' check '%s'", env("MEMDB"), text);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "0 duplicate, 5 suspect duplicate"));
	run_free(&r);
	csv = errors_of(text, "plant-text.db");
	assert_non_null(strstr(csv, "\nduplicate_free_suspect,slab,0,5,"));
	assert_null(strstr(csv, "\nduplicate_free,"));
	assert_int_equal(csv_num(csv, "total", 4), 0);
	free(csv);

	/* relay converted from a 6.18 kernel, which says so: a suspect */
	free(out_of("echo 6.18.0 > '%s/kernel-release'", cap));
	run(&r, "'%s' check '%s'", env("MEMDB"), cap);
	assert_run_ok(&r);
	run_free(&r);
	csv = errors_of(cap, "plant-618.db");
	assert_non_null(strstr(csv, "\nduplicate_free_suspect,slab,0,5,"));
	assert_null(strstr(csv, "\nduplicate_free,"));
	free(csv);
	/* from a 2.6.30 kernel: an error again */
	free(out_of("echo 2.6.30 > '%s/kernel-release'", cap));
	csv = errors_of(cap, "plant-2630.db");
	assert_non_null(strstr(csv, "\nduplicate_free,slab,1,5,"));
	free(csv);
	free(text);
	free(cap);
}

/* Every block's zone maps, in order: alloc_blk's, then bad_free_blk's. */
#define ZONES "SELECT group_concat(z, ' ') FROM (SELECT min_ts || ',' || " \
	      "max_ts || ',' || min_seq || ',' || max_seq AS z FROM " \
	      "alloc_blk UNION ALL SELECT min_ts || ',' || max_ts || ',' || " \
	      "min_seq || ',' || max_seq FROM bad_free_blk)"

/*
 * A schema 1 database (before the suspect class) is migrated by an
 * ingest: the class and its note appear, rows keep their class.
 */
static void test_migration(void **state)
{
	char *db = fresh_db(tmp, "v1.db"), *text = path_in(tmp, "plant.txt");
	char *zones, *now_zones;
	struct run r;

	(void)state;
	run(&r, "test -f '%s' || '%s' " PLANT " --format ftrace-text '%s'",
	    text, env("KTGEN"), text);
	assert_run_ok(&r);
	run_free(&r);
	ingest_ok(db, "'%s'", text);
	now_zones = db_text(db, ZONES);
	db_as_schema10(db);
	/* back to schema 1: version 2's classes, version 3's tasks and
	 * stacks (db/schema-3.sql), version 4's dump tables, versions
	 * 5 to 8's slicing index and version 10's source columns removed */
	run(&r, "sqlite3 '%s' \"DELETE FROM free_class WHERE id = 4; "
		"DROP TABLE slice_meta; DROP TABLE slice_block; "
		"DROP TABLE slice_bucket; DROP TABLE slice_key; "
		"DROP TABLE slice_pid; DROP TABLE slice_pp; "
		"DROP TABLE slice_stack; DROP TABLE slice_bucket_comm; "
		"DROP TABLE slice_ptr; DROP TABLE slice_bucket_pid; "
		"DROP TABLE slice_pp_pid; DROP TABLE slice_col; "
		"DROP VIEW v_zones; "
		"DROP VIEW v_snapshots; DROP TABLE buddy; "
		"DROP TABLE kcounter; ALTER TABLE zone DROP COLUMN object_size; "
		"ALTER TABLE zone DROP COLUMN allocated; "
		"ALTER TABLE zone DROP COLUMN total; "
		"ALTER TABLE zone DROP COLUMN slabs; "
		"ALTER TABLE zone DROP COLUMN incomplete; "
		"ALTER TABLE zone DROP COLUMN refcount; "
		"DELETE FROM anomaly_class WHERE id = 10; "
		"DROP VIEW v_stacks; DROP TABLE stack; DROP TABLE stack_frame; "
		"DROP TABLE migratetype; ALTER TABLE alloc DROP COLUMN pid; "
		"ALTER TABLE alloc DROP COLUMN comm_id; "
		"ALTER TABLE alloc DROP COLUMN migratetype; "
		"ALTER TABLE alloc DROP COLUMN stack_id; "
		"ALTER TABLE bad_free DROP COLUMN pid; "
		"ALTER TABLE bad_free DROP COLUMN comm_id; "
		"ALTER TABLE bad_free DROP COLUMN bytes; "
		"ALTER TABLE source DROP COLUMN cpu_node; "
		"ALTER TABLE source DROP COLUMN perf_frees; "
		"ALTER TABLE source DROP COLUMN perf_freed_bytes; "
		"ALTER TABLE source DROP COLUMN perf_pingpong; "
		"PRAGMA user_version = 1\"", db);
	assert_run_ok(&r);
	run_free(&r);
	assert_int_equal(db_int(db, "PRAGMA user_version"), 1);
	/* reports refuse an old schema; any ingest migrates it (this one
	 * finds its data already present) */
	run_memdb(&r, db, "ingest -q '%s'", text);
	assert_run_ok(&r);
	run_free(&r);
	run_memdb(&r, db, "report errors --format csv");
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "\nduplicate_free_suspect,slab,0,5,"));
	run_free(&r);
	assert_int_equal(db_int(db, "PRAGMA user_version"),
			 MDB_SCHEMA_VERSION);
	assert_int_equal(db_int(db, "SELECT count(*) FROM stack"), 0);
	/* the blocks of the source from before get the zone maps an
	 * ingest now writes (times, schema 12, and positions, schema 14,
	 * of the allocations and of the bad frees); the slicing tables are
	 * gone */
	zones = db_text(db, ZONES);
	assert_non_null(zones);
	assert_string_equal(zones, now_zones);
	free(zones);
	free(now_zones);
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master "
				    "WHERE name LIKE 'slice%'"), 0);
	run_memdb(&r, db, "report callsites --time , --format csv");
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "\ntotal,"));
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM v_bad_frees WHERE "
				    "class = 'duplicate_free_suspect'"), 5);
	free(text);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_captures),
		cmocka_unit_test(test_real_binary),
		cmocka_unit_test(test_planted_double_free),
		cmocka_unit_test(test_migration),
	};

	return cmocka_run_group_tests_name("which frees are errors", tests,
					   setup_all, teardown_all);
}
