/* The critical path: hand-checked golden cases for the host reference, and
 * property tests comparing every output of every OpenCL device with it on
 * random forests (clean, cycles, bad parents, negative durations, ties,
 * overflow, chains over 1M long, small --max-rows-per-pass, truncation), and
 * the fast host path (gt_critpath_fast) against it on all of them.
 * Also the program cache: two processes filling it at once, and a corrupt
 * entry being rebuilt. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "forest/forest.h"
#include "testutil.h"

#define R GT_CP_ROOT
#define NONE GT_CP_NONE

/* --- random forests ------------------------------------------------------ */

static uint64_t rng_state;
static uint64_t rnd(void)
{
	return gt_splitmix64(&rng_state);
}

typedef struct {
	uint32_t n;
	uint32_t *parent;
	int64_t *dur;
} forest;

static forest forest_new(uint32_t n)
{
	forest f = {n, malloc((n ? n : 1) * sizeof(uint32_t)), malloc((n ? n : 1) * sizeof(int64_t))};
	ck_assert(f.parent && f.dur);
	return f;
}

static void forest_free(forest *f)
{
	free(f->parent);
	free(f->dur);
}

/* Parents point anywhere (not only to lower indices), so chains run in
 * both directions through the arrays. */
static forest random_forest(uint32_t n, unsigned root_pct, int64_t max_dur)
{
	forest f = forest_new(n);
	uint32_t *perm = malloc((n ? n : 1) * sizeof *perm);
	ck_assert(perm);
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(rnd() % i), t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	/* perm gives a topological order: a row's parent comes earlier in it. */
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = perm[k];
		f.parent[i] = k == 0 || rnd() % 100 < root_pct ? R : perm[rnd() % k];
		f.dur[i] = max_dur ? (int64_t)(rnd() % (uint64_t)(max_dur + 1)) : 0;
	}
	free(perm);
	return f;
}

/* --- comparison on every device --------------------------------------------- */

static void assert_same(const gt_cp_rows *a, const gt_cp_summary *sa, const gt_cp_rows *b,
			const gt_cp_summary *sb, uint32_t n, const char *what)
{
	ck_assert_msg(sa->max_path_duration == sb->max_path_duration, "%s: max %" PRId64 " vs %" PRId64, what,
		      sa->max_path_duration, sb->max_path_duration);
	ck_assert_msg(sa->endpoint == sb->endpoint, "%s: endpoint %u vs %u", what, sa->endpoint, sb->endpoint);
	ck_assert_msg(sa->max_hop_count == sb->max_hop_count, "%s: max hop", what);
	ck_assert_msg(sa->flags == sb->flags, "%s: flags %u vs %u", what, sa->flags, sb->flags);
	ck_assert_msg(sa->path_rows == sb->path_rows && sa->marked_rows == sb->marked_rows, "%s: path rows", what);
	/* Plain comparisons: every ck_assert is a message to Check's parent
	 * process, too slow per row. */
	for (uint32_t i = 0; i < n; i++) {
		if (a->path_duration[i] != b->path_duration[i] || a->slack[i] != b->slack[i] ||
		    a->critical_predecessor[i] != b->critical_predecessor[i] || a->root[i] != b->root[i] ||
		    a->hop_count[i] != b->hop_count[i] || a->critical_mask[i] != b->critical_mask[i])
			ck_abort_msg("%s: row %u differs: path_duration %" PRId64 "/%" PRId64 " slack %" PRId64 "/%" PRId64
				     " pred %u/%u root %u/%u hop %u/%u mask %u/%u", what, i, a->path_duration[i],
				     b->path_duration[i], a->slack[i], b->slack[i], a->critical_predecessor[i],
				     b->critical_predecessor[i], a->root[i], b->root[i], a->hop_count[i], b->hop_count[i],
				     a->critical_mask[i], b->critical_mask[i]);
	}
}

