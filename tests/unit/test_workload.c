/* test_workload.c - the op generator and the pacing, over 10^5 ops.
 *
 * Offsets must be aligned and wholly inside the region; the measured read,
 * random, spec and block-size shares must match what was asked within 1 %
 * (10^5 draws: 3 sigma is under 0.5 %); a seed must repeat its sequence;
 * the skewed distributions must skew as they promise; and the arrival
 * processes must have the gaps and spread they promise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/workload.h"
#include "tap.h"

#define OPS 100000
#define MB (1ull << 20)

static struct workload *mixed(void)
{
	struct workload *wl = calloc(1, sizeof(*wl));

	wl->nspecs = 2;
	/* A: 60 %, 4k/16k half each, 70 % read, 80 % random */
	wl->spec[0] = (struct wl_spec){ .cum = (uint64_t)(0.6 * WL_ONE), .read_thr = (uint64_t)(0.7 * WL_ONE),
					.random_thr = (uint64_t)(0.8 * WL_ONE), .align = 4096, .nbs = 2 };
	wl->spec[0].bs[0] = (struct wl_bs){ 4096, WL_ONE / 2 };
	wl->spec[0].bs[1] = (struct wl_bs){ 16384, WL_ONE };
	/* B: 40 %, 64k sequential writes */
	wl->spec[1] = (struct wl_spec){ .cum = WL_ONE, .read_thr = 0, .random_thr = 0, .align = 65536, .nbs = 1 };
	wl->spec[1].bs[0] = (struct wl_bs){ 65536, WL_ONE };
	wl->region_off = MB;
	wl->region_len = 100 * MB + 12288;
	return wl;
}

static void run_ops(const struct workload *wl, uint64_t seed, struct wl_op *ops, int n)
{
	struct wl_state st;

	wl_state_init(wl, &st, seed, 0, 0, 1);
	for (int i = 0; i < n; i++)
		wl_next(wl, &st, &ops[i]);
}

static double near(double got, double want, double tol)
{
	return fabs(got - want) <= tol;
}

/* Share of accesses to the most popular `top` fraction of cells. */
static double top_share(const struct workload *wl, const struct wl_op *ops, int n, double top)
{
	uint64_t cells = wl->region_len / 4096, *count = calloc(cells, sizeof(*count)), sum = 0;
	uint64_t k = (uint64_t)(top * (double)cells);

	for (int i = 0; i < n; i++)
		count[(ops[i].offset - wl->region_off) / 4096]++;
	/* partial selection: sort descending (cells are few enough) */
	for (uint64_t i = 0; i < k; i++) {
		uint64_t best = i;

		for (uint64_t j = i + 1; j < cells; j++)
			if (count[j] > count[best])
				best = j;
		uint64_t t = count[i];
		count[i] = count[best];
		count[best] = t;
		sum += count[i];
	}
	free(count);
	return (double)sum / n;
}

static struct workload *single(enum wl_dist d, double arg)
{
	struct workload *wl = calloc(1, sizeof(*wl));
	char why[128];

	wl->nspecs = 1;
	wl->spec[0] = (struct wl_spec){ .cum = WL_ONE, .read_thr = WL_ONE, .random_thr = WL_ONE, .align = 4096, .nbs = 1 };
	wl->spec[0].bs[0] = (struct wl_bs){ 4096, WL_ONE };
	wl->region_off = 0;
	wl->region_len = 16 * MB; /* 4096 cells */
	wl->dist = d;
	wl->dist_arg = arg;
	if (d == DIST_ZONED) {
		wl->nzones = 3;
		wl->zone[0] = (struct wl_zone){ .cum = (uint64_t)(0.6 * WL_ONE), .region_pct = 10 };
		wl->zone[1] = (struct wl_zone){ .cum = (uint64_t)(0.9 * WL_ONE), .region_pct = 20 };
		wl->zone[2] = (struct wl_zone){ .cum = WL_ONE, .region_pct = 70 };
	}
	ok(wl_prepare(wl, why, sizeof(why)) == 0, "dist %d prepares", d);
	return wl;
}

/* Every arrival of `workers` workers through schedule pc, from t0 (each
 * worker's stream of its own); per segment into seg_count when given. */
