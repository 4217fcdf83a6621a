// SPDX-License-Identifier: MIT
/*
 * trace-cmd's trace.dat (docs/formats.md §6.2): file version 6 (one
 * sequential layout) and 7 (sections found through options sections,
 * optionally zstd-compressed).
 *
 * libtracecmd reads the file: it parses the event formats the file
 * carries into a tep handle, decompresses, and walks each CPU's
 * ring-buffer pages.  The kmem events are decoded by field name with
 * those formats (tep_kmem.c); the CPUs are merged by timestamp, ties to
 * the lower CPU, as `trace-cmd report` prints them.
 *
 * libtracecmd trusts the sizes and offsets it reads (it mallocs what a
 * size field says, prints to stdout on a cut file, dereferences what a
 * failed parse returns), so memdb walks the whole structure first: every
 * size and offset inside the file, every string terminated, the options
 * libtracecmd parses well-formed, compressed sections decompressing to
 * the size they declare.  A file that fails is refused at its offset and
 * never reaches the library.  Debian's libtracecmd decompresses zstd
 * only: other algorithms are refused by name.
 *
 * libtracecmd reads the file itself: its metadata and compressed chunks
 * with read(2), uncompressed CPU data through mmap(2) of the descriptor.
 * A file that shrinks meanwhile must not be stored as complete: a read
 * cut short just ends the records, so the file's stamp (size, mtime,
 * inode) is compared after each stretch of reading; a page of the
 * library's mappings gone from the file raises SIGBUS, which the guard
 * around the reading (common/file.h) turns into a page of zeros and a
 * refusal.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>
#include <zstd.h>

#include "../hash.h"
#include "../input.h"
#include "tep_kmem.h"
#include "tracedat.h"

#define TDAT_FORMAT "trace-dat"
#define MAGIC "\027\010\104tracing"
#define MAGIC_LEN 10
#define MAX_CPUS 4096
#define MAX_SECTIONS 4096     /* options sections chained */
#define MAX_SECTION_BYTES (64u << 20) /* decompressed (kallsyms: ~10 MB) */

enum { OPT_DONE, OPT_DATE, OPT_CPUSTAT, OPT_BUFFER, OPT_TRACECLOCK,
       OPT_UNAME, OPT_HOOK, OPT_OFFSET, OPT_CPUCOUNT, OPT_VERSION,
       OPT_PROCMAPS, OPT_TRACEID, OPT_TIME_SHIFT, OPT_GUEST, OPT_TSC2NSEC,
       OPT_STRINGS, OPT_HEADER_INFO, OPT_FTRACE_EVENTS, OPT_EVENT_FORMATS,
       OPT_KALLSYMS, OPT_PRINTK, OPT_CMDLINES, OPT_BUFFER_TEXT };

/* A stretch of bytes being walked: the file, or a decompressed section. */
struct rd {
	const uint8_t *p;
	size_t len, pos;
	uint64_t base;  /* file offset of p[0] */
	int packed;     /* decompressed: errors name the section's offset */
};

struct tdat {
	char *path;
	struct mdb_map map;
	enum mdb_order order;
	int version, long_size;
	uint32_t page_size;
	int compressed;        /* v7: sections may be zstd-compressed */
	int ncpus;             /* CPUs of the top buffer's data */
	int has_data;          /* a flyrecord buffer was seen */
	uint64_t data_bytes;   /* its CPU data, decompressed: for progress */
	int zdata;             /* its CPU data is compressed */
	size_t page_hdr;       /* ring-buffer page header: timestamp, commit */
	int clock_opt;         /* v6: a trace clock option (its text follows
				* the CPU data table) */
	uint8_t *ksyms;        /* the kallsyms the file carries (a copy) */
	size_t ksyms_len;
	char release[128];
	struct mdb_error *e;
	int fd;                /* the file libtracecmd reads, for its stamp */
	struct mdb_stamp stamp; /* as walked: its size then, the rest when
				 * libtracecmd got it */
	struct tracecmd_input *h;
	struct tep_kmem km;
	int have_km;
	struct tep_record **recs;
};

/* ---- errors ----------------------------------------------------------- */

static uint64_t rd_off(const struct rd *r)
{
	return r->packed ? r->base : r->base + r->pos;
}

