/* phase_collect.c - a phase's result, after the join: the workers'
 * counters merged exactly (and per stream, per access spec, per replay),
 * the measured span, the trace records gathered, where the written areas
 * end; and the result given back (phase.h).
 */
#include "run/phase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_phase.h"
#include "core/clock.h"
#include "io/target.h"
#include "run/phase_int.h"
#include "run/replay.h"
#include "run/worker.h"
#include "verify/crash.h"
#include "verify/genmap.h"
#include "verify/verify_read.h"

void phase_result_free(struct phase_result *res)
{
	for (unsigned i = 0; res->streams && i < res->nstreams; i++) {
		free(res->streams[i].intervals);
		free(res->streams[i].specs);
		free(res->streams[i].replay);
	}
	free(res->replay);
	res->replay = NULL;
	if (res->cluster)
		free(res->cluster->hosts);
	free(res->cluster);
	res->cluster = NULL;
	free(res->specs);
	res->specs = NULL;
	free(res->streams);
	free(res->intervals);
	free(res->trace);
	res->streams = NULL;
	res->intervals = NULL;
	res->trace = NULL;
}


/* n empty spec_stats, or NULL when out of memory. */
struct spec_stats *phase_specs_new(unsigned n)
{
	struct spec_stats *s = calloc(n, sizeof(*s));

	for (unsigned i = 0; s && i < n; i++)
		hist_init(&s[i].lat);
	return s;
}

/* to[0..n) += from[0..n), exactly. */
static void specs_merge(struct spec_stats *to, const struct spec_stats *from, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		hist_merge(&to[i].lat, &from[i].lat);
		for (int op = 0; op < OP_NTYPES; op++)
			to[i].ios[op] += from[i].ios[op];
		to[i].bytes += from[i].bytes;
	}
}


/* The end of the measured span: the stop (or the last I/O counted before
 * the workers saw it) when interrupted; the phase's end when it ran its
 * time without errors; else the last I/O counted. Never before measure_ns. */
static uint64_t span_end(const struct runner *r, uint64_t stop_ns)
{
	const struct phase_result *res = r->res;
	const uint64_t last = res->total.last_done_ns;
	uint64_t end;

	if (res->interrupted)
		end = min_u64(r->stopped_ns > last ? r->stopped_ns : last, r->sh.end_ns);
	else if (r->sp->duration_ns && r->sh.end_ns <= stop_ns && !res->total.nfirst)
		end = r->sh.end_ns;
	else
		end = last > r->sh.measure_ns ? last : stop_ns;
	return end < r->sh.measure_ns ? r->sh.measure_ns : end;
}

/* The workers' trace records, worker after worker (none kept when out of
 * memory). */
static void gather_trace(struct runner *r)
{
	struct phase_result *res = r->res;
	uint64_t n = 0;

	for (unsigned i = 0; i < r->sp->workers; i++)
		n += r->w[i].ntrace;
	res->trace = malloc((n ? n : 1) * sizeof(*res->trace));
	if (!res->trace)
		return;
	for (unsigned i = 0; i < r->sp->workers; i++) {
		memcpy(res->trace + res->ntrace, r->w[i].trace, r->w[i].ntrace * sizeof(*res->trace));
		res->ntrace += r->w[i].ntrace;
	}
}

/* The figures per access spec, merged over each workload's workers (none
 * kept when out of memory: the result then has no specs). */
static void collect_specs(struct runner *r)
{
	for (unsigned u = 0; u < r->nu; u++) {
		const struct phase_spec *sp = r->u[u].sp;
		struct spec_stats **to = r->sp->nstreams ? &r->u[u].res->specs : &r->res->specs;

		if (!sp->per_spec || !(*to = phase_specs_new(sp->wl->nspecs)))
			continue;
		for (unsigned i = 0; i < sp->workers; i++)
			if (r->u[u].w[i].specs)
				specs_merge(*to, r->u[u].w[i].specs, sp->wl->nspecs);
	}
}

/* to += the replay figures of n workers, to allocated first when NULL
 * (left NULL when none of them replays, or out of memory). */
static void replay_merge(struct replay_stats **to, const struct worker *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct replay_stats *f = w[i].replay;
		struct replay_stats *t;

		if (!f)
			continue;
		if (!*to && (*to = calloc(1, sizeof(**to))))
			hist_init(&(*to)->lag);
		if (!(t = *to))
			return;
		replay_stats_merge(t, f);
	}
}

/* After the join, before the merge: where the written area of each
 * worker's target ends, as its map says now (verify_read.h), one scan per
 * map. */
static void note_written_ends(struct runner *r)
{
	for (unsigned i = 0; i < r->sp->workers; i++) {
		struct worker *w = &r->w[i];
		const struct gen_map *m = w->target->gmap;
		unsigned j = 0;

		if (w->spec->verify != VERIFY_CRC || !genmap_known(m))
			continue;
		while (j < i && !(r->w[j].target->gmap == m && r->w[j].c.verify.known))
			j++;
		w->c.verify.written_end = j < i ? r->w[j].c.verify.written_end : verify_written_end(m);
		w->c.verify.known = 1;
	}
}

/* After the join, before the merge: a phase that reads its region once
 * (read_once) leaves the tail of each target's region under a block
 * unread; its units count as skipped, on the worker of the last part. */
static void note_unread_tails(struct runner *r)
{
	for (unsigned i = 0; i < r->sp->workers; i++) {
		struct worker *w = &r->w[i];
		const struct phase_spec *sp = w->spec;

		if (sp->read_once && sp->verify == VERIFY_CRC && w->part + 1 == w->nparts)
			w->c.verify.units_skipped += w->wl->region_len % w->wl->grid / sp->verify_unit;
	}
}

