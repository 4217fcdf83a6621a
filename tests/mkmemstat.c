// SPDX-License-Identifier: MIT
/*
 * mkmemstat: write what FreeBSD would give for one described kernel state
 * (the tables below): the binary streams of `sysctl -b vm.zone_stats` and
 * `sysctl -b kern.malloc_stats` in either byte order and with any
 * maxcpus, and the `vmstat -z` / `vmstat -m` text and --libxo json that
 * vmstat prints for the same state (formatted as usr.bin/vmstat/vmstat.c
 * formats it, the derived figures computed as libmemstat computes them).
 *
 *   mkmemstat [--order little|big] [--maxcpus N] [--header H] [--wrap]
 *             WHAT OUT
 *     WHAT: zone-stats, malloc-stats, vmstat-z, vmstat-z-json, vmstat-m,
 *           vmstat-m-json
 *     H:    vmstat -z: xdom (default; ... FAIL SLEEP XDOM), failsleep
 *           (... FAILSLEEP XDOMAIN, then a blank line), noxdomain
 *           (... REQ FAIL SLEEP); vmstat -m: kib (default; Type InUse
 *           MemUse Requests Size(s)), highuse (... MemUse HighUse ...)
 *     --wrap: json inside {"__version": "2", "vmstat": {...}}
 *   mkmemstat --fixtures TESTDATA_DIR   (the committed fixtures)
 *
 * Per-CPU figures sit on the first and the last CPU, so every maxcpus
 * gives the same sums.  The figures each output must decode to are worked
 * out by hand in tests/test_snapshot.c and tests/test_snapshot_cli.c from
 * the tables as written here, not computed from them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/bytes.h"

struct uzone {
	const char *name;
	uint32_t align, size, limit, keg_free, zone_free, flags;
	uint64_t allocs, frees, fails, sleeps, xdomain;
	uint64_t c_allocs[2], c_frees[2], c_cache[2]; /* first, last CPU */
};

/* UMA zones: see test_snapshot_cli.c for what each must give. */
static const struct uzone zones[] = {
	{ "UMA Kegs", 63, 384, 0, 0, 0, 0, 174, 0, 0, 0, 0,
	  { 0, 0 }, { 0, 0 }, { 0, 0 } },
	/* primary zone of the mbuf keg: the keg's 50 free items count */
	{ "mbuf", 7, 256, 0, 50, 10, 0, 1000, 900, 0, 0, 3,
	  { 100, 50 }, { 30, 20 }, { 5, 7 } },
	/* secondary zone on the same keg: its 50 do not count again */
	{ "mbuf_packet", 7, 256, 0, 50, 4, 1, 500, 480, 2, 0, 0,
	  { 40, 0 }, { 35, 5 }, { 3, 1 } },
	/* a name starting with a digit; FAIL wider than its column */
	{ "128 Bucket", 7, 1024, 0, 2, 87, 0, 2000, 1862, 10295, 0, 0,
	  { 100, 5 }, { 100, 5 }, { 0, 0 } },
	/* one name, two NUMA domains */
	{ "vm pgcache", 7, 4096, 0, 0, 30, 0, 5000, 4000, 0, 1, 0,
	  { 10, 20 }, { 5, 5 }, { 8, 2 } },
	{ "vm pgcache", 7, 4096, 0, 0, 12, 0, 3000, 2990, 0, 0, 7,
	  { 0, 0 }, { 0, 0 }, { 0, 6 } },
	/* counter(9) snapshot showing more frees than allocations */
	{ "64 pcpu", 7, 8, 0, 3, 0, 0, 10, 12, 0, 0, 0,
	  { 5, 0 }, { 4, 2 }, { 1, 0 } },
	/* a zone with a limit, failures and sleeps */
	{ "socket", 7, 864, 25600, 6, 1, 0, 300, 250, 1, 2, 0,
	  { 10, 10 }, { 5, 5 }, { 2, 2 } },
};

struct mtype {
	const char *name;
	uint64_t memalloced[2], memfreed[2], numallocs[2], numfrees[2];
	uint64_t sizemask[2];
};

