/* SPDX-License-Identifier: MIT */
/*
 * Private to ingest/: reading text inputs line by line and token by token,
 * and the numbers they print, plain or humanized (numfmt --to=iec,
 * humanize_number(3)).  Everything works on struct mdb_str views of the
 * input buffer: nothing is copied, nothing needs a NUL terminator.
 */
#ifndef MDB_TEXT_H
#define MDB_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "event.h"

struct mdb_lines {
	const char *p, *end;
	int64_t no;   /* 1-based number of the line last returned */
	int cut;      /* that line ended the input without its '\n' */
};

void mdb_lines_init(struct mdb_lines *l, const void *buf, size_t len);

/*
 * The next line, without its '\n' (nor a '\r' before it).  Returns 1 with
 * *@s set, 0 at the end of the input.
 *
 * A last line without its '\n' sets @l->cut: the file was cut short
 * (`head -c`, a copy of a file being written) and the line's last field
 * may be a prefix of what was printed ("ptr=0xfff", "__dma_direct_alloc_pag",
 * size "5" of "512").  Every text format ends its lines with '\n', so the
 * decoders take such a line, unless blank, as malformed (MDB_CUT_WHAT).
 */
int mdb_lines_next(struct mdb_lines *l, struct mdb_str *s);

/*
 * The next line with content, trimmed, counting every line read in
 * *@records and skipping blank and '#' lines: 1, 0 at the end, or -1 for
 * a line holding a NUL byte (*@s the line as it is).
 */
int mdb_lines_content(struct mdb_lines *l, struct mdb_str *s,
		      uint64_t *records);

/* What a cut last line lacks, for "expected=" in messages. */
#define MDB_CUT_WHAT "a newline at the end (the file is cut short)"

/*
 * The first line of @buf that is not blank, at most @max lines (and 64
 * KiB) in; @no receives its number.  Returns 1 when found.
 */
int mdb_first_line(const void *buf, size_t len, int max, struct mdb_str *s,
		   int64_t *no);

/*
 * The start of a text format with a version header line and '#'
 * comments: MDB_PROBE_HEADER when its first non-blank line starts with
 * @header, MDB_PROBE_ROW with the first other line (trimmed) in *@row,
 * 0 when there is none in the first few lines or the text is binary.
 */
enum { MDB_PROBE_HEADER = 1, MDB_PROBE_ROW = 2 };
int mdb_probe_lines(const void *buf, size_t len, const char *header,
		    struct mdb_str *row);

static inline struct mdb_str mdb_str_make(const char *p, size_t len)
{
	struct mdb_str s = { p, len };

	return s;
}

/* Is @s exactly the NUL-terminated @lit? */
int mdb_str_is(struct mdb_str s, const char *lit);

/* Does @s start with @lit? */
int mdb_str_starts(struct mdb_str s, const char *lit);

/* @s without blanks (space, tab, '\r', '\v', '\f') at either end. */
struct mdb_str mdb_str_trim(struct mdb_str s);

/* Is @s empty or all blanks? */
int mdb_str_blank(struct mdb_str s);

/* Does @s hold a NUL byte? (text inputs never do) */
int mdb_str_has_nul(struct mdb_str s);

/*
 * Split the first blank-separated token off @s (which is advanced past
 * it).  Returns 1 with *@tok set, 0 when only blanks remain.
 */
int mdb_tok_next(struct mdb_str *s, struct mdb_str *tok);

/*
 * Split @s at most @max tokens into @tok; returns how many there were in
 * all (which may exceed @max: only the first @max are stored).
 */
size_t mdb_tok_split(struct mdb_str s, struct mdb_str *tok, size_t max);

/* A whole unsigned decimal number (digits only) that fits uint64_t. */
int mdb_parse_u64(struct mdb_str s, uint64_t *v);

/* The same that fits int64_t. */
int mdb_parse_u63(struct mdb_str s, int64_t *v);

/*
 * A number as tools print it for people: plain ("2105", "-12") or
 * humanized with an IEC suffix K M G T P E (optionally followed by 'i'),
 * with or without one decimal fraction ("2.8M", "13M", "4.0Ki").  A
 * humanized value is the printed value times 1024^k, rounded to the
 * nearest integer, and sets *@approx to 1.  Returns 0, or -1 when @s is
 * not such a number or does not fit int64_t.
 */
int mdb_parse_human(struct mdb_str s, int64_t *v, int *approx);

/*
 * The same without a sign, up to 2^64 - 1: a 64-bit counter as a kernel
 * prints it ("%llu").  A humanized 2^64 ("16E", what numfmt prints for
 * a counter within a step below it) reads as 2^64 - 1.
 */
int mdb_parse_human_u64(struct mdb_str s, uint64_t *v, int *approx);

/* Does @s look like mdb_parse_human() would accept it? */
int mdb_is_number(struct mdb_str s);

/* What a format's version header line looks like and accepts. */
struct mdb_version_rule {
	const char *prefix;    /* "allocinfo - version:" */
	const char *format;    /* for messages: "allocinfo" */
	int need_minor;        /* "N" alone is malformed */
	int64_t major_lo, major_hi; /* majors read */
	const char *supported; /* for messages: "1.x,2.x" */
};

/*
 * Read the version header line @s (line @no of input @name) by @rule: the
 * version text into @out (@len bytes).  Returns 0, or -MDB_E_CORRUPT
 * (malformed) or -MDB_E_VERSION (a major not read) with @e filled.
 */
int mdb_version_header(struct mdb_str s, const struct mdb_version_rule *rule,
		       const char *name, int64_t no, char *out, size_t len,
		       struct mdb_error *e);

/* @s for a message, in @buf (truncated), non-printing bytes as '?'. */
const char *mdb_str_show(struct mdb_str s, char *buf, size_t len);

#endif
