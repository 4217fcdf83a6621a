// SPDX-License-Identifier: MIT
/* Lines, tokens and printed numbers of text inputs; see text.h. */
#include <string.h>

#include "text.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

void mdb_lines_init(struct mdb_lines *l, const void *buf, size_t len)
{
	l->p = buf;
	l->end = len ? l->p + len : l->p; /* an empty mapping is NULL */
	l->no = 0;
	l->cut = 0;
}

int mdb_lines_next(struct mdb_lines *l, struct mdb_str *s)
{
	const char *nl;

	if (l->p >= l->end)
		return 0;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	s->p = l->p;
	s->len = (size_t)((nl ? nl : l->end) - l->p);
	l->p = nl ? nl + 1 : l->end;
	l->cut = !nl;
	l->no++;
	if (s->len && s->p[s->len - 1] == '\r')
		s->len--;
	return 1;
}

int mdb_lines_content(struct mdb_lines *l, struct mdb_str *s,
		      uint64_t *records)
{
	while (mdb_lines_next(l, s)) {
		++*records;
		if (mdb_str_has_nul(*s))
			return -1;
		*s = mdb_str_trim(*s);
		if (s->len && s->p[0] != '#')
			return 1;
	}
	return 0;
}

#define PROBE_LINES 8
/* Probes read this much at most: a large binary file without a newline
 * must not be read whole to find out it is not text. */
#define PROBE_WINDOW (64u << 10)

static size_t probe_len(size_t len)
{
	return len < PROBE_WINDOW ? len : PROBE_WINDOW;
}

int mdb_first_line(const void *buf, size_t len, int max, struct mdb_str *s,
		   int64_t *no)
{
	struct mdb_lines l;

	mdb_lines_init(&l, buf, probe_len(len));
	while (l.no < max && mdb_lines_next(&l, s)) {
		if (!mdb_str_blank(*s)) {
			*no = l.no;
			return 1;
		}
	}
	return 0;
}

int mdb_probe_lines(const void *buf, size_t len, const char *header,
		    struct mdb_str *row)
{
	struct mdb_lines l;
	struct mdb_str s;

	mdb_lines_init(&l, buf, probe_len(len));
	while (l.no < PROBE_LINES && mdb_lines_next(&l, &s)) {
		if (mdb_str_has_nul(s))
			return 0; /* binary */
		s = mdb_str_trim(s);
		if (!s.len)
			continue;
		if (mdb_str_starts(s, header))
			return MDB_PROBE_HEADER;
		if (s.p[0] == '#')
			continue;
		*row = s;
		return MDB_PROBE_ROW;
	}
	return 0;
}

int mdb_str_is(struct mdb_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len == n && !memcmp(s.p, lit, n);
}

int mdb_str_starts(struct mdb_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len >= n && !memcmp(s.p, lit, n);
}

struct mdb_str mdb_str_trim(struct mdb_str s)
{
	while (s.len && is_blank(s.p[0])) {
		s.p++;
		s.len--;
	}
	while (s.len && is_blank(s.p[s.len - 1]))
		s.len--;
	return s;
}

int mdb_str_blank(struct mdb_str s)
{
	return mdb_str_trim(s).len == 0;
}

int mdb_str_has_nul(struct mdb_str s)
{
	return s.len && memchr(s.p, '\0', s.len) != NULL;
}

int mdb_tok_next(struct mdb_str *s, struct mdb_str *tok)
{
	size_t i = 0, start;

	while (i < s->len && is_blank(s->p[i]))
		i++;
	if (i == s->len) {
		s->p += i;
		s->len = 0;
		return 0;
	}
	start = i;
	while (i < s->len && !is_blank(s->p[i]))
		i++;
	tok->p = s->p + start;
	tok->len = i - start;
	s->p += i;
	s->len -= i;
	return 1;
}

size_t mdb_tok_split(struct mdb_str s, struct mdb_str *tok, size_t max)
{
	struct mdb_str t;
	size_t n = 0;

	while (mdb_tok_next(&s, &t)) {
		if (n < max)
			tok[n] = t;
		n++;
	}
	return n;
}