/* malloc(9) types */
static const struct mtype types[] = {
	{ "devbuf", { 40960, 8192 }, { 4096, 0 }, { 100, 20 }, { 10, 0 },
	  { 0x3, 0x10 } },
	{ "CAM dev queue", { 1000, 0 }, { 0, 0 }, { 5, 0 }, { 0, 0 },
	  { 0x4, 0 } },
	/* large allocations only: no size class, an empty Size(s) */
	{ "temp", { 3000000, 1000000 }, { 3000000, 0 }, { 3, 1 }, { 3, 0 },
	  { 0, 0 } },
};

#define NZONES (sizeof(zones) / sizeof(zones[0]))
#define NTYPES (sizeof(types) / sizeof(types[0]))

struct opts {
	enum mdb_order order;
	uint32_t maxcpus, version, count; /* count 0: the tables' */
	const char *header;
	int wrap;
	long cut; /* >= 0: write only this many bytes */
};

/* printf into a new malloc'ed string (no path length limit), freeing
 * @old. */
static char *xfmt(char *old, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *xfmt(char *old, const char *fmt, ...)
{
	va_list ap;
	char *s;

	free(old);
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	va_end(ap);
	return s;
}

static void die(const char *what)
{
	fprintf(stderr, "mkmemstat: %s: %s\n", what, strerror(errno));
	exit(1);
}

static FILE *create(const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		die(path);
	return f;
}

static void finish(FILE *f, const char *path)
{
	if (ferror(f) || fclose(f))
		die(path);
}

/* ---- the derived figures, as libmemstat computes them --------------- */

struct uma_fig {
	uint64_t used, free, req;
};

static struct uma_fig uma_fig(const struct uzone *z)
{
	uint64_t a = z->allocs + z->c_allocs[0] + z->c_allocs[1];
	uint64_t f = z->frees + z->c_frees[0] + z->c_frees[1];
	struct uma_fig r;

	if (a < f)
		a = f;
	r.used = a - f;
	r.req = a;
	r.free = z->c_cache[0] + z->c_cache[1] + z->zone_free +
		 (z->flags & 1 ? 0 : z->keg_free);
	return r;
}

struct malloc_fig {
	uint64_t bytes, used, req, mask;
};

static struct malloc_fig malloc_fig(const struct mtype *t)
{
	struct malloc_fig r;

	r.bytes = t->memalloced[0] + t->memalloced[1] - t->memfreed[0] -
		  t->memfreed[1];
	r.used = t->numallocs[0] + t->numallocs[1] - t->numfrees[0] -
		 t->numfrees[1];
	r.req = t->numallocs[0] + t->numallocs[1];
	r.mask = t->sizemask[0] | t->sizemask[1];
	return r;
}

/* ---- binary streams -------------------------------------------------- */

/* The slot of CPU @c among the first/last pair (-1: an idle CPU). */
static int slot(uint32_t c, uint32_t maxcpus)
{
	return c == 0 ? 0 : c == maxcpus - 1 ? 1 : -1;
}

static void stream_header(FILE *f, const struct opts *o, uint32_t count)
{
	uint8_t h[16] = { 0 };

	put_u32(h, o->version, o->order);
	put_u32(h + 4, o->maxcpus, o->order);
	put_u32(h + 8, o->count ? o->count : count, o->order);
	fwrite(h, 1, sizeof(h), f);
}

/* With one CPU, the first and the last are the same: add both up. */
static uint64_t cpu_val(const uint64_t v[2], uint32_t c, uint32_t maxcpus)
{
	int s = slot(c, maxcpus);

	if (maxcpus == 1)
		return v[0] + v[1];
	return s < 0 ? 0 : v[s];
}

static void write_zone_stats(FILE *f, const struct opts *o)
{
	enum mdb_order bo = o->order;

	stream_header(f, o, NZONES);
	for (size_t i = 0; i < NZONES; i++) {
		const struct uzone *z = &zones[i];
		uint8_t h[120] = { 0 };

		strncpy((char *)h, z->name, 31);
		put_u32(h + 32, z->align, bo);
		put_u32(h + 36, z->size, bo);
		put_u32(h + 40, z->size, bo);         /* rsize */
		put_u32(h + 44, 0, bo);               /* maxpages */
		put_u32(h + 48, z->limit, bo);
		put_u32(h + 52, 1, bo);               /* pages */
		put_u32(h + 56, z->keg_free, bo);
		put_u32(h + 60, z->zone_free, bo);
		put_u32(h + 64, 16, bo);              /* bucketsize */
		put_u32(h + 68, z->flags, bo);
		put_u64(h + 72, z->allocs, bo);
		put_u64(h + 80, z->frees, bo);
		put_u64(h + 88, z->fails, bo);
		put_u64(h + 96, z->sleeps, bo);
		put_u64(h + 104, z->xdomain, bo);
		put_u64(h + 112, 0, bo);              /* reserved */
		fwrite(h, 1, sizeof(h), f);
		for (uint32_t c = 0; c < o->maxcpus; c++) {
			uint8_t p[64] = { 0 };

			put_u64(p, cpu_val(z->c_allocs, c, o->maxcpus), bo);
			put_u64(p + 8, cpu_val(z->c_frees, c, o->maxcpus), bo);
			put_u64(p + 16, cpu_val(z->c_cache, c, o->maxcpus), bo);
			fwrite(p, 1, sizeof(p), f);
		}
	}
}

static void write_malloc_stats(FILE *f, const struct opts *o)
{
	enum mdb_order bo = o->order;

	stream_header(f, o, NTYPES);
	for (size_t i = 0; i < NTYPES; i++) {
		const struct mtype *t = &types[i];
		uint8_t name[32] = { 0 };

		strncpy((char *)name, t->name, 31);
		fwrite(name, 1, sizeof(name), f);
		for (uint32_t c = 0; c < o->maxcpus; c++) {
			uint8_t p[64] = { 0 };
			int s = slot(c, o->maxcpus);

			put_u64(p, cpu_val(t->memalloced, c, o->maxcpus), bo);
			put_u64(p + 8, cpu_val(t->memfreed, c, o->maxcpus), bo);
			put_u64(p + 16, cpu_val(t->numallocs, c, o->maxcpus),
				bo);
			put_u64(p + 24, cpu_val(t->numfrees, c, o->maxcpus),
				bo);
			put_u64(p + 32, o->maxcpus == 1 ?
				t->sizemask[0] | t->sizemask[1] :
				s < 0 ? 0 : t->sizemask[s], bo);
			fwrite(p, 1, sizeof(p), f);
		}
	}
}

/* ---- vmstat text and json -------------------------------------------- */

static void write_vmstat_z(FILE *f, const struct opts *o)
{
	const char *h = o->header ? o->header : "xdom";
	int xdomain = strcmp(h, "noxdomain") != 0;

	if (!strcmp(h, "failsleep"))
		fprintf(f, "%-20s %6s %6s %8s %8s %8s %8s%4s %4s\n\n", "ITEM",
			"SIZE", "LIMIT", "USED", "FREE", "REQ", "FAIL",
			"SLEEP", "XDOMAIN");
	else if (!strcmp(h, "noxdomain"))
		fprintf(f, "%-20s %6s %6s %8s %8s %8s %4s %4s\n\n", "ITEM",
			"SIZE", "LIMIT", "USED", "FREE", "REQ", "FAIL",
			"SLEEP");
	else
		fprintf(f, "%-20s %6s %6s %8s %8s %8s %8s %4s %4s\n", "ITEM",
			"SIZE", "LIMIT", "USED", "FREE", "REQ", "FAIL",
			"SLEEP", "XDOM");
	for (size_t i = 0; i < NZONES; i++) {
		const struct uzone *z = &zones[i];
		struct uma_fig r = uma_fig(z);
		char name[40];

		snprintf(name, sizeof(name), "%s:", z->name);
		fprintf(f, "%-20s %6u, %6u,%8" PRIu64 ",%8" PRIu64 ",%8" PRIu64
			",%4" PRIu64 ",%4" PRIu64, name, z->size, z->limit,
			r.used, r.free, r.req, z->fails, z->sleeps);
		if (xdomain)
			fprintf(f, ",%4" PRIu64, z->xdomain);
		fprintf(f, "\n");
	}
}

static void json_open(FILE *f, const struct opts *o)
{
	fprintf(f, "{\"__version\": \"%s\", ", o->wrap ? "2" : "1");
	if (o->wrap)
		fprintf(f, "\"vmstat\": {");
}

static void json_close(FILE *f, const struct opts *o)
{
	fprintf(f, o->wrap ? "}}\n" : "}\n");
}

static void write_vmstat_z_json(FILE *f, const struct opts *o)
{
	json_open(f, o);
	fprintf(f, "\"memory-zone-statistics\": {\"zone\": [");
	for (size_t i = 0; i < NZONES; i++) {
		const struct uzone *z = &zones[i];
		struct uma_fig r = uma_fig(z);

		fprintf(f, "%s{\"name\":\"%s\",\"size\":%u,\"limit\":%u,"
			"\"used\":%" PRIu64 ",\"free\":%" PRIu64
			",\"requests\":%" PRIu64 ",\"fail\":%" PRIu64
			",\"sleep\":%" PRIu64 ",\"xdomain\":%" PRIu64 "}",
			i ? ", " : "", z->name, z->size, z->limit, r.used,
			r.free, r.req, z->fails, z->sleeps, z->xdomain);
	}
	fprintf(f, "]}");
	json_close(f, o);
}

/* Size classes of a mask as vmstat lists them: bit i = 16 << i. */
static void sizes(char *buf, size_t len, uint64_t mask, const char *sep)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < 32; i++)
		if (mask & (1ull << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%d",
					      n ? sep : "", 1 << (i + 4));
}

