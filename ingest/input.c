// SPDX-License-Identifier: MIT
/*
 * Format detection and the generic struct mdb_input interface: a path
 * becomes one source whichever decoder reads it.
 *
 * Detection is one ordered table of probes.  One-file formats look at the
 * file's first bytes (a binary header, a header line, or the shape of the
 * first row); path formats (capture directories) open the path themselves
 * and answer 1 when it is not theirs.  The first that claims the input
 * reads it; `--format NAME` skips the probes.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "../common/escape.h"
#include "../common/file.h"
#include "input.h"
#include "kallsyms.h"
#include "spool.h"
#include "trace/kmemtrace.h"
#include "trace/ftrace.h"
#include "trace/kt_ftrace.h"
#include "trace/perfdata.h"
#include "trace/tracedat.h"
#include "trace/tracefs.h"
#include "vmcore/vminput.h"

#define TEXT_PROBE_BYTES 4096

static int memstat_describe(const void *buf, size_t len,
			    struct mdb_decode_opts *o,
			    struct mdb_source_meta *m, struct mdb_error *e)
{
	uint32_t version, maxcpus, count;

	(void)o;
	(void)e;
	if (mdb_memstat_header(buf, len, &m->order, &version, &maxcpus,
			       &count))
		m->ncpus = (int)maxcpus;
	return 0;
}

/* Text no format above claimed (no NUL, no control bytes). */
static int text_probe(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t n = len < TEXT_PROBE_BYTES ? len : TEXT_PROBE_BYTES;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 && p[i] != '\n' && p[i] != '\t' &&
		    p[i] != '\r' && p[i] != '\f' && p[i] != '\v')
			return 0;
	return 1;
}

#define KMEM_HINT                                                        \
	"enable the kmem:kmalloc, kmem:kfree, kmem:kmem_cache_alloc, "   \
	"kmem:kmem_cache_free (and kmem:mm_page_*) events before tracing"

/*
 * Every format memdb reads, in detection order.  Adding a format is one
 * decoder file and one row here.
 */
