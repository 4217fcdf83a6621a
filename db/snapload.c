// SPDX-License-Identifier: MIT
/*
 * The snapshot loader: writes one statistics snapshot (zones, their
 * per-CPU figures, allocation tags) in one transaction, as the sink its
 * decoder feeds.  Rows are keyed by their position in the input; a zone
 * also gets its instance number (how many earlier rows of its kind share
 * its name), which is what lets the growth report match the second
 * "vm pgcache" of one snapshot with the second of the next.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ingest/snapshot.h"
#include "db.h"
#include "../analysis/dict.h"
#include "sqlutil.h"

#define PROGRESS_EVERY (1u << 14)
#define NKINDS 3
#define NOTE_WARNINGS 4 /* decoder warnings the notes quote, then a count */

struct mdb_snap_load {
	struct mdb_load_head h;   /* first: what every load keeps */
	sqlite3_stmt *ins_zone, *ins_cpu, *ins_tag, *ins_buddy, *ins_cnt;
	struct mdb_snap_sink sink;
	struct mdb_dict names[NKINDS];  /* zone names per kind */
	uint32_t *seen[NKINDS];         /* rows so far per name id - 1 */
	size_t seen_cap[NKINDS];
	int64_t zone_pos, tag_pos, cnt_pos;
	uint64_t zone_cpus;
	char notes[1024];   /* the first decoder warnings, for source.notes */
	uint64_t warnings;
};

static int snap_nomem(struct mdb_snap_load *l)
{
	return mdb_error_nomem(l->h.e);
}

static int step(struct mdb_snap_load *l, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return mdb_db_error(l->h.db, l->h.e, "cannot write to database");
	return 0;
}

static void bind_str(sqlite3_stmt *st, int col, const struct mdb_str *s,
		     int null_if_empty)
{
	if (!s->len && null_if_empty)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_text64(st, col, s->len ? s->p : "", s->len,
				    SQLITE_STATIC, SQLITE_UTF8);
}

/* Rows of kind @kind named @name before this one. */
static int zone_instance(struct mdb_snap_load *l, unsigned kind,
			 const struct mdb_str *name, uint32_t *instance)
{
	int added;
	uint32_t id = mdb_dict_id(&l->names[kind], name, &added);

	if (!id)
		return snap_nomem(l);
	if (id > l->seen_cap[kind]) {
		size_t ncap = l->names[kind].cap;
		uint32_t *n = realloc(l->seen[kind], ncap * sizeof(*n));

		if (!n)
			return snap_nomem(l);
		memset(n + l->seen_cap[kind], 0,
		       (ncap - l->seen_cap[kind]) * sizeof(*n));
		l->seen[kind] = n;
		l->seen_cap[kind] = ncap;
	}
	*instance = l->seen[kind][id - 1]++;
	return 0;
}

static void progress(struct mdb_snap_load *l, uint64_t rows)
{
	if (rows % PROGRESS_EVERY == 0 && l->h.opts.progress)
		l->h.opts.progress(l->h.opts.progress_ctx, rows);
}

/* zone: ?1 source_id ?2 pos ?3 kind ?4 name ?5 instance ?6 input_line
 *       ?7 sizes ?8 approx, then the MDB_ZONE_COLUMNS from ?9 */
#define ZONE_FIXED 8

static int snap_zone(void *ctx, const struct mdb_zone *z)
{
	struct mdb_snap_load *l = ctx;
	sqlite3_stmt *st = l->ins_zone;
	uint32_t instance = 0;
	int ret;

	if (z->kind >= NKINDS) {
		mdb_error_set(l->h.e, MDB_E_INVAL, NULL, -1, -1, "kind=%u",
			      z->kind);
		mdb_error_msg(l->h.e, "unknown zone kind");
		return -MDB_E_INVAL;
	}
	ret = zone_instance(l, z->kind, &z->name, &instance);
	if (ret < 0)
		return ret;
	sqlite3_bind_int64(st, 2, ++l->zone_pos);
	sqlite3_bind_int(st, 3, z->kind);
	bind_str(st, 4, &z->name, 0);
	sqlite3_bind_int64(st, 5, instance);
	bind_opt(st, 6, z->line, z->line < 0);
	bind_str(st, 7, &z->sizes, 1);
	sqlite3_bind_int(st, 8, z->approx);
	for (int c = 0; c < MDB_ZC__COUNT; c++)
		bind_opt(st, ZONE_FIXED + 1 + c, z->v[c], z->v[c] == MDB_NA);
	progress(l, (uint64_t)l->zone_pos);
	return step(l, st);
}

static int snap_zone_cpu(void *ctx, const struct mdb_zone_cpu *c)
{
	struct mdb_snap_load *l = ctx;
	sqlite3_stmt *st = l->ins_cpu;
	const int64_t v[] = { c->allocs, c->frees, c->cache_free,
			      c->mem_alloced, c->mem_freed, c->sizemask };

	if (!l->zone_pos) {
		mdb_error_set(l->h.e, MDB_E_INVAL, NULL, -1, -1, "cpu=%d",
			      c->cpu);
		mdb_error_msg(l->h.e, "per-CPU figures before any zone");
		return -MDB_E_INVAL;
	}
	sqlite3_bind_int64(st, 2, l->zone_pos);
	sqlite3_bind_int(st, 3, c->cpu);
	for (int i = 0; i < (int)(sizeof(v) / sizeof(v[0])); i++)
		bind_opt(st, 4 + i, v[i], v[i] == MDB_NA);
	l->zone_cpus++;
	return step(l, st);
}

