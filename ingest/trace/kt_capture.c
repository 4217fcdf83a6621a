// SPDX-License-Identifier: MIT
/*
 * A kmemtrace relay capture on disk: a directory holding cpu0, cpu1, ...
 * (or cpuN.out as the userspace logger saved them), abi_version and
 * total_overruns, or a lone per-CPU file.  Maps the files, checks the ABI
 * version, hashes the event data and decides the byte order; decoding is
 * mdb_kt_merge() over the mapped streams.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../common/file.h"
#include "../hash.h"
#include "../input.h"
#include "../magic.h"
#include "kmemtrace.h"
#include "kt_capture.h"

#define KT_MAX_CPUS 65536 /* more per-CPU files than any machine has CPUs */

struct kt_file {
	char *path;
	int cpu;
	struct mdb_map map;
	size_t done;             /* bytes read, for progress */
	struct mdb_input *in;    /* whose position sums every file's */
};

struct kt_capture {
	struct kt_file *files;
	size_t nfiles;
	struct kt_stream *streams;
};

/* "cpu12" or "cpu12.out" -> 12; -1 for any other name. */
static int kt_cpu_from_name(const char *name)
{
	const char *p = name;
	long v = 0;

	if (strncmp(p, "cpu", 3))
		return -1;
	p += 3;
	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p - '0');
		if (v >= KT_MAX_CPUS)
			return -1;
		p++;
	}
	if (*p && strcmp(p, ".out"))
		return -1;
	return (int)v;
}

static const char *kt_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/*
 * Parse a one-number text file (abi_version, total_overruns).  Returns 1
 * when the file is absent, 0 with *@v set, <0 on a malformed file.
 */
static int kt_read_number(const char *dir, const char *name, int64_t *v,
			  struct mdb_error *e)
{
	char *path = mdb_path_join(dir, name), *buf = NULL, *end;
	struct stat st;
	long long n;
	int ret;

	if (!path)
		return mdb_error_nomem(e);
	if (stat(path, &st) < 0 && errno == ENOENT) {
		free(path);
		return 1;
	}
	ret = mdb_read_small(path, 64, &buf, NULL, e);
	if (ret < 0)
		goto out;
	errno = 0;
	n = strtoll(buf, &end, 10);
	while (*end && isspace((unsigned char)*end))
		end++;
	if (end == buf || *end || errno || n < 0) {
		ret = mdb_error_set(e, MDB_E_CORRUPT, path, -1, 1,
				    "expected a decimal number");
		mdb_error_msg(e, "malformed %s file", name);
		goto out;
	}
	*v = n;
	ret = 0;
out:
	free(buf);
	free(path);
	return ret;
}

static int kt_file_cmp(const void *a, const void *b)
{
	const struct kt_file *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Collect cpuN / cpuN.out files of @dir into @c, sorted by CPU. */
static int kt_scan_dir(const char *dir, struct kt_capture *c,
		       struct mdb_error *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;
	int ret = 0;

	if (!d)
		return mdb_error_set(e, MDB_E_IO, dir, -1, -1, "%s",
				     strerror(errno));
	while ((de = readdir(d))) {
		int cpu = kt_cpu_from_name(de->d_name);

		if (cpu < 0)
			continue;
		if (c->nfiles == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct kt_file *nf;

			nf = realloc(c->files, ncap * sizeof(*nf));
			if (!nf) {
				ret = mdb_error_set(e, MDB_E_NOMEM, dir, -1,
						    -1, NULL);
				goto out;
			}
			c->files = nf;
			cap = ncap;
		}
		memset(&c->files[c->nfiles], 0, sizeof(c->files[0]));
		c->files[c->nfiles].cpu = cpu;
		c->files[c->nfiles].path = mdb_path_join(dir, de->d_name);
		if (!c->files[c->nfiles].path) {
			ret = mdb_error_set(e, MDB_E_NOMEM, dir, -1, -1, NULL);
			goto out;
		}
		c->nfiles++;
	}
	if (c->nfiles)
		qsort(c->files, c->nfiles, sizeof(c->files[0]), kt_file_cmp);
	for (size_t i = 1; i < c->nfiles; i++) {
		if (c->files[i].cpu == c->files[i - 1].cpu) {
			ret = mdb_error_set(e, MDB_E_FORMAT, dir, -1, -1,
					    "cpu=%d files='%s','%s'",
					    c->files[i].cpu,
					    kt_basename(c->files[i - 1].path),
					    kt_basename(c->files[i].path));
			mdb_error_msg(e, "two files for one CPU");
			goto out;
		}
	}
out:
	closedir(d);
	return ret;
}

static void kt_capture_free(struct kt_capture *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfiles; i++) {
		mdb_unmap(&c->files[i].map);
		free(c->files[i].path);
	}
	free(c->files);
	free(c->streams);
	free(c);
}

