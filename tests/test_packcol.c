// SPDX-License-Identifier: MIT
/*
 * Packed columns (db/packcol.h): blocks of random values, with NULLs and
 * the extremes of int64, come back as they went in, whole or some
 * columns only (the scan's mdb_pc_unpack_cols()); every damaged blob of
 * each codec (each length short of whole, each header field out of
 * range, a byte more) is refused with the offset of what is wrong,
 * never read past, however few columns are asked for (a damaged zstd
 * column when it is read); bit-packed columns are read back as the bit
 * at a time reading of as_raw() gives them.  Where zstd did not pay on a
 * column, it is tried on it again after 1, 3, 7, then 15 (MDB_PC_ZMISS)
 * blocks, not before, and the blocks between come back the same.
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
		int kind = (c + k) % 7;
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
			case 6:         /* a few bits: bit-packed */
				v = base + (int64_t)(rnd(x) & 0x1f);
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
/* The codec column @c of blob @p was stored with. */
static int codec_of(const uint8_t *p, int c)
{
	return p[MDB_PC_HEAD + 9 * MDB_PC_NCOLS + 5 * c];
}

/*
 * Column 0 of @k blocks of random values (zstd cannot save 30% of them)
 * then of a repeated pattern (it can): the first block stored as zstd.
 */
static int first_zstd(int k)
{
	static struct mdb_pc_block b;
	uint64_t x = 7;
	const char *why;
	size_t off, n;
	int first = -1;

	mdb_pc_block_init(&b);
	for (int blk = 0; blk < k + (2 << MDB_PC_ZMISS); blk++) {
		in.rows = MDB_PC_ROWS;
		for (int c = 0; c < MDB_PC_NCOLS; c++)
			for (size_t r = 0; r < in.rows; r++) {
				in.null[c][r] = 0;
				in.v[c][r] = blk < k ? (int64_t)rnd(&x) :
					     (int64_t)(r % 7) << 40 |
					     (int64_t)(r % 3);
			}
		memcpy(b.v, in.v, sizeof(in.v));
		memcpy(b.null, in.null, sizeof(in.null));
		b.rows = in.rows;
		n = mdb_pc_pack(&b, blob);
		assert_int_equal(mdb_pc_unpack(blob, n, &out, &why, &off), 0);
		assert_same();
		if (codec_of(blob, 0) == MDB_PC_ZSTD && first < 0)
			first = blk;
		/* once it pays, it is tried on every block */
		if (first >= 0)
			assert_int_equal(codec_of(blob, 0), MDB_PC_ZSTD);
	}
	mdb_pc_block_done(&b);
	return first;
}

/* Trials where zstd did not pay: after 1, 3, 7, then 15 blocks. */
static void test_zstd_retry(void **state)
{
	(void)state;
	assert_int_equal(first_zstd(0), 0);
	assert_int_equal(first_zstd(1), 2);
	assert_int_equal(first_zstd(3), 6);
	assert_int_equal(first_zstd(7), 14);
	assert_int_equal(first_zstd(15), 30);
	assert_int_equal(first_zstd(31), 46);
	assert_int_equal(first_zstd(47), 62);
}

static void test_widths(void **state)
{
	const char *why;
	size_t n, off;

	(void)state;
	mdb_pc_block_done(&in);   /* its zstd contexts, before they are zeroed */
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
	/* 1000 to 1003 as 0 to 3: bit-packed, 2 bits a row */
	assert_int_equal(blob[MDB_PC_HEAD + 9 * MDB_PC_NCOLS + 5 * MDB_PC_PTR],
			 MDB_PC_BITS);
	assert_int_equal(blob[MDB_PC_HEAD + 9 * MDB_PC_NCOLS + 5 * MDB_PC_PTR +
			      1], 2);
	assert_true(n <= MDB_PC_HEAD + 14 * MDB_PC_NCOLS + 4 * (1 + 4 + 1));
	assert_int_equal(mdb_pc_unpack(blob, n, &out, &why, &off), 0);
	assert_same();
}

