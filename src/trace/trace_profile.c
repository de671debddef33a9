/* trace_profile.c - a trace summed up (trace_profile.h): two passes over
 * the records, counters and the stream detector only, then the block sizes
 * sorted, the significant streams picked, the gaps' figures and the zoned
 * distribution fitted to the hot cells. */
#include "trace/trace_profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"

/* Distinct sizes of one op: open addressing on bytes + 1 (0: empty). */
struct size_table {
	uint64_t key[TP_SIZE_SLOTS];
	uint64_t n[TP_SIZE_SLOTS];
	unsigned used;
	uint64_t other; /* I/Os of sizes that found the table full */
};

struct pass {
	struct size_table sizes[OP_NDATA]; /* pass 1: every data I/O's; pass 2: the random remainder's */
	struct hist gaps;
	struct ts_detector det;
	struct trace_profile *p;
	int slot[TRACE_MAX_DEVS]; /* trace device -> profile's dev[], or -1 */
	/* the random I/Os (hot spots): records that neither continued a stream
	 * nor began a significant one, and the extent of them per slot */
	uint64_t rlo[TRACE_MAX_DEVS], rhi[TRACE_MAX_DEVS];
	uint64_t glo[TS_MAX_GROUPS], ghi[TS_MAX_GROUPS]; /* pass 1: the extent of each group's first records */
	int sig[TS_MAX_GROUPS];   /* group -> profile's stream[], or -1 */
};

static void size_count(struct size_table *st, uint32_t bytes)
{
	uint64_t key = (uint64_t)bytes + 1;
	unsigned i = (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 52) & (TP_SIZE_SLOTS - 1);

	while (st->key[i] && st->key[i] != key)
		i = (i + 1) & (TP_SIZE_SLOTS - 1);
	if (!st->key[i]) {
		if (st->used >= TP_SIZE_SLOTS * 3 / 4) {
			st->other++;
			return;
		}
		st->key[i] = key;
		st->used++;
	}
	st->n[i]++;
}