static int snap_tag(void *ctx, const struct mdb_tag *t)
{
	struct mdb_snap_load *l = ctx;
	sqlite3_stmt *st = l->ins_tag;

	sqlite3_bind_int64(st, 2, ++l->tag_pos);
	sqlite3_bind_int64(st, 3, t->line);
	sqlite3_bind_int64(st, 4, t->bytes);
	sqlite3_bind_int64(st, 5, t->calls);
	bind_str(st, 6, &t->file, 0);
	sqlite3_bind_int64(st, 7, t->src_line);
	bind_str(st, 8, &t->function, 0);
	bind_str(st, 9, &t->module, 1);
	bind_str(st, 10, &t->extra, 1);
	sqlite3_bind_int(st, 11, t->accurate);
	sqlite3_bind_int(st, 12, t->approx);
	progress(l, (uint64_t)l->tag_pos);
	return step(l, st);
}

static int snap_buddy(void *ctx, const struct mdb_buddy *b)
{
	struct mdb_snap_load *l = ctx;
	sqlite3_stmt *st = l->ins_buddy;

	sqlite3_bind_int(st, 2, b->node);
	bind_str(st, 3, &b->zone, 0);
	sqlite3_bind_int(st, 4, b->order);
	bind_str(st, 5, &b->migratetype, 0);
	sqlite3_bind_int64(st, 6, b->blocks);
	sqlite3_bind_int64(st, 7, b->order < 63 ? b->blocks << b->order : 0);
	bind_opt(st, 8, b->nr_free, b->nr_free == MDB_NA);
	sqlite3_bind_int(st, 9, b->incomplete);
	return step(l, st);
}

static int snap_counter(void *ctx, const struct mdb_counter *c)
{
	struct mdb_snap_load *l = ctx;
	sqlite3_stmt *st = l->ins_cnt;

	sqlite3_bind_int64(st, 2, ++l->cnt_pos);
	sqlite3_bind_text(st, 3, c->scope, -1, SQLITE_STATIC);
	bind_opt(st, 4, c->node, c->node < 0);
	bind_str(st, 5, &c->zone, 1);
	bind_str(st, 6, &c->name, 0);
	sqlite3_bind_int64(st, 7, c->value);
	return step(l, st);
}

/* A decoder's warning: passed on, and kept for the source's notes so
 * that reports say it again. */
static void snap_warn(void *ctx, const struct mdb_error *w)
{
	struct mdb_snap_load *l = ctx;
	size_t n = strlen(l->notes);

	if (l->h.opts.warn)
		l->h.opts.warn(l->h.opts.warn_ctx, w);
	if (l->warnings++ >= NOTE_WARNINGS)
		return;
	if (w->line >= 0)
		snprintf(l->notes + n, sizeof(l->notes) - n, "%sline %lld: %s",
			 n ? "; " : "", (long long)w->line, w->msg);
	else
		snprintf(l->notes + n, sizeof(l->notes) - n, "%s%s",
			 n ? "; " : "", w->msg);
}

static void snap_finalize(struct mdb_snap_load *l)
{
	sqlite3_finalize(l->ins_zone);
	sqlite3_finalize(l->ins_cpu);
	sqlite3_finalize(l->ins_tag);
	sqlite3_finalize(l->ins_buddy);
	sqlite3_finalize(l->ins_cnt);
	l->ins_zone = l->ins_cpu = l->ins_tag = NULL;
	l->ins_buddy = l->ins_cnt = NULL;
}

static void snap_free(struct mdb_snap_load *l)
{
	if (!l)
		return;
	snap_finalize(l);
	for (int k = 0; k < NKINDS; k++) {
		mdb_dict_release(&l->names[k]);
		free(l->seen[k]);
	}
	free(l);
}

void mdb_snap_abort(struct mdb_snap_load *l)
{
	if (!l)
		return;
	snap_finalize(l);
	mdb_db_exec(l->h.db, "ROLLBACK", NULL);
	snap_free(l);
}

const struct mdb_snap_sink *mdb_snap_load_sink(struct mdb_snap_load *l)
{
	return &l->sink;
}