static long arrivals(const struct pace *pc, unsigned workers, uint64_t t0, long *seg_count)
{
	long n = 0;

	for (unsigned w = 0; w < workers; w++) {
		struct pace_state ps;
		struct rng r;

		rng_seed(&r, 7, w + 1);
		pace_start(pc, &ps, t0, t0, workers, &r);
		for (; ps.next_ns != UINT64_MAX; n++) {
			unsigned k = 0;

			while (seg_count && pc->seg[k].end_ns <= ps.next_ns - t0)
				k++;
			if (seg_count)
				seg_count[k]++;
			pace_advance(pc, &ps, t0, workers, &r);
		}
	}
	return n;
}

/* A schedule's segments each get their rate times their length: an
 * arrival due past a segment's end carries the rest of its gap over, it
 * adds nothing at the boundary (it once added half a gap: 500 IOPS over
 * 60 segments of 50 ms did 1470 I/Os, 1380 over 4 workers). */
static void test_schedule_counts(void)
{
	struct pace *pc = calloc(1, sizeof(*pc));
	long seg[WL_MAX_SEGMENTS], n1, n4, n7, np, bad = 0;
	const uint64_t t0 = 1000000000ull, ms = 1000000ull;

	pc->nseg = 60;
	for (unsigned k = 0; k < 60; k++)
		pc->seg[k] = (struct pace_seg){ .end_ns = (k + 1) * 50 * ms, .iops = 500 };
	n1 = arrivals(pc, 1, t0, NULL);
	n4 = arrivals(pc, 4, t0, NULL);
	n7 = arrivals(pc, 7, t0, NULL);
	ok(n1 == 1500 && n4 == 1500 && labs(n7 - 1500) <= 7,
	   "60 segments of 50 ms at 500 IOPS: %ld I/Os over 1 worker, %ld over 4, %ld over 7 (1500)", n1, n4, n7);

	/* 500, 1500, idle, again and again: 25, 75 and 0 I/Os a segment */
	for (unsigned k = 0; k < 60; k++)
		pc->seg[k].iops = k % 3 == 0 ? 500 : k % 3 == 1 ? 1500 : 0;
	memset(seg, 0, sizeof(seg));
	n1 = arrivals(pc, 1, t0, seg);
	for (unsigned k = 0; k < 60; k++)
		bad += labs(seg[k] - (k % 3 == 0 ? 25 : k % 3 == 1 ? 75 : 0)) > 1;
	memset(seg, 0, sizeof(seg));
	n4 = arrivals(pc, 4, t0, seg);
	for (unsigned k = 0; k < 60; k++)
		bad += labs(seg[k] - (k % 3 == 0 ? 25 : k % 3 == 1 ? 75 : 0)) > 4;
	ok(n1 == 2000 && labs(n4 - 2000) <= 4 && !bad,
	   "500 / 1500 / idle, 20 times, 50 ms each: %ld I/Os over 1 worker, %ld over 4 (2000), %ld segments off", n1,
	   n4, bad);

	/* poisson: 4000 segments of 10 ms at 1000 IOPS, 40000 expected
	 * (sigma 200; half a gap a boundary lost 2000) */
	pc->nseg = 4000;
	for (unsigned k = 0; k < 4000; k++)
		pc->seg[k] = (struct pace_seg){ .end_ns = (k + 1) * 10 * ms, .iops = 1000, .poisson = 1 };
	np = arrivals(pc, 1, t0, NULL);
	ok(labs(np - 40000) <= 1000, "poisson over 4000 segments of 10 ms at 1000 IOPS: %ld I/Os (40000 +- 1000)", np);

	/* a schedule that starts idle: workers still start staggered */
	pc->nseg = 2;
	pc->seg[0] = (struct pace_seg){ .end_ns = 50 * ms, .iops = 0 };
	pc->seg[1] = (struct pace_seg){ .end_ns = 150 * ms, .iops = 1000 };
	{
		struct pace_state a, b;
		struct rng r;

		rng_seed(&r, 7, 1);
		pace_start(pc, &a, t0, t0, 2, &r);
		rng_seed(&r, 7, 2);
		pace_start(pc, &b, t0, t0, 2, &r);
		n1 = arrivals(pc, 2, t0, NULL);
		ok(a.next_ns >= t0 + 50 * ms && a.next_ns < t0 + 52 * ms && b.next_ns >= t0 + 50 * ms &&
			   b.next_ns < t0 + 52 * ms && a.next_ns != b.next_ns && n1 == 100,
		   "idle, then 1000 IOPS over 2 workers: first starts %.3f and %.3f ms after the idle 50 (within a gap "
		   "of 2), %ld I/Os (100)", (double)(a.next_ns - t0 - 50 * ms) / 1e6,
		   (double)(b.next_ns - t0 - 50 * ms) / 1e6, n1);
	}
	free(pc);
}

