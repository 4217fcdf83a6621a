// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: kmemtrace relay ABI v1, from bytes to figures.
 * The first input byte picks how many per-CPU streams (1-4) the rest is
 * cut into and whether the byte order is detected or forced; the merged
 * events then go through the pairing and the derived figures.
 */
#include <stdint.h>
#include <string.h>

#include "../ingest/trace/kmemtrace.h"
#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_stream s[4];
	struct fuzz_events c;
	struct mdb_decode_stats st;
	struct mdb_error e;
	enum mdb_order o = MDB_ORDER_LITTLE;
	size_t n, part;
	int mode;

	if (!size)
		return 0;
	n = (size_t)(data[0] & 3) + 1;
	mode = data[0] >> 2 & 3;
	data++;
	size--;
	part = size / n;
	for (size_t i = 0; i < n; i++)
		mdb_kt_stream_init(&s[i], "cpu", (int)i, data + i * part,
				   i + 1 == n ? size - i * part : part,
				   MDB_ORDER_UNKNOWN);
	if (mode == 0) {
		if (mdb_kt_detect_order(s, n, &o, &e) < 0)
			return 0;
	} else {
		o = mode == 1 ? MDB_ORDER_LITTLE : MDB_ORDER_BIG;
	}
	for (size_t i = 0; i < n; i++)
		s[i].order = o;
	if (fuzz_events_init(&c))
		return 0;
	/* kmemtrace era: the pairing judges duplicate frees strictly */
	mdb_pair_set_all_traced(&c.an.pair, 1);
	fuzz_events_done(&c, mdb_kt_merge(s, n, &c.sink, &st, &e) == 0);
	return 0;
}
