// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: trace-cmd's trace.dat, from the file's bytes to
 * events, through memdb's structure walk and then libtracecmd.  The input
 * is the whole (uncompressed) file; it reaches the decoder as the
 * one-file opener hands it over: the bytes, and a seekable descriptor of
 * the same bytes (a memfd here, a spool or the file in memdb).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../ingest/ingest.h"
#include "../ingest/trace/tracedat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_event(void *ctx, const struct mdb_event *ev)
{
	(void)ev;
	++*(uint64_t *)ctx;
	return 0;
}

/* A descriptor holding @data, at offset 0; -1 on failure. */
static int memfd_of(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-tracedat", MFD_CLOEXEC);
	size_t done = 0;

	while (fd >= 0 && done < size) {
		ssize_t w = write(fd, data + done, size - done);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdb_ingest_opts o;
	struct mdb_decode_stats st;
	struct mdb_input *in;
	struct mdb_error e;
	uint64_t n = 0;
	struct mdb_sink sink = { &n, count_event, NULL };
	struct mdb_map map = { 0 };
	uint8_t *copy;
	int fd;

	if (!size || !(copy = malloc(size)))
		return 0;
	memcpy(copy, data, size);
	map.data = copy;
	map.len = size;
	fd = memfd_of(data, size);
	if (fd < 0) {
		free(copy);
		return 0;
	}
	mdb_ingest_opts_init(&o);
	if (mdb_tdat_input_open("fuzz.dat", &map, fd, &o, &in, &e) == 0) {
		(void)mdb_input_decode(in, &sink, &st, &e);
		mdb_input_close(in);
	}
	close(fd);
	return 0;
}
