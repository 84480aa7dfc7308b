/* Temporal index: randomised host reference vs brute force, every device vs
 * the host, overflow, validation bits of corrupted hierarchies, index file
 * round trip and corruption, incremental update vs full rebuild. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gtx/gtx.h"
#include "loader/loader.h"
#include "model/model.h"
#include "testutil.h"
#include "tindex/tindex.h"

static uint64_t rnd(uint64_t *s)
{
	return gt_splitmix64(s);
}

/* A small model with awkward shapes: duplicate starts, zero and huge
 * durations, up to 32 groups, clustered lanes. */
static void random_model(gt_model *m, uint32_t n, uint64_t *seed)
{
	memset(m, 0, sizeof *m);
	gt_strpool_init(&m->strings);
	gt_strpool_intern(&m->strings, "x", 1);
	m->spans = calloc(n ? n : 1, sizeof *m->spans);
	m->tracks = calloc(1, sizeof *m->tracks);
	m->processes = calloc(1, sizeof *m->processes);
	m->track_count = m->process_count = 1;
	m->source = strdup("random");
	uint32_t lanes = 1 + (uint32_t)(rnd(seed) % 40), groups = 1 + (uint32_t)(rnd(seed) % 32);
	m->lane_count = lanes;
	m->group_count = groups;
	int64_t t = (int64_t)(rnd(seed) % 1000) - 500;
	for (uint32_t i = 0; i < n; i++) {
		gt_span *s = &m->spans[i];
		t += (int64_t)(rnd(seed) % 50);
		uint64_t r = rnd(seed);
		s->ts_ns = r % 7 == 0 ? t - (int64_t)(rnd(seed) % 3000) : t;
		s->dur_ns = r % 5 == 0 ? 0 : r % 97 == 0 ? 100000 : (int64_t)(rnd(seed) % 200);
		s->lane = (uint32_t)(rnd(seed) % lanes);
		s->group = (uint8_t)(r % 3 == 0 ? rnd(seed) % groups : s->lane % groups);
		s->name = 0, s->cat = 0, s->parent = GT_NONE, s->event = i;
	}
	m->span_count = n;
	m->start_ns = INT64_MAX;
	m->end_ns = INT64_MIN;
	for (uint32_t i = 0; i < n; i++) {
		if (m->spans[i].ts_ns < m->start_ns)
			m->start_ns = m->spans[i].ts_ns;
		if (gt_span_end(&m->spans[i]) > m->end_ns)
			m->end_ns = gt_span_end(&m->spans[i]);
	}
	if (!n)
		m->start_ns = m->end_ns = 0;
}

static void random_params(gt_tindex_params *p, uint64_t *seed)
{
	static const uint32_t B[] = {1, 2, 3, 7, 64}, P[] = {1, 2, 3, 5, 256}, F[] = {2, 3, 8}, E[] = {64, 200, 1u << 20};
	gt_tindex_default_params(p);
	p->batch_spans = B[rnd(seed) % 5];
	p->partition_batches = P[rnd(seed) % 5];
	p->fanout = F[rnd(seed) % 3];
	p->lane_band = 1 + (uint32_t)(rnd(seed) % 3);
	p->epoch_spans = E[rnd(seed) % 3];
	if (p->epoch_spans < p->batch_spans)
		p->epoch_spans = p->batch_spans;
}

static gt_tquery random_query(const gt_model *m, uint64_t *seed)
{
	gt_tquery q;
	int64_t span = m->end_ns - m->start_ns + 1;
	int64_t a = m->start_ns - 100 + (int64_t)(rnd(seed) % (uint64_t)(span + 200));
	int64_t w = (int64_t)(rnd(seed) % (uint64_t)(rnd(seed) % 2 ? 50 : span + 1));
	q.t0 = a, q.t1 = a + w;
	uint32_t l0 = (uint32_t)(rnd(seed) % (m->lane_count + 2));
	q.lane0 = rnd(seed) % 4 == 0 ? 0 : l0;
	q.lane1 = rnd(seed) % 4 == 0 ? UINT32_MAX : l0 + 1 + (uint32_t)(rnd(seed) % 10);
	q.groups = rnd(seed) % 3 == 0 ? 0xffffffffu : (uint32_t)rnd(seed);
	q.level = 0;
	return q;
}

/* Devices to compare: every OpenCL device the runtime lists. */
static gt_cl *devices[8];
static int ndevices;

static void open_devices(void)
{
	if (ndevices)
		return;
	for (int i = 0; i < 8; i++) {
		char spec[16], chosen[256];
		snprintf(spec, sizeof spec, "%d", i);
		gt_error err = {0};
		gt_cl *cl = NULL;
		if (gt_cl_open(&cl, spec, chosen, sizeof chosen, &err) < 0 || !cl)
			break;
		devices[ndevices++] = cl;
		fprintf(stderr, "test_tindex: comparing device %d: %s\n", i, chosen);
	}
}

