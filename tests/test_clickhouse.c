// SPDX-License-Identifier: MIT
/*
 * The fleet on ClickHouse: two local clickhouse-server processes (Debian
 * 12's 18.16, installed by make deps) on 127.0.0.1, each with a config
 * written here, as the two shards of a cluster; the tables of memdb
 * export --print-ddl --cluster made on both, and the databases of five
 * hosts (allocinfo and real slabinfo snapshots scaled per host, slices
 * of the real 6.18 ftrace trace, a core dump) exported into the
 * Distributed tables of the first.  Every fleet form (queries/fleet/,
 * each --by, --label, dates, --sort) must print exactly what the SQLite
 * form prints with --label over a memdb merge of the same databases;
 * exporting again sends nothing, a source exported twice (two exports
 * racing) or cut short is read once or not at all; the tables are made
 * when missing; --allocations sends every allocation.  Without
 * clickhouse-server every test is skipped, saying so.
 *
 * The servers are this program's children, killed at the end (and by
 * the kernel if this program dies: PR_SET_PDEATHSIG); each wait for them
 * is bounded.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../db/clickhouse.h"
#include "../report/queries.h"
#include "testlib.h"

#define T0 1767225600 /* 2026-01-01T00:00:00Z */
#define START_WAIT_MS 20000

static const char *server_bin = "clickhouse-server";
static char *tmp, *fleet, *why_skip;
static pid_t pids[2];
static int http[2], tcp[2];
static char *url[2];   /* the database "fleet" on each server */

/* A TCP port nothing listens on now (the kernel's pick). */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Server @i's config, users and directories under tmp/ch@i. */
static void write_config(int i)
{
	char *dir = strf("%s/ch%d", tmp, i), *p;
	FILE *f;

	run_ok("mkdir -p '%s/data' '%s/tmp' '%s/user_files'", dir, dir, dir);
	p = strf("%s/users.xml", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("<?xml version=\"1.0\"?>\n<yandex>\n"
	      "  <profiles><default><max_memory_usage>2000000000"
	      "</max_memory_usage></default></profiles>\n"
	      "  <users><default><password></password><networks>"
	      "<ip>127.0.0.1</ip></networks><profile>default</profile>"
	      "<quota>default</quota></default></users>\n"
	      "  <quotas><default></default></quotas>\n</yandex>\n", f);
	fclose(f);
	free(p);
	p = strf("%s/config.xml", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "<?xml version=\"1.0\"?>\n<yandex>\n"
		"  <logger><level>warning</level><log>%s/server.log</log>"
		"<errorlog>%s/server.err.log</errorlog></logger>\n"
		"  <http_port>%d</http_port>\n  <tcp_port>%d</tcp_port>\n"
		"  <listen_host>127.0.0.1</listen_host>\n"
		"  <path>%s/data/</path>\n  <tmp_path>%s/tmp/</tmp_path>\n"
		"  <user_files_path>%s/user_files/</user_files_path>\n"
		"  <users_config>%s/users.xml</users_config>\n"
		"  <default_profile>default</default_profile>\n"
		"  <default_database>default</default_database>\n"
		"  <mark_cache_size>67108864</mark_cache_size>\n"
		"  <uncompressed_cache_size>67108864</uncompressed_cache_size>\n"
		"  <remote_servers><memdb_test>\n"
		"    <shard><replica><host>127.0.0.1</host><port>%d</port>"
		"</replica></shard>\n"
		"    <shard><replica><host>127.0.0.1</host><port>%d</port>"
		"</replica></shard>\n"
		"  </memdb_test></remote_servers>\n</yandex>\n",
		dir, dir, http[i], tcp[i], dir, dir, dir, dir, tcp[0], tcp[1]);
	fclose(f);
	free(p);
	free(dir);
}

/* Stop the servers this program started: SIGTERM, a bounded wait, then
 * SIGKILL. */
static void stop_servers(void)
{
	for (int i = 0; i < 2; i++) {
		int st;

		if (pids[i] <= 0)
			continue;
		kill(pids[i], SIGTERM);
		for (int ms = 0; ms < 5000; ms += 50) {
			if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				pids[i] = 0;
				break;
			}
			usleep(50000);
		}
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], &st, 0);
			pids[i] = 0;
		}
	}
}

