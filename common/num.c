// SPDX-License-Identifier: MIT
/* See num.h. */
#include <errno.h>
#include <stdlib.h>

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