/* A column with NULLs and both extremes: its NULLs as a bitmap. */
static void test_full_span(void **state)
{
	const char *why;
	size_t n, off;

	(void)state;
	mdb_pc_block_done(&in);   /* its zstd contexts, before they are zeroed */
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

static void refused_at(int line, const uint8_t *p, size_t n,
		       size_t want_off,
		    const char *want)
{
	const char *why = NULL;
	size_t off = 12345;

	if (mdb_pc_unpack(p, n, &out, &why, &off) != -1)
		fail_msg("line %d: not refused", line);
	assert_non_null(why);
	if (want) {
		assert_string_equal(why, want);
		assert_int_equal(off, want_off);
	}
	/* unpacking no column checks the blob all the same */
	why = NULL;
	off = 12345;
	if (mdb_pc_unpack_cols(p, n, &out, 0, &why, &off) != -1)
		fail_msg("line %d: not refused reading no column", line);
	assert_non_null(why);
	if (want) {
		assert_string_equal(why, want);
		assert_int_equal(off, want_off);
	}
}

#define refused(...) refused_at(__LINE__, __VA_ARGS__)

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

/* A column stored as MDB_PC_BITS (@k bytes at @q: its bits, then its
 * values) as the @w-byte values of codec MDB_PC_RAW into @out, read a
 * bit at a time; their length. */
static size_t bits_as_bytes(const uint8_t *q, size_t k, size_t rows,
			    unsigned w, uint8_t *to)
{
	unsigned bits = q[0];

	assert_true(bits >= 1 && bits <= 8 * w);
	assert_int_equal(k, 1 + (rows * bits + 7) / 8);
	for (size_t r = 0; r < rows; r++) {
		uint64_t u = 0;

		for (unsigned j = 0; j < bits; j++) {
			size_t bit = r * bits + j;

			u |= (uint64_t)(q[1 + bit / 8] >> (bit % 8) & 1) << j;
		}
		for (unsigned i = 0; i < w; i++)
			to[r * w + i] = (uint8_t)(u >> (8 * i));
	}
	return rows * w;
}

/* Blob @p (@n bytes, codec MDB_PC_COLS) as codec MDB_PC_RAW into @raw:
 * the column headers and every column's values, decompressed or
 * unpacked from bits where stored so; its length. */
static size_t as_raw(const uint8_t *p, size_t n, uint8_t *raw)
{
	const uint8_t *tab = p + MDB_PC_HEAD + 9 * MDB_PC_NCOLS;
	size_t at = MDB_PC_HEAD + 14 * MDB_PC_NCOLS;
	size_t len = MDB_PC_HEAD + 9 * MDB_PC_NCOLS;
	size_t rows = (size_t)p[2] | (size_t)p[3] << 8;

	assert_int_equal(p[4], MDB_PC_COLS);
	memcpy(raw, p, len);
	raw[4] = MDB_PC_RAW;
	for (int c = 0; c < MDB_PC_NCOLS; c++) {
		size_t k = (size_t)tab[5 * c + 1] | (size_t)tab[5 * c + 2] << 8 |
			   (size_t)tab[5 * c + 3] << 16 |
			   (size_t)tab[5 * c + 4] << 24;

		if (tab[5 * c] == MDB_PC_ZSTD) {
			size_t got = ZSTD_decompress(raw + len, MDB_PC_MAX_BODY,
						     p + at, k);

			assert_false(ZSTD_isError(got));
			len += got;
		} else if (tab[5 * c] == MDB_PC_BITS) {
			len += bits_as_bytes(p + at, k, rows,
					     p[MDB_PC_HEAD + 9 * c] & 0x0f,
					     raw + len);
		} else {
			assert_int_equal(tab[5 * c], MDB_PC_RAW);
			memcpy(raw + len, p + at, k);
			len += k;
		}
		at += k;
	}
	assert_int_equal(at, n);
	return len;
}

/* Every damaged blob of each codec is refused: memdb writes MDB_PC_COLS
 * (a column at a time), databases before schema 13 hold MDB_PC_RAW and
 * MDB_PC_ZSTD (the whole body) blobs. */
static void test_damaged(void **state)
{
	static uint8_t raw[MDB_PC_MAX_BYTES + 1], whole[MDB_PC_MAX_BYTES + 1];
	const uint8_t *tab = blob + MDB_PC_HEAD + 9 * MDB_PC_NCOLS;
	uint64_t x = 7;
	size_t n, nraw, nwhole, z, at, k;
	const char *why;
	ZSTD_CCtx *cz;
	int c;

	(void)state;
	fill(&x, 300, 1);
	n = mdb_pc_pack(&in, blob);
	/* the same columns as one body: raw, and as one zstd frame */
	nraw = as_raw(blob, n, raw);
	assert_memory_equal(raw + MDB_PC_HEAD, in.body, nraw - MDB_PC_HEAD);
	memcpy(whole, raw, MDB_PC_HEAD);
	whole[4] = MDB_PC_ZSTD;
	/* with its checksum, as memdb wrote them */
	cz = ZSTD_createCCtx();
	assert_non_null(cz);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cz,
					ZSTD_c_checksumFlag, 1)));
	z = ZSTD_compress2(cz, whole + MDB_PC_HEAD, MDB_PC_MAX_BODY,
			   raw + MDB_PC_HEAD, nraw - MDB_PC_HEAD);
	ZSTD_freeCCtx(cz);
	assert_false(ZSTD_isError(z));
	nwhole = MDB_PC_HEAD + z;
	assert_int_equal(mdb_pc_unpack(raw, nraw, &out, &why, &k), 0);
	assert_same();
	assert_int_equal(mdb_pc_unpack(whole, nwhole, &out, &why, &k), 0);
	assert_same();

	refused_cut(blob, n);
	refused_cut(raw, nraw);
	refused_cut(whole, nwhole);
	raw[nraw] = 0;
	refused(raw, nraw + 1, nraw, "bytes after the last column");
	blob[n] = 0;
	refused(blob, n + 1, n, "bytes after the last column");
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
	raw[4] = 3;
	refused(raw, nraw, 4, "unknown codec");
	raw[4] = MDB_PC_RAW;
	raw[MDB_PC_HEAD + 9 * 5] = 3;
	refused(raw, nraw, MDB_PC_HEAD + 9 * 5, "bad column width");
	/* a damaged frame: its checksum no longer holds */
	whole[nwhole / 2] ^= 0x55;
	whole[nwhole / 2 + 1] ^= 0xaa;
	refused(whole, nwhole, MDB_PC_HEAD, NULL);

	/* a column at a time: a bad width, codec or length */
	blob[MDB_PC_HEAD + 9 * 4] = 3;
	refused(blob, n, MDB_PC_HEAD + 9 * 4, "bad column width");
	mdb_pc_pack(&in, blob);
	blob[MDB_PC_HEAD + 9 * MDB_PC_NCOLS + 5 * 6] = 9;
	refused(blob, n, MDB_PC_HEAD + 9 * MDB_PC_NCOLS + 5 * 6,
		"bad column codec or length");
	mdb_pc_pack(&in, blob);
	for (c = 0; tab[5 * c] != MDB_PC_RAW; c++)
		;
	blob[MDB_PC_HEAD + 9 * MDB_PC_NCOLS + 5 * c + 1] ^= 1;
	refused(blob, n, MDB_PC_HEAD + 9 * MDB_PC_NCOLS + 5 * (size_t)c,
		"bad column codec or length");
	/* a damaged zstd column: refused when it is read */
	mdb_pc_pack(&in, blob);
	at = MDB_PC_HEAD + 14 * MDB_PC_NCOLS;
	for (c = 0; tab[5 * c] != MDB_PC_ZSTD; c++)
		at += (size_t)tab[5 * c + 1] | (size_t)tab[5 * c + 2] << 8;
	k = (size_t)tab[5 * c + 1] | (size_t)tab[5 * c + 2] << 8;
	blob[at + k / 2] ^= 0x55;
	assert_int_equal(mdb_pc_unpack(blob, n, &out, &why, &z), -1);
	assert_string_equal(why, "a zstd column does not decompress");
	assert_int_equal(z, at);
	assert_int_equal(mdb_pc_unpack_cols(blob, n, &out,
					    MDB_PC_ALL & ~(1u << c), &why, &z),
			 0);
}

