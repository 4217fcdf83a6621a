// SPDX-License-Identifier: MIT
/*
 * ftrace kmem text on disk: a trace text file, or a capture directory
 * holding one (trace, trace_pipe, *.txt or *.trace) with, optionally, the
 * boot's kallsyms and a kernel-release file.  Maps the text, sniffs it
 * (is it ftrace text; pointer width; hashed pointers), hashes it, loads
 * the kallsyms; decoding is ft_decode() over the mapping, releasing the
 * pages it has read so memory stays bounded by the live set.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../common/file.h"
#include "ftrace.h"
#include "../input.h"

#define SNIFF_BYTES (1u << 20)    /* prefix looked at to detect the format */
#define RELEASE_STEP (16u << 20)  /* bytes read between page releases */
#define FT_FORMAT "ftrace-text"

struct ft_capture {
	char *path;            /* the text file */
	char *ksyms_path;      /* NULL: none */
	struct mdb_map map;
	struct kallsyms ksyms;
	int have_ksyms;
	struct ft_sniff sniff;
	struct ft_opts fo;
};

static void ft_capture_free(struct ft_capture *c)
{
	if (!c)
		return;
	mdb_unmap(&c->map);
	if (c->have_ksyms)
		kallsyms_release(&c->ksyms);
	free(c->path);
	free(c->ksyms_path);
	free(c);
}

/* Map @path and sniff it: 0 ftrace text, 1 not, <0 error. */
static int ft_map_sniff(const char *path, struct mdb_map *m,
			struct ft_sniff *s, struct mdb_error *e)
{
	int ret = mdb_map_file(path, m, e);

	if (ret < 0)
		return ret;
	if (m->len)
		ft_sniff(m->data, m->len < SNIFF_BYTES ? m->len : SNIFF_BYTES,
			 s);
	if (!m->len || !s->is_trace) {
		mdb_unmap(m);
		return 1;
	}
	return 0;
}

/* cpuN or cpuN.out: a relay per-CPU file, so the directory is not ours. */
static int is_cpu_file(const char *n)
{
	if (strncmp(n, "cpu", 3) || n[3] < '0' || n[3] > '9')
		return 0;
	n += 3;
	while (*n >= '0' && *n <= '9')
		n++;
	return !*n || !strcmp(n, ".out");
}

static int has_suffix(const char *n, const char *suf)
{
	size_t a = strlen(n), b = strlen(suf);

	return a > b && !strcmp(n + a - b, suf);
}

