/* SPDX-License-Identifier: MIT */
/*
 * Decoding on both cores: the decoder runs on the calling thread and
 * hands its events, copied in batches, to a thread that feeds them to the
 * sink (pairing, figures, the writer's queue).  The sink sees the same
 * events in the same order as without the relay; what differs:
 *
 *   - after the sink fails, the decoder goes on to the end of the batch
 *     it is filling before it hears of it (its counts in the decode
 *     stats may be higher; nothing else it does is kept);
 *   - the sink's ahead() hint comes from the relay, a few events ahead
 *     within a batch.
 *
 * A decoder error is returned after every event before it reached the
 * sink, as without the relay.  The decoder writes its error into a copy
 * of @e's kind, the sink into @e; the first failure is the one returned.
 */
#ifndef MDB_RELAY_H
#define MDB_RELAY_H

#include "input.h"

/* in->ops->decode(in, sink, st, e) through the relay; without a thread
 * (none could be made) the decoder calls @sink itself. */
int mdb_relay_decode(struct mdb_input *in, const struct mdb_sink *sink,
		     struct mdb_decode_stats *st, struct mdb_error *e);

#endif
