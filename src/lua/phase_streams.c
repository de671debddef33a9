/* phase_streams.c - a phase with streams, checked as a whole: how long it
 * lasts (its duration, else its longest schedule from its stream's start),
 * what each stream takes from the phase, the targets streams share (one
 * file named twice is created once), and a verified target no other
 * stream may write. Each stream is checked as a workload of its own
 * (phase_check.c). No Lua: the binding raises.
 */
#include <string.h>

#include "io/protect.h"
#include "io/target.h"
#include "lua/phase_check.h"
#include "lua/phase_read.h"
#include "verify/genmap.h"

/* How long a phase with streams lasts: its duration; else the longest
 * stream schedule, counted from the stream's start; else 10 s unless
 * every stream has an ios or bytes quota (then it lasts until the last
 * quota is done). */
static uint64_t streams_duration(const struct run_state *rs)
{
	uint64_t d = 0;
	int all_quotas = 1;

	if (rs->sp.duration_ns)
		return rs->sp.duration_ns;
	for (unsigned i = 0; i < rs->nstreams; i++) {
		const struct phase_spec *st = &rs->stream[i]->sp;

		const uint64_t sched = pace_schedule_ns(&rs->stream[i]->pace), late = pace_late_ns(st, rs->sp.ramp_ns);

		if (sched && sched + late > d)
			d = sched + late; /* its schedule, from its own start */
		all_quotas = all_quotas && (st->ios || st->bytes || (st->replay && st->replay->loops));
	}
	return d || all_quotas ? d : PHASE_DEFAULT_DURATION_NS;
}

/* What every stream takes from the phase: the engine and its options, the
 * time (ramp, duration, interval), the seed (plus the stream's index from
 * 0), on_error, a share of trace. */
static void inherit(struct run_state *st, const struct run_state *rs, unsigned i, uint64_t duration_ns)
{
	const struct phase_spec *p = &rs->sp;
	struct phase_spec *s = &st->sp;

	s->engine = p->engine;
	st->engine_auto = rs->engine_auto;
	s->engine_flags = p->engine_flags;
	s->sim_latency_ns = p->sim_latency_ns;
	s->ramp_ns = p->ramp_ns;
	s->duration_ns = duration_ns;
	s->interval_ns = p->interval_ns;
	s->seed = p->seed + i; /* streams alike in all else still go their own ways */
	s->on_error_continue = p->on_error_continue;
	s->trace_max = p->trace_max / rs->nstreams + (i < p->trace_max % rs->nstreams);
}

/* Is target x of a the same file or device as one of b's? */
static int shares(const struct phase_spec *a, unsigned x, const struct phase_spec *b)
{
	const struct target *t = a->targets[x];

	for (unsigned y = 0; y < b->ntargets; y++)
		if (phase_same_target(t, b->targets[y]))
			return 1;
	return 0;
}

/* A stream that verifies a file or device another stream writes (or that
 * writes with crc32c one another stream uses): writes could cross its own,
 * and its reads would report lost or foreign data on healthy storage. */
static int check_shared_verify(const struct run_state *rs, char *why, size_t why_len)
{
	for (unsigned i = 0; i < rs->nstreams; i++)
		for (unsigned j = 0; j < rs->nstreams; j++) {
			const struct phase_spec *a = &rs->stream[i]->sp, *b = &rs->stream[j]->sp;

			if (i == j || a->verify == VERIFY_NONE || (!phase_writes(b) && !phase_writes(a)))
				continue;
			for (unsigned x = 0; x < a->ntargets; x++)
				if (shares(a, x, b))
					REFUSE("%s.verify: %s on %s, which %s also %s (give a stream that verifies "
					       "a target of its own)", rs->stream[i]->path,
					       a->verify == VERIFY_CRC ? "crc32c" : "offset", a->targets[x]->path,
					       rs->stream[j]->path, phase_writes(b) ? "writes" : "uses");
		}
	return RC_OK;
}

/* Do a and b name one file: the same absolute name, whatever the
 * spelling ("./x", a linked directory)? */
static int same_path(const char *a, const char *b)
{
	char x[4096], y[4096];

	if (!strcmp(a, b))
		return 1;
	path_absolute(a, x, sizeof(x));
	path_absolute(b, y, sizeof(y));
	return x[0] && !strcmp(x, y);
}

/* Streams that name one file to be created (the same option table, or
 * one path twice, however spelt) share one target, created once: the
 * first's. Options that differ are refused. */
static int share_created(struct run_state *rs, char *why, size_t why_len)
{
	for (unsigned k = 0; k < rs->nstreams; k++) {
		struct run_state *st = rs->stream[k];

		for (unsigned i = 0; i < st->sp.ntargets; i++) {
			const struct target_opts *o = &st->pending[i];

			for (unsigned m = 0; st->is_pending[i] && m <= k; m++) {
				struct run_state *w = m == 0 ? rs : rs->stream[m - 1];

				for (unsigned j = 0; w != st && j < w->sp.ntargets; j++) {
					const struct target_opts *p = &w->pending[j];

					if (!w->is_pending[j] || !same_path(p->path, o->path))
						continue;
					if (p->size != o->size || p->create != o->create || p->fill != o->fill)
						REFUSE("%s: %s is also %s, with other options (give it once, on the phase, "
						       "or the same table)", st->what[i], o->path, w->what[j]);
					st->sp.targets[i] = w->sp.targets[j];
					st->is_pending[i] = 0;
					break;
				}
			}
		}
	}
	return RC_OK;
}

/* A phase with streams: each stream checked as a workload of its own with
 * the phase's time, then what they share (threads, buffers, verified
 * targets), and last their generation maps. */
int phase_check_streams(struct run_state *rs, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;
	uint64_t duration = streams_duration(rs), buffers = 0;
	unsigned workers = 0;
	int four_k[PHASE_MAX_STREAMS] = { 0 };

	if (sp->ntargets)
		CHECK(phase_check_targets(rs, why, why_len)); /* the phase's, which streams share */
	CHECK(share_created(rs, why, why_len));
	for (unsigned i = 0; i < rs->nstreams; i++) {
		struct run_state *st = rs->stream[i];

		inherit(st, rs, i, duration);
		CHECK(phase_check_workload(st, &four_k[i], why, why_len));
		workers += st->sp.workers;
		buffers += wl_max_bs(&st->wl) * st->sp.qd * st->sp.workers;
		sp->streams[i] = &st->sp;
	}
	sp->nstreams = rs->nstreams;
	sp->duration_ns = duration;
	sp->workers = workers;
	if (workers > PHASE_MAX_WORKERS)
		REFUSE("phase.streams: %u workers in all (at most %u in a phase)", workers, PHASE_MAX_WORKERS);
	if (buffers > PHASE_MAX_BUFFERS)
		REFUSE("phase.streams: %.1f GiB of buffers in all, qd x bs x workers summed over the streams (at most "
		       "8 GiB)", (double)buffers / 1073741824.0);
	CHECK(check_shared_verify(rs, why, why_len));
	for (unsigned i = 0; i < rs->nstreams; i++)
		if (rs->stream[i]->sp.verify == VERIFY_CRC)
			CHECK(phase_attach_gen_maps(rs->stream[i], four_k[i], why, why_len));
	return RC_OK;
}
