// SPDX-License-Identifier: MIT
/* File access wrappers; see file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"

int mdb_map_file(const char *path, struct mdb_map *m, struct mdb_error *e)
{
	struct stat st;
	void *p;
	int fd;

	memset(m, 0, sizeof(*m));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		mdb_error_set(e, MDB_E_IO, path, -1, -1, NULL);
		mdb_error_msg(e, "not a regular file");
		return -MDB_E_IO;
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return mdb_error_set(e, MDB_E_LIMIT, path, -1, -1,
				     "size=%lld", (long long)st.st_size);
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "mmap: %s",
				     strerror(errno));
	madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
	m->data = p;
	m->len = (size_t)st.st_size;
	m->mapped = 1;
	return 0;
}

void mdb_map_done(struct mdb_map *m, size_t upto)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!m->mapped || !m->data)
		return;
	if (upto > m->len)
		upto = m->len;
	upto &= ~(page - 1);
	if (upto)
		madvise((void *)m->data, upto, MADV_DONTNEED);
}

void mdb_unmap(struct mdb_map *m)
{
	if (m->mapped && m->data)
		munmap((void *)m->data, m->len);
	else
		free((void *)m->data);
	memset(m, 0, sizeof(*m));
}

int mdb_read_small(const char *path, size_t max, char **out, size_t *len,
		   struct mdb_error *e)
{
	FILE *f;
	char *buf;
	size_t n;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	}
	n = fread(buf, 1, max + 1, f);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "read error");
	}
	fclose(f);
	if (n > max) {
		free(buf);
		mdb_error_set(e, MDB_E_LIMIT, path, -1, -1, "max=%zu", max);
		mdb_error_msg(e, "file too large for its role");
		return -MDB_E_LIMIT;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

char *mdb_path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *s = malloc(dl + nl + 2);

	if (!s)
		return NULL;
	memcpy(s, dir, dl);
	if (dl && dir[dl - 1] != '/')
		s[dl++] = '/';
	memcpy(s + dl, name, nl + 1);
	return s;
}
