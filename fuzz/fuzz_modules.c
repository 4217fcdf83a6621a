// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the /proc/modules and module sections snapshot
 * readers of symbolize/.  The first byte says which reader sees the rest
 * first; the other then reads the same bytes into the same table.
 */
#include <stdint.h>
#include <string.h>

#include "../symbolize/modules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmods m;
	struct mdb_error e;
	const char *buf;

	if (!size)
		return 0;
	buf = (const char *)data + 1;
	memset(&m, 0, sizeof(m));
	if (data[0] & 1) {
		mdb_kmods_parse_sections(&m, buf, size - 1, "sections", &e);
		mdb_kmods_parse_proc(&m, buf, size - 1, "modules", &e);
	} else {
		mdb_kmods_parse_proc(&m, buf, size - 1, "modules", &e);
		mdb_kmods_parse_sections(&m, buf, size - 1, "sections", &e);
	}
	for (size_t i = 1; i < m.n; i++)
		mdb_kmod_name_eq(m.v[i - 1].name, m.v[i].name);
	mdb_kmods_release(&m);
	return 0;
}