/* Checks invariants of the reference that do not need a second opinion. */
static void check_reference(const forest *f, const gt_cp_rows *o, const gt_cp_summary *s)
{
	uint32_t marked = 0;
	for (uint32_t i = 0; i < f->n; i++) {
		bool ok;
		uint32_t p = f->parent[i];
		if (o->root[i] == NONE) {
			ok = o->path_duration[i] == -1 && o->slack[i] == -1 && o->hop_count[i] == NONE &&
			     o->critical_predecessor[i] == NONE && !o->critical_mask[i];
		} else {
			ok = o->critical_predecessor[i] == p && o->slack[i] >= 0 &&
			     o->slack[i] == s->max_path_duration - o->path_duration[i] &&
			     (o->slack[i] > 0 || i >= s->endpoint);
			if (p == R)
				ok = ok && o->root[i] == i && o->hop_count[i] == 0 && o->path_duration[i] == f->dur[i];
			else
				ok = ok && o->root[i] == o->root[p] && o->hop_count[i] == o->hop_count[p] + 1 &&
				     o->path_duration[i] == o->path_duration[p] + f->dur[i];
			marked += o->critical_mask[i];
		}
		if (!ok)
			ck_abort_msg("reference row %u breaks an invariant", i);
	}
	ck_assert_uint_eq(marked, s->marked_rows);
}


static int gpu_count(void)
{
	gt_cl_device_info *infos;
	size_t n;
	int gpus = 0;
	gt_error err = {0};
	ck_assert_msg(gt_cl_list(&infos, &n, &err) == 0, "%s", err.msg);
	for (size_t i = 0; i < n; i++)
		gpus += infos[i].is_gpu;
	free(infos);
	return gpus;
}

/* gt_critpath_cl_fill's input: copied from the forest a piece at a time
 * into arrays that start as garbage; fails at row fail_at when set. */
struct fill_from {
	const forest *f;
	uint32_t *parent;
	int64_t *dur;
	uint64_t next, fail_at;
};

static int fill_piece(void *ctx, uint64_t first, uint64_t end)
{
	struct fill_from *ff = ctx;
	ck_assert_msg(first == ff->next && end > first, "pieces out of order: %llu..%llu after %llu",
		      (unsigned long long)first, (unsigned long long)end, (unsigned long long)ff->next);
	if (ff->fail_at && end > ff->fail_at)
		return 1;
	memcpy(ff->parent + first, ff->f->parent + first, (end - first) * sizeof *ff->parent);
	memcpy(ff->dur + first, ff->f->dur + first, (end - first) * sizeof *ff->dur);
	ff->next = end;
	return 0;
}

/* The device run over input produced in pieces of every size, and one
 * whose producer fails part way: an error, no crash, nothing left queued. */
static void compare_filled(gt_cl *cl, const forest *f, const gt_cp_options *opt, const gt_cp_rows *ref,
			   const gt_cp_summary *sref, gt_cp_rows *dev, const char *label)
{
	size_t n = f->n ? f->n : 1;
	uint32_t *parent = malloc(n * sizeof *parent);
	int64_t *dur = malloc(n * sizeof *dur);
	ck_assert(parent && dur);
	/* pieces of a few rows only on small forests: each is a copy of its own */
	const uint64_t pieces[] = {f->n / 2 + 1, 0, 1, 3, 97};
	size_t kinds = f->n <= 50000 ? 5 : 2;
	for (size_t k = 0; k < kinds; k++) {
		memset(parent, 0x5a, n * sizeof *parent);
		memset(dur, 0x5a, n * sizeof *dur);
		struct fill_from ff = {f, parent, dur, 0, 0};
		gt_cp_fill fill = {fill_piece, &ff, pieces[k]};
		gt_cp_summary sdev;
		gt_error err = {0};
		char what[300];
		snprintf(what, sizeof what, "%s, filled in pieces of %llu rows", label, (unsigned long long)pieces[k]);
		ck_assert_msg(gt_critpath_cl_fill(cl, parent, dur, f->n, &fill, opt, dev, &sdev, NULL, &err) == 0,
			      "%s: %s", what, err.msg);
		ck_assert_msg(ff.next == f->n, "%s: %llu of %u rows filled", what, (unsigned long long)ff.next, f->n);
		assert_same(ref, sref, dev, &sdev, f->n, what);
	}
	if (f->n > 8) {
		struct fill_from ff = {f, parent, dur, 0, f->n / 2};
		gt_cp_fill fill = {fill_piece, &ff, 3};
		gt_cp_summary sdev;
		gt_error err = {0};
		ck_assert_msg(gt_critpath_cl_fill(cl, parent, dur, f->n, &fill, opt, dev, &sdev, NULL, &err) < 0 &&
				      err.status == GT_EDEVICE && strstr(err.msg, "producing rows"),
			      "%s: a failing producer gave '%s'", label, err.msg);
	}
	free(parent);
	free(dur);
}

