// SPDX-License-Identifier: MIT
/* Private to db/: SQL text shared by the writers; see sqlutil.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlutil.h"

char *mdb_sql_rows(const char *head, int nrows, int ncols, int *len)
{
	size_t cap = strlen(head) + 1 +
		     (size_t)nrows * ((size_t)ncols + 1) * 10;
	char *s = malloc(cap);
	size_t n;

	if (!s)
		return NULL;
	n = (size_t)snprintf(s, cap, "%s", head);
	for (int k = 0; k < nrows; k++) {
		n += (size_t)snprintf(s + n, cap - n, "%s(?1", k ? ", " : "");
		for (int c = 0; c < ncols; c++)
			n += (size_t)snprintf(s + n, cap - n, ", ?%d",
					      2 + k * ncols + c);
		n += (size_t)snprintf(s + n, cap - n, ")");
	}
	if (len)
		*len = (int)n;
	return s;
}
