/* SPDX-License-Identifier: MIT */
/*
 * Where the traced kernel's modules were: a /proc/modules snapshot (name,
 * size, load address) and a sections snapshot (the address of each
 * section, as read from /sys/module/NAME/sections/SECTION), and where
 * their .ko files are on this machine.
 *
 * /proc/modules lines:  NAME SIZE REFCOUNT DEPS STATE ADDRESS [TAINT]
 * sections lines:       NAME SECTION ADDRESS
 *                   or  /sys/module/NAME/sections/SECTION:ADDRESS
 *                       (what 'grep -r . /sys/module/\*\/sections' prints)
 * Module names compare with '-' and '_' equal, as the kernel's do.
 */
#ifndef MDB_SYM_MODULES_H
#define MDB_SYM_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

struct kmod_sec {
	char *name;
	uint64_t addr;
};

struct kmod {
	char *name;
	uint64_t base, size; /* from /proc/modules */
	int has_base;
	struct kmod_sec *secs; /* from the sections snapshot */
	size_t nsecs, sec_cap;
};

struct kmods {
	struct kmod *v;
	size_t n, cap;
};

/*
 * Parse a /proc/modules or sections snapshot into @m (which may already
 * hold the other).  A malformed line is an error naming it; so is a
 * snapshot whose addresses are all zero (read without privilege).
 */
int mdb_kmods_parse_proc(struct kmods *m, const char *buf, size_t len,
			 const char *fname, struct mdb_error *e);
int mdb_kmods_parse_sections(struct kmods *m, const char *buf, size_t len,
			     const char *fname, struct mdb_error *e);

void mdb_kmods_release(struct kmods *m);

/* 1 when module names @a and @b are the same ('-' = '_'). */
int mdb_kmod_name_eq(const char *a, const char *b);

/* The .ko files under a directory, by module name. */
struct ko_index {
	struct ko_ent {
		char *name; /* normalized: '-' as '_' */
		char *path;
	} *v;
	size_t n, cap;
};

/*
 * Find NAME.ko, NAME.ko.xz, NAME.ko.zst, NAME.ko.gz files under @dir,
 * recursively (symbolic links to directories are not followed).  Of two
 * files for one module the uncompressed one, then the first path in
 * byte order, is used.
 */
int mdb_ko_index_build(struct ko_index *x, const char *dir, struct mdb_error *e);

/* Path of module @name's file, NULL when there is none. */
const char *mdb_ko_index_find(const struct ko_index *x, const char *name);

void mdb_ko_index_release(struct ko_index *x);

#endif
