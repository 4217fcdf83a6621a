// SPDX-License-Identifier: MIT
/*
 * Snapshots end to end, through the memdb binary: the committed and the
 * generated fixtures ingested and reported, every figure worked out by
 * hand from the tables of tests/mkmemstat.c and the fixture texts (the
 * arithmetic is in the comments); binary stream, vmstat -z text and its
 * json of one kernel state giving identical rows; growth between
 * allocinfo snapshots and between the real slabinfo pair (checked against
 * awk); report options, ingest options, re-ingest and delete.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

static char *tmp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("snapshot-cli");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

/* A committed fixture: TESTDATA/@name. */
static char *fixture(const char *name)
{
	return path_in(env("TESTDATA"), name);
}

/* The zones report of a fresh database holding only @path. */
static char *zones_of(const char *path)
{
	char *db = fresh_db(tmp, "zones.db"), *out;

	ingest_ok(db, "'%s'", path);
	out = report_csv(db, "zones");
	free(db);
	return out;
}

/* memdb ingest OPTS TESTDATA/@name into @db. */
static void ingest_fixture(const char *db, const char *opts, const char *name)
{
	char *p = fixture(name);

	ingest_ok(db, "%s '%s'", opts, p);
	free(p);
}

/* The CSV of memdb report ARGS on @db is @want. */
static void expect_report(const char *db, const char *args, const char *want)
{
	char *out = report_csv(db, args);

	assert_string_equal(out, want);
	free(out);
}

/* The zones report of the fixture @name alone is @want. */
static void expect_zones(const char *name, const char *want)
{
	char *p = fixture(name), *out = zones_of(p);

	assert_string_equal(out, want);
	free(out);
	free(p);
}

#define ZONES_HDR "name,pos,allocator,size,limit,used,free,requests,fails," \
		  "sleeps,xdomain,bytes,unused_pct,object_size,allocated," \
		  "total,slabs,flags\n"

/*
 * The UMA zones of tests/mkmemstat.c, as libmemstat derives them
 * (numallocs = allocs + cpu allocs, numfrees likewise; used = numallocs -
 * numfrees; free = cpu cache + zone_free + keg_free of a primary zone;
 * bytes = used x size):
 *   UMA Kegs     174 allocs: used 174, free 0, bytes 174 x 384 = 66816
 *   mbuf         1000+100+50 = 1150, 900+30+20 = 950: used 200;
 *                free 5+7 + 10 + keg 50 = 72; bytes 200 x 256 = 51200
 *   mbuf_packet  secondary: 500+40 = 540, 480+35+5 = 520: used 20;
 *                free 3+1 + 4 (the shared keg's 50 not again) = 8;
 *                bytes 5120
 *   128 Bucket   2000+105 = 2105, 1862+105 = 1967: used 138; free 0 + 87
 *                + 2 = 89; fails 10295; bytes 138 x 1024 = 141312
 *   vm pgcache   5000+30 = 5030, 4000+10 = 4010: used 1020; free 8+2+30 =
 *                40; sleeps 1; bytes 1020 x 4096 = 4177920
 *   vm pgcache   3000, 2990: used 10; free 6 + 12 = 18; xdomain 7;
 *                bytes 40960
 *   64 pcpu      allocs 10+5 = 15 < frees 12+4+2 = 18: requests raised to
 *                18, used 0, bytes 0; free 1 + 0 + 3 = 4
 *   socket       300+20 = 320, 250+10 = 260: used 60; free 2+2+1+6 = 11;
 *                limit 25600, fails 1, sleeps 2; bytes 60 x 864 = 51840
 *   total used 174+200+20+138+1020+10+0+60 = 1622,
 *         free 0+72+8+89+40+18+4+11 = 242,
 *         requests 174+1150+540+2105+5030+3000+18+320 = 12337,
 *         fails 2+10295+1 = 10298, sleeps 3, xdomain 10,
 *         bytes 66816+51200+5120+141312+4177920+40960+0+51840 = 4535168
 */
static const char uma_csv[] = ZONES_HDR
	"UMA Kegs,1,uma,384,0,174,0,174,0,0,0,66816,,,,,,\n"
	"mbuf,2,uma,256,0,200,72,1150,0,0,3,51200,,,,,,\n"
	"mbuf_packet,3,uma,256,0,20,8,540,2,0,0,5120,,,,,,\n"
	"128 Bucket,4,uma,1024,0,138,89,2105,10295,0,0,141312,,,,,,\n"
	"vm pgcache,5,uma,4096,0,1020,40,5030,0,1,0,4177920,,,,,,\n"
	"vm pgcache,6,uma,4096,0,10,18,3000,0,0,7,40960,,,,,,\n"
	"64 pcpu,7,uma,8,0,0,4,18,0,0,0,0,,,,,,\n"
	"socket,8,uma,864,25600,60,11,320,1,2,0,51840,,,,,,\n"
	"total,,,,,1622,242,12337,10298,3,10,4535168,,,,,,\n";

