/* SPDX-License-Identifier: MIT */
/*
 * The distinct kernel call stacks of a source: each stack (its frames,
 * innermost first) gets a small id in order of first appearance, found
 * by the XXH3-64 hash of its addresses (a collision is told apart by the
 * frames and moved to the next free hash value).  Pure C: the loader
 * writes the stacks at commit.
 */
#ifndef MDB_STACKS_H
#define MDB_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/u64map.h"

struct mdb_stacks {
	struct u64map by_hash;  /* hash -> id */
	uint64_t *frames;       /* the frames of every stack, in id order */
	size_t nframes, frames_cap;
	size_t *start;          /* start[id - 1]: first frame in frames */
	uint32_t *depth;        /* depth[id - 1] */
	uint64_t *hash;         /* hash[id - 1], as keyed */
	uint32_t n;
	size_t cap;
};

void mdb_stacks_init(struct mdb_stacks *s);
void mdb_stacks_release(struct mdb_stacks *s);

/*
 * The id of the stack of @n frames at @f (0 when @n is 0).  Returns 0,
 * or -MDB_E_NOMEM.
 */
int mdb_stacks_id(struct mdb_stacks *s, const uint64_t *f, uint32_t n,
		  uint32_t *id);

#endif
