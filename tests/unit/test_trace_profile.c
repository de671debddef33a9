/* test_trace_profile.c - trace_profile on traces built in memory whose
 * answers are known exactly: 70 % reads, sizes 4k/8k/64k at 50/30/20 %,
 * every other I/O sequential, 80 % of the random I/Os in the first 10 %
 * of the touched extent, a fixed 1 ms between I/Os; then devices, gaps
 * of other shapes, many sizes, bad options, sequential streams between
 * random records (their counts, runs and concurrency exact), and 10 M
 * records timed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rng.h"
#include "tap.h"
#include "trace/trace_profile.h"

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

/* Whether one of the 64 records before at + k (from at) ended at off. */
static int ended_lately(const struct trace *t, uint64_t at, uint64_t k, uint64_t off)
{
	for (uint64_t i = k > 64 ? k - 64 : 0; i < k; i++)
		if (t->io[at + i].offset + t->io[at + i].len == off)
			return 1;
	return 0;
}

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
		} else {
			do { /* random: never where one of the last 64 ended (a stream's head) */
				if (j % 5 != 4) /* hot: the first 10 % */
					io->offset = rng_below(&r, (100 * MIB - 65536) / 4096) * 4096;
				else
					io->offset = 100 * MIB + rng_below(&r, (800 * MIB) / 4096) * 4096;
			} while (ended_lately(t, at, k, io->offset));
		}
		end = io->offset + io->len;
	}
}

