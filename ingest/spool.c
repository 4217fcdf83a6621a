// SPDX-License-Identifier: MIT
/*
 * Standard input and compressed inputs, see spool.h.
 *
 * Every decoder reads a byte buffer, and some formats must seek (perf.data
 * keeps its event formats after the data).  So a stream is spooled: its
 * bytes, decompressed when they start with the magic of zstd, gzip or xz,
 * are written to an unlinked temporary file that is then mapped like any
 * other input.  Disk use is the decompressed size; memory stays bounded.
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "spool.h"

#define CHUNK (256u << 10)

static const struct {
	enum mdb_compression c;
	const char *name;
	unsigned char magic[6];
	size_t len;
} magics[] = {
	{ MDB_COMP_ZSTD, "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
	{ MDB_COMP_GZIP, "gzip", { 0x1f, 0x8b }, 2 },
	{ MDB_COMP_XZ, "xz", { 0xfd, '7', 'z', 'X', 'Z', 0x00 }, 6 },
};

enum mdb_compression mdb_compression_of(const void *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (len >= magics[i].len &&
		    !memcmp(buf, magics[i].magic, magics[i].len))
			return magics[i].c;
	return MDB_COMP_NONE;
}

/* Where the spooled bytes go, and how many have gone. */
struct spool {
	const char *name; /* the input's, for messages */
	int in;           /* read from */
	int out;          /* the unlinked temporary file */
	uint64_t in_off;  /* compressed bytes read, for messages */
	uint64_t out_len;
	struct mdb_error *e;
};

static int spool_write(struct spool *s, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(s->out, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return mdb_error_set(s->e, MDB_E_IO, s->name, -1, -1,
					     "spooling to a temporary file: %s",
					     w < 0 ? strerror(errno) : "short");
		p += w;
		n -= (size_t)w;
		s->out_len += (uint64_t)w;
	}
	return 0;
}

/* Read up to @cap bytes; 0 at the end. */
static ssize_t spool_read(struct spool *s, void *buf, size_t cap)
{
	for (;;) {
		ssize_t r = read(s->in, buf, cap);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			mdb_error_set(s->e, MDB_E_IO, s->name,
				      (int64_t)s->in_off, -1, "%s",
				      strerror(errno));
		else
			s->in_off += (uint64_t)r;
		return r;
	}
}

static int corrupt(struct spool *s, const char *what, const char *why)
{
	mdb_error_set(s->e, MDB_E_CORRUPT, s->name, (int64_t)s->in_off, -1,
		      "%s", why);
	mdb_error_msg(s->e, "damaged %s-compressed data", what);
	return -MDB_E_CORRUPT;
}

static int copy_plain(struct spool *s, uint8_t *in, size_t have)
{
	ssize_t r = 0;
	int ret = spool_write(s, in, have);

	while (ret == 0 && (r = spool_read(s, in, CHUNK)) > 0)
		ret = spool_write(s, in, (size_t)r);
	return ret < 0 ? ret : r < 0 ? -MDB_E_IO : 0;
}

static int inflate_zstd(struct spool *s, uint8_t *in, size_t have,
			uint8_t *out)
{
	ZSTD_DCtx *z = ZSTD_createDCtx();
	size_t last = 1;
	int ret = 0;

	if (!z)
		return mdb_error_set(s->e, MDB_E_NOMEM, s->name, -1, -1, NULL);
	for (;;) {
		ZSTD_inBuffer ib = { in, have, 0 };

		while (ib.pos < ib.size && ret == 0) {
			ZSTD_outBuffer ob = { out, CHUNK, 0 };

			last = ZSTD_decompressStream(z, &ob, &ib);
			if (ZSTD_isError(last))
				ret = corrupt(s, "zstd", ZSTD_getErrorName(last));
			else
				ret = spool_write(s, out, ob.pos);
		}
		if (ret < 0)
			break;
		{
			ssize_t r = spool_read(s, in, CHUNK);

			if (r < 0) {
				ret = -MDB_E_IO;
				break;
			}
			if (!r)
				break;
			have = (size_t)r;
		}
	}
	/* the end of the input must be the end of a frame */
	if (ret == 0 && last != 0)
		ret = corrupt(s, "zstd", "truncated frame");
	ZSTD_freeDCtx(z);
	return ret;
}

static int inflate_gzip(struct spool *s, uint8_t *in, size_t have,
			uint8_t *out)
{
	z_stream z;
	int ended = 0, ret = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return mdb_error_set(s->e, MDB_E_NOMEM, s->name, -1, -1, NULL);
	z.next_in = in;
	z.avail_in = (uInt)have;
	while (ret == 0) {
		int zr;

		if (!z.avail_in) {
			ssize_t r = spool_read(s, in, CHUNK);

			if (r <= 0) {
				ret = r < 0 ? -MDB_E_IO : 0;
				break;
			}
			z.next_in = in;
			z.avail_in = (uInt)r;
		}
		/* concatenated members, as gzip -dc reads them */
		if (ended) {
			inflateReset(&z);
			ended = 0;
		}
		z.next_out = out;
		z.avail_out = CHUNK;
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			ret = corrupt(s, "gzip", z.msg ? z.msg : "inflate");
		else
			ret = spool_write(s, out, CHUNK - z.avail_out);
		ended = zr == Z_STREAM_END;
	}
	if (ret == 0 && !ended)
		ret = corrupt(s, "gzip", "truncated stream");
	inflateEnd(&z);
	return ret;
}