static const struct mdb_format formats[] = {
	/* perf.data: the PERFILE2 magic, either byte order */
	{ .name = PERF_FORMAT, .probe = perf_probe, .decode = perf_decode,
	  .prepare = perf_prepare, .unprepare = perf_unprepare,
	  .describe = perf_input_describe, .empty_hint = KMEM_HINT,
	  .help = "what perf kmem record (--page) or perf record -e "
		  "kmem:... writes: a perf.data file of either byte order, "
		  "also from perf record -g, -z (zstd records) and -o - "
		  "(pipe mode)" },
	/* trace-cmd's trace.dat: its magic; libtracecmd reads it */
	{ .name = "trace-dat", .probe = tdat_probe,
	  .open_file = tdat_input_open,
	  .help = "what trace-cmd record writes (trace.dat, versions 6 "
		  "and 7) with the kmem events, read through libtracecmd" },
	/* Linux kernel core dumps: ELF core, KDUMP signature, flattened */
	{ .name = VM_FORMAT, .probe = vm_probe, .open_file = vm_input_open,
	  .flags = MDB_FMT_SNAPSHOT,
	  .help = "a Linux kernel core dump (x86-64, arm64, i386, s390x): "
		  "ELF (kdump's "
		  "/proc/vmcore, QEMU dump-guest-memory), kdump-compressed "
		  "or flattened (makedumpfile); needs --kallsyms (the boot's "
		  "System.map or /proc/kallsyms); slab caches, buddy free "
		  "lists, vm_stat counters and 6.10+ alloc tags "
		  "(/proc/allocinfo), read through libkdumpfile with the "
		  "kernel's own BTF (or --btf FILE)" },
	/* binary snapshot streams: a version word, counts that match the
	 * file's length */
	{ .name = "memstat-uma", .probe = mdb_memstat_uma_probe,
	  .decode_snap = mdb_memstat_uma_decode,
	  .describe = memstat_describe,
	  .help = "FreeBSD 'sysctl -b vm.zone_stats' (either byte order)" },
	{ .name = "memstat-malloc", .probe = mdb_memstat_malloc_probe,
	  .decode_snap = mdb_memstat_malloc_decode,
	  .describe = memstat_describe,
	  .help = "FreeBSD 'sysctl -b kern.malloc_stats'" },
	/* text snapshots: a header line, else the first row's shape */
	{ .name = "vmstat-json", .probe = mdb_vmstat_json_probe,
	  .decode_snap = mdb_vmstat_json_decode,
	  .help = "'vmstat -z' or 'vmstat -m' with --libxo json" },
	{ .name = "allocinfo", .probe = mdb_allocinfo_probe,
	  .decode_snap = mdb_allocinfo_decode,
	  .help = "Linux /proc/allocinfo, versions 1.x and 2.x, with or "
		  "without its header, sizes humanized by numfmt or not" },
	{ .name = "slabinfo", .probe = mdb_slabinfo_probe,
	  .decode_snap = mdb_slabinfo_decode,
	  .help = "Linux /proc/slabinfo 2.x, with or without its header" },
	{ .name = "vmstat-z", .probe = mdb_vmstat_z_probe,
	  .decode_snap = mdb_vmstat_z_decode,
	  .help = "FreeBSD 'vmstat -z' text, live or from a core dump "
		  "(vmstat -M vmcore -N kernel -z), any header variant, or a "
		  "headerless excerpt" },
	{ .name = "vmstat-m", .probe = mdb_vmstat_m_probe,
	  .decode_snap = mdb_vmstat_m_decode,
	  .help = "FreeBSD 'vmstat -m' text, the same way" },
	/* text event traces: ftrace, perf script, trace-cmd report */
	{ .name = "ftrace-text", .probe = ft_probe, .decode = ft_decode,
	  .describe = ft_describe, .flags = MDB_FMT_KSYMS,
	  .empty_hint = KMEM_HINT,
	  .help = "the kmem tracepoints as text: what cat trace, "
		  "trace_pipe, perf script or trace-cmd report print, from any "
		  "kernel since 2.6.30; a file, or a capture directory holding "
		  "one (trace, trace_pipe, *.txt, *.trace) and optionally the "
		  "boot's kallsyms" },
	/* any other text file: not recognised, so the binary trace readers
	 * below do not misjudge it */
	{ .name = NULL, .probe = text_probe },
	/* the ftrace-era kmemtrace tracer's binary: exact record sizes */
	{ .name = "kmemtrace-ftrace", .probe = ktf_probe, .decode = ktf_decode,
	  .describe = ktf_describe,
	  .help = "the binary of the 2.6.30-2.6.34 kmemtrace tracer, "
		  "either word size and byte order, with or without the ftrace "
		  "'bin' prefix" },
	/* a copy of tracefs: a directory (memdb record) */
	{ .name = "tracefs", .open = tfs_input_open,
	  .help = "a copy of tracefs as 'memdb record' writes it: the "
		  "per-CPU ring-buffer pages (trace_pipe_raw), the page header "
		  "and the formats of the kmem events, optionally the boot's "
		  "kallsyms" },
	/* kmemtrace relay: a capture directory, a lone file whose records
	 * read as relay records, or one named cpuN (detect_map()) */
	{ .name = "kmemtrace-relay", .probe = kt_probe, .decode = kt_decode,
	  .describe = kt_describe, .open = kt_input_open,
	  .help = "a kmemtrace relay capture: a directory holding one "
		  "file per CPU (cpu0, cpu1, ... as in debugfs, or cpu0.out, ... "
		  "as the kmemtrace logger saved them) and, when present, "
		  "abi_version and total_overruns; or a single per-CPU file.  "
		  "Empty per-CPU files (idle CPUs) are normal." },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const char *const *mdb_input_formats(void)
{
	static const char *names[NFORMATS + 1];

	if (!names[0]) {
		size_t n = 0;

		for (size_t i = 0; i < NFORMATS; i++)
			if (formats[i].name)
				names[n++] = formats[i].name;
	}
	return names;
}

const char *mdb_input_format_help(const char *name)
{
	const struct mdb_format *f = mdb_format_find(name);

	return f ? f->help : NULL;
}

const struct mdb_format *mdb_format_find(const char *name)
{
	for (size_t i = 0; name && i < NFORMATS; i++)
		if (formats[i].name && !strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

int mdb_format_is_snapshot(const char *format)
{
	const struct mdb_format *f = mdb_format_find(format);

	return f && (f->decode_snap || (f->flags & MDB_FMT_SNAPSHOT));
}

void mdb_ingest_opts_init(struct mdb_ingest_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->order = MDB_ORDER_UNKNOWN;
	o->cpu = -1;
}

void mdb_decode_opts_init(struct mdb_decode_opts *o, const char *name)
{
	memset(o, 0, sizeof(*o));
	o->name = name;
	o->order = MDB_ORDER_UNKNOWN;
	o->cpu = -1;
}

/* ---- the one-file opener ---------------------------------------------- */

struct file_input {
	char *path;
	struct mdb_map map;
	const struct mdb_format *f;
	struct mdb_decode_opts dopts;
	struct kallsyms ksyms;
	int have_ksyms;
	size_t released;         /* pages released up to here */
	/* formats with prepare(): the hash runs on its own thread, from
	 * the opening to the first mdb_input_meta() */
	struct mdb_hasher *hasher;
	pthread_t hash_thread;
	int hashing;
	void *prepared;          /* prepare()'s state, until decode */
};

static void file_hash_wait(struct file_input *fi, struct mdb_source_meta *m)
{
	if (!fi->hashing)
		return;
	pthread_join(fi->hash_thread, NULL);
	fi->hashing = 0;
	mdb_hash_end(fi->hasher, m);
	fi->hasher = NULL;
}

static void file_free(struct file_input *fi)
{
	if (!fi)
		return;
	if (fi->hashing) {
		struct mdb_source_meta ign;

		file_hash_wait(fi, &ign);
	}
	if (fi->prepared)
		fi->f->unprepare(fi->prepared);
	mdb_unmap(&fi->map);
	if (fi->have_ksyms)
		kallsyms_release(&fi->ksyms);
	free(fi->path);
	free(fi);
}

/* A decoder's done() callback: release the pages read, note the
 * position for progress. */
static void file_done(void *ctx, size_t off)
{
	struct mdb_input *in = ctx;
	struct file_input *fi = in->priv;

	in->done = off;
	if (off - fi->released >= MDB_RELEASE_STEP) {
		mdb_map_done(&fi->map, off);
		fi->released = off;
	}
}

static int file_decode(struct mdb_input *in, const struct mdb_sink *sink,
		       struct mdb_decode_stats *st, struct mdb_error *e)
{
	struct file_input *fi = in->priv;
	int ret;

	fi->dopts.done = file_done;
	fi->dopts.done_ctx = in;
	/* often enough for progress by the percent; pages are released
	 * every MDB_RELEASE_STEP bytes */
	fi->dopts.done_step = fi->map.len / 200 < MDB_RELEASE_STEP ?
			      fi->map.len / 200 + 1 : MDB_RELEASE_STEP;
	fi->released = 0;
	fi->dopts.progress = &in->done;
	in->size = fi->map.len;
	fi->dopts.prepared = fi->prepared; /* decode frees it */
	fi->prepared = NULL;
	ret = fi->f->decode(fi->map.data, fi->map.len, &fi->dopts, sink, st,
			    e);
	if (ret == -MDB_E_ORDER)
		fi->dopts.rounds = 0; /* the next decode: in two passes */
	if (ret < 0 || st->events)
		return ret;
	mdb_error_set(e, MDB_E_EMPTY, fi->path, -1, -1,
		      "lines=%" PRIu64 " other=%" PRIu64 " malformed=%" PRIu64,
		      st->records, st->unknown, st->malformed);
	mdb_error_msg(e, "no kmem events");
	if (fi->f->empty_hint)
		mdb_error_hint(e, "%s", fi->f->empty_hint);
	return -MDB_E_EMPTY;
}

static int file_decode_snap(struct mdb_input *in,
			    const struct mdb_snap_sink *sink,
			    struct mdb_snap_info *info, struct mdb_error *e)
{
	struct file_input *fi = in->priv;

	return fi->f->decode_snap(fi->map.data, fi->map.len, fi->path, sink,
				  info, e);
}

static void file_close(struct mdb_input *in)
{
	file_free(in->priv);
	free(in);
}

static int file_input_prepare(struct mdb_input *in, struct mdb_error *e)
{
	struct file_input *fi = in->priv;

	if (!fi->f->prepare || fi->prepared)
		return 0;
	return fi->f->prepare(fi->map.data, fi->map.len, &fi->dopts,
			      &fi->prepared, e);
}

static void file_wait(struct mdb_input *in)
{
	file_hash_wait(in->priv, &in->meta);
}

static const struct mdb_input_ops file_event_ops = {
	.decode = file_decode,
	.close = file_close,
	.prepare = file_input_prepare,
	.wait = file_wait,
};

static const struct mdb_input_ops file_snap_ops = {
	.decode_snap = file_decode_snap,
	.close = file_close,
};

/* The boot's kallsyms: given, or the capture directory's. */
static int file_load_ksyms(struct file_input *fi, const char *dir,
			   const struct mdb_ingest_opts *o,
			   struct mdb_error *e)
{
	char *path = NULL;
	int ret;

	if (o->kallsyms) {
		path = strdup(o->kallsyms);
		if (!path)
			return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1,
					     NULL);
	} else if (dir) {
		ret = mdb_capture_file(dir, "kallsyms", &path, e);
		if (ret)
			return ret < 0 ? ret : 0;
	} else {
		return 0;
	}
	ret = kallsyms_load(&fi->ksyms, path, e);
	free(path);
	if (ret < 0)
		return ret;
	fi->have_ksyms = 1;
	fi->dopts.ksyms = &fi->ksyms;
	return 0;
}

static void file_meta_init(struct mdb_source_meta *m,
			   const struct mdb_format *f, size_t len)
{
	m->format = f->name;
	m->snapshot = f->decode_snap != NULL;
	m->abi_version = -1;
	m->overruns = -1;
	m->data_bytes = len;
}

/* The hash thread of a format with prepare(): the whole mapping. */
static void *hash_main(void *arg)
{
	struct file_input *fi = arg;

	mdb_hash_update(fi->hasher, fi->map.data, fi->map.len);
	return NULL;
}

/* Describe, kallsyms, the directory's extras, the hash. */
static int file_prepare(struct mdb_input *in, struct file_input *fi,
			const char *dir, const struct mdb_ingest_opts *o,
			struct mdb_error *e)
{
	struct mdb_hasher *h;
	int ret;

	if (fi->f->describe) {
		ret = fi->f->describe(fi->map.data, fi->map.len, &fi->dopts,
				      &in->meta, e);
		if (ret)
			return ret;
	}
	if (fi->f->flags & MDB_FMT_KSYMS) {
		ret = file_load_ksyms(fi, dir, o, e);
		if (ret < 0)
			return ret;
	}
	if (dir) {
		ret = mdb_read_release(dir, &in->meta, e);
		if (ret < 0)
			return ret;
		/* kallsyms, modules, sections: kept for memdb symbolize */
		ret = mdb_attach_scan(&in->meta, dir, e);
		if (ret < 0)
			return ret;
	}
	h = mdb_hash_begin(fi->f->name, e);
	if (!h)
		return -MDB_E_NOMEM;
	if (fi->f->prepare) {
		/* its decoder keeps every page: none are released */
		fi->hasher = h;
		if (pthread_create(&fi->hash_thread, NULL, hash_main,
				   fi) == 0) {
			fi->hashing = 1;
			return 0;
		}
		fi->hasher = NULL;
		mdb_hash_update(h, fi->map.data, fi->map.len);
	} else {
		mdb_hash_map(h, &fi->map, MDB_RELEASE_STEP);
	}
	mdb_hash_end(h, &in->meta);
	return 0;
}

int mdb_file_open(const char *path, const struct mdb_format *f,
		  struct mdb_map *map, const char *dir,
		  const struct mdb_ingest_opts *o, struct mdb_input **out,
		  struct mdb_error *e)
{
	struct mdb_input *in = calloc(1, sizeof(*in));
	struct file_input *fi = calloc(1, sizeof(*fi));
	int ret;

	*out = NULL;
	if (!in || !fi || !(fi->path = strdup(path))) {
		mdb_unmap(map);
		ret = mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
		goto fail;
	}
	fi->map = *map;
	memset(map, 0, sizeof(*map));
	fi->f = f;
	mdb_decode_opts_init(&fi->dopts, fi->path);
	fi->dopts.order = o->order;
	fi->dopts.abi = o->abi;
	fi->dopts.cpu = o->cpu;
	fi->dopts.strict = o->strict;
	fi->dopts.page_size = o->page_size;
	fi->dopts.warn = o->warn;
	fi->dopts.warn_ctx = o->warn_ctx;
	fi->dopts.stream = o->stream;
	fi->dopts.rounds = o->rounds;
	in->ops = f->decode_snap ? &file_snap_ops : &file_event_ops;
	in->priv = fi;
	file_meta_init(&in->meta, f, fi->map.len);
	ret = file_prepare(in, fi, dir, o, e);
	if (ret)
		goto fail;
	/* read round by round, perf.data needs no hash to start with */
	in->late_hash = fi->hashing && o->rounds;
	*out = in;
	return 0;
fail:
	file_free(fi);
	free(in);
	return ret;
}

/* ---- choosing the format ---------------------------------------------- */

const char *mdb_looks_like(const void *buf, size_t len)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} known[] = {
		{ "KDUMP   ", 8, "a kdump-compressed core dump (makedumpfile)" },
		{ "makedumpfile", 12, "a flattened makedumpfile core dump" },
		{ "PERFILE2", 8, "a perf.data file" },
		{ "2ELIFREP", 8, "a big-endian perf.data file" },
		{ "PERFFILE", 8, "a perf.data file of an old perf (PERFFILE)" },
		{ "SQLite format 3", 16, "an SQLite database (a memdb "
					 "database? read it with -d)" },
	};
	const uint8_t *p = buf;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (len >= known[i].len && !memcmp(p, known[i].magic,
						   known[i].len))
			return known[i].what;
	if (len >= 18 && !memcmp(p, "\x7f" "ELF", 4))
		return (p[5] == 2 ? p[17] : p[16]) == 4 && !p[p[5] == 2 ? 16 :
							       17] ?
			       "an ELF core file, but not of a Linux kernel "
			       "of a machine memdb reads (x86-64, arm64, i386, "
			       "s390x)" :
			       "an ELF file (a vmlinux or a module?), not a "
			       "trace";
	return NULL;
}