/* Every committed and generated zone_stats stream gives uma_csv. */
static void test_zone_stats_by_hand(void **state)
{
	static const char *const committed[] = {
		"succeed/memstat/zone_stats-le-1.bin",
		"succeed/memstat/zone_stats-be-1.bin",
		"succeed/memstat/zone_stats-le-4.bin",
		"succeed/memstat/zone_stats-be-4.bin",
	};
	char *out, *p, *db, *t;
	struct run r;

	(void)state;
	for (size_t i = 0; i < sizeof(committed) / sizeof(committed[0]);
	     i++) {
		p = fixture(committed[i]);
		out = zones_of(p);
		assert_string_equal(out, uma_csv);
		free(out);
		free(p);
	}
	for (int b = 0; b < 2; b++) {
		p = path_in(tmp, "zone_stats-256.bin");
		run(&r, "'%s' --order %s --maxcpus 256 zone-stats '%s'",
		    env("MKMEMSTAT"), b ? "big" : "little", p);
		assert_run_ok(&r);
		run_free(&r);
		/* 16 + 8 x (120 + 256 x 64) bytes */
		db = fresh_db(tmp, "z256.db");
		ingest_ok(db, "'%s'", p);
		out = report_csv(db, "zones");
		assert_string_equal(out, uma_csv);
		free(out);
		t = db_text(db, "SELECT format, byte_order, ncpus, data_bytes,"
				" format_version FROM source");
		assert_string_equal(t, b ? "memstat-uma,big,256,132048,1\n" :
					   "memstat-uma,little,256,132048,1\n");
		free(t);
		/* per-CPU rows: CPUs 0 and 255 where not all zero (UMA Kegs
		 * none, vm pgcache #2 CPU 255 only: 6 x 2 + 1 = 13) */
		assert_int_equal(db_int(db, "SELECT count(*) FROM zone_cpu"),
				 13);
		assert_int_equal(db_int(db, "SELECT sum(allocs) FROM zone_cpu "
					    "WHERE pos = 2"), 150);
		assert_int_equal(db_int(db, "SELECT max(cpu) FROM zone_cpu"),
				 255);
		/* the keg rule, readable in v_zones */
		t = db_text(db, "SELECT name, secondary, keg_free, zone_free, "
				"free FROM v_zones WHERE name LIKE 'mbuf%' "
				"ORDER BY pos");
		assert_string_equal(t, "mbuf,0,50,10,72\n"
				       "mbuf_packet,1,50,4,8\n");
		free(t);
		free(db);
		free(p);
	}
	db = fresh_db(tmp, "z1.db");
	p = fixture("succeed/memstat/zone_stats-be-1.bin");
	ingest_ok(db, "'%s'", p);
	/* one CPU: every zone but UMA Kegs has a per-CPU row */
	assert_int_equal(db_int(db, "SELECT count(*) FROM zone_cpu"), 7);
	free(p);
	free(db);
}

/*
 * Acceptance: one kernel state (mkmemstat) as the binary stream, the
 * vmstat -z text and its libxo json give the same zones rows, whatever
 * maxcpus the stream has; so do the json wrapped in "vmstat" and the
 * other header variants (without XDOMAIN: that column empty).
 */
static void test_three_forms_agree(void **state)
{
	static const char *const forms[][2] = {
		{ "--maxcpus 3 --order big", "zone-stats" },
		{ "", "vmstat-z" },
		{ "", "vmstat-z-json" },
		{ "--wrap", "vmstat-z-json" },
		{ "--header failsleep", "vmstat-z" },
	};
	char *first = NULL, *out, *p, *t, *db = path_in(tmp, "zones.db");
	struct run r;

	(void)state;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		p = path_in(tmp, "state.out");
		run(&r, "'%s' %s %s '%s'", env("MKMEMSTAT"), forms[i][0],
		    forms[i][1], p);
		assert_run_ok(&r);
		run_free(&r);
		out = zones_of(p);
		if (!first)
			first = strdup(out);
		assert_string_equal(out, first);
		free(out);
		free(p);
	}
	assert_string_equal(first, uma_csv);
	free(first);
	/* the committed ones, and the oldest header (no XDOMAIN column) */
	expect_zones("succeed/memstat/vmstat-z.json", uma_csv);
	p = fixture("succeed/memstat/vmstat-z-noxdomain.txt");
	out = zones_of(p);
	t = db_text(db, "SELECT count(*), "
		    "count(xdomain), sum(used), sum(bytes) FROM zone");
	assert_string_equal(t, "8,0,1622,4535168\n");
	free(t);
	assert_non_null(strstr(out, "\nsocket,8,uma,864,25600,60,11,320,1,2,,"
				    "51840,,,,,,\n"));
	free(out);
	free(p);
	free(db);
}