/* wl_part: parts that tile the whole grains of a region in order, the
 * first ones a grain more, the tail under a grain in none; each worker's
 * sequential stream starts where its part does. */
static void test_parts(void)
{
	static const uint64_t want10of3[][2] = { { 0, 4 }, { 4, 3 }, { 7, 3 } };
	static const uint64_t want10of7[][2] = { { 0, 2 }, { 2, 2 }, { 4, 2 }, { 6, 1 }, { 7, 1 }, { 8, 1 }, { 9, 1 } };
	const uint64_t K = 65536;
	uint64_t off, len, end = 0;
	int bad = 0;

	for (unsigned i = 0; i < 3; i++) {
		wl_part(10 * K, K, i, 3, &off, &len);
		bad += off != want10of3[i][0] * K || len != want10of3[i][1] * K;
	}
	ok(!bad, "10 blocks over 3 parts: blocks 0-3, 4-6, 7-9");
	for (unsigned i = 0; i < 7; i++) {
		wl_part(10 * K + 8192, K, i, 7, &off, &len);
		bad += off != want10of7[i][0] * K || len != want10of7[i][1] * K;
	}
	ok(!bad, "10 blocks and 8 KiB over 7 parts: 2, 2, 2, 1, 1, 1, 1 blocks, the 8 KiB in none");
	wl_part(10 * K, K, 12, 16, &off, &len);
	ok(off == 10 * K && len == 0, "part 12 of 16 of 10 blocks: empty, at the end");
	wl_part(3 * K - 1, K, 0, 1, &off, &len);
	ok(off == 0 && len == 2 * K, "one part of 3 blocks less a byte: 2 blocks");
	for (unsigned n = 1; n <= 40 && !bad; n++)
		for (unsigned i = 0, at = 0; i < n; i++) {
			wl_part(1000 * 4096 + 512, 4096, i, n, &off, &len);
			bad += off != at || len / 4096 < 1000 / n || len / 4096 > 1000 / n + 1 || len % 4096;
			at = off + len;
			end = at;
		}
	ok(!bad && end == 1000 * 4096, "1000 blocks over 1 to 40 parts: each part where the last ended, all 1000 covered");
	{
		struct workload *w = single(DIST_UNIFORM, 0);
		struct wl_state st;

		w->spec[0].random_thr = 0;
		w->region_len = 10 * K;
		w->spec[0].bs[0].bytes = K;
		w->spec[0].align = K;
		ok(wl_prepare(w, (char[128]){ 0 }, 128) == 0, "10 blocks of 64 KiB prepare");
		for (unsigned i = 0; i < 3; i++) {
			struct wl_op op;

			wl_state_init(w, &st, 1, i, i, 3);
			wl_next(w, &st, &op);
			bad += op.offset != want10of3[i][0] * K || op.len != K;
		}
		ok(!bad, "workers 0, 1, 2 of 3 read first at blocks 0, 4 and 7");
		free(w);
	}
}

/* The I/Os one worker of w makes from its start differ from want (in
 * KiB, n of them, each of len bytes): how many. */
static int offsets_differ(const struct workload *w, const unsigned *want, unsigned n, uint64_t len)
{
	struct wl_state st;
	struct wl_op op;
	int bad = 0;

	wl_state_init(w, &st, 1, 0, 0, 1);
	for (unsigned i = 0; i < n; i++) {
		wl_next(w, &st, &op);
		bad += op.offset != want[i] * 1024ull || op.len != len;
	}
	return bad;
}