#define SHOW_LINE 60  /* bytes of an unrecognised text's line shown */
#define SHOW_BYTES 16 /* bytes of unrecognised binary shown */

/* Text to show of unrecognised bytes: no NUL and few control bytes in
 * the first TEXT_PROBE_BYTES (a stray byte does not make text binary). */
static int looks_text(const uint8_t *p, size_t len)
{
	size_t n = len < TEXT_PROBE_BYTES ? len : TEXT_PROBE_BYTES, ctl = 0;

	for (size_t i = 0; i < n; i++) {
		if (!p[i])
			return 0;
		if ((p[i] < 0x20 && !isspace(p[i])) || p[i] == 0x7f)
			ctl++;
	}
	return ctl * 32 <= n;
}

/*
 * The first non-blank line of text @p, escaped for a terminal and cut at
 * SHOW_LINE bytes (never inside an escape or a character), "..." after a
 * cut.  Malloc'ed; NULL when out of memory.
 */
static char *first_line(const uint8_t *p, size_t len)
{
	size_t end, n = 0;
	char *out;

	while (len && isspace(*p)) {
		p++;
		len--;
	}
	for (end = 0; end < len && p[end] != '\n' && p[end] != '\r'; end++)
		;
	out = malloc(SHOW_LINE + 4);
	if (!out)
		return NULL;
	for (size_t i = 0; i < end;) {
		char one[5] = { 0 }, *esc;
		unsigned cp;
		int k = mdb_utf8_len(p + i, &cp);

		/* a sequence cut by the end of the line is a lone byte */
		if (k < 1 || i + (size_t)k > end)
			k = 1;
		memcpy(one, p + i, (size_t)k);
		esc = mdb_escape(one, 0);
		if (!esc) {
			free(out);
			return NULL;
		}
		if (n + strlen(esc) > SHOW_LINE) {
			free(esc);
			memcpy(out + n, "...", 3);
			n += 3;
			break;
		}
		memcpy(out + n, esc, strlen(esc));
		n += strlen(esc);
		free(esc);
		i += (size_t)k;
	}
	out[n] = '\0';
	return out;
}

