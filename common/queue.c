// SPDX-License-Identifier: MIT
/* The hand-over of batches between two threads (queue.h). */
#include "queue.h"

void mdb_queue_init(struct mdb_queue *q)
{
	q->head = q->nfull = q->nspare = 0;
	q->end = q->drop = q->failed = 0;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
}

void mdb_queue_destroy(struct mdb_queue *q)
{
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
}

/* With the lock held: queue @full. */
static void put(struct mdb_queue *q, void *full)
{
	q->full[(q->head + q->nfull) % MDB_QUEUE_MAX] = full;
	q->nfull++;
}

void *mdb_queue_swap(struct mdb_queue *q, void *full)
{
	void *b = NULL;

	pthread_mutex_lock(&q->mu);
	if (full && !q->failed)
		put(q, full);
	else if (full)
		q->spare[q->nspare++] = full;
	pthread_cond_broadcast(&q->cv);
	while (!q->nspare && !q->failed)
		pthread_cond_wait(&q->cv, &q->mu);
	if (!q->failed)
		b = q->spare[--q->nspare];
	pthread_mutex_unlock(&q->mu);
	return b;
}

void mdb_queue_end(struct mdb_queue *q, void *full, int drop)
{
	pthread_mutex_lock(&q->mu);
	if (full && !drop && !q->failed)
		put(q, full);
	q->end = 1;
	q->drop = drop;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void *mdb_queue_take(struct mdb_queue *q)
{
	void *b = NULL;

	pthread_mutex_lock(&q->mu);
	while (!q->nfull && !q->end)
		pthread_cond_wait(&q->cv, &q->mu);
	if (q->nfull && !q->drop) {
		b = q->full[q->head];
		q->head = (q->head + 1) % MDB_QUEUE_MAX;
		q->nfull--;
	}
	pthread_mutex_unlock(&q->mu);
	return b;
}

void mdb_queue_give(struct mdb_queue *q, void *batch)
{
	pthread_mutex_lock(&q->mu);
	q->spare[q->nspare++] = batch;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void mdb_queue_fail(struct mdb_queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->failed = 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

int mdb_queue_failed(struct mdb_queue *q)
{
	int f;

	pthread_mutex_lock(&q->mu);
	f = q->failed;
	pthread_mutex_unlock(&q->mu);
	return f;
}
