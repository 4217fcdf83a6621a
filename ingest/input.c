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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "../common/file.h"
#include "input.h"

#define TEXT_PROBE_BYTES 4096

struct mdb_format {
	const char *name;  /* NULL: a refusal, not a format (see below) */
	/* one-file formats: recognise the bytes, decode them */
	mdb_snap_probe_fn probe;
	mdb_snap_decode_fn decode;
	/* what the header says beyond the rows (byte order, CPUs) */
	void (*describe)(const void *buf, size_t len, struct mdb_source_meta *m);
	/* path formats: open @path, or return 1 when it is not theirs */
	int (*open)(const char *path, const struct mdb_ingest_opts *o,
		    struct mdb_input **in, struct mdb_error *e);
};

static void memstat_describe(const void *buf, size_t len,
			     struct mdb_source_meta *m)
{
	uint32_t version, maxcpus, count;

	if (mdb_memstat_header(buf, len, &m->order, &version, &maxcpus,
			       &count))
		m->ncpus = (int)maxcpus;
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

static const struct mdb_format formats[] = {
	/* binary snapshot streams: a version word, counts that match the
	 * file's length */
	{ "memstat-uma", mdb_memstat_uma_probe, mdb_memstat_uma_decode,
	  memstat_describe, NULL },
	{ "memstat-malloc", mdb_memstat_malloc_probe,
	  mdb_memstat_malloc_decode, memstat_describe, NULL },
	/* text snapshots: a header line, else the first row's shape */
	{ "vmstat-json", mdb_vmstat_json_probe, mdb_vmstat_json_decode, NULL,
	  NULL },
	{ "allocinfo", mdb_allocinfo_probe, mdb_allocinfo_decode, NULL, NULL },
	{ "slabinfo", mdb_slabinfo_probe, mdb_slabinfo_decode, NULL, NULL },
	{ "vmstat-z", mdb_vmstat_z_probe, mdb_vmstat_z_decode, NULL, NULL },
	{ "vmstat-m", mdb_vmstat_m_probe, mdb_vmstat_m_decode, NULL, NULL },
	/* text event traces: a trace file, or a directory holding one */
	{ "ftrace-text", NULL, NULL, NULL, ft_input_open },
	/* any other text file: refused here, so the binary trace reader
	 * below does not misjudge it */
	{ NULL, text_probe, NULL, NULL, NULL },
	/* the ftrace-era kmemtrace tracer's binary: exact record sizes */
	{ "kmemtrace-ftrace", NULL, NULL, NULL, ktf_input_open },
	/* kmemtrace relay: a capture directory, or any lone binary file */
	{ "kmemtrace-relay", NULL, NULL, NULL, kt_input_open },
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

int mdb_format_is_snapshot(const char *format)
{
	for (size_t i = 0; format && i < NFORMATS; i++)
		if (formats[i].name && !strcmp(formats[i].name, format))
			return formats[i].decode != NULL;
	return 0;
}

void mdb_ingest_opts_init(struct mdb_ingest_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->order = MDB_ORDER_UNKNOWN;
	o->cpu = -1;
}

static int open_file_format(const char *path, const struct mdb_format *f,
			    struct mdb_map *map, struct mdb_input **in,
			    struct mdb_error *e)
{
	if (!f->decode) {
		mdb_unmap(map);
		mdb_error_set(e, MDB_E_FORMAT, path, -1, 1, NULL);
		mdb_error_msg(e, "unrecognised text input");
		mdb_error_hint(e, "memdb reads /proc/allocinfo, /proc/slabinfo, "
				  "vmstat -z and -m (text or --libxo json); "
				  "--format NAME names the format");
		return -MDB_E_FORMAT;
	}
	return snap_input_open(path, f->name, f->decode, f->describe, map, in,
			       e);
}

static const struct mdb_format *find_format(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].name && !strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

/* The format @o->format names, without probing. */
static int open_forced(const char *path, const struct mdb_ingest_opts *o,
		       const struct stat *st, struct mdb_input **in,
		       struct mdb_error *e)
{
	const struct mdb_format *f = find_format(o->format);
	struct mdb_map map;
	int ret;

	if (!f) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "format='%s'",
			      o->format);
		mdb_error_msg(e, "unknown input format");
		return -MDB_E_INVAL;
	}
	if (f->open) {
		ret = f->open(path, o, in, e);
		if (ret == 1) {
			mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, NULL);
			mdb_error_msg(e, "not a %s input", f->name);
			return -MDB_E_FORMAT;
		}
		return ret;
	}
	if (!S_ISREG(st->st_mode)) {
		mdb_error_set(e, MDB_E_IO, path, -1, -1, "format=%s", f->name);
		mdb_error_msg(e, "not a regular file");
		return -MDB_E_IO;
	}
	ret = mdb_map_file(path, &map, e);
	if (ret < 0)
		return ret;
	return open_file_format(path, f, &map, in, e);
}