/* Runs the reference, checks it, and compares every device with it. */
static void compare_all(const forest *f, const gt_cp_options *opt, const char *what)
{
	gt_error err = {0};
	gt_cp_rows ref, dev;
	gt_cp_summary sref, sdev;
	ck_assert(gt_cp_rows_alloc(&ref, f->n, &err) == 0);
	ck_assert(gt_cp_rows_alloc(&dev, f->n, &err) == 0);
	ck_assert_msg(gt_critpath_host(f->parent, f->dur, f->n, opt, &ref, &sref, &err) == 0, "%s", err.msg);
	check_reference(f, &ref, &sref);
	/* The fast host path on one thread, on blocks of every size, and
	 * on one per core (default). */
	static const unsigned threads[] = {1, 2, 3, 7, 16, 0};
	for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
		char label[256];
		gt_cp_options o = opt ? *opt : (gt_cp_options){0};
		o.threads = threads[t];
		snprintf(label, sizeof label, "%s on the fast host path, %u threads", what, threads[t]);
		memset(dev.path_duration, 0x5a, (f->n ? f->n : 1) * sizeof(int64_t));
		memset(dev.critical_mask, 0x5a, f->n ? f->n : 1);
		ck_assert_msg(gt_critpath_fast(f->parent, f->dur, f->n, &o, &dev, &sdev, &err) == 0, "%s", err.msg);
		assert_same(&ref, &sref, &dev, &sdev, f->n, label);
	}
	int ndev = gt_test_device_count();
	for (int d = 0; d < ndev; d++) {
		char spec[16], label[256];
		snprintf(spec, sizeof spec, "%d", d);
		gt_cl *cl;
		ck_assert_msg(gt_cl_open(&cl, spec, NULL, 0, &err) == 0, "%s", err.msg);
		snprintf(label, sizeof label, "%s on %s", what, gt_cl_device_name(cl));
		memset(dev.path_duration, 0x5a, f->n * sizeof(int64_t));
		ck_assert_msg(gt_critpath_cl(cl, f->parent, f->dur, f->n, opt, &dev, &sdev, NULL, &err) == 0, "%s",
			      err.msg);
		assert_same(&ref, &sref, &dev, &sdev, f->n, label);
		compare_filled(cl, f, opt, &ref, &sref, &dev, label);
		/* path_only: the same summary, and the same path rows */
		gt_cp_options po = opt ? *opt : (gt_cp_options){0};
		po.path_only = true;
		memset(dev.path_duration, 0x5a, (f->n ? f->n : 1) * sizeof(int64_t));
		memset(dev.critical_mask, 0x5a, f->n ? f->n : 1);
		ck_assert_msg(gt_critpath_cl(cl, f->parent, f->dur, f->n, &po, &dev, &sdev, NULL, &err) == 0, "%s",
			      err.msg);
		ck_assert_msg(memcmp(&sref, &sdev, sizeof sref) == 0, "%s, path only: the summary differs", label);
		uint32_t k = 0;
		for (uint32_t r = sref.endpoint; r != GT_CP_NONE && k <= f->n; r = ref.critical_predecessor[r], k++) {
			ck_assert_msg(dev.critical_mask[r] == ref.critical_mask[r] &&
					      dev.critical_predecessor[r] == ref.critical_predecessor[r] &&
					      dev.path_duration[r] == ref.path_duration[r],
				      "%s, path only: path row %u differs", label, r);
		}
		gt_cl_close(cl);
	}
	gt_cp_rows_free(&ref);
	gt_cp_rows_free(&dev);
}

