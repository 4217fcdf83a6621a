// SPDX-License-Identifier: MIT
/* Helpers shared by the snapshot decoders; see snapshot.h. */
#include <string.h>

#include "snapshot.h"

const char *const mdb_zone_col_names[MDB_ZC__COUNT] = {
#define MDB_X(id, col) [MDB_ZC_##id] = #col,
	MDB_ZONE_COLUMNS(MDB_X)
#undef MDB_X
};

void mdb_zone_init(struct mdb_zone *z, enum mdb_zone_kind kind)
{
	memset(z, 0, sizeof(*z));
	z->kind = (uint8_t)kind;
	z->line = -1;
	for (int i = 0; i < MDB_ZC__COUNT; i++)
		z->v[i] = MDB_NA;
}

int mdb_snap_no_rows(struct mdb_error *e, const char *name,
		     const struct mdb_snap_info *info, const char *what)
{
	mdb_error_set(e, MDB_E_EMPTY, name, -1, -1, "lines=%llu",
		      (unsigned long long)info->records);
	mdb_error_msg(e, "%s", what);
	return -MDB_E_EMPTY;
}

void mdb_snap_lines_init(struct mdb_lines *l, const void *buf, size_t len,
			 struct mdb_snap_info *info)
{
	memset(info, 0, sizeof(*info));
	mdb_lines_init(l, buf, len);
}

int mdb_snap_version(const struct mdb_lines *l, struct mdb_str s,
		     const struct mdb_version_rule *rule, const char *name,
		     struct mdb_snap_info *info, struct mdb_error *e)
{
	int ret = mdb_version_header(s, rule, name, l->no, info->version,
				     sizeof(info->version), e);

	if (ret < 0)
		return ret;
	return l->cut ? 1 : 0;
}
