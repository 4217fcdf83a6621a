/* SPDX-License-Identifier: MIT */
/*
 * Error codes and the error context every library layer fills.
 *
 * ingest/, db/, symbolize/ and queries/ never print and never exit: they
 * return 0 or a negative MDB_E_* code and describe the failure in a
 * struct mdb_error (what, which file, which byte offset or line, detail,
 * hint).  Only cli/ turns that into a message and an exit status.
 */
#ifndef MDB_ERROR_H
#define MDB_ERROR_H

#include <stdarg.h>
#include <stdint.h>

/* One X-macro so the enum and mdb_strerror() never drift apart. */
#define MDB_ERRORS(X)                                                 \
	X(OK, "success")                                              \
	X(NOMEM, "out of memory")                                     \
	X(IO, "input/output error")                                   \
	X(TRUNCATED, "truncated record")                              \
	X(CORRUPT, "corrupt data")                                    \
	X(VERSION, "unsupported version")                             \
	X(ENDIAN, "byte order cannot be determined")                  \
	X(FORMAT, "unrecognised input format")                        \
	X(EMPTY, "no data")                                           \
	X(DB, "database error")                                       \
	X(SCHEMA, "unsupported database schema")                      \
	X(NOTFOUND, "not found")                                      \
	X(INVAL, "invalid argument")                                  \
	X(LIMIT, "limit exceeded")                                    \
	X(NORESOLVER, "nothing to resolve call sites with")            \
	X(ORDER, "events out of time order")                          \
	X(DEPEND, "a library memdb needs cannot be loaded")

enum mdb_errno {
#define MDB_X(name, text) MDB_E_##name,
	MDB_ERRORS(MDB_X)
#undef MDB_X
	MDB_E__COUNT
};

struct mdb_error {
	int code;          /* MDB_E_*, 0 when no error was recorded */
	char file[512];    /* input file concerned, "" when none */
	int64_t offset;    /* byte offset in file, -1 when not applicable */
	int64_t line;      /* 1-based line in file, -1 when not applicable */
	char msg[256];     /* what failed, lowercase, no full stop */
	char detail[256];  /* context as fields: "need=48 have=9" */
	char hint[256];    /* what the user can do, "" when nothing */
};

/* Text of an MDB_E_* code (positive or negative); never NULL. */
const char *mdb_strerror(int code);

/* Reset @e to "no error". */
void mdb_error_clear(struct mdb_error *e);

/*
 * Record an error and return -code, so callers write
 *     return mdb_error_set(e, MDB_E_TRUNCATED, path, off, -1, "need=%u", n);
 * The message is mdb_strerror(code) unless mdb_error_msg() replaces it.
 * @e may be NULL.
 */
int mdb_error_set(struct mdb_error *e, int code, const char *file,
		  int64_t offset, int64_t line, const char *detail_fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Replace the message of the recorded error (printf-style). */
void mdb_error_msg(struct mdb_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Attach a hint to the recorded error (printf-style). */
void mdb_error_hint(struct mdb_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The common case in one call: @e set for @file (offset, line -1 when
 * not applicable) with no detail, message @msg and, when not NULL, hint
 * @hint.  Returns -@code.
 */
int mdb_error_fail(struct mdb_error *e, int code, const char *file,
		   int64_t offset, int64_t line, const char *msg,
		   const char *hint);

/*
 * Format the whole error as one line without prefix or newline:
 *   truncated record in 'cpu1.out': offset=4096 need=48 have=9
 */
void mdb_error_format(const struct mdb_error *e, char *buf, size_t len);

/* Out of memory recorded in @e, no file, offset or detail; -MDB_E_NOMEM. */
int mdb_error_nomem(struct mdb_error *e);

#endif