/* --- golden cases ---------------------------------------------------------- */

static void run_host(const uint32_t *parent, const int64_t *dur, uint32_t n, uint32_t max_len, gt_cp_rows *o,
		     gt_cp_summary *s)
{
	gt_error err = {0};
	gt_cp_options opt = {.max_path_length = max_len};
	ck_assert(gt_cp_rows_alloc(o, n, &err) == 0);
	ck_assert_msg(gt_critpath_host(parent, dur, n, &opt, o, s, &err) == 0, "%s", err.msg);
	forest f = {n, (uint32_t *)parent, (int64_t *)dur};
	compare_all(&f, &opt, "golden");
}

START_TEST(golden_clean)
{
	/* 0 (5) <- 1 (3) <- 2 (4); 0 <- 3 (7); 4 (2) alone. Rows 2 and 3 tie at 12. */
	static const uint32_t parent[] = {R, 0, 1, 0, R};
	static const int64_t dur[] = {5, 3, 4, 7, 2};
	static const int64_t pd[] = {5, 8, 12, 12, 2}, slack[] = {7, 4, 0, 0, 10};
	static const uint32_t root[] = {0, 0, 0, 0, 4}, hop[] = {0, 1, 2, 1, 0}, pred[] = {NONE, 0, 1, 0, NONE};
	static const uint8_t mask[] = {1, 1, 1, 0, 0};
	gt_cp_rows o;
	gt_cp_summary s;
	run_host(parent, dur, 5, 0, &o, &s);
	ck_assert(s.max_path_duration == 12 && s.endpoint == 2 && s.max_hop_count == 2 && s.flags == 0);
	ck_assert(s.path_rows == 3 && s.marked_rows == 3);
	for (int i = 0; i < 5; i++) {
		ck_assert(o.path_duration[i] == pd[i] && o.slack[i] == slack[i] && o.root[i] == root[i]);
		ck_assert(o.hop_count[i] == hop[i] && o.critical_predecessor[i] == pred[i] && o.critical_mask[i] == mask[i]);
	}
	gt_cp_rows_free(&o);
	/* Truncated to 2 rows: the first two from the root. */
	run_host(parent, dur, 5, 2, &o, &s);
	ck_assert(s.flags == GT_CP_PATH_TRUNCATED && s.path_rows == 3 && s.marked_rows == 2);
	ck_assert(o.critical_mask[0] == 1 && o.critical_mask[1] == 1 && o.critical_mask[2] == 0);
	gt_cp_rows_free(&o);
}
END_TEST

START_TEST(golden_invalid)
{
	/* 1: parent out of range; 2 hangs below it; 3: self-loop; 4: negative;
	 * 5 hangs below 4; 6 -> 7 -> 6 a cycle; 8 leads into it. */
	static const uint32_t parent[] = {R, 9, 1, 3, 0, 4, 7, 6, 6};
	static const int64_t dur[] = {1, 1, 1, 1, -1, 10, 1, 1, 1};
	gt_cp_rows o;
	gt_cp_summary s;
	run_host(parent, dur, 9, 0, &o, &s);
	ck_assert_uint_eq(s.flags, GT_CP_INVALID_PARENT | GT_CP_INVALID_DURATION | GT_CP_CYCLE);
	ck_assert(s.endpoint == 0 && s.max_path_duration == 1 && s.max_hop_count == 0 && s.marked_rows == 1);
	ck_assert(o.path_duration[0] == 1 && o.slack[0] == 0 && o.root[0] == 0 && o.critical_mask[0] == 1);
	for (int i = 1; i < 9; i++)
		ck_assert(o.path_duration[i] == -1 && o.slack[i] == -1 && o.root[i] == NONE &&
			  o.hop_count[i] == NONE && o.critical_predecessor[i] == NONE && o.critical_mask[i] == 0);
	gt_cp_rows_free(&o);
}
END_TEST

