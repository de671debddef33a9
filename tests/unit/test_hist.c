/* test_hist.c - the histogram against exact percentiles of known samples.
 *
 * For each distribution, 10^6 samples are recorded and also sorted; every
 * percentile the results report (and a sweep of others) must be within the
 * documented 0.4 % of the exact nearest-rank value. Merging per-part
 * histograms must give exactly the histogram of all the samples, and
 * merging an interval's per-op deltas the delta of both together. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/rng.h"
#include "tap.h"

#define N 1000000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

typedef uint64_t (*gen_fn)(struct rng *r);

static uint64_t gen_uniform(struct rng *r) { return 1000 + rng_below(r, 10000000); }   /* 1 us .. 10 ms */
static uint64_t gen_exp(struct rng *r) { return (uint64_t)(-log(1 - rng_unit(r)) * 250000.0); }
static uint64_t gen_bimodal(struct rng *r)
{
	/* 90 % cache hits near 80 us, 10 % misses near 8 ms */
	double base = rng_unit(r) < 0.9 ? 80000.0 : 8000000.0;

	return (uint64_t)(base * (0.8 + 0.4 * rng_unit(r)));
}
static uint64_t gen_pareto(struct rng *r) { return (uint64_t)(50000.0 / pow(1 - rng_unit(r), 1.0 / 1.1)); }
static uint64_t gen_tiny(struct rng *r) { return rng_below(r, 300); }           /* exact region */
static uint64_t gen_huge(struct rng *r) { return 3600000000000ull + rng_below(r, 3600000000000ull); } /* 1-2 h */

static int same_hist(const struct hist *x, const struct hist *y)
{
	return !memcmp(x->buckets, y->buckets, sizeof(x->buckets)) && x->count == y->count && x->sum == y->sum &&
	       x->sumsq == y->sumsq && x->min == y->min && x->max == y->max;
}

/* The top of the range. The top bucket holds [2^50 - 2^42, 2^50) and
 * everything above; the one below it, [2^50 - 2^43, 2^50 - 2^42). A
 * percentile that falls in a bucket reads its midpoint, clamped to the
 * exact min and max. */
static void clamp_tests(struct hist *e)
{
	const unsigned top = HIST_BUCKETS - 1;
	const uint64_t lim = 1ull << HIST_MAX_BITS, top_lo = lim - (1ull << 42), below_lo = lim - (1ull << 43);
	const uint64_t top_mid = top_lo + ((1ull << 42) - 1) / 2, below_mid = below_lo + ((1ull << 42) - 1) / 2;
	uint64_t others = 0;

	ok(hist_bucket_low(top) == top_lo && hist_bucket_width(top) == 1ull << 42 && hist_bucket_low(top - 1) == below_lo,
	   "the top bucket is [2^50 - 2^42, 2^50), the one below starts at 2^50 - 2^43");
	ok(hist_index(top_lo - 1) == top - 1 && hist_index(top_lo) == top && hist_index(lim - 1) == top &&
		   hist_index(lim) == top && hist_index(lim + 1) == top && hist_index(UINT64_MAX) == top,
	   "values from 2^50 - 2^42 up, 2^50 and past it to 2^64 - 1 index the top bucket; 2^50 - 2^42 - 1 the one below");

	hist_init(e);
	hist_record(e, below_lo);
	hist_record(e, top_lo - 1); /* just below the top bucket: its own */
	hist_record(e, lim - 1);    /* the largest value resolved */
	hist_record(e, lim);        /* at the clamp */
	hist_record(e, 1ull << 60); /* above it: the max */
	for (unsigned i = 0; i < top - 1; i++)
		others += e->buckets[i];
	ok(e->buckets[top - 1] == 2 && e->buckets[top] == 3 && !others && e->count == 5,
	   "2^50 - 2^43 and 2^50 - 2^42 - 1 in the bucket below the top, 2^50 - 1, 2^50 and 2^60 in the top (%llu, %llu, %llu elsewhere)",
	   (unsigned long long)e->buckets[top - 1], (unsigned long long)e->buckets[top], (unsigned long long)others);
	ok(hist_percentile(e, 20) == below_mid && hist_percentile(e, 40) == below_mid,
	   "p20 and p40 are the midpoint of the bucket below the top (%llu)", (unsigned long long)hist_percentile(e, 40));
	ok(hist_percentile(e, 60) == top_mid && hist_percentile(e, 80) == top_mid && hist_percentile(e, 99) == top_mid,
	   "p60, p80 and p99 are the top bucket's midpoint (%llu)", (unsigned long long)hist_percentile(e, 99));
	ok(hist_percentile(e, 100) == 1ull << 60 && e->max == 1ull << 60 && hist_percentile(e, 0) == below_lo,
	   "p100 is the exact max 2^60, p0 the exact min");

	/* only values past the range: every percentile is clamped to them */
	hist_init(e);
	hist_record(e, lim + 12345);
	hist_record(e, UINT64_MAX / 2);
	hist_record(e, UINT64_MAX / 2);
	ok(e->buckets[top] == 3 && e->count == 3, "three values past 2^50: all in the top bucket");
	ok(hist_percentile(e, 33) == lim + 12345 && hist_percentile(e, 34) == lim + 12345 &&
		   hist_percentile(e, 100) == UINT64_MAX / 2,
	   "past the range: p33 and p34 read the exact min (the midpoint is below it), p100 the exact max");
	hist_init(e);
	hist_record(e, UINT64_MAX);
	hist_record(e, UINT64_MAX);
	ok(hist_percentile(e, 1) == UINT64_MAX && hist_percentile(e, 50) == UINT64_MAX && e->buckets[top] == 2,
	   "2^64 - 1: in the top bucket, and every percentile is exactly it");
}

