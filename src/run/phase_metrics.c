/* phase_metrics.c - a running phase's figures, interval by interval, for
 * the exporter (phase_metrics.h, metrics.h).
 *
 * After each tick the samplers' newest snapshots hold what every
 * workload counted so far (histograms and bytes, read as the sampler
 * reads them); errors and the time in flight are read from the workers'
 * counters with relaxed loads, as the sampler reads the rest. Nothing
 * here runs in a worker. One phase runs at a time in a process, so the
 * state of the one running is kept here: each workload's series and its
 * histogram at the last tick (for the interval's percentiles), allocated
 * as the phase begins and freed as it ends.
 */
#include "run/phase_metrics.h"

#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "core/clock.h"
#include "run/metrics.h"
#include "run/phase_int.h"

static struct {
	int active;
	unsigned n;
	double t_s;         /* the last tick's time since measurement began */
	int ids[PHASE_MAX_STREAMS];
	/* in a cluster (rank 0): the merged intervals' series, their sums */
	int cluster, streams;
	int all_ids[PHASE_MAX_STREAMS];
	uint64_t all_ios[PHASE_MAX_STREAMS][OP_NDATA], all_bytes[PHASE_MAX_STREAMS][OP_NDATA];
	struct hist *last;   /* n of them: each workload's all-op histogram at the last update */
	struct hist *cur, *iv;
	/* the other ranks' own figures, from the merged intervals: by
	 * (rank, workload) their series (-1: none yet) and sums */
	const struct phase_spec *sp;
	unsigned ranks;
	int *rank_ids;
	uint64_t (*rank_ios)[OP_NDATA], (*rank_bytes)[OP_NDATA];
} st;

static struct sampler *sampler_of(struct runner *r, unsigned i)
{
	return r->sp->nstreams ? &r->u[i].smp : &r->all;
}

/* The rate a workload is asked now (t_ns since measurement began); -1:
 * none (closed loop, or a replay's own times). */
static double rate_now(const struct phase_spec *sp, uint64_t t_ns)
{
	if (!sp->pace || !sp->pace->nseg)
		return -1;
	for (unsigned k = 0; k < sp->pace->nseg; k++)
		if (t_ns < sp->pace->seg[k].end_ns)
			return sp->pace->seg[k].iops;
	return 0;
}

/* How much of the phase is done after t_ns of measurement, ios and bytes. */
static double progress_of(const struct phase_spec *sp, uint64_t t_ns, uint64_t ios, uint64_t bytes)
{
	if (sp->duration_ns)
		return (double)t_ns / (double)sp->duration_ns;
	if (sp->ios)
		return (double)ios / (double)sp->ios;
	if (sp->bytes)
		return (double)bytes / (double)sp->bytes;
	return 0;
}

/* Errors and time in flight of a workload's workers so far. */
static void worker_counts(const struct worker *w, unsigned n, struct metrics_sample *x)
{
	for (unsigned i = 0; i < n; i++) {
		for (int op = 0; op < OP_NDATA; op++)
			x->errors[op] += __atomic_load_n(&w[i].c.op[op].errors, __ATOMIC_RELAXED);
		x->inflight_ns += __atomic_load_n(&w[i].c.inflight_ns, __ATOMIC_RELAXED);
	}
}

/* The interval's all-op histogram of workload i (into st.iv), from its
 * per-op histograms so far; st.last[i] moves on. */
static void interval_of(unsigned i, const struct hist *const *op_h)
{
	hist_init(st.cur);
	for (int op = 0; op < OP_NDATA; op++)
		hist_merge(st.cur, op_h[op]);
	hist_delta(st.iv, st.cur, &st.last[i]);
	st.last[i] = *st.cur;
}