START_TEST(golden_overflow)
{
	/* Row 1's sum is 2^63: it overflows and cannot win; row 2 is fine. */
	static const uint32_t parent[] = {R, 0, 0, R};
	static const int64_t dur[] = {INT64_MAX - 5, 6, 5, 0};
	gt_cp_rows o;
	gt_cp_summary s;
	run_host(parent, dur, 4, 0, &o, &s);
	ck_assert_uint_eq(s.flags, GT_CP_OVERFLOW);
	ck_assert(s.endpoint == 2 && s.max_path_duration == INT64_MAX && s.max_hop_count == 1);
	ck_assert(o.root[1] == NONE && o.path_duration[1] == -1 && o.slack[3] == INT64_MAX);
	gt_cp_rows_free(&o);
}
END_TEST

START_TEST(golden_empty)
{
	gt_cp_rows o;
	gt_cp_summary s;
	run_host(NULL, NULL, 0, 0, &o, &s);
	ck_assert(s.endpoint == NONE && s.max_path_duration == 0 && s.flags == 0 && s.path_rows == 0);
	gt_cp_rows_free(&o);
}
END_TEST

/* --- property tests ------------------------------------------------------------ */

START_TEST(random_clean)
{
	rng_state = 1000 + (uint64_t)_i;
	uint32_t sizes[] = {1, 2, 3, 17, 256, 257, 1000, 4099, 100000};
	forest f = random_forest(sizes[_i], 5, 1000000);
	compare_all(&f, NULL, "clean");
	forest_free(&f);
}
END_TEST

START_TEST(random_ties)
{
	rng_state = 2000 + (uint64_t)_i;
	forest f = random_forest(20000, _i ? 1 : 30, _i); /* durations all 0, or 0/1 */
	compare_all(&f, NULL, "ties");
	forest_free(&f);
}
END_TEST

START_TEST(random_invalid)
{
	rng_state = 3000 + (uint64_t)_i;
	forest f = random_forest(30000, 3, 1000);
	for (int k = 0; k < 40; k++) {
		uint32_t i = (uint32_t)(rnd() % f.n);
		switch ((k + _i) % 4) {
		case 0: f.parent[i] = (uint32_t)(rnd() % f.n); break; /* may close a cycle */
		case 1: f.parent[i] = i; break;                       /* self-loop */
		case 2: f.parent[i] = f.n + (uint32_t)(rnd() % 1000) * (k & 1 ? 1 : 4000000u); break;
		case 3: f.dur[i] = -(int64_t)(rnd() % 5) - 1; break;
		}
	}
	compare_all(&f, NULL, "invalid");
	forest_free(&f);
}
END_TEST

START_TEST(random_overflow)
{
	rng_state = 4000 + (uint64_t)_i;
	forest f = random_forest(5000, 2, INT64_MAX / 16);
	compare_all(&f, NULL, "overflow");
	forest_free(&f);
}
END_TEST

/* Forests whose parents mostly come before their children (as in traces:
 * a span's parent opens first), with forward links, cycles, bad rows and
 * sums near the overflow limit: the fast host path's blocks, anchors and
 * walks against the reference. */