static int tdat_bad(struct tdat *t, int code, uint64_t off, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

static int tdat_bad(struct tdat *t, int code, uint64_t off, const char *fmt,
		    ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mdb_error_set(t->e, code, t->path, (int64_t)off, -1, NULL);
	mdb_error_msg(t->e, "trace.dat: %s", msg);
	return -code;
}

/* @n more bytes of @r, or an error naming @what. */
static int rd_need(struct tdat *t, const struct rd *r, uint64_t n,
		   const char *what)
{
	if (n <= r->len - r->pos)
		return 0;
	if (r->packed)
		return tdat_bad(t, MDB_E_CORRUPT, r->base,
				"%s runs past the end of its section", what);
	return tdat_bad(t, MDB_E_TRUNCATED, rd_off(r),
			"file cut short in %s (need %" PRIu64 " bytes, "
			"have %zu)", what, n, r->len - r->pos);
}

static int rd_num(struct tdat *t, struct rd *r, int size, uint64_t *v,
		  const char *what)
{
	int ret = rd_need(t, r, (uint64_t)size, what);

	if (ret)
		return ret;
	if (size == 2)
		*v = get_u16(r->p + r->pos, t->order);
	else if (size == 4)
		*v = get_u32(r->p + r->pos, t->order);
	else
		*v = get_u64(r->p + r->pos, t->order);
	r->pos += (size_t)size;
	return 0;
}

/* A NUL-terminated string. */
static int rd_str(struct tdat *t, struct rd *r, const char **s,
		  const char *what)
{
	const uint8_t *nul = r->pos < r->len ?
		memchr(r->p + r->pos, 0, r->len - r->pos) : NULL;

	if (!nul)
		return rd_need(t, r, r->len - r->pos + 1, what);
	*s = (const char *)r->p + r->pos;
	r->pos = (size_t)(nul - r->p) + 1;
	return 0;
}

/* A size of @width bytes, then that many bytes. */
static int rd_blob(struct tdat *t, struct rd *r, int width,
		   const uint8_t **data, size_t *n, const char *what)
{
	uint64_t size;
	int ret = rd_num(t, r, width, &size, what);

	if (!ret)
		ret = rd_need(t, r, size, what);
	if (ret)
		return ret;
	if (data)
		*data = r->p + r->pos;
	if (n)
		*n = (size_t)size;
	r->pos += (size_t)size;
	return 0;
}

static int rd_expect(struct tdat *t, struct rd *r, const char *s, size_t n,
		     const char *what)
{
	uint64_t off = rd_off(r);
	int ret = rd_need(t, r, n, what);

	if (ret)
		return ret;
	if (memcmp(r->p + r->pos, s, n))
		return tdat_bad(t, MDB_E_CORRUPT, off, "expected %s", what);
	r->pos += n;
	return 0;
}

/* ---- the metadata both versions share ---------------------------------- */

/* The "size:N" of header_page's line for @field, or 0. */
static unsigned header_size(const uint8_t *hp, size_t n, const char *field)
{
	char *text = strndup((const char *)hp, n), *p, *q;
	unsigned size = 0;

	if (text && (p = strstr(text, field)) && (q = strstr(p, "size:")))
		size = (unsigned)strtoul(q + 5, NULL, 10);
	free(text);
	return size;
}

/*
 * The page header libtracecmd reads: an 8-byte timestamp (it refuses
 * anything else), then commit, a kernel long.
 */
static int page_layout(struct tdat *t, const struct rd *r, const uint8_t *hp,
		       size_t n)
{
	unsigned ts = header_size(hp, n, "timestamp;");
	unsigned commit = header_size(hp, n, "commit;");

	if (ts != 8 || (commit != 4 && commit != 8))
		return tdat_bad(t, MDB_E_CORRUPT, rd_off(r), "header_page with "
				"a %u-byte timestamp and a %u-byte commit",
				ts, commit);
	t->page_hdr = 8 + commit;
	return 0;
}

static int walk_header_info(struct tdat *t, struct rd *r)
{
	const uint8_t *hp;
	size_t n;
	int ret = rd_expect(t, r, "header_page", 12, "\"header_page\"");

	if (!ret)
		ret = rd_blob(t, r, 8, &hp, &n, "header_page");
	if (!ret)
		ret = page_layout(t, r, hp, n);
	if (!ret)
		ret = rd_expect(t, r, "header_event", 13, "\"header_event\"");
	if (!ret)
		ret = rd_blob(t, r, 8, NULL, NULL, "header_event");
	return ret;
}

/*
 * The print fmt of an event format, roughly as the kernel writes it: a
 * quoted format, then arguments whose string literals end and whose
 * brackets balance, with none of the characters C expressions never
 * hold; the line ends outside the quotes (a format may hold a newline:
 * ext4_getfsmap_mapping's does).  libtraceevent leaks on some malformed
 * ones; this catches the damage fuzzing produced (a bracket or a stray
 * '#'), not every kind.
 */
static int print_fmt_ok(const char *p, size_t n)
{
	const char *pf = memmem(p, n, "\nprint fmt: \"", 13), *e = p + n;
	int depth = 0, quoted = 0;

	if (!pf)
		return 1;
	for (p = pf + 12; p < e && *p && (quoted || *p != '\n'); p++) {
		if (quoted) {
			if (*p == '\\' && p + 1 < e)
				p++;
			else if (*p == '"')
				quoted = 0;
		} else if (*p == '"') {
			quoted = 1;
		} else if (*p == '(' || *p == '[') {
			depth++;
		} else if (*p == ')' || *p == ']') {
			if (--depth < 0)
				return 0;
		} else if (strchr("#$@`\\", *p)) {
			return 0;
		}
	}
	return !quoted && !depth;
}

/*
 * An event format: a 64-bit size and the text, whose field list must be
 * as the kernel writes it (libtraceevent leaks on malformed ones, and
 * libtracecmd hands it every format of the file).
 */
static int walk_format(struct tdat *t, struct rd *r, const char *what)
{
	uint64_t off = rd_off(r) + 8;
	const uint8_t *fmt;
	size_t n;
	int ret = rd_blob(t, r, 8, &fmt, &n, what);

	if (!ret && !mdb_tep_kmem_fields_ok((const char *)fmt, n))
		ret = tdat_bad(t, MDB_E_CORRUPT, r->packed ? r->base : off,
			       "%s with a malformed field list", what);
	if (!ret && !print_fmt_ok((const char *)fmt, n))
		ret = tdat_bad(t, MDB_E_CORRUPT, r->packed ? r->base : off,
			       "%s with a malformed print fmt", what);
	return ret;
}

static int walk_ftrace_events(struct tdat *t, struct rd *r)
{
	uint64_t count;
	int ret = rd_num(t, r, 4, &count, "ftrace event count");

	for (uint64_t i = 0; !ret && i < count; i++)
		ret = walk_format(t, r, "ftrace event format");
	return ret;
}

static int walk_event_formats(struct tdat *t, struct rd *r)
{
	uint64_t systems, count;
	int ret = rd_num(t, r, 4, &systems, "event system count");

	for (uint64_t i = 0; !ret && i < systems; i++) {
		const char *name;

		ret = rd_str(t, r, &name, "event system name");
		if (!ret)
			ret = rd_num(t, r, 4, &count, "event count");
		for (uint64_t j = 0; !ret && j < count; j++)
			ret = walk_format(t, r, "event format");
	}
	return ret;
}

static int walk_kallsyms(struct tdat *t, struct rd *r)
{
	const uint8_t *data;
	size_t n;
	int ret = rd_blob(t, r, 4, &data, &n, "kallsyms");

	if (ret || !n || t->ksyms)
		return ret;
	t->ksyms = malloc(n);
	if (!t->ksyms)
		return mdb_error_set(t->e, MDB_E_NOMEM, t->path, -1, -1, NULL);
	memcpy(t->ksyms, data, n);
	t->ksyms_len = n;
	return 0;
}

/* ---- options ---------------------------------------------------------- */

/* Option payload @r holds a NUL-terminated string. */
static int opt_string(struct tdat *t, const struct rd *r, const char *what)
{
	if (!r->len || r->p[r->len - 1])
		return tdat_bad(t, MDB_E_CORRUPT, rd_off(r),
				"%s option not NUL-terminated", what);
	return 0;
}

/* "sysname nodename release ...": the release. */
static void opt_uname(struct tdat *t, const struct rd *r)
{
	const char *s = (const char *)r->p;
	int skip = 0, n = 0;

	if (sscanf(s, "%*s %*s %n%*s%n", &skip, &n) >= 0 && n > skip &&
	    (size_t)(n - skip) < sizeof(t->release))
		snprintf(t->release, sizeof(t->release), "%.*s", n - skip,
			 s + skip);
}

/*
 * Ring-buffer pages @p of @n bytes (whole pages): each page's commit size
 * within the page, as libtracecmd's kbuffer will trust it.  Errors name
 * @off, plus the page's offset unless @packed.
 */
static int check_pages(struct tdat *t, const uint8_t *p, size_t n,
		       uint64_t off, int packed)
{
	if (!t->page_hdr)
		return tdat_bad(t, MDB_E_CORRUPT, off,
				"CPU data before the header_page format");
	for (size_t at = 0; at + t->page_size <= n; at += t->page_size) {
		const uint8_t *c = p + at + 8;
		uint64_t commit = t->page_hdr == 16 ? get_u64(c, t->order) :
						      get_u32(c, t->order);

		commit &= (1u << 27) - 1;
		if (commit > t->page_size - t->page_hdr)
			return tdat_bad(t, MDB_E_CORRUPT,
					packed ? off : off + at + 8,
					"ring-buffer page commit size %" PRIu64
					" past the page end", commit);
	}
	return 0;
}

/* CPU data at @off, @size bytes: in the file; pages unless @z. */
static int check_data(struct tdat *t, const struct rd *r, uint64_t off,
		      uint64_t size, int z)
{
	if (off > t->map.len || size > t->map.len - off)
		return tdat_bad(t, MDB_E_TRUNCATED, rd_off(r),
				"CPU data at %" PRIu64 " of %" PRIu64
				" bytes past the end of the file (%zu bytes)",
				off, size, t->map.len);
	if (z || !size)
		return 0;
	t->data_bytes += size;
	if (!t->page_hdr)
		return tdat_bad(t, MDB_E_CORRUPT, rd_off(r),
				"CPU data before the header_page format");
	if ((off | size) % t->page_size)
		return tdat_bad(t, MDB_E_CORRUPT, rd_off(r),
				"CPU data at %" PRIu64 " of %" PRIu64
				" bytes: not whole pages", off, size);
	return check_pages(t, t->map.data + off, (size_t)size, off, 0);
}

static int open_section(struct tdat *t, uint64_t off, int id, struct rd *out,
			uint8_t **own);

/*
 * Compressed CPU data: a chunk count, then per chunk its compressed and
 * decompressed sizes and the zstd frame, which must decompress to exactly
 * that size (libtracecmd crashes in tracecmd_close when a chunk fails).
 */
static int check_chunks(struct tdat *t, uint64_t off, uint64_t size)
{
	/* trace-cmd 3.1.6 counts the chunks, not their count word */
	struct rd r = { t->map.data + off, (size_t)(size + 4 <= t->map.len - off ?
						    size + 4 : size), 0, off, 0 };
	uint64_t count, csize, usize;
	uint8_t *out = NULL;
	int ret = rd_num(t, &r, 4, &count, "chunk count");

	for (uint64_t i = 0; !ret && i < count; i++) {
		uint64_t at = rd_off(&r);
		uint8_t *grown;

		if ((ret = rd_num(t, &r, 4, &csize, "chunk size")) ||
		    (ret = rd_num(t, &r, 4, &usize, "chunk data size")) ||
		    (ret = rd_need(t, &r, csize, "compressed chunk")))
			break;
		if (!usize || usize > MAX_SECTION_BYTES ||
		    usize % t->page_size) {
			ret = tdat_bad(t, MDB_E_CORRUPT, at, "chunk of %" PRIu64
				       " bytes (page size %u)", usize,
				       t->page_size);
			break;
		}
		grown = realloc(out, usize);
		if (!grown) {
			ret = mdb_error_set(t->e, MDB_E_NOMEM, t->path, -1, -1,
					    NULL);
			break;
		}
		out = grown;
		if (ZSTD_decompress(out, usize, r.p + r.pos, csize) != usize)
			ret = tdat_bad(t, MDB_E_CORRUPT, at, "compressed chunk "
				       "does not decompress to its %" PRIu64
				       " bytes", usize);
		else
			ret = check_pages(t, out, (size_t)usize, at, 1);
		r.pos += (size_t)csize;
		t->data_bytes += usize;
	}
	free(out);
	return ret;
}

/* The flyrecord section at @off: 1 when its CPU data is compressed. */
static int buffer_section(struct tdat *t, uint64_t off)
{
	struct rd sec;
	uint8_t *own;
	int ret = open_section(t, off, -1, &sec, &own);

	free(own);
	if (ret || !(get_u16(t->map.data + off + 2, t->order) & 1))
		return ret;
	if (!t->compressed)
		return tdat_bad(t, MDB_E_CORRUPT, off, "compressed data in a "
				"file that declares no compression");
	return 1;
}

/* The CPUs of a v7 BUFFER option: id, data offset and size each. */
static int buffer_cpus(struct tdat *t, struct rd *r, uint64_t cpus, int z,
		       uint64_t *max)
{
	uint64_t id, doff, dsize;
	uint8_t *seen = calloc(MAX_CPUS, 1);
	int ret = seen ? 0 : mdb_error_set(t->e, MDB_E_NOMEM, t->path, -1, -1,
					   NULL);

	for (uint64_t i = 0; !ret && i < cpus; i++) {
		if ((ret = rd_num(t, r, 4, &id, "buffer CPU")) ||
		    (ret = rd_num(t, r, 8, &doff, "CPU data offset")) ||
		    (ret = rd_num(t, r, 8, &dsize, "CPU data size")))
			break;
		if (id >= MAX_CPUS || seen[id]) {
			ret = tdat_bad(t, MDB_E_CORRUPT, rd_off(r),
				       "CPU id %" PRIu64 " out of range or "
				       "twice", id);
			break;
		}
		seen[id] = 1;
		*max = id + 1 > *max ? id + 1 : *max;
		ret = check_data(t, r, doff, dsize, z);
		if (!ret && z && dsize)
			ret = check_chunks(t, doff, dsize);
	}
	free(seen);
	return ret;
}

/* BUFFER: offset and name; v7: clock, page size, CPUs and their data. */
static int opt_buffer(struct tdat *t, struct rd *r)
{
	uint64_t off, psize, cpus, max = 0;
	const char *name, *clock;
	int z, ret = rd_num(t, r, 8, &off, "buffer offset");

	if (!ret)
		ret = rd_str(t, r, &name, "buffer name");
	if (ret || t->version < 7)
		return ret;
	if ((ret = rd_str(t, r, &clock, "buffer clock")) ||
	    (ret = rd_num(t, r, 4, &psize, "buffer page size")) ||
	    (ret = rd_num(t, r, 4, &cpus, "buffer CPU count")))
		return ret;
	if (cpus > MAX_CPUS || psize != t->page_size)
		return tdat_bad(t, MDB_E_CORRUPT, rd_off(r),
				"buffer of %" PRIu64 " CPUs, page size %"
				PRIu64 " (file: %u)", cpus, psize,
				t->page_size);
	z = buffer_section(t, off);
	if (z < 0)
		return z;
	ret = buffer_cpus(t, r, cpus, z, &max);
	if (!ret && !*name) {
		t->ncpus = (int)max;
		t->has_data = 1;
		t->zdata = z;
	}
	return ret;
}

/* TIME_SHIFT: peer id, flags, CPUs, per CPU count and 3 x count words. */
static int opt_time_shift(struct tdat *t, struct rd *r)
{
	uint64_t v, cpus, count;
	int ret = rd_num(t, r, 8, &v, "time shift peer");

	if (!ret)
		ret = rd_num(t, r, 4, &v, "time shift flags");
	if (!ret)
		ret = rd_num(t, r, 4, &cpus, "time shift CPUs");
	if (!ret && cpus > MAX_CPUS)
		return tdat_bad(t, MDB_E_CORRUPT, rd_off(r),
				"time shift of %" PRIu64 " CPUs", cpus);
	for (uint64_t i = 0; !ret && i < cpus; i++) {
		ret = rd_num(t, r, 4, &count, "time shift samples");
		if (!ret)
			ret = rd_need(t, r, count * 24, "time shift samples");
		if (!ret)
			r->pos += (size_t)count * 24;
	}
	return ret;
}

/* GUEST: name, trace id, CPUs, per CPU id and host pid. */
static int opt_guest(struct tdat *t, struct rd *r)
{
	const char *name;
	uint64_t v, cpus;
	int ret = rd_str(t, r, &name, "guest name");

	if (!ret)
		ret = rd_num(t, r, 8, &v, "guest trace id");
	if (!ret)
		ret = rd_num(t, r, 4, &cpus, "guest CPUs");
	if (!ret && cpus > MAX_CPUS)
		return tdat_bad(t, MDB_E_CORRUPT, rd_off(r),
				"guest of %" PRIu64 " CPUs", cpus);
	if (!ret)
		ret = rd_need(t, r, cpus * 8, "guest CPUs");
	return ret;
}

static int walk_section(struct tdat *t, uint64_t off, int id);

/* One option of @r's payload: checked as libtracecmd will parse it. */
static int check_option(struct tdat *t, int id, struct rd *r)
{
	uint64_t v;

	switch (id) {
	case OPT_TRACECLOCK:
		t->clock_opt = 1;
		return opt_string(t, r, "trace clock");
	case OPT_DATE: case OPT_CPUSTAT:
	case OPT_OFFSET: case OPT_VERSION: case OPT_PROCMAPS:
		return opt_string(t, r, "text");
	case OPT_UNAME:
		if (opt_string(t, r, "uname"))
			return -MDB_E_CORRUPT;
		opt_uname(t, r);
		return 0;
	case OPT_HOOK:
		return tdat_bad(t, MDB_E_FORMAT, rd_off(r),
				"event hook options are not read by memdb");
	case OPT_CPUCOUNT:
		if (r->len != 4)
			return tdat_bad(t, MDB_E_CORRUPT, rd_off(r),
					"CPU count option of %zu bytes",
					r->len);
		v = get_u32(r->p, t->order);
		if (v > MAX_CPUS)
			return tdat_bad(t, MDB_E_CORRUPT, rd_off(r),
					"CPU count %" PRIu64, v);
		if (t->version < 7)
			t->ncpus = (int)v;
		return 0;
	case OPT_BUFFER:
		return opt_buffer(t, r);
	case OPT_TIME_SHIFT:
		return opt_time_shift(t, r);
	case OPT_GUEST:
		return opt_guest(t, r);
	case OPT_TSC2NSEC:
		return r->len < 16 ? rd_need(t, r, 16, "tsc2nsec option") : 0;
	case OPT_BUFFER_TEXT:
		return tdat_bad(t, MDB_E_FORMAT, rd_off(r),
				"a latency trace (text), not ring-buffer data");
	case OPT_HEADER_INFO: case OPT_FTRACE_EVENTS: case OPT_EVENT_FORMATS:
	case OPT_KALLSYMS: case OPT_PRINTK: case OPT_CMDLINES:
		if (t->version < 7)
			return 0;
		if (rd_num(t, r, 8, &v, "section offset"))
			return -MDB_E_CORRUPT;
		return walk_section(t, v, id);
	default:
		return 0;
	}
}

/*
 * The options of @r: id, size, payload; v6 ends at id 0, v7 at a DONE
 * option holding the offset of the next options section (*@next).
 */
static int walk_options(struct tdat *t, struct rd *r, uint64_t *next)
{
	*next = 0;
	for (;;) {
		uint64_t id, size;
		struct rd sub;
		int ret = rd_num(t, r, 2, &id, "option id");

		if (ret)
			return ret;
		if (!id && t->version < 7)
			return 0;
		ret = rd_num(t, r, 4, &size, "option size");
		if (!ret)
			ret = rd_need(t, r, size, "option");
		if (ret)
			return ret;
		sub = (struct rd){ r->p + r->pos, (size_t)size, 0,
				   r->packed ? r->base : r->base + r->pos,
				   r->packed };
		r->pos += (size_t)size;
		if (id == OPT_DONE) {
			if (size != 8)
				return tdat_bad(t, MDB_E_CORRUPT, rd_off(&sub),
						"options end of %" PRIu64
						" bytes", size);
			*next = get_u64(sub.p, t->order);
			return 0;
		}
		ret = check_option(t, (int)id, &sub);
		if (ret)
			return ret;
	}
}

/* ---- version 6 -------------------------------------------------------- */

static int walk_v6_data(struct tdat *t, struct rd *r)
{
	for (int i = 0; i < t->ncpus; i++) {
		uint64_t off, size;
		int ret = rd_num(t, r, 8, &off, "CPU data offset");

		if (!ret)
			ret = rd_num(t, r, 8, &size, "CPU data size");
		if (!ret && size)
			ret = check_data(t, r, off, size, 0);
		if (ret)
			return ret;
	}
	t->has_data = 1;
	/* libtracecmd reads a size and that many bytes, unchecked */
	return t->clock_opt ? rd_blob(t, r, 8, NULL, NULL, "trace clock") : 0;
}

/*
 * The printk formats: "ADDRESS : FORMAT" lines.  libtraceevent 1.7
 * (tep_parse_printk_formats) copies from one byte past the first ':' of
 * each line, past the end of a line that has no ':' or ends at it: such a
 * line is refused here, before libtracecmd hands the text on.
 */
static int walk_printk(struct tdat *t, struct rd *r)
{
	const uint8_t *p, *end;
	uint64_t at = rd_off(r) + 4;
	size_t n;
	int ret = rd_blob(t, r, 4, &p, &n, "printk formats");

	if (ret)
		return ret;
	end = memchr(p, '\0', n);   /* the text libtraceevent sees */
	end = end ? end : p + n;
	for (const uint8_t *l = p; l < end;) {
		const uint8_t *nl = memchr(l, '\n', (size_t)(end - l));
		const uint8_t *e = nl ? nl : end, *colon;

		colon = e > l ? memchr(l, ':', (size_t)(e - l)) : NULL;
		if (e > l && (!colon || colon + 1 == e))
			return tdat_bad(t, MDB_E_CORRUPT, at + (uint64_t)(l - p),
					"printk format line without text after "
					"its ':'");
		l = e + 1;
	}
	return 0;
}

static int walk_v6(struct tdat *t, struct rd *r)
{
	uint64_t cpus, next;
	int ret = walk_header_info(t, r);

	if (!ret)
		ret = walk_ftrace_events(t, r);
	if (!ret)
		ret = walk_event_formats(t, r);
	if (!ret)
		ret = walk_kallsyms(t, r);
	if (!ret)
		ret = walk_printk(t, r);
	if (!ret)
		ret = rd_blob(t, r, 8, NULL, NULL, "saved command lines");
	if (!ret)
		ret = rd_num(t, r, 4, &cpus, "CPU count");
	if (ret)
		return ret;
	if (cpus > MAX_CPUS)
		return tdat_bad(t, MDB_E_CORRUPT, rd_off(r) - 4,
				"CPU count %" PRIu64, cpus);
	t->ncpus = (int)cpus;
	ret = rd_need(t, r, 10, "data kind");
	if (!ret && !memcmp(r->p + r->pos, "options  ", 10)) {
		r->pos += 10;
		ret = walk_options(t, r, &next);
	}
	if (!ret)
		ret = rd_need(t, r, 10, "data kind");
	if (!ret && !memcmp(r->p + r->pos, "latency  ", 10))
		return tdat_bad(t, MDB_E_FORMAT, rd_off(r),
				"a latency trace (text), not ring-buffer data");
	if (!ret)
		ret = rd_expect(t, r, "flyrecord", 10, "\"flyrecord\"");
	return ret ? ret : walk_v6_data(t, r);
}

/* ---- version 7: sections ---------------------------------------------- */

/*
 * The section at @off: id @id (-1: the flyrecord data, not read here),
 * its content in @out, decompressed into *@own when compressed.
 */
static int open_section(struct tdat *t, uint64_t off, int id, struct rd *out,
			uint8_t **own)
{
	struct rd r = { t->map.data, t->map.len, 0, 0, 0 };
	uint64_t sid, flags, desc, size, csize, usize;
	int ret;

	*own = NULL;
	if (off > t->map.len)
		return tdat_bad(t, MDB_E_TRUNCATED, off,
				"section past the end of the file (%zu bytes)",
				t->map.len);
	r.pos = (size_t)off;
	if ((ret = rd_num(t, &r, 2, &sid, "section id")) ||
	    (ret = rd_num(t, &r, 2, &flags, "section flags")) ||
	    (ret = rd_num(t, &r, 4, &desc, "section description")) ||
	    (ret = rd_num(t, &r, 8, &size, "section size")) ||
	    (ret = rd_need(t, &r, size, "section")))
		return ret;
	if (id >= 0 && sid != (uint64_t)id)
		return tdat_bad(t, MDB_E_CORRUPT, off, "section id %" PRIu64
				" where %d was expected", sid, id);
	*out = (struct rd){ r.p + r.pos, (size_t)size, 0, r.pos, 0 };
	if (!(flags & 1) || id < 0)
		return 0;
	if (!t->compressed)
		return tdat_bad(t, MDB_E_CORRUPT, off, "compressed section in "
				"a file that declares no compression");
	if ((ret = rd_num(t, out, 4, &csize, "compressed size")) ||
	    (ret = rd_num(t, out, 4, &usize, "uncompressed size")) ||
	    (ret = rd_need(t, out, csize, "compressed data")))
		return ret;
	if (usize > MAX_SECTION_BYTES)
		return tdat_bad(t, MDB_E_LIMIT, off, "section of %" PRIu64
				" bytes decompressed", usize);
	*own = malloc(usize ? usize : 1);
	if (!*own)
		return mdb_error_set(t->e, MDB_E_NOMEM, t->path, -1, -1, NULL);
	if (ZSTD_decompress(*own, usize, out->p + out->pos, csize) != usize) {
		free(*own);
		*own = NULL;
		return tdat_bad(t, MDB_E_CORRUPT, off, "compressed section "
				"does not decompress to its %" PRIu64
				" bytes", usize);
	}
	*out = (struct rd){ *own, (size_t)usize, 0, off, 1 };
	return 0;
}

static int walk_section(struct tdat *t, uint64_t off, int id)
{
	struct rd r;
	uint8_t *own;
	int ret = open_section(t, off, id, &r, &own);

	if (ret)
		return ret;
	switch (id) {
	case OPT_HEADER_INFO:
		ret = walk_header_info(t, &r);
		break;
	case OPT_FTRACE_EVENTS:
		ret = walk_ftrace_events(t, &r);
		break;
	case OPT_EVENT_FORMATS:
		ret = walk_event_formats(t, &r);
		break;
	case OPT_KALLSYMS:
		ret = walk_kallsyms(t, &r);
		break;
	case OPT_PRINTK:
		ret = walk_printk(t, &r);
		break;
	case OPT_CMDLINES:
		ret = rd_blob(t, &r, 8, NULL, NULL, "saved command lines");
		break;
	}
	free(own);
	return ret;
}

static int walk_v7(struct tdat *t, struct rd *r)
{
	const char *alg, *ver;
	uint64_t next, after = 0;
	int ret = rd_str(t, r, &alg, "compression name");

	if (!ret)
		ret = rd_str(t, r, &ver, "compression version");
	if (ret)
		return ret;
	if (strcmp(alg, "none") && strcmp(alg, "zstd")) {
		ret = tdat_bad(t, MDB_E_FORMAT, 0, "compressed with %.40s", alg);
		mdb_error_hint(t->e, "Debian's libtracecmd decompresses zstd "
				     "only; convert it with 'trace-cmd convert "
				     "--compression zstd' (or none)");
		return ret;
	}
	t->compressed = !strcmp(alg, "zstd");
	ret = rd_num(t, r, 8, &next, "first options offset");
	for (int n = 0; !ret && next; n++) {
		struct rd s;
		uint8_t *own;

		if (n == MAX_SECTIONS)
			return tdat_bad(t, MDB_E_CORRUPT, next,
					"options sections loop");
		ret = open_section(t, next, OPT_DONE, &s, &own);
		if (!ret)
			after = next + 16 + get_u64(t->map.data + next + 8,
						    t->order);
		if (!ret)
			ret = walk_options(t, &s, &next);
		free(own);
	}
	/*
	 * trace-cmd writes the strings section (the sections' names) after
	 * the last options section, and libtracecmd reads it whole, at the
	 * size it says: a size past the file's end is refused here.
	 */
	if (!ret && after + 2 <= t->map.len &&
	    get_u16(t->map.data + after, t->order) == OPT_STRINGS)
		ret = walk_section(t, after, OPT_STRINGS);
	return ret;
}

/* ---- the header ------------------------------------------------------- */

static int walk_file(struct tdat *t)
{
	struct rd r = { t->map.data, t->map.len, MAGIC_LEN, 0, 0 };
	const char *ver;
	uint64_t psize;
	int ret;

	if (t->map.len < MAGIC_LEN || memcmp(t->map.data, MAGIC, MAGIC_LEN))
		return tdat_bad(t, MDB_E_FORMAT, 0, "no trace.dat magic");
	ret = rd_str(t, &r, &ver, "version");
	if (!ret)
		ret = rd_need(t, &r, 6, "byte order, long size, page size");
	if (ret)
		return ret;
	if (strcmp(ver, "6") && strcmp(ver, "7"))
		return tdat_bad(t, MDB_E_VERSION, MAGIC_LEN,
				"file version '%.20s' (memdb reads 6 and 7)",
				ver);
	t->version = ver[0] - '0';
	if (r.p[r.pos] > 1 || (r.p[r.pos + 1] != 4 && r.p[r.pos + 1] != 8))
		return tdat_bad(t, MDB_E_CORRUPT, r.pos, "byte order %u, "
				"long size %u", r.p[r.pos], r.p[r.pos + 1]);
	t->order = r.p[r.pos] ? MDB_ORDER_BIG : MDB_ORDER_LITTLE;
	t->long_size = r.p[r.pos + 1];
	r.pos += 2;
	rd_num(t, &r, 4, &psize, "page size");
	if (psize < 1024 || psize > (1u << 20) || (psize & (psize - 1)))
		return tdat_bad(t, MDB_E_CORRUPT, r.pos - 4,
				"page size %" PRIu64, psize);
	t->page_size = (uint32_t)psize;
	ret = t->version == 6 ? walk_v6(t, &r) : walk_v7(t, &r);
	if (!ret && !t->has_data)
		ret = tdat_bad(t, MDB_E_FORMAT, 0,
			       "no ring-buffer (flyrecord) data");
	return ret;
}

/* ---- reading the events ----------------------------------------------- */

/*
 * The name of the event's task: the saved command lines the file
 * carries, as libtracecmd gave them to the tep handle (it stops at the
 * first line that is not "<pid> <comm>"), looked up as `trace-cmd
 * report` does (tep_data_comm_from_pid): pid 0 is "<idle>"; a pid the
 * lines do not name, or name "<...>", stays unnamed (docs/usage.md,
 * Tasks and stacks).
 */
static void tdat_comm(struct tdat *t, struct mdb_event *ev)
{
	const char *comm;

	if (ev->pid < 0)
		return;
	/* one lookup: a pid the lines do not name comes back as "<...>" */
	comm = tep_data_comm_from_pid(t->km.tep, ev->pid);
	if (!comm || !strcmp(comm, MDB_COMM_UNKNOWN))
		return;
	ev->comm.p = comm;
	ev->comm.len = strlen(comm);
}

static int tdat_emit(struct tdat *t, struct tep_record *rec,
		     const struct mdb_sink *sink, struct mdb_decode_stats *st)
{
	struct mdb_event ev;
	int ret;

	st->records++;
	if (rec->missed_events)
		st->lost_events += rec->missed_events > 0 ?
			(uint64_t)rec->missed_events : 1;
	mdb_event_init(&ev);
	ret = mdb_tep_kmem_event(&t->km, rec->data,
				 rec->size > 0 ? (size_t)rec->size : 0, &ev);
	if (ret < 0) {
		/* the record's file offset, or in the decompressed data */
		mdb_error_set(t->e, MDB_E_CORRUPT, t->path,
			      t->zdata ? -1 : (int64_t)rec->offset, -1,
			      "cpu=%d record_offset=%llu size=%d", rec->cpu,
			      rec->offset, rec->size);
		mdb_error_msg(t->e, "kmem event shorter than its format");
		return -MDB_E_CORRUPT;
	}
	if (!ret) {
		st->unknown++;
		return 0;
	}
	ev.seq = (int64_t)st->records;
	ev.ts = (int64_t)rec->ts;
	ev.cpu = rec->cpu;
	tdat_comm(t, &ev);
	if (!st->events++)
		st->first_seq = ev.seq;
	st->last_seq = ev.seq;
	return sink->event(sink->ctx, &ev);
}

/* The CPU whose next record comes first (ties: the lower CPU). */
static int first_cpu(const struct tdat *t)
{
	int best = -1;

	for (int c = 0; c < t->ncpus; c++)
		if (t->recs[c] && (best < 0 || t->recs[c]->ts <
					       t->recs[best]->ts))
			best = c;
	return best;
}

static int tdat_decode(struct mdb_input *in, const struct mdb_sink *sink,
		       struct mdb_decode_stats *st, struct mdb_error *e)
{
	struct tdat *t = in->priv;
	int ret = 0, c, hit, moved;

	memset(st, 0, sizeof(*st));
	t->e = e;
	mdb_map_guard();
	for (c = 0; c < t->ncpus; c++)
		t->recs[c] = tracecmd_read_cpu_first(t->h, c);
	/* progress: how far each CPU's records are into its data */
	in->size = t->data_bytes;
	atomic_store_explicit(&in->done, 0, memory_order_relaxed);
	/* a page gone from the file reads as zeros: stop there */
	while (ret >= 0 && !mdb_map_guard_hit() && (c = first_cpu(t)) >= 0) {
		unsigned long long at = t->recs[c]->offset;

		ret = tdat_emit(t, t->recs[c], sink, st);
		tracecmd_free_record(t->recs[c]);
		t->recs[c] = tracecmd_read_data(t->h, c);
		if (t->recs[c] && t->recs[c]->offset > at)
			mdb_input_advance(in, t->recs[c]->offset - at);
	}
	hit = mdb_map_unguard();
	/* a read cut short ended the records as if the data ended there;
	 * that, not what was made of the rest, is the error */
	moved = mdb_stamp_check(t->fd, &t->stamp, t->path, e);
	if (moved || hit)
		return moved ? moved : mdb_file_shrank(e, t->path, -1);
	if (ret < 0)
		return ret;
	if (!st->events) {
		mdb_error_set(e, MDB_E_EMPTY, t->path, -1, -1,
			      "records=%" PRIu64, st->records);
		mdb_error_msg(e, "no kmem events");
		return -MDB_E_EMPTY;
	}
	return 0;
}

static void tdat_free(struct tdat *t)
{
	if (!t)
		return;
	for (int c = 0; t->recs && c < t->ncpus; c++)
		if (t->recs[c])
			tracecmd_free_record(t->recs[c]);
	free(t->recs);
	if (t->have_km)
		mdb_tep_kmem_release(&t->km);
	if (t->h)
		tracecmd_close(t->h);
	if (t->fd >= 0)
		close(t->fd);
	mdb_unmap(&t->map);
	free(t->ksyms);
	free(t->path);
	free(t);
}

static void tdat_close(struct mdb_input *in)
{
	tdat_free(in->priv);
	free(in);
}

static const struct mdb_input_ops tdat_ops = {
	.decode = tdat_decode,
	.close = tdat_close,
};

/* ---- opening ---------------------------------------------------------- */

/*
 * libtracecmd that fails for want of memory does not always leave errno
 * ENOMEM: a failed mmap of the CPU data (ENOMEM) falls back to read(2),
 * whose buffers may then fail with errno set again by what follows.  The
 * file's structure was checked (walk_file()), so a failure while the
 * address space cannot take a few more megabytes is for want of memory.
 */
static int no_room(void)
{
	size_t len = 4u << 20;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	munmap(p, len);
	return 0;
}

static int open_library(struct tdat *t, int fd, uint64_t page_size)
{
	int dfd = dup(fd), ret, err, hit;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	if (dfd < 0 || lseek(dfd, 0, SEEK_SET) < 0) {
		if (dfd >= 0)
			close(dfd);
		return mdb_error_set(t->e, MDB_E_IO, t->path, -1, -1,
				     "not a seekable file");
	}
	/* the file as walked: its size then, the rest as it is now (a
	 * different size is a file changed since it was mapped) */
	t->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	ret = t->fd < 0 ? mdb_error_set(t->e, MDB_E_IO, t->path, -1, -1,
					"dup: %s", strerror(errno)) :
			  mdb_stamp_fd(t->fd, t->path, &t->stamp, t->e);
	if (!ret) {
		t->stamp.size = (off_t)t->map.len;
		ret = mdb_stamp_check(t->fd, &t->stamp, t->path, t->e);
	}
	if (ret) {
		close(dfd);
		return ret;
	}
	/* the file's structure was checked before (walk_file()): a
	 * refusal for want of memory (ENOMEM, the library's allocations)
	 * says so, not that the file is bad */
	errno = 0;
	mdb_map_guard();
	t->h = tracecmd_open_fd(dfd, TRACECMD_FL_LOAD_NO_PLUGINS |
					    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	err = errno;
	hit = mdb_map_unguard();
	/* it read the metadata and the first page of each CPU: as walked? */
	ret = mdb_stamp_check(t->fd, &t->stamp, t->path, t->e);
	if (!ret && hit)
		ret = mdb_file_shrank(t->e, t->path, -1);
	if (!t->h) {
		/* libtracecmd closes it itself when it fails after taking
		 * it (tracecmd_close()), not when tracecmd_alloc_fd() does;
		 * no other thread opens files while an input is opened */
		if (fcntl(dfd, F_GETFD) != -1)
			close(dfd);
		if (ret)
			return ret;
		if (err == ENOMEM || no_room())
			return mdb_error_set(t->e, MDB_E_NOMEM, t->path, -1, -1,
					     "in libtracecmd");
		return tdat_bad(t, MDB_E_CORRUPT, 0,
				"libtracecmd cannot read the file");
	}
	if (ret)
		return ret;
	tep_set_loglevel(TEP_LOG_NONE);
	if (mdb_tep_kmem_init(&t->km, tracecmd_get_tep(t->h), page_size, t->path,
			      t->e))
		return -MDB_E_FORMAT;
	t->have_km = 1;
	t->recs = calloc((size_t)(t->ncpus ? t->ncpus : 1), sizeof(*t->recs));
	if (!t->recs)
		return mdb_error_set(t->e, MDB_E_NOMEM, t->path, -1, -1, NULL);
	return 0;
}

static void tdat_meta(struct tdat *t, struct mdb_source_meta *m)
{
	struct mdb_hasher *h = mdb_hash_begin(TDAT_FORMAT, t->e);

	m->format = TDAT_FORMAT;
	m->abi_version = t->version;
	m->order = t->order;
	m->word_size = t->long_size;
	m->ncpus = t->ncpus;
	m->overruns = -1;
	m->whole_capture = 1;
	m->data_bytes = t->map.len;
	snprintf(m->kernel_release, sizeof(m->kernel_release), "%s",
		 t->release);
	if (t->ksyms) {
		m->attach[0].name = "kallsyms";
		snprintf(m->attach[0].path, sizeof(m->attach[0].path), "%s",
			 t->path);
		m->attach[0].data = t->ksyms;
		m->attach[0].len = t->ksyms_len;
		m->nattach = 1;
	}
	if (h) {
		mdb_hash_map(h, &t->map, MDB_RELEASE_STEP);
		mdb_hash_end(h, m);
	}
}

/*
 * The libtracecmd of trace-cmd 3.1.6 (Debian libtracecmd1 3.1.6-1) leaks
 * the clock name of every v6 file: its trace clock option and then the
 * trace_clock text after the CPU data table both set the handle's clock,
 * the first one lost.  Nothing memdb can do about it; sanitizer builds
 * are told (only LeakSanitizer looks this function up).
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	/* the stack seen is often cut at glibc's sscanf("%ms"), which no
	 * memdb code calls */
	return "leak:tracecmd_parse_trace_clock\nleak:__isoc99_vsscanf\n"
	       /* the same for libkdumpfile's handle of a refused dump
		* (ingest/vmcore/dump.c) */
	       "leak:kdump_new\n"
	       /* libkdumpfile 0.5.1 loses its page_io (104 bytes) each
		* time libaddrxlat fails to read a page it needs while it
		* sets up (addrxlat_get_page: text pages of the cores of
		* testdata/arch/, pages makedumpfile filtered); the stack
		* seen ends in libkdumpfile */
	       "leak:libkdumpfile.so\n";
}

/* ... and a run whose leaks were all the libraries' says nothing of them
 * (a table of the suppressions used, on stderr, which tests compare) */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

int mdb_tdat_probe(const void *buf, size_t len)
{
	return len >= MAGIC_LEN && !memcmp(buf, MAGIC, MAGIC_LEN);
}

int mdb_tdat_input_open(const char *path, struct mdb_map *map, int fd,
			const struct mdb_ingest_opts *o, struct mdb_input **out,
			struct mdb_error *e)
{
	struct mdb_input *in;
	struct tdat *t = MDB_INPUT_ALLOC(struct tdat, path, map, &in, e);
	int ret;

	*out = NULL;
	if (!t)
		return -MDB_E_NOMEM;
	t->fd = -1;
	t->e = e;
	ret = walk_file(t);
	if (!ret)
		ret = open_library(t, fd, o->page_size ? o->page_size :
							 t->page_size);
	if (ret)
		goto fail;
	tdat_meta(t, &in->meta);
	in->ops = &tdat_ops;
	in->priv = t;
	*out = in;
	return 0;
fail:
	tdat_free(t);
	free(in);
	return ret;
}