static void start_server(int i)
{
	char *cfg = strf("%s/ch%d/config.xml", tmp, i);
	char *log = strf("%s/ch%d/stdout", tmp, i);
	pid_t parent = getpid();
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char *arg = strf("--config-file=%s", cfg);
		FILE *o = freopen(log, "w", stdout);

		/* no server outlives this program, whatever ends it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		if (o)
			dup2(fileno(o), STDERR_FILENO);
		execlp(server_bin, server_bin, arg, (char *)NULL);
		_exit(127);
	}
	pids[i] = pid;
	free(cfg);
	free(log);
}

/* Wait (bounded) until server @i answers its ping. */
static int wait_ready(int i)
{
	struct mdb_ch ch;
	struct mdb_error e;
	char *u = strf("http://127.0.0.1:%d/", http[i]);
	int ok = 0;

	assert_int_equal(mdb_ch_open(&ch, u, &e), 0);
	for (int ms = 0; ms < START_WAIT_MS && !ok; ms += 100) {
		int st;

		if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
			pids[i] = 0;
			break;
		}
		ok = mdb_ch_query(&ch, "SELECT 1", NULL, NULL, &e) == 0;
		if (!ok)
			usleep(100000);
	}
	mdb_ch_close(&ch);
	free(u);
	return ok;
}

/* Run the statements of @sql (';\n'-separated) at the URL @u; inserts
 * into Distributed tables reach the shards before it returns. */
static void on_url(const char *u, const char *sql)
{
	char *copy = strdup(sql), *p = copy;
	char *su = strf("%s%sinsert_distributed_sync=1", u,
			strchr(u, '?') ? "&" : "?");
	struct mdb_ch ch;
	struct mdb_error e;

	assert_int_equal(mdb_ch_open(&ch, su, &e), 0);
	while (p && *p) {
		char *end = strstr(p, ";\n");

		if (end)
			*end = '\0';
		if (*p && mdb_ch_query(&ch, p, NULL, NULL, &e) < 0)
			fail_msg("%s: %s: %s", u, p, e.msg);
		p = end ? end + 2 : NULL;
	}
	mdb_ch_close(&ch);
	free(copy);
	free(su);
}

/* ... on server @i's database "fleet" */
static void on_server(int i, const char *sql)
{
	on_url(url[i], sql);
}

/* The first line of @sql's answer on server @i, as a number. */
static int64_t server_int(int i, const char *sql)
{
	struct mdb_ch ch;
	struct mdb_error e;
	char *out = NULL;
	int64_t v;

	assert_int_equal(mdb_ch_open(&ch, url[i], &e), 0);
	if (mdb_ch_query(&ch, sql, &out, NULL, &e) < 0)
		fail_msg("server %d: %s: %s", i, sql, e.msg);
	v = atoll(out);
	free(out);
	mdb_ch_close(&ch);
	return v;
}

/* ---- the hosts ------------------------------------------------------ */

static void add(const char *label, int dt, const char *name)
{
	char *db = strf("%s/%s.db", tmp, label);

	ingest_ok(db, "--label %s --time @%d '%s/%s'", label, T0 + dt, tmp,
		  name);
	free(db);
}

