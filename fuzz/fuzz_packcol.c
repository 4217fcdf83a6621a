// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: a packed-columns blob (db/packcol.h), as alloc and
 * the reports read one from alloc_blk.  What unpacks must pack again and
 * unpack to the same values; the columns of a mask made from the blob's
 * bytes, unpacked alone (mdb_pc_unpack_cols), must be those values too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../db/packcol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mdb_pc_block a, b, m;
	static uint8_t out[MDB_PC_MAX_BYTES];
	const char *why;
	size_t off, n;
	uint32_t mask = 0;
	int mret;

	for (size_t i = 0; i < size; i++)
		mask = mask * 31 + data[i];
	mask &= MDB_PC_ALL;
	mret = mdb_pc_unpack_cols(data, size, &m, mask, &why, &off);
	if (mret < 0 && off > size)
		abort();
	if (mdb_pc_unpack(data, size, &a, &why, &off) < 0) {
		if (off > size)
			abort();
		return 0;
	}
	/* a blob read whole is read in part too, to the same values */
	if (mret < 0 || m.rows != a.rows)
		abort();
	for (int c = 0; c < MDB_PC_NCOLS; c++)
		if ((mask >> c & 1) &&
		    (memcmp(a.v[c], m.v[c], a.rows * sizeof(a.v[c][0])) ||
		     memcmp(a.null[c], m.null[c], a.rows)))
			abort();
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