/* A spec's skip, against the offsets fio 3.33 wrote to its iolog for the
 * same jobs (--write_iolog): rw=read:-8k at 4k over 64 KiB, and
 * rw=write:112k at 16k over 1 MiB from 120 KiB (cross-stripe-verify). */
static void test_skip(void)
{
	static const unsigned back_k[] = { 0, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0, 56, 52 };
	static const unsigned hole_k[] = { 120, 248, 376, 504, 632, 760, 888, 1016, 120, 248 };
	static const unsigned start_k[] = { 120, 120, 120, 120 };
	struct workload *w = single(DIST_UNIFORM, 0);

	w->spec[0].random_thr = 0;
	w->spec[0].read_thr = WL_ONE;
	w->region_len = 64 * 1024;
	w->spec[0].skip = -8192;
	ok(wl_prepare(w, (char[128]){ 0 }, 128) == 0, "64 KiB, 4k, skip -8k prepares");
	ok(!offsets_differ(w, back_k, sizeof(back_k) / sizeof(back_k[0]), 4096),
	   "rw=read:-8k: 0, then 56k down to 0 by 4k, then 56k again: fio's offsets");
	w->region_off = 120 * 1024;
	w->region_len = 1024 * 1024;
	w->spec[0].skip = 112 * 1024;
	w->spec[0].bs[0].bytes = 16384;
	w->spec[0].align = 16384;
	ok(wl_prepare(w, (char[128]){ 0 }, 128) == 0, "1 MiB from 120k, 16k, skip 112k prepares");
	ok(!offsets_differ(w, hole_k, sizeof(hole_k) / sizeof(hole_k[0]), 16384),
	   "rw=write:112k from 120k: 16k at every 128k, back to 120k after the region's end: fio's offsets");
	w->spec[0].skip = -(int64_t)(4 << 20);
	ok(!offsets_differ(w, start_k, 4, 16384), "a step back longer than the region: every I/O at its start, none outside");
	free(w);
}

/* seq_start: rw=read:-8k at 4k, size=64k, offset=16k, where fio 3.33's
 * iolog starts at 56k (40k into the region), not at the offset; past the
 * region's end it starts at the region's start. */
static void test_seq_start(void)
{
	static const unsigned back_k[] = { 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 72, 68, 64, 60, 56, 52 };
	struct workload *w = single(DIST_UNIFORM, 0);
	struct wl_state st;
	struct wl_op op;

	w->spec[0].random_thr = 0;
	w->region_off = 16 * 1024;
	w->region_len = 64 * 1024;
	w->spec[0].skip = -8192;
	w->seq_start = 40 * 1024;
	ok(wl_prepare(w, (char[128]){ 0 }, 128) == 0, "64 KiB from 16k, 4k, skip -8k, seq_start 40k prepares");
	ok(!offsets_differ(w, back_k, sizeof(back_k) / sizeof(back_k[0]), 4096),
	   "rw=read:-8k from offset=16k: 56k down to 16k, then 72k down: fio's offsets");
	wl_state_init(w, &st, 1, 0, 1, 2); /* the second of two parts: 32k + 40k, past the region's end */
	wl_next(w, &st, &op);
	ok(op.offset == 16 * 1024, "seq_start past the region's end from a worker's part: at the region's start");
	wl_next(w, &st, &op);
	ok(op.offset == 72 * 1024, "... then back from its end, as a wrap");
	w->seq_start = 8 * 1024;
	wl_state_init(w, &st, 1, 0, 1, 2);
	wl_next(w, &st, &op);
	ok(op.offset == (16 + 32 + 8) * 1024, "seq_start 8k, the second of two parts: 8k into that part");
	w->seq_start = 0;
	wl_state_init(w, &st, 1, 0, 0, 1);
	wl_next(w, &st, &op);
	ok(op.offset == 16 * 1024, "seq_start 0: the region's start, as before");
	free(w);
}

/* dist sequence: fio's sequence-distribution.fio, 4k over 48 KiB: the
 * blocks 2, 0, 1 again and again; strided, each pass 3 blocks on. */