/* hist_record_n(v, n) is n calls of hist_record(v), on every statistic:
 * against the loop where n is small, against the closed form where n is
 * too large to loop (n = 1e12), and where sum and sumsq wrap. */
static void record_n_tests(struct hist *x, struct hist *y)
{
	static const uint64_t vals[] = { 0, 5, 127, 128, 1000, 123456789, 1ull << 50, 1ull << 63, UINT64_MAX };
	static const uint64_t ns[] = { 0, 1, 2, 1000, 1u << 20 };
	const uint64_t big = 1000000000000ull, v = 1000;
	int bad = 0;

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (size_t j = 0; j < sizeof(ns) / sizeof(ns[0]); j++) {
			/* on top of earlier samples, so min, max and sums meet old values */
			hist_init(x);
			hist_record(x, 300);
			hist_record(x, 7000000);
			*y = *x;
			hist_record_n(x, vals[i], ns[j]);
			for (uint64_t k = 0; k < ns[j]; k++)
				hist_record(y, vals[i]);
			if (!same_hist(x, y)) {
				bad++;
				ok(0, "record_n(%llu, %llu) differs from the loop", (unsigned long long)vals[i],
				   (unsigned long long)ns[j]);
			}
		}
	ok(!bad, "record_n(v, n) equals n x record(v) on buckets, count, sum, sumsq, min, max (%zu values x %zu counts, "
		 "wrapping sums included)", sizeof(vals) / sizeof(vals[0]), sizeof(ns) / sizeof(ns[0]));
	hist_init(x);
	hist_record_n(x, v, big);
	ok(x->count == big && x->buckets[hist_index(v)] == big && x->sum == v * big &&
		   x->sumsq == (unsigned __int128)v * v * big && x->min == v && x->max == v,
	   "record_n(1000, 1e12): count, bucket, sum, sumsq, min, max are the closed-form values");
	ok(hist_mean(x) == 1000.0 && hist_stdev(x) == 0.0 && hist_percentile(x, 50) == v && hist_percentile(x, 99.9) == v,
	   "record_n(1000, 1e12): mean 1000, stdev 0, p50 = p99.9 = 1000");
	hist_record_n(x, 10, 1);
	ok(x->count == big + 1 && x->min == 10 && x->max == v && x->sum == v * big + 10,
	   "one more record after record_n keeps count, min, max and sum exact");
}

/* A snapshot of src's live counts, as phase.c takes one per interval. */
static void snap(struct hist *s, const struct hist *src)
{
	hist_init(s);
	hist_add_live(s, src);
}

