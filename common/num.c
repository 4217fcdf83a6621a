// SPDX-License-Identifier: MIT
/* See num.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "num.h"

int mdb_parse_int(const char *s, int64_t *v)
{
	char *end;
	long long n;
	int base = 10;

	if (!s || !*s)
		return -1;
	if ((s[0] == '0' || ((s[0] == '-' || s[0] == '+') && s[1] == '0')) &&
	    (s[s[0] == '0' ? 1 : 2] == 'x' || s[s[0] == '0' ? 1 : 2] == 'X'))
		base = 16;
	errno = 0;
	n = strtoll(s, &end, base);
	if (errno || *end || end == s)
		return -1;
	*v = n;
	return 0;
}

/* @n digits at *@p into *@v; advances *@p.  0 on success. */
static int digits(const char **p, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return -1;
		*v = *v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return 0;
}

#define MAX_TIME 253402300799LL /* 9999-12-31T23:59:59Z */

int mdb_parse_time(const char *s, int64_t *t)
{
	struct tm tm = { 0 }, back;
	int y, mo, d, h = 0, mi = 0, sec = 0, oh = 0, om = 0, sign = 0;
	const char *p = s;
	time_t v;

	if (*p == '@' || (*p >= '0' && *p <= '9' && !strchr(p, '-'))) {
		int64_t n;

		if (mdb_parse_int(*p == '@' ? p + 1 : p, &n) || n < 0 ||
		    n > MAX_TIME || p[*p == '@'] == '-' ||
		    p[*p == '@'] == '+')
			return -1;
		*t = n;
		return 0;
	}
	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) ||
	    *p++ != '-' || digits(&p, 2, &d))
		return -1;
	if (*p == 'T' || *p == 't' || *p == ' ') {
		p++;
		if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
			return -1;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &sec))
				return -1;
			if (*p == '.' || *p == ',') /* fractions are dropped */
				for (p++; *p >= '0' && *p <= '9'; p++)
					;
		}
		if (*p == 'Z' || *p == 'z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			sign = *p++ == '-' ? -1 : 1;
			if (digits(&p, 2, &oh))
				return -1;
			if (*p == ':')
				p++;
			if (*p && digits(&p, 2, &om))
				return -1;
			if (oh > 23 || om > 59)
				return -1;
		}
	}
	if (*p || y < 1970 || mo < 1 || mo > 12 || d < 1 || h > 23 ||
	    mi > 59 || sec > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	v = timegm(&tm);
	/* timegm() normalises 2026-02-30 to March: refuse what moved */
	if (v == (time_t)-1 || !gmtime_r(&v, &back) || back.tm_mday != d ||
	    back.tm_mon != mo - 1)
		return -1;
	*t = (int64_t)v - sign * (oh * 3600 + om * 60);
	return *t < 0 || *t > MAX_TIME ? -1 : 0;
}