/*
 * malloc(9) types of tests/mkmemstat.c (per CPU pairs summed):
 *   devbuf         bytes 40960+8192-4096 = 45056, used 100+20-10 = 110,
 *                  requests 120, size mask 0x3|0x10 = 19 (16,32,256)
 *   CAM dev queue  bytes 1000, used 5, requests 5, mask 4 (64)
 *   temp           bytes 4000000-3000000 = 1000000, used 4-3 = 1,
 *                  requests 4, mask 0 (no size class)
 * vmstat -m prints KiB rounded up: 45056/1024 = 44 exactly, 1000 -> 1,
 * 1000000 -> 977 (976.56); memdb stores KiB x 1024 flagged approx.
 */
static void test_malloc_by_hand(void **state)
{
	static const char binary[] = ZONES_HDR
		"devbuf,1,malloc,,,110,,120,,,,45056,,,,,,\n"
		"CAM dev queue,2,malloc,,,5,,5,,,,1000,,,,,,\n"
		"temp,3,malloc,,,1,,4,,,,1000000,,,,,,\n"
		"total,,,,,116,,129,,,,1046056,,,,,,\n";
	static const char kib[] = ZONES_HDR
		"devbuf,1,malloc,,,110,,120,,,,45056,,,,,,approx\n"
		"CAM dev queue,2,malloc,,,5,,5,,,,1024,,,,,,approx\n"
		"temp,3,malloc,,,1,,4,,,,1000448,,,,,,approx\n"
		"total,,,,,116,,129,,,,1046528,,,,,,\n";
	static const char *const bins[] = {
		"succeed/memstat/malloc_stats-le-1.bin",
		"succeed/memstat/malloc_stats-be-1.bin",
		"succeed/memstat/malloc_stats-le-4.bin",
		"succeed/memstat/malloc_stats-be-4.bin",
		"succeed/snapshots/vmstat-m-bytes.txt", /* bytes: exact */
	};
	static const char *const kibs[] = {
		"succeed/memstat/vmstat-m.txt",
		"succeed/memstat/vmstat-m-highuse.txt",
		"succeed/memstat/vmstat-m.json",
		"succeed/snapshots/vmstat-m-excerpt.txt",
	};
	char *p, *out, *t, *db = path_in(tmp, "zones.db");

	(void)state;
	for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		p = fixture(bins[i]);
		out = zones_of(p);
		assert_string_equal(out, binary);
		free(out);
		free(p);
	}
	t = db_text(db, "SELECT group_concat(coalesce(sizes, ''), '|') "
			"FROM zone");
	assert_string_equal(t, "\"16,32,256|64|\"\n");
	free(t);
	p = fixture("succeed/memstat/malloc_stats-be-4.bin");
	free(zones_of(p));
	t = db_text(db, "SELECT group_concat(sizemask) FROM zone");
	assert_string_equal(t, "\"19,4,0\"\n");
	free(t);
	free(p);
	for (size_t i = 0; i < sizeof(kibs) / sizeof(kibs[0]); i++) {
		p = fixture(kibs[i]);
		out = zones_of(p);
		assert_string_equal(out, kib);
		free(out);
		free(p);
	}
	free(db);
}

/*
 * Text variants:
 *   vmstat-z-core.txt (FreeBSD 7 header from a core dump: REQUESTS
 *   FAILURES, no SLEEP): bytes 90x128 = 11520, 90x120 = 10800,
 *   256x256 = 65536, 2x256 = 512 (sum 88368); used 438, free 251,
 *   requests 90+90+10443071+27209829 = 37653080
 *   vmstat-z-human.txt: 1.2K = 1228.8 -> 1229 used, 3.4M = 3565158.4
 *   requests, bytes 1229 x 2048 = 2516992; 6M limit = 6291456, 12K used
 *   = 12288, 2.5K free = 2560, 17G = 18253611008, bytes 12288 x 256 =
 *   3145728
 */
