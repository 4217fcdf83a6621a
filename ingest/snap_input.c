// SPDX-License-Identifier: MIT
/*
 * A statistics snapshot on disk: one file, mapped, hashed (so a re-ingest
 * of the same bytes is recognised before decoding), and decoded by the
 * pure (buf, len) decoder of its format.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "input.h"

struct snap_file {
	char *path;
	struct mdb_map map;
	mdb_snap_decode_fn decode;
};

static int snap_decode(struct mdb_input *in, const struct mdb_snap_sink *sink,
		       struct mdb_snap_info *info, struct mdb_error *e)
{
	struct snap_file *f = in->priv;

	return f->decode(f->map.data, f->map.len, f->path, sink, info, e);
}

static void snap_close(struct mdb_input *in)
{
	struct snap_file *f = in->priv;

	if (f) {
		mdb_unmap(&f->map);
		free(f->path);
		free(f);
	}
	free(in);
}

static const struct mdb_input_ops snap_ops = {
	.decode_snap = snap_decode,
	.close = snap_close,
};

int snap_input_open(const char *path, const char *format,
		    mdb_snap_decode_fn decode,
		    void (*describe)(const void *buf, size_t len,
				     struct mdb_source_meta *m),
		    struct mdb_map *map, struct mdb_input **out,
		    struct mdb_error *e)
{
	struct mdb_input *in = calloc(1, sizeof(*in));
	struct snap_file *f = calloc(1, sizeof(*f));
	XXH3_state_t *hs = XXH3_createState();
	XXH128_hash_t h;

	*out = NULL;
	if (!in || !f || !hs || !(f->path = strdup(path))) {
		XXH3_freeState(hs);
		free(f);
		free(in);
		mdb_unmap(map);
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	}
	f->map = *map;
	memset(map, 0, sizeof(*map));
	f->decode = decode;
	in->ops = &snap_ops;
	in->priv = f;
	in->meta.format = format;
	in->meta.snapshot = 1;
	in->meta.abi_version = -1;
	in->meta.overruns = -1;
	in->meta.data_bytes = f->map.len;
	if (describe)
		describe(f->map.data, f->map.len, &in->meta);
	/* the format name, then the bytes: as kmemtrace captures hash */
	XXH3_128bits_reset(hs);
	XXH3_128bits_update(hs, format, strlen(format));
	if (f->map.len)
		XXH3_128bits_update(hs, f->map.data, f->map.len);
	h = XXH3_128bits_digest(hs);
	XXH3_freeState(hs);
	snprintf(in->meta.hash, sizeof(in->meta.hash),
		 "%016" PRIx64 "%016" PRIx64, (uint64_t)h.high64,
		 (uint64_t)h.low64);
	*out = in;
	return 0;
}
