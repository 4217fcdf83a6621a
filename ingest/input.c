// SPDX-License-Identifier: MIT
/*
 * Private to ingest/: the generic struct mdb_input interface (input.h):
 * a source, whichever opener made it and whichever decoder reads it.
 */
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "input.h"
#include "relay.h"

void *mdb_input_alloc(const char *path, struct mdb_map *map, size_t size,
		      size_t path_at, size_t map_at, struct mdb_input **in,
		      struct mdb_error *e)
{
	char *priv = calloc(1, size), *copy = strdup(path);

	*in = calloc(1, sizeof(**in));
	if (!*in || !priv || !copy) {
		free(*in);
		free(priv);
		free(copy);
		mdb_unmap(map);
		mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
		return NULL;
	}
	*(char **)(priv + path_at) = copy;
	memcpy(priv + map_at, map, sizeof(*map));
	memset(map, 0, sizeof(*map));
	return priv;
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
	uint64_t d = atomic_load_explicit(&in->done, memory_order_relaxed);

	*done = d < in->size ? d : in->size;
	*size = in->size;
	return in->size ? 0 : -1;
}

int mdb_input_decode(struct mdb_input *in, const struct mdb_sink *sink,
		     struct mdb_decode_stats *st, struct mdb_error *e)
{
	const struct mdb_format *f;

	if (!in->ops->decode) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "format=%s",
			      in->meta.format);
		mdb_error_msg(e, "a snapshot, not a trace");
		return -MDB_E_INVAL;
	}
	f = mdb_format_find(in->meta.format);
	if (f && (f->flags & MDB_FMT_RELAY))
		return mdb_map_check(mdb_relay_decode(in, sink, st, e), e);
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