static void make_hosts(void)
{
	static const char *const hosts[] = { "h1", "h2", "h3", "h4", "x9" };
	const char *td = env("TESTDATA");
	char *ins = strdup("");

	for (int i = 0; i < 5; i++) {
		int k = i + 1;

		for (int t = 0; t < 2; t++) {
			char *n = strf("%s-t%d", hosts[i], t);

			run_ok("awk -v k=%d 'NR <= 2 { print; next } { $1 *= k; "
			   "$2 *= k; print }' '%s/succeed/snapshots/"
			   "allocinfo-t%d.txt' > '%s/%s'", k, td, t, tmp, n);
			if (k == 3 && t == 1) /* h3 leaks a tag */
				run_ok("printf '%%12d %%8d mm/leak.c:42 "
				   "func:leaky \\n' 8388608 2048 >> '%s/%s'",
				   tmp, n);
			add(hosts[i], 3600 * t, n);
			free(n);
		}
	}
	run_ok("awk 'NR <= 2 { print; next } { $1 *= 7; $2 *= 7; print }' "
	   "'%s/succeed/snapshots/allocinfo-v2.txt' > '%s/h1-t2'", td, tmp);
	add("h1", 7200, "h1-t2");
	for (int i = 0; i < 3; i++) {
		char *n = strf("%s-slab", hosts[i]);

		run_ok("awk -v k=%d 'NR <= 2 { print; next } { $2 *= k; $3 *= k; "
		   "print }' '%s/real-6.18-small/slabinfo.before' > '%s/%s'",
		   i + 1, td, tmp, n);
		add(hosts[i], 1800, n);
		free(n);
		n = strf("%s-trace", hosts[i]);
		run_ok("zstd -dc '%s/real-6.18-small/ftrace.txt.zst' | awk -v "
		   "a=%d -v b=%d 'NR <= 12 || (NR - 12 >= a && NR - 12 <= "
		   "b)' > '%s/%s'", td, 1 + 1500 * i, 1500 * (i + 1) + 500,
		   tmp, n);
		add(hosts[i], 600, n);
		free(n);
	}
	run_ok("awk 'NR <= 2 { print; next } { $2 *= 2; $3 *= 2; print }' "
	   "'%s/real-6.18-small/slabinfo.after' > '%s/h2-slab2'", td, tmp);
	add("h2", 5400, "h2-slab2");
	/* h4's zones: a core dump's slab caches (and its counters) */
	{
		char *db = strf("%s/h4.db", tmp);

		ingest_ok(db, "--label h4 --time @%d --kallsyms "
			  "'%s/vmcore/nokaslr.kallsyms.zst' "
			  "'%s/vmcore/nokaslr.kdump'", T0 + 1800, td, td);
		free(db);
	}
	for (int i = 0; i < 5; i++) {
		char *n = strf("%s '%s/%s.db'", ins, tmp, hosts[i]);

		free(ins);
		ins = n;
	}
	run_ok("'%s' merge -q '%s' %s", env("MEMDB"), fleet, ins);
	free(ins);
}

/* memdb export of every host into @u, the output of the last. */
static char *export_all(const char *u, const char *opts)
{
	static const char *const hosts[] = { "h1", "h2", "h3", "h4", "x9" };
	char *out = NULL;

	for (int i = 0; i < 5; i++) {
		struct run r;

		run(&r, "'%s' export -d '%s/%s.db' %s --clickhouse '%s'",
		    env("MEMDB"), tmp, hosts[i], opts, u);
		assert_run_ok(&r);
		free(out);
		out = r.out;
		r.out = NULL;
		run_free(&r);
	}
	return out;
}

