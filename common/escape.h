/* SPDX-License-Identifier: MIT */
/*
 * Untrusted text (function and cache names, labels, file names read from
 * inputs or the database) made safe to show on a terminal: bytes that a
 * terminal would act on are written as escapes, the rest is kept.
 */
#ifndef MDB_ESCAPE_H
#define MDB_ESCAPE_H

#include <stddef.h>

enum {
	MDB_ESC_KEEP_NL = 1 << 0, /* keep '\n' (multi-line messages) */
};

/*
 * @s with control bytes as \t, \n, \r or \xNN, bytes that are not UTF-8
 * as \xNN, and the C1 controls (U+0080..U+009F), line and paragraph
 * separators and bidirectional overrides as \uNNNN.  Backslashes are
 * kept, so escaping twice changes nothing.  Malloc'ed; NULL when out of
 * memory.
 */
char *mdb_escape(const char *s, unsigned flags);

/* Would mdb_escape() change @s? */
int mdb_escape_needed(const char *s, unsigned flags);

/*
 * Length of the UTF-8 sequence at @s (1 to 4) and its code point in
 * *@cp; 0 when the bytes are not valid UTF-8 (overlong, surrogate, past
 * U+10FFFF, cut).
 */
int mdb_utf8_len(const unsigned char *s, unsigned *cp);

/* Code points a terminal or an editor would act on or reorder text by. */
int mdb_cp_unsafe(unsigned cp);

#endif