START_TEST(ordered_forests)
{
	rng_state = 6000 + (uint64_t)_i;
	uint32_t n = _i < 4 ? 50000 : 3000;
	forest f = forest_new(n);
	int64_t max_dur = _i % 4 == 3 ? INT64_MAX / 12 : 1000000;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t back = (uint32_t)(rnd() % (_i % 2 ? 64 : (i ? i : 1))) + 1; /* near, or uniform */
		f.parent[i] = i == 0 || rnd() % 100 < 2 || back > i ? R : i - back;
		f.dur[i] = (int64_t)(rnd() % (uint64_t)max_dur);
	}
	for (int k = 0; _i % 4 >= 2 && k < 30; k++) {
		uint32_t i = (uint32_t)(rnd() % n);
		switch (k % 5) {
		case 0: f.parent[i] = (uint32_t)(rnd() % n); break; /* forward link, may close a cycle */
		case 1: f.parent[i] = i; break;
		case 2: f.parent[i] = n + (uint32_t)(rnd() % 7); break;
		case 3: f.dur[i] = -1; break;
		case 4: if (i + 1 < n) f.parent[i] = i + 1; break;
		}
	}
	compare_all(&f, NULL, "ordered");
	forest_free(&f);
}
END_TEST

/* A sum that overflows within a block but hangs from an invalid row (no
 * overflow flag) or from a valid one (the flag): blocks of two rows. */
START_TEST(fast_anchor_overflow)
{
	int64_t big = INT64_MAX / 2 + 1;
	uint32_t parent[6] = {_i ? R : 99, 0, 1, 2, 3, 4};
	int64_t dur[6] = {1, 1, big, big, 1, 1};
	forest f = {6, parent, dur};
	compare_all(&f, NULL, "anchor overflow");
}
END_TEST

/* Chains over 1M rows long, forwards, backwards and through a cycle. */
START_TEST(long_chain)
{
	uint32_t n = 1200000;
	forest f = forest_new(n);
	for (uint32_t i = 0; i < n; i++) {
		f.parent[i] = _i == 0 ? (i ? i - 1 : R) : (i + 1 < n ? i + 1 : R);
		f.dur[i] = (int64_t)(i % 7);
	}
	if (_i == 2)
		f.parent[n - 1] = n / 2; /* the upper half becomes a cycle */
	f.parent[12345] = _i == 0 ? 12000 : 13000; /* a branch */
	gt_cp_options opt = {.max_path_length = _i == 1 ? 1000 : 0};
	compare_all(&f, &opt, "chain");
	forest_free(&f);
}
END_TEST

START_TEST(small_pieces)
{
	rng_state = 5000 + (uint64_t)_i;
	static const uint64_t pieces[] = {1, 3, 64, 100, 1000};
	forest f = random_forest(_i == 0 ? 300 : 5000, 4, 100);
	f.parent[7] = 7;
	f.dur[9] = -2;
	gt_cp_options opt = {.max_rows_per_pass = pieces[_i], .max_path_length = _i == 3 ? 2 : 0};
	compare_all(&f, &opt, "pieces");
	forest_free(&f);
}
END_TEST

START_TEST(truncation)
{
	rng_state = 6000 + (uint64_t)_i;
	forest f = random_forest(3000, 0, 50); /* one tree: a deep path */
	gt_cp_options opt = {.max_path_length = (uint32_t)_i + 1};
	compare_all(&f, &opt, "truncation");
	forest_free(&f);
}
END_TEST

/* --- the program cache ----------------------------------------------------------- */

static char cache_home[256];

static void use_fresh_cache(void)
{
	snprintf(cache_home, sizeof cache_home, "/tmp/gputrace-cache-test.%ld", (long)getpid());
	mkdir(cache_home, 0700);
	/* PoCL keeps its own kernel cache under XDG_CACHE_HOME too: leave that
	 * one where it was, or every device kernel would recompile (slowly). */
	if (!getenv("POCL_CACHE_DIR")) {
		char pocl[512];
		const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
		if (xdg && *xdg)
			snprintf(pocl, sizeof pocl, "%s/pocl/kcache", xdg);
		else
			snprintf(pocl, sizeof pocl, "%s/.cache/pocl/kcache", home ? home : "/tmp");
		setenv("POCL_CACHE_DIR", pocl, 1);
	}
	setenv("XDG_CACHE_HOME", cache_home, 1);
}

