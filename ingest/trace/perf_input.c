// SPDX-License-Identifier: MIT
/*
 * perf.data glue for its row of the format table: what the header says
 * goes to the source table (describe()), and the directory `perf record
 * --threads` writes is refused with a message saying so (refuse_dir()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/file.h"
#include "perf_input.h"
#include "perfdata.h"

static int perf_threads_refusal(const char *path, struct mdb_error *e)
{
	mdb_error_set(e, MDB_E_VERSION, path, -1, -1, NULL);
	mdb_error_msg(e, "perf.data of `perf record --threads` (a directory "
			 "of per-thread data files) is not supported");
	mdb_error_hint(e, "record without --threads, or write one file with "
			  "perf inject -i DIR -o FILE");
	return -MDB_E_VERSION;
}

int mdb_perf_input_describe(const void *buf, size_t len, struct mdb_decode_opts *o,
			    struct mdb_source_meta *m, struct mdb_error *e)
{
	struct perf_info pi;
	int ret = mdb_perf_describe(buf, len, o->name, &pi, e);

	if (ret < 0)
		return ret;
	if (pi.dir_format)
		return perf_threads_refusal(o->name, e);
	m->order = pi.order;
	m->ncpus = pi.ncpus;
	m->data_bytes = pi.data_bytes;
	m->unknown_what = "samples of other events";
	snprintf(m->kernel_release, sizeof(m->kernel_release), "%s",
		 pi.release);
	_Static_assert(sizeof(pi.cpu_node) <= sizeof(m->cpu_node),
		       "the CPU-node map fits the source's");
	memcpy(m->cpu_node, pi.cpu_node, sizeof(pi.cpu_node));
	if (pi.numa_bad[0] && o->warn) {
		struct mdb_error w;

		mdb_error_clear(&w);
		mdb_error_set(&w, MDB_E_CORRUPT, o->name, (int64_t)pi.numa_off,
			      -1, NULL);
		mdb_error_msg(&w, "NUMA topology not read (%s): cross-CPU "
			      "allocations unknown", pi.numa_bad);
		o->warn(o->warn_ctx, &w);
	}
	return 0;
}

int mdb_perf_threads_dir(const char *dir, struct mdb_error *e)
{
	char *data = mdb_path_join(dir, "data");
	struct mdb_map m = { 0 };
	struct mdb_error ign;
	int ours;

	if (!data)
		return mdb_error_set(e, MDB_E_NOMEM, dir, -1, -1, NULL);
	ours = mdb_map_file(data, &m, &ign) == 0 && mdb_perf_probe(m.data, m.len);
	mdb_unmap(&m);
	free(data);
	return ours ? perf_threads_refusal(dir, e) : 0;
}
