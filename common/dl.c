// SPDX-License-Identifier: MIT
/* Libraries loaded when first needed; see dl.h. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"

void *mdb_dl_load(const char *so, const struct mdb_dl_sym *sym, size_t n,
		  char **why)
{
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	const char *err = h ? NULL : dlerror();

	for (size_t i = 0; h && !err && i < n; i++)
		if (!(*sym[i].fn = dlsym(h, sym[i].name)))
			err = dlerror();
	if (!err) {
		*why = NULL;
		return h;
	}
	/* copied before dlclose(), which frees the text dlerror() gave */
	*why = strdup(err);
	for (size_t i = 0; i < n; i++)
		*sym[i].fn = NULL;
	if (h)
		dlclose(h);
	return NULL;
}