static uint64_t seq_all(const struct tp_counts *c)
{
	return c->seq_op[OP_READ] + c->seq_op[OP_WRITE] + c->seq_op[OP_TRIM];
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
	ok(p->all.streams.runs == 5000 && p->nstreams == 0 && p->random.n == 10000 && seq_all(&p->random) == 5000,
	   "runs of two records: 5000 runs, no significant stream, the rest is all of it (%llu, %u)",
	   (unsigned long long)p->all.streams.runs, p->nstreams);
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

/* A sequential stream of the records build_streams interleaves. */
struct seq_spec {
	uint64_t base, n, wrap; /* from base, n records, back to base every wrap bytes (0: never) */
	uint32_t len, stride;   /* each len bytes, stride apart (0: len: contiguous) */
	uint8_t op;
	unsigned sync_every;    /* a sync after every this many of its writes (0: none) */
	uint64_t made, syncs;   /* records and syncs made */
};

/* Streams interleaved with random records on one device, 10 us apart: the
 * streams take turns in an order the rng draws; once every stream made two
 * records, before each stream record come 0 to max_rand random 4 KiB
 * records (reads and writes) at 64 KiB-aligned offsets in [4 GiB, 8 GiB),
 * whose ends are never 64 KiB-aligned, so that they continue nothing. A
 * sync follows a stream's write at once when its turn comes. The trace
 * holds every record made; *randoms says how many were random. */
static struct trace *build_streams(struct seq_spec *sp, unsigned ns, unsigned max_rand, uint64_t *randoms)
{
	uint64_t total = 0, k = 0, left;
	struct trace *t;
	struct rng r;

	for (unsigned i = 0; i < ns; i++)
		total += sp[i].n * 2;
	t = new_trace(total * (max_rand + 2), 1);
	rng_seed(&r, 11, ns);
	*randoms = 0;
	for (left = total / 2; left; left--) {
		unsigned i, warm = 0;
		uint64_t pos;
		struct seq_spec *q;

		do
			i = (unsigned)rng_below(&r, ns);
		while (sp[i].made == sp[i].n);
		q = &sp[i];
		for (unsigned j = 0; j < ns; j++)
			warm += sp[j].made < 2;
		for (uint64_t m = warm ? 0 : rng_below(&r, max_rand + 1); m; m--, ++*randoms)
			t->io[k++] = (struct trace_io){ .op = (uint8_t)rng_below(&r, 2), .len = 4096,
							.offset = 4 * 1024 * MIB + rng_below(&r, 65536) * 65536 };
		pos = q->made * (q->stride ? q->stride : q->len);
		t->io[k++] = (struct trace_io){ .op = q->op, .len = q->len,
						.offset = q->base + (q->wrap ? pos % q->wrap : pos) };
		q->made++;
		if (q->op == OP_WRITE && q->sync_every && q->made % q->sync_every == 0) {
			t->io[k++] = (struct trace_io){ .op = OP_SYNC };
			q->syncs++;
		}
	}
	t->n = k;
	for (uint64_t j = 0; j < k; j++)
		t->io[j].t_ns = j * 10000;
	t->span_ns = t->io[k - 1].t_ns;
	return t;
}

/* Two sequential streams between random records: 4 KiB reads and 16 KiB
 * writes synced every second one; judged record against record, next to
 * none of them would be sequential. */
static void test_two_streams(void)
{
	struct seq_spec sp[] = { { .base = 0, .n = 3000, .len = 4096, .op = OP_READ },
				 { .base = 1024 * MIB, .n = 2000, .len = 16384, .op = OP_WRITE, .sync_every = 2 } };
	uint64_t randoms, data;
	struct trace *t = build_streams(sp, 2, 6, &randoms);
	struct trace_profile *p = calloc(1, sizeof(*p));
	const struct ts_group *a = &p->stream[0].g, *b = &p->stream[1].g;
	char why[WHY_LEN];
	int rc = trace_profile(t, &defaults, p, why, sizeof(why));

	ok(rc == RC_OK, "two streams between %llu random records: profiled", (unsigned long long)randoms);
	data = p->all.n - p->all.n_op[OP_SYNC];
	ok(p->all.seq_op[OP_READ] == 2999 && p->all.seq_op[OP_WRITE] == 1999 && seq_all(&p->all) == 4998,
	   "every stream record but each stream's first is sequential: 2999 reads, 1999 writes (%llu, %llu)",
	   (unsigned long long)p->all.seq_op[OP_READ], (unsigned long long)p->all.seq_op[OP_WRITE]);
	ok(p->all.streams.runs == 2 && p->all.streams.streams == 2 && p->all.streams.streams_op[OP_READ] == 1 &&
	   p->all.streams.streams_op[OP_WRITE] == 1 && p->dev[0].streams.streams == 2,
	   "2 runs, 2 streams at once: 1 of reads, 1 of writes (%llu, %u, %u, %u)",
	   (unsigned long long)p->all.streams.runs, p->all.streams.streams, p->all.streams.streams_op[OP_READ],
	   p->all.streams.streams_op[OP_WRITE]);
	ok(p->nstreams == 2 && a->op == OP_READ && a->bs == 4096 && a->ios == 3000 && a->runs == 1 && a->concurrent == 1 &&
	   a->lo == 0 && a->hi == 3000 * 4096ull && a->syncs == 0 && a->nsizes == 1 && a->size_n[0] == 3000 &&
	   a->gaps == 2998 && a->first_ns == 0,
	   "stream 1: the reads, 3000 I/Os of 4 KiB in [0, %llu), no sync (%u streams, %llu I/Os, [%llu, %llu))",
	   3000 * 4096ull, p->nstreams, (unsigned long long)a->ios, (unsigned long long)a->lo, (unsigned long long)a->hi);
	ok(b->op == OP_WRITE && b->bs == 16384 && b->ios == 2000 && b->n_op[OP_WRITE] == 2000 && b->syncs == 1000 &&
	   b->lo == 1024 * MIB && b->hi == 1024 * MIB + 2000 * 16384ull && b->gaps == 1998,
	   "stream 2: the writes, 2000 I/Os of 16 KiB from 1 GiB, 1000 syncs (%llu, %llu)", (unsigned long long)b->ios,
	   (unsigned long long)b->syncs);
	ok(p->random.n_op[OP_READ] + p->random.n_op[OP_WRITE] == data - 5000 && p->random.n_op[OP_SYNC] == 0 &&
	   seq_all(&p->random) == 0 && p->random.n_op[OP_READ] + p->random.n_op[OP_WRITE] == randoms &&
	   p->random.lo >= 4096 * MIB, "the rest: the %llu random records, no sync (%llu)", (unsigned long long)randoms,
	   (unsigned long long)(p->random.n_op[OP_READ] + p->random.n_op[OP_WRITE]));
	ok(p->cells_random && p->cell_total == randoms && !strcmp(p->zoned, "uniform"),
	   "hot spots: the random records placed, over their own extent: %s (%llu)", p->zoned,
	   (unsigned long long)p->cell_total);
	trace_profile_free(p);
	free(p);
	free_trace(t);
}

/* Three streams (8 KiB reads, 128 KiB reads, 8 KiB writes each synced)
 * with up to 40 random records between two stream records, more than the
 * candidate heads: once a stream is found, no random record pushes it out. */
static void test_three_streams(void)
{
	struct seq_spec sp[] = { { .base = 0, .n = 1500, .len = 8192, .op = OP_READ },
				 { .base = 2048 * MIB, .n = 800, .len = 131072, .op = OP_READ },
				 { .base = 3072 * MIB, .n = 1200, .len = 8192, .op = OP_WRITE, .sync_every = 1 } };
	uint64_t randoms;
	struct trace *t = build_streams(sp, 3, 40, &randoms);
	struct trace_profile *p = calloc(1, sizeof(*p));
	char why[WHY_LEN];
	unsigned found = 0;
	int rc = trace_profile(t, &defaults, p, why, sizeof(why));

	ok(rc == RC_OK && randoms > 3500 * 15, "three streams between %llu random records: profiled",
	   (unsigned long long)randoms);
	ok(p->all.seq_op[OP_READ] == 1499 + 799 && p->all.seq_op[OP_WRITE] == 1199,
	   "sequential: 2298 reads, 1199 writes (%llu, %llu)", (unsigned long long)p->all.seq_op[OP_READ],
	   (unsigned long long)p->all.seq_op[OP_WRITE]);
	ok(p->all.streams.runs == 3 && p->all.streams.streams == 3 && p->all.streams.streams_op[OP_READ] == 2 &&
	   p->all.streams.streams_op[OP_WRITE] == 1, "3 runs, 3 streams at once: 2 of reads, 1 of writes (%llu, %u, %u)",
	   (unsigned long long)p->all.streams.runs, p->all.streams.streams, p->all.streams.streams_op[OP_READ]);
	for (unsigned i = 0; i < p->nstreams; i++) {
		const struct ts_group *g = &p->stream[i].g;

		found += g->op == OP_READ && g->bs == 8192 && g->ios == 1500 && g->lo == 0;
		found += g->op == OP_READ && g->bs == 131072 && g->ios == 800 && g->lo == 2048 * MIB;
		found += g->op == OP_WRITE && g->bs == 8192 && g->ios == 1200 && g->syncs == 1200 && g->lo == 3072 * MIB;
	}
	ok(p->nstreams == 3 && found == 3,
	   "three streams listed, each with its I/Os; the writes with all 1200 syncs (the first, after a write that "
	   "continued nothing yet, too)");
	ok(p->random.n_op[OP_SYNC] == 0 && seq_all(&p->random) == 0, "the rest: no sync, nothing sequential");
	trace_profile_free(p);
	free(p);
	free_trace(t);
}

/* Runs one after the other and runs at once: a 16 MiB log written three
 * times over (three runs of one stream, never two at once), two 64 KiB
 * readers in two places (two runs at once of one stream). */
static void test_runs(void)
{
	struct seq_spec sp[] = { { .base = 512 * MIB, .n = 6144, .len = 8192, .wrap = 16 * MIB, .op = OP_WRITE },
				 { .base = 0, .n = 1000, .len = 65536, .op = OP_READ },
				 { .base = 256 * MIB, .n = 1000, .len = 65536, .op = OP_READ } };
	uint64_t randoms;
	struct trace *t = build_streams(sp, 3, 3, &randoms);
	struct trace_profile *p = calloc(1, sizeof(*p));
	const struct ts_group *log = &p->stream[0].g, *rd = &p->stream[1].g;
	char why[WHY_LEN];
	int rc = trace_profile(t, &defaults, p, why, sizeof(why));

	ok(rc == RC_OK && p->nstreams == 2, "a log and two readers: two streams");
	ok(log->op == OP_WRITE && log->runs == 3 && log->ios == 6144 && log->concurrent == 1 && log->lo == 512 * MIB &&
	   log->hi == 528 * MIB && p->all.seq_op[OP_WRITE] == 6141,
	   "the log: 3 runs, one at a time, 6144 I/Os in its 16 MiB, 6141 sequential (%llu, %u, %llu)",
	   (unsigned long long)log->runs, log->concurrent, (unsigned long long)log->ios);
	ok(rd->op == OP_READ && rd->bs == 65536 && rd->runs == 2 && rd->ios == 2000 && rd->concurrent == 2 && rd->lo == 0 &&
	   rd->hi == 256 * MIB + 1000 * 65536ull && p->all.seq_op[OP_READ] == 1998,
	   "the readers: one stream of 2 runs at once, 2000 I/Os (%llu, %u, %llu)",
	   (unsigned long long)rd->runs, rd->concurrent, (unsigned long long)rd->ios);
	ok(p->all.streams.runs == 5 && p->all.streams.streams == 3 && p->all.streams.streams_op[OP_READ] == 2,
	   "5 runs, at most 3 at once (%llu, %u)", (unsigned long long)p->all.streams.runs, p->all.streams.streams);
	trace_profile_free(p);
	free(p);
	free_trace(t);
}

/* A stream that skips 4 KiB after each 4 KiB: not sequential, unless
 * seq_gap lets a record start that far past the head; seq_gap checked. */
static void test_seq_gap(void)
{
	struct seq_spec sp[] = { { .base = 0, .n = 2000, .len = 4096, .stride = 8192, .op = OP_READ } };
	uint64_t randoms;
	struct trace *t = build_streams(sp, 1, 2, &randoms);
	struct trace_profile *p = calloc(1, sizeof(*p));
	struct tp_opts o = defaults;
	char why[WHY_LEN];
	int rc = trace_profile(t, &defaults, p, why, sizeof(why));

	ok(rc == RC_OK && seq_all(&p->all) == 0 && p->nstreams == 0,
	   "a stride of 8 KiB with 4 KiB I/Os: not sequential (%llu)", (unsigned long long)seq_all(&p->all));
	trace_profile_free(p);
	o.seq_gap = 4096;
	rc = trace_profile(t, &o, p, why, sizeof(why));
	ok(rc == RC_OK && seq_all(&p->all) == 1999 && p->nstreams == 1 && p->stream[0].g.ios == 2000,
	   "seq_gap = 4096: 1999 of them continue the stream (%llu)", (unsigned long long)seq_all(&p->all));
	trace_profile_free(p);
	o.seq_gap = TS_MAX_GAP + 1;
	ok(trace_profile(t, &o, p, why, sizeof(why)) == RC_INPUT && strstr(why, "seq_gap"), "seq_gap past 1 GiB: %s", why);
	free(p);
	free_trace(t);
}

/* Two records apart, the second where the first ended and nothing after
 * it: what random offsets give by chance, not sequential; a third makes
 * the three a stream, two of them sequential. Two one right after the
 * other are sequential at once, as record against record. */
static void test_chance(void)
{
	static const uint64_t offs[] = { 0, 900, 700, 1, 500, 300 }; /* in 4 KiB, each 4 KiB long */
	struct trace *t = new_trace(7, 1);
	struct trace_profile *p = calloc(1, sizeof(*p));
	char why[WHY_LEN];
	int rc;

	for (unsigned k = 0; k < 6; k++)
		t->io[k] = (struct trace_io){ .t_ns = k * 1000, .offset = offs[k] * 4096, .len = 4096 };
	t->n = 6;
	rc = trace_profile(t, &defaults, p, why, sizeof(why));
	ok(rc == RC_OK && seq_all(&p->all) == 0 && p->all.streams.runs == 0 && p->random.n == 6,
	   "a record where one three records before ended, and no third: random (%llu, %llu)",
	   (unsigned long long)seq_all(&p->all), (unsigned long long)p->all.streams.runs);
	trace_profile_free(p);
	t->io[6] = (struct trace_io){ .t_ns = 6000, .offset = 2 * 4096, .len = 4096 };
	t->n = 7;
	rc = trace_profile(t, &defaults, p, why, sizeof(why));
	ok(rc == RC_OK && seq_all(&p->all) == 2 && p->all.streams.runs == 1 && p->all.streams.streams == 1,
	   "a third after them: a stream, 2 records sequential (%llu, %llu)", (unsigned long long)seq_all(&p->all),
	   (unsigned long long)p->all.streams.runs);
	trace_profile_free(p);
	t->io[6] = (struct trace_io){ .t_ns = 6000, .offset = 301 * 4096, .len = 4096 };
	rc = trace_profile(t, &defaults, p, why, sizeof(why));
	ok(rc == RC_OK && seq_all(&p->all) == 1 && p->all.streams.runs == 1,
	   "instead one right after the one before: sequential at once (%llu)", (unsigned long long)seq_all(&p->all));
	trace_profile_free(p);
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
	struct timespec a, b, ca, cb;
	struct rng r;
	double s;

	rng_seed(&r, 5, 0);
	for (uint64_t k = 0; k < n; k++)
		t->io[k] = (struct trace_io){ .t_ns = k * 10000, .offset = rng_below(&r, 1 << 20) * 4096, .len = 4096,
					      .op = (uint8_t)(k % 3 == 0), .dev = (uint16_t)(k % 4) };
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	ok(trace_profile(t, &defaults, p, why, sizeof(why)) == RC_OK, "10 M records profiled");
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("# 10 M records in %.3f s (%.3f s of CPU)\n", s,
	       (double)(cb.tv_sec - ca.tv_sec) + (double)(cb.tv_nsec - ca.tv_nsec) / 1e9);
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
	test_two_streams();
	test_three_streams();
	test_runs();
	test_seq_gap();
	test_chance();
	test_speed();
	return tap_done();
}