static int setup_all(void **state)
{
	struct run r;
	char *ddl;

	(void)state;
	tmp = tmpdir("clickhouse");
	fleet = path_in(tmp, "fleet.db");
	run(&r, "command -v %s", server_bin);
	if (r.status != 0) {
		why_skip = strdup("clickhouse-server is not installed (Debian "
				  "package clickhouse-server; make deps "
				  "installs it): the ClickHouse tests are "
				  "skipped");
		run_free(&r);
		return 0;
	}
	run_free(&r);
	for (int i = 0; i < 2; i++) {
		http[i] = free_port();
		tcp[i] = free_port();
		assert_true(http[i] > 0 && tcp[i] > 0 && http[i] != tcp[i]);
	}
	for (int i = 0; i < 2; i++) {
		write_config(i);
		start_server(i);
	}
	atexit(stop_servers);
	/* meanwhile, the hosts' databases */
	make_hosts();
	for (int i = 0; i < 2; i++) {
		if (!wait_ready(i)) {
			char *log = strf("%s/ch%d/stdout", tmp, i), *t;

			t = slurp(log, NULL);
			fail_msg("clickhouse-server %d did not start in %d s: "
				 "%s", i, START_WAIT_MS / 1000, t ? t : "");
		}
		url[i] = strf("http://127.0.0.1:%d/?database=fleet", http[i]);
	}
	/* the cluster's tables on both servers, then the hosts through the
	 * first's Distributed tables */
	run(&r, "'%s' export --print-ddl --cluster memdb_test", env("MEMDB"));
	assert_run_ok(&r);
	ddl = r.out;
	r.out = NULL;
	run_free(&r);
	for (int i = 0; i < 2; i++) {
		char *u = strf("http://127.0.0.1:%d/", http[i]);

		on_url(u, "CREATE DATABASE IF NOT EXISTS fleet");
		free(u);
		on_server(i, ddl);
	}
	free(ddl);
	free(export_all(url[0], ""));
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	stop_servers();
	free(url[0]);
	free(url[1]);
	free(fleet);
	free(tmp);
	free(why_skip);
	return 0;
}

#define SKIP_WITHOUT_SERVER()                                               \
	do {                                                                \
		if (why_skip) {                                             \
			print_message("%s\n", why_skip);                    \
			skip();                                             \
		}                                                           \
	} while (0)

/*
 * memdb report ARGS --clickhouse on server @i prints what memdb report
 * ARGS --label '*' prints on the merged database (ARGS with its own
 * --label: as it is), in CSV with every row.
 */
static void same_report(int i, const char *args)
{
	struct run ch, lite;

	run(&ch, "'%s' report %s --clickhouse '%s' --format csv --top 0",
	    env("MEMDB"), args, url[i]);
	assert_run_ok(&ch);
	run(&lite, "'%s' report %s %s -d '%s' --format csv --top 0",
	    env("MEMDB"), args, strstr(args, "--label") ? "" :
	    "--label '*'", fleet);
	assert_run_ok(&lite);
	if (strcmp(ch.out, lite.out))
		fail_msg("memdb report %s:\nClickHouse:\n%s\nSQLite:\n%s",
			 args, ch.out, lite.out);
	/* a header, rows, a total */
	if (strchr(ch.out, '\n') == strrchr(ch.out, '\n'))
		fail_msg("memdb report %s: no rows", args);
	run_free(&ch);
	run_free(&lite);
}

/* Every fleet form, with each --by of its header. */
static void test_every_report(void **state)
{
	size_t n, len;
	const struct mdb_query *q = mdb_fleet_all(&n);
	int runs = 0;

	(void)state;
	SKIP_WITHOUT_SERVER();
	for (size_t k = 0; k < n; k++) {
		const char *by = mdb_query_annot(&q[k], "by", &len);

		if (strchr(q[k].name, '@'))
			continue; /* run through --by */
		if (q[k].name[0] == '_')
			continue; /* _shared.sql: fragments */
		same_report(0, q[k].name);
		runs++;
		for (size_t at = 0, w; by && at < len; at += w + 1) {
			char *args;

			w = strcspn(by + at, "|\n");
			args = strf("%s --by %.*s", q[k].name, (int)w,
				    by + at);
			same_report(0, args);
			runs++;
			free(args);
		}
	}
	assert_true(runs >= 15);
}

static void test_options(void **state)
{
	(void)state;
	SKIP_WITHOUT_SERVER();
	/* the other shard's server reads the same fleet */
	same_report(1, "allocinfo");
	same_report(1, "callsites --by label");
	same_report(0, "allocinfo --label 'h[13]'");
	same_report(0, "allocinfo --label 'h*' --to 2026-01-01T00:30Z");
	same_report(0, "allocinfo --by label --from 2026-01-01T01:00Z "
		       "--to @1767232800");
	same_report(0, "growth --label 'h?' --from 2026-01-01T00:30Z");
	same_report(0, "growth --by label --sort calls");
	same_report(0, "zones --sort used --label 'h*'");
	same_report(0, "zones --sort name");
	same_report(0, "zones --by label --sort unused_pct");
	same_report(0, "callsites --sort frag,hit,bytes");
	same_report(0, "callsites --sort callsite --label 'h[12]'");
	same_report(0, "callsites --by cache --sort pingpong");
	same_report(0, "outliers --label 'h*'");
	same_report(0, "allocinfo --top 3");
}

