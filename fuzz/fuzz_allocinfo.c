// SPDX-License-Identifier: MIT
/* libFuzzer harness: the allocinfo snapshot reader, its probe and decoder. */
#include <stdint.h>

#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdb_snap_info info;
	struct mdb_error e;

	mdb_allocinfo_probe(data, size);
	mdb_allocinfo_decode(data, size, "allocinfo", &fuzz_snap_sink, &info, &e);
	return 0;
}
