/* test_trace_profile.c - trace_profile on traces built in memory whose
 * answers are known exactly: 70 % reads, sizes 4k/8k/64k at 50/30/20 %,
 * every other I/O sequential, 80 % of the random I/Os in the first 10 %
 * of the touched extent, a fixed 1 ms between I/Os; then devices, gaps
 * of other shapes, many sizes, bad options, and 10 M records timed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"
#include "tap.h"
#include "trace_profile.h"

#define MIB (1024ull * 1024)

static struct trace *new_trace(uint64_t n, unsigned ndevs)
{
	struct trace *t = calloc(1, sizeof(*t));

	t->io = calloc(n, sizeof(*t->io));
	t->n = n;
	t->ndevs = ndevs;
	for (unsigned d = 0; d < ndevs; d++)
		snprintf(t->devs[d], sizeof(t->devs[d]), "dev%u", d);
	return t;
}

static void free_trace(struct trace *t)
{
	free(t->io);
	free(t);
}

static const struct tp_opts defaults = { .dev = -1, .cells = 50, .max_zones = 4 };

/* The trace of the header: n records on device dev of t from index at. */
static void fill_known(struct trace *t, uint64_t at, uint64_t n, uint16_t dev, uint64_t gap_ns)
{
	struct rng r;
	uint64_t end = 0;

	rng_seed(&r, 7, dev);
	for (uint64_t k = 0; k < n; k++) { /* sizes first: one record looks ahead */
		uint64_t s = (k / 10) % 10;

		t->io[at + k].len = s < 5 ? 4096 : s < 8 ? 8192 : 65536;
	}
	for (uint64_t k = 0; k < n; k++) {
		struct trace_io *io = &t->io[at + k];
		uint64_t j = k / 2;

		io->t_ns = k * gap_ns;
		io->dev = dev;
		io->op = k % 10 < 7 ? OP_READ : OP_WRITE;
		if (k % 2) {
			io->offset = end; /* sequential */
		} else if (k == 0) {
			io->offset = 0;
		} else if (k == n - 2) { /* this and the next end at 1000 MiB */
			io->offset = 1000 * MIB - io->len - t->io[at + k + 1].len;
		} else if (j % 5 != 4) {
			io->offset = rng_below(&r, (100 * MIB - 65536) / 4096) * 4096; /* hot: the first 10 % */
		} else {
			io->offset = 100 * MIB + rng_below(&r, (800 * MIB) / 4096) * 4096;
		}
		end = io->offset + io->len;
	}
}

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static void test_known(void)
{
	struct trace *t = new_trace(10000, 1);
	struct trace_profile *p = calloc(1, sizeof(*p));
	char why[WHY_LEN];
	uint64_t sum = 0;
	int rc;

	fill_known(t, 0, 10000, 0, 1000000);
	t->span_ns = t->io[9999].t_ns;
	rc = trace_profile(t, &defaults, p, why, sizeof(why));
	ok(rc == RC_OK, "a known trace is profiled (%d)", rc);
	ok(p->all.n == 10000 && p->all.n_op[OP_READ] == 7000 && p->all.n_op[OP_WRITE] == 3000,
	   "7000 reads and 3000 writes (%llu, %llu)", (unsigned long long)p->all.n_op[OP_READ],
	   (unsigned long long)p->all.n_op[OP_WRITE]);
	ok(p->all.seq_op[OP_READ] + p->all.seq_op[OP_WRITE] == 5000 && p->all.seq_op[OP_READ] == 3000,
	   "5000 sequential, 3000 of them reads (%llu, %llu)",
	   (unsigned long long)(p->all.seq_op[OP_READ] + p->all.seq_op[OP_WRITE]),
	   (unsigned long long)p->all.seq_op[OP_READ]);
	ok(p->sizes_all.n == 3 && p->sizes_all.size[0].bytes == 4096 && p->sizes_all.size[0].n == 5000 &&
	   p->sizes_all.size[1].bytes == 8192 && p->sizes_all.size[1].n == 3000 &&
	   p->sizes_all.size[2].bytes == 65536 && p->sizes_all.size[2].n == 2000 && p->sizes_all.other == 0,
	   "sizes 4k 5000, 8k 3000, 64k 2000, most common first");
	ok(p->sizes_op[OP_READ].total == 7000 && p->sizes_op[OP_WRITE].total == 3000 && p->sizes_op[OP_TRIM].total == 0,
	   "sizes per op add up to each op's count");
	ok(p->all.lo == 0 && p->all.hi == 1000 * MIB, "the touched extent is [0, 1000 MiB) (%llu, %llu)",
	   (unsigned long long)p->all.lo, (unsigned long long)p->all.hi);
	ok(p->all.bytes_op[OP_READ] + p->all.bytes_op[OP_WRITE] == 1000ull * (5 * 4096 + 3 * 8192 + 2 * 65536),
	   "bytes read and written add up to the sizes");
	ok(near(p->span_s, 9.999, 1e-9) && near(p->iops, 1000, 1e-6), "span 9.999 s, 1000 IOPS (%.9f, %.6f)",
	   p->span_s, p->iops);
	ok(p->gaps == 9999 && near(p->gap_mean_ns, 1e6, 1e-3) && p->gap_cv < 1e-9 &&
	   near((double)p->gap_p50_ns, 1e6, 4000) && near((double)p->gap_p99_ns, 1e6, 4000) &&
	   !strcmp(p->arrival, "fixed"),
	   "gaps: mean 1 ms, cv 0, p50 and p99 1 ms, fixed (%g, %g, %llu, %s)", p->gap_mean_ns, p->gap_cv,
	   (unsigned long long)p->gap_p50_ns, p->arrival);
	ok(p->cells_random && p->cell_total == 5000, "the 5000 random I/Os are placed in cells (%llu)",
	   (unsigned long long)p->cell_total);
	ok(!strcmp(p->zoned, "zoned:80.000/10.000:20.000/90.000"), "the fit is 80 %% in 10 %%: %s (misplaced %.2f %%)",
	   p->zoned, p->fit_error_pct);
	ok(p->nzones == 2 && p->zone[0].access_pct == 80 && p->zone[1].region_pct == 90, "two zones, hottest first");
	for (unsigned b = 0; b < p->nbuckets; b++)
		sum += p->bucket[b];
	ok(p->nbuckets == 60 && sum == 10000 && p->bucket[0] >= 166 && p->bucket[0] <= 167 && near(p->bucket_s, 9.999 / 60, 1e-12),
	   "60 buckets of 1/60 of the span hold every I/O, 166 or 167 each (%u, %llu, %llu)", p->nbuckets,
	   (unsigned long long)sum, (unsigned long long)p->bucket[0]);
	ok(p->ndevs == 1 && p->dev[0].n == 10000, "one device");
	trace_profile_free(p);
	free(p);
	free_trace(t);
}

