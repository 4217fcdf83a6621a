// SPDX-License-Identifier: MIT
/*
 * The format table: every format memdb reads, in detection order, and
 * everything the rest of memdb asks about a format, read from its row.
 *
 * Detection (detect.c) runs the rows' probes in order.  One-file formats
 * look at the file's first bytes (a binary header, a header line, or the
 * shape of the first row); capture-directory formats say whether a
 * directory is theirs (capture.c).  The first that claims the input
 * reads it; `--format NAME` skips the probes.
 */
#include <string.h>

#include "formats.h"
#include "snapshot.h"
#include "trace/ftrace.h"
#include "trace/kmemtrace.h"
#include "trace/kt_capture.h"
#include "trace/kt_ftrace.h"
#include "trace/perf_input.h"
#include "trace/perfdata.h"
#include "trace/tracedat.h"
#include "trace/tracefs.h"
#include "vmcore/vminput.h"

static int memstat_describe(const void *buf, size_t len,
			    struct mdb_decode_opts *o,
			    struct mdb_source_meta *m, struct mdb_error *e)
{
	uint32_t version, maxcpus, count;

	(void)o;
	(void)e;
	if (mdb_memstat_header(buf, len, &m->order, &version, &maxcpus,
			       &count))
		m->ncpus = (int)maxcpus;
	return 0;
}

/* Text no format above claimed (no NUL, no control bytes). */
static int text_probe(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t n = len < MDB_TEXT_PROBE_BYTES ? len : MDB_TEXT_PROBE_BYTES;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 && p[i] != '\n' && p[i] != '\t' &&
		    p[i] != '\r' && p[i] != '\f' && p[i] != '\v')
			return 0;
	return 1;
}

#define KMEM_HINT                                                        \
	"enable the kmem:kmalloc, kmem:kfree, kmem:kmem_cache_alloc, "   \
	"kmem:kmem_cache_free (and kmem:mm_page_*) events before tracing"

/*
 * Every format memdb reads, in detection order.  Adding a format is one
 * decoder file (with its header, included above) and one row here.
 */
