// SPDX-License-Identifier: MIT
/*
 * Packed columns (db/packcol.h): blocks of random values, with NULLs and
 * the extremes of int64, come back as they went in, whole or some
 * columns only (the scan's mdb_pc_unpack_cols()); every damaged blob
 * (each length short of whole, each header field out of range, a byte
 * more) is refused with the offset of what is wrong, never read past,
 * however few columns are asked for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "../db/packcol.h"

static struct mdb_pc_block in, out;
static uint8_t blob[MDB_PC_MAX_BYTES + 1];

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Block @k of a series: each column a different kind of values. */
static void fill(uint64_t *x, size_t rows, int k)
{
	in.rows = rows;
	for (int c = 0; c < MDB_PC_NCOLS; c++) {
		int kind = (c + k) % 6;
		int64_t base = (int64_t)rnd(x);

		for (size_t r = 0; r < rows; r++) {
			int64_t v;

			switch (kind) {
			case 0:         /* one value */
				v = 42;
				break;
			case 1:         /* a byte's range around a base */
				v = base + (int64_t)(rnd(x) & 0xff);
				break;
			case 2:         /* anything: 8 bytes */
				v = (int64_t)rnd(x);
				break;
			case 3:         /* the extremes, no NULLs */
				v = r & 1 ? INT64_MIN : INT64_MAX;
				break;
			case 4:         /* 16 and 32 bits, negative too */
				v = -(int64_t)(rnd(x) & (r & 1 ? 0xffff :
							   0xffffffff));
				break;
			default:        /* kernel addresses */
				v = (int64_t)(0xffff888000000000ULL +
					      (rnd(x) & 0xfffffff0));
				break;
			}
			/* NULLs in some columns, not with the extremes */
			in.null[c][r] = kind != 3 && c % 3 == 0 &&
					rnd(x) % 4 == 0;
			in.v[c][r] = in.null[c][r] ? 0 : v;
		}
	}
}

static void assert_same(void)
{
	assert_int_equal(out.rows, in.rows);
	for (int c = 0; c < MDB_PC_NCOLS; c++) {
		assert_memory_equal(out.null[c], in.null[c], in.rows);
		assert_memory_equal(out.v[c], in.v[c],
				    in.rows * sizeof(in.v[c][0]));
	}
}

/* Unpacking the columns of @mask only fills those, as a whole unpack
 * does (the others keep what they held). */
static void masked(const uint8_t *p, size_t n, uint32_t mask)
{
	static struct mdb_pc_block part;
	const char *why;
	size_t off;

	memset(part.v, 0x5a, sizeof(part.v));
	assert_int_equal(mdb_pc_unpack_cols(p, n, &part, mask, &why, &off), 0);
	assert_int_equal(part.rows, in.rows);
	for (int c = 0; c < MDB_PC_NCOLS; c++) {
		if (!(mask >> c & 1)) {
			assert_int_equal(part.v[c][0], 0x5a5a5a5a5a5a5a5a);
			continue;
		}
		assert_memory_equal(part.null[c], in.null[c], in.rows);
		assert_memory_equal(part.v[c], in.v[c],
				    in.rows * sizeof(in.v[c][0]));
	}
}

static void test_round_trip(void **state)
{
	uint64_t x = 88172645463325252ULL;
	static const size_t rows[] = { 1, 2, 3, 100, 1023, MDB_PC_ROWS };

	(void)state;
	for (int k = 0; k < 24; k++) {
		size_t n;
		const char *why;
		size_t off;

		fill(&x, rows[k % 6], k);
		n = mdb_pc_pack(&in, blob);
		assert_true(n > MDB_PC_HEAD && n <= MDB_PC_MAX_BYTES);
		assert_int_equal(mdb_pc_unpack(blob, n, &out, &why, &off), 0);
		assert_same();
		masked(blob, n, (uint32_t)rnd(&x) & MDB_PC_ALL);
	}
}

/* Widths as the values need: one value is 0 bytes, a byte's range 1
 * (read in the body pack leaves in the block). */
static void test_widths(void **state)
{
	const char *why;
	size_t n, off;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.rows = 4;
	for (int r = 0; r < 4; r++) {
		in.v[MDB_PC_PTR][r] = 1000 + r;       /* 1 byte */
		in.v[MDB_PC_SEQ][r] = 70000 * r;      /* 4 bytes */
		in.null[MDB_PC_PID][r] = 1;           /* all NULL: 0 bytes */
		in.v[MDB_PC_TS][r] = r == 2 ? 0 : 5;  /* NULL + 1 value: 1 */
		in.null[MDB_PC_TS][r] = r == 2;
	}
	n = mdb_pc_pack(&in, blob);
	assert_int_equal(in.body[9 * MDB_PC_PTR], 1);
	assert_int_equal(in.body[9 * MDB_PC_SEQ], 4);
	assert_int_equal(in.body[9 * MDB_PC_PID], 0x80);
	assert_int_equal(in.body[9 * MDB_PC_TS], 0x81);
	assert_int_equal(in.body[9 * MDB_PC_STATE], 0);
	assert_true(n <= MDB_PC_HEAD + 9 * MDB_PC_NCOLS + 4 * (1 + 4 + 1));
	assert_int_equal(mdb_pc_unpack(blob, n, &out, &why, &off), 0);
	assert_same();
}