static void remove_cache(void)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_home);
	ck_assert(system(cmd) == 0);
}

/* Opens device 0, builds critpath, runs a small forest against the host. */
static int build_and_run(bool *cached, char *path, size_t path_len)
{
	gt_error err = {0};
	gt_cl *cl;
	cl_program p;
	if (gt_cl_open(&cl, "0", NULL, 0, &err) < 0 || gt_cl_program(cl, "critpath", &p, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	if (cached)
		*cached = gt_cl_last_program_cached(cl);
	if (path)
		ck_assert(gt_cl_cache_path(cl, "critpath", path, path_len) == 0);
	gt_cl_close(cl);
	forest f = random_forest(500, 5, 100);
	compare_all(&f, NULL, "cache");
	forest_free(&f);
	return 0;
}

START_TEST(cache_concurrent)
{
	/* No OpenCL call before the forks: a forked OpenCL runtime hangs. */
	use_fresh_cache();
	int go[2];
	ck_assert(pipe(go) == 0);
	pid_t kids[2];
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		ck_assert(kids[k] >= 0);
		if (kids[k] == 0) {
			char c;
			close(go[1]);
			if (read(go[0], &c, 1) != 0) /* both start when the pipe closes */
				_exit(2);
			if (gt_test_device_count() == 0)
				_exit(0);
			_exit(build_and_run(NULL, NULL, 0) == 0 ? 0 : 1);
		}
	}
	close(go[0]);
	close(go[1]);
	for (int k = 0; k < 2; k++) {
		int st;
		ck_assert(waitpid(kids[k], &st, 0) == kids[k]);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "builder %d failed", k);
	}
	bool cached = false;
	if (gt_test_device_count() > 0) {
		ck_assert(build_and_run(&cached, NULL, 0) == 0);
		ck_assert_msg(cached, "the entry two processes wrote is not usable");
	}
	remove_cache();
}
END_TEST

START_TEST(cache_corrupt)
{
	if (gt_test_device_count() == 0)
		return;
	use_fresh_cache();
	char path[4096];
	bool cached = true;
	ck_assert(build_and_run(&cached, path, sizeof path) == 0);
	ck_assert(!cached);
	ck_assert(build_and_run(&cached, NULL, 0) == 0);
	ck_assert(cached);
	struct stat sb;
	ck_assert(stat(path, &sb) == 0);
	/* A flipped payload byte, then a truncated file: both rebuilt. */
	FILE *fp = fopen(path, "r+b");
	ck_assert(fp);
	fseek(fp, sb.st_size / 2, SEEK_SET);
	int c = fgetc(fp);
	fseek(fp, sb.st_size / 2, SEEK_SET);
	fputc(c ^ 0x40, fp);
	fclose(fp);
	ck_assert(build_and_run(&cached, NULL, 0) == 0);
	ck_assert_msg(!cached, "a corrupt entry was used");
	ck_assert(build_and_run(&cached, NULL, 0) == 0);
	ck_assert(cached);
	ck_assert(truncate(path, sb.st_size / 3) == 0);
	ck_assert(build_and_run(&cached, NULL, 0) == 0);
	ck_assert_msg(!cached, "a short entry was used");
	ck_assert(build_and_run(&cached, NULL, 0) == 0);
	ck_assert(cached);
	/* A foreign entry (another device, driver or source: another key in
	 * its header) and one whose header and checksum hold but whose payload
	 * is not a program: both rebuilt. */
	fp = fopen(path, "r+b");
	ck_assert(fp);
	fseek(fp, 8, SEEK_SET); /* the key, after the magic */
	c = fgetc(fp);
	fseek(fp, 8, SEEK_SET);
	fputc(c ^ 1, fp);
	fclose(fp);
	ck_assert(build_and_run(&cached, NULL, 0) == 0);
	ck_assert_msg(!cached, "a foreign entry was used");
	ck_assert(build_and_run(&cached, NULL, 0) == 0);
	ck_assert(cached);
	fp = fopen(path, "r+b");
	ck_assert(fp);
	uint64_t head[4]; /* magic, key, length, checksum */
	ck_assert(fread(head, sizeof head, 1, fp) == 1);
	unsigned char junk[64];
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, as the cache checks it */
	for (size_t i = 0; i < sizeof junk; i++) {
		junk[i] = (unsigned char)(i * 37 + 11);
		h = (h ^ junk[i]) * 0x100000001b3ull;
	}
	head[2] = sizeof junk;
	head[3] = h;
	fclose(fp);
	fp = fopen(path, "wb");
	ck_assert(fp && fwrite(head, sizeof head, 1, fp) == 1 && fwrite(junk, sizeof junk, 1, fp) == 1);
	fclose(fp);
	ck_assert(build_and_run(&cached, NULL, 0) == 0);
	ck_assert_msg(!cached, "a well-formed entry holding no program was used");
	ck_assert(build_and_run(&cached, NULL, 0) == 0);
	ck_assert_msg(cached, "the rebuilt entry is not used");
	remove_cache();
}
END_TEST

