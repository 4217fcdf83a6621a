// SPDX-License-Identifier: MIT
/*
 * The capture-directory opener: a directory is one capture, and its files
 * say which format it holds.
 *   - a directory a row of the format table says is its capture
 *     (is_capture(): a kmemtrace relay capture's cpu0, cpu1, ..., a
 *     tracefs copy's header_page and per_cpu/): read by that row's open();
 *   - else one trace text file (trace, trace_pipe, *.txt, *.trace) that a
 *     one-file format of the table recognises: read by the one-file
 *     opener, with the directory's kallsyms, kernel-release and the files
 *     kept for symbolize.
 * A row's refuse_dir() may refuse a directory first (perf record
 * --threads).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/file.h"
#include "capture.h"
#include "onefile.h"

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

/* The one text file of a capture directory, and its format. */
struct capture_text {
	char *path;
	struct mdb_map map;
	const struct mdb_format *f;
};

/* The directories' text format (or @only), when it claims @m's bytes. */
static const struct mdb_format *text_format(const struct mdb_map *m,
					    const struct mdb_format *only)
{
	const struct mdb_format *formats, *f = NULL;
	size_t n;

	formats = mdb_format_table(&n);
	for (size_t i = 0; i < n && !f; i++)
		if (formats[i].flags & MDB_FMT_DIR_TEXT)
			f = &formats[i];
	if (only)
		f = only->decode && only->probe ? only : NULL;
	return m->len && f && f->probe(m->data, m->len) ? f : NULL;
}

/*
 * Find the one trace text file of @dir.  Returns 0 with c->path, c->map
 * and c->f set, 1 when there is none, <0 on error (several trace files).
 */
static int scan_dir(const char *dir, const struct mdb_format *only,
		    struct capture_text *c, struct mdb_error *e)
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
		const struct mdb_format *f;
		struct mdb_map m;
		struct stat st;

		if (stat(names[i], &st) < 0 || !S_ISREG(st.st_mode) ||
		    mdb_map_file(names[i], &m, e) < 0)
			continue;
		f = text_format(&m, only);
		if (!f) {
			mdb_unmap(&m);
			continue;
		}
		if (!c->path) {
			c->path = names[i];
			names[i] = NULL;
			c->map = m;
			c->f = f;
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

int mdb_capture_open(const char *dir, const struct mdb_format *only,
		     const struct mdb_ingest_opts *o, struct mdb_input **in,
		     struct mdb_error *e)
{
	struct capture_text c = { 0 };
	const struct mdb_format *formats;
	size_t n;
	int ret;

	*in = NULL;
	formats = mdb_format_table(&n);
	for (size_t i = 0; i < n; i++)
		if (formats[i].refuse_dir &&
		    (ret = formats[i].refuse_dir(dir, e)) < 0)
			return ret;
	if (only && only->open)
		return only->open(dir, o, in, e);
	for (size_t i = 0; i < n; i++)
		if (formats[i].is_capture && formats[i].is_capture(dir))
			return only ? 1 : formats[i].open(dir, o, in, e);
	ret = scan_dir(dir, only, &c, e);
	if (ret)
		return ret;
	ret = mdb_file_open(c.path, c.f, &c.map, dir, o, in, e);
	free(c.path);
	return ret;
}
