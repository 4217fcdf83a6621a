// SPDX-License-Identifier: MIT
/*
 * The kdump-compressed file's structure checked against the file before
 * libkdumpfile reads it (docs/formats.md §6.4): libkdumpfile allocates
 * and reads what the header's sizes say, so an impossible size is an
 * allocation of terabytes ("out of memory") and a file cut short is a
 * read failure found only at the first page it misses.  Here each is
 * refused by the field or the part of the file that is wrong.
 *
 * Layout (makedumpfile's diskdump_mod.h): block 0 the disk_dump_header,
 * blocks 1 .. sub_hdr_size the kdump_sub_header (VMCOREINFO and the ELF
 * notes live at offsets it names), then bitmap_blocks blocks of two
 * bitmaps (pages present; pages dumped), then a page_desc of 24 bytes
 * for each page dumped, then the pages' data.  The header's words are in
 * the dumped machine's byte order and its layout follows the dumping
 * machine's word size (a struct timeval and unsigned longs in it).
 */
#include <inttypes.h>
#include <string.h>

#include "../../common/bytes.h"
#include "vmcore.h"

#define DD_SIG "KDUMP   "
#define DD_UTS_END 402          /* signature, header_version, utsname */
#define DD_DESC_SIZE 24         /* page_desc: offset, size, flags, page_flags */
#define DD_MAX_BLOCK (1u << 20)

/* Where a word size puts the header's and sub-header's fields. */
struct dd_layout {
	int word;               /* 4 or 8 */
	size_t block_size;      /* the int fields follow: status is 4 before */
	size_t sub_split;       /* split: one part of a makedumpfile --split */
	size_t sub_vmcoreinfo;  /* offset_vmcoreinfo (off_t), then the size */
	size_t sub_note;
	size_t sub_erase;       /* offset_eraseinfo, then the size (5+) */
	size_t sub_max_mapnr;   /* max_mapnr_64, header_version 6+ */
};

static const struct dd_layout dd_layouts[] = {
	/* timeval of two 8-byte longs at 408; unsigned longs 8 bytes */
	{ 8, 428, 12, 32, 48, 64, 96 },
	/* timeval of two 4-byte longs at 404; off_t 8 bytes, 4-aligned */
	{ 4, 416, 8, 20, 32, 44, 72 },
};

struct dd {
	const char *path;
	const uint8_t *p;
	size_t len;
	enum mdb_order o;
	const struct dd_layout *l;
	uint32_t version, block_size, sub_blocks, bitmap_blocks;
	uint64_t max_mapnr;
	struct mdb_error *e;
};

static int good_block_size(uint32_t bs)
{
	return bs >= 512 && bs <= DD_MAX_BLOCK && !(bs & (bs - 1));
}

static uint32_t dd_u32(const struct dd *d, size_t off)
{
	return get_u32(d->p + off, d->o);
}

static uint64_t dd_word(const struct dd *d, size_t off)
{
	return d->l->word == 8 ? get_u64(d->p + off, d->o) :
				 get_u32(d->p + off, d->o);
}

/* An impossible value of a header field. */
static int dd_bad(const struct dd *d, size_t off, const char *field,
		  uint64_t v, const char *why)
{
	mdb_error_set(d->e, MDB_E_CORRUPT, d->path, (int64_t)off, -1,
		      "%s=%" PRIu64, field, v);
	mdb_error_msg(d->e, "kdump-compressed dump with an impossible %s: %s",
		      field, why);
	return -MDB_E_CORRUPT;
}

/* [@off, @off + @size) of @what must lie in the file. */
static int dd_need(const struct dd *d, const char *what, uint64_t off,
		   uint64_t size)
{
	uint64_t end;

	if (!__builtin_add_overflow(off, size, &end) && end <= d->len)
		return 0;
	mdb_error_set(d->e, MDB_E_TRUNCATED, d->path,
		      (int64_t)(off < d->len ? d->len : off), -1,
		      "start=%" PRIu64 " size=%" PRIu64 " file_size=%zu", off,
		      size, d->len);
	mdb_error_msg(d->e, "kdump-compressed dump cut short: the file ends "
			    "%s %s", off < d->len ? "inside" : "before", what);
	return -MDB_E_TRUNCATED;
}

