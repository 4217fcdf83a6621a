// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the ftrace-era kmemtrace binary.  The first byte
 * picks detection or a forced layout (byte order, word size, prefix);
 * the records go through the pairing and the derived figures.
 */
#include <stdint.h>
#include <string.h>

#include "../ingest/trace/kt_ftrace.h"
#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdb_decode_opts o;
	struct ktf_layout l;
	struct fuzz_events c;
	struct mdb_decode_stats st;
	struct mdb_error e;
	int mode;

	if (!size)
		return 0;
	mode = data[0];
	data++;
	size--;
	mdb_decode_opts_init(&o, "kmemtrace.bin");
	if (!(mode & 1)) {
		if (mdb_ktf_detect(data, size, MDB_ORDER_UNKNOWN, &l))
			return 0;
	} else {
		l.order = mode & 2 ? MDB_ORDER_BIG : MDB_ORDER_LITTLE;
		l.word = mode & 4 ? 4 : 8;
		l.prefix = !!(mode & 8);
	}
	o.priv = &l;
	if (fuzz_events_init(&c))
		return 0;
	/* kmemtrace era: the pairing judges duplicate frees strictly */
	mdb_pair_set_all_traced(&c.an.pair, 1);
	fuzz_events_done(&c, mdb_ktf_decode(data, size, &o, &c.sink, &st, &e) == 0);
	return 0;
}