void phase_metrics_begin(struct runner *r)
{
	struct metrics_unit u[PHASE_MAX_STREAMS];
	const struct target *t;

	if (!metrics_on() || st.active)
		return;
	st.n = r->nu;
	st.streams = r->sp->nstreams > 0;
	st.last = malloc(st.n * sizeof(*st.last));
	st.cur = malloc(sizeof(*st.cur));
	st.iv = malloc(sizeof(*st.iv));
	if (!st.last || !st.cur || !st.iv) {
		free(st.last), free(st.cur), free(st.iv);
		return; /* not exported: the phase runs as it would */
	}
	for (unsigned i = 0; i < st.n; i++) {
		const struct phase_spec *sp = phase_stream(r->sp, i);

		hist_init(&st.last[i]);
		t = sp->ntargets ? sp->targets[0] : NULL;
		u[i] = (struct metrics_unit){ .phase = r->sp->name ? r->sp->name : "",
					      .stream = r->sp->nstreams ? (sp->name ? sp->name : "") : NULL,
					      .engine = r->sp->engine->name,
					      .target = t && t->kind != TARGET_NONE ? t->path : "",
					      .rank = r->cp ? (int)cluster_rank() : -1 };
	}
	metrics_phase_begin(u, st.n, st.ids);
	st.sp = r->sp;
	if ((st.cluster = r->cp != NULL)) {
		for (unsigned i = 0; i < st.n; i++) {
			u[i].merged = 1;
			u[i].rank = -1;
		}
		metrics_phase_begin(u, st.n, st.all_ids);
		st.ranks = cluster_ranks();
		st.rank_ids = malloc((size_t)st.ranks * st.n * sizeof(*st.rank_ids));
		st.rank_ios = calloc((size_t)st.ranks * st.n, sizeof(*st.rank_ios));
		st.rank_bytes = calloc((size_t)st.ranks * st.n, sizeof(*st.rank_bytes));
		if (!st.rank_ids || !st.rank_ios || !st.rank_bytes) {
			free(st.rank_ids), free(st.rank_ios), free(st.rank_bytes);
			st.rank_ids = NULL, st.rank_ios = st.rank_bytes = NULL;
			st.ranks = 0; /* the other ranks' own figures not exported */
		}
		for (unsigned k = 0; k < st.ranks * st.n; k++)
			st.rank_ids[k] = -1;
	}
	st.active = 1;
}

void phase_metrics_tick(struct runner *r)
{
	const uint64_t t_ns = r->now > r->sh.measure_ns ? r->now - r->sh.measure_ns : 0;

	if (!st.active)
		return;
	/* the tick at the end of a timed phase: the end's update, after the
	 * join, says it whole (with what completed after this snapshot) */
	if (r->sh.end_ns != UINT64_MAX && r->now + r->sp->interval_ns / 10 >= r->sh.end_ns)
		return;
	for (unsigned i = 0; i < st.n; i++) {
		const struct sampler *m = sampler_of(r, i);
		const struct interval *iv = *m->nlist ? &(*m->list)[*m->nlist - 1] : NULL;
		const struct hist *op_h[OP_NDATA];
		struct metrics_sample x = { .t_s = iv ? iv->t_s : 0, .len_s = iv ? iv->len_s : 0,
					    .time_ns = clock_realtime_ns() };
		uint64_t ios = 0, bytes = 0;

		for (int op = 0; op < OP_NDATA; op++) {
			op_h[op] = x.lat[op] = &m->prev->h[op];
			x.ios[op] = m->prev->h[op].count;
			x.bytes[op] = m->prev->bytes[op];
			ios += x.ios[op];
			bytes += op < OP_TRIM ? x.bytes[op] : 0;
		}
		worker_counts(m->w, m->n, &x);
		x.rate_iops = rate_now(phase_stream(r->sp, i), t_ns);
		x.progress = progress_of(r->sp, t_ns, ios, bytes);
		interval_of(i, op_h);
		metrics_update(st.ids[i], &x, st.iv);
		st.t_s = x.t_s;
	}
	metrics_publish();
}

void phase_metrics_end(struct runner *r)
{
	if (!st.active)
		return;
	for (unsigned i = 0; i < st.n; i++) {
		const struct counters *c = r->sp->nstreams ? &r->res->streams[i].total : &r->res->total;
		const struct hist *op_h[OP_NDATA];
		struct metrics_sample x = { .t_s = r->res->seconds, .inflight_ns = c->inflight_ns,
					    .time_ns = clock_realtime_ns(), .rate_iops = -1, .progress = 1 };

		x.len_s = r->res->seconds > st.t_s ? r->res->seconds - st.t_s : 0;
		for (int op = 0; op < OP_NDATA; op++) {
			op_h[op] = x.lat[op] = &c->op[op].lat;
			x.ios[op] = c->op[op].lat.count;
			x.bytes[op] = c->op[op].bytes;
			x.errors[op] = c->op[op].errors;
		}
		interval_of(i, op_h);
		metrics_update(st.ids[i], &x, st.iv);
	}
	metrics_phase_end(st.ids, st.n);
	if (!st.cluster)
		phase_metrics_free();
}

