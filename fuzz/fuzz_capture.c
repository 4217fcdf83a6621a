// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the capture-directory opener, from a directory of
 * files to figures.  The input is a small archive the harness unpacks into
 * a fresh temporary directory:
 *
 *     === NAME SIZE\n   then SIZE bytes (fewer when the input ends)
 *     === fifo:NAME 0\n a FIFO named NAME (no writer: must never block)
 *
 * repeated; NAME is 1-40 of [A-Za-z0-9._-] and not "." or "..", or up to
 * four of them joined by '/' (subdirectories, as a tracefs copy's
 * per_cpu/cpuN/trace_pipe_raw); others are skipped, and so is a name
 * given again.  The directory then goes through mdb_input_open() (format
 * detection, cpuN / cpuN.out scan, abi_version, total_overruns,
 * kernel-release, kallsyms, attachments, tracefs copies) and the trace or snapshot decoder
 * into the pairing and derived figures, as ingest does without SQLite.
 * tools/fuzz.sh packs capture directories of testdata/ as seeds (seeds.txt
 * prefix "dir").
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../ingest/ingest.h"
#include "fuzz_sink.h"

#define MAX_NAME 40
#define MAX_DEPTH 4
#define MAX_FILES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int part_ok(const char *s, size_t n)
{
	if (!n || n > MAX_NAME || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.'))
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return 0;
	}
	return 1;
}

/* Components of at most MAX_DEPTH part_ok() parts joined by '/'. */
static int name_ok(const char *s, size_t n)
{
	int parts = 0;

	for (;;) {
		const char *sl = memchr(s, '/', n);
		size_t k = sl ? (size_t)(sl - s) : n;

		if (!part_ok(s, k) || ++parts > MAX_DEPTH)
			return 0;
		if (!sl)
			return 1;
		s += k + 1;
		n -= k + 1;
	}
}

/* The directories @path (under @dir, whose length is @dlen) lies in. */
static void make_parents(char *path, size_t dlen)
{
	for (char *p = path + dlen + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
}

/* Write one entry into @dir; 0, or -1 when the entry is skipped. */
static int put_entry(const char *dir, const char *name, size_t nlen,
		     const uint8_t *body, size_t blen)
{
	int fifo = nlen > 5 && !memcmp(name, "fifo:", 5);
	char *path;
	int ret = -1, fd;

	if (fifo) {
		name += 5;
		nlen -= 5;
	}
	if (!name_ok(name, nlen) ||
	    asprintf(&path, "%s/%.*s", dir, (int)nlen, name) < 0)
		return -1;
	make_parents(path, strlen(dir));
	/* a name given twice keeps its first entry: opening a FIFO made
	 * before for writing would block the harness itself */
	if (fifo) {
		ret = mkfifo(path, 0600);
	} else if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
			      0600)) >= 0) {
		ret = write(fd, body, blen) == (ssize_t)blen ? 0 : -1;
		if (close(fd))
			ret = -1;
	}
	free(path);
	return ret;
}

/* Unpack @data into @dir (format above). */
static void unpack(const char *dir, const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	int files = 0;

	while (p < end && files < MAX_FILES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp;
		unsigned long blen;
		char *stop;

		if (!nl)
			break;
		if (nl - p < 6 || memcmp(p, "=== ", 4)) {
			p = nl + 1;
			continue;
		}
		sp = memchr(p + 4, ' ', (size_t)(nl - p - 4));
		if (!sp || nl - sp > 12) {
			p = nl + 1;
			continue;
		}
		{
			char num[16];

			memcpy(num, sp + 1, (size_t)(nl - sp - 1));
			num[nl - sp - 1] = '\0';
			blen = strtoul(num, &stop, 10);
			if (stop == num || *stop) {
				p = nl + 1;
				continue;
			}
		}
		if (blen > (size_t)(end - nl - 1))
			blen = (size_t)(end - nl - 1);
		if (put_entry(dir, p + 4, (size_t)(sp - p - 4),
			      (const uint8_t *)nl + 1, blen) == 0)
			files++;
		p = nl + 1 + blen;
	}
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		struct stat st;
		char *path;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			continue;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			remove_dir(path);
		else
			unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void decode(struct mdb_input *in)
{
	struct mdb_decode_stats st;
	struct mdb_snap_info info;
	struct fuzz_events c;
	struct mdb_error e;

	if (mdb_input_meta(in)->snapshot) {
		mdb_input_decode_snap(in, &fuzz_snap_sink, &info, &e);
		return;
	}
	if (fuzz_events_init(&c))
		return;
	fuzz_events_done(&c, mdb_input_decode(in, &c.sink, &st, &e) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *base = getenv("TMPDIR");
	struct mdb_ingest_opts o;
	struct mdb_input *in;
	struct mdb_error e;
	char *dir;

	if (asprintf(&dir, "%s/memdb-fuzz-XXXXXX", base && *base ? base :
		     "/tmp") < 0)
		return 0;
	if (!mkdtemp(dir)) {
		free(dir);
		return 0;
	}
	unpack(dir, data, size);
	mdb_ingest_opts_init(&o);
	if (mdb_input_open(dir, &o, &in, &e) == 0) {
		decode(in);
		mdb_input_close(in);
	}
	remove_dir(dir);
	free(dir);
	return 0;
}