static void test_text_variants(void **state)
{
	(void)state;
	expect_zones("succeed/snapshots/vmstat-z-core.txt", ZONES_HDR
		"UMA Kegs,1,uma,128,0,90,0,90,0,,,11520,,,,,,\n"
		"UMA Zones,2,uma,120,0,90,0,90,0,,,10800,,,,,,\n"
		"mbuf_packet,3,uma,256,0,256,128,10443071,0,,,65536,,,,,,\n"
		"mbuf,4,uma,256,0,2,123,27209829,0,,,512,,,,,,\n"
		"total,,,,,438,251,37653080,0,,,88368,,,,,,\n");
	expect_zones("succeed/snapshots/vmstat-z-human.txt", ZONES_HDR
		"mbuf_cluster,1,uma,2048,254392,1229,500,3565158,0,0,0,"
		"2516992,,,,,,approx\n"
		"mbuf,2,uma,256,6291456,12288,2560,18253611008,0,0,0,3145728,,,,,,"
		"approx\n"
		"total,,,,,13517,3060,18257176166,0,0,0,5662720,,,,,,\n");
	/* a pasted excerpt: rows 4 to 7 of uma_csv at positions 1 to 4 */
	expect_zones("succeed/snapshots/vmstat-z-excerpt.txt", ZONES_HDR
		"mbuf_packet,1,uma,256,0,20,8,540,2,0,0,5120,,,,,,\n"
		"128 Bucket,2,uma,1024,0,138,89,2105,10295,0,0,141312,,,,,,\n"
		"vm pgcache,3,uma,4096,0,1020,40,5030,0,1,0,4177920,,,,,,\n"
		"vm pgcache,4,uma,4096,0,10,18,3000,0,0,7,40960,,,,,,\n"
		"total,,,,,1188,155,10675,10297,1,7,4365312,,,,,,\n");
	/* slabinfo without header lines: bytes 12288x64 = 786432, 0,
	 * 640x64 = 40960; unused (640-438)/640 = 31.5625 %, all caches
	 * (12928-12726)/12928 = 1.5625 %; the empty cache (position 2)
	 * comes last */
	expect_zones("succeed/snapshots/slabinfo-noheader.txt", ZONES_HDR
		"kmalloc-64,1,slab,64,,12288,0,,,,,786432,0.000000,,,,,\n"
		"anon_vma_chain,3,slab,64,,438,202,,,,,40960,31.562500,,,,,\n"
		"request_sock_subflow_v6,2,slab,392,,0,0,,,,,0,0.000000,,,,,\n"
		"total,,,,,12726,202,,,,,827392,1.562500,,,,,\n");
}

#define TAGS_HDR "tag,function,module,bytes,calls,tags,flags\n"

/*
 * allocinfo-v1.txt: mm/slub.c:2259 alloc_slab_page twice (1048576 + 512
 * bytes, 256 + 1 calls: one tag of 2 lines); totals 4096 + 12288 + 0 +
 * 1048576 - 128 + 512 = 1065344 bytes, 1+3+0+256+2+1 = 263 calls.
 * By module: the kernel 1065344 - 12288 = 1053056 bytes, 260 calls in 5
 * lines; foomod 12288, 3.  rht_test's -128 bytes went below zero: flagged
 * underflow, and so is the kernel's row by module that holds it.
 */
