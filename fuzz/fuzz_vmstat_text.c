// SPDX-License-Identifier: MIT
/* libFuzzer harness: FreeBSD vmstat -z and -m text, probes and decoders. */
#include <stdint.h>

#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdb_snap_info info;
	struct mdb_error e;

	mdb_vmstat_z_probe(data, size);
	mdb_vmstat_m_probe(data, size);
	mdb_vmstat_z_decode(data, size, "vmstat-z", &fuzz_snap_sink, &info,
			    &e);
	mdb_vmstat_m_decode(data, size, "vmstat-m", &fuzz_snap_sink, &info,
			    &e);
	return 0;
}
