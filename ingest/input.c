// SPDX-License-Identifier: MIT
/*
 * Format detection and the generic struct mdb_input interface: a path
 * becomes one source whichever decoder reads it.
 */
#include <stdlib.h>
#include <string.h>

#include "input.h"

void mdb_ingest_opts_init(struct mdb_ingest_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->order = MDB_ORDER_UNKNOWN;
	o->cpu = -1;
}

int mdb_input_open(const char *path, const struct mdb_ingest_opts *o,
		   struct mdb_input **in, struct mdb_error *e)
{
	int ret;

	*in = NULL;
	ret = kt_input_open(path, o, in, e);
	if (ret == 1) {
		mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, NULL);
		mdb_error_msg(e, "no input memdb can read");
		mdb_error_hint(e, "a kmemtrace capture directory holds cpu0, "
				  "cpu1, ... or cpu0.out, cpu1.out, ...");
		return -MDB_E_FORMAT;
	}
	return ret;
}

const struct mdb_source_meta *mdb_input_meta(const struct mdb_input *in)
{
	return &in->meta;
}

int mdb_input_decode(struct mdb_input *in, const struct mdb_sink *sink,
		     struct mdb_decode_stats *st, struct mdb_error *e)
{
	return in->ops->decode(in, sink, st, e);
}

void mdb_input_close(struct mdb_input *in)
{
	if (in)
		in->ops->close(in);
}