static void test_allocinfo_reports(void **state)
{
	char *db = fresh_db(tmp, "ai.db"), *t;

	(void)state;
	ingest_fixture(db, "", "succeed/snapshots/allocinfo-v1.txt");
	expect_report(db, "allocinfo", TAGS_HDR
		"mm/slub.c:2259,alloc_slab_page,,1049088,257,2,\n"
		"drivers/foo/bar.c:20,foo_start,foomod,12288,3,1,\n"
		"mm/percpu.c:2976,pcpu_embed_first_chunk,,4096,1,1,\n"
		"init/main.c:1314,do_initcalls,,0,0,1,\n"
		"lib/test_rhashtable.c:7,rht_test,,-128,2,1,underflow\n"
		"total,,,1065344,263,6,\n");
	expect_report(db, "allocinfo --sort calls --top 3", TAGS_HDR
		"mm/slub.c:2259,alloc_slab_page,,1049088,257,2,\n"
		"drivers/foo/bar.c:20,foo_start,foomod,12288,3,1,\n"
		"lib/test_rhashtable.c:7,rht_test,,-128,2,1,underflow\n"
		"total,,,1065344,263,6,\n");
	expect_report(db, "allocinfo --by module", TAGS_HDR
		",,,1053056,260,5,underflow\n"
		",,foomod,12288,3,1,\n"
		"total,,,1065344,263,6,\n");
	expect_report(db, "allocinfo --by file", TAGS_HDR
		"mm/slub.c,,,1049088,257,2,\n"
		"drivers/foo/bar.c,,foomod,12288,3,1,\n"
		"mm/percpu.c,,,4096,1,1,\n"
		"init/main.c,,,0,0,1,\n"
		"lib/test_rhashtable.c,,,-128,2,1,underflow\n"
		"total,,,1065344,263,6,\n");
	expect_report(db, "allocinfo --by function --top 1", TAGS_HDR ",alloc_slab_page,,1049088,257,2,\n"
				"total,,,1065344,263,6,\n");
	t = db_text(db, "SELECT format, format_version, records FROM source");
	assert_string_equal(t, "allocinfo,1.0,8\n");
	free(t);

	/* version 2: accurate:no kept, with the rest of the pairs */
	ingest_fixture(db, "", "succeed/snapshots/allocinfo-v2.txt");
	expect_report(db, "allocinfo", TAGS_HDR
		"mm/page_ext.c:270,alloc_page_ext,,20971520,5120,1,\n"
		"fs/xfs/xfs_mount.c:87,xfs_uuid_mount,xfs,8192,2,1,"
		"inaccurate\n"
		"kernel/fork.c:307,alloc_thread_stack_node,,640,10,1,"
		"inaccurate\n"
		"total,,,20980352,5132,3,\n");
	t = db_text(db, "SELECT extra, accurate FROM v_tags WHERE line = 307");
	assert_string_equal(t, "accurate:no note:x,0\n");
	free(t);

	/*
	 * seed 004 (numfmt --to=iec, no header): 122M = 127926272,
	 * 55M = 57671680, 15M = 15728640, 14M = 14680064, 13M = 13631488,
	 * 8.8M = 9227468.8 -> 9227469, 6.0M = 6291456, 4.1M = 4299161.6 ->
	 * 4299162, 4.0M = 4194304, 3.8M = 3984588.8 -> 3984589, 2.8M =
	 * 2936012.8 -> 2936013; sum 260571137; calls sum 72397
	 */
	ingest_fixture(db, "", "succeed/snapshots/allocinfo-humanized.txt");
	expect_report(db, "allocinfo --top 3", TAGS_HDR
		"mm/page_ext.c:270,alloc_page_ext,,127926272,31168,1,approx\n"
		"mm/slub.c:2259,alloc_slab_page,,57671680,4887,1,approx\n"
		"mm/readahead.c:247,page_cache_ra_unbounded,,15728640,3656,1,"
		"approx\n"
		"total,,,260571137,72397,11,\n");
	t = db_text(db, "SELECT bytes FROM v_tags WHERE module = 'ctagmod' "
			"AND source_id = 3");
	assert_string_equal(t, "4194304\n");
	free(t);
	ingest_fixture(db, "", "succeed/snapshots/allocinfo-noheader.txt");
	expect_report(db, "allocinfo --top 1", TAGS_HDR
		"mm/slub.c:2259,alloc_slab_page,,57671680,14080,1,\n"
		"total,,,70828032,17292,3,\n");
	free(db);
}

#define GROWTH_HDR "name,function,module,kind,bytes_from,bytes_to," \
		   "bytes_delta,count_from,count_to,count_delta,flags\n"

/*
 * Acceptance: growth between allocinfo-t0.txt (10:00) and -t1.txt
 * (11:00) of machine web1, ingested in the other order, next to a
 * snapshot of another machine.  By hand, per tag (bytes; calls):
 *   ctagmod_start  [ctagmod], loaded in between: 0 -> 4194304; 0 -> 1010
 *   alloc_thread_stack_node (accurate:no): 8192 -> 24576 (+16384); 2 -> 6
 *   __filemap_get_folio: 4194304 -> 4202496 (+8192); 1024 -> 1026
 *   ctagmod_init   [ctagmod]: 0 -> 1024; 0 -> 1
 *   __kernfs_new_node: unchanged 262144; 64
 *   gone_init, only in t0: 4096 -> 0; 1 -> 0
 *   kmalloc_reserve: 65536 -> 32768 (-32768); 16 -> 8
 *   total bytes 4194304+262144+65536+8192+4096 = 4534272 ->
 *         4202496+262144+32768+24576+4194304+1024 = 8717312 (+4183040);
 *   calls 1024+64+16+2+1 = 1107 -> 1026+64+8+6+1010+1 = 2115 (+1008)
 * By module: ctagmod 0 -> 4195328 (1011 calls, new); the kernel
 * 4534272 -> 8717312 - 4195328 = 4521984 (-12288), 1107 -> 1104.
 */
