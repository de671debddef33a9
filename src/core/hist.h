/* hist.h - the log-linear latency histogram.
 *
 * Values are nanoseconds (any uint64_t quantity works). Below 128 every value
 * has its own bucket; above, every power of two is cut into 128 equal buckets,
 * so a bucket is at most 1/128 of its lower bound wide and its midpoint is
 * within 1/256 (0.39 %) of any value in it. Values up to 2^50 ns (13 days) are
 * resolved; larger ones land in the top bucket (the exact max is kept apart).
 *
 * One thread records into a histogram; another may take a snapshot of it at
 * any time (hist_add_live) for per-interval figures: counts are written and
 * read with relaxed atomics, which on x86-64 cost nothing over plain moves.
 * Merging is exact: merge(a, b) is the histogram of both sample sets.
 */
#ifndef IOMOON_HIST_H
#define IOMOON_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_BITS 50
#define HIST_BUCKETS (HIST_SUB + (HIST_MAX_BITS - HIST_SUB_BITS) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;           /* UINT64_MAX while empty */
	uint64_t max;
	unsigned __int128 sumsq; /* exact: for the standard deviation */
	uint64_t buckets[HIST_BUCKETS];
};

void hist_init(struct hist *h);

static inline unsigned hist_index(uint64_t v)
{
	unsigned e;

	if (v < HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	if (e >= HIST_MAX_BITS)
		return HIST_BUCKETS - 1;
	return (e - HIST_SUB_BITS + 1) * HIST_SUB + (unsigned)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* Add to a count the sampler may read live: a relaxed atomic store, which
 * on x86-64 is a plain add. Only the histogram's own counts use it. */
static inline void hist_bump(uint64_t *p, uint64_t by)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + by, __ATOMIC_RELAXED);
}

/* Record one value. Single writer per histogram. */
static inline void hist_record(struct hist *h, uint64_t v)
{
	hist_bump(&h->buckets[hist_index(v)], 1);
	hist_bump(&h->count, 1);
	h->sum += v;
	h->sumsq += (unsigned __int128)v * v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Record v n times: exactly n calls of hist_record(h, v), in O(1) (sum and
 * sum of squares wrap as n additions would). Single writer. */
void hist_record_n(struct hist *h, uint64_t v, uint64_t n);

/* Lowest value a bucket holds, and its width. */
uint64_t hist_bucket_low(unsigned idx);
uint64_t hist_bucket_width(unsigned idx);

/* The values recorded so far, read while the writer may be running. */
static inline uint64_t hist_count_live(const struct hist *h)
{
	return __atomic_load_n(&h->count, __ATOMIC_RELAXED);
}

/* dst += src, exactly (both quiescent). */
void hist_merge(struct hist *dst, const struct hist *src);

/* dst += the counts of src while src's writer may still be running
 * (buckets and count only; sum, min, max and sumsq are left alone). */
void hist_add_live(struct hist *dst, const struct hist *src);

/* dst = a - b, counts only, for a later and an earlier snapshot. */
void hist_delta(struct hist *dst, const struct hist *a, const struct hist *b);

/* The p-th percentile (0 <= p <= 100), nearest rank: the value below or at
 * which p % of the samples lie, to within 0.39 %. 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);

double hist_mean(const struct hist *h);
double hist_stdev(const struct hist *h);

#endif
