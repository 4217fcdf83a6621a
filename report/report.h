/* SPDX-License-Identifier: MIT */
/*
 * The report engine: a canned report (queries.h) chosen by name, its
 * variant by --by, its options checked against what its header declares
 * and its SQL uses, its statements prepared, bound and run; the rows go
 * to a callback.  It never prints: cli/ parses the command line with the
 * table of mdb_report_params() and renders what the callback receives.
 *
 * A report option is declared once, as a row of that table (params.c):
 * the row gives its name and argument for the command line and the usage
 * text, how its value is read, which SQL parameter it binds and when a
 * report takes it.
 */
#ifndef MDB_REPORT_H
#define MDB_REPORT_H

#include <sqlite3.h>
#include <stdint.h>

#include "../common/error.h"
#include "../db/db.h"
#include "queries.h"

/* The parameter of the SQL that passes the selections (--time and the
 * filters) to slab_scan, as queries/_shared.sql's @scan does: a report
 * takes them when its SQL has it. */
#define MDB_SEL_PARAM ":tsel"

/*
 * The call sites --site SYMBOL|ADDRESS names, as a condition on v_sites
 * with the option's text bound to :site: the address (0x... or without
 * 0x), the symbol as the reports print it (function+0xoff), or the
 * function alone.  report/scan.c selects --site's sites with it.
 */
#define MDB_SITE_MATCH \
	"call_site = lower(:site) OR call_site = '0x' || lower(:site) OR " \
	"symbol = :site OR substr(symbol, 1, length(:site) + 1) IN " \
	"(:site || '+', :site || '/', :site || ' ')"

enum mdb_rparam_kind {
	/* one of the values the report declares in its header line
	 * "-- OPT: a|b" (the first is the default), bound as text; a report
	 * without that line takes no --OPT */
	MDB_RP_CHOICE,
	/* an integer from lo to hi; def is bound when not given */
	MDB_RP_INT,
	/* a duration ("5s", "250ms", "2m"; a bare number is seconds) in ns,
	 * bound only when given; needs timestamps */
	MDB_RP_DURATION,
	/* a position (seq), or seconds with an 's' suffix ("1778.25s") in
	 * ns bound to alt instead (which needs timestamps); only when given */
	MDB_RP_POINT,
	/* a file read into the database by load(); binds 1 when given,
	 * else 0 */
	MDB_RP_FILE,
	/* keys, comma-separated, of the report's header line
	 * "-- OPT: key=expr|key|..." (a bare key is a column of that name);
	 * the default is "-- OPT-default: k1,k2", else the first key.  The
	 * marker @OPT in the SQL becomes "expr DESC, ..." of the keys; the
	 * first key's name is bound to param (reports ordering by CASE) */
	MDB_RP_SORT,
	/* "START,END" in seconds as the trace prints them, both ends
	 * included, either end empty; param binds START in ns (INT64_MIN
	 * when empty), alt END (INT64_MAX), given or not; needs timestamps */
	MDB_RP_WINDOW,
	/* text, bound when given (else NULL) */
	MDB_RP_TEXT,
};

struct mdb_rparam {
	const char *opt;       /* the option is --opt */
	const char *arg;       /* its argument in the usage text */
	enum mdb_rparam_kind kind;
	const char *param;     /* SQL parameter bound; outside MDB_RP_CHOICE a
				* report takes the option when its SQL uses it */
	const char *alt;       /* MDB_RP_POINT: the parameter a time binds;
				* MDB_RP_INT: a date (Unix seconds) binds
				* it instead, the option taken by a report
				* using either */
	int64_t lo, hi, def;   /* MDB_RP_INT */
	int variants;          /* MDB_RP_CHOICE: report NAME@value, when there
				* is one, is what runs for the value */
	int labels;            /* MDB_RP_INT: a source id, or else a source
				* label (mdb_rarg.label, v 0: cli/ finds
				* the source) */
	const char *timed;     /* MDB_RP_CHOICE: a value that needs
				* timestamps */
	const char *setup;     /* SQL run before every report (the temp
				* table load() fills) */
	int (*load)(struct mdb_db *db, const char *path,
		    struct mdb_error *e);
	const char *takes;     /* "--OPT takes TAKES, not 'x'" */
	const char *title;     /* added to the report's title when given;
				* "%v" stands for the value */
	int sel;               /* a selection of allocations: slab_scan's
				* argument (report/scan.c, the fragment
				* @scan passes it); a report takes it when
				* it passes them (MDB_SEL_PARAM) */
	const char *needs;     /* a column of alloc that some row of the
				* sources must have (not NULL) for the
				* option to mean anything */
	const char *needs_what; /* what that column is, for the message */
	const char *help;      /* usage text, without the reports that take
				* it (those are derived) */
};

#define MDB_RP_MAX 16

/* The report options, in the order the usage text lists them. */
const struct mdb_rparam *mdb_report_params(size_t *n);

/* The option's value as given on the command line. */
struct mdb_rarg {
	const char *text; /* NULL when not given */
	int64_t v;        /* parsed value (MDB_RP_INT: def when not given;
			   * MDB_RP_WINDOW: the start) */
	int64_t v2;       /* MDB_RP_WINDOW: the end */
	int time;         /* MDB_RP_POINT: given as a time; MDB_RP_INT
			   * with .alt: given as a date */
	int label;        /* .labels: given as a label (text), v is 0 */
};

