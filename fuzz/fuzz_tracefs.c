// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the tracefs copy, from raw ring-buffer pages to
 * events.  The input is CPU 0's trace_pipe_raw; the page layout and the
 * kmem event formats are those of testdata/real-tracefs (found through
 * $TESTDATA, else ./testdata), copied once into a private directory.  The
 * first input byte picks the byte order (detected, little, big).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ingest/ingest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dir;

static int count_event(void *ctx, const struct mdb_event *ev)
{
	(void)ev;
	++*(uint64_t *)ctx;
	return 0;
}

static void remove_dir(void)
{
	char *cmd;

	if (dir && asprintf(&cmd, "rm -rf '%s'", dir) >= 0) {
		if (system(cmd))
			fprintf(stderr, "fuzz_tracefs: cannot remove %s\n", dir);
		free(cmd);
	}
	free(dir);
}

static int make_dir(void)
{
	const char *td = getenv("TESTDATA");
	char tmpl[] = "/tmp/memdb-fuzz-tracefs-XXXXXX", *cmd;
	int ret;

	if (!mkdtemp(tmpl))
		return -1;
	if (asprintf(&cmd, "cp -r '%s/real-tracefs/header_page' "
			   "'%s/real-tracefs/events' '%s/' && mkdir -p "
			   "'%s/per_cpu/cpu0'",
		     td ? td : "testdata", td ? td : "testdata", tmpl,
		     tmpl) < 0)
		return -1;
	ret = system(cmd);
	free(cmd);
	dir = ret == 0 ? strdup(tmpl) : NULL;
	if (dir)
		atexit(remove_dir);
	return dir ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum mdb_order orders[3] = {
		MDB_ORDER_UNKNOWN, MDB_ORDER_LITTLE, MDB_ORDER_BIG };
	struct mdb_ingest_opts o;
	struct mdb_decode_stats st;
	struct mdb_input *in;
	struct mdb_error e;
	uint64_t n = 0;
	struct mdb_sink sink = { &n, count_event, NULL };
	char *raw;
	FILE *f;

	if (!size || (!dir && make_dir()))
		return 0;
	if (asprintf(&raw, "%s/per_cpu/cpu0/trace_pipe_raw", dir) < 0)
		return 0;
	f = fopen(raw, "wb");
	free(raw);
	if (!f)
		return 0;
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	mdb_ingest_opts_init(&o);
	o.order = orders[data[0] % 3];
	if (mdb_input_open(dir, &o, &in, &e) == 0) {
		(void)mdb_input_decode(in, &sink, &st, &e);
		mdb_input_close(in);
	}
	return 0;
}