static void write_vmstat_m(FILE *f, const struct opts *o)
{
	int high = o->header && !strcmp(o->header, "highuse");

	if (high)
		fprintf(f, "%13s %5s %6s %7s %8s  %s\n", "Type", "InUse",
			"MemUse", "HighUse", "Requests", "Size(s)");
	else
		fprintf(f, "%13s %5s %6s %8s  %s\n", "Type", "InUse",
			"MemUse", "Requests", "Size(s)");
	for (size_t i = 0; i < NTYPES; i++) {
		struct malloc_fig r = malloc_fig(&types[i]);
		char sz[256];

		sizes(sz, sizeof(sz), r.mask, ",");
		fprintf(f, "%13s %5" PRIu64 " %5" PRIu64 "K", types[i].name,
			r.used, (r.bytes + 1023) / 1024);
		if (high)
			fprintf(f, " %7s", "-");
		fprintf(f, " %8" PRIu64 "  %s\n", r.req, sz);
	}
}

static void write_vmstat_m_json(FILE *f, const struct opts *o)
{
	json_open(f, o);
	fprintf(f, "\"malloc-statistics\": {\"memory\": [");
	for (size_t i = 0; i < NTYPES; i++) {
		struct malloc_fig r = malloc_fig(&types[i]);
		char sz[256];

		sizes(sz, sizeof(sz), r.mask, ",");
		fprintf(f, "%s{\"type\":\"%s\",\"in-use\":%" PRIu64
			",\"memory-use\":%" PRIu64 ",\"requests\":%" PRIu64
			",\"size\":[%s]}", i ? ", " : "", types[i].name,
			r.used, (r.bytes + 1023) / 1024, r.req, sz);
	}
	fprintf(f, "]}");
	json_close(f, o);
}