/*
 * The layout libkdumpfile 0.5 takes, so that the sizes checked here are
 * the ones it reads: the 4-byte-long layout first, then the 8-byte one,
 * each little-endian first; the first whose block size is 4 to 256 KiB
 * and whose bitmap has a bit for each of max_mapnr pages.
 */
#define KD_MIN_BLOCK 4096u
#define KD_MAX_BLOCK (256u << 10)

static int kd_takes(const struct dd *d, enum mdb_order o,
		    const struct dd_layout *l)
{
	size_t f = l->block_size;
	uint32_t bs = get_u32(d->p + f, o);

	return bs >= KD_MIN_BLOCK && bs <= KD_MAX_BLOCK &&
	       8 * (uint64_t)get_u32(d->p + f + 8, o) * bs >=
	       get_u32(d->p + f + 12, o);
}

static int dd_layout(struct dd *d)
{
	static const enum mdb_order orders[] = { MDB_ORDER_LITTLE,
						  MDB_ORDER_BIG };
	const size_t nl = sizeof(dd_layouts) / sizeof(*dd_layouts);
	uint32_t v, bs;
	size_t f;

	if (d->len < dd_layouts[0].block_size + 16)
		return dd_need(d, "the header", 0,
			       dd_layouts[0].block_size + 16);
	for (size_t j = nl; j-- > 0;)   /* the table has it last */
		for (size_t i = 0; i < 2; i++) {
			if (!kd_takes(d, orders[i], &dd_layouts[j]))
				continue;
			d->o = orders[i];
			d->l = &dd_layouts[j];
			v = get_u32(d->p + 8, d->o);
			if (v == 0 || v > 64)
				return dd_bad(d, 8, "header_version", v,
					      "not from 1 to 64");
			d->version = v;
			if (!good_block_size(get_u32(d->p + d->l->block_size,
						     d->o)))
				return dd_bad(d, d->l->block_size,
					      "block_size",
					      get_u32(d->p + d->l->block_size,
						      d->o),
					      "not a power of two");
			return 0;
		}
	/* nothing libkdumpfile takes: name the field, read as x86-64's */
	f = dd_layouts[0].block_size;
	bs = get_le32(d->p + f);
	if (get_le32(d->p + 8) == 0)
		return dd_bad(d, 8, "header_version", 0, "not from 1 to 64");
	if (bs >= KD_MIN_BLOCK && bs <= KD_MAX_BLOCK)
		return dd_bad(d, f + 8, "bitmap_blocks", get_le32(d->p + f + 8),
			      "fewer bitmap bits than max_mapnr pages");
	return dd_bad(d, f, "block_size", bs, "no byte order or word size "
		      "gives a block of 4 to 256 KiB with a bitmap bit for "
		      "each page");
}

