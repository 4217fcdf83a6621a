// SPDX-License-Identifier: MIT
/* Terminal-safe text; see escape.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

int mdb_utf8_len(const unsigned char *s, unsigned *cp)
{
	unsigned c;
	int n;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* a NUL ends the check too */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) ||
	    (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

int mdb_cp_unsafe(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||       /* C1 controls: CSI... */
	       cp == 0x2028 || cp == 0x2029 ||     /* line, paragraph sep */
	       (cp >= 0x202a && cp <= 0x202e) ||   /* bidi embeddings */
	       (cp >= 0x2066 && cp <= 0x2069);     /* bidi isolates */
}

/*
 * The escape for the character at @s (its bytes in *@n) into @buf, or 0
 * when it is shown as it is.
 */
static size_t escape_one(const unsigned char *s, unsigned flags, int *n,
			 char *buf)
{
	unsigned cp;

	*n = 1;
	if (*s == '\n')
		return flags & MDB_ESC_KEEP_NL ? 0 :
		       (size_t)sprintf(buf, "\\n");
	if (*s == '\t')
		return (size_t)sprintf(buf, "\\t");
	if (*s == '\r')
		return (size_t)sprintf(buf, "\\r");
	if (*s < 0x20 || *s == 0x7f)
		return (size_t)sprintf(buf, "\\x%02x", *s);
	if (*s < 0x80)
		return 0;
	*n = mdb_utf8_len(s, &cp);
	if (!*n) {
		*n = 1;
		return (size_t)sprintf(buf, "\\x%02x", *s);
	}
	return mdb_cp_unsafe(cp) ? (size_t)sprintf(buf, "\\u%04x", cp) : 0;
}

int mdb_escape_needed(const char *str, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)str;
	char buf[16];
	int n;

	for (; *s; s += n)
		if (escape_one(s, flags, &n, buf))
			return 1;
	return 0;
}

char *mdb_escape(const char *str, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)str;
	/* the longest escape, \u202e or \x1b, is 6 bytes for 1 to 3 */
	char *out, *o;
	char buf[16];
	int n;

	if (!mdb_escape_needed(str, flags))
		return strdup(str);
	out = o = malloc(strlen(str) * 6 + 1);
	if (!out)
		return NULL;
	for (; *s; s += n) {
		size_t k = escape_one(s, flags, &n, buf);

		if (k) {
			memcpy(o, buf, k);
			o += k;
		} else {
			memcpy(o, s, (size_t)n);
			o += n;
		}
	}
	*o = '\0';
	return out;
}
