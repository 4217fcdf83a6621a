/* SPDX-License-Identifier: MIT */
/*
 * The hand-over of batches between two threads: a producer fills a batch,
 * queues it and takes a free one back; a consumer takes the queued ones
 * in order and gives each back when done.  The batches are the caller's
 * (the writer's rows, the relay's events, the scan's blocks); memory is
 * bounded by their number, not by the input.
 *
 * Either side may give up: the consumer with mdb_queue_fail() (the
 * producer's next mdb_queue_swap() returns NULL), the producer with
 * mdb_queue_end(q, NULL, 1) (the consumer's next mdb_queue_take()
 * returns NULL, whatever is queued).
 */
#ifndef MDB_QUEUE_H
#define MDB_QUEUE_H

#include <pthread.h>
#include <stddef.h>

#define MDB_QUEUE_MAX 8

struct mdb_queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;     /* a batch queued or given back, or an end */
	void *full[MDB_QUEUE_MAX]; /* FIFO to the consumer */
	size_t head, nfull;
	void *spare[MDB_QUEUE_MAX];
	size_t nspare;
	int end;               /* the producer is done */
	int drop;              /* ... and what it queued is not wanted */
	int failed;            /* the consumer gave up */
};

/* An empty queue: the producer then gives it the batches it does not
 * fill first (mdb_queue_give()), at most MDB_QUEUE_MAX. */
void mdb_queue_init(struct mdb_queue *q);
void mdb_queue_destroy(struct mdb_queue *q);

/* Producer: queue @full (none when NULL) and return a free batch, waited
 * for; NULL when the consumer has failed. */
void *mdb_queue_swap(struct mdb_queue *q, void *full);

/* Producer: queue @full (none when NULL) and say it is the last; with
 * @drop, nothing queued is handed to the consumer any more. */
void mdb_queue_end(struct mdb_queue *q, void *full, int drop);

/* Consumer: the next queued batch, waited for; NULL at the end. */
void *mdb_queue_take(struct mdb_queue *q);

/* Consumer: give @batch back, free for the producer (the producer, too,
 * before the consumer starts). */
void mdb_queue_give(struct mdb_queue *q, void *batch);

/* Consumer: give up; the producer hears of it at its next swap. */
void mdb_queue_fail(struct mdb_queue *q);

/* Has the consumer given up?  (The producer's check at its end.) */
int mdb_queue_failed(struct mdb_queue *q);

#endif
