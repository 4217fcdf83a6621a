// SPDX-License-Identifier: MIT
/*
 * The one-file opener (onefile.h): one mapped file read by a format's pure
 * decoder, as a struct mdb_input.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "input.h"
#include "kallsyms.h"
#include "onefile.h"

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
		mdb_kallsyms_release(&fi->ksyms);
	free(fi->path);
	free(fi);
}

/* A decoder's done() callback: release the pages read, note the
 * position for progress. */
static void file_done(void *ctx, size_t off)
{
	struct mdb_input *in = ctx;
	struct file_input *fi = in->priv;

	atomic_store_explicit(&in->done, off, memory_order_relaxed);
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
			return mdb_error_nomem(e);
	} else if (dir) {
		ret = mdb_capture_file(dir, "kallsyms", &path, e);
		if (ret)
			return ret < 0 ? ret : 0;
	} else {
		return 0;
	}
	ret = mdb_kallsyms_load(&fi->ksyms, path, e);
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

	mdb_hash_map(fi->hasher, &fi->map, MDB_RELEASE_STEP);
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
		/* the hash thread releases the pages behind it; the
		 * decoder reads them again from the page cache where it
		 * needs them (perf.data: only up to its current round) */
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
	struct mdb_input *in;
	struct file_input *fi = MDB_INPUT_ALLOC(struct file_input, path, map,
						&in, e);
	int ret;

	*out = NULL;
	if (!fi)
		return -MDB_E_NOMEM;
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
