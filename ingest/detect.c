// SPDX-License-Identifier: MIT
/*
 * Format detection: the rows of the format table are asked in order
 * whether they claim an input's first bytes; the first that does reads
 * it.  Bytes none claims are refused with what they look like (empty,
 * text and its first line, binary and its first bytes, a known magic)
 * and the formats memdb reads.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/escape.h"
#include "detect.h"
#include "magic.h"

#define SHOW_LINE 60  /* bytes of an unrecognised text's line shown */
#define SHOW_BYTES 16 /* bytes of unrecognised binary shown */

/* Text to show of unrecognised bytes: no NUL and few control bytes in
 * the first MDB_TEXT_PROBE_BYTES (a stray byte does not make text binary). */
static int looks_text(const uint8_t *p, size_t len)
{
	size_t n = len < MDB_TEXT_PROBE_BYTES ? len : MDB_TEXT_PROBE_BYTES;
	size_t ctl = 0;

	for (size_t i = 0; i < n; i++) {
		if (!p[i])
			return 0;
		if ((p[i] < 0x20 && !isspace(p[i])) || p[i] == 0x7f)
			ctl++;
	}
	return ctl * 32 <= n;
}

/*
 * The first non-blank line of text @p, escaped for a terminal and cut at
 * SHOW_LINE bytes (never inside an escape or a character), "..." after a
 * cut.  Malloc'ed; NULL when out of memory.
 */
static char *first_line(const uint8_t *p, size_t len)
{
	size_t end, n = 0;
	char *out;

	while (len && isspace(*p)) {
		p++;
		len--;
	}
	for (end = 0; end < len && p[end] != '\n' && p[end] != '\r'; end++)
		;
	out = malloc(SHOW_LINE + 4);
	if (!out)
		return NULL;
	for (size_t i = 0; i < end;) {
		char one[5] = { 0 }, *esc;
		unsigned cp;
		int k = mdb_utf8_len(p + i, &cp);

		/* a sequence cut by the end of the line is a lone byte */
		if (k < 1 || i + (size_t)k > end)
			k = 1;
		memcpy(one, p + i, (size_t)k);
		esc = mdb_escape(one, 0);
		if (!esc) {
			free(out);
			return NULL;
		}
		if (n + strlen(esc) > SHOW_LINE) {
			free(esc);
			memcpy(out + n, "...", 3);
			n += 3;
			break;
		}
		memcpy(out + n, esc, strlen(esc));
		n += strlen(esc);
		free(esc);
		i += (size_t)k;
	}
	out[n] = '\0';
	return out;
}

/* The format names of the table, ", " between them; malloc'ed. */
static char *format_names(void)
{
	size_t n = 1;
	char *s;

	for (const char *const *f = mdb_input_formats(); *f; f++)
		n += strlen(*f) + 2;
	s = malloc(n);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (const char *const *f = mdb_input_formats(); *f; f++) {
		if (s[0])
			strcat(s, ", ");
		strcat(s, *f);
	}
	return s;
}

/* A kallsyms or System.map line: "ffffffff81000000 T _stext". */
static int looks_kallsyms(const char *line)
{
	size_t n = strspn(line, "0123456789abcdefABCDEF");

	return (n == 8 || n == 16) && line[n] == ' ' && line[n + 1] &&
	       strchr("aAbBdDrRtTvVwW", line[n + 1]) && line[n + 2] == ' ';
}

/*
 * Input no format claims: say what it looks like (empty, text and its
 * first line, binary and its first bytes) and which formats memdb reads.
 * Unmaps @map.
 */
static int refuse_unknown(const char *path, struct mdb_map *map,
			  struct mdb_error *e)
{
	const uint8_t *p = map->data;
	char *names = format_names(), *line = NULL;
	int ret = -MDB_E_NOMEM;

	if (!names)
		goto out;
	if (!map->len) {
		mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, "empty");
	} else if (looks_text(p, map->len)) {
		line = first_line(p, map->len);
		if (!line)
			goto out;
		mdb_error_set(e, MDB_E_FORMAT, path, -1, -1,
			      "text whose first line is '%s'", line);
	} else {
		char hex[SHOW_BYTES * 3 + 1] = "";
		size_t n = map->len < SHOW_BYTES ? map->len : SHOW_BYTES;
		int at = 0;

		for (size_t i = 0; i < n; i++)
			at += sprintf(hex + at, "%s%02x", i ? " " : "", p[i]);
		mdb_error_set(e, MDB_E_FORMAT, path, -1, -1,
			      "binary whose first bytes are %s", hex);
	}
	mdb_error_msg(e, "input not recognised");
	if (line && looks_kallsyms(line))
		mdb_error_hint(e, "this is a kallsyms or System.map: give it "
				  "as --kallsyms FILE with the trace or core "
				  "dump of that boot");
	else
		mdb_error_hint(e, "memdb reads %s: name one with --format NAME "
				  "(see memdb ingest --help)", names);
	ret = -MDB_E_FORMAT;
out:
	if (ret == -MDB_E_NOMEM)
		mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	free(names);
	free(line);
	mdb_unmap(map);
	return ret;
}

/* Binary input of a kind memdb knows but does not read (yet). */
static int refuse_binary(const char *path, struct mdb_map *map,
			 struct mdb_error *e)
{
	mdb_error_set(e, MDB_E_FORMAT, path, 0, -1, NULL);
	mdb_error_msg(e, "not an input memdb reads: it looks like %s",
		      mdb_looks_like(map->data, map->len));
	mdb_unmap(map);
	return -MDB_E_FORMAT;
}

int mdb_format_detect(const char *path, struct mdb_map *map,
		      const struct mdb_format **out, struct mdb_error *e)
{
	const struct mdb_format *formats, *f = NULL;
	size_t n;

	formats = mdb_format_table(&n);
	for (size_t i = 0; i < n && !f; i++) {
		if ((formats[i].flags & MDB_FMT_NO_MAGIC) &&
		    mdb_looks_like(map->data, map->len))
			break;
		if (formats[i].probe && map->len &&
		    formats[i].probe(map->data, map->len))
			f = &formats[i];
	}
	if (!f && mdb_looks_like(map->data, map->len))
		return refuse_binary(path, map, e);
	/* a format without magic gets its own diagnosis of the bytes */
	for (size_t i = 0; i < n && !f && strcmp(path, MDB_STDIN_NAME); i++)
		if (formats[i].claims_name && formats[i].claims_name(path))
			f = &formats[i];
	if (!f || !f->name)
		return refuse_unknown(path, map, e);
	*out = f;
	return 0;
}
