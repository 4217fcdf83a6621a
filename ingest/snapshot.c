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

int mdb_snap_bad_line(struct mdb_error *e, const char *name, int64_t no,
		      const char *format, const char *what,
		      struct mdb_str got)
{
	char shown[64];

	mdb_error_set(e, MDB_E_CORRUPT, name, -1, no, "expected=%s got='%s'",
		      what, mdb_str_show(got, shown, sizeof(shown)));
	mdb_error_msg(e, "malformed %s line", format);
	return -MDB_E_CORRUPT;
}

int mdb_snap_text_decode(const struct mdb_snap_text *f, const void *buf,
			 size_t len, const char *name,
			 const struct mdb_snap_sink *sink,
			 struct mdb_snap_info *info, struct mdb_error *e)
{
	const char *format = f->rule.format, *what;
	union mdb_snap_row r;
	struct mdb_lines l;
	struct mdb_str s, got;
	int more, ret;

	mdb_snap_lines_init(&l, buf, len, info);
	while ((more = mdb_lines_content(&l, &s, &info->records))) {
		if (more < 0)
			return mdb_snap_bad_line(e, name, l.no, format, "text",
						 mdb_str_make(s.p, 0));
		if (mdb_str_starts(s, f->rule.prefix) && !info->zones &&
		    !info->tags && !info->version[0]) {
			ret = mdb_version_header(s, &f->rule, name, l.no,
						 info->version,
						 sizeof(info->version), e);
			if (ret < 0)
				return ret;
			if (l.cut)
				goto cut;
			continue;
		}
		if (f->parse(s, &r, &what, &got) < 0)
			return mdb_snap_bad_line(e, name, l.no, format, what,
						 got);
		if (l.cut)
			goto cut;
		ret = f->take(&r, s, l.no, name, sink, info);
		if (ret < 0)
			return ret;
	}
	if (!info->zones && !info->tags)
		return mdb_snap_no_rows(e, name, info, f->none);
	return 0;
cut:
	/* the input ends without its newline: the line's last field may
	 * be cut short (text.h) */
	return mdb_snap_bad_line(e, name, l.no, format, MDB_CUT_WHAT, s);
}