/* Every listed device's handle on ix, for check_query. */
static void open_index_on_devices(gt_tindex_cl **dev, const gt_tindex *ix)
{
	gt_error err = {0};
	for (int d = 0; d < ndevices; d++)
		ck_assert_msg(gt_tindex_cl_open(&dev[d], devices[d], ix, &err) == 0, "%s", err.msg);
}

static void close_index_on_devices(gt_tindex_cl **dev)
{
	for (int d = 0; d < ndevices; d++)
		gt_tindex_cl_close(dev[d]);
}

static void check_query(const gt_tindex *ix, gt_tindex_cl **dev, const gt_model *m, gt_tquery q)
{
	/* Brute force: batches holding a span that meets q. */
	uint32_t *truth = calloc(ix->batch_count + 1, 4);
	uint64_t ntruth = 0;
	for (uint32_t b = 0; b < ix->batch_count; b++)
		for (uint32_t k = ix->batches[b].first; k < ix->batches[b].first + ix->batches[b].count; k++)
			if (gt_span_meets(&m->spans[ix->order[k]], &q)) {
				truth[ntruth++] = b;
				break;
			}
	uint32_t *ref = malloc((ix->batch_count + 1) * 4), *got = malloc((ix->batch_count + 1) * 4);
	uint64_t nref = 0;
	for (uint32_t L = 0; L < ix->level_count; L++) {
		q.level = L;
		gt_tresult r = {.candidates = got, .capacity = ix->batch_count + 1};
		gt_error err = {0};
		ck_assert_int_eq(gt_tindex_query(ix, &q, &r, &err), 0);
		ck_assert(!r.overflow);
		for (uint64_t i = 1; i < r.count; i++)
			ck_assert_uint_lt(got[i - 1], got[i]);
		/* never omits a batch holding a hit */
		uint64_t j = 0;
		for (uint64_t i = 0; i < ntruth; i++) {
			while (j < r.count && got[j] < truth[i])
				j++;
			ck_assert_msg(j < r.count && got[j] == truth[i], "level %u omits batch %u", L, truth[i]);
		}
		ck_assert_uint_eq(gt_tindex_false_positives(ix, m, &q, got, r.count), r.count - ntruth);
		if (L == 0) {
			memcpy(ref, got, r.count * 4);
			nref = r.count;
		} else {
			ck_assert_uint_eq(r.count, nref);
			ck_assert(memcmp(ref, got, nref * 4) == 0);
		}
		/* every device, at several capacities */
		uint64_t caps[] = {ix->batch_count + 1, 0, 1, nref ? nref - 1 : 0, nref, nref + 1};
		for (int d = 0; d < ndevices; d++) {
			for (int c = 0; c < 6; c++) {
				uint32_t *dv = malloc((ix->batch_count + 1) * 4);
				gt_tresult dr = {.candidates = dv, .capacity = caps[c]};
				gt_tresult hr = {.candidates = got, .capacity = caps[c]};
				ck_assert_int_eq(gt_tindex_query(ix, &q, &hr, &err), 0);
				ck_assert_msg(gt_tindex_cl_query(dev[d], &q, &dr, NULL, &err) == 0, "%s", err.msg);
				ck_assert_uint_eq(dr.count, nref);
				ck_assert_uint_eq(dr.overflow, nref > caps[c]);
				ck_assert_uint_eq(hr.overflow, nref > caps[c]);
				ck_assert_uint_eq(dr.nodes_tested, hr.nodes_tested);
				ck_assert_uint_eq(dr.leaves_tested, hr.leaves_tested);
				uint64_t w = nref < caps[c] ? nref : caps[c];
				ck_assert(memcmp(dv, ref, w * 4) == 0);
				ck_assert(memcmp(got, ref, w * 4) == 0);
				free(dv);
			}
		}
	}
	/* --expand equals a brute-force filter of the span table */
	uint32_t *ids;
	uint64_t nids;
	gt_error err = {0};
	ck_assert_int_eq(gt_tindex_expand(ix, m, &q, ref, nref, &ids, &nids, &err), 0);
	uint64_t k = 0;
	for (uint32_t i = 0; i < m->span_count; i++)
		if (gt_span_meets(&m->spans[i], &q)) {
			ck_assert_uint_lt(k, nids);
			ck_assert_uint_eq(ids[k], i);
			k++;
		}
	ck_assert_uint_eq(k, nids);
	free(ids), free(ref), free(got), free(truth);
}

