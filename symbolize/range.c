// SPDX-License-Identifier: MIT
/* Resolving the call sites of a range of sources; see symbolize.h. */
#include <stddef.h>

#include "symbolize.h"

int mdb_symbolize_range(struct mdb_db *db, int64_t lo, int64_t hi,
			const struct mdb_sym_opts *o,
			void (*done)(void *ctx, const struct mdb_sym_result *r),
			void (*skipped)(void *ctx, int64_t id), void *ctx,
			struct mdb_error *e)
{
	for (int64_t id = lo; id <= hi; id++) {
		struct mdb_sym_result r;
		int ret;

		if (lo != hi) {
			int ex = mdb_db_source_exists(db, id, e);

			if (ex <= 0) {
				if (ex < 0)
					return ex;
				continue;
			}
		}
		ret = mdb_symbolize(db, id, o, &r, e);
		if (ret < 0 && lo != hi && e->code == MDB_E_NORESOLVER) {
			if (skipped)
				skipped(ctx, id);
			mdb_error_clear(e);
			continue;
		}
		if (ret < 0)
			return ret;
		if (done)
			done(ctx, &r);
	}
	return 0;
}
