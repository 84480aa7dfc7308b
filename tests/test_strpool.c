/* gt_strpool_load (a whole table on threads) against interning the same
 * table one string at a time: the same data, offsets, ids and capacities,
 * every string found, and a string that comes twice or strings that
 * overlap refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/splitmix.h"
#include "model/strpool.h"
#include "testutil.h"

/* A table of n strings in one buffer: random lengths (some empty, some
 * long kernel-like names), some sharing a prefix, from distinct serial
 * numbers so that none comes twice. */
struct table {
	char *data;
	uint64_t *at, *len_hash, n, used; /* used: the bytes back to back */
};

static struct table make_table(uint64_t n, uint64_t *seed)
{
	struct table t = {malloc(n * 300 + 1), malloc((n ? n : 1) * 8), malloc((n ? n : 1) * 16), n, 0};
	ck_assert_ptr_nonnull(t.data);
	uint64_t used = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t r = gt_splitmix64(seed);
		char *s = t.data + used;
		int len = i == n / 2 ? 0 /* one empty string */
			  : r % 5 == 0			? sprintf(s, "void kernel_%llu<float, 128>(float const*, float*, int)"
									"_with_a_long_tail_of_template_arguments_%llu",
								  (unsigned long long)(r % 1000), (unsigned long long)i)
						    : sprintf(s, "s%llu", (unsigned long long)i);
		s[len] = 0;
		t.at[i] = used, t.len_hash[2 * i] = (uint64_t)len, t.len_hash[2 * i + 1] = gt_strpool_hash(s, len);
		used += (uint64_t)len + 1;
	}
	t.used = used;
	return t;
}

static void same_pools(const gt_strpool *a, const gt_strpool *b)
{
	ck_assert_uint_eq(a->count, b->count);
	ck_assert_uint_eq(a->data_len, b->data_len);
	ck_assert_uint_eq(a->data_cap, b->data_cap);
	ck_assert_uint_eq(a->offsets_cap, b->offsets_cap);
	ck_assert_uint_eq(a->slot_mask, b->slot_mask);
	ck_assert_uint_eq(gt_strpool_bytes(a), gt_strpool_bytes(b));
	if (a->count) {
		ck_assert_int_eq(memcmp(a->data, b->data, a->data_len), 0);
		ck_assert_int_eq(memcmp(a->offsets, b->offsets, a->count * sizeof *a->offsets), 0);
	}
}

START_TEST(load_as_interning)
{
	uint64_t seed = 0x57a9001;
	const uint64_t sizes[] = {0, 1, 2, 255, 256, 257, 511, 512, 513, 1000, 20000, 70000, 200000};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		struct table t = make_table(sizes[k], &seed);
		gt_strpool one, all;
		gt_strpool_init(&one), gt_strpool_init(&all);
		for (uint64_t i = 0; i < t.n; i++)
			ck_assert_uint_eq(gt_strpool_intern_hashed(&one, t.data + t.at[i], t.len_hash[2 * i],
								   t.len_hash[2 * i + 1]),
					  i);
		ck_assert_int_eq(gt_strpool_load(&all, t.data, t.used, t.at, t.len_hash, t.n), 0);
		same_pools(&one, &all);
		for (uint64_t i = 0; i < t.n; i++) {
			const char *s = t.data + t.at[i];
			ck_assert_uint_eq(gt_strpool_find(&all, s, t.len_hash[2 * i]), i);
			ck_assert_str_eq(gt_strpool_get(&all, (uint32_t)i), s);
		}
		ck_assert_uint_eq(gt_strpool_find(&all, "not in the table", 16), 0xffffffffu);
		/* interning after a load goes on as after interning */
		ck_assert_uint_eq(gt_strpool_intern(&one, "one more", 8), t.n);
		ck_assert_uint_eq(gt_strpool_intern(&all, "one more", 8), t.n);
		same_pools(&one, &all);
		gt_strpool_free(&one), gt_strpool_free(&all);
		free(t.data), free(t.at), free(t.len_hash);
	}
}
END_TEST

START_TEST(load_refuses_a_string_twice)
{
	uint64_t seed = 0x57a9002;
	const uint64_t sizes[] = {2, 300, 70000};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
		for (int round = 0; round < 4; round++) {
			struct table t = make_table(sizes[k], &seed);
			/* string b names the bytes of an earlier string a */
			uint64_t b = 1 + gt_splitmix64(&seed) % (t.n - 1), a = gt_splitmix64(&seed) % b;
			t.at[b] = t.at[a], t.len_hash[2 * b] = t.len_hash[2 * a];
			t.len_hash[2 * b + 1] = t.len_hash[2 * a + 1];
			gt_strpool p;
			gt_strpool_init(&p);
			/* b's bytes may now be more than its own were: the whole buffer */
			ck_assert_int_eq(gt_strpool_load(&p, t.data, t.n * 300 + 1, t.at, t.len_hash, t.n), 1);
			gt_strpool_free(&p);
			free(t.data), free(t.at), free(t.len_hash);
		}
}
END_TEST

/* Every suffix of one long string, each distinct: the bytes they need grow
 * as the square of the string's length, past what the source holds. */
START_TEST(load_refuses_overlapping_strings)
{
	enum { LEN = 1000 };
	char *data = malloc(LEN + 1);
	uint64_t *at = malloc(LEN * 8), *len_hash = malloc(LEN * 16);
	memset(data, 'x', LEN);
	data[LEN] = 0;
	for (uint64_t i = 0; i < LEN; i++)
		at[i] = i, len_hash[2 * i] = LEN - i, len_hash[2 * i + 1] = gt_strpool_hash(data + i, LEN - i);
	gt_strpool p;
	gt_strpool_init(&p);
	ck_assert_int_eq(gt_strpool_load(&p, data, LEN + 1, at, len_hash, LEN), 2);
	gt_strpool_free(&p);
	gt_strpool_init(&p); /* the first alone fits */
	ck_assert_int_eq(gt_strpool_load(&p, data, LEN + 1, at, len_hash, 1), 0);
	ck_assert_str_eq(gt_strpool_get(&p, 0), data);
	gt_strpool_free(&p);
	free(data), free(at), free(len_hash);
}
END_TEST

int main(void)
{
	const gt_test tests[] = {GT_TEST(load_as_interning), GT_TEST(load_refuses_a_string_twice),
				 GT_TEST(load_refuses_overlapping_strings), {0}};
	const gt_tcase cases[] = {{"strpool", 0, tests}, {0}};
	return gt_run_cases("strpool", cases);
}