START_TEST(random_queries)
{
	uint64_t seed = 12345 + (uint64_t)_i * 7919;
	/* odd runs: the GPU's launch shape on every device (many groups) */
	if (_i % 2)
		setenv("GPUTRACE_QUERY_GPU_SHAPE", "1", 1);
	open_devices();
	for (int round = 0; round < 6; round++) {
		gt_model m;
		uint32_t n = round == 0 ? 0 : (uint32_t)(rnd(&seed) % (round < 3 ? 40 : 3000));
		random_model(&m, n, &seed);
		gt_tindex_params p;
		random_params(&p, &seed);
		gt_tindex ix;
		gt_error err = {0};
		ck_assert_msg(gt_tindex_build(&ix, &m, &p, &err) == 0, "%s", err.msg);
		uint32_t all;
		uint64_t nbad;
		gt_tindex_validate(&ix, &m, NULL, &all, &nbad);
		ck_assert_uint_eq(all, 0);
		ck_assert_int_eq(gt_tindex_check_structure(&ix, &err), 0);
		gt_tindex_cl *dev[8];
		open_index_on_devices(dev, &ix);
		for (int qn = 0; qn < 12; qn++)
			check_query(&ix, dev, &m, random_query(&m, &seed));
		close_index_on_devices(dev);
		gt_tindex_free(&ix);
		gt_model_free(&m);
	}
}
END_TEST

/* Enough slots (one span per batch) that a query runs more work-groups
 * than a work-group has work-items, so the last group scans the group
 * sums several per work-item. */
START_TEST(many_groups)
{
	uint64_t seed = 777;
	setenv("GPUTRACE_QUERY_GPU_SHAPE", "1", 1);
	open_devices();
	gt_model m;
	random_model(&m, 300000, &seed);
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	p.batch_spans = 1;
	p.fanout = 2;
	gt_tindex ix;
	gt_error err = {0};
	ck_assert_msg(gt_tindex_build(&ix, &m, &p, &err) == 0, "%s", err.msg);
	ck_assert_uint_ge(ix.batch_count, 300000);
	gt_tindex_cl *dev[8];
	open_index_on_devices(dev, &ix);
	gt_tquery all = {m.start_ns, m.end_ns, 0, UINT32_MAX, 0xffffffffu, 0};
	check_query(&ix, dev, &m, all);
	for (int qn = 0; qn < 3; qn++)
		check_query(&ix, dev, &m, random_query(&m, &seed));
	close_index_on_devices(dev);
	gt_tindex_free(&ix);
	gt_model_free(&m);
}
END_TEST

/* Each epoch of the order is its spans by (group, band, start, id): with
 * times a few ms apart (the packed key's radix sort) and spread over most
 * of 64 bits with many groups and lanes (the comparison sort it falls
 * back to). */
START_TEST(order_by_group_band_start_id)
{
	uint64_t seed = 4242 + (uint64_t)_i;
	for (int wide = 0; wide < 2; wide++) {
		gt_model m;
		uint32_t n = 70000 + (uint32_t)(rnd(&seed) % 70000);
		random_model(&m, n, &seed);
		if (wide)
			for (uint32_t i = 0; i < n; i++) {
				gt_span *s = &m.spans[i];
				s->ts_ns = (int64_t)(rnd(&seed) >> 3) - (INT64_C(1) << 60);
				s->dur_ns = 0;
				s->lane = (uint32_t)(rnd(&seed) % 100000);
			}
		gt_tindex_params p;
		gt_tindex_default_params(&p);
		p.epoch_spans = 1 + (uint32_t)(rnd(&seed) % 2) * 50000 + (uint32_t)(rnd(&seed) % 30000);
		p.lane_band = 1 + (uint32_t)(rnd(&seed) % 8);
		p.batch_spans = p.batch_spans < p.epoch_spans ? p.batch_spans : 1;
		gt_tindex ix;
		gt_error err = {0};
		ck_assert_msg(gt_tindex_build(&ix, &m, &p, &err) == 0, "%s", err.msg);
		uint32_t bad = 0;
		for (uint32_t e0 = 0; e0 < n; e0 += p.epoch_spans) {
			uint32_t e1 = n - e0 > p.epoch_spans ? e0 + p.epoch_spans : n;
			for (uint32_t k = e0; k < e1; k++) {
				uint32_t id = ix.order[k];
				bad += id < e0 || id >= e1;
				if (k == e0 || id < e0 || id >= e1)
					continue;
				const gt_span *a = &m.spans[ix.order[k - 1]], *b = &m.spans[id];
				uint32_t ba = a->lane / p.lane_band, bb = b->lane / p.lane_band;
				bad += !(a->group < b->group ||
					 (a->group == b->group &&
					  (ba < bb || (ba == bb && (a->ts_ns < b->ts_ns ||
								    (a->ts_ns == b->ts_ns && ix.order[k - 1] < id))))));
			}
		}
		ck_assert_uint_eq(bad, 0); /* in order, each epoch's own spans: a permutation */
		gt_tindex_free(&ix);
		gt_model_free(&m);
	}
}
END_TEST

