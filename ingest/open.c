// SPDX-License-Identifier: MIT
/*
 * Opening a path as one source (mdb_input_open()): a directory goes to
 * the capture-directory opener; a regular file is mapped, or read into a
 * spool when compressed or when it says it is empty (/proc's files);
 * standard input is always spooled.  The bytes then go to the format
 * --format names or the one detection finds, read by the one-file opener
 * or the format's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/file.h"
#include "capture.h"
#include "detect.h"
#include "formats.h"
#include "input.h"
#include "onefile.h"
#include "spool.h"

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

/* The row of the format --format names: 0 and *@f, or <0. */
static int forced_format(const char *name, const struct mdb_format **f,
			 struct mdb_error *e)
{
	*f = mdb_format_find(name);
	if (*f)
		return 0;
	mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "format='%s'", name);
	mdb_error_msg(e, "unknown input format");
	return -MDB_E_INVAL;
}

/* The format @o->format names, without probing. */
static int open_forced(const char *path, const struct mdb_ingest_opts *o,
		       const struct stat *st, struct mdb_input **in,
		       struct mdb_error *e)
{
	const struct mdb_format *f;
	struct mdb_map map = { 0 };
	int ret = forced_format(o->format, &f, e), fd = -1;

	if (ret < 0)
		return ret;
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

/* The bytes of @map, file @path's, as the format detection finds. */
static int detect_map(const char *path, struct mdb_map *map, int fd,
		      const struct mdb_ingest_opts *o, struct mdb_input **in,
		      struct mdb_error *e)
{
	const struct mdb_format *f;
	int ret = mdb_format_detect(path, map, &f, e);

	if (ret < 0)
		return ret;
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

	if (o->format && (ret = forced_format(o->format, &f, e)) < 0)
		return ret;
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