static void test_growth_allocinfo(void **state)
{
	char *db = fresh_db(tmp, "growth.db"), *t0, *t1, *other, *out;
	struct run r;

	(void)state;
	t0 = fixture("succeed/snapshots/allocinfo-t0.txt");
	t1 = fixture("succeed/snapshots/allocinfo-t1.txt");
	other = fixture("succeed/snapshots/allocinfo-v2.txt");
	ingest_ok(db, "--label web1 --time 2026-11-22T11:00:00Z '%s'", t1);
	ingest_ok(db, "--label db7 --time 2026-11-22T12:00:00Z '%s'", other);
	ingest_ok(db, "--label web1 --time 2026-11-22T10:00:00Z '%s'", t0);

	expect_report(db, "growth", GROWTH_HDR
		"drivers/staging/ctagmod/ctagmod.c:20,ctagmod_start,ctagmod,"
		"tag,0,4194304,4194304,0,1010,1010,new\n"
		"kernel/fork.c:307,alloc_thread_stack_node,,tag,8192,24576,"
		"16384,2,6,4,inaccurate\n"
		"mm/filemap.c:1919,__filemap_get_folio,,tag,4194304,4202496,"
		"8192,1024,1026,2,\n"
		"drivers/staging/ctagmod/ctagmod.c:33,ctagmod_init,ctagmod,"
		"tag,0,1024,1024,0,1,1,new\n"
		"fs/kernfs/dir.c:615,__kernfs_new_node,,tag,262144,262144,0,"
		"64,64,0,\n"
		"drivers/gone/gone.c:10,gone_init,,tag,4096,0,-4096,1,0,-1,"
		"gone\n"
		"net/core/skbuff.c:658,kmalloc_reserve,,tag,65536,32768,"
		"-32768,16,8,-8,\n"
		"total,,,,4534272,8717312,4183040,1107,2115,1008,\n");
	/* the series of source 1 is the same; counts sort by calls */
	expect_report(db, "growth --source 1 --sort calls --top 3", GROWTH_HDR
		"drivers/staging/ctagmod/ctagmod.c:20,ctagmod_start,ctagmod,"
		"tag,0,4194304,4194304,0,1010,1010,new\n"
		"kernel/fork.c:307,alloc_thread_stack_node,,tag,8192,24576,"
		"16384,2,6,4,inaccurate\n"
		"mm/filemap.c:1919,__filemap_get_folio,,tag,4194304,4202496,"
		"8192,1024,1026,2,\n"
		"total,,,,4534272,8717312,4183040,1107,2115,1008,\n");
	expect_report(db, "growth --by module", GROWTH_HDR
		",,ctagmod,tag,0,4195328,4195328,0,1011,1011,new\n"
		",,,tag,4534272,4521984,-12288,1107,1104,-3,inaccurate\n"
		"total,,,,4534272,8717312,4183040,1107,2115,1008,\n");
	/* explicit ends, the other way round */
	out = report_csv(db, "growth --from 1 --to 3 --top 1");
	assert_non_null(strstr(out, "\ntotal,,,,8717312,4534272,-4183040,"
				    "2115,1107,-1008,\n"));
	free(out);
	/* the header names both ends; json names them too */
	run_memdb(&r, db, "report growth");
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "memdb report growth: from source 3: "
				      "allocinfo 2.0 '"));
	assert_non_null(strstr(r.out, "(web1), taken 2026-11-22T10:00:00Z, "
				      "5 tags\n"));
	assert_non_null(strstr(r.out, "\n                       to source 1:"
				      " allocinfo 2.0 '"));
	assert_non_null(strstr(r.out, "note: source 3: 1 tag says "
				      "accurate:no"));
	run_free(&r);
	run_memdb(&r, db, "report growth --format json --top 1");
	assert_non_null(strstr(r.out, "\"source\": {\"from\": 3, \"to\": 1}"));
	assert_non_null(strstr(r.out, "\"total\": {\"function\": null"));
	run_free(&r);
	/* the other machine's series holds one snapshot */
	run_memdb(&r, db, "report growth --source 2");
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "one snapshot in the series: nothing "
				      "to compare"));
	run_free(&r);
	free(t0);
	free(t1);
	free(other);
	free(db);
}

/*
 * growth of the real slabinfo pair (6.18): every cache's change of
 * num_objs x objsize and of active_objs, computed by awk from the two
 * files, equals memdb's rows; the rows come sorted by bytes_delta.
 */