/* The batches follow the cut's rule, whatever the threads: walking the
 * order, a new batch where the (group, band) changes, at an epoch's start
 * or after batch_spans keys; each batch covers its keys' times and lanes.
 * Epochs of up to 300K spans cut in up to 5 pieces; runs long (few groups
 * and lanes) and short (many), batches of 1 to 100 keys. */
START_TEST(cut_on_threads_follows_the_rule)
{
	uint64_t seed = 777 + (uint64_t)_i;
	gt_model m;
	uint32_t n = 150000 + (uint32_t)(rnd(&seed) % 200000);
	random_model(&m, n, &seed);
	if (_i == 2) { /* runs of a few keys: pieces often start at a run's end */
		m.lane_count = 50000;
		for (uint32_t i = 0; i < n; i++)
			m.spans[i].lane = (uint32_t)(rnd(&seed) % m.lane_count);
	}
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	p.epoch_spans = 140000 + (uint32_t)(rnd(&seed) % 160000);
	p.lane_band = 1 + (uint32_t)(rnd(&seed) % 4);
	p.batch_spans = 1 + (uint32_t)(rnd(&seed) % 100);
	p.partition_batches = 1 + (uint32_t)(rnd(&seed) % 300);
	gt_tindex one, five;
	gt_error err = {0};
	gt_thread_default_set(1);
	ck_assert_msg(gt_tindex_build(&one, &m, &p, &err) == 0, "%s", err.msg);
	gt_thread_default_set(5);
	ck_assert_msg(gt_tindex_build(&five, &m, &p, &err) == 0, "%s", err.msg);
	gt_thread_default_set(0);
	ck_assert_uint_eq(one.batch_count, five.batch_count);
	ck_assert(memcmp(one.batches, five.batches, one.batch_count * sizeof *one.batches) == 0);
	ck_assert(memcmp(one.order, five.order, n * sizeof *one.order) == 0);
	uint32_t b = 0, bad = 0;
	for (uint32_t k = 0; k < n; k++) {
		const gt_span *s = &m.spans[five.order[k]];
		bool starts = k % p.epoch_spans == 0;
		if (!starts) {
			const gt_span *q = &m.spans[five.order[k - 1]];
			starts = s->group != q->group || s->lane / p.lane_band != q->lane / p.lane_band ||
				 k - five.batches[b].first == p.batch_spans;
		}
		if (starts && k) /* the batch before ends here */
			b++;
		const gt_tnode *t = &five.batches[b];
		bad += starts && t->first != k;
		bad += t->min_start > s->ts_ns || t->max_end < gt_span_end(s) || t->min_lane > s->lane ||
		       t->max_lane < s->lane || t->group != s->group || t->partition != b / p.partition_batches;
		bad += k - t->first >= t->count;
	}
	ck_assert_uint_eq(b + 1, five.batch_count);
	ck_assert_uint_eq(bad, 0);
	gt_tindex_free(&one);
	gt_tindex_free(&five);
	gt_model_free(&m);
}
END_TEST

/* Each corruption sets its bit, on the host and on every device. */
static void expect_bits(gt_tindex *ix, const gt_model *m, uint64_t rec, uint32_t want)
{
	uint64_t n = gt_tindex_records(ix);
	uint8_t *bits = calloc(n, 1);
	uint32_t all;
	uint64_t nbad;
	gt_tindex_validate(ix, m, bits, &all, &nbad);
	ck_assert_msg((bits[rec] & want) == want, "record %llu has bits %u, want %u", (unsigned long long)rec,
		      bits[rec], want);
	for (int d = 0; d < ndevices; d++) {
		gt_tindex_cl *dev;
		gt_error err = {0};
		uint8_t *dbits = calloc(n, 1);
		uint32_t dall;
		uint64_t dbad;
		ck_assert_int_eq(gt_tindex_cl_open(&dev, devices[d], ix, &err), 0);
		ck_assert_msg(gt_tindex_cl_validate(dev, m, dbits, &dall, &dbad, &err) == 0, "%s", err.msg);
		ck_assert(memcmp(bits, dbits, n) == 0);
		ck_assert_uint_eq(all, dall);
		ck_assert_uint_eq(nbad, dbad);
		gt_tindex_cl_close(dev);
		free(dbits);
	}
	free(bits);
}

