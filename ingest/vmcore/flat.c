// SPDX-License-Identifier: MIT
/*
 * makedumpfile's flattened format (makedumpfile -F, and what QEMU's
 * dump-guest-memory kdump-* formats write): a 4096-byte header starting
 * "makedumpfile\0" followed by the big-endian type and version words,
 * then records of a big-endian (int64 offset, int64 size) pair and @size
 * bytes to be written at @offset of the real file; a pair of -1 ends it.
 * libkdumpfile 0.5.1 reads only the real file, so memdb rebuilds it into
 * an unlinked temporary file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/bytes.h"
#include "vmcore.h"

/*
 * Walk the records of a flattened dump in @buf: @fn(ctx, offset, data,
 * size) for each (offset in the reassembled file).  Returns 0, or
 * -MDB_E_CORRUPT with @e naming @name and the byte offset of a bad record
 * (negative offset or size, data beyond the end, no end marker).
 */
static int vm_flat_walk(const void *buf, size_t len, const char *name,
			int (*fn)(void *ctx, uint64_t off, const void *data,
				  size_t size),
			void *ctx, struct mdb_error *e);

#define FLAT_TYPE 1
#define FLAT_VERSION 1
#define FLAT_REC 16

int mdb_vm_flat_probe(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	return len >= 32 && !memcmp(p, VM_FLAT_SIG, sizeof(VM_FLAT_SIG)) &&
	       get_be64(p + 16) == FLAT_TYPE;
}

static int flat_bad(struct mdb_error *e, const char *name, size_t off,
		    const char *what, int64_t v)
{
	mdb_error_set(e, MDB_E_CORRUPT, name, (int64_t)off, -1, "value=%lld",
		      (long long)v);
	mdb_error_msg(e, "flattened dump: %s", what);
	return -MDB_E_CORRUPT;
}

static int vm_flat_walk(const void *buf, size_t len, const char *name,
			int (*fn)(void *ctx, uint64_t off, const void *data,
				  size_t size),
			void *ctx, struct mdb_error *e)
{
	const uint8_t *p = buf;
	size_t pos = VM_FLAT_HDR;
	int ret;

	if (!mdb_vm_flat_probe(buf, len))
		return flat_bad(e, name, 16, "not a flattened dump header",
				len >= 24 ? (int64_t)get_be64(p + 16) : -1);
	if (get_be64(p + 24) != FLAT_VERSION)
		return flat_bad(e, name, 24, "unknown version",
				(int64_t)get_be64(p + 24));
	for (;;) {
		int64_t off, size;

		if (len < FLAT_REC || pos > len - FLAT_REC)
			return flat_bad(e, name, pos,
					"truncated: no end record",
					(int64_t)(len - (pos < len ? pos :
								 len)));
		off = (int64_t)get_be64(p + pos);
		size = (int64_t)get_be64(p + pos + 8);
		if (off == -1 && size == -1)
			return 0;
		if (off < 0)
			return flat_bad(e, name, pos, "negative offset", off);
		if (size < 0 || (uint64_t)size > len - pos - FLAT_REC)
			return flat_bad(e, name, pos + 8,
					"record size beyond the end", size);
		if ((uint64_t)off > INT64_MAX - (uint64_t)size)
			return flat_bad(e, name, pos, "offset overflows", off);
		ret = fn(ctx, (uint64_t)off, p + pos + FLAT_REC, (size_t)size);
		if (ret < 0)
			return ret;
		pos += FLAT_REC + (size_t)size;
	}
}

struct flat_out {
	int fd;
	const char *name;
	struct mdb_error *e;
};

static int flat_write(void *ctx, uint64_t off, const void *data, size_t size)
{
	struct flat_out *o = ctx;
	const char *p = data;

	while (size) {
		ssize_t n = pwrite(o->fd, p, size, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return mdb_error_set(o->e, MDB_E_IO, o->name, -1, -1,
					     "temporary file: %s",
					     strerror(n ? errno : ENOSPC));
		p += n;
		size -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int mdb_vm_flat_reassemble(const void *buf, size_t len, const char *name,
			   int *fd, struct mdb_error *e)
{
	const char *dir = getenv("TMPDIR");
	struct flat_out o = { -1, name, e };
	char *tmpl;
	int ret;

	*fd = -1;
	if (!dir || !*dir)
		dir = "/tmp";
	if (asprintf(&tmpl, "%s/memdb-vmcore-XXXXXX", dir) < 0)
		return mdb_error_set(e, MDB_E_NOMEM, name, -1, -1, NULL);
	o.fd = mkostemp(tmpl, O_CLOEXEC);
	if (o.fd < 0) {
		ret = mdb_error_set(e, MDB_E_IO, name, -1, -1,
				    "temporary file in %s: %s", dir,
				    strerror(errno));
		free(tmpl);
		return ret;
	}
	unlink(tmpl);
	free(tmpl);
	ret = vm_flat_walk(buf, len, name, flat_write, &o, e);
	if (ret < 0) {
		close(o.fd);
		return ret;
	}
	*fd = o.fd;
	return 0;
}
