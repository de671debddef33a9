/* hist.c - log-linear histogram: bucket arithmetic, merge and percentiles.
 * See hist.h for the layout and its error bound. */
#include "core/hist.h"

#include <math.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_record_n(struct hist *h, uint64_t v, uint64_t n)
{
	if (!n)
		return;
	hist_bump(&h->buckets[hist_index(v)], n);
	hist_bump(&h->count, n);
	h->sum += v * n; /* modulo 2^64, as n additions */
	h->sumsq += (unsigned __int128)v * v * n; /* modulo 2^128, likewise */
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

uint64_t hist_bucket_low(unsigned idx)
{
	unsigned octave = idx / HIST_SUB;

	if (octave == 0)
		return idx;
	return (uint64_t)(HIST_SUB + idx % HIST_SUB) << (octave - 1);
}

uint64_t hist_bucket_width(unsigned idx)
{
	unsigned octave = idx / HIST_SUB;

	return octave == 0 ? 1 : 1ull << (octave - 1);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

void hist_add_live(struct hist *dst, const struct hist *src)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t c = __atomic_load_n(&src->buckets[i], __ATOMIC_RELAXED);

		dst->buckets[i] += c;
		n += c;
	}
	/* The bucket sum, not src->count: the two are read at different
	 * instants, and percentiles must agree with the buckets. */
	dst->count += n;
}

void hist_delta(struct hist *dst, const struct hist *a, const struct hist *b)
{
	hist_init(dst);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t d = a->buckets[i] - b->buckets[i];

		dst->buckets[i] = d;
		dst->count += d;
		if (d) {
			uint64_t lo = hist_bucket_low(i);
			uint64_t hi = lo + hist_bucket_width(i) - 1;

			if (lo < dst->min)
				dst->min = lo;
			if (hi > dst->max)
				dst->max = hi;
		}
	}
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			uint64_t v = hist_bucket_low(i) + (hist_bucket_width(i) - 1) / 2;

			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double hist_stdev(const struct hist *h)
{
	long double n = h->count, mean, var;

	if (h->count < 2)
		return 0.0;
	mean = (long double)h->sum / n;
	var = (long double)h->sumsq / n - mean * mean;
	if (var < 0)
		var = 0;
	/* sample standard deviation, as fio and IOMeter report it */
	return (double)sqrtl(var * n / (n - 1));
}