/* The directory only skips blocks that cannot meet a query: the reach it
 * finds equals a plain scan's at every level, on random models whose
 * coarsest level spans many blocks. On a model written in time order, cut
 * into many epochs, a narrow window reaches a small slice of the batches
 * (the point of the reach), and never leaves out a batch meeting it
 * (check_query's brute force covers that). */
START_TEST(reach_with_directory)
{
	uint64_t seed = 777;
	for (int round = 0; round < 12; round++) {
		gt_model m;
		random_model(&m, 2000 + (uint32_t)(rnd(&seed) % 30000), &seed);
		gt_tindex_params p;
		random_params(&p, &seed);
		p.partition_batches = 1 + (uint32_t)(rnd(&seed) % 4);
		gt_tindex ix;
		gt_treach_dir dir;
		gt_error err = {0};
		ck_assert_msg(gt_tindex_build(&ix, &m, &p, &err) == 0, "%s", err.msg);
		ck_assert_int_eq(gt_treach_dir_build(&dir, &ix, &err), 0);
		ck_assert_uint_gt(dir.block_count, 2);
		for (int i = 0; i < 300; i++) {
			gt_tquery q = random_query(&m, &seed);
			for (uint32_t L = 0; L < ix.level_count; L++) {
				q.level = L;
				uint64_t lo, hi, dlo, dhi;
				gt_tindex_reach(&ix, NULL, &q, &lo, &hi);
				gt_tindex_reach(&ix, &dir, &q, &dlo, &dhi);
				ck_assert_uint_eq(lo, dlo);
				ck_assert_uint_eq(hi, dhi);
				ck_assert_uint_le(lo, hi);
				ck_assert_uint_le(hi, L ? ix.levels[L].node_count : ix.batch_count);
			}
		}
		gt_treach_dir_free(&dir);
		gt_tindex_free(&ix);
		gt_model_free(&m);
	}
	gt_model m;
	gt_error err = {0};
	ck_assert_int_eq(gt_synth_model(&m, 200000, 8, 4, 3, &err), 0);
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	p.epoch_spans = 4096;
	gt_tindex ix;
	ck_assert_int_eq(gt_tindex_build(&ix, &m, &p, &err), 0);
	int64_t T = m.end_ns - m.start_ns;
	gt_tquery q = {m.start_ns + T / 2, m.start_ns + T / 2 + T / 1000, 0, UINT32_MAX, 0xffffffffu, 0};
	uint64_t lo, hi;
	gt_tindex_reach(&ix, NULL, &q, &lo, &hi);
	ck_assert_uint_gt(hi, lo);
	ck_assert_msg((hi - lo) * 8 < ix.batch_count, "a window of 1/1000 of the trace reaches %llu of %u batches",
		      (unsigned long long)(hi - lo), ix.batch_count);
	open_devices();
	gt_tindex_cl *dev[8];
	open_index_on_devices(dev, &ix);
	check_query(&ix, dev, &m, q);
	close_index_on_devices(dev);
	gt_tindex_free(&ix);
	gt_model_free(&m);
}
END_TEST