static const struct mdb_format formats[] = {
	/* perf.data: the PERFILE2 magic, either byte order */
	{ .name = PERF_FORMAT, .probe = mdb_perf_probe, .decode = mdb_perf_decode,
	  .prepare = mdb_perf_prepare, .unprepare = mdb_perf_unprepare,
	  .describe = mdb_perf_input_describe, .refuse_dir = mdb_perf_threads_dir,
	  .empty_hint = KMEM_HINT,
	  .help = "what perf kmem record (--page) or perf record -e "
		  "kmem:... writes: a perf.data file of either byte order, "
		  "also from perf record -g, -z (zstd records) and -o - "
		  "(pipe mode)" },
	/* trace-cmd's trace.dat: its magic; libtracecmd reads it */
	{ .name = "trace-dat", .probe = mdb_tdat_probe,
	  .open_file = mdb_tdat_input_open,
	  .help = "what trace-cmd record writes (trace.dat, versions 6 "
		  "and 7) with the kmem events, read through libtracecmd" },
	/* Linux kernel core dumps: ELF core, KDUMP signature, flattened */
	{ .name = VM_FORMAT, .probe = mdb_vm_probe, .open_file = mdb_vm_input_open,
	  .flags = MDB_FMT_SNAPSHOT,
	  .help = "a Linux kernel core dump (x86-64, arm64, i386, s390x): "
		  "ELF (kdump's "
		  "/proc/vmcore, QEMU dump-guest-memory), kdump-compressed "
		  "or flattened (makedumpfile); needs --kallsyms (the boot's "
		  "System.map or /proc/kallsyms); slab caches, buddy free "
		  "lists, vm_stat counters and 6.10+ alloc tags "
		  "(/proc/allocinfo), read through libkdumpfile with the "
		  "kernel's own BTF (or --btf FILE)" },
	/* binary snapshot streams: a version word, counts that match the
	 * file's length */
	{ .name = "memstat-uma", .probe = mdb_memstat_uma_probe,
	  .decode_snap = mdb_memstat_uma_decode,
	  .describe = memstat_describe,
	  .help = "FreeBSD 'sysctl -b vm.zone_stats' (either byte order)" },
	{ .name = "memstat-malloc", .probe = mdb_memstat_malloc_probe,
	  .decode_snap = mdb_memstat_malloc_decode,
	  .describe = memstat_describe,
	  .help = "FreeBSD 'sysctl -b kern.malloc_stats'" },
	/* text snapshots: a header line, else the first row's shape */
	{ .name = "vmstat-json", .probe = mdb_vmstat_json_probe,
	  .decode_snap = mdb_vmstat_json_decode,
	  .help = "'vmstat -z' or 'vmstat -m' with --libxo json" },
	{ .name = "allocinfo", .probe = mdb_allocinfo_probe,
	  .decode_snap = mdb_allocinfo_decode,
	  .help = "Linux /proc/allocinfo, versions 1.x and 2.x, with or "
		  "without its header, sizes humanized by numfmt or not" },
	{ .name = "slabinfo", .probe = mdb_slabinfo_probe,
	  .decode_snap = mdb_slabinfo_decode,
	  .help = "Linux /proc/slabinfo 2.x, with or without its header" },
	{ .name = "vmstat-z", .probe = mdb_vmstat_z_probe,
	  .decode_snap = mdb_vmstat_z_decode,
	  .help = "FreeBSD 'vmstat -z' text, live or from a core dump "
		  "(vmstat -M vmcore -N kernel -z), any header variant, or a "
		  "headerless excerpt" },
	{ .name = "vmstat-m", .probe = mdb_vmstat_m_probe,
	  .decode_snap = mdb_vmstat_m_decode,
	  .help = "FreeBSD 'vmstat -m' text, the same way" },
	/* text event traces: ftrace, perf script, trace-cmd report */
	{ .name = "ftrace-text", .probe = mdb_ft_probe, .decode = mdb_ft_decode,
	  .describe = mdb_ft_describe,
	  .flags = MDB_FMT_KSYMS | MDB_FMT_DIR_TEXT | MDB_FMT_RELAY,
	  .empty_hint = KMEM_HINT,
	  .help = "the kmem tracepoints as text: what cat trace, "
		  "trace_pipe, perf script or trace-cmd report print, from any "
		  "kernel since 2.6.30; a file, or a capture directory holding "
		  "one (trace, trace_pipe, *.txt, *.trace) and optionally the "
		  "boot's kallsyms" },
	/* any other text file: not recognised, so the binary trace readers
	 * below do not misjudge it */
	{ .name = NULL, .probe = text_probe },
	/* the ftrace-era kmemtrace tracer's binary: exact record sizes */
	{ .name = "kmemtrace-ftrace", .probe = mdb_ktf_probe, .decode = mdb_ktf_decode,
	  .describe = mdb_ktf_describe, .all_paths_before = { 4, 2 },
	  .help = "the binary of the 2.6.30-2.6.34 kmemtrace tracer, "
		  "either word size and byte order, with or without the ftrace "
		  "'bin' prefix" },
	/* a copy of tracefs: a directory (memdb record) */
	{ .name = "tracefs", .open = mdb_tfs_input_open,
	  .is_capture = mdb_tfs_is_capture,
	  .help = "a copy of tracefs as 'memdb record' writes it: the "
		  "per-CPU ring-buffer pages (trace_pipe_raw), the page header "
		  "and the formats of the kmem events, optionally the boot's "
		  "kallsyms" },
	/* kmemtrace relay: a capture directory, a lone file whose records
	 * read as relay records, or one named cpuN */
	{ .name = "kmemtrace-relay", .probe = mdb_kt_probe, .decode = mdb_kt_decode,
	  .describe = mdb_kt_describe, .open = mdb_kt_input_open,
	  .is_capture = mdb_kt_is_capture, .claims_name = mdb_kt_is_cpu_file,
	  .all_paths_before = { 4, 2 },
	  .flags = MDB_FMT_NO_MAGIC | MDB_FMT_RELAY,
	  .help = "a kmemtrace relay capture: a directory holding one "
		  "file per CPU (cpu0, cpu1, ... as in debugfs, or cpu0.out, ... "
		  "as the kmemtrace logger saved them) and, when present, "
		  "abi_version and total_overruns; or a single per-CPU file.  "
		  "Empty per-CPU files (idle CPUs) are normal." },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const char *const *mdb_input_formats(void)
{
	static const char *names[NFORMATS + 1];

	if (!names[0]) {
		size_t n = 0;

		for (size_t i = 0; i < NFORMATS; i++)
			if (formats[i].name)
				names[n++] = formats[i].name;
	}
	return names;
}

const char *mdb_input_format_help(const char *name)
{
	const struct mdb_format *f = mdb_format_find(name);

	return f ? f->help : NULL;
}

const struct mdb_format *mdb_format_find(const char *name)
{
	for (size_t i = 0; name && i < NFORMATS; i++)
		if (formats[i].name && !strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

const struct mdb_format *mdb_format_table(size_t *n)
{
	*n = NFORMATS;
	return formats;
}

int mdb_format_is_snapshot(const char *format)
{
	const struct mdb_format *f = mdb_format_find(format);

	return f && (f->decode_snap || (f->flags & MDB_FMT_SNAPSHOT));
}

int mdb_format_all_paths_before(const char *format,
				struct mdb_kernel_version *before)
{
	const struct mdb_format *f = mdb_format_find(format);

	if (!f || !f->all_paths_before.major)
		return 0;
	*before = f->all_paths_before;
	return 1;
}