/* The format names of the table, ", " between them; malloc'ed. */
static char *format_names(void)
{
	size_t n = 1;
	char *s;

	for (const char *const *f = mdb_input_formats(); *f; f++)
		n += strlen(*f) + 2;
	s = malloc(n);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (const char *const *f = mdb_input_formats(); *f; f++) {
		if (s[0])
			strcat(s, ", ");
		strcat(s, *f);
	}
	return s;
}

/* A kallsyms or System.map line: "ffffffff81000000 T _stext". */
static int looks_kallsyms(const char *line)
{
	size_t n = strspn(line, "0123456789abcdefABCDEF");

	return (n == 8 || n == 16) && line[n] == ' ' && line[n + 1] &&
	       strchr("aAbBdDrRtTvVwW", line[n + 1]) && line[n + 2] == ' ';
}

/*
 * Input no format claims: say what it looks like (empty, text and its
 * first line, binary and its first bytes) and which formats memdb reads.
 * Unmaps @map.
 */
static int refuse_unknown(const char *path, struct mdb_map *map,
			  struct mdb_error *e)
{
	const uint8_t *p = map->data;
	char *names = format_names(), *line = NULL;
	int ret = -MDB_E_NOMEM;

	if (!names)
		goto out;
	if (!map->len) {
		mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, "empty");
	} else if (looks_text(p, map->len)) {
		line = first_line(p, map->len);
		if (!line)
			goto out;
		mdb_error_set(e, MDB_E_FORMAT, path, -1, -1,
			      "text whose first line is '%s'", line);
	} else {
		char hex[SHOW_BYTES * 3 + 1] = "";
		size_t n = map->len < SHOW_BYTES ? map->len : SHOW_BYTES;
		int at = 0;

		for (size_t i = 0; i < n; i++)
			at += sprintf(hex + at, "%s%02x", i ? " " : "", p[i]);
		mdb_error_set(e, MDB_E_FORMAT, path, -1, -1,
			      "binary whose first bytes are %s", hex);
	}
	mdb_error_msg(e, "input not recognised");
	if (line && looks_kallsyms(line))
		mdb_error_hint(e, "this is a kallsyms or System.map: give it "
				  "as --kallsyms FILE with the trace or core "
				  "dump of that boot");
	else
		mdb_error_hint(e, "memdb reads %s: name one with --format NAME "
				  "(see memdb ingest --help)", names);
	ret = -MDB_E_FORMAT;