/* A name a trace text file goes by in a capture directory. */
static int is_trace_name(const char *n)
{
	if (!strncmp(n, "kallsyms", 8) || !strncmp(n, "System.map", 10))
		return 0;
	return !strcmp(n, "trace") || !strcmp(n, "trace_pipe") ||
	       has_suffix(n, ".txt") || has_suffix(n, ".trace");
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Find the one trace text file of @dir.  Returns 0 with c->path, c->map
 * and c->sniff set, 1 when there is none (or relay per-CPU files say the
 * directory is a relay capture), <0 on error (several trace files).
 */
static int ft_scan_dir(const char *dir, struct ft_capture *c,
		       struct mdb_error *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	if (!d)
		return mdb_error_set(e, MDB_E_IO, dir, -1, -1, "%s",
				     strerror(errno));
	while ((de = readdir(d))) {
		if (is_cpu_file(de->d_name)) {
			ret = 1;
			goto out;
		}
		if (!is_trace_name(de->d_name))
			continue;
		if (n == cap) {
			char **nn;

			cap = cap ? cap * 2 : 8;
			nn = realloc(names, cap * sizeof(*nn));
			if (!nn) {
				ret = mdb_error_set(e, MDB_E_NOMEM, dir, -1, -1,
						    NULL);
				goto out;
			}
			names = nn;
		}
		names[n] = mdb_path_join(dir, de->d_name);
		if (!names[n]) {
			ret = mdb_error_set(e, MDB_E_NOMEM, dir, -1, -1, NULL);
			goto out;
		}
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	/* keep the first file that is trace text; a second is an error */
	for (size_t i = 0; i < n; i++) {
		struct mdb_map m;
		struct ft_sniff s;
		struct stat st;

		if (stat(names[i], &st) < 0 || !S_ISREG(st.st_mode) ||
		    ft_map_sniff(names[i], &m, &s, e) != 0)
			continue;
		if (!c->path) {
			c->path = names[i];
			names[i] = NULL;
			c->map = m;
			c->sniff = s;
			continue;
		}
		mdb_unmap(&m);
		ret = mdb_error_set(e, MDB_E_FORMAT, dir, -1, -1,
				    "files='%s','%s'",
				    strrchr(c->path, '/') + 1,
				    strrchr(names[i], '/') + 1);
		mdb_error_msg(e, "several trace text files in one capture");
		mdb_error_hint(e, "give the file to ingest as the PATH");
		goto out;
	}
	if (!c->path)
		ret = 1;
out:
	closedir(d);
	if (ret != 0) {
		mdb_unmap(&c->map);
		free(c->path);
		c->path = NULL;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

static int ft_input_decode(struct mdb_input *in, const struct mdb_sink *sink,
			   struct mdb_decode_stats *st, struct mdb_error *e)
{
	struct ft_capture *c = in->priv;
	int ret;

	c->fo.done = mdb_map_done_cb;
	c->fo.done_ctx = &c->map;
	c->fo.done_step = RELEASE_STEP;
	ret = ft_decode(c->map.data, c->map.len, &c->fo, sink, st, e);
	if (ret < 0)
		return ret;
	if (!st->events) {
		mdb_error_set(e, MDB_E_EMPTY, c->path, -1, -1,
			      "lines=%" PRIu64 " other=%" PRIu64
			      " malformed=%" PRIu64, st->records, st->unknown,
			      st->malformed);
		mdb_error_msg(e, "no kmem events");
		mdb_error_hint(e, "enable the kmem:kmalloc, kmem:kfree, "
				  "kmem:kmem_cache_alloc, kmem:kmem_cache_free "
				  "(and kmem:mm_page_*) events before tracing");
		return -MDB_E_EMPTY;
	}
	return 0;
}

static void ft_input_close(struct mdb_input *in)
{
	ft_capture_free(in->priv);
	free(in);
}

static const struct mdb_input_ops ft_ops = {
	.decode = ft_input_decode,
	.close = ft_input_close,
};

int ft_input_open(const char *path, const struct mdb_ingest_opts *o,
		  struct mdb_input **out, struct mdb_error *e)
{
	struct mdb_input *in = NULL;
	struct ft_capture *c = NULL;
	struct stat st;
	int ret, isdir;

	*out = NULL;
	if (stat(path, &st) < 0)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	isdir = S_ISDIR(st.st_mode);
	if (!isdir && !S_ISREG(st.st_mode))
		return 1;
	in = calloc(1, sizeof(*in));
	c = calloc(1, sizeof(*c));
	if (!in || !c) {
		ret = mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
		goto fail;
	}
	if (isdir) {
		ret = ft_scan_dir(path, c, e);
	} else {
		c->path = strdup(path);
		ret = c->path ? ft_map_sniff(path, &c->map, &c->sniff, e) :
			mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	}
	if (ret != 0)
		goto fail;

	/* the boot's kallsyms: given, or the capture directory's */
	if (o->kallsyms) {
		c->ksyms_path = strdup(o->kallsyms);
	} else if (isdir) {
		c->ksyms_path = mdb_path_join(path, "kallsyms");
		if (c->ksyms_path && stat(c->ksyms_path, &st) < 0) {
			free(c->ksyms_path);
			c->ksyms_path = NULL;
		}
	}
	if (c->ksyms_path) {
		ret = kallsyms_load(&c->ksyms, c->ksyms_path, e);
		if (ret < 0)
			goto fail;
		c->have_ksyms = 1;
	}

	in->ops = &ft_ops;
	in->priv = c;
	in->meta.format = FT_FORMAT;
	in->meta.abi_version = -1;
	in->meta.overruns = -1;
	in->meta.word_size = c->sniff.ptr_digits / 2;
	in->meta.ncpus = c->sniff.ncpus;
	in->meta.hashed_ptrs = c->sniff.hashed;
	in->meta.data_bytes = c->map.len;
	in->meta.unknown_what = "lines of other events and stack traces";
	if (isdir) {
		mdb_read_release(path, &in->meta);
		/* kallsyms, modules, sections: kept for memdb symbolize */
		ret = mdb_attach_scan(&in->meta, path, e);
		if (ret < 0)
			goto fail;
	}
	if (c->sniff.hashed)
		snprintf(in->meta.notes, sizeof(in->meta.notes),
			 "pointers are hashed (hash-ptr): they pair, but are "
			 "not addresses");
	ret = mdb_hash_map(FT_FORMAT, &c->map, RELEASE_STEP, &in->meta, e);
	if (ret < 0)
		goto fail;

	c->fo.name = c->path;
	c->fo.ksyms = c->have_ksyms ? &c->ksyms : NULL;
	c->fo.page_size = o->page_size;
	c->fo.strict = o->strict;
	c->fo.hashed = c->sniff.hashed;
	c->fo.ptr_digits = c->sniff.ptr_digits;
	c->fo.warn = o->warn;
	c->fo.warn_ctx = o->warn_ctx;
	*out = in;
	return 0;
fail:
	ft_capture_free(c);
	free(in);
	return ret;
}
