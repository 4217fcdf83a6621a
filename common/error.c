// SPDX-License-Identifier: MIT
/* Error context helpers; see error.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static const char *const mdb_errstr[] = {
#define MDB_X(name, text) [MDB_E_##name] = text,
	MDB_ERRORS(MDB_X)
#undef MDB_X
};

const char *mdb_strerror(int code)
{
	if (code < 0)
		code = -code;
	if (code >= MDB_E__COUNT)
		return "unknown error";
	return mdb_errstr[code];
}

void mdb_error_clear(struct mdb_error *e)
{
	if (!e)
		return;
	memset(e, 0, sizeof(*e));
	e->offset = -1;
	e->line = -1;
}

int mdb_error_set(struct mdb_error *e, int code, const char *file,
		  int64_t offset, int64_t line, const char *detail_fmt, ...)
{
	va_list ap;

	if (code < 0)
		code = -code;
	if (!e)
		return -code;
	mdb_error_clear(e);
	e->code = code;
	e->offset = offset;
	e->line = line;
	if (file)
		snprintf(e->file, sizeof(e->file), "%s", file);
	snprintf(e->msg, sizeof(e->msg), "%s", mdb_strerror(code));
	if (detail_fmt) {
		va_start(ap, detail_fmt);
		vsnprintf(e->detail, sizeof(e->detail), detail_fmt, ap);
		va_end(ap);
	}
	return -code;
}

void mdb_error_msg(struct mdb_error *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

void mdb_error_hint(struct mdb_error *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->hint, sizeof(e->hint), fmt, ap);
	va_end(ap);
}

void mdb_error_format(const struct mdb_error *e, char *buf, size_t len)
{
	size_t n = 0;

#define APPEND(...)                                                          \
	do {                                                                 \
		if (n < len) {                                               \
			int r_ = snprintf(buf + n, len - n, __VA_ARGS__);    \
			if (r_ > 0)                                          \
				n += (size_t)r_;                             \
		}                                                            \
	} while (0)

	if (!len)
		return;
	buf[0] = '\0';
	APPEND("%s", e->msg[0] ? e->msg : mdb_strerror(e->code));
	if (e->file[0])
		APPEND(" in '%s'", e->file);
	if (e->offset >= 0 || e->line >= 0 || e->detail[0])
		APPEND(":");
	if (e->offset >= 0)
		APPEND(" offset=%" PRId64, e->offset);
	if (e->line >= 0)
		APPEND(" line=%" PRId64, e->line);
	if (e->detail[0])
		APPEND(" %s", e->detail);
#undef APPEND
}

int mdb_error_fail(struct mdb_error *e, int code, const char *file,
		   int64_t offset, int64_t line, const char *msg,
		   const char *hint)
{
	mdb_error_set(e, code, file, offset, line, NULL);
	mdb_error_msg(e, "%s", msg);
	if (hint)
		mdb_error_hint(e, "%s", hint);
	return -code;
}

int mdb_error_nomem(struct mdb_error *e)
{
	return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
}