int mdb_parse_u64(struct mdb_str s, uint64_t *v)
{
	uint64_t n = 0;

	if (!s.len)
		return -1;
	for (size_t i = 0; i < s.len; i++) {
		uint64_t d = (uint64_t)(s.p[i] - '0');

		if (!is_digit(s.p[i]) || n > (UINT64_MAX - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	*v = n;
	return 0;
}

int mdb_parse_u63(struct mdb_str s, int64_t *v)
{
	uint64_t n;

	if (mdb_parse_u64(s, &n) < 0 || n > (uint64_t)INT64_MAX)
		return -1;
	*v = (int64_t)n;
	return 0;
}

/* The unsigned number of @s from @i on, as mdb_parse_human() reads it. */
static int human_u64(struct mdb_str s, size_t i, uint64_t *v, int *approx)
{
	static const char units[] = "KMGTPE";
	uint64_t ip = 0, frac = 0, fdiv = 1, unit = 1, r;
	int k = 0;
	const char *u;

	if (i == s.len || !is_digit(s.p[i]))
		return -1;
	for (; i < s.len && is_digit(s.p[i]); i++) {
		uint64_t d = (uint64_t)(s.p[i] - '0');

		if (ip > (UINT64_MAX - d) / 10)
			return -1;
		ip = ip * 10 + d;
	}
	if (i < s.len && s.p[i] == '.') {
		if (++i == s.len || !is_digit(s.p[i]))
			return -1;
		for (; i < s.len && is_digit(s.p[i]); i++) {
			if (fdiv >= 1000000000u)
				return -1; /* more decimals than any tool prints */
			frac = frac * 10 + (uint64_t)(s.p[i] - '0');
			fdiv *= 10;
		}
	}
	if (i < s.len) {
		u = s.p[i] == 'k' ? units : memchr(units, s.p[i], 6);
		if (!u)
			return -1;
		k = (int)(u - units) + 1;
		i++;
		if (i < s.len && s.p[i] == 'i')
			i++;
	}
	if (i != s.len || (fdiv > 1 && !k))
		return -1;
	for (int j = 0; j < k; j++)
		unit *= 1024;
	if (__builtin_mul_overflow(ip, unit, &r)) {
		/* 2^64 exactly ("16E"): numfmt's for a 64-bit counter within
		 * a step below it; the largest such counter stands for it */
		if (!k || frac || ip != UINT64_MAX / unit + 1)
			return -1;
		r = UINT64_MAX;
	}
	/* frac / fdiv of a unit, rounded half up; frac * unit could
	 * overflow, but frac < fdiv keeps frac * (unit / fdiv) <= unit and
	 * frac * (unit % fdiv) < 10^18 */
	if (frac) {
		uint64_t q = unit / fdiv, rem = unit % fdiv;
		uint64_t part = frac * q + (frac * rem + fdiv / 2) / fdiv;

		if (__builtin_add_overflow(r, part, &r))
			return -1;
	}
	*v = r;
	if (k)
		*approx = 1;
	return 0;
}

int mdb_parse_human(struct mdb_str s, int64_t *v, int *approx)
{
	int neg = s.len && s.p[0] == '-', a = 0;
	uint64_t r;

	if (human_u64(s, neg ? 1 : 0, &r, &a) < 0 || r > (uint64_t)INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)r : (int64_t)r;
	if (a)
		*approx = 1;
	return 0;
}

int mdb_parse_human_u64(struct mdb_str s, uint64_t *v, int *approx)
{
	return human_u64(s, 0, v, approx);
}

int mdb_is_number(struct mdb_str s)
{
	int64_t v;
	int a = 0;

	return mdb_parse_human(s, &v, &a) == 0;
}

const char *mdb_str_show(struct mdb_str s, char *buf, size_t len)
{
	size_t n = s.len < len - 1 ? s.len : len - 1;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s.p[i];

		buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	buf[n] = '\0';
	return buf;
}

/* "N" or "N.M" into *@major; 0 on success. */
static int parse_version(struct mdb_str v, int need_minor, int64_t *major)
{
	const char *dot = memchr(v.p, '.', v.len);
	int64_t minor;

	if (!dot)
		return need_minor ? -1 : mdb_parse_u63(v, major);
	if (mdb_parse_u63(mdb_str_make(dot + 1, v.len -
				       (size_t)(dot - v.p) - 1), &minor) < 0)
		return -1;
	return mdb_parse_u63(mdb_str_make(v.p, (size_t)(dot - v.p)), major);
}

int mdb_version_header(struct mdb_str s, const struct mdb_version_rule *rule,
		       const char *name, int64_t no, char *out, size_t len,
		       struct mdb_error *e)
{
	size_t n = strlen(rule->prefix);
	struct mdb_str v = mdb_str_trim(mdb_str_make(s.p + n, s.len - n));
	char shown[32];
	int64_t major;

	mdb_str_show(v, shown, sizeof(shown));
	if (parse_version(v, rule->need_minor, &major) < 0 || v.len >= len) {
		mdb_error_set(e, MDB_E_CORRUPT, name, -1, no, "version='%s'",
			      shown);
		mdb_error_msg(e, "malformed %s version line", rule->format);
		return -MDB_E_CORRUPT;
	}
	if (major < rule->major_lo || major > rule->major_hi) {
		mdb_error_set(e, MDB_E_VERSION, name, -1, no,
			      "version=%s supported=%s", shown,
			      rule->supported);
		mdb_error_msg(e, "unsupported %s version", rule->format);
		return -MDB_E_VERSION;
	}
	memcpy(out, v.p, v.len);
	out[v.len] = '\0';
	return 0;
}