/* An interval over both op types is the per-op deltas merged with
 * hist_merge (phase.c's interval_make): it must equal the delta of the two
 * op types' snapshots taken together, buckets, count, min and max; and an
 * op type without I/O in the interval (an empty delta) changes nothing. */
static void interval_merge_tests(void)
{
	struct hist *rd = malloc(sizeof(*rd)), *wr = malloc(sizeof(*wr)), *s[6], *d = malloc(sizeof(*d));
	struct hist *both = malloc(sizeof(*both)), *want = malloc(sizeof(*want));
	struct rng r;

	for (int i = 0; i < 6; i++)
		s[i] = malloc(sizeof(*s[i]));
	rng_seed(&r, 11, 11);
	hist_init(rd);
	hist_init(wr);
	for (int i = 0; i < 300; i++) {
		hist_record(rd, 20000 + rng_below(&r, 5000));
		hist_record(wr, 900000 + rng_below(&r, 90000));
	}
	snap(s[0], rd);
	snap(s[1], wr);
	for (int i = 0; i < 200; i++) {
		hist_record(rd, 40000 + rng_below(&r, 5000));
		hist_record(wr, 3000000 + rng_below(&r, 90000));
	}
	snap(s[2], rd);
	snap(s[3], wr);
	/* both op types in one snapshot, before and after */
	hist_init(s[4]);
	hist_add_live(s[4], s[0]);
	hist_add_live(s[4], s[1]);
	hist_init(s[5]);
	hist_add_live(s[5], s[2]);
	hist_add_live(s[5], s[3]);
	hist_delta(want, s[5], s[4]);
	hist_init(both);
	hist_delta(d, s[2], s[0]);
	hist_merge(both, d);
	hist_delta(d, s[3], s[1]);
	hist_merge(both, d);
	ok(!memcmp(both->buckets, want->buckets, sizeof(want->buckets)) && both->count == 400 &&
		   both->count == want->count && both->min == want->min && both->max == want->max &&
		   hist_percentile(both, 50) == hist_percentile(want, 50) && both->min <= 40000 &&
		   both->max >= 3089999,
	   "an interval's read and write deltas merged equal the delta of both together (count %llu, min %llu, max %llu)",
	   (unsigned long long)both->count, (unsigned long long)both->min, (unsigned long long)both->max);

	/* no writes in the interval: the write delta is empty */
	hist_init(both);
	hist_delta(d, s[2], s[0]);
	hist_merge(both, d);
	*want = *both;
	hist_delta(d, s[3], s[3]);
	hist_merge(both, d);
	ok(d->count == 0 && both->count == 200 && both->min == want->min && both->max == want->max &&
		   both->max < 50000 && !memcmp(both->buckets, want->buckets, sizeof(want->buckets)),
	   "an empty delta merged into an interval changes nothing (min %llu, max %llu)",
	   (unsigned long long)both->min, (unsigned long long)both->max);
	hist_init(both);
	hist_merge(both, d);
	ok(both->count == 0 && both->min == UINT64_MAX && both->max == 0 && hist_percentile(both, 99) == 0,
	   "an interval with no I/O at all stays empty: count 0, p99 0");
	for (int i = 0; i < 6; i++)
		free(s[i]);
	free(rd);
	free(wr);
	free(d);
	free(both);
	free(want);
}

