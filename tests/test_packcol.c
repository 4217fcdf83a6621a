// SPDX-License-Identifier: MIT
/*
 * Packed columns (db/packcol.h): blocks of random values, with NULLs and
 * the extremes of int64, come back as they went in; every damaged blob
 * (each length short of whole, each header field out of range, a byte
 * more) is refused with the offset of what is wrong, never read past.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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
		assert_true(n >= MDB_PC_HEAD && n <= MDB_PC_MAX_BYTES);
		assert_int_equal(mdb_pc_unpack(blob, n, &out, &why, &off), 0);
		assert_same();
	}
}

/* Widths as the values need: one value is 0 bytes, a byte's range 1. */
static void test_widths(void **state)
{
	size_t n;

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
	assert_int_equal(blob[4 + 9 * MDB_PC_PTR], 1);
	assert_int_equal(blob[4 + 9 * MDB_PC_SEQ], 4);
	assert_int_equal(blob[4 + 9 * MDB_PC_PID], 0x80);
	assert_int_equal(blob[4 + 9 * MDB_PC_TS], 0x81);
	assert_int_equal(blob[4 + 9 * MDB_PC_STATE], 0);
	assert_int_equal(n, MDB_PC_HEAD + 4 * (1 + 4 + 1));
}

/* A column with NULLs and both extremes cannot be packed: 0. */
static void test_unpackable(void **state)
{
	(void)state;
	memset(&in, 0, sizeof(in));
	in.rows = 3;
	in.v[MDB_PC_END_TS][0] = INT64_MIN;
	in.v[MDB_PC_END_TS][1] = INT64_MAX;
	in.null[MDB_PC_END_TS][2] = 1;
	assert_int_equal(mdb_pc_pack(&in, blob), 0);
}

static void refused(size_t n, size_t want_off, const char *want)
{
	const char *why = NULL;
	size_t off = 12345;

	assert_int_equal(mdb_pc_unpack(blob, n, &out, &why, &off), -1);
	assert_non_null(why);
	if (want) {
		assert_string_equal(why, want);
		assert_int_equal(off, want_off);
	}
}

static void test_damaged(void **state)
{
	uint64_t x = 7;
	size_t n;

	(void)state;
	fill(&x, 300, 1);
	n = mdb_pc_pack(&in, blob);
	/* every length short of whole (read from a heap copy of exactly
	 * that many bytes: ASan sees a read past it) */
	for (size_t len = 0; len < n; len++) {
		uint8_t *p = malloc(len ? len : 1);
		const char *why;
		size_t off;

		memcpy(p, blob, len);
		assert_int_equal(mdb_pc_unpack(p, len, &out, &why, &off), -1);
		assert_true(off <= len);
		free(p);
	}
	refused(n - 1, 0, NULL);
	blob[n] = 0;
	refused(n + 1, n, "bytes after the last column");
	refused(MDB_PC_HEAD - 1, 0, "shorter than the header");
	blob[0] = 2;
	refused(n, 0, "unknown version");
	blob[0] = MDB_PC_VERSION;
	blob[1] = MDB_PC_NCOLS + 1;
	refused(n, 1, "wrong number of columns");
	blob[1] = MDB_PC_NCOLS;
	blob[2] = 0;
	blob[3] = 0;
	refused(n, 2, "row count out of range");
	blob[2] = (MDB_PC_ROWS + 1) & 0xff;
	blob[3] = (MDB_PC_ROWS + 1) >> 8;
	refused(n, 2, "row count out of range");
	blob[2] = 300 & 0xff;
	blob[3] = 300 >> 8;
	blob[4 + 9 * 5] = 3;
	refused(n, 4 + 9 * 5, "bad column width");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_unpackable),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