/* The sub-header's blocks, and the notes it points to. */
static int dd_sub_header(struct dd *d)
{
	uint64_t sub = d->block_size, end = sub * (1 + (uint64_t)d->sub_blocks);
	const struct dd_layout *l = d->l;
	int ret;

	if (d->version < 2)
		return 0;
	if (d->sub_blocks == 0)
		return dd_bad(d, l->block_size + 4, "sub_hdr_size", 0,
			      "a version 2+ header has a sub-header");
	if (d->sub_blocks > d->len / d->block_size)
		return dd_need(d, "the sub-header (sub_hdr_size blocks)", sub,
			       end - sub);
	if ((ret = dd_need(d, "the sub-header", sub, end - sub)))
		return ret;
	if (d->version >= 3 &&
	    (ret = dd_need(d, "VMCOREINFO (the sub-header's "
			      "offset_vmcoreinfo, size_vmcoreinfo)",
			   get_u64(d->p + sub + l->sub_vmcoreinfo, d->o),
			   dd_word(d, sub + l->sub_vmcoreinfo + 8))))
		return ret;
	if (d->version >= 4 &&
	    (ret = dd_need(d, "the ELF notes (the sub-header's offset_note, "
			      "size_note)",
			   get_u64(d->p + sub + l->sub_note, d->o),
			   dd_word(d, sub + l->sub_note + 8))))
		return ret;
	/* an erase info of size 0 is none, wherever it says it is */
	if (d->version >= 5 && dd_word(d, sub + l->sub_erase + 8) &&
	    (ret = dd_need(d, "the erase info (the sub-header's "
			      "offset_eraseinfo, size_eraseinfo)",
			   get_u64(d->p + sub + l->sub_erase, d->o),
			   dd_word(d, sub + l->sub_erase + 8))))
		return ret;
	if (get_u32(d->p + sub + l->sub_split, d->o))
		return dd_bad(d, sub + l->sub_split, "split",
			      get_u32(d->p + sub + l->sub_split, d->o),
			      "one part of a dump split by makedumpfile "
			      "--split: join the parts with makedumpfile "
			      "--reassemble first");
	if (d->version >= 6 && l->sub_max_mapnr + 8 <= end - sub) {
		uint64_t m = get_u64(d->p + sub + l->sub_max_mapnr, d->o);
		size_t off = sub + l->sub_max_mapnr;

		if (m == 0)
			return dd_bad(d, off, "max_mapnr_64", 0,
				      "a dump of no pages");
		/* the 32-bit field holds as much of it as fits, or 0 */
		if (d->max_mapnr && d->max_mapnr != (m > UINT32_MAX ?
						     UINT32_MAX : m))
			return dd_bad(d, d->l->block_size + 12, "max_mapnr",
				      d->max_mapnr, "not the sub-header's "
				      "max_mapnr_64");
		d->max_mapnr = m;
	}
	return 0;
}

/* Pages dumped: the bits set in the second bitmap, below max_mapnr. */
static uint64_t dd_dumped(const struct dd *d, const uint8_t *bitmap2)
{
	uint64_t n = 0, bytes = d->max_mapnr / 8;

	for (uint64_t i = 0; i < bytes; i++)
		n += (unsigned)__builtin_popcount(bitmap2[i]);
	for (uint64_t b = bytes * 8; b < d->max_mapnr; b++)
		n += (bitmap2[b / 8] >> (b % 8)) & 1;
	return n;
}

/* Every page descriptor's data must lie in the file. */
static int dd_pages(const struct dd *d, uint64_t desc, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *pd = d->p + desc + i * DD_DESC_SIZE;
		uint64_t off = get_u64(pd, d->o);
		uint32_t size = get_u32(pd + 8, d->o);
		int ret;

		if (size > d->block_size)
			return dd_bad(d, desc + i * DD_DESC_SIZE + 8,
				      "page_desc.size", size,
				      "larger than a block");
		if ((ret = dd_need(d, "the data of a dumped page", off,
				   size)))
			return ret;
	}
	return 0;
}

/*
 * The ELF notes of the sub-header (offset_note, size_note; dd_sub_header
 * found them in the file) counted into @a.  A note is namesz, descsz and
 * type (32-bit words in the header's byte order), the name and the
 * descriptor each padded to 4 bytes; a note that overruns the area ends
 * the walk (libkdumpfile reports it when it reads them).
 */
static void dd_notes(const struct dd *d, struct vm_dd_arch *a)
{
	uint64_t sub = d->block_size, off, size, end, q;
	int first = 1;

	if (d->version < 4)
		return;
	off = get_u64(d->p + sub + d->l->sub_note, d->o);
	size = dd_word(d, sub + d->l->sub_note + 8);
	end = off + size;
	for (q = off; end - q >= 12;) {
		uint32_t namesz = dd_u32(d, q), descsz = dd_u32(d, q + 4),
			 type = dd_u32(d, q + 8);
		uint64_t name = q + 12,
			 desc = name + (((uint64_t)namesz + 3) & ~3ull),
			 next = desc + (((uint64_t)descsz + 3) & ~3ull);
		const char *n = (const char *)d->p + name;

		if (next > end)
			break;
		a->notes++;
		if (namesz == 5 && !memcmp(n, "CORE", 5) && type == 1) {
			/* NT_PRSTATUS: one size for every CPU */
			if (first)
				a->prstatus_size = descsz;
			else if (a->prstatus_size != descsz)
				a->prstatus_size = 0;
			first = 0;
			a->prstatus++;
		} else if (namesz == 5 && !memcmp(n, "QEMU", 5)) {
			a->qemu++;
		} else if (namesz == 6 && !memcmp(n, "LINUX", 6) &&
			   type >= 0x300 && type <= 0x3ff) {
			a->s390++;
		}
		q = next;
	}
}