static void test_growth_slabinfo_real(void **state)
{
	char *db = fresh_db(tmp, "slab.db"), *before, *after, *out;
	struct run r;

	(void)state;
	before = fixture("real-6.18-small/slabinfo.before");
	after = fixture("real-6.18-small/slabinfo.after");
	ingest_ok(db, "--label vm1 --time 1700000000 '%s'", before);
	ingest_ok(db, "--label vm1 --time 1700000060 '%s'", after);
	run(&r, "'%s' report growth -d '%s' --top 0 --format csv | "
		"awk -F, 'NR > 1 && $1 != \"total\" { print $1 \",\" $5 \",\" "
		"$6 \",\" $7 \",\" $8 \",\" $9 \",\" $10 }' | sort > '%s/m.rows'"
		" && awk 'NR == FNR { if (FNR > 2) { b[$1] = $3 * $4; "
		"c[$1] = $2 }; next } FNR > 2 { printf \"%%s,%%d,%%d,%%d,%%d,"
		"%%d,%%d\\n\", $1, b[$1], $3 * $4, $3 * $4 - b[$1], c[$1], $2,"
		" $2 - c[$1] }' '%s' '%s' | sort > '%s/a.rows' && "
		"diff '%s/m.rows' '%s/a.rows' && wc -l < '%s/a.rows'",
	    env("MEMDB"), db, tmp, before, after, tmp, tmp, tmp, tmp);
	if (r.status)
		fail_run(&r, "growth rows differ from awk:\n%s", r.out);
	assert_int_equal(atoi(r.out), 235);
	run_free(&r);
	run(&r, "'%s' report growth -d '%s' --top 0 --format csv | awk -F, "
		"'NR > 2 && $1 != \"total\" && $7 > prev { bad = 1 } "
		"NR > 1 { prev = $7 } END { exit bad }'", env("MEMDB"), db);
	assert_run_ok(&r);
	run_free(&r);
	/* the largest growth first: maple_node, 577 x 348 ... by awk */
	out = report_csv(db, "growth --top 1");
	run(&r, "awk 'NR == FNR { if (FNR > 2) b[$1] = $3 * $4; next } "
		"FNR > 2 { d = $3 * $4 - b[$1]; if (d > best) { best = d; "
		"n = $1 } } END { print n \",\" best }' '%s' '%s'", before,
	    after);
	{
		char want[128];

		r.out[strcspn(r.out, "\n")] = '\0';
		snprintf(want, sizeof(want), "\n%s,", strtok(r.out, ","));
		assert_non_null(strstr(out, want));
	}
	run_free(&r);
	free(out);
	/* zones of one snapshot: the totals awk computes */
	out = report_csv(db, "zones --source 1 --top 1");
	run(&r, "awk 'FNR > 2 { u += $2; n += $3; b += $3 * $4 } END { "
		"printf \"total,,,,,%%d,%%d,,,,,%%d,%%.6f,,,,,\\n\", u, n - u, b, "
		"100 * (n - u) / n }' '%s'", before);
	assert_non_null(strstr(out, r.out));
	run_free(&r);
	free(out);
	free(before);
	free(after);
	free(db);
}

/* Report options: bound to SQL parameters, refused where unused. */
static void test_report_options(void **state)
{
	char *db = fresh_db(tmp, "opts.db");
	struct run r;

	(void)state;
	ingest_fixture(db, "", "succeed/snapshots/allocinfo-v1.txt");
	run_memdb(&r, db, "report zones --by file");
	assert_run_status(&r, 2);
	assert_string_equal(r.err, "memdb: report 'zones' takes --by "
				   "zone|label, not 'file'\n"
				   "memdb: see 'memdb report --help'\n");
	run_free(&r);
	run_memdb(&r, db, "report fragmentation --from 1");
	assert_run_status(&r, 2);
	run_free(&r);
	run_memdb(&r, db, "report allocinfo --by line");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "takes --by tag|function|file|module|"
				      "label, not 'line'"));
	run_free(&r);
	run_memdb(&r, db, "report allocinfo --sort size");
	assert_run_status(&r, 2);
	run_free(&r);
	run_memdb(&r, db, "report growth --from 0");
	assert_run_status(&r, 2);
	run_free(&r);
	run_memdb(&r, db, "report growth --to -3");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "--to takes a source id, label or "
				      "date, not '-3'"));
	run_free(&r);
	/* not a number: a label, which no source has */
	run_memdb(&r, db, "report growth --to x");
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "no source labelled 'x'"));
	run_free(&r);
	run_memdb(&r, db, "report growth --from 9 --to 1");
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "no such source"));
	assert_non_null(strstr(r.err, "from=9"));
	run_free(&r);
	run_memdb(&r, db, "report growth --source all");
	assert_run_status(&r, 2); /* a bad command line */
	assert_non_null(strstr(r.err, "compares two snapshots"));
	run_free(&r);
	/* a snapshot compared with itself changes nothing */
	run_memdb(&r, db, "report growth --from 1 --to 1 --format csv");
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "\ntotal,,,,1065344,1065344,0,263,263,"
				      "0,\n"));
	run_free(&r);
	run(&r, "'%s' report --help", env("MEMDB"));
	assert_non_null(strstr(r.out, "--from ID"));
	run_free(&r);
	free(db);
}

