// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: a packed-columns blob (db/packcol.h), as alloc and
 * the reports read one from alloc_blk.  What unpacks must pack again and
 * unpack to the same values.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../db/packcol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mdb_pc_block a, b;
	static uint8_t out[MDB_PC_MAX_BYTES];
	const char *why;
	size_t off, n;

	if (mdb_pc_unpack(data, size, &a, &why, &off) < 0) {
		if (off > size)
			abort();
		return 0;
	}
	n = mdb_pc_pack(&a, out);
	if (!n)
		return 0;
	if (mdb_pc_unpack(out, n, &b, &why, &off) < 0 || b.rows != a.rows)
		abort();
	for (int c = 0; c < MDB_PC_NCOLS; c++)
		if (memcmp(a.v[c], b.v[c], a.rows * sizeof(a.v[c][0])) ||
		    memcmp(a.null[c], b.null[c], a.rows))
			abort();
	return 0;
}
