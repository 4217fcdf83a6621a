// SPDX-License-Identifier: MIT
/*
 * Format detection and the generic struct mdb_input interface: a path
 * becomes one source whichever decoder reads it.
 *
 * Detection is an ordered table of probes.  Each probe says "not mine"
 * (1) unless the data is clearly its format, so the order matters only
 * for the catch-alls at the end: the relay reader takes any lone file.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../common/file.h"
#include "input.h"

struct mdb_probe {
	const char *name;
	int (*open)(const char *path, const struct mdb_ingest_opts *o,
		    struct mdb_input **in, struct mdb_error *e);
};

static const struct mdb_probe probes[] = {
	{ "ftrace-text", ft_input_open },
	{ "kmemtrace-ftrace", ktf_input_open },
	{ "kmemtrace-relay", kt_input_open },
};

#define NPROBES (sizeof(probes) / sizeof(probes[0]))

void mdb_ingest_opts_init(struct mdb_ingest_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->order = MDB_ORDER_UNKNOWN;
	o->cpu = -1;
}

const char *const *mdb_input_formats(void)
{
	static const char *names[NPROBES + 1];

	for (size_t i = 0; i < NPROBES; i++)
		names[i] = probes[i].name;
	return names;
}

/* A forced format: only that probe, and "not mine" is an error. */
static int open_forced(const char *path, const struct mdb_ingest_opts *o,
		       struct mdb_input **in, struct mdb_error *e)
{
	for (size_t i = 0; i < NPROBES; i++) {
		int ret;

		if (strcmp(probes[i].name, o->format))
			continue;
		ret = probes[i].open(path, o, in, e);
		if (ret == 1) {
			mdb_error_set(e, MDB_E_FORMAT, path, -1, -1,
				      "format=%s", o->format);
			mdb_error_msg(e, "not an input of the format given");
			return -MDB_E_FORMAT;
		}
		return ret;
	}
	{
		char list[128] = "";
		size_t n = 0;

		for (size_t i = 0; i < NPROBES && n < sizeof(list); i++) {
			int r = snprintf(list + n, sizeof(list) - n, "%s%s",
					 i ? ", " : "", probes[i].name);

			if (r > 0)
				n += (size_t)r;
		}
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "format='%s'",
			      o->format);
		mdb_error_msg(e, "unknown input format");
		mdb_error_hint(e, "formats: %s", list);
	}
	return -MDB_E_INVAL;
}

int mdb_input_open(const char *path, const struct mdb_ingest_opts *o,
		   struct mdb_input **in, struct mdb_error *e)
{
	*in = NULL;
	if (o->format)
		return open_forced(path, o, in, e);
	for (size_t i = 0; i < NPROBES; i++) {
		int ret = probes[i].open(path, o, in, e);

		if (ret != 1)
			return ret;
	}
	mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, NULL);
	mdb_error_msg(e, "no input memdb can read");
	mdb_error_hint(e, "a kmemtrace capture directory holds cpu0, "
			  "cpu1, ... or cpu0.out, cpu1.out, ...");
	return -MDB_E_FORMAT;
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
	return in->ops->decode(in, sink, st, e);
}

void mdb_input_close(struct mdb_input *in)
{
	if (in)
		in->ops->close(in);
}