static int detect(const char *path, const struct mdb_ingest_opts *o,
		  const struct stat *st, struct mdb_input **in,
		  struct mdb_error *e)
{
	struct mdb_map map = { 0 };
	int ret;

	if (S_ISREG(st->st_mode)) {
		ret = mdb_map_file(path, &map, e);
		if (ret < 0)
			return ret;
	}
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct mdb_format *f = &formats[i];

		if (f->probe) {
			if (map.len && f->probe(map.data, map.len))
				return open_file_format(path, f, &map, in, e);
			continue;
		}
		/* a path format opens the path itself; the mapping stays
		 * for the one-file probes after it */
		ret = f->open(path, o, in, e);
		if (ret != 1) {
			mdb_unmap(&map);
			return ret;
		}
	}
	mdb_unmap(&map);
	mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, NULL);
	mdb_error_msg(e, "no input memdb can read");
	mdb_error_hint(e, "a kmemtrace capture directory holds cpu0, cpu1, "
			  "... or cpu0.out, cpu1.out, ...; snapshots are "
			  "single files");
	return -MDB_E_FORMAT;
}

int mdb_input_open(const char *path, const struct mdb_ingest_opts *o,
		   struct mdb_input **in, struct mdb_error *e)
{
	struct stat st;
	int ret;

	*in = NULL;
	if (stat(path, &st) < 0)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	ret = o->format ? open_forced(path, o, &st, in, e) :
			  detect(path, o, &st, in, e);
	if (ret == 0)
		(*in)->meta.mtime = (int64_t)st.st_mtime;
	return ret;
}

void mdb_read_release(const char *dir, struct mdb_source_meta *m)
{
	static const char *const names[] = { "kernel-release",
					     "kernel_release", "osrelease" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path = mdb_path_join(dir, names[i]), *buf = NULL;
		struct mdb_error ign;
		size_t n;

		if (path && mdb_read_small(path, 120, &buf, &n, &ign) == 0) {
			while (n && isspace((unsigned char)buf[n - 1]))
				buf[--n] = '\0';
			snprintf(m->kernel_release, sizeof(m->kernel_release),
				 "%s", buf);
			free(buf);
			free(path);
			return;
		}
		free(path);
	}
}

int mdb_hash_map(const char *tag, struct mdb_map *map, size_t step,
		 struct mdb_source_meta *m, struct mdb_error *e)
{
	XXH3_state_t *hs = XXH3_createState();
	XXH128_hash_t h;

	if (!hs)
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	XXH3_128bits_reset(hs);
	XXH3_128bits_update(hs, tag, strlen(tag));
	for (size_t off = 0; off < map->len; off += step) {
		size_t n = map->len - off < step ? map->len - off : step;

		XXH3_128bits_update(hs, map->data + off, n);
		mdb_map_done(map, off + n);
	}
	h = XXH3_128bits_digest(hs);
	XXH3_freeState(hs);
	snprintf(m->hash, sizeof(m->hash), "%016" PRIx64 "%016" PRIx64,
		 (uint64_t)h.high64, (uint64_t)h.low64);
	return 0;
}

void mdb_map_done_cb(void *map, size_t off)
{
	mdb_map_done(map, off);
}

const struct mdb_source_meta *mdb_input_meta(const struct mdb_input *in)
{
	return &in->meta;
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
	return in->ops->decode(in, sink, st, e);
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
	return in->ops->decode_snap(in, sink, info, e);
}

void mdb_input_close(struct mdb_input *in)
{
	if (in)
		in->ops->close(in);
}
