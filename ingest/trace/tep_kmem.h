/* SPDX-License-Identifier: MIT */
/*
 * The kmem tracepoints read by field name, with the event formats a
 * capture carries (tracefs format files, the tracing data of a perf.data
 * or a trace.dat) parsed by libtraceevent: kmalloc, kfree,
 * kmem_cache_alloc, kmem_cache_free, mm_page_alloc, mm_page_free and the
 * names older kernels gave them (docs/formats.md §3, §6.3).
 *
 * Field offsets and sizes come from the formats, never from memdb; every
 * field is checked to lie inside the record before it is read.
 */
#ifndef MDB_TEP_KMEM_H
#define MDB_TEP_KMEM_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/error.h"
#include "../event.h"

struct tep_handle;
struct tep_kmem_def;
struct tep_format_field;

struct tep_kmem {
	struct tep_handle *tep;
	struct tep_kmem_def *defs; /* one per kmem event the formats have */
	size_t ndefs;
	uint64_t page_size;        /* bytes per page of page events */
	int swap;                  /* the capture's byte order is not ours */
	struct tep_format_field *type_field, *pid_field; /* common_* */
};

/*
 * Find the kmem events among the formats @tep holds.  Returns 0, or
 * -MDB_E_FORMAT (with @e naming @name) when there is none.
 */
int mdb_tep_kmem_init(struct tep_kmem *k, struct tep_handle *tep,
		      uint64_t page_size, const char *name, struct mdb_error *e);
void mdb_tep_kmem_release(struct tep_kmem *k);

/* The name of kmem event @i memdb reads ("kmalloc", ...), NULL past the
 * last: the formats a capture must carry. */
const char *mdb_tep_kmem_name(size_t i);

/*
 * Decode the tracepoint payload @data of @size bytes into @ev (kind,
 * type, call site, pointer, sizes, gfp, node, cache name, migratetype,
 * pid from common_pid; a page free's size in bytes_alloc; seq, ts, cpu,
 * comm and stack are the caller's).  Returns 1 for a kmem event, 0 for
 * another event, -1 when a field lies outside the record (malformed).
 */
int mdb_tep_kmem_event(const struct tep_kmem *k, const void *data, size_t size,
		       struct mdb_event *ev);

/*
 * Hand libtraceevent the event format of @len bytes at @buf (system
 * @sys), the guarded way: the print format is cut off (memdb reads
 * none), and the field list is checked line by line first (libtraceevent
 * 1.7.1 leaks on malformed ones; testdata/libtraceevent/README.md).
 * Returns 0, 1 when the format is malformed (not handed over), -1 when
 * libtraceevent refuses it.
 */
int mdb_tep_kmem_parse_format(struct tep_handle *tep, const char *buf,
			      size_t len, const char *sys);

/*
 * Is the field list of the event format at @buf (up to its print fmt)
 * as the kernel writes it (the check mdb_tep_kmem_parse_format makes)?
 */
int mdb_tep_kmem_fields_ok(const char *buf, size_t len);

#endif