/* A bit-packed column: no bits, more than MDB_PC_MAX_BITS or than its
 * width holds, a length that is not its rows' are refused, however few
 * columns are asked for. */
static void test_bits_damaged(void **state)
{
	const uint8_t *tab = blob + MDB_PC_HEAD + 9 * MDB_PC_NCOLS;
	/* 9: more than the column's 1 byte a row */
	static const uint8_t bad[] = { 0, 9, MDB_PC_MAX_BITS + 1, 64, 255 };
	size_t n, off, at = MDB_PC_HEAD + 14 * MDB_PC_NCOLS;
	const char *why;
	int c;

	(void)state;
	mdb_pc_block_done(&in);
	memset(&in, 0, sizeof(in));
	in.rows = 100;
	for (size_t r = 0; r < in.rows; r++)
		in.v[MDB_PC_CPU][r] = (int64_t)(r % 3);   /* 1 byte, 2 bits */
	n = mdb_pc_pack(&in, blob);
	for (c = 0; tab[5 * c] != MDB_PC_BITS; c++)
		at += (size_t)tab[5 * c + 1] | (size_t)tab[5 * c + 2] << 8;
	assert_int_equal(c, MDB_PC_CPU);
	assert_int_equal(blob[at], 2);
	refused_cut(blob, n);
	for (size_t i = 0; i < sizeof(bad); i++) {
		blob[at] = bad[i];
		refused(blob, n, at, "bad bit width of a column");
	}
	blob[at] = 2;
	assert_int_equal(mdb_pc_unpack(blob, n, &out, &why, &off), 0);
	assert_same();
	/* 24 bytes, not 1 + 25: the column's last bytes would be the
	 * next column's */
	blob[MDB_PC_HEAD + 9 * MDB_PC_NCOLS + 5 * c + 1] ^= 2;
	refused(blob, n, at, "bad bit width of a column");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_zstd_retry),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_full_span),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_bits_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