START_TEST(corrupted_hierarchy)
{
	open_devices();
	gt_model m;
	gt_error err = {0};
	ck_assert_int_eq(gt_synth_model(&m, 20000, 4, 2, 7, &err), 0);
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	p.batch_spans = 16;
	p.partition_batches = 32;
	p.fanout = 4;
	gt_tindex ix;
	ck_assert_int_eq(gt_tindex_build(&ix, &m, &p, &err), 0);
	ck_assert_uint_gt(ix.level_count, 2);
	uint64_t nb = ix.batch_count;
	const gt_tlevel *l1 = &ix.levels[1];
	/* node of level 1 that is not the last of its partition */
	uint64_t k = l1->first_node;
	while (k + 1 < l1->first_node + l1->node_count && ix.nodes[k + 1].partition != ix.nodes[k].partition)
		k++;
	gt_tnode save = ix.nodes[k];
	ix.nodes[k].count = 0;
	expect_bits(&ix, &m, nb + k, GT_TV_LEAF_RANGE);
	ix.nodes[k] = save;
	ix.nodes[k].first = ix.batch_count + 5;
	expect_bits(&ix, &m, nb + k, GT_TV_LEAF_RANGE);
	ix.nodes[k] = save;
	/* stretch the node over its partition's end */
	uint32_t P = p.partition_batches, pend = (save.partition + 1) * P;
	ix.nodes[k].first = pend - 1;
	ix.nodes[k].count = 2;
	expect_bits(&ix, &m, nb + k, GT_TV_PARTITION);
	ix.nodes[k] = save;
	ix.nodes[k].partition++;
	expect_bits(&ix, &m, nb + k, GT_TV_PARTITION);
	ix.nodes[k] = save;
	/* a batch of another group inside the node */
	uint32_t b = save.first + save.count - 1;
	gt_tnode bsave = ix.batches[b];
	ix.batches[b].group ^= 1;
	expect_bits(&ix, &m, nb + k, GT_TV_GROUP);
	expect_bits(&ix, &m, b, GT_TV_GROUP); /* its spans disagree too */
	ix.batches[b].group ^= 1;
	ix.batches[b].max_end += 1000000000;
	expect_bits(&ix, &m, nb + k, GT_TV_BOUNDS);
	ix.batches[b].max_end -= 1000000000;
	ix.batches[b].count = p.batch_spans + 1;
	expect_bits(&ix, &m, b, GT_TV_LEAF_RANGE);
	ix.batches[b] = bsave;
	uint32_t all;
	uint64_t nbad;
	gt_tindex_validate(&ix, &m, NULL, &all, &nbad);
	ck_assert_uint_eq(all, 0);
	/* A file whose checksums hold but whose hierarchy is wrong: verify
	 * exits 1 naming the bits, query --strict exits 4. */
	const char *bin = getenv("GPUTRACE_BIN");
	if (bin) {
		char path[64], cmd[512];
		snprintf(path, sizeof path, "/tmp/gt_tindex_%d_bad.gtx", (int)getpid());
		ix.nodes[k].partition++;
		gt_gtx_source src = {0, 0, 0};
		ck_assert_int_eq(gt_gtx_write(path, &m, &ix, &src, &err), 0);
		const char *devs[] = {"host", ndevices ? "0" : "host"}; /* 0: PoCL in CI */
		for (int d = 0; d < 2; d++) {
			snprintf(cmd, sizeof cmd, "%s verify -d %s %s 2>&1 >/dev/null | grep -q 'range crossing its partition (bit 2)'",
				 bin, devs[d], path);
			ck_assert_int_eq(system(cmd), 0);
			snprintf(cmd, sizeof cmd, "%s verify -d %s %s >/dev/null 2>&1", bin, devs[d], path);
			ck_assert_int_eq(WEXITSTATUS(system(cmd)), 1);
			snprintf(cmd, sizeof cmd, "%s query -q -d %s --strict --time 0:1ms %s >/dev/null 2>&1", bin, devs[d],
				 path);
			ck_assert_int_eq(WEXITSTATUS(system(cmd)), 4);
		}
		unlink(path);
	}
	gt_tindex_free(&ix);
	gt_model_free(&m);
}
END_TEST

static char *tmp_path(const char *tag)
{
	char *p = malloc(64);
	snprintf(p, 64, "/tmp/gt_tindex_%d_%s", (int)getpid(), tag);
	return p;
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	void *b = malloc(*len ? *len : 1);
	ck_assert_uint_eq(fread(b, 1, *len, f), *len);
	fclose(f);
	return b;
}

static void write_file(const char *path, const void *b, size_t len)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, len, f), len);
	fclose(f);
}

/* The permissions of the mapping holding p, as /proc/self/maps writes them
 * ("r--p"); "" where none holds it. */
static const char *mapping_perms(const void *p)
{
	static char perms[5];
	perms[0] = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uintptr_t a = (uintptr_t)p;
	while (f && fgets(line, sizeof line, f)) {
		uintptr_t lo, hi;
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &lo, &hi, perms) == 3 && a >= lo && a < hi)
			break;
		perms[0] = 0;
	}
	if (f)
		fclose(f);
	return perms;
}