/* A column with NULLs and both extremes: its NULLs as a bitmap. */
static void test_full_span(void **state)
{
	const char *why;
	size_t n, off;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.rows = 11;
	for (size_t r = 0; r < in.rows; r++)
		in.v[MDB_PC_END_TS][r] = (int64_t)r * 1000;
	in.v[MDB_PC_END_TS][0] = INT64_MIN;
	in.v[MDB_PC_END_TS][1] = INT64_MAX;
	in.v[MDB_PC_END_TS][2] = 0;
	in.null[MDB_PC_END_TS][2] = 1;
	in.v[MDB_PC_END_TS][9] = 0;
	in.null[MDB_PC_END_TS][9] = 1;
	n = mdb_pc_pack(&in, blob);
	assert_int_equal(in.body[9 * MDB_PC_END_TS], 0x48);
	assert_int_equal(in.body[9 * MDB_PC_NCOLS + 1], 0x02); /* row 9 */
	assert_int_equal(mdb_pc_unpack(blob, n, &out, &why, &off), 0);
	assert_same();
}

static void refused(const uint8_t *p, size_t n, size_t want_off,
		    const char *want)
{
	const char *why = NULL;
	size_t off = 12345;

	assert_int_equal(mdb_pc_unpack(p, n, &out, &why, &off), -1);
	assert_non_null(why);
	if (want) {
		assert_string_equal(why, want);
		assert_int_equal(off, want_off);
	}
	/* unpacking no column checks the blob all the same */
	why = NULL;
	off = 12345;
	assert_int_equal(mdb_pc_unpack_cols(p, n, &out, 0, &why, &off), -1);
	assert_non_null(why);
	if (want) {
		assert_string_equal(why, want);
		assert_int_equal(off, want_off);
	}
}

/* Every length short of whole refused (read from a heap copy of exactly
 * that many bytes: ASan sees a read past it). */
static void refused_cut(const uint8_t *p, size_t n)
{
	for (size_t len = 0; len < n; len++) {
		uint8_t *q = malloc(len ? len : 1);
		const char *why;
		size_t off;

		memcpy(q, p, len);
		assert_int_equal(mdb_pc_unpack(q, len, &out, &why, &off), -1);
		assert_true(off <= len || off == MDB_PC_HEAD);
		free(q);
	}
}

static void test_damaged(void **state)
{
	static uint8_t raw[MDB_PC_MAX_BYTES + 1];
	uint64_t x = 7;
	size_t n, nraw;

	(void)state;
	fill(&x, 300, 1);
	n = mdb_pc_pack(&in, blob);
	assert_int_equal(blob[4], MDB_PC_ZSTD);
	/* the same columns uncompressed: the body pack left in the block */
	memcpy(raw, blob, 4);
	raw[4] = MDB_PC_RAW;
	nraw = ZSTD_decompress(raw + MDB_PC_HEAD, MDB_PC_MAX_BODY,
			       blob + MDB_PC_HEAD, n - MDB_PC_HEAD);
	assert_false(ZSTD_isError(nraw));
	assert_memory_equal(raw + MDB_PC_HEAD, in.body, nraw);
	nraw += MDB_PC_HEAD;

	refused_cut(blob, n);
	refused_cut(raw, nraw);
	raw[nraw] = 0;
	refused(raw, nraw + 1, nraw, "bytes after the last column");
	refused(raw, MDB_PC_HEAD - 1, 0, "shorter than the header");
	raw[0] = 1;
	refused(raw, nraw, 0, "unknown version");
	raw[0] = MDB_PC_VERSION;
	raw[1] = MDB_PC_NCOLS + 1;
	refused(raw, nraw, 1, "wrong number of columns");
	raw[1] = MDB_PC_NCOLS;
	raw[2] = 0;
	raw[3] = 0;
	refused(raw, nraw, 2, "row count out of range");
	raw[2] = (MDB_PC_ROWS + 1) & 0xff;
	raw[3] = (MDB_PC_ROWS + 1) >> 8;
	refused(raw, nraw, 2, "row count out of range");
	raw[2] = 300 & 0xff;
	raw[3] = 300 >> 8;
	raw[4] = 2;
	refused(raw, nraw, 4, "unknown codec");
	raw[4] = MDB_PC_RAW;
	raw[MDB_PC_HEAD + 9 * 5] = 3;
	refused(raw, nraw, MDB_PC_HEAD + 9 * 5, "bad column width");
	/* a damaged frame: its checksum no longer holds */
	blob[n / 2] ^= 0x55;
	blob[n / 2 + 1] ^= 0xaa;
	refused(blob, n, MDB_PC_HEAD, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_full_span),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
