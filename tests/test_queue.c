// SPDX-License-Identifier: MIT
/*
 * The hand-over of batches between two threads (common/queue.h), which
 * the writer, the relay and the scan share: every batch the producer
 * queues reaches the consumer once, in order; a consumer that fails
 * stops the producer at its next swap; a producer that drops at its end
 * hands nothing more over.  The consumer notes what it saw (no cmocka
 * assertion on its thread); the test checks after joining it.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../common/queue.h"

#define NB 4

struct batch {
	uint64_t seq;         /* the producer's count when queued */
};

struct run {
	struct mdb_queue q;
	struct batch b[NB];
	uint64_t fail_at;     /* the consumer fails at this batch (0: no) */
	uint64_t seen;        /* batches the consumer took */
	int out_of_order;
};

static void *consumer(void *arg)
{
	struct run *r = arg;
	struct batch *b;

	while ((b = mdb_queue_take(&r->q))) {
		if (b->seq != r->seen + 1)
			r->out_of_order = 1;
		r->seen++;
		if (r->fail_at && r->seen == r->fail_at) {
			mdb_queue_fail(&r->q);
			return NULL;
		}
		mdb_queue_give(&r->q, b);
	}
	return NULL;
}

/* Produce @n batches (fewer if the consumer fails); the number queued.
 * @drop: the end drops what is still queued. */
static uint64_t produce(struct run *r, uint64_t n, int drop)
{
	pthread_t t;
	struct batch *b = &r->b[0];
	uint64_t made = 0;

	mdb_queue_init(&r->q);
	for (int i = 1; i < NB; i++)
		mdb_queue_give(&r->q, &r->b[i]);
	assert_int_equal(pthread_create(&t, NULL, consumer, r), 0);
	while (made < n) {
		b->seq = ++made;
		if (made == n)
			break;
		b = mdb_queue_swap(&r->q, b);
		if (!b)
			break;
	}
	if (b)
		mdb_queue_end(&r->q, b, drop);
	else
		mdb_queue_end(&r->q, NULL, drop);
	pthread_join(t, NULL);
	assert_int_equal(mdb_queue_failed(&r->q), r->fail_at != 0);
	mdb_queue_destroy(&r->q);
	return made;
}

static void test_every_batch_in_order(void **state)
{
	struct run r;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(produce(&r, 100000, 0), 100000);
	assert_int_equal(r.seen, 100000);
	assert_int_equal(r.out_of_order, 0);
}

static void test_consumer_failure_stops_the_producer(void **state)
{
	struct run r;
	uint64_t made;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.fail_at = 777;
	made = produce(&r, 100000, 0);
	assert_int_equal(r.seen, 777);
	assert_int_equal(r.out_of_order, 0);
	/* the producer learns of it within the batches there are */
	assert_true(made >= 777 && made <= 777 + NB + 1);
}

static void test_dropped_end(void **state)
{
	struct run r;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(produce(&r, 50, 1), 50);
	/* the last batch is not handed over; some before it may be */
	assert_true(r.seen < 50);
	assert_int_equal(r.out_of_order, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_batch_in_order),
		cmocka_unit_test(test_consumer_failure_stops_the_producer),
		cmocka_unit_test(test_dropped_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