static int cmp_size(const void *a, const void *b)
{
	const struct tp_size *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* The sizes of the tables given, most common first, the rest as other. */
static int sizes_list(struct size_table *const *tabs, unsigned ntabs, struct tp_sizes *out)
{
	struct tp_size *all = malloc(sizeof(*all) * TP_SIZE_SLOTS * ntabs);
	unsigned n = 0;

	if (!all)
		return -1;
	memset(out, 0, sizeof(*out));
	for (unsigned t = 0; t < ntabs; t++) {
		out->other += tabs[t]->other;
		out->total += tabs[t]->other;
		for (unsigned i = 0; i < TP_SIZE_SLOTS; i++) {
			unsigned j;

			if (!tabs[t]->key[i])
				continue;
			out->total += tabs[t]->n[i];
			for (j = 0; j < n && all[j].bytes != tabs[t]->key[i] - 1; j++)
				;
			if (j == n)
				all[n++] = (struct tp_size){ .bytes = (uint32_t)(tabs[t]->key[i] - 1) };
			all[j].n += tabs[t]->n[i];
		}
	}
	qsort(all, n, sizeof(*all), cmp_size);
	out->n = n < TP_MAX_SIZES ? n : TP_MAX_SIZES;
	memcpy(out->size, all, sizeof(*all) * out->n);
	for (unsigned i = out->n; i < n; i++)
		out->other += all[i].n;
	free(all);
	return 0;
}

/* Count one record into c; seq says whether it continued a stream. */
static void count_io(struct tp_counts *c, const struct trace_io *io, int seq)
{
	if (!c->n || io->t_ns < c->first_ns) /* pass 2 counts some records when judged, later */
		c->first_ns = io->t_ns;
	if (io->t_ns > c->last_ns)
		c->last_ns = io->t_ns;
	c->n++;
	c->n_op[io->op]++;
	c->bytes_op[io->op] += io->len;
	c->seq_op[io->op] += (uint64_t)seq;
	if (io->op == OP_SYNC)
		return;
	if (io->offset < c->lo)
		c->lo = io->offset;
	if (io->offset + io->len > c->hi)
		c->hi = io->offset + io->len;
}

static int wanted(const struct trace_io *io, const struct tp_opts *o)
{
	return io->op < OP_NTYPES && (o->dev < 0 || io->dev == (unsigned)o->dev);
}

static void extend(uint64_t *lo, uint64_t *hi, uint64_t off, uint64_t end)
{
	if (off < *lo)
		*lo = off;
	if (end > *hi)
		*hi = end;
}

/* Pass 1: a data record judged: the sequential ones counted, and where
 * the random ones lie (a group's first records apart, until it is known
 * whether it is significant). */
static void judged_counts(void *ctx, const struct trace_io *io, int group, int verdict)
{
	struct pass *ps = ctx;
	int slot = ps->slot[io->dev];

	if (verdict == TS_SEQ) {
		ps->p->all.seq_op[io->op]++;
		ps->p->dev[slot].seq_op[io->op]++;
	} else if (verdict == TS_FIRST && group >= 0) {
		extend(&ps->glo[group], &ps->ghi[group], io->offset, io->offset + io->len);
	} else {
		extend(&ps->rlo[slot], &ps->rhi[slot], io->offset, io->offset + io->len);
	}
}

/* Pass 1: counts, sequential I/Os, sizes, extents and gaps. -1: no memory. */
static int pass_counts(const struct trace *t, const struct tp_opts *o, struct pass *ps, struct trace_profile *p)
{
	uint64_t prev_t = 0;

	p->all.lo = UINT64_MAX;
	for (unsigned d = 0; d < TRACE_MAX_DEVS; d++)
		p->dev[d].lo = ps->rlo[d] = UINT64_MAX;
	for (unsigned g = 0; g < TS_MAX_GROUPS; g++)
		ps->glo[g] = UINT64_MAX;
	ts_init(&ps->det, o->seq_gap, judged_counts, ps);
	for (uint64_t i = 0; i < t->n; i++) {
		const struct trace_io *io = &t->io[i];
		int slot;

		if (!wanted(io, o))
			continue;
		if (ps->slot[io->dev] < 0) {
			ps->slot[io->dev] = (int)p->ndevs;
			p->dev_index[p->ndevs++] = io->dev;
		}
		slot = ps->slot[io->dev];
		if (p->all.n)
			hist_record(&ps->gaps, io->t_ns > prev_t ? io->t_ns - prev_t : 0);
		prev_t = io->t_ns;
		count_io(&p->all, io, 0); /* sequential when judged */
		count_io(&p->dev[slot], io, 0);
		if (io->op == OP_SYNC)
			ts_sync(&ps->det, io);
		else if (ts_record(&ps->det, io) < 0)
			return -1;
		if (io->op != OP_SYNC)
			size_count(&ps->sizes[io->op], io->len);
	}
	ts_finish(&ps->det);
	return 0;
}

/* Most I/Os first; ties by device, op and size, so the order is the same
 * on every run. */
static int cmp_stream(const void *a, const void *b)
{
	const struct ts_group *x = &((const struct tp_stream *)a)->g, *y = &((const struct tp_stream *)b)->g;

	if (x->ios != y->ios)
		return x->ios > y->ios ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return (x->bs > y->bs) - (x->bs < y->bs);
}

/* After pass 1: each device's runs and concurrency, and the significant
 * streams (the largest TP_MAX_STREAMS), each with its buckets. -1: no memory. */
static int pick_streams(struct pass *ps, struct trace_profile *p)
{
	const struct ts_detector *d = &ps->det;
	uint64_t data = p->all.n - p->all.n_op[OP_SYNC];
	struct tp_stream all[TS_MAX_GROUPS];
	unsigned n = 0;

	for (unsigned s = 0; s < p->ndevs; s++) {
		struct ts_counts *c = &p->dev[s].streams, *a = &p->all.streams;

		ts_device_counts(d, p->dev_index[s], c);
		a->runs += c->runs;
		a->streams = c->streams > a->streams ? c->streams : a->streams;
		for (unsigned op = 0; op < OP_NDATA; op++) {
			a->runs_op[op] += c->runs_op[op];
			if (c->streams_op[op] > a->streams_op[op])
				a->streams_op[op] = c->streams_op[op];
		}
	}
	for (unsigned g = 0; g < d->ngroups; g++)
		if (d->group[g].ios * 100 >= data * TP_STREAM_PCT &&
		    d->group[g].ios >= d->group[g].runs * TP_STREAM_RUN)
			all[n++] = (struct tp_stream){ .g = d->group[g] };
	qsort(all, n, sizeof(all[0]), cmp_stream);
	p->nstreams = n < TP_MAX_STREAMS ? n : TP_MAX_STREAMS;
	for (unsigned g = 0; g < TS_MAX_GROUPS; g++)
		ps->sig[g] = -1;
	for (unsigned i = 0; i < p->nstreams; i++) {
		p->stream[i] = all[i];
		for (unsigned g = 0; g < d->ngroups; g++)
			if (d->group[g].dev == all[i].g.dev && d->group[g].op == all[i].g.op && d->group[g].bs == all[i].g.bs)
				ps->sig[g] = (int)i;
		p->stream[i].bucket = calloc(p->nbuckets, sizeof(uint64_t));
		if (!p->stream[i].bucket)
			return -1;
	}
	for (unsigned g = 0; g < d->ngroups; g++) /* the first records of runs too short to be streams are random */
		if (ps->sig[g] < 0 && ps->glo[g] < UINT64_MAX)
			extend(&ps->rlo[ps->slot[d->group[g].dev]], &ps->rhi[ps->slot[d->group[g].dev]], ps->glo[g], ps->ghi[g]);
	return 0;
}

static uint64_t bucket_of(const struct trace_profile *p, uint64_t t_ns)
{
	uint64_t span = p->all.last_ns - p->all.first_ns, b;

	b = span ? (uint64_t)((unsigned __int128)(t_ns - p->all.first_ns) * p->nbuckets / span) : 0;
	return b < p->nbuckets ? b : p->nbuckets - 1;
}

/* io in a cell of its device's extent: of the random I/Os' (cells_random),
 * else of all. */
static void place(struct pass *ps, const struct trace_io *io)
{
	struct trace_profile *p = ps->p;
	int slot = ps->slot[io->dev];
	uint64_t lo = p->cells_random ? ps->rlo[slot] : p->dev[slot].lo;
	uint64_t ext = (p->cells_random ? ps->rhi[slot] : p->dev[slot].hi) - lo, c;

	c = ext ? (uint64_t)((unsigned __int128)(io->offset - lo) * p->ncells / ext) : 0;
	p->cell[c < p->ncells ? c : p->ncells - 1]++;
	p->cell_total++;
}

/* Pass 2: a data record of the random remainder. */
static void count_rest(struct pass *ps, const struct trace_io *io, int seq)
{
	count_io(&ps->p->random, io, seq);
	size_count(&ps->sizes[io->op], io->len);
	ps->p->random_bucket[bucket_of(ps->p, io->t_ns)]++;
}

/* Pass 2: a data record judged: a significant stream's, else the rest's
 * (a random one placed in a cell). */
static void judged_rest(void *ctx, const struct trace_io *io, int group, int verdict)
{
	struct pass *ps = ctx;
	int stream = verdict != TS_RANDOM && group >= 0 ? ps->sig[group] : -1;

	if (stream >= 0) {
		ps->p->stream[stream].bucket[bucket_of(ps->p, io->t_ns)]++;
		return;
	}
	count_rest(ps, io, verdict == TS_SEQ);
	if (ps->p->cells_random && verdict != TS_SEQ)
		place(ps, io);
}

/* The remainder's syncs: those no significant stream counted. */
static void random_syncs(struct trace_profile *p)
{
	uint64_t n = p->all.n_op[OP_SYNC];

	for (unsigned i = 0; i < p->nstreams; i++)
		n -= p->stream[i].g.syncs;
	p->random.n += n;
	p->random.n_op[OP_SYNC] = n;
}

/* Pass 2: I/Os over time, the random remainder, the significant streams'
 * I/Os over time, and the random I/Os (all, if under 1 % were) in cells.
 * -1: no memory. */
static int pass_cells(const struct trace *t, const struct tp_opts *o, struct pass *ps, struct trace_profile *p)
{
	ts_free(&ps->det);
	ts_init(&ps->det, o->seq_gap, judged_rest, ps);
	memset(ps->sizes, 0, sizeof(ps->sizes));
	p->random.lo = UINT64_MAX;
	for (uint64_t i = 0; i < t->n; i++) {
		const struct trace_io *io = &t->io[i];

		if (!wanted(io, o))
			continue;
		p->bucket[bucket_of(p, io->t_ns)]++;
		if (io->op == OP_SYNC)
			continue;
		if (ts_record(&ps->det, io) < 0) /* judged_rest counts it, now or later */
			return -1;
		if (!p->cells_random)
			place(ps, io);
	}
	ts_finish(&ps->det);
	random_syncs(p);
	return 0;
}

/* Gaps: mean, coefficient of variation, percentiles, and the arrival
 * process they look like (cv under 0.5: fixed; up to 2: poisson; above:
 * bursty). */
static void gap_figures(const struct hist *h, struct trace_profile *p)
{
	p->gaps = h->count;
	p->arrival = "fixed";
	if (!h->count)
		return;
	p->gap_mean_ns = hist_mean(h);
	p->gap_cv = p->gap_mean_ns > 0 ? hist_stdev(h) / p->gap_mean_ns : 0;
	p->gap_p50_ns = hist_percentile(h, 50);
	p->gap_p99_ns = hist_percentile(h, 99);
	p->gap_max_ns = h->max;
	if (p->gap_mean_ns <= 0)
		p->arrival = "bursty"; /* every I/O at one instant */
	else if (p->gap_cv >= 2)
		p->arrival = "bursty";
	else if (p->gap_cv >= 0.5)
		p->arrival = "poisson";
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x > y ? -1 : x < y;
}

/* v[i] * scale / total for each i (n <= TP_MAX_ZONES), whole numbers that
 * sum to scale exactly: the largest remainders are rounded up. */
static void shares_round(const uint64_t *v, unsigned n, uint64_t total, uint64_t scale, uint64_t *out)
{
	uint64_t sum = 0, rem[TP_MAX_ZONES];

	for (unsigned i = 0; i < n; i++) {
		out[i] = (uint64_t)((unsigned __int128)v[i] * scale / total);
		rem[i] = (uint64_t)((unsigned __int128)v[i] * scale % total) + 1;
		sum += out[i];
	}
	while (sum < scale) {
		unsigned best = 0;

		for (unsigned i = 1; i < n; i++)
			if (rem[i] > rem[best])
				best = i;
		out[best]++;
		rem[best] = 0;
		sum++;
	}
}

/* The cells sorted hottest first, cut into k groups with the least squared
 * error (dynamic programming over the prefix sums); ends[] gets each
 * group's end. The share of accesses the groups' means misplace. */
static double cut_groups(const uint64_t *s, unsigned c, unsigned k, const double *S, const unsigned *from,
			 unsigned *ends)
{
	double err = 0;
	unsigned j = c;

	for (unsigned g = k; g-- > 0;) {
		unsigned i = from[g * (c + 1) + j];

		ends[g] = j;
		for (unsigned x = i; x < j; x++)
			err += fabs((double)s[x] - (S[j] - S[i]) / (j - i));
		j = i;
	}
	return S[c] > 0 ? err / 2 / S[c] : 0;
}

/* The zoned distribution that fits the cells: the fewest zones (at most
 * max_zones) that misplace no more than the larger of 2 % of the accesses
 * and twice what sampling noise alone would (0.4 * sqrt(cells / accesses)). */
static int fit_zones(struct trace_profile *p, unsigned max_zones)
{
	unsigned c = p->ncells, kmax = max_zones < c ? max_zones : c, ends[TP_MAX_ZONES], k;
	uint64_t *s = malloc(sizeof(*s) * c);
	double *S = malloc(sizeof(*S) * (c + 1)), *Q = malloc(sizeof(*Q) * (c + 1));
	double *best = malloc(sizeof(*best) * (c + 1) * kmax);
	unsigned *from = malloc(sizeof(*from) * (c + 1) * kmax);
	double tol = fmax(0.02, 0.8 * sqrt((double)c / (double)p->cell_total)), err = 0;
	int rc = RC_FAIL;

	if (!s || !S || !Q || !best || !from)
		goto out;
	memcpy(s, p->cell, sizeof(*s) * c);
	qsort(s, c, sizeof(*s), cmp_desc);
	S[0] = Q[0] = 0;
	for (unsigned i = 0; i < c; i++) {
		S[i + 1] = S[i] + (double)s[i];
		Q[i + 1] = Q[i] + (double)s[i] * (double)s[i];
	}
#define COST(i, j) (Q[j] - Q[i] - (S[j] - S[i]) * (S[j] - S[i]) / ((j) - (i)))
	for (unsigned j = 1; j <= c; j++) {
		best[j] = COST(0, j);
		from[j] = 0;
	}
	for (k = 1; k <= kmax; k++) {
		if (k > 1)
			for (unsigned j = k; j <= c; j++) {
				double *b = &best[(k - 1) * (c + 1) + j];

				*b = INFINITY;
				for (unsigned i = k - 1; i < j; i++) {
					double v = best[(k - 2) * (c + 1) + i] + COST(i, j);

					if (v < *b) {
						*b = v;
						from[(k - 1) * (c + 1) + j] = i;
					}
				}
			}
		err = cut_groups(s, c, k, S, from, ends);
		if (err <= tol || k == kmax)
			break;
	}
#undef COST
	p->nzones = k;
	p->fit_error_pct = err * 100;
	for (unsigned g = 0, a = 0; g < k; a = ends[g++]) {
		p->zone[g].access_pct = 100 * (S[ends[g]] - S[a]) / S[c];
		p->zone[g].region_pct = 100.0 * (ends[g] - a) / c;
	}
	rc = RC_OK;
out:
	free(s);
	free(S);
	free(Q);
	free(best);
	free(from);
	return rc;
}

/* p->zoned: "uniform" for one zone, else "zoned:A/R:..." in thousandths of
 * a percent that sum to 100 exactly, hottest first. */
static void zoned_string(struct trace_profile *p)
{
	uint64_t acc[TP_MAX_ZONES], reg[TP_MAX_ZONES], ra[TP_MAX_ZONES], rr[TP_MAX_ZONES];
	size_t len;

	if (p->nzones <= 1) {
		snprintf(p->zoned, sizeof(p->zoned), "uniform");
		return;
	}
	for (unsigned g = 0; g < p->nzones; g++) {
		acc[g] = (uint64_t)llround(p->zone[g].access_pct * 1e6);
		reg[g] = (uint64_t)llround(p->zone[g].region_pct * 1e6);
	}
	shares_round(acc, p->nzones, 100000000, 100000, ra);
	shares_round(reg, p->nzones, 100000000, 100000, rr);
	len = (size_t)snprintf(p->zoned, sizeof(p->zoned), "zoned");
	for (unsigned g = 0; g < p->nzones && len < sizeof(p->zoned); g++) {
		len += (size_t)snprintf(p->zoned + len, sizeof(p->zoned) - len, ":%llu.%03llu/%llu.%03llu",
					(unsigned long long)(ra[g] / 1000), (unsigned long long)(ra[g] % 1000),
					(unsigned long long)(rr[g] / 1000), (unsigned long long)(rr[g] % 1000));
		p->zone[g].access_pct = (double)ra[g] / 1000;
		p->zone[g].region_pct = (double)rr[g] / 1000;
	}
}

/* The hot spots' fit, once the cells are counted. */
static int trace_profile_fit(struct trace_profile *p, unsigned max_zones)
{
	if (!p->cell_total) {
		snprintf(p->zoned, sizeof(p->zoned), "uniform");
		return RC_OK;
	}
	if (fit_zones(p, max_zones))
		return RC_FAIL;
	zoned_string(p);
	return RC_OK;
}

/* The default buckets: 60 of at least 10 ms, fewer for a short trace. */
static unsigned default_buckets(uint64_t span_ns)
{
	uint64_t n = span_ns / 10000000u;

	return n >= 60 ? 60 : n ? (unsigned)n : 1;
}

static int check_opts(const struct trace *t, const struct tp_opts *o, char *why, size_t why_len)
{
	if (o->dev >= 0 && (unsigned)o->dev >= t->ndevs && !(t->ndevs == 0 && o->dev == 0))
		snprintf(why, why_len, "device %d: the trace has %u", o->dev, t->ndevs);
	else if (o->cells < 1 || o->cells > TP_MAX_CELLS)
		snprintf(why, why_len, "cells: %u is out of range (1 to %d)", o->cells, TP_MAX_CELLS);
	else if (o->max_zones < 1 || o->max_zones > TP_MAX_ZONES)
		snprintf(why, why_len, "zones: %u is out of range (1 to %d)", o->max_zones, TP_MAX_ZONES);
	else if (o->buckets > TP_MAX_BUCKETS)
		snprintf(why, why_len, "buckets: %u is out of range (0: chosen, up to %d)", o->buckets, TP_MAX_BUCKETS);
	else if (o->seq_gap > TS_MAX_GAP)
		snprintf(why, why_len, "seq_gap: %llu bytes is out of range (0 to %llu)", (unsigned long long)o->seq_gap,
			 (unsigned long long)TS_MAX_GAP);
	else
		return RC_OK;
	return RC_INPUT;
}

/* Everything after pass 1: sizes, span, gaps, streams; then pass 2 and
 * the fit. */
static int finish(const struct trace *t, const struct tp_opts *o, struct pass *ps, struct trace_profile *p)
{
	struct size_table *tabs[OP_NDATA] = { &ps->sizes[0], &ps->sizes[1], &ps->sizes[2] };
	uint64_t span = p->all.last_ns - p->all.first_ns, data;

	if (sizes_list(tabs, OP_NDATA, &p->sizes_all))
		return RC_FAIL;
	for (unsigned op = 0; op < OP_NDATA; op++)
		if (sizes_list(&tabs[op], 1, &p->sizes_op[op]))
			return RC_FAIL;
	p->span_s = (double)span / 1e9;
	p->iops = span ? (double)(p->all.n - 1) / p->span_s : 0;
	gap_figures(&ps->gaps, p);
	p->nbuckets = o->buckets ? o->buckets : default_buckets(span);
	p->bucket_s = p->span_s / p->nbuckets;
	p->ncells = o->cells;
	data = p->all.n - p->all.n_op[OP_SYNC];
	/* hot spots are where the random I/Os go, unless under 1 % are random */
	p->cells_random = (data - p->all.seq_op[OP_READ] - p->all.seq_op[OP_WRITE] - p->all.seq_op[OP_TRIM]) * 100 >= data;
	p->bucket = calloc(p->nbuckets, sizeof(*p->bucket));
	p->random_bucket = calloc(p->nbuckets, sizeof(*p->random_bucket));
	p->cell = calloc(p->ncells, sizeof(*p->cell));
	if (!p->bucket || !p->random_bucket || !p->cell || pick_streams(ps, p))
		return RC_FAIL;
	if (pass_cells(t, o, ps, p))
		return RC_FAIL;
	if (sizes_list(tabs, OP_NDATA, &p->random_sizes_all))
		return RC_FAIL;
	for (unsigned op = 0; op < OP_NDATA; op++)
		if (sizes_list(&tabs[op], 1, &p->random_sizes_op[op]))
			return RC_FAIL;
	return trace_profile_fit(p, o->max_zones);
}

int trace_profile(const struct trace *t, const struct tp_opts *o, struct trace_profile *p, char *why, size_t why_len)
{
	struct pass *ps;
	int rc;

	memset(p, 0, sizeof(*p));
	if ((rc = check_opts(t, o, why, why_len)) != RC_OK)
		return rc;
	ps = calloc(1, sizeof(*ps));
	if (!ps) {
		snprintf(why, why_len, "no memory for a trace profile");
		return RC_FAIL;
	}
	hist_init(&ps->gaps);
	ps->p = p;
	for (unsigned d = 0; d < TRACE_MAX_DEVS; d++)
		ps->slot[d] = -1;
	if (pass_counts(t, o, ps, p)) {
		rc = RC_FAIL;
		snprintf(why, why_len, "no memory for a trace profile");
	} else if (!p->all.n) {
		rc = RC_INPUT;
		snprintf(why, why_len, "the trace holds no I/O to profile");
	} else if ((rc = finish(t, o, ps, p)) != RC_OK) {
		snprintf(why, why_len, "no memory for a trace profile");
	}
	ts_free(&ps->det);
	free(ps);
	if (rc != RC_OK)
		trace_profile_free(p);
	return rc;
}

void trace_profile_free(struct trace_profile *p)
{
	free(p->bucket);
	free(p->random_bucket);
	free(p->cell);
	p->bucket = p->random_bucket = p->cell = NULL;
	for (unsigned i = 0; i < p->nstreams; i++) {
		free(p->stream[i].bucket);
		p->stream[i].bucket = NULL;
	}
}