out:
	if (ret == -MDB_E_NOMEM)
		mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	free(names);
	free(line);
	mdb_unmap(map);
	return ret;
}

/* Binary input of a kind memdb knows but does not read (yet). */
static int refuse_binary(const char *path, struct mdb_map *map,
			 struct mdb_error *e)
{
	mdb_error_set(e, MDB_E_FORMAT, path, 0, -1, NULL);
	mdb_error_msg(e, "not an input memdb reads: it looks like %s",
		      mdb_looks_like(map->data, map->len));
	mdb_unmap(map);
	return -MDB_E_FORMAT;
}

/*
 * A format that reads a file itself: the spool's descriptor @fd, else
 * @path opened again.
 */
static int open_seekable(const char *path, const struct mdb_format *f,
			 struct mdb_map *map, int fd,
			 const struct mdb_ingest_opts *o,
			 struct mdb_input **in, struct mdb_error *e)
{
	int own = -1, ret;

	if (fd < 0 && (fd = own = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		mdb_unmap(map);
		return mdb_path_error(path, errno, e);
	}
	ret = f->open_file(path, map, fd, o, in, e);
	if (own >= 0)
		close(own);
	return ret;
}

/*
 * Open regular file @path, mapped in @map, as format @f; @fd is the
 * descriptor of a spool holding those bytes, or -1.
 */
static int open_as(const char *path, const struct mdb_format *f,
		   struct mdb_map *map, int fd,
		   const struct mdb_ingest_opts *o, struct mdb_input **in,
		   struct mdb_error *e)
{
	if (f->open_file)
		return open_seekable(path, f, map, fd, o, in, e);
	if (f->open && !f->decode) {
		mdb_unmap(map);
		return f->open(path, o, in, e);
	}
	if (!f->name)
		return refuse_unknown(path, map, e);
	return mdb_file_open(path, f, map, NULL, o, in, e);
}

/*
 * The bytes of regular file @path in @map: mapped as they are, or, when
 * they start with a compression magic or the file says it has none (as
 * /proc's files do), read (and decompressed) into a spool whose
 * descriptor is *@fd (else -1; the caller closes it).
 */
static int map_input(const char *path, struct mdb_map *map, int *fd,
		     struct mdb_error *e)
{
	enum mdb_compression comp;
	int ret = mdb_map_file(path, map, e);

