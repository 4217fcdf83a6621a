// SPDX-License-Identifier: MIT
/* The distinct call stacks of a source; see stacks.h. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../common/error.h"
#include "stacks.h"

void mdb_stacks_init(struct mdb_stacks *s)
{
	memset(s, 0, sizeof(*s));
	mdb_u64map_init(&s->by_hash);
}

void mdb_stacks_release(struct mdb_stacks *s)
{
	mdb_u64map_release(&s->by_hash);
	free(s->frames);
	free(s->start);
	free(s->depth);
	free(s->hash);
	memset(s, 0, sizeof(*s));
}

static int same(const struct mdb_stacks *s, uint32_t id, const uint64_t *f,
		uint32_t n)
{
	return s->depth[id - 1] == n &&
	       !memcmp(s->frames + s->start[id - 1], f, n * sizeof(*f));
}

static int grow(struct mdb_stacks *s, uint32_t n)
{
	if (s->nframes + n > s->frames_cap) {
		size_t cap = s->frames_cap ? 2 * s->frames_cap : 1024;
		uint64_t *nf;

		while (cap < s->nframes + n)
			cap *= 2;
		nf = realloc(s->frames, cap * sizeof(*nf));
		if (!nf)
			return -MDB_E_NOMEM;
		s->frames = nf;
		s->frames_cap = cap;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		size_t *ns = realloc(s->start, cap * sizeof(*ns));
		uint32_t *nd;
		uint64_t *nh;

		if (!ns)
			return -MDB_E_NOMEM;
		s->start = ns;
		nd = realloc(s->depth, cap * sizeof(*nd));
		if (!nd)
			return -MDB_E_NOMEM;
		s->depth = nd;
		nh = realloc(s->hash, cap * sizeof(*nh));
		if (!nh)
			return -MDB_E_NOMEM;
		s->hash = nh;
		s->cap = cap;
	}
	return 0;
}

int mdb_stacks_id(struct mdb_stacks *s, const uint64_t *f, uint32_t n,
		  uint32_t *id)
{
	uint64_t h, *v;
	int added;

	*id = 0;
	if (!n)
		return 0;
	h = XXH3_64bits(f, n * sizeof(*f));
	for (;; h++) {
		v = mdb_u64map_put(&s->by_hash, h, 0, &added);
		if (!v)
			return -MDB_E_NOMEM;
		if (added || same(s, (uint32_t)*v, f, n))
			break;
	}
	if (!added) {
		*id = (uint32_t)*v;
		return 0;
	}
	if (grow(s, n) < 0) {
		mdb_u64map_del(&s->by_hash, h);
		return -MDB_E_NOMEM;
	}
	s->start[s->n] = s->nframes;
	s->depth[s->n] = n;
	s->hash[s->n] = h;
	memcpy(s->frames + s->nframes, f, n * sizeof(*f));
	s->nframes += n;
	*id = ++s->n;
	*v = *id;
	return 0;
}
