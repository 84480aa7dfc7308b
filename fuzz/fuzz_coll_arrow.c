/* libFuzzer harness for the collectives summary reader (src/loader/coll_arrow.c)
 * and the matching behind `gputrace stragglers`.
 *
 * The first input byte is a mode (bit 0: read the bytes twice, as two
 * summaries, which must fail as one rank given twice when the first read
 * worked); the rest is the file. Whatever is read is matched, and the
 * result's invariants are checked. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "loader/loader.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	gt_coll_set s;
	gt_coll_set_init(&s);
	gt_error err = {0};
	int rc = gt_coll_arrow_parse(&s, "fuzz.arrow", data + 1, size - 1, &err);
	if (rc == 0 && (mode & 1) && s.rank_count) {
		gt_error err2 = {0};
		CHECK(gt_coll_arrow_parse(&s, "fuzz.arrow", data + 1, size - 1, &err2) < 0);
	}
	if (rc == 0) {
		gt_stragglers st;
		if (gt_stragglers_find(&s, &st, &err) == 0) {
			uint64_t kernels = 0;
			for (uint32_t r = 0; r < st.rank_count; r++)
				kernels += st.ranks[r].kernels;
			CHECK(kernels + st.unmatched_collectives == s.n);
			CHECK(kernels == st.count * st.rank_count);
			for (uint64_t c = 0; c < st.count; c++)
				CHECK(st.c[c].late_ns >= 0 && st.c[c].waited_ns >= 0);
			gt_stragglers_free(&st);
		}
	}
	gt_coll_set_free(&s);
	return 0;
}