/* After the join: each file of ours a worker wrote probed once more, so
 * that what its own data looks like is not taken for a claim next time
 * (target_note_seen). */
static void note_seen(struct runner *r)
{
	for (unsigned i = 0; i < r->sp->workers; i++) {
		unsigned j = 0;

		while (j < i && r->w[j].target != r->w[i].target)
			j++;
		if (j == i && phase_writes(r->w[i].spec))
			target_note_seen(r->w[i].target);
	}
}

/* A stream's measured time: the phase's, unless it ended by its own quota
 * (ios or bytes) before the phase did: then until its last I/O, so its
 * rate is its own (a paced stream of 100 I/Os beside a slower one met its
 * rate, though the phase went on). */
static double stream_seconds(const struct runner *r, const struct unit *u, double phase_s)
{
	const struct counters *c = &u->res->total;
	const uint64_t ios = c->op[OP_READ].lat.count + c->op[OP_WRITE].lat.count + c->op[OP_TRIM].lat.count;
	const uint64_t bytes = c->op[OP_READ].bytes + c->op[OP_WRITE].bytes;
	const int done = (u->sp->ios && ios >= u->sp->ios) || (u->sp->bytes && bytes >= u->sp->bytes);
	double own;

	if (!done || c->last_done_ns <= r->sh.measure_ns)
		return phase_s;
	own = (double)(c->last_done_ns - r->sh.measure_ns) / 1e9;
	return own < phase_s ? own : phase_s;
}

/* An after_crash pass that found units the storage should have kept
 * (crash.h) fails, whatever on_error says. */
static void note_crash(struct phase_result *res, const struct phase_spec *sp)
{
	const struct crash_counts *c = &res->total.verify.crash;
	uint64_t bad = c->n[CRASH_LOST_DURABLE] + c->n[CRASH_CORRUPT] + c->n[CRASH_MISDIRECTED] + c->n[CRASH_FOREIGN];

	if (sp->atomic)
		bad += c->n[CRASH_TORN];
	if (!c->judged || !bad || res->failed)
		return;
	res->failed = 1;
	snprintf(res->error, sizeof(res->error), "after the crash, %llu %s not hold what the storage made "
		 "durable (%llu lost durable writes, %llu torn, %llu corrupt, %llu misdirected, %llu foreign)",
		 (unsigned long long)bad, bad == 1 ? "unit does" : "units do", (unsigned long long)c->n[CRASH_LOST_DURABLE],
		 (unsigned long long)c->n[CRASH_TORN], (unsigned long long)c->n[CRASH_CORRUPT],
		 (unsigned long long)c->n[CRASH_MISDIRECTED], (unsigned long long)c->n[CRASH_FOREIGN]);
	if (c->n[CRASH_LOST_DURABLE] && !c->n[CRASH_DURABLE_OK] && !c->n[CRASH_UNFLUSHED_KEPT] && !c->n[CRASH_TORN]) {
		size_t n = strlen(res->error);

		snprintf(res->error + n, sizeof(res->error) - n, "; not one unit holds a write of this target: if it is "
			 "not the device or file the state was made on (a device with no identity in sysfs is known by "
			 "its number), the verdict is not the storage's");
	}
}

/* After the join: the workers' counters merged, the first engine failure,
 * the measured time and CPU use, the last interval, the trace. */
void phase_collect(struct runner *r)
{
	struct phase_result *res = r->res;
	uint64_t stop_ns, end;
	int keep;

	cpu_mark(&r->cpu_b);
	witness_end(&r->wit, res);
	stop_ns = clock_ns();
	note_written_ends(r);
	note_unread_tails(r);
	for (unsigned i = 0; i < r->sp->workers; i++) {
		counters_merge(&res->total, &r->w[i].c);
		worker_batch_merge(&res->batch, &r->w[i]);
		if (r->w[i].engine_failed && !res->failed) {
			res->failed = 1;
			snprintf(res->error, sizeof(res->error), "%s", r->w[i].error);
		}
	}
	note_crash(res, r->sp);
	for (unsigned u = 0; r->sp->nstreams && u < r->nu; u++)
		for (unsigned i = 0; i < r->u[u].sp->workers; i++) {
			counters_merge(&r->u[u].res->total, &r->u[u].w[i].c);
			worker_batch_merge(&r->u[u].res->batch, &r->u[u].w[i]);
		}
	collect_specs(r);
	replay_merge(&res->replay, r->w, r->sp->workers);
	for (unsigned u = 0; r->sp->nstreams && u < r->nu; u++)
		replay_merge(&r->u[u].res->replay, r->u[u].w, r->u[u].sp->workers);
	end = span_end(r, stop_ns);
	res->seconds = (double)(end - r->sh.measure_ns) / 1e9;
	for (unsigned u = 0; r->sp->nstreams && u < r->nu; u++)
		r->u[u].res->seconds = stream_seconds(r, &r->u[u], res->seconds);
	res->started_ns = r->realtime_ns + (int64_t)(r->sh.measure_ns - r->sh.t_start_ns);
	res->ended_ns = res->started_ns + (end > r->sh.measure_ns ? (int64_t)(end - r->sh.measure_ns) : 0);
	cpu_between(&r->cpu_a, &r->cpu_b, &res->cpu);
	phase_take_all(r);
	keep = sampler_last(&r->all, r->scratch, r->sh.measure_ns, end, r->sp->interval_ns, -1);
	for (unsigned u = 0; r->sp->nstreams && u < r->nu; u++)
		sampler_last(&r->u[u].smp, r->scratch, r->sh.measure_ns, end, r->sp->interval_ns, keep);
	if (keep)
		phase_made(r);
	snprintf(res->features, sizeof(res->features), "%s", r->w[0].features);
	if (r->sp->trace_max)
		gather_trace(r);
	note_seen(r);
}

