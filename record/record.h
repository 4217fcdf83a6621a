/* SPDX-License-Identifier: MIT */
/*
 * memdb record: capture the kmem tracepoints of this machine as a copy of
 * tracefs, the input `memdb ingest DIR` reads (docs/formats.md §6.3).
 *
 * The trace runs in a tracefs instance of its own (instances/memdb-PID),
 * so the global buffer, current_tracer and the events a user enabled are
 * never touched; removing the instance at the end restores tracefs as it
 * was.  The capture directory holds:
 *   header_page, header_event         the ring-buffer page layout
 *   buffer_subbuf_size_kb             the sub-buffer size, when tracefs has it
 *   events/kmem/EVENT/format          the format of each event recorded
 *   per_cpu/cpuN/trace_pipe_raw       the raw ring-buffer pages of CPU N
 *   per_cpu/cpuN/stats                the instance's counters (overruns)
 *   saved_cmdlines                    pid -> comm, as tracefs kept them
 *   kallsyms, kernel-release          for symbols
 *   slabinfo.before, slabinfo.after   /proc/slabinfo around the trace
 *   allocinfo                         /proc/allocinfo at the end, if any
 * Nothing here prints or exits; cli/cmd_record.c does.
 */
#ifndef MDB_RECORD_H
#define MDB_RECORD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

struct mdb_record_opts {
	const char *outdir;   /* created; must not exist or be empty */
	const char *tracefs;  /* NULL: /sys/kernel/tracing, else debugfs */
	double duration;      /* seconds; 0 = until *stop or the command */
	char *const *command; /* run and trace around it; NULL = none */
	unsigned buffer_kb;   /* per-CPU ring buffer; 0 = 16384 */
	int pages;            /* also the page allocator's events */
	/* set by a signal handler to end the trace early */
	volatile sig_atomic_t *stop;
};

struct mdb_record_result {
	int ncpus;
	uint64_t bytes;         /* raw page bytes written */
	uint64_t overruns;      /* events the ring buffer lost */
	int command_status;     /* the command's exit status, -1 none */
	char events[256];       /* the kmem events enabled, space-separated */
};

int mdb_record(const struct mdb_record_opts *o, struct mdb_record_result *r,
	       struct mdb_error *e);

#endif