static int inflate_xz(struct spool *s, uint8_t *in, size_t have,
		      uint8_t *out)
{
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_action act = LZMA_RUN;
	lzma_ret lr = LZMA_OK;
	int ret = 0;

	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return mdb_error_set(s->e, MDB_E_NOMEM, s->name, -1, -1, NULL);
	z.next_in = in;
	z.avail_in = have;
	while (ret == 0 && lr != LZMA_STREAM_END) {
		if (!z.avail_in && act == LZMA_RUN) {
			ssize_t r = spool_read(s, in, CHUNK);

			if (r < 0) {
				ret = -MDB_E_IO;
				break;
			}
			if (!r)
				act = LZMA_FINISH;
			z.next_in = in;
			z.avail_in = (size_t)r;
		}
		z.next_out = out;
		z.avail_out = CHUNK;
		lr = lzma_code(&z, act);
		if (lr != LZMA_OK && lr != LZMA_STREAM_END)
			ret = corrupt(s, "xz", lr == LZMA_BUF_ERROR ?
				      "truncated stream" : "lzma_code failed");
		else
			ret = spool_write(s, out, CHUNK - z.avail_out);
	}
	lzma_end(&z);
	return ret;
}

/* A temporary file, unlinked at once: nothing is left behind. */
static int spool_tmpfile(struct spool *s)
{
	const char *dir = getenv("TMPDIR");
	char *tmpl;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if (asprintf(&tmpl, "%s/memdb-spool-XXXXXX", dir) < 0)
		return mdb_error_set(s->e, MDB_E_NOMEM, s->name, -1, -1, NULL);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	else
		mdb_error_set(s->e, MDB_E_IO, s->name, -1, -1,
			      "temporary file in %s: %s", dir, strerror(errno));
	free(tmpl);
	s->out = fd;
	return fd < 0 ? -MDB_E_IO : 0;
}

static int spool_map(struct spool *s, struct mdb_map *m)
{
	void *p;

	memset(m, 0, sizeof(*m));
	if (!s->out_len)
		return 0;
	if (s->out_len > SIZE_MAX)
		return mdb_error_set(s->e, MDB_E_LIMIT, s->name, -1, -1,
				     "size=%llu",
				     (unsigned long long)s->out_len);
	p = mmap(NULL, (size_t)s->out_len, PROT_READ, MAP_PRIVATE, s->out, 0);
	if (p == MAP_FAILED)
		return mdb_error_set(s->e, MDB_E_IO, s->name, -1, -1,
				     "mmap: %s", strerror(errno));
	madvise(p, (size_t)s->out_len, MADV_SEQUENTIAL);
	m->data = p;
	m->len = (size_t)s->out_len;
	m->mapped = 1;
	return 0;
}

int mdb_spool_fd(int fd, const char *name, struct mdb_map *m,
		 enum mdb_compression *comp, int *keep, struct mdb_error *e)
{
	struct spool s = { .name = name, .in = fd, .out = -1, .e = e };
	uint8_t *in = malloc(CHUNK), *out = malloc(CHUNK);
	ssize_t have = 0, r = 1;
	int ret;

	memset(m, 0, sizeof(*m));
	if (!in || !out) {
		ret = mdb_error_set(e, MDB_E_NOMEM, name, -1, -1, NULL);
		goto out;
	}
	/* enough bytes to see a magic, however the pipe delivers them */
	while (have < 6 && (r = spool_read(&s, in + have,
					   CHUNK - (size_t)have)) > 0)
		have += r;
	if (r < 0) {
		ret = -MDB_E_IO;
		goto out;
	}
	*comp = mdb_compression_of(in, (size_t)have);
	ret = spool_tmpfile(&s);
	if (ret < 0)
		goto out;
	switch (*comp) {
	case MDB_COMP_ZSTD:
		ret = inflate_zstd(&s, in, (size_t)have, out);
		break;
	case MDB_COMP_GZIP:
		ret = inflate_gzip(&s, in, (size_t)have, out);
		break;
	case MDB_COMP_XZ:
		ret = inflate_xz(&s, in, (size_t)have, out);
		break;
	default:
		ret = copy_plain(&s, in, (size_t)have);
	}
	if (ret == 0)
		ret = spool_map(&s, m);
	if (ret == 0 && keep) {
		*keep = s.out;
		s.out = -1;
	}
out:
	if (s.out >= 0)
		close(s.out);
	free(in);
	free(out);
	return ret;
}

int mdb_spool_path(const char *path, struct mdb_map *m,
		   enum mdb_compression *comp, int *keep, struct mdb_error *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), ret;
	struct stat st;

	if (fd < 0)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		mdb_error_set(e, MDB_E_IO, path, -1, -1, NULL);
		mdb_error_msg(e, "not a regular file");
		return -MDB_E_IO;
	}
	ret = mdb_spool_fd(fd, path, m, comp, keep, e);
	close(fd);
	return ret;
}

int mdb_map_decompressed(const char *path, struct mdb_map *m,
			 struct mdb_error *e)
{
	enum mdb_compression comp;
	int ret = mdb_map_file(path, m, e);

	if (ret < 0 || mdb_compression_of(m->data, m->len) == MDB_COMP_NONE)
		return ret;
	mdb_unmap(m);
	return mdb_spool_path(path, m, &comp, NULL, e);
}