START_TEST(file_round_trip)
{
	gt_model m;
	gt_error err = {0};
	ck_assert_int_eq(gt_synth_model(&m, 5000, 3, 2, 11, &err), 0);
	m.metadata_json = strdup("{\"k\": 1}");
	m.flows = calloc(2, sizeof *m.flows);
	m.flows[0] = (gt_flow){1, 2, 0, 1, 99, 5, 6};
	m.flows[1] = (gt_flow){GT_NONE, 3, 0, GT_NONE, 7, 8, 9};
	m.flow_count = 2;
	m.series = calloc(1, sizeof *m.series);
	m.series[0] = (gt_counter_series){1, 2, 3, 2};
	m.series_count = 1;
	m.samples = calloc(2, sizeof *m.samples);
	m.samples[0] = (gt_counter_sample){0, 10, 1.5};
	m.samples[1] = (gt_counter_sample){0, 20, -0.25};
	m.sample_count = 2;
	m.tracks[1].tid = (gt_id){0, 3, true};
	m.tracks[1].has_sort_index = true, m.tracks[1].sort_index = -4;
	m.stats.warnings[GT_WARN_UNBOUND_FLOW] = 3;
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	gt_tindex ix;
	ck_assert_int_eq(gt_tindex_build(&ix, &m, &p, &err), 0);
	gt_gtx_source src = {123, 120, 0xdeadbeef};
	char *path = tmp_path("rt.gtx");
	ck_assert_msg(gt_gtx_write(path, &m, &ix, &src, &err) == 0, "%s", err.msg);
	gt_gtx g;
	ck_assert_msg(gt_gtx_open(&g, path, &err) == 0, "%s", err.msg);
	ck_assert(memcmp(&g.source, &src, sizeof src) == 0);
	ck_assert_uint_eq(g.ix.batch_count, ix.batch_count);
	ck_assert_uint_eq(g.ix.node_count, ix.node_count);
	ck_assert(memcmp(g.ix.batches, ix.batches, ix.batch_count * sizeof(gt_tnode)) == 0);
	ck_assert(memcmp(g.ix.nodes, ix.nodes, ix.node_count * sizeof(gt_tnode)) == 0);
	ck_assert(memcmp(g.ix.order, ix.order, ix.span_count * 4) == 0);
	ck_assert(memcmp(g.ix.levels, ix.levels, ix.level_count * sizeof(gt_tlevel)) == 0);
	gt_model m2;
	ck_assert_msg(gt_gtx_model(&g, &m2, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(m2.span_count, m.span_count);
	ck_assert(memcmp(m2.spans, m.spans, m.span_count * sizeof(gt_span)) == 0);
	ck_assert(memcmp(m2.flows, m.flows, 2 * sizeof(gt_flow)) == 0);
	ck_assert(memcmp(m2.series, m.series, sizeof(gt_counter_series)) == 0);
	ck_assert(m2.samples[1].value == -0.25 && m2.samples[1].ts_ns == 20);
	ck_assert(m2.tracks[1].tid.is_str && m2.tracks[1].tid.str == 3 && m2.tracks[1].sort_index == -4);
	for (uint32_t t = 0; t < m.track_count; t++) {
		ck_assert_uint_eq(m2.tracks[t].lane_base, m.tracks[t].lane_base);
		ck_assert_uint_eq(m2.tracks[t].span_count, m.tracks[t].span_count);
	}
	ck_assert_uint_eq(m2.strings.count, m.strings.count);
	for (uint32_t s = 0; s < m.strings.count; s++)
		ck_assert_str_eq(gt_model_str(&m2, s), gt_model_str(&m, s));
	ck_assert(memcmp(m2.groups, m.groups, sizeof m.groups) == 0);
	ck_assert(memcmp(&m2.stats, &m.stats, sizeof m.stats) == 0);
	ck_assert_str_eq(m2.metadata_json, "{\"k\": 1}");
	ck_assert_str_eq(m2.source, "synthetic");
	ck_assert_int_eq(m2.start_ns, m.start_ns);
	ck_assert_int_eq(m2.end_ns, m.end_ns);
	/* writing the restored model again gives the same bytes */
	char *path2 = tmp_path("rt2.gtx");
	ck_assert_int_eq(gt_gtx_write(path2, &m2, &g.ix, &src, &err), 0);
	size_t l1, l2;
	void *b1 = read_file(path, &l1), *b2 = read_file(path2, &l2);
	ck_assert_uint_eq(l1, l2);
	ck_assert(memcmp(b1, b2, l1) == 0);
	gt_gtx_close(&g);
	/* loaded in place, the tables are the file's read-only mapping: a
	 * stray write faults instead of a page a release would revert */
	gt_model m4;
	ck_assert_msg(gt_model_load(&m4, path, NULL, &err) == 0, "%s", err.msg);
	ck_assert(gt_model_borrows(&m4, m4.spans) && gt_model_borrows(&m4, m4.flows));
	ck_assert(memcmp(m4.spans, m.spans, m.span_count * sizeof(gt_span)) == 0);
	ck_assert_str_eq(mapping_perms(m4.spans), "r--p");
	ck_assert_str_eq(mapping_perms(m4.flows), "r--p");
	gt_model_release_spans(&m4); /* given back, read again from the file */
	ck_assert(memcmp(m4.spans, m.spans, m.span_count * sizeof(gt_span)) == 0);
	gt_model_free(&m4);
	/* every truncation and a flipped byte in each 4 KiB give a clean error */
	for (size_t cut = 0; cut < l1; cut += l1 / 97 + 1) {
		write_file(path2, b1, cut);
		gt_error e2 = {0};
		gt_model m3;
		ck_assert_int_eq(gt_model_load(&m3, path2, NULL, &e2), -1);
		ck_assert_int_eq(e2.status, GT_EINPUT);
	}
	unsigned char *c = malloc(l1);
	for (size_t at = 0; at < l1; at += 4093) {
		memcpy(c, b1, l1);
		c[at] ^= 0x5a;
		write_file(path2, c, l1);
		gt_error e2 = {0};
		gt_model m3;
		int rc = gt_model_load(&m3, path2, NULL, &e2);
		if (rc == 0) /* only padding bytes may change unnoticed */
			gt_model_free(&m3);
		else
			ck_assert_int_eq(e2.status, GT_EINPUT);
	}
	free(c), free(b1), free(b2);
	unlink(path), unlink(path2);
	free(path), free(path2);
	gt_model_free(&m2);
	gt_tindex_free(&ix);
	gt_model_free(&m);
}
END_TEST

/* Growing a model by appended spans: update == full rebuild, file bytes
 * included, and only the tail partitions are rebuilt. */
START_TEST(update_equals_rebuild)
{
	gt_model full;
	gt_error err = {0};
	ck_assert_int_eq(gt_synth_model(&full, 60000, 6, 3, 5, &err), 0);
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	p.batch_spans = 32;
	p.partition_batches = 16;
	p.epoch_spans = 8192;
	uint32_t cuts[] = {0, 1, 8191, 30000, 59999, 60000};
	for (int c = 0; c < 6; c++) {
		gt_model part = full;
		part.span_count = cuts[c];
		gt_tindex old, upd, reb;
		uint32_t rebuilt;
		ck_assert_int_eq(gt_tindex_build(&old, &part, &p, &err), 0);
		ck_assert_int_eq(gt_tindex_update(&upd, &old, &full, &rebuilt, &err), 0);
		ck_assert_int_eq(gt_tindex_build(&reb, &full, &p, &err), 0);
		gt_gtx_source src = {1, 1, 1};
		char *a = tmp_path("upd.gtx"), *b = tmp_path("reb.gtx");
		ck_assert_int_eq(gt_gtx_write(a, &full, &upd, &src, &err), 0);
		ck_assert_int_eq(gt_gtx_write(b, &full, &reb, &src, &err), 0);
		size_t la, lb;
		void *ba = read_file(a, &la), *bb = read_file(b, &lb);
		ck_assert_uint_eq(la, lb);
		ck_assert(memcmp(ba, bb, la) == 0);
		/* only partitions from the first changed epoch on */
		uint32_t first_epoch_batch = reb.batch_count;
		for (uint32_t k = 0; k < reb.batch_count; k++)
			if (reb.batches[k].first >= cuts[c] / p.epoch_spans * p.epoch_spans) {
				first_epoch_batch = k;
				break;
			}
		ck_assert_uint_le(rebuilt, reb.partition_count - first_epoch_batch / p.partition_batches);
		if (cuts[c] == 60000)
			ck_assert_uint_eq(rebuilt, 0);
		free(ba), free(bb);
		unlink(a), unlink(b);
		free(a), free(b);
		gt_tindex_free(&old), gt_tindex_free(&upd), gt_tindex_free(&reb);
	}
	gt_model_free(&full);
}
END_TEST

START_TEST(auto_level_is_stable)
{
	gt_model m;
	gt_error err = {0};
	ck_assert_int_eq(gt_synth_model(&m, 50000, 8, 4, 3, &err), 0);
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	gt_tindex ix;
	ck_assert_int_eq(gt_tindex_build(&ix, &m, &p, &err), 0);
	int64_t T = m.end_ns - m.start_ns;
	/* widths inside one power-of-two bracket pick one level */
	for (int64_t w = 1024; w < T; w *= 2) {
		uint32_t a = gt_tindex_auto_level(&ix, w + 1, T), b = gt_tindex_auto_level(&ix, 2 * w, T);
		ck_assert_uint_eq(a, b);
		ck_assert_uint_lt(a, ix.level_count);
	}
	gt_tindex_free(&ix);
	gt_model_free(&m);
}
END_TEST

int main(void)
{
	const gt_test core[] = {
		GT_LOOP(random_queries, 4),
		GT_TEST(many_groups),
		GT_LOOP(order_by_group_band_start_id, 2),
		GT_LOOP(cut_on_threads_follows_the_rule, 3),
		GT_TEST(reach_with_directory),
		GT_TEST(corrupted_hierarchy),
		GT_TEST(file_round_trip),
		GT_TEST(update_equals_rebuild),
		GT_TEST(auto_level_is_stable),
		{0},
	};
	const gt_tcase cases[] = {{"core", 600, core}, {0}};
	return gt_run_cases("tindex", cases);
}