	*fd = -1;
	/* a file of size 0 may be one of /proc's (/proc/slabinfo): read */
	if (ret < 0 || (map->len && !mdb_compression_of(map->data, map->len)))
		return ret;
	mdb_unmap(map);
	return mdb_spool_path(path, map, &comp, fd, e);
}

/* The format @o->format names, without probing. */
static int open_forced(const char *path, const struct mdb_ingest_opts *o,
		       const struct stat *st, struct mdb_input **in,
		       struct mdb_error *e)
{
	const struct mdb_format *f = mdb_format_find(o->format);
	struct mdb_map map = { 0 };
	int ret, fd = -1;

	if (!f) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "format='%s'",
			      o->format);
		mdb_error_msg(e, "unknown input format");
		return -MDB_E_INVAL;
	}
	if (S_ISDIR(st->st_mode))
		ret = mdb_capture_open(path, f, o, in, e);
	else if (!S_ISREG(st->st_mode))
		ret = mdb_error_set(e, MDB_E_IO, path, -1, -1, "format=%s",
				    f->name);
	else if ((ret = map_input(path, &map, &fd, e)) == 0)
		ret = open_as(path, f, &map, fd, o, in, e);
	if (fd >= 0)
		close(fd);
	if (ret == 1) {
		mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, NULL);
		mdb_error_msg(e, "not a %s input", f->name);
		return -MDB_E_FORMAT;
	}
	if (ret == -MDB_E_IO && !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		mdb_error_msg(e, "not a regular file");
	return ret;
}

static int no_format(const char *path, struct mdb_error *e)
{
	return mdb_error_fail(e, MDB_E_FORMAT, path, -1, -1,
			      "no input memdb can read",
			      "a kmemtrace capture directory holds cpu0, "
			      "cpu1, ... or cpu0.out, cpu1.out, ...; "
			      "snapshots are single files");
}