static void test_sequence(void)
{
	static const unsigned rep_k[] = { 8, 0, 4, 8, 0, 4 }, strided_k[] = { 8, 0, 4, 20, 12, 16, 32, 24, 28, 44, 36, 40, 8 };
	struct workload *w = single(DIST_SEQUENCE, 0);

	w->region_len = 48 * 1024;
	w->seq_n = 3;
	w->seq_idx[0] = 2, w->seq_idx[1] = 0, w->seq_idx[2] = 1;
	ok(wl_prepare(w, (char[128]){ 0 }, 128) == 0, "sequence:2,0,1 over 12 blocks prepares");
	ok(!offsets_differ(w, rep_k, 6, 4096), "sequence:2,0,1: blocks 2, 0, 1, 2, 0, 1 (fio's repeating_sequence)");
	w->seq_stride = 1;
	ok(!offsets_differ(w, strided_k, 13, 4096),
	   "sequence_stride:2,0,1: 2, 0, 1, then 5, 3, 4 ... and past the region's 12 blocks back to 2 (fio's strided_sequence)");
	free(w);
}

/* phase.random_map: over cells that are no multiple of 64 (a tail word)
 * and 4k/64k writes, each pass covers every cell exactly once (the 64k
 * cut where the free cells end), three passes in a row (the map cleared
 * between), and a pass's bytes are the region's. */
static void test_random_map(void)
{
	struct workload *w = calloc(1, sizeof(*w));
	const uint64_t cells = 64 * 70 + 13;
	unsigned char *seen = calloc(cells, 1);
	uint64_t *mem;
	struct wl_state st;
	int twice = 0, bad = 0, passes = 0, ios = 0, cut = 0;

	w->nspecs = 1;
	w->spec[0] = (struct wl_spec){ .cum = WL_ONE, .read_thr = 0, .random_thr = WL_ONE, .align = 4096, .nbs = 2 };
	w->spec[0].bs[0] = (struct wl_bs){ 4096, WL_ONE / 2 };
	w->spec[0].bs[1] = (struct wl_bs){ 65536, WL_ONE };
	w->region_off = MB;
	w->region_len = cells * 4096;
	w->random_map = 1;
	ok(wl_prepare(w, (char[128]){ 0 }, 128) == 0 && wl_map_words(w) == 71 + 2, "random map over 4493 cells: 73 words");
	mem = malloc(wl_map_words(w) * sizeof(*mem));
	wl_state_init(w, &st, 7, 0, 0, 1);
	wl_map_attach(w, &st, mem);
	while (passes < 3) {
		struct wl_op o;
		uint64_t bytes = 0, c;

		memset(seen, 0, cells);
		for (c = 0; bytes < w->region_len; bytes += o.len, ios++) {
			wl_next(w, &st, &o);
			bad += o.offset < w->region_off || o.offset + o.len > w->region_off + w->region_len || o.len % 4096 ||
			       !o.len;
			cut += o.len != 4096 && o.len != 65536;
			for (c = (o.offset - w->region_off) / 4096; c < (o.offset - w->region_off + o.len) / 4096; c++)
				twice += seen[c]++ > 0;
		}
		for (c = 0; c < cells; c++)
			bad += seen[c] != 1;
		bad += bytes != w->region_len;
		passes++;
	}
	ok(!bad && !twice, "random map: 3 passes, each over every cell once (%d I/Os, %d cut short; %d bad, %d twice)", ios,
	   cut, bad, twice);
	ok(cut > 0, "random map: some 64k I/Os were cut at a done cell (%d)", cut);
	free(mem);
	free(seen);
	free(w);
}

