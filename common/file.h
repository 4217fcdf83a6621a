/* SPDX-License-Identifier: MIT */
/*
 * Thin wrappers that turn a path into bytes.  Decoders take (buf, len);
 * only these helpers touch the file system.
 */
#ifndef MDB_FILE_H
#define MDB_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "error.h"

struct mdb_map {
	const uint8_t *data; /* NULL for an empty file */
	size_t len;
	int mapped;          /* 1 when data comes from mmap(2) */
};

/*
 * Map @path read-only (empty files give data NULL, len 0).  Only a
 * regular file is mapped: a FIFO, device or socket is refused without
 * being opened.
 */
int mdb_map_file(const char *path, struct mdb_map *m, struct mdb_error *e);
void mdb_unmap(struct mdb_map *m);

/*
 * A file mapped by mdb_map_file() that shrinks while it is read does not
 * kill the process (SIGBUS): the pages past its new end read as zeros and
 * the fault is recorded.  Call after reading: returns @ret when no mapped
 * file shrank since the last call, else -MDB_E_IO with @e naming the file
 * and the offset (page) where reading found its bytes gone.  A caller
 * that gets it must not keep what it read.
 */
int mdb_map_check(int ret, struct mdb_error *e);

/*
 * A library that maps an input itself (libtracecmd maps trace.dat's CPU
 * data) makes mappings the watch does not know.  While the calling thread
 * is between mdb_map_guard() and mdb_map_unguard(), a SIGBUS it takes for
 * a mapped page gone from its file (BUS_ADRERR) does not kill: the page
 * reads as zeros.  mdb_map_guard_hit() and mdb_map_unguard() return 1
 * when that happened (the file shrank: what was read must not be kept),
 * else 0.
 */
void mdb_map_guard(void);
int mdb_map_guard_hit(void);
int mdb_map_unguard(void);

/* The refusal of @path that shrank while read, cut at @off (-1: not
 * known): -MDB_E_IO, the words mdb_map_check() uses. */
int mdb_file_shrank(struct mdb_error *e, const char *path, int64_t off);

/* What tells a file is as it was: device, inode, size, modification. */
struct mdb_stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtim;
};

/* The stamp of the file open as @fd; -MDB_E_IO with @e naming @path. */
int mdb_stamp_fd(int fd, const char *path, struct mdb_stamp *s,
		 struct mdb_error *e);

/*
 * 0 when the file open as @fd still has stamp @was; else -MDB_E_IO with
 * @e saying that @path shrank (as mdb_map_check() says it) or changed
 * while memdb read it.  For inputs read through read(2), where nothing
 * faults: call after reading, before keeping anything.
 */
int mdb_stamp_check(int fd, const struct mdb_stamp *was, const char *path,
		    struct mdb_error *e);

/*
 * open(2) @path for reading when it is a regular file (checked before
 * opening and on the descriptor, opened O_NONBLOCK: a FIFO never blocks),
 * with *@st filled; returns the descriptor or a negative MDB_E_* with @e
 * saying what the path is instead.
 */
int mdb_open_regular(const char *path, struct stat *st, struct mdb_error *e);

/*
 * The error for a call on @path that failed with errno @err: a path that
 * is not there (ENOENT, ENOTDIR) is "no such file", any other failure an
 * I/O error in the system's words.  Returns the negative MDB_E_* code.
 */
int mdb_path_error(const char *path, int err, struct mdb_error *e);

/* The error for @path (of type @st) that is not a regular file. */
int mdb_file_kind_error(const char *path, const struct stat *st,
			struct mdb_error *e);

/*
 * Tell the kernel bytes [0, @upto) of a mapping will not be read again, so
 * they stop counting in the process's resident set (they stay in the page
 * cache).  Keeps memory bounded by what is being read, not by file sizes.
 */
void mdb_map_done(struct mdb_map *m, size_t upto);

/*
 * Read a small text file (at most @max bytes) into a NUL-terminated
 * malloc'ed buffer; longer files are an error naming @path.
 */
int mdb_read_small(const char *path, size_t max, char **out, size_t *len,
		   struct mdb_error *e);

/* Join @dir and @name with a '/' into a malloc'ed string (NULL on ENOMEM). */
char *mdb_path_join(const char *dir, const char *name);

#endif