/*
 * QEMU's notes per target: s390x writes NT_S390_* notes (big-endian,
 * NT_PRSTATUS of 336 bytes); aarch64 NT_PRSTATUS of 392 bytes; i386 and
 * x86-64 a "QEMU" note with NT_PRSTATUS of 144 bytes (a guest not in
 * long mode) or 336.  No other QEMU target writes these.
 */
const char *mdb_vm_dd_arch_name(const struct vm_dd_arch *a)
{
	int le = a->order == MDB_ORDER_LITTLE;

	if (!a->checked || !a->prstatus || !a->prstatus_size)
		return NULL;
	if (!le && a->s390 && !a->qemu && a->prstatus_size == 336)
		return "s390x";
	if (!le || a->s390)
		return NULL;
	if (!a->qemu && a->prstatus_size == 392)
		return "aarch64";
	if (a->qemu && a->prstatus_size == 144)
		return "ia32";
	if (a->qemu && a->prstatus_size == 336)
		return "x86_64";
	return NULL;
}

int mdb_vm_diskdump_check(const char *path, const void *buf, size_t len,
			  struct vm_dd_arch *arch, struct mdb_error *e)
{
	struct dd d = { .path = path, .p = buf, .len = len, .e = e };
	uint64_t bitmap, half, desc, n;
	size_t f;
	int ret;

	if (len < 8 || memcmp(buf, DD_SIG, 8))
		return 0;
	if ((ret = dd_layout(&d)))
		return ret;
	f = d.l->block_size;
	d.block_size = dd_u32(&d, f);
	d.sub_blocks = dd_u32(&d, f + 4);
	d.bitmap_blocks = dd_u32(&d, f + 8);
	d.max_mapnr = dd_u32(&d, f + 12);
	if ((ret = dd_need(&d, "the header block", 0, d.block_size)) ||
	    (ret = dd_sub_header(&d)))
		return ret;
	bitmap = (uint64_t)d.block_size * (1 + (uint64_t)d.sub_blocks);
	half = (uint64_t)d.bitmap_blocks * d.block_size / 2;
	if (d.bitmap_blocks == 0 || d.bitmap_blocks % 2)
		return dd_bad(&d, f + 8, "bitmap_blocks", d.bitmap_blocks,
			      "two bitmaps of equal size take an even, "
			      "non-zero number of blocks");
	if (d.bitmap_blocks > len / d.block_size)
		return dd_need(&d, "the page bitmaps (bitmap_blocks)", bitmap,
			       2 * half);
	if ((ret = dd_need(&d, "the page bitmaps", bitmap, 2 * half)))
		return ret;
	if (d.max_mapnr == 0 || d.max_mapnr > half * 8)
		return dd_bad(&d, f + 12, "max_mapnr", d.max_mapnr,
			      d.max_mapnr ? "more pages than its bitmap has "
					    "bits" : "a dump of no pages");
	desc = bitmap + 2 * half;
	n = dd_dumped(&d, d.p + bitmap + half);
	if (n > (len - desc) / DD_DESC_SIZE)
		return dd_need(&d, "the page descriptors", desc,
			       n * DD_DESC_SIZE);
	if ((ret = dd_pages(&d, desc, n)))
		return ret;
	if (arch) {
		memset(arch, 0, sizeof(*arch));
		arch->checked = 1;
		arch->order = d.o;
		arch->word = (unsigned)d.l->word;
		arch->block_size = d.block_size;
		dd_notes(&d, arch);
	}
	return 0;
}