static const struct {
	const char *what;
	void (*write)(FILE *f, const struct opts *o);
} writers[] = {
	{ "zone-stats", write_zone_stats },
	{ "malloc-stats", write_malloc_stats },
	{ "vmstat-z", write_vmstat_z },
	{ "vmstat-z-json", write_vmstat_z_json },
	{ "vmstat-m", write_vmstat_m },
	{ "vmstat-m-json", write_vmstat_m_json },
};

static void write_one(const char *what, const char *path, const struct opts *o)
{
	FILE *f;

	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
		if (strcmp(writers[i].what, what))
			continue;
		f = create(path);
		writers[i].write(f, o);
		finish(f, path);
		if (o->cut >= 0 && truncate(path, o->cut) < 0)
			die(path);
		return;
	}
	fprintf(stderr, "mkmemstat: unknown output '%s'\n", what);
	exit(2);
}

static void mkdirs(const char *dir)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die(dir);
}

static void fixtures(const char *top)
{
	static const uint32_t cpus[] = { 1, 4 };
	char *dir = NULL, *path = NULL;
	struct opts o = { MDB_ORDER_LITTLE, 1, 1, 0, NULL, 0, -1 };

	dir = xfmt(dir, "%s/succeed/memstat", top);
	mkdirs(dir);
	for (int b = 0; b < 2; b++) {
		o.order = b ? MDB_ORDER_BIG : MDB_ORDER_LITTLE;
		for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++) {
			o.maxcpus = cpus[c];
			path = xfmt(path, "%s/zone_stats-%s-%u.bin",
				 dir, b ? "be" : "le", cpus[c]);
			write_one("zone-stats", path, &o);
			path = xfmt(path, "%s/malloc_stats-%s-%u.bin", dir,
				 b ? "be" : "le", cpus[c]);
			write_one("malloc-stats", path, &o);
		}
	}
	o.order = MDB_ORDER_LITTLE;
	o.maxcpus = 4;
	path = xfmt(path, "%s/vmstat-z.txt", dir);
	write_one("vmstat-z", path, &o);
	o.header = "failsleep";
	path = xfmt(path, "%s/vmstat-z-failsleep.txt", dir);
	write_one("vmstat-z", path, &o);
	o.header = "noxdomain";
	path = xfmt(path, "%s/vmstat-z-noxdomain.txt", dir);
	write_one("vmstat-z", path, &o);
	o.header = NULL;
	path = xfmt(path, "%s/vmstat-z.json", dir);
	write_one("vmstat-z-json", path, &o);
	o.wrap = 1;
	path = xfmt(path, "%s/vmstat-z-v2.json", dir);
	write_one("vmstat-z-json", path, &o);
	o.wrap = 0;
	path = xfmt(path, "%s/vmstat-m.txt", dir);
	write_one("vmstat-m", path, &o);
	o.header = "highuse";
	path = xfmt(path, "%s/vmstat-m-highuse.txt", dir);
	write_one("vmstat-m", path, &o);
	o.header = NULL;
	path = xfmt(path, "%s/vmstat-m.json", dir);
	write_one("vmstat-m-json", path, &o);

	/* failures: each has its expected message in NAME.err */
	dir = xfmt(dir, "%s/fail", top);
	mkdirs(dir);
	o.maxcpus = 2;
	/* the second zone record cut short: 16 + 248 + 100 bytes */
	o.cut = 16 + 248 + 100;
	path = xfmt(path, "%s/memstat-truncated.bin", dir);
	write_one("zone-stats", path, &o);
	/* a header counting 20 records over the 8 written */
	o.cut = -1;
	o.count = 20;
	path = xfmt(path, "%s/memstat-count-too-large.bin", dir);
	write_one("zone-stats", path, &o);
	/* a stream version memdb does not know, big-endian */
	o.count = 0;
	o.version = 2;
	o.order = MDB_ORDER_BIG;
	path = xfmt(path, "%s/memstat-version-2.bin", dir);
	write_one("malloc-stats", path, &o);
	free(path);
	free(dir);
}

int main(int argc, char **argv)
{
	struct opts o = { MDB_ORDER_LITTLE, 1, 1, 0, NULL, 0, -1 };
	int i = 1;

	if (argc == 3 && !strcmp(argv[1], "--fixtures")) {
		fixtures(argv[2]);
		return 0;
	}
	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--wrap")) {
			o.wrap = 1;
		} else if (!strcmp(argv[i], "--order")) {
			o.order = !strcmp(argv[++i], "big") ? MDB_ORDER_BIG :
				  MDB_ORDER_LITTLE;
		} else if (!strcmp(argv[i], "--maxcpus")) {
			o.maxcpus = (uint32_t)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--header")) {
			o.header = argv[++i];
		} else {
			break;
		}
	}
	if (argc - i != 2 || !o.maxcpus) {
		fprintf(stderr, "usage: mkmemstat [--order little|big] "
				"[--maxcpus N] [--header H] [--wrap] WHAT OUT\n"
				"       mkmemstat --fixtures TESTDATA_DIR\n");
		return 2;
	}
	write_one(argv[i], argv[i + 1], &o);
	return 0;
}