/* --time, the mtime default, --label, --format, v_snapshots. */
static void test_ingest_options(void **state)
{
	char *db = fresh_db(tmp, "time.db"), *p, *copy, *t, *before, *after;
	struct run r;

	(void)state;
	p = fixture("succeed/snapshots/allocinfo-noheader.txt");
	copy = path_in(tmp, "allocinfo.copy");
	run(&r, "cp '%s' '%s' && touch -d '2020-01-02 03:04:05 UTC' '%s'", p,
	    copy, copy);
	assert_run_ok(&r);
	run_free(&r);
	free(p);
	ingest_ok(db, "--label box '%s'", copy);
	ingest_ok(db, "--force --time 2026-11-22T10:15:30+02:00 '%s'", copy);
	ingest_ok(db, "--force --time @1732270000 --label box '%s'", copy);
	t = db_text(db, "SELECT id, taken_at, coalesce(label, '-') "
			"FROM source");
	/* each --force replaced the one before */
	assert_string_equal(t, "3,2024-11-22T10:06:40Z,box\n");
	free(t);
	run_memdb(&r, db, "ingest --force --time 2026-11-22 '%s'", copy);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "source 4: '"));
	assert_non_null(strstr(r.out, "' allocinfo, taken "
				      "2026-11-22T00:00:00Z: 3 tags\n"));
	run_free(&r);
	run_memdb(&r, db, "ingest --force --label box '%s'", copy);
	run_free(&r);
	t = db_text(db, "SELECT taken_at FROM source");
	assert_string_equal(t, "2020-01-02T03:04:05Z\n");
	free(t);
	for (int i = 0; i < 4; i++) {
		static const char *const bad[] = { "yesterday", "2026-02-30",
						   "2026-11-22T25:00",
						   "1969-12-31" };

		run_memdb(&r, db, "ingest --time %s '%s'", bad[i], copy);
		assert_run_status(&r, 2);
		assert_non_null(strstr(r.err, "--time takes"));
		run_free(&r);
	}

	/* --format: an excerpt read as what it is; a wrong format refused
	 * with the database unchanged */
	p = fixture("succeed/snapshots/slabinfo-noheader.txt");
	run_memdb(&r, db, "ingest --format slabinfo '%s'", p);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "slabinfo, taken "));
	run_free(&r);
	before = db_counts(db);
	run_memdb(&r, db, "ingest --format allocinfo --force '%s'", p);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "malformed allocinfo line in '"));
	assert_non_null(strstr(r.err, "': line=1 expected=size "
				      "got='kmalloc-64'\n"));
	run_free(&r);
	run_memdb(&r, db, "ingest --format vmstat-q '%s'", p);
	assert_run_status(&r, 2);
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(p);

	/* a series: v_snapshots numbers it by time */
	p = fixture("succeed/snapshots/allocinfo-t0.txt");
	ingest_ok(db, "--label box --time 2019-01-01 '%s'", p);
	free(p);
	t = db_text(db, "SELECT source_id, series_pos, series_len, tags "
			"FROM v_snapshots WHERE label = 'box' "
			"ORDER BY series_pos");
	assert_string_equal(t, "7,1,2,5\n5,2,2,3\n");
	free(t);
	free(copy);
	free(db);
}

/* Same bytes again: a no-op; --force replaces; --delete removes rows. */
static void test_reingest_delete(void **state)
{
	char *db = fresh_db(tmp, "re.db"), *p, *q, *empty, *before, *after;
	struct run r;

	(void)state;
	p = fixture("succeed/memstat/zone_stats-le-4.bin");
	q = fixture("succeed/snapshots/allocinfo-v2.txt");
	ingest_ok(db, "'%s'", q);
	empty = db_counts(db);
	ingest_ok(db, "'%s'", p);
	before = db_counts(db);
	run_memdb(&r, db, "ingest '%s'", p);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "source 2: '"));
	assert_non_null(strstr(r.out, "already ingested"));
	run_free(&r);
	run_memdb(&r, db, "ingest --force '%s'", p);
	assert_non_null(strstr(r.out, "source 3: '"));
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(after);
	run_memdb(&r, db, "sources --delete 3");
	assert_run_ok(&r);
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(empty, after);
	assert_int_equal(db_int(db, "SELECT count(*) FROM zone_cpu"), 0);
	free(after);
	/* the report header of a snapshot source */
	run_memdb(&r, db, "report allocinfo --top 1");
	assert_non_null(strstr(r.out, "memdb report allocinfo: source 1: "
				      "allocinfo 2.0 '"));
	assert_non_null(strstr(r.out, "note: source 1: 2 tags say "
				      "accurate:no"));
	run_free(&r);
	free(empty);
	free(before);
	free(p);
	free(q);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zone_stats_by_hand),
		cmocka_unit_test(test_three_forms_agree),
		cmocka_unit_test(test_malloc_by_hand),
		cmocka_unit_test(test_text_variants),
		cmocka_unit_test(test_allocinfo_reports),
		cmocka_unit_test(test_growth_allocinfo),
		cmocka_unit_test(test_growth_slabinfo_real),
		cmocka_unit_test(test_report_options),
		cmocka_unit_test(test_ingest_options),
		cmocka_unit_test(test_reingest_delete),
	};

	return cmocka_run_group_tests_name("memdb snapshots", tests,
					   setup_all, teardown_all);
}
