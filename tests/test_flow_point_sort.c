/* gt_flow_points_order against qsort by (key, ts, seq), at 1 to 8 threads:
 * Kineto's shape (a flow's two or three points, shuffled), a graph launch's
 * one key with thousands of points and tied times, times either side of
 * 0, and the keys it must leave to a comparison sort (words spanning more
 * than 64 bits, seq not the index). The records never move. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/big_alloc.h"
#include "ingest/flow_point_sort.h"
#include "testutil.h"

static int cmp_point(const void *x, const void *y)
{
	const flow_point *a = x, *b = y;
	for (int i = 0; i < 4; i++)
		if (a->key.w[i] != b->key.w[i])
			return a->key.w[i] < b->key.w[i] ? -1 : 1;
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

enum shape { KINETO, ONE_LAUNCH, NEGATIVE, WIDE, SEQ_OFF, LAST_WORD, SHAPES };

static flow_point *make(uint64_t *st, enum shape shape, uint32_t n)
{
	flow_point *p = malloc(((size_t)n + 1) * sizeof *p);
	ck_assert_ptr_nonnull(p);
	uint32_t ids = n / 2 + 1;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t r = gt_splitmix64(st);
		uint64_t id = shape == WIDE ? gt_splitmix64(st) : (shape == ONE_LAUNCH || shape == NEGATIVE) && r % 4 ? 7 : r % ids;
		int64_t ts = shape == ONE_LAUNCH ? (int64_t)(r % 50) : (int64_t)(gt_splitmix64(st) % 1000000);
		if (shape == NEGATIVE) /* either side of 0, in one long run too */
			ts -= 500000;
		p[i] = (flow_point){
			.key = {{4 | (uint64_t)(r % 3 == 0) << 8, 10 + (r >> 20) % (shape == WIDE ? 4000 : 3), id,
				 shape == LAST_WORD ? r % 2 : 0}},
			.track = (uint32_t)(r % 17),
			.seq = shape == SEQ_OFF ? n - i : i,
			.name = (uint32_t)(r % 5),
			.ts_ns = ts,
			.ph = "stf"[r % 3],
			.enclosing = (uint8_t)(r % 2),
		};
	}
	return p;
}

/* The first index where a and b differ in a field (padding aside), n if none. */
static uint32_t first_difference(const flow_point *a, const flow_point *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (memcmp(&a[i].key, &b[i].key, sizeof a[i].key) != 0 || a[i].track != b[i].track ||
		    a[i].seq != b[i].seq || a[i].name != b[i].name || a[i].ts_ns != b[i].ts_ns || a[i].ph != b[i].ph ||
		    a[i].enclosing != b[i].enclosing)
			return i;
	return n;
}

START_TEST(same_order_as_qsort)
{
	static const uint32_t sizes[] = {0, 1, 2, 47, 3000, 70000, 200003};
	uint64_t st = 0xf10f0000u + (uint64_t)_i;
	for (int shape = 0; shape < SHAPES; shape++)
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
			uint32_t n = sizes[s];
			flow_point *p = make(&st, (enum shape)shape, n);
			flow_point *want = malloc(((size_t)n + 1) * sizeof *want);
			ck_assert_ptr_nonnull(want);
			memcpy(want, p, (size_t)n * sizeof *p);
			unsigned threads = 1 + (unsigned)(gt_splitmix64(&st) % 8);
			uint32_t *order = NULL;
			int rc = gt_flow_points_order(p, n, threads, &order);
			ck_assert(rc == 0 ? order != NULL : order == NULL);
			if (rc == 0) { /* the records as ordered; none of them moved */
				flow_point *q = malloc(((size_t)n + 1) * sizeof *q);
				ck_assert_ptr_nonnull(q);
				for (uint32_t i = 0; i < n; i++)
					q[i] = p[order[i]];
				ck_assert_uint_eq(first_difference(p, want, n), n);
				free(p);
				p = q;
			}
			gt_big_free(order);
			bool left = shape == WIDE || shape == SEQ_OFF || shape == LAST_WORD;
			if (left && n > 100)
				ck_assert_int_eq(rc, 1);
			else if (!left)
				ck_assert_int_eq(rc, 0);
			if (rc == 0 && n)
				qsort(want, n, sizeof *want, cmp_point);
			ck_assert_uint_eq(first_difference(p, want, n), n); /* sorted, or left untouched */
			free(p), free(want);
		}
}
END_TEST

int main(void)
{
	const gt_test sorts[] = {GT_LOOP(same_order_as_qsort, 3), {0}};
	const gt_tcase cases[] = {{"sort", 0, sorts}, {0}};
	return gt_run_cases("flow_point_sort", cases);
}
