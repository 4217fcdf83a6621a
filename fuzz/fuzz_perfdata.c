// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: perf.data (file or pipe mode, either byte order),
 * from bytes to figures.  The whole input is the file: the header and
 * its feature sections are described, then the decoder hands the kmem
 * samples to the pairing and the derived figures.  The tracing data's
 * event formats reach libtraceevent only after memdb's own checks.
 */
#include <stdint.h>
#include <string.h>

#include "../ingest/trace/perfdata.h"
#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdb_decode_opts o;
	struct mdb_decode_stats st;
	struct perf_info info;
	struct fuzz_events c;
	struct mdb_error e;

	if (perf_describe(data, size, "fuzz", &info, &e) < 0)
		return 0;
	mdb_decode_opts_init(&o, "fuzz");
	if (fuzz_events_init(&c))
		return 0;
	fuzz_events_done(&c, perf_decode(data, size, &o, &c.sink, &st, &e) ==
				     0);
	return 0;
}