int main(void)
{
	struct workload *wl = mixed();
	struct wl_op *ops = calloc(OPS, sizeof(*ops)), *again = calloc(OPS, sizeof(*again));
	char why[128];
	int misaligned = 0, outside = 0, reads = 0, specb = 0, small = 0, speca = 0, seq = 0;

	ok(wl_prepare(wl, why, sizeof(why)) == 0, "mixed workload prepares");
	run_ops(wl, 1, ops, OPS);
	for (int i = 0; i < OPS; i++) {
		const struct wl_op *o = &ops[i];
		uint64_t rel = o->offset - wl->region_off;

		if (o->offset % 4096 || (o->len == 65536 && o->op == OP_READ))
			misaligned++;
		if (o->offset < wl->region_off || rel + o->len > wl->region_len)
			outside++;
		reads += o->op == OP_READ;
		if (o->len == 65536) {
			specb++;
		} else {
			speca++;
			small += o->len == 4096;
		}
		if (i && (rel == ops[i - 1].offset - wl->region_off + ops[i - 1].len || rel == 0))
			seq++;
	}
	ok(!misaligned, "every offset aligned to 4 KiB, spec B only writes (%d bad)", misaligned);
	ok(!outside, "every I/O wholly inside the region (%d outside)", outside);
	ok(near((double)reads / OPS, 0.6 * 0.7, 0.01), "read share %.4f, asked 0.42", (double)reads / OPS);
	ok(near((double)specb / OPS, 0.4, 0.01), "spec B share %.4f, asked 0.40", (double)specb / OPS);
	ok(near((double)small / speca, 0.5, 0.01), "4k share within spec A %.4f, asked 0.50", (double)small / speca);
	ok(near((double)seq / OPS, 0.6 * 0.2 + 0.4, 0.01), "sequential share %.4f, asked 0.52", (double)seq / OPS);

	run_ops(wl, 1, again, OPS);
	ok(!memcmp(ops, again, OPS * sizeof(*ops)), "the same seed gives the same op sequence");
	run_ops(wl, 2, again, OPS);
	ok(memcmp(ops, again, OPS * sizeof(*ops)) != 0, "another seed gives another sequence");

	/* workers start their sequential streams in their own part */
	{
		struct wl_state st;

		wl_state_init(wl, &st, 1, 7, 3, 4);
		/* 25603 cells of 4 KiB (and 12 KiB over): 6401, 6401, 6401, 6400 */
		ok(st.next_seq[0] == 19203ull * 4096, "part 3 of 4 starts after 3 x 6401 cells of the region");
	}
	test_parts();
	test_skip();
	test_seq_start();
	test_sequence();
	test_random_map();

	/* distributions */
	{
		struct workload *u = single(DIST_UNIFORM, 0), *z = single(DIST_ZIPF, 1.2), *p = single(DIST_PARETO, 0.9);
		struct workload *n = single(DIST_NORMAL, 10), *zo = single(DIST_ZONED, 0);
		double su, sz, sp;
		int in1 = 0, in2 = 0, bad = 0;
		double mean = 0, within = 0;

		run_ops(u, 5, ops, OPS);
		su = top_share(u, ops, OPS, 0.1);
		run_ops(z, 5, ops, OPS);
		for (int i = 0; i < OPS; i++)
			bad += ops[i].offset % 4096 || ops[i].offset + 4096 > z->region_len;
		sz = top_share(z, ops, OPS, 0.1);
		run_ops(p, 5, ops, OPS);
		sp = top_share(p, ops, OPS, 0.1);
		ok(su < 0.15, "uniform: hottest 10 %% of blocks get %.3f of accesses (about 0.1)", su);
		ok(sz > 0.6, "zipf:1.2: hottest 10 %% of blocks get %.3f of accesses (> 0.6)", sz);
		ok(sp > 0.6, "pareto:0.9: hottest 10 %% of blocks get %.3f of accesses (> 0.6)", sp);
		ok(!bad, "zipf offsets aligned and inside the region");
		run_ops(zo, 5, ops, OPS);
		for (int i = 0; i < OPS; i++) {
			double f = (double)ops[i].offset / zo->region_len;

			in1 += f < 0.1;
			in2 += f >= 0.1 && f < 0.3;
		}
		ok(near((double)in1 / OPS, 0.6, 0.01) && near((double)in2 / OPS, 0.3, 0.01),
		   "zoned:60/10:30/20:10/70: %.3f of accesses in the first 10 %%, %.3f in the next 20 %%",
		   (double)in1 / OPS, (double)in2 / OPS);
		run_ops(n, 5, ops, OPS);
		for (int i = 0; i < OPS; i++) {
			double f = (double)ops[i].offset / n->region_len;

			mean += f / OPS;
			within += fabs(f - 0.5) <= 0.1;
		}
		ok(near(mean, 0.5, 0.01) && near(within / OPS, 0.683, 0.02),
		   "normal:10: mean at %.3f of the region, %.3f within one sigma", mean, within / OPS);
		free(u);
		free(z);
		free(p);
		free(n);
		free(zo);
	}

	/* pacing */
	{
		struct pace *pc = calloc(1, sizeof(*pc));
		struct pace_state ps;
		struct rng r;
		double sum = 0, sumsq = 0;
		uint64_t prev, t0 = 1000000000ull;
		int in_idle = 0, count1 = 0, count3 = 0;

		rng_seed(&r, 3, 3);
		pc->nseg = 1;
		pc->seg[0] = (struct pace_seg){ .end_ns = UINT64_MAX, .iops = 1000, .poisson = 0 };
		pace_start(pc, &ps, t0, t0, 1, &r);
		prev = ps.next_ns;
		pace_advance(pc, &ps, t0, 1, &r);
		ok(ps.next_ns - prev == 1000000, "fixed 1000 IOPS: gaps of exactly 1 ms");
		pace_start(pc, &ps, t0, t0, 4, &r);
		prev = ps.next_ns;
		pace_advance(pc, &ps, t0, 4, &r);
		ok(ps.next_ns - prev == 4000000, "fixed 1000 IOPS over 4 workers: 4 ms per worker");

		pc->seg[0].poisson = 1;
		pace_start(pc, &ps, t0, t0, 1, &r);
		for (int i = 0; i < OPS; i++) {
			double g;

			prev = ps.next_ns;
			pace_advance(pc, &ps, t0, 1, &r);
			g = (double)(ps.next_ns - prev);
			sum += g;
			sumsq += g * g;
		}
		{
			double m = sum / OPS, cv = sqrt(sumsq / OPS - m * m) / m;

			ok(near(m, 1e6, 1e4) && near(cv, 1.0, 0.02), "poisson 1000 IOPS: mean gap %.0f ns, CV %.3f (1.0)", m, cv);
		}

		/* 1 s at 1000, 1 s idle, 1 s at 3000 */
		pc->nseg = 3;
		pc->seg[0] = (struct pace_seg){ .end_ns = 1000000000ull, .iops = 1000 };
		pc->seg[1] = (struct pace_seg){ .end_ns = 2000000000ull, .iops = 0 };
		pc->seg[2] = (struct pace_seg){ .end_ns = 3000000000ull, .iops = 3000 };
		pace_start(pc, &ps, t0, t0, 1, &r);
		while (ps.next_ns != UINT64_MAX) {
			uint64_t at = ps.next_ns - t0;

			count1 += at < 1000000000ull;
			in_idle += at >= 1000000000ull && at < 2000000000ull;
			count3 += at >= 2000000000ull;
			pace_advance(pc, &ps, t0, 1, &r);
		}
		ok(abs(count1 - 1000) <= 1 && in_idle == 0 && abs(count3 - 3000) <= 2,
		   "schedule 1000 / idle / 3000: %d, %d and %d I/Os", count1, in_idle, count3);

		pc->nseg = 0;
		pc->think = THINK_UNIFORM;
		pc->think_a_ns = 1000;
		pc->think_b_ns = 2000;
		{
			uint64_t lo = UINT64_MAX, hi = 0;

			for (int i = 0; i < OPS; i++) {
				uint64_t t = pace_think_ns(pc, &r);

				lo = t < lo ? t : lo;
				hi = t > hi ? t : hi;
			}
			ok(lo >= 1000 && hi <= 2000 && lo < 1010 && hi > 1990, "uniform think within [1000, 2000] ns (%llu..%llu)",
			   (unsigned long long)lo, (unsigned long long)hi);
		}
		pc->think = THINK_EXP;
		pc->think_a_ns = 500000;
		sum = 0;
		for (int i = 0; i < OPS; i++)
			sum += (double)pace_think_ns(pc, &r);
		ok(near(sum / OPS, 500000, 10000), "exponential think mean %.0f ns (500000)", sum / OPS);
		free(pc);
	}
	test_schedule_counts();
	free(ops);
	free(again);
	free(wl);
	return tap_done();
}