/*
 * The first format of the table that claims the bytes of @map.  Bytes no
 * probe claims are kmemtrace relay only in a file named as a per-CPU
 * file (cpuN, cpuN.out; the relay format has no magic): it then gets the
 * relay reader's diagnosis.  Anything else is not recognised.
 */
static int detect_map(const char *path, struct mdb_map *map, int fd,
		      const struct mdb_ingest_opts *o, struct mdb_input **in,
		      struct mdb_error *e)
{
	const struct mdb_format *f = NULL;
	int ret;

	for (size_t i = 0; i < NFORMATS && !f; i++) {
		/* no magic: bytes that look like something else are not
		 * relay records, however they happen to read */
		if (formats[i].probe == kt_probe &&
		    mdb_looks_like(map->data, map->len))
			break;
		if (formats[i].probe && map->len &&
		    formats[i].probe(map->data, map->len))
			f = &formats[i];
	}
	if (!f && mdb_looks_like(map->data, map->len))
		return refuse_binary(path, map, e);
	if (!f && strcmp(path, MDB_STDIN_NAME) && kt_is_cpu_file(path))
		f = mdb_format_find("kmemtrace-relay");
	if (!f)
		return refuse_unknown(path, map, e);
	ret = open_as(path, f, map, fd, o, in, e);
	return ret == 1 ? no_format(path, e) : ret;
}

static int detect(const char *path, const struct mdb_ingest_opts *o,
		  const struct stat *st, struct mdb_input **in,
		  struct mdb_error *e)
{
	struct mdb_map map = { 0 };
	int ret, fd;

	if (S_ISDIR(st->st_mode)) {
		ret = mdb_capture_open(path, NULL, o, in, e);
		return ret == 1 ? no_format(path, e) : ret;
	}
	if (!S_ISREG(st->st_mode)) {
		mdb_error_set(e, MDB_E_IO, path, -1, -1, NULL);
		mdb_error_msg(e, "not a regular file or directory");
		mdb_error_hint(e, "give - to read standard input");
		return -MDB_E_IO;
	}
	ret = map_input(path, &map, &fd, e);
	if (ret < 0)
		return ret;
	ret = detect_map(path, &map, fd, o, in, e);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Standard input: spooled (and decompressed), then detected or forced. */
static int open_stdin(const struct mdb_ingest_opts *o, struct mdb_input **in,
		      struct mdb_error *e)
{
	const struct mdb_format *f = NULL;
	struct mdb_ingest_opts so = *o;
	enum mdb_compression comp;
	struct mdb_map map;
	int ret, fd = -1;

	if (o->format && !(f = mdb_format_find(o->format))) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "format='%s'",
			      o->format);
		mdb_error_msg(e, "unknown input format");
		return -MDB_E_INVAL;
	}
	ret = mdb_spool_fd(0, MDB_STDIN_NAME, &map, &comp, &fd, e);
	if (ret < 0)
		return ret;
	so.stream = 1;
	if (!f) {
		ret = detect_map(MDB_STDIN_NAME, &map, fd, &so, in, e);
	} else if (f->open && !f->decode) {
		mdb_unmap(&map);
		mdb_error_set(e, MDB_E_INVAL, MDB_STDIN_NAME, -1, -1,
			      "format=%s", f->name);
		mdb_error_msg(e, "a capture directory cannot come from "
				 "standard input");
		ret = -MDB_E_INVAL;
	} else {
		ret = open_as(MDB_STDIN_NAME, f, &map, fd, &so, in, e);
	}
	close(fd);
	return ret;
}

int mdb_input_open(const char *path, const struct mdb_ingest_opts *o,
		   struct mdb_input **in, struct mdb_error *e)
{
	struct stat st;
	int ret;

	*in = NULL;
	if (!strcmp(path, "-")) {
		ret = open_stdin(o, in, e);
		/* a pipe has no time of its own: standard input was taken
		 * when it was read (a snapshot's series goes by it) */
		if (ret == 0)
			(*in)->meta.mtime = (int64_t)time(NULL);
		return ret;
	}
	if (stat(path, &st) < 0)
		return mdb_path_error(path, errno, e);
	/* never open(2) a FIFO, socket or device: a FIFO blocks */
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return mdb_file_kind_error(path, &st, e);
	ret = o->format ? open_forced(path, o, &st, in, e) :
			  detect(path, o, &st, in, e);
	/* probes and hashes read the mapping: did the file shrink? */
	ret = mdb_map_check(ret, e);
	if (ret < 0 && *in) {
		mdb_input_close(*in);
		*in = NULL;
	}
	/* a file that says it is empty yet held data is /proc's, made as
	 * it is read: taken now, not when the kernel made its inode */
	if (ret == 0)
		(*in)->meta.mtime = S_ISREG(st.st_mode) && !st.st_size ?
				    (int64_t)time(NULL) : (int64_t)st.st_mtime;
	return ret;
}