void phase_metrics_free(void)
{
	free(st.last), free(st.cur), free(st.iv);
	free(st.rank_ids), free(st.rank_ios), free(st.rank_bytes);
	memset(&st, 0, sizeof(st));
}

/* Unit u of the cluster's (0: the phase, then each stream) as ours. */
static int cluster_unit(unsigned u)
{
	if (!st.streams)
		return u == 0 ? 0 : -1;
	return u >= 1 && u <= st.n ? (int)u - 1 : -1; /* streams: the phase's own sum is not a series */
}

void phase_metrics_merged(unsigned u, const struct interval *iv, const struct hist *h)
{
	struct metrics_sample x = { .t_s = iv->t_s, .len_s = iv->len_s, .rate_iops = -1,
				    .time_ns = clock_realtime_ns() };
	int i;

	if (!st.active || !st.cluster || (i = cluster_unit(u)) < 0)
		return;
	for (int op = 0; op < OP_NDATA; op++) {
		x.ios[op] = st.all_ios[i][op] += iv->ios[op];
		x.bytes[op] = st.all_bytes[i][op] += iv->bytes[op];
	}
	metrics_update(st.all_ids[i], &x, h);
	metrics_publish();
}

void phase_metrics_rank(unsigned rank, const char *host, unsigned u, const struct interval *iv)
{
	struct metrics_sample x = { .t_s = iv->t_s, .len_s = iv->len_s, .rate_iops = -1,
				    .time_ns = clock_realtime_ns() };
	uint64_t ios = 0, bytes = 0;
	int i;
	size_t k;

	if (!st.active || !st.cluster || rank >= st.ranks || rank == cluster_rank() || (i = cluster_unit(u)) < 0)
		return;
	k = (size_t)rank * st.n + (unsigned)i;
	if (st.rank_ids[k] < 0) { /* its first interval: its series */
		const struct phase_spec *sp = phase_stream(st.sp, (unsigned)i);
		const struct target *t = sp->ntargets ? sp->targets[0] : NULL;
		struct metrics_unit mu = { .phase = st.sp->name ? st.sp->name : "",
					   .stream = st.streams ? (sp->name ? sp->name : "") : NULL,
					   .engine = st.sp->engine->name,
					   .target = t && t->kind != TARGET_NONE ? t->path : "",
					   .rank = (int)rank, .host = host, .remote = 1 };

		metrics_phase_begin(&mu, 1, &st.rank_ids[k]);
		if (st.rank_ids[k] < 0)
			return;
	}
	for (int op = 0; op < OP_NDATA; op++) {
		x.ios[op] = st.rank_ios[k][op] += iv->ios[op];
		x.bytes[op] = st.rank_bytes[k][op] += iv->bytes[op];
		ios += x.ios[op];
		bytes += op < OP_TRIM ? x.bytes[op] : 0;
	}
	x.progress = progress_of(st.sp, (uint64_t)(iv->t_s * 1e9), ios, bytes);
	hist_init(st.iv);
	metrics_update(st.rank_ids[k], &x, st.iv);
}

void phase_metrics_cluster_end(struct runner *r)
{
	if (!st.active)
		return;
	if (st.ranks)
		metrics_phase_end(st.rank_ids, st.ranks * st.n); /* the other ranks' (-1: none made) */
	for (unsigned i = 0; i < st.n; i++) {
		const struct counters *c = r->sp->nstreams ? &r->res->streams[i].total : &r->res->total;
		struct metrics_sample x = { .t_s = r->res->seconds, .time_ns = clock_realtime_ns(), .rate_iops = -1,
					    .progress = 1 };

		hist_init(st.iv);
		for (int op = 0; op < OP_NDATA; op++) {
			x.lat[op] = &c->op[op].lat;
			x.ios[op] = c->op[op].lat.count;
			x.bytes[op] = c->op[op].bytes;
			x.errors[op] = c->op[op].errors;
		}
		/* the merged result is exact: what the merged intervals missed
		 * (the last partial one), as one last line */
		x.len_s = 0;
		metrics_update(st.all_ids[i], &x, st.iv);
	}
	metrics_phase_end(st.all_ids, st.n);
	phase_metrics_free();
}
