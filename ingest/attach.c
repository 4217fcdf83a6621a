// SPDX-License-Identifier: MIT
/*
 * Capture files kept with a source: the snapshots memdb symbolize needs
 * to resolve a boot's call sites later (its kallsyms, its /proc/modules,
 * its module sections), and the kernel release a capture directory
 * names.  Driven by file names alone, so every capture directory format
 * (kmemtrace relay, ftrace text ...) keeps them alike.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/file.h"
#include "ingest.h"

static const char *const attach_names[] = { "kallsyms", "modules",
					    "sections" };

/*
 * Does @path resolve to a file inside @dir (also resolved)?  1 yes (or
 * the path is gone meanwhile: as absent), 0 no, with where it leads in
 * *@target (malloc'ed), -1 out of memory.
 */
static int inside(const char *dir, const char *path, char **target)
{
	char *rd = realpath(dir, NULL), *rp = realpath(path, NULL);
	size_t n = rd ? strlen(rd) : 0;
	int in = 0;

	*target = NULL;
	if (!rd || !rp) {
		in = errno == ENOMEM ? -1 : 1; /* gone meanwhile: as absent */
	} else if (!strncmp(rp, rd, n) && (rp[n] == '/' || n == 1)) {
		in = 1;
	} else {
		*target = rp;
		rp = NULL;
	}
	free(rd);
	free(rp);
	return in;
}

int mdb_capture_file(const char *dir, const char *name, char **path,
		     struct mdb_error *e)
{
	char *p = mdb_path_join(dir, name), *target = NULL;
	struct stat st;
	int in;

	*path = NULL;
	if (!p)
		return mdb_error_set(e, MDB_E_NOMEM, dir, -1, -1, NULL);
	if (lstat(p, &st) == 0 && !S_ISLNK(st.st_mode)) {
		*path = p;
		return 0;
	}
	if (stat(p, &st) < 0) {
		free(p); /* not there, or a dangling link */
		return 1;
	}
	in = inside(dir, p, &target);
	if (in > 0) {
		*path = p;
		return 0;
	}
	if (in < 0) {
		free(p);
		return mdb_error_set(e, MDB_E_NOMEM, dir, -1, -1, NULL);
	}
	mdb_error_set(e, MDB_E_INVAL, p, -1, -1, "target='%s'", target);
	mdb_error_msg(e, "a symbolic link out of the capture directory");
	mdb_error_hint(e, "memdb follows links in a capture directory only "
			  "to files inside it: copy the file in, or name "
			  "it (ingest --kallsyms, symbolize --proc-modules)");
	free(target);
	free(p);
	return -MDB_E_INVAL;
}

int mdb_attach_scan(struct mdb_source_meta *m, const char *dir,
		    struct mdb_error *e)
{
	m->nattach = 0;
	for (size_t i = 0; i < sizeof(attach_names) / sizeof(attach_names[0]);
	     i++) {
		struct mdb_attach *a = &m->attach[m->nattach];
		struct stat st;
		char *path;
		int ret, n;

		ret = mdb_capture_file(dir, attach_names[i], &path, e);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		n = snprintf(a->path, sizeof(a->path), "%s", path);
		free(path);
		if (n < 0 || (size_t)n >= sizeof(a->path))
			return mdb_error_set(e, MDB_E_LIMIT, dir, -1, -1,
					     "max=%zu", sizeof(a->path));
		if (stat(a->path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		a->name = attach_names[i];
		m->nattach++;
	}
	return 0;
}

int mdb_read_release(const char *dir, struct mdb_source_meta *m,
		     struct mdb_error *e)
{
	static const char *const names[] = { "kernel-release",
					     "kernel_release", "osrelease" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path, *buf = NULL;
		struct mdb_error ign;
		size_t n;
		int ret = mdb_capture_file(dir, names[i], &path, e);

		if (ret < 0)
			return ret;
		if (ret == 0 && mdb_read_small(path, 120, &buf, &n, &ign) == 0) {
			while (n && isspace((unsigned char)buf[n - 1]))
				buf[--n] = '\0';
			snprintf(m->kernel_release, sizeof(m->kernel_release),
				 "%s", buf);
			free(buf);
			free(path);
			return 0;
		}
		free(path);
	}
	return 0;
}