/* Bytes of each file read before its pages are released: the resident
 * input stays near RELEASE_TOTAL however many files there are. */
#define RELEASE_TOTAL (16u << 20)
#define RELEASE_MIN (256u << 10)

static size_t kt_release_step(size_t nfiles)
{
	size_t step = RELEASE_TOTAL / (nfiles ? nfiles : 1);

	return step < RELEASE_MIN ? RELEASE_MIN : step;
}

static void kt_file_done(void *ctx, size_t off)
{
	struct kt_file *f = ctx;

	if (off > f->done) {
		mdb_input_advance(f->in, off - f->done);
		f->done = off;
	}
	mdb_map_done(&f->map, off);
}

static int kt_capture_decode(struct mdb_input *in, const struct mdb_sink *sink,
		     struct mdb_decode_stats *st, struct mdb_error *e)
{
	struct kt_capture *c = in->priv;
	size_t step = kt_release_step(c->nfiles);

	in->size = 0;
	for (size_t i = 0; i < c->nfiles; i++) {
		struct kt_stream *s = &c->streams[i];

		c->files[i].in = in;
		c->files[i].done = 0;
		in->size += c->files[i].map.len;
		mdb_kt_stream_init(s, c->files[i].path, c->files[i].cpu,
				   c->files[i].map.data, c->files[i].map.len,
				   in->meta.order);
		s->done = kt_file_done;
		s->done_ctx = &c->files[i];
		s->done_step = step;
		s->done_next = step;
	}
	return mdb_kt_merge(c->streams, c->nfiles, sink, st, e);
}

static void kt_close(struct mdb_input *in)
{
	kt_capture_free(in->priv);
	free(in);
}

static const struct mdb_input_ops kt_ops = {
	.decode = kt_capture_decode,
	.close = kt_close,
};

/* Check the capture's abi_version against what memdb reads. */
static int kt_check_abi(const char *dir, int abi, struct mdb_source_meta *m,
			struct mdb_error *e)
{
	int64_t v = KT_ABI_VERSION;
	int ret = kt_read_number(dir, "abi_version", &v, e);

	if (ret < 0)
		return ret;
	if (abi && abi != KT_ABI_VERSION) {
		mdb_error_set(e, MDB_E_VERSION, NULL, -1, -1, "abi=%d",
			      abi);
		mdb_error_msg(e, "unsupported kmemtrace ABI version given");
		mdb_error_hint(e, "memdb reads kmemtrace relay ABI version %d",
			       KT_ABI_VERSION);
		return -MDB_E_VERSION;
	}
	if (v != KT_ABI_VERSION) {
		if (!abi) {
			char *path = mdb_path_join(dir, "abi_version");

			mdb_error_set(e, MDB_E_VERSION, path, -1, 1,
				      "version=%" PRId64 " supported=%d", v,
				      KT_ABI_VERSION);
			mdb_error_msg(e, "unsupported kmemtrace ABI version");
			mdb_error_hint(e, "give --abi %d to read it as version "
					  "%d anyway", KT_ABI_VERSION,
				       KT_ABI_VERSION);
			free(path);
			return -MDB_E_VERSION;
		}
		snprintf(m->notes, sizeof(m->notes),
			 "abi_version says %" PRId64 ", read as %d (--abi)",
			 v, KT_ABI_VERSION);
	}
	m->abi_version = KT_ABI_VERSION;
	return 0;
}