/* A host's rows are on one shard, the shards both hold some. */
static void test_sharded(void **state)
{
	int64_t a, b;

	(void)state;
	SKIP_WITHOUT_SERVER();
	a = server_int(0, "SELECT count() FROM memdb_zone_local");
	b = server_int(1, "SELECT count() FROM memdb_zone_local");
	assert_true(a > 0 && b > 0);
	assert_int_equal(a + b, server_int(0, "SELECT count() FROM "
						  "memdb_zone"));
	assert_int_equal(server_int(0, "SELECT count() FROM (SELECT label "
				    "FROM memdb_tag_local GROUP BY label)") +
			 server_int(1, "SELECT count() FROM (SELECT label "
				    "FROM memdb_tag_local GROUP BY label)"),
			 server_int(0, "SELECT uniqExact(label) FROM "
				    "memdb_tag"));
}

/* Exporting again sends nothing; a source sent twice or cut short does
 * not change a report. */
static void test_idempotent(void **state)
{
	int64_t before;
	char *out;

	(void)state;
	SKIP_WITHOUT_SERVER();
	before = server_int(0, "SELECT count() FROM memdb_source");
	out = export_all(url[0], "");
	assert_non_null(strstr(out, "exported 0 sources, 0 rows"));
	assert_non_null(strstr(out, "already there"));
	free(out);
	assert_int_equal(server_int(0, "SELECT count() FROM memdb_source"),
			 before);
	/* h1's latest snapshot twice, under a larger sid (a racing
	 * export), and rows of h2 under a sid memdb_source lacks (an
	 * export cut short) */
	on_server(0, "INSERT INTO memdb_tag SELECT sid + 1, label, pos, "
		     "input_line, tag_key, bytes, calls, extra, accurate, "
		     "approx FROM memdb_tag WHERE "
		     "sid = (SELECT argMax(sid, taken_unix) FROM memdb_source "
		     "WHERE label = 'h1' AND kinds = 2);\n"
		     "INSERT INTO memdb_source SELECT sid + 1, hash, label, "
		     "format, format_version, kinds, taken_at, taken_unix, "
		     "ingested_at, exported_at, db_id, path, kernel_release, "
		     "byte_order, word_size, ncpus, data_bytes, events, "
		     "allocations, bad_frees, lost_events, overruns, "
		     "malformed, notes FROM memdb_source WHERE sid = (SELECT "
		     "argMax(sid, taken_unix) FROM memdb_source WHERE label = "
		     "'h1' AND kinds = 2);\n"
		     "INSERT INTO memdb_tag SELECT 42, 'h2', pos, input_line, "
		     "tag_key, bytes * 1000, calls, extra, accurate, approx "
		     "FROM memdb_tag WHERE label = 'h2';\n");
	assert_int_equal(server_int(0, "SELECT count() FROM memdb_source"),
			 before + 1);
	same_report(0, "allocinfo");
	same_report(0, "allocinfo --by label");
	same_report(0, "growth");
	same_report(0, "outliers");
}

/* A server without the tables gets them (one MergeTree each); the
 * allocations go with --allocations. */