int mdb_read_release(const char *dir, struct mdb_source_meta *m,
		     struct mdb_error *e)
{
	static const char *const names[] = { "kernel-release",
					     "kernel_release", "osrelease" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path, *buf = NULL;
		struct mdb_error ign;
		size_t n;
		int ret = mdb_capture_file(dir, names[i], &path, e);

		if (ret < 0)
			return ret;
		if (ret == 0 && mdb_read_small(path, 120, &buf, &n, &ign) == 0) {
			while (n && isspace((unsigned char)buf[n - 1]))
				buf[--n] = '\0';
			snprintf(m->kernel_release, sizeof(m->kernel_release),
				 "%s", buf);
			free(buf);
			free(path);
			return 0;
		}
		free(path);
	}
	return 0;
}

struct mdb_hasher {
	XXH3_state_t *state;
};

struct mdb_hasher *mdb_hash_begin(const char *tag, struct mdb_error *e)
{
	struct mdb_hasher *h = calloc(1, sizeof(*h));

	if (h && !(h->state = XXH3_createState())) {
		free(h);
		h = NULL;
	}
	if (!h) {
		mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
		return NULL;
	}
	XXH3_128bits_reset(h->state);
	XXH3_128bits_update(h->state, tag, strlen(tag));
	return h;
}

void mdb_hash_update(struct mdb_hasher *h, const void *buf, size_t len)
{
	if (len)
		XXH3_128bits_update(h->state, buf, len);
}

void mdb_hash_map(struct mdb_hasher *h, struct mdb_map *map, size_t step)
{
	struct mdb_cursor c;

	mdb_cursor_init(&c, map->data, map->len);
	while (mdb_cursor_left(&c)) {
		size_t n = mdb_cursor_left(&c) < step ? mdb_cursor_left(&c) :
							 step;

		mdb_hash_update(h, mdb_cursor_peek(&c, n), n);
		(void)mdb_cursor_skip(&c, n);
		mdb_map_done(map, mdb_cursor_off(&c));
	}
}

void mdb_hash_end(struct mdb_hasher *h, struct mdb_source_meta *m)
{
	XXH128_hash_t v = XXH3_128bits_digest(h->state);

	snprintf(m->hash, sizeof(m->hash), "%016" PRIx64 "%016" PRIx64,
		 (uint64_t)v.high64, (uint64_t)v.low64);
	XXH3_freeState(h->state);
	free(h);
}


const struct mdb_source_meta *mdb_input_meta(struct mdb_input *in)
{
	if (in->ops->wait)
		in->ops->wait(in);
	return &in->meta;
}

const struct mdb_source_meta *mdb_input_meta_early(struct mdb_input *in)
{
	return &in->meta;
}

int mdb_input_prepare(struct mdb_input *in, struct mdb_error *e)
{
	int ret = in->ops->prepare ? in->ops->prepare(in, e) : 0;

	if (in->ops->wait && !in->late_hash)
		in->ops->wait(in);
	/* the walk and the hash read the mapping: did the file shrink? */
	return mdb_map_check(ret, e);
}

int mdb_input_position(const struct mdb_input *in, uint64_t *done,
		       uint64_t *size)
{
	*done = in->done < in->size ? in->done : in->size;
	*size = in->size;
	return in->size ? 0 : -1;
}

int mdb_input_decode(struct mdb_input *in, const struct mdb_sink *sink,
		     struct mdb_decode_stats *st, struct mdb_error *e)
{
	if (!in->ops->decode) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "format=%s",
			      in->meta.format);
		mdb_error_msg(e, "a snapshot, not a trace");
		return -MDB_E_INVAL;
	}
	return mdb_map_check(in->ops->decode(in, sink, st, e), e);
}

int mdb_input_decode_snap(struct mdb_input *in,
			  const struct mdb_snap_sink *sink,
			  struct mdb_snap_info *info, struct mdb_error *e)
{
	if (!in->ops->decode_snap) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "format=%s",
			      in->meta.format);
		mdb_error_msg(e, "a trace, not a snapshot");
		return -MDB_E_INVAL;
	}
	return mdb_map_check(in->ops->decode_snap(in, sink, info, e), e);
}

void mdb_input_close(struct mdb_input *in)
{
	if (in)
		in->ops->close(in);
}