/* Two devices, the second's records offset in time; each device's
 * sequential runs are its own, and a device can be profiled alone. */
static void test_devices(void)
{
	struct trace *t = new_trace(20000, 2);
	struct trace_profile *p = calloc(1, sizeof(*p));
	struct tp_opts o = defaults;
	char why[WHY_LEN];
	int rc;

	fill_known(t, 0, 10000, 0, 2000000);
	fill_known(t, 10000, 10000, 1, 2000000);
	for (uint64_t k = 0; k < 10000; k++) { /* interleave: dev1 1 ms after dev0 */
		t->io[10000 + k].t_ns += 1000000;
	}
	{ /* sort by time: a merge of the two halves */
		struct trace_io *m = malloc(sizeof(*m) * 20000);

		for (uint64_t k = 0; k < 10000; k++) {
			m[2 * k] = t->io[k];
			m[2 * k + 1] = t->io[10000 + k];
		}
		free(t->io);
		t->io = m;
	}
	ok(trace_profile(t, &defaults, p, why, sizeof(why)) == RC_OK, "two devices are profiled");
	ok(p->ndevs == 2 && p->dev[0].n == 10000 && p->dev[1].n == 10000 && p->dev_index[1] == 1, "10000 I/Os each");
	ok(p->all.seq_op[OP_READ] + p->all.seq_op[OP_WRITE] == 10000,
	   "sequential counts each device's own runs, interleaved (%llu)",
	   (unsigned long long)(p->all.seq_op[OP_READ] + p->all.seq_op[OP_WRITE]));
	ok(near(p->iops, 1000, 1e-6) && !strcmp(p->zoned, "zoned:80.000/10.000:20.000/90.000"),
	   "1000 IOPS together, and the same hot spots (%s)", p->zoned);
	trace_profile_free(p);
	o.dev = 1;
	rc = trace_profile(t, &o, p, why, sizeof(why));
	ok(rc == RC_OK && p->all.n == 10000 && p->ndevs == 1 &&
	   p->dev_index[0] == 1 && near(p->iops, 500, 1e-6) && p->all.first_ns == 1000000,
	   "device 1 alone: 10000 I/Os at 500 IOPS (%g)", p->iops);
	trace_profile_free(p);
	o.dev = 2;
	ok(trace_profile(t, &o, p, why, sizeof(why)) == RC_INPUT && strstr(why, "device 2"), "no device 2: %s", why);
	free(p);
	free_trace(t);
}

/* Exponential gaps are poisson; bursts of 32 at once every 10 ms are bursty;
 * trims and syncs are counted and syncs have no size. */