static void test_created_and_allocations(void **state)
{
	char *u, *out, *q;
	struct run r;

	(void)state;
	SKIP_WITHOUT_SERVER();
	u = strf("http://127.0.0.1:%d/", http[1]);
	on_url(u, "CREATE DATABASE IF NOT EXISTS single");
	free(u);
	free(url[1]);
	url[1] = strf("http://127.0.0.1:%d/?database=single", http[1]);
	out = export_all(url[1], "--allocations");
	assert_non_null(strstr(out, "exported"));
	free(out);
	run(&r, "'%s' export -d '%s/h1.db' --clickhouse '%s'", env("MEMDB"),
	    tmp, url[1]);
	assert_run_ok(&r);
	assert_null(strstr(r.out, "created the tables"));
	run_free(&r);
	assert_string_equal(
		(out = db_text(fleet, "SELECT count(*) FROM alloc")),
		(q = strf("%lld\n", (long long)server_int(1, "SELECT count() "
			  "FROM memdb_alloc"))));
	free(out);
	free(q);
	assert_int_equal(server_int(1, "SELECT sum(bytes_alloc) FROM "
				    "memdb_alloc WHERE state = 0"),
			 db_int(fleet, "SELECT sum(bytes_alloc) FROM alloc "
			        "WHERE state = 0"));
	assert_int_equal(server_int(1, "SELECT count() FROM system.tables "
				    "WHERE database = 'single' AND engine = "
				    "'MergeTree'"), 8);
	same_report(1, "allocinfo --by label");
	same_report(1, "zones");
	same_report(1, "callsites");
}

static void test_refusals(void **state)
{
	struct run r;

	(void)state;
	SKIP_WITHOUT_SERVER();
	run(&r, "'%s' report leaks --clickhouse '%s'", env("MEMDB"), url[0]);
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "has no fleet form"));
	run_free(&r);
	run(&r, "'%s' report _shared --clickhouse '%s'", env("MEMDB"),
	    url[0]);
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "no report called '_shared'"));
	run_free(&r);
	run(&r, "'%s' report allocinfo --source 1 --clickhouse '%s'",
	    env("MEMDB"), url[0]);
	assert_run_status(&r, 2);
	run_free(&r);
	run(&r, "'%s' report allocinfo --label 'zz*' --clickhouse '%s'",
	    env("MEMDB"), url[0]);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "no source of the fleet"));
	run_free(&r);
	run(&r, "'%s' report allocinfo --clickhouse 'http://127.0.0.1:%d/'",
	    env("MEMDB"), free_port());
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "cannot reach ClickHouse"));
	run_free(&r);
	run(&r, "'%s' export -d '%s' --clickhouse ftp://x/", env("MEMDB"),
	    fleet);
	assert_run_status(&r, 2);
	run_free(&r);
	/* the server's own error, first line */
	run(&r, "'%s' export -d '%s' --clickhouse "
	    "'http://127.0.0.1:%d/?database=nosuch'", env("MEMDB"), fleet,
	    http[0]);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "memdb: ClickHouse: "));
	assert_non_null(strstr(r.err, "nosuch"));
	run_free(&r);
}

/*
 * libcurl is loaded when memdb first talks to ClickHouse (no server
 * needed here): without it, a refusal that says what to install; with a
 * library that is there but is not libcurl, one that names the symbol it
 * lacks as the loader said it (its message read before the library is
 * closed again, which frees it).
 */
static void test_no_libcurl(void **state)
{
	static const char *const cases[][4] = {
		{ "libmemdb-none.so.0", "cannot load libcurl",
		  "libmemdb-none.so.0", "apt-get install libcurl4" },
		{ "libz.so.1", "cannot load libcurl (libz.so.1)",
		  "libz.so.1: undefined symbol: curl_global_init\"\n", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r;

		run(&r, "MEMDB_TEST_CURL_SONAME=%s '%s' report allocinfo "
			"--clickhouse 'http://127.0.0.1:1/'", cases[i][0],
		    env("MEMDB"));
		assert_run_status(&r, 1);
		for (int k = 1; k < 4 && cases[i][k]; k++)
			if (!strstr(r.err, cases[i][k]))
				fail_msg("stderr: %s", r.err);
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_report),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_sharded),
		cmocka_unit_test(test_idempotent),
		cmocka_unit_test(test_created_and_allocations),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_no_libcurl),
	};

	return cmocka_run_group_tests_name("clickhouse", tests, setup_all,
					   teardown_all);
}