START_TEST(device_choice)
{
	gt_error err = {0};
	gt_cl *cl = (gt_cl *)1;
	char chosen[256];
	ck_assert(gt_cl_open(&cl, "host", chosen, sizeof chosen, &err) == 0 && cl == NULL);
	ck_assert(strstr(chosen, "host") != NULL);
	ck_assert(gt_cl_open(&cl, "no-such-device-xyz", NULL, 0, &err) < 0 && err.status == GT_EDEVICE);
	memset(&err, 0, sizeof err);
	ck_assert(gt_cl_open(&cl, "999", NULL, 0, &err) < 0 && err.status == GT_EDEVICE);
	memset(&err, 0, sizeof err);
	/* auto takes a GPU, never a CPU OpenCL device: else the host path */
	ck_assert(gt_cl_open(&cl, "auto", chosen, sizeof chosen, &err) == 0);
	ck_assert((cl != NULL) == (gpu_count() > 0));
	ck_assert(cl || strstr(chosen, "host") != NULL);
	gt_cl_close(cl);
	ck_assert_str_eq(gt_cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
	ck_assert_str_eq(gt_cl_error_name(CL_INVALID_KERNEL_ARGS), "CL_INVALID_KERNEL_ARGS");
}
END_TEST

int main(void)
{
	const gt_test golden[] = {
		GT_TEST(golden_clean),
		GT_TEST(golden_invalid),
		GT_TEST(golden_overflow),
		GT_TEST(golden_empty),
		GT_TEST(device_choice),
		{0},
	};
	const gt_test property[] = {
		GT_LOOP(random_clean, 9),
		GT_LOOP(random_ties, 2),
		GT_LOOP(random_invalid, 8),
		GT_LOOP(random_overflow, 3),
		GT_LOOP(long_chain, 3),
		GT_LOOP(ordered_forests, 8),
		GT_LOOP(fast_anchor_overflow, 2),
		GT_LOOP(small_pieces, 5),
		GT_LOOP(truncation, 4),
		{0},
	};
	const gt_test cache[] = {GT_TEST(cache_concurrent), GT_TEST(cache_corrupt), {0}};
	/* timeouts: the first device test compiles the kernels (slow under PoCL) */
	const gt_tcase cases[] = {{"golden", 120, golden}, {"property", 120, property}, {"cache", 240, cache}, {0}};
	return gt_run_cases("critpath", cases);
}