int main(void)
{
	static const struct { const char *name; gen_fn gen; } dists[] = {
		{ "uniform", gen_uniform }, { "exponential", gen_exp }, { "bimodal", gen_bimodal },
		{ "heavy tail (pareto 1.1)", gen_pareto }, { "0..300 ns", gen_tiny }, { "1..2 hours", gen_huge },
	};
	static const double ps[] = { 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 99.999 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct hist *h = malloc(sizeof(*h)), *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *m = malloc(sizeof(*m));

	for (size_t d = 0; d < sizeof(dists) / sizeof(dists[0]); d++) {
		struct rng r;
		double worst = 0, sum = 0, sumsq = 0, mean, sd;
		uint64_t mn = UINT64_MAX, mx = 0;

		rng_seed(&r, 42, d);
		hist_init(h);
		hist_init(a);
		hist_init(b);
		for (size_t i = 0; i < N; i++) {
			v[i] = dists[d].gen(&r);
			hist_record(h, v[i]);
			hist_record(i % 3 ? a : b, v[i]);
			sum += (double)v[i];
			if (v[i] < mn)
				mn = v[i];
			if (v[i] > mx)
				mx = v[i];
		}
		qsort(v, N, sizeof(*v), cmp_u64);
		for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
			uint64_t want = exact_percentile(v, N, ps[i]), got = hist_percentile(h, ps[i]);
			double err = want ? fabs((double)got - (double)want) / (double)want : (double)(got != want);

			if (err > worst)
				worst = err;
		}
		ok(worst <= 0.004, "%s: worst percentile error %.4f %% <= 0.4 %%", dists[d].name, worst * 100);
		ok(h->count == N && h->min == mn && h->max == mx, "%s: count, min and max exact", dists[d].name);
		mean = sum / N;
		for (size_t i = 0; i < N; i++)
			sumsq += ((double)v[i] - mean) * ((double)v[i] - mean);
		sd = sqrt(sumsq / (N - 1));
		ok(fabs(hist_mean(h) - mean) <= 1e-9 * mean + 1e-9, "%s: mean %.3f exact (%.3f)", dists[d].name, hist_mean(h), mean);
		ok(fabs(hist_stdev(h) - sd) <= 1e-6 * sd + 1e-6, "%s: stdev %.3f exact (%.3f)", dists[d].name, hist_stdev(h), sd);
		ok(hist_percentile(h, 0) == mn && hist_percentile(h, 100) == mx, "%s: p0 is min, p100 is max", dists[d].name);

		hist_init(m);
		hist_merge(m, a);
		hist_merge(m, b);
		ok(!memcmp(m->buckets, h->buckets, sizeof(h->buckets)) && m->count == h->count && m->sum == h->sum &&
			   m->sumsq == h->sumsq && m->min == h->min && m->max == h->max,
		   "%s: merge of two parts equals recording all into one", dists[d].name);
	}

	/* every value's bucket midpoint is within 1/256 of it: a sweep */
	{
		double worst = 0;
		int bad = 0;

		for (uint64_t x = 1; x < (1ull << 49); x += x / 97 + 1) {
			unsigned i = hist_index(x);
			uint64_t lo = hist_bucket_low(i), w = hist_bucket_width(i), mid = lo + (w - 1) / 2;
			double err = fabs((double)mid - (double)x) / (double)x;

			if (x < lo || x >= lo + w)
				bad++;
			if (err > worst)
				worst = err;
		}
		ok(!bad, "every value lies in the bucket hist_index gives");
		ok(worst <= 1.0 / 256, "bucket midpoints within %.4f %% of every value (bound 0.39 %%)", worst * 100);
	}
	{
		struct hist *e = h;

		hist_init(e);
		ok(hist_percentile(e, 50) == 0 && hist_mean(e) == 0 && hist_stdev(e) == 0, "empty histogram reports zeros");
		hist_record(e, UINT64_MAX / 2);
		ok(hist_percentile(e, 50) == UINT64_MAX / 2, "a value past 2^50 ns is clamped to the exact max");
	}
	clamp_tests(h);
	/* live snapshots and deltas: the interval arithmetic */
	{
		struct rng r;

		rng_seed(&r, 7, 7);
		hist_init(h);
		hist_init(a);
		for (int i = 0; i < 1000; i++)
			hist_record(h, 100000 + rng_below(&r, 1000));
		hist_add_live(a, h);
		for (int i = 0; i < 500; i++)
			hist_record(h, 5000000 + rng_below(&r, 1000));
		hist_init(b);
		hist_add_live(b, h);
		hist_delta(m, b, a);
		ok(m->count == 500 && hist_percentile(m, 50) >= 4980000 && hist_percentile(m, 50) <= 5030000,
		   "delta of two snapshots holds only the later samples (count %llu, p50 %llu)",
		   (unsigned long long)m->count, (unsigned long long)hist_percentile(m, 50));
	}
	record_n_tests(h, a);
	interval_merge_tests();
	free(v);
	free(h);
	free(a);
	free(b);
	free(m);
	return tap_done();
}
