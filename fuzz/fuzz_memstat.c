// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the FreeBSD memstat streams (vm.zone_stats and
 * kern.malloc_stats): the header reader, both probes and both decoders.
 */
#include <stdint.h>

#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdb_snap_info info;
	struct mdb_error e;
	enum mdb_order o;
	uint32_t version, maxcpus, count;

	mdb_memstat_header(data, size, &o, &version, &maxcpus, &count);
	mdb_memstat_uma_probe(data, size);
	mdb_memstat_malloc_probe(data, size);
	mdb_memstat_uma_decode(data, size, "zone_stats", &fuzz_snap_sink,
			       &info, &e);
	mdb_memstat_malloc_decode(data, size, "malloc_stats",
				  &fuzz_snap_sink, &info, &e);
	return 0;
}
