// SPDX-License-Identifier: MIT
/* libFuzzer harness: the kallsyms / System.map reader and its lookups. */
#include <stdint.h>
#include <string.h>

#include "../ingest/kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms k;
	struct mdb_error e;
	uint64_t a;

	if (mdb_kallsyms_parse(&k, data, size, "kallsyms", &e) < 0)
		return 0;
	for (size_t i = 0; i < k.n; i += 1 + k.n / 16) {
		const struct ksym *s = mdb_kallsyms_find(&k, k.syms[i].addr + 1);
		const char *name = kallsyms_name(&k, &k.syms[i]);
		const char *mod = kallsyms_module(&k, &k.syms[i]);

		if (s)
			(void)kallsyms_name(&k, s);
		mdb_kallsyms_addr(&k, name, strlen(name), mod,
				  mod ? strlen(mod) : 0, &a);
	}
	mdb_kallsyms_find(&k, 0);
	mdb_kallsyms_find(&k, UINT64_MAX);
	mdb_kallsyms_any_addr(&k, "_stext", &a);
	mdb_kallsyms_release(&k);
	return 0;
}