struct mdb_report_args {
	struct mdb_rarg a[MDB_RP_MAX]; /* as mdb_report_params() */
	int64_t src_lo, src_hi;        /* sources covered: :src_lo, :src_hi */
	int64_t top;                   /* rows, 0 for all: :top */
	int fleet;                     /* :fleet, 1 when the report covers
					* each label's latest source (--label
					* without --source) instead of the
					* range */
};

/* No option given: defaults everywhere. */
void mdb_report_args_init(struct mdb_report_args *a);

/* The option called @opt ("from"), or NULL. */
struct mdb_rarg *mdb_report_arg(struct mdb_report_args *a, const char *opt);

/*
 * Read @s as the value of option @i.  0, or -MDB_E_INVAL with the usage
 * message ("--buckets takes 1 to 4096, not '0'") in @e->msg.
 */
int mdb_report_arg_parse(struct mdb_report_args *a, size_t i, const char *s,
			 struct mdb_error *e);

/* A report ready to run: what runs and with which values. */
struct mdb_report {
	const struct mdb_query *named; /* the report as named */
	const struct mdb_query *q;     /* what runs: a variant, or @named */
	struct mdb_report_args args;
	char *value[MDB_RP_MAX];       /* MDB_RP_CHOICE, MDB_RP_SORT: given
					* or default */
	char *sql;                     /* q's SQL, @sort expanded */
	char *setup_sql;               /* a variant with '-- setup:': its
					* report's SQL, expanded too */
	char *order;                   /* what @sort becomes */
	int selected;                  /* an option with .sel given: bound
					* to :sel (1, else 0) */
	int windowed;                  /* a window (--time) given: :tsel */
	int timed;                     /* option needing timestamps, or -1 */
	int fleet;                     /* the fleet form (ClickHouse) */
};

/*
 * Choose report @name and its variant for @a, and check every option
 * given is one the report takes.  No database needed.  0, or
 * -MDB_E_INVAL with the usage message in @e->msg.  mdb_report_release()
 * afterwards in either case.
 */
int mdb_report_plan(struct mdb_report *r, const char *name,
		    const struct mdb_report_args *a, struct mdb_error *e);

/*
 * mdb_report_plan() of the fleet form of report @name (its SQL over the
 * ClickHouse tables, queries/fleet/), which mdb_report_run_fleet()
 * runs.
 */
int mdb_report_plan_fleet(struct mdb_report *r, const char *name,
			  const struct mdb_report_args *a,
			  struct mdb_error *e);

/* Does what runs use the SQL parameter @param? */
int mdb_report_uses(const struct mdb_report *r, const char *param);

/*
 * The checks that need the database (scope "one source", timestamps for
 * the options that need them).  0, -MDB_E_INVAL with the usage message,
 * or another error.
 */
int mdb_report_check(struct mdb_db *db, const struct mdb_report *r,
		     struct mdb_error *e);

/*
 * The name and the options that change what the report shows ("leaks
 * (at a point)", "allocinfo --by module"), malloc'ed; NULL when out of
 * memory.
 */
char *mdb_report_head(const struct mdb_report *r);

/*
 * Receives the report's rows statement and, when the report has one, the
 * statement of its 'total' row (else NULL), both bound and not yet
 * stepped.  Returns 0 or a negative MDB_E_* code with @e filled.
 */
typedef int (*mdb_report_emit_fn)(void *ctx, sqlite3_stmt *rows,
				  sqlite3_stmt *total, struct mdb_error *e);

/*
 * Run @r on @db: the options' set-up and files, then the report's
 * statements in order.  Leading statements that return no columns are
 * set-up (e.g. a temp table both the rows and the total read, so a scan
 * runs once); the next is the rows statement, the one after it the total.
 * A variant whose header says "-- setup: NAME" runs the set-up of report
 * NAME (its own) first, so the variants can share the figures it computes
 * and only name their columns; it takes the options that set-up uses.
 * Returns what @emit returned, or a negative MDB_E_* code.
 */
int mdb_report_run(struct mdb_db *db, const struct mdb_report *r,
		   mdb_report_emit_fn emit, void *ctx, struct mdb_error *e);

struct mdb_ch;

/* Who a fleet report read: its last statement's one row. */
struct mdb_fleet_scope {
	int64_t labels, sources;
	char first[32], last[32]; /* taken_at of the oldest and newest */
};

/*
 * Run the fleet form @r on ClickHouse @ch: each statement (the rows, the
 * total, then the scope: labels, sources, first and last taken_at) with
 * the option values as literals, its results loaded into an in-memory
 * SQLite table, whose statements @emit receives as from
 * mdb_report_run(); the scope into @scope.  An empty fleet is
 * MDB_E_EMPTY.
 */
int mdb_report_run_fleet(struct mdb_ch *ch, const struct mdb_report *r,
			 mdb_report_emit_fn emit, void *ctx,
			 struct mdb_fleet_scope *scope, struct mdb_error *e);

/*
 * The value of the SQL parameter @name (":top") for @r, as the engine
 * binds it: MDB_PV_INT (*@iv), MDB_PV_TEXT (*@text, valid while @r is),
 * MDB_PV_NULL, or MDB_PV_UNKNOWN for a name no option or built-in has.
 */
enum { MDB_PV_UNKNOWN = -1, MDB_PV_NULL, MDB_PV_INT, MDB_PV_TEXT };

int mdb_report_param(const struct mdb_report *r, const char *name,
		     int64_t *iv, const char **text);

void mdb_report_release(struct mdb_report *r);

#endif