/* INSERT INTO zone (...) VALUES (?1, ...) from the column X-macro. */
static int prepare_zone(struct mdb_snap_load *l)
{
	char sql[1024];
	size_t n;

	n = (size_t)snprintf(sql, sizeof(sql),
			     "INSERT INTO zone (source_id, pos, kind, name, "
			     "instance, input_line, sizes, approx");
	for (int c = 0; c < MDB_ZC__COUNT && n < sizeof(sql); c++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, ", %s",
				      mdb_zone_col_names[c]);
	for (int c = 0; c < ZONE_FIXED + MDB_ZC__COUNT && n < sizeof(sql);
	     c++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s?%d",
				      c ? ", " : ") VALUES (", c + 1);
	if (n + 2 >= sizeof(sql))
		return mdb_error_set(l->h.e, MDB_E_LIMIT, NULL, -1, -1, NULL);
	strcat(sql, ")");
	if (sqlite3_prepare_v2(l->h.db->h, sql, -1, &l->ins_zone, NULL))
		return mdb_db_error(l->h.db, l->h.e, "cannot write to database");
	return 0;
}

int mdb_snap_begin(struct mdb_db *db, const char *path,
		   const struct mdb_source_meta *m,
		   const struct mdb_load_opts *opts, struct mdb_snap_load **out,
		   struct mdb_load_result *res, struct mdb_error *e)
{
	struct mdb_snap_load *l;
	int ret;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return mdb_error_nomem(e);
	l->sink = (struct mdb_snap_sink){
		.ctx = l, .zone = snap_zone, .zone_cpu = snap_zone_cpu,
		.tag = snap_tag, .buddy = snap_buddy,
		.counter = snap_counter, .warn = snap_warn,
	};
	ret = mdb_load_head_begin(&l->h, db, path, m, opts, res, e);
	if (ret != 0) {
		snap_free(l);
		return ret;
	}
	ret = prepare_zone(l);
	if (ret < 0)
		goto fail;
	if (sqlite3_prepare_v2(db->h,
			       "INSERT INTO zone_cpu (source_id, pos, cpu, "
			       "allocs, frees, cache_free, mem_alloced, "
			       "mem_freed, sizemask) VALUES (?1, ?2, ?3, ?4, "
			       "?5, ?6, ?7, ?8, ?9)", -1, &l->ins_cpu, NULL) ||
	    sqlite3_prepare_v2(db->h,
			       "INSERT INTO tag (source_id, pos, input_line, "
			       "bytes, calls, file, lineno, function, module, "
			       "extra, accurate, approx) VALUES (?1, ?2, ?3, "
			       "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", -1,
			       &l->ins_tag, NULL) ||
	    sqlite3_prepare_v2(db->h,
			       "INSERT INTO buddy (source_id, node, zone, "
			       "\"order\", migratetype, blocks, pages, "
			       "nr_free, incomplete) VALUES (?1, ?2, ?3, "
			       "?4, ?5, ?6, ?7, ?8, ?9)", -1, &l->ins_buddy,
			       NULL) ||
	    sqlite3_prepare_v2(db->h,
			       "INSERT INTO kcounter (source_id, pos, scope, "
			       "node, zone, name, value) VALUES (?1, ?2, ?3, "
			       "?4, ?5, ?6, ?7)", -1, &l->ins_cnt, NULL)) {
		ret = mdb_db_error(db, e, "cannot write to database");
		goto fail;
	}
	sqlite3_bind_int64(l->ins_zone, 1, l->h.source_id);
	sqlite3_bind_int64(l->ins_cpu, 1, l->h.source_id);
	sqlite3_bind_int64(l->ins_tag, 1, l->h.source_id);
	sqlite3_bind_int64(l->ins_buddy, 1, l->h.source_id);
	sqlite3_bind_int64(l->ins_cnt, 1, l->h.source_id);
	*out = l;
	return 0;
fail:
	mdb_snap_abort(l);
	return ret;
}

int mdb_snap_commit(struct mdb_snap_load *l, const struct mdb_snap_info *info,
		    struct mdb_load_result *res, struct mdb_error *e)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	l->h.e = e;
	if (l->warnings > NOTE_WARNINGS) {
		size_t n = strlen(l->notes);

		snprintf(l->notes + n, sizeof(l->notes) - n, "; %llu more "
			 "warnings", (unsigned long long)(l->warnings -
							  NOTE_WARNINGS));
	}
	/* the warnings after the notes the input came with */
	if (sqlite3_prepare_v2(l->h.db->h,
			       "UPDATE source SET format_version = ?2, "
			       "records = ?3, notes = coalesce(notes || '; ' "
			       "|| ?4, ?4, notes) WHERE id = ?1", -1, &st,
			       NULL)) {
		ret = mdb_db_error(l->h.db, e, "cannot write to database");
	} else {
		sqlite3_bind_int64(st, 1, l->h.source_id);
		bind_text_or_null(st, 2, info->version);
		bind_u64(st, 3, info->records);
		bind_text_or_null(st, 4, l->notes);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = mdb_db_error(l->h.db, e,
					   "cannot write to database");
	}
	sqlite3_finalize(st);
	if (ret < 0) {
		mdb_snap_abort(l);
		return ret;
	}
	snap_finalize(l);
	ret = mdb_load_head_commit(&l->h, res, e);
	if (ret < 0) {
		snap_free(l);
		return ret;
	}
	res->zones = (uint64_t)l->zone_pos;
	res->zone_cpus = l->zone_cpus;
	res->tags = (uint64_t)l->tag_pos;
	snap_free(l);
	return 0;
}
