// SPDX-License-Identifier: MIT
/*
 * What binary bytes no format claims look like, by their magic: said in
 * refusals and hints (detect.c, the relay reader), so that a core dump or
 * a database given by mistake is named as such.
 */
#include <stdint.h>
#include <string.h>

#include "magic.h"

const char *mdb_looks_like(const void *buf, size_t len)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} known[] = {
		{ "KDUMP   ", 8, "a kdump-compressed core dump (makedumpfile)" },
		{ "makedumpfile", 12, "a flattened makedumpfile core dump" },
		{ "PERFILE2", 8, "a perf.data file" },
		{ "2ELIFREP", 8, "a big-endian perf.data file" },
		{ "PERFFILE", 8, "a perf.data file of an old perf (PERFFILE)" },
		{ "SQLite format 3", 16, "an SQLite database (a memdb "
					 "database? read it with -d)" },
	};
	const uint8_t *p = buf;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (len >= known[i].len && !memcmp(p, known[i].magic,
						   known[i].len))
			return known[i].what;
	if (len >= 18 && !memcmp(p, "\x7f" "ELF", 4))
		return (p[5] == 2 ? p[17] : p[16]) == 4 && !p[p[5] == 2 ? 16 :
							       17] ?
			       "an ELF core file, but not of a Linux kernel "
			       "of a machine memdb reads (x86-64, arm64, i386, "
			       "s390x)" :
			       "an ELF file (a vmlinux or a module?), not a "
			       "trace";
	return NULL;
}