static void test_gaps(void)
{
	struct trace *t = new_trace(100000, 1);
	struct trace_profile *p = calloc(1, sizeof(*p));
	char why[WHY_LEN];
	struct rng r;
	uint64_t at = 0;
	int rc;

	rng_seed(&r, 3, 0);
	for (uint64_t k = 0; k < t->n; k++) {
		at += (uint64_t)(-log(1 - rng_unit(&r)) * 100000.0);
		t->io[k] = (struct trace_io){ .t_ns = at, .offset = (k - k / 4) * 4096, .len = 4096,
					      .op = k % 4 == 3 ? OP_SYNC : k % 4 == 2 ? OP_TRIM : OP_WRITE };
		if (t->io[k].op == OP_SYNC)
			t->io[k].offset = t->io[k].len = 0;
	}
	rc = trace_profile(t, &defaults, p, why, sizeof(why));
	ok(rc == RC_OK && !strcmp(p->arrival, "poisson") &&
	   near(p->gap_cv, 1, 0.05) && near(p->gap_mean_ns, 100000, 2000),
	   "exponential gaps: poisson, cv %.3f, mean %.0f ns", p->gap_cv, p->gap_mean_ns);
	ok(p->all.n_op[OP_SYNC] == 25000 && p->all.n_op[OP_TRIM] == 25000 && p->sizes_all.total == 75000 &&
	   p->all.bytes_op[OP_SYNC] == 0, "syncs and trims counted, syncs not sized");
	ok(!p->cells_random && !strcmp(p->zoned, "uniform"),
	   "no random I/O: every data I/O placed, evenly: uniform (%s)", p->zoned);
	trace_profile_free(p);
	for (uint64_t k = 0; k < t->n; k++)
		t->io[k].t_ns = k / 32 * 10000000;
	rc = trace_profile(t, &defaults, p, why, sizeof(why));
	ok(rc == RC_OK && !strcmp(p->arrival, "bursty") && p->gap_p50_ns == 0,
	   "bursts of 32: bursty, p50 gap 0 (cv %.2f)", p->gap_cv);
	trace_profile_free(p);
	free(p);
	free_trace(t);
}

/* 40 sizes: 16 listed most common first, the rest other; options checked. */
static void test_sizes_and_opts(void)
{
	struct trace *t = new_trace(4000, 1);
	struct trace_profile *p = calloc(1, sizeof(*p));
	struct tp_opts o = defaults;
	char why[WHY_LEN];
	uint64_t listed = 0;

	for (uint64_t k = 0; k < t->n; k++) /* size i (1..40 KiB) i times, roughly */
		t->io[k] = (struct trace_io){ .t_ns = k * 1000, .offset = (k * 7919 % 4000) * 65536,
					      .len = (uint32_t)(1 + (uint64_t)sqrt((double)k * 2) % 40) * 1024 };
	ok(trace_profile(t, &defaults, p, why, sizeof(why)) == RC_OK && p->sizes_all.n == 16, "16 sizes listed");
	for (unsigned i = 0; i < p->sizes_all.n; i++) {
		listed += p->sizes_all.size[i].n;
		if (i && p->sizes_all.size[i].n > p->sizes_all.size[i - 1].n)
			break;
	}
	ok(listed + p->sizes_all.other == 4000 && p->sizes_all.other > 0, "listed (%llu) and other (%llu) add up",
	   (unsigned long long)listed, (unsigned long long)p->sizes_all.other);
	trace_profile_free(p);
	o.cells = 0;
	ok(trace_profile(t, &o, p, why, sizeof(why)) == RC_INPUT && strstr(why, "cells"), "cells = 0: %s", why);
	o = defaults;
	o.max_zones = 17;
	ok(trace_profile(t, &o, p, why, sizeof(why)) == RC_INPUT && strstr(why, "zones"), "17 zones: %s", why);
	o = defaults;
	o.buckets = 5000;
	ok(trace_profile(t, &o, p, why, sizeof(why)) == RC_INPUT && strstr(why, "buckets"), "5000 buckets: %s", why);
	t->n = 0;
	ok(trace_profile(t, &defaults, p, why, sizeof(why)) == RC_INPUT && strstr(why, "no I/O"), "empty: %s", why);
	free(p);
	free_trace(t);
}

/* 10 M records of random 4 KiB I/O on four devices: seconds at most. */
static void test_speed(void)
{
	uint64_t n = 10000000;
	struct trace *t = new_trace(n, 4);
	struct trace_profile *p = calloc(1, sizeof(*p));
	char why[WHY_LEN];
	struct timespec a, b;
	struct rng r;
	double s;

	rng_seed(&r, 5, 0);
	for (uint64_t k = 0; k < n; k++)
		t->io[k] = (struct trace_io){ .t_ns = k * 10000, .offset = rng_below(&r, 1 << 20) * 4096, .len = 4096,
					      .op = (uint8_t)(k % 3 == 0), .dev = (uint16_t)(k % 4) };
	clock_gettime(CLOCK_MONOTONIC, &a);
	ok(trace_profile(t, &defaults, p, why, sizeof(why)) == RC_OK, "10 M records profiled");
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("# 10 M records in %.3f s\n", s);
	ok(s < 10, "in under 10 s (%.3f s)", s);
	ok(!strcmp(p->zoned, "uniform") && p->ndevs == 4, "uniform offsets fit one zone: %s (misplaced %.2f %%)", p->zoned,
	   p->fit_error_pct);
	trace_profile_free(p);
	free(p);
	free_trace(t);
}

int main(void)
{
	test_known();
	test_devices();
	test_gaps();
	test_sizes_and_opts();
	test_speed();
	return tap_done();
}