/* A capture directory: its cpuN files, abi_version, total_overruns. */
static int kt_open_dir(const char *path, const struct mdb_ingest_opts *o,
		       struct mdb_input *in, struct kt_capture *c,
		       struct mdb_error *e)
{
	int64_t ov;
	int ret;

	in->meta.whole_capture = 1;
	ret = kt_scan_dir(path, c, e);
	if (ret < 0)
		return ret;
	if (!c->nfiles)
		return 1; /* not a relay capture directory */
	ret = kt_check_abi(path, o->abi, &in->meta, e);
	if (ret < 0)
		return ret;
	ret = kt_read_number(path, "total_overruns", &ov, e);
	if (ret < 0)
		return ret;
	if (ret == 0)
		in->meta.overruns = ov;
	ret = mdb_read_release(path, &in->meta, e);
	if (ret < 0)
		return ret;
	return mdb_attach_scan(&in->meta, path, e);
}

/*
 * Map every file and hash the capture: the format name, then per file its
 * CPU and length (so moving bytes between files changes the hash) and its
 * bytes.  Returns the bytes mapped, or <0.
 */
static int kt_map_all(struct mdb_input *in, struct kt_capture *c,
		      uint64_t *total, struct mdb_error *e)
{
	struct mdb_hasher *hs = mdb_hash_begin(in->meta.format, e);
	int ret = 0;

	if (!hs)
		return -MDB_E_NOMEM;
	*total = 0;
	for (size_t i = 0; i < c->nfiles && ret == 0; i++) {
		struct kt_file *f = &c->files[i];
		uint8_t tag[12];

		ret = mdb_map_file(f->path, &f->map, e);
		if (ret < 0)
			break;
		put_le32(tag, (uint32_t)f->cpu);
		put_le64(tag + 4, f->map.len);
		mdb_hash_update(hs, tag, sizeof(tag));
		mdb_hash_map(hs, &f->map, kt_release_step(c->nfiles));
		*total += f->map.len;
		mdb_kt_stream_init(&c->streams[i], f->path, f->cpu, f->map.data,
				   f->map.len, MDB_ORDER_UNKNOWN);
	}
	mdb_hash_end(hs, &in->meta);
	return ret;
}

static int kt_open(const char *path, const struct mdb_ingest_opts *o,
		   int isdir, struct mdb_input *in, struct kt_capture *c,
		   struct mdb_error *e)
{
	uint64_t total;
	int ret;

	if (!isdir)
		return 1; /* a lone file: the one-file opener's (mdb_kt_describe) */
	ret = kt_open_dir(path, o, in, c, e);
	if (ret)
		return ret;
	c->streams = calloc(c->nfiles, sizeof(*c->streams));
	if (!c->streams)
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	ret = kt_map_all(in, c, &total, e);
	if (ret < 0)
		return ret;
	if (!total) {
		mdb_error_set(e, MDB_E_EMPTY, path, -1, -1, "files=%zu",
			      c->nfiles);
		mdb_error_msg(e, "no kmemtrace records");
		return -MDB_E_EMPTY;
	}
	in->meta.data_bytes = total;
	in->meta.ncpus = (int)c->nfiles;
	in->meta.order = o->order;
	if (o->order != MDB_ORDER_UNKNOWN)
		return 0;
	return mdb_kt_detect_order(c->streams, c->nfiles, &in->meta.order, e);
}

int mdb_kt_input_open(const char *path, const struct mdb_ingest_opts *o,
		      struct mdb_input **out, struct mdb_error *e)
{
	struct mdb_input *in = NULL;
	struct kt_capture *c = NULL;
	struct stat st;
	int ret;

	*out = NULL;
	if (stat(path, &st) < 0)
		return mdb_path_error(path, errno, e);
	in = calloc(1, sizeof(*in));
	c = calloc(1, sizeof(*c));
	if (!in || !c) {
		ret = mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
		goto fail;
	}
	in->ops = &kt_ops;
	in->priv = c;
	in->meta.format = "kmemtrace-relay";
	in->meta.overruns = -1;
	in->meta.word_size = 8;
	ret = kt_open(path, o, S_ISDIR(st.st_mode), in, c, e);
	if (ret)
		goto fail;
	*out = in;
	return 0;
fail:
	kt_capture_free(c);
	free(in);
	return ret;
}

/* cpuN or cpuN.out, whatever N: the names that make a directory a relay
 * capture (kt_cpu_from_name() then reads the CPUs it can hold). */
static int kt_is_cpu_name(const char *n)
{
	if (strncmp(n, "cpu", 3) || n[3] < '0' || n[3] > '9')
		return 0;
	n += 3;
	while (*n >= '0' && *n <= '9')
		n++;
	return !*n || !strcmp(n, ".out");
}

int mdb_kt_is_capture(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int yes = 0;

	if (!d)
		return 0;
	while (!yes && (de = readdir(d)))
		yes = kt_is_cpu_name(de->d_name);
	closedir(d);
	return yes;
}

int mdb_kt_is_cpu_file(const char *path)
{
	const char *n = kt_basename(path), *p = strstr(n, "cpu");

	/* the last "cpu" that starts the name or follows a separator */
	for (const char *q = p; q; q = strstr(q + 1, "cpu"))
		if (q == n || !isalnum((unsigned char)q[-1]))
			p = q;
	if (!p || (p != n && isalnum((unsigned char)p[-1])))
		return 0;
	return kt_cpu_from_name(p) >= 0;
}

/* The directory of @path ("." for a bare name); NULL on ENOMEM. */
static char *kt_dirname(const char *path)
{
	char *dir = strdup(path), *slash;

	if (!dir)
		return NULL;
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	return dir;
}

int mdb_kt_describe(const void *buf, size_t len, struct mdb_decode_opts *o,
		    struct mdb_source_meta *m, struct mdb_error *e)
{
	struct kt_stream s;
	int cpu = kt_cpu_from_name(kt_basename(o->name)), ret = 0;

	/* docs/design.md §4.1: the cpuN name, else --cpu, else 0 */
	o->cpu = cpu >= 0 ? cpu : o->cpu >= 0 ? o->cpu : 0;
	m->word_size = 8;
	m->ncpus = 1;
	if (!o->stream) {
		/* a lone file still obeys its capture's abi_version */
		char *dir = kt_dirname(o->name);

		ret = dir ? kt_check_abi(dir, o->abi, m, e) :
			    mdb_error_nomem(e);
		free(dir);
		if (ret < 0)
			return ret;
	} else {
		m->abi_version = KT_ABI_VERSION;
	}
	if (!len) {
		mdb_error_set(e, MDB_E_EMPTY, o->name, 0, -1, "files=1");
		mdb_error_msg(e, "no kmemtrace records");
		return -MDB_E_EMPTY;
	}
	m->order = o->order;
	if (o->order != MDB_ORDER_UNKNOWN)
		return 0;
	mdb_kt_stream_init(&s, o->name, o->cpu, buf, len, MDB_ORDER_UNKNOWN);
	ret = mdb_kt_detect_order(&s, 1, &m->order, e);
	if (ret == -MDB_E_FORMAT && mdb_looks_like(buf, len))
		mdb_error_hint(e, "the input looks like %s",
			       mdb_looks_like(buf, len));
	o->order = m->order;
	return ret;
}
