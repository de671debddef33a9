/* phase.c - one measured phase: workers, ramp, duration, intervals, stop.
 *
 * The calling thread sets everything up (descriptors, buffers, per-target
 * workloads), starts the workers, and while they run it wakes once per
 * interval to take a snapshot of their histograms: an interval's figures are
 * the difference of two snapshots, so intervals add up exactly to the phase.
 * One loop (sample) does this through the ramp and the measured time; it
 * also turns a signal into a stop, and hands progress to a callback.
 * After the join, phase_collect.c merges the workers' counters into the
 * result; phase_region.c says which bytes of which target each one uses.
 */
#include "run/phase.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "cluster/cluster_phase.h"
#include "core/clock.h"
#include "core/hist.h"
#include "core/rc.h"
#include "core/rng.h"
#include "run/phase_int.h"
#include "run/phase_metrics.h"
#include "run/phase_sample.h"
#include "run/replay.h"
#include "run/worker.h"
#include "verify/genmap.h"
#include "verify/verify_read.h"

volatile sig_atomic_t phase_interrupt;

#define PROGRESS_NS 500000000ull
/* How long the phase thread waits before looking for a signal's flag. */
#define INTERRUPT_POLL_NS 50000000ull

/* Wait on the handshake until `deadline_ns` or every started worker has
 * finished; returns the time. Woken by the workers' last broadcast. */
static uint64_t wait_workers(struct phase_shared *sh, unsigned started, uint64_t deadline_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline_ns / 1000000000ull),
			       .tv_nsec = (long)(deadline_ns % 1000000000ull) };

	pthread_mutex_lock(&sh->lock);
	while (sh->finished < started && clock_ns() < deadline_ns)
		if (pthread_cond_timedwait(&sh->cond, &sh->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&sh->lock);
	return clock_ns();
}

/* Workers done so far. */
static unsigned finished(struct phase_shared *sh)
{
	unsigned n;

	pthread_mutex_lock(&sh->lock);
	n = sh->finished;
	pthread_mutex_unlock(&sh->lock);
	return n;
}

static void free_workers(struct worker *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(w[i].slots);
		free(w[i].bufs);
		free(w[i].rmap);
		free(w[i].trace);
		free(w[i].specs);
		free(w[i].replay);
		data_free(&w[i].data);
		free(w[i].ct);
	}
	free(w);
}

/* Before the first write: a phase writing without crc32c marks the
 * verification state of its targets stale, one writing with it saves its
 * target id there first (genmap_claim: a file it creates, when its worker
 * attaches it); a verifying phase that reads buffered reads the device,
 * not the page cache (fio's invalidate). */
static int verify_prepare(const struct phase_spec *sp, const int *fds, char *why, size_t why_len)
{
	for (unsigned t = 0; t < sp->ntargets; t++) {
		if (sp->targets[t]->kind == TARGET_NONE)
			continue;
		if (sp->verify != VERIFY_CRC && phase_writes(sp) &&
		    genmap_stale(sp->targets[t], sp->verify_state, why, why_len))
			return RC_FAIL;
		if (sp->verify == VERIFY_CRC && phase_writes(sp) && genmap_claim(sp->targets[t], why, why_len))
			return RC_FAIL;
		if (sp->verify != VERIFY_NONE && !sp->direct && fds[t] >= 0) {
			fdatasync(fds[t]);
			posix_fadvise(fds[t], 0, 0, POSIX_FADV_DONTNEED);
		}
	}
	return RC_OK;
}

/* The descriptor of every target, opened for writing when the phase writes. */
static int open_targets(const struct phase_spec *sp, int *fds, char *why, size_t why_len)
{
	for (unsigned t = 0; t < sp->ntargets; t++) {
		const int sync = sp->open_sync == OPEN_SYNC_DSYNC ? O_DSYNC : sp->open_sync == OPEN_SYNC_SYNC ? O_SYNC : 0;
		int fd = target_open(sp->targets[t], sp->direct, phase_writes(sp), sync, why, why_len);

		if (fd < 0)
			return fd; /* RC_FAIL, or RC_INPUT when the open is refused */
		fds[t] = fd;
	}
	return RC_OK;
}

#define HUGE_PAGE ((size_t)2 << 20)

/* Worker i's slots and their buffers (random or zero bytes, so that a
 * write's payload costs nothing per I/O), its quotas and trace records. */
static int worker_buffers(const struct phase_spec *sp, struct worker *wk, unsigned i, char *why, size_t why_len)
{
	const struct target *t = sp->targets[i % sp->ntargets];
	size_t align = t->mem_align > 4096 ? t->mem_align : 4096, io_len, shared, at;
	struct rng r;

	wk->buf_len = (size_t)((wl_max_bs(sp->wl) + align - 1) / align * align);
	io_len = wk->buf_len;
	wk->buf_len = data_slot_len(sp, io_len); /* with prepared data: a read area, then the data's region */
	shared = data_shared_len(sp, io_len);    /* and the default data's bands, after the slots */
	wk->slots = calloc(sp->qd, sizeof(*wk->slots));
	/* the bands start on a huge page (a write touches 8 cache lines at a
	 * random place in a MiB: one TLB entry for it all) */
	at = shared ? (wk->buf_len * sp->qd + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE : wk->buf_len * sp->qd;
	if (!wk->slots || posix_memalign(&wk->bufs, shared ? HUGE_PAGE : align, at + shared)) {
		wk->bufs = NULL;
		snprintf(why, why_len, "out of memory for %u x %zu-byte buffers (qd x bs) in worker %u", sp->qd,
			 wk->buf_len, i);
		return RC_FAIL;
	}
	rng_seed(&r, sp->seed, 1000 + wk->id);
	for (size_t j = 0; !data_reduces(sp) && j < wk->buf_len * sp->qd / 8; j++)
		((uint64_t *)wk->bufs)[j] = sp->pattern == PATTERN_RANDOM ? rng_next(&r) : 0;
	wk->shared = shared ? (char *)wk->bufs + at : NULL;
	if (shared)
		madvise(wk->shared, shared, MADV_HUGEPAGE); /* advice: without it, only slower */
	if (data_init(&wk->data, sp, wk->id, wk->bufs, wk->buf_len, io_len, wk->shared, t->mem_align, why, why_len) !=
	    RC_OK)
		return RC_FAIL;
	wk->shared_len = shared;
	for (unsigned j = 0; j < sp->qd; j++) {
		wk->slots[j].index = j;
		wk->slots[j].buf = (char *)wk->bufs + j * wk->buf_len;
	}
	if (wl_map_words(wk->wl) && !(wk->rmap = malloc(wl_map_words(wk->wl) * sizeof(uint64_t)))) {
		snprintf(why, why_len, "out of memory for the random map of worker %u (%zu bytes)", i,
			 wl_map_words(wk->wl) * sizeof(uint64_t));
		return RC_FAIL;
	}
	/* quotas split evenly, the remainder to the first workers */
	wk->ios_quota = sp->ios ? sp->ios / sp->workers + (i < sp->ios % sp->workers) : UINT64_MAX;
	wk->bytes_quota = sp->bytes ? phase_bytes_part(sp, sp->bytes, sp->workers, i) : UINT64_MAX;
	if (sp->read_once) { /* its part of the region, where its reads start (wl_state_init) */
		uint64_t off;

		wl_part(wk->wl->region_len, wk->wl->grid, wk->part, wk->nparts, &off, &wk->bytes_quota);
	}
	/* split as the quotas are: the records add up to trace_max */
	wk->trace_max = sp->trace_max / sp->workers + (i < sp->trace_max % sp->workers);
	if (sp->per_spec && !(wk->specs = phase_specs_new(sp->wl->nspecs))) {
		snprintf(why, why_len, "out of memory for the figures of %u access specs", sp->wl->nspecs);
		return RC_FAIL;
	}
	if (sp->replay) {
		if (!(wk->replay = calloc(1, sizeof(*wk->replay)))) {
			snprintf(why, why_len, "out of memory for the replay's figures");
			return RC_FAIL;
		}
		hist_init(&wk->replay->lag);
	}
	if (wk->trace_max && !(wk->trace = calloc(wk->trace_max, sizeof(*wk->trace)))) {
		snprintf(why, why_len, "trace: no memory for %llu records", (unsigned long long)sp->trace_max);
		return RC_FAIL;
	}
	return RC_OK;
}

/* A unit's per-target (or per-worker slice) workloads; RC_INPUT with why. */
static int prepare_workloads(struct unit *u, char *why, size_t why_len)
{
	const struct phase_spec *sp = u->sp;

	if (phase_check_slices(sp, why, why_len))
		return RC_INPUT;
	for (unsigned i = 0; i < (phase_sliced(sp) ? sp->workers : sp->ntargets); i++) {
		u->wls[i] = *sp->wl;
		u->wls[i].seq_start = sp->seq_start;
		phase_region_of(sp, i % sp->ntargets, &u->wls[i].region_off, &u->wls[i].region_len);
		if (phase_sliced(sp))
			phase_slice_of(sp, i, &u->wls[i].region_off, &u->wls[i].region_len);
		if (wl_prepare(&u->wls[i], why, why_len) < 0)
			return RC_INPUT;
	}
	return RC_OK;
}

/* The memory of unit i; RC_FAIL when there is none. */
static int unit_alloc(struct runner *r, unsigned i, struct worker *first)
{
	struct unit *u = &r->u[i];
	const struct phase_spec *sp = phase_stream(r->sp, i);

	u->sp = sp;
	u->w = first;
	for (unsigned t = 0; t < PHASE_MAX_TARGETS; t++)
		u->fds[t] = -1;
	u->wls = calloc(phase_sliced(sp) ? sp->workers : sp->ntargets, sizeof(*u->wls));
	if (!u->wls)
		return RC_FAIL;
	if (!r->sp->nstreams)
		return RC_OK;
	u->res = &r->res->streams[i];
	counters_init(&u->res->total);
	u->smp = (struct sampler){ .w = first, .n = sp->workers, .list = &u->res->intervals,
				   .nlist = &u->res->nintervals };
	u->smp.prev = malloc(sizeof(*u->smp.prev));
	u->smp.cur = malloc(sizeof(*u->smp.cur));
	if (cluster_on() && !(u->smp.both = malloc(2 * sizeof(*u->smp.both))))
		return RC_FAIL;
	return u->smp.prev && u->smp.cur ? RC_OK : RC_FAIL;
}

/* A unit's workloads, descriptors, workers and buffers. */
static int unit_setup(struct runner *r, struct unit *u, char *why, size_t why_len)
{
	const struct phase_spec *sp = u->sp;
	int rc;

	if ((rc = prepare_workloads(u, why, why_len)) != RC_OK)
		return rc;
	if ((rc = open_targets(sp, u->fds, why, why_len)) != RC_OK)
		return rc;
	for (unsigned i = 0; i < sp->workers; i++) {
		struct worker *wk = &u->w[i];

		wk->id = i;
		wk->sh = &r->sh;
		wk->spec = sp;
		wk->wl = &u->wls[phase_sliced(sp) ? i : i % sp->ntargets];
		phase_part_of(sp, i, &wk->part, &wk->nparts);
		wk->fd = u->fds[i % sp->ntargets];
		wk->target = sp->targets[i % sp->ntargets];
		wk->trace_target = (uint8_t)phase_target_index(r->sp, wk->target);
		counters_init(&wk->c);
		if ((rc = worker_buffers(sp, wk, i, why, why_len)) != RC_OK)
			return rc;
	}
	return verify_prepare(sp, u->fds, why, why_len);
}

/* Memory, workloads, the handshake, descriptors and buffers: everything
 * before the threads start. RC_OK, or an rc.h code with why. */
static int runner_setup(struct runner *r, char *why, size_t why_len)
{
	const struct phase_spec *sp = r->sp;
	pthread_condattr_t ca;
	unsigned at = 0;
	int rc = RC_OK;

	r->nu = phase_nstreams(sp);
	r->w = calloc(sp->workers, sizeof(*r->w));
	r->all = (struct sampler){ .w = r->w, .n = sp->workers, .list = &r->res->intervals,
				   .nlist = &r->res->nintervals };
	r->all.prev = malloc(sizeof(*r->all.prev));
	r->all.cur = malloc(sizeof(*r->all.cur));
	r->scratch = malloc(sizeof(*r->scratch));
	if (sp->nstreams && (r->res->streams = calloc(sp->nstreams, sizeof(*r->res->streams))))
		r->res->nstreams = sp->nstreams;
	if (cluster_on() && !(r->all.both = malloc(2 * sizeof(*r->all.both))))
		rc = RC_FAIL;
	if (!r->w || !r->all.prev || !r->all.cur || !r->scratch || r->res->nstreams != sp->nstreams)
		rc = RC_FAIL;
	for (unsigned i = 0; i < r->nu && rc == RC_OK; at += r->u[i++].sp->workers)
		rc = unit_alloc(r, i, r->w + at);
	if (rc != RC_OK) {
		snprintf(why, why_len, "out of memory setting up the phase");
		return rc;
	}
	witness_setup(&r->wit, sp);
	r->sh.spec = sp;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->sh.cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&r->sh.lock, NULL);
	r->shared_init = 1;
	for (unsigned i = 0; i < r->nu && rc == RC_OK; i++)
		rc = unit_setup(r, &r->u[i], why, why_len);
	return rc;
}

/* Start the threads and wait until each has set its engine up. RC_FAIL
 * with why when a thread could not start or an engine could not be set
 * up: the started threads then stop at once when told to go. */
static int start_workers(struct runner *r, char *why, size_t why_len)
{
	const struct phase_spec *sp = r->sp;
	struct phase_shared *sh = &r->sh;

	for (; r->started < sp->workers; r->started++) {
		if (pthread_create(&r->w[r->started].thread, NULL, worker_main, &r->w[r->started])) {
			snprintf(why, why_len, "workers: cannot start thread %u of %u: %s", r->started + 1, sp->workers,
				 strerror(errno));
			sh->stop = 1;
			break;
		}
	}
	pthread_mutex_lock(&sh->lock);
	while (sh->ready < r->started)
		pthread_cond_wait(&sh->cond, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	for (unsigned i = 0; i < r->started; i++)
		if (r->w[i].init_failed && !sh->stop) {
			snprintf(why, why_len, "%s", r->w[i].error);
			sh->stop = 1;
		}
	/* decided before go: once the workers run, an error of theirs (on_error
	 * = "stop") sets stop too, and that is a result, not a failed start */
	return sh->stop ? RC_FAIL : RC_OK;
}

/* In a cluster, every rank's set-up so far (rc, why) is agreed on: a
 * failure on any rank fails the phase on all, with that rank's message.
 * Then, when all are ready, the barrier every rank's clock starts from. */
static int cluster_start(struct runner *r, int rc, char *why, size_t why_len)
{
	struct cluster_answer a;

	if (!cluster_on())
		return rc;
	if (cluster_agree(CLUSTER_START, rc, why, NULL, &a)) {
		snprintf(why, why_len, "%s", a.failed_rank >= 0 ? a.msg : "the ranks lost step before the start");
		return a.failed_rank >= 0 && a.rc != RC_OK ? a.rc : RC_FAIL;
	}
	r->cp = cluster_phase_new(r->sp, r->res);
	return RC_OK;
}

/* Set the phase's clock and say go (stop first, when rc is a failure). */
static void go(struct runner *r, int rc)
{
	const struct phase_spec *sp = r->sp;
	struct phase_shared *sh = &r->sh;

	if (rc != RC_OK)
		sh->stop = 1;
	/* in a cluster every rank's clock starts as it leaves the barrier */
	sh->t_start_ns = r->cp ? cluster_barrier(&r->realtime_ns) : clock_ns();
	if (!r->cp)
		r->realtime_ns = clock_realtime_ns(); /* the same moment, on the wall clock */
	cluster_phase_started(r->cp, r->realtime_ns);
	sh->measure_ns = sh->t_start_ns + sp->ramp_ns;
	sh->end_ns = sp->duration_ns ? sh->measure_ns + sp->duration_ns : UINT64_MAX;
	/* without a ramp, measurement starts with the first I/O: the kernel's
	 * counts are read before any can complete (read after, a short phase's
	 * first I/Os were missing from result.device) */
	if (!sp->ramp_ns && rc == RC_OK) {
		witness_begin(&r->wit);
		r->wit_read = 1;
	}
	pthread_mutex_lock(&sh->lock);
	sh->go = 1;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
}

/* A signal arrived: stop the workers and say so in the result. */
static void mark_interrupted(struct runner *r)
{
	__atomic_store_n(&r->sh.stop, 1, __ATOMIC_RELAXED);
	r->res->interrupted = 1;
	r->stopped_ns = clock_ns();
}

/* Every sampler's cur snapshot, one reading of each worker: each stream's
 * from its workers, and the phase's as their sum, so that a phase's
 * interval is exactly the sum of its streams'. */
void phase_take_all(struct runner *r)
{
	struct snapshot *all = r->all.cur;

	if (!r->sp->nstreams) {
		snapshot_take(all, r->w, r->sp->workers);
		return;
	}
	for (int op = 0; op < OP_NDATA; op++) {
		hist_init(&all->h[op]);
		all->bytes[op] = 0;
	}
	all->replays = 0;
	for (unsigned i = 0; i < r->nu; i++) {
		struct sampler *m = &r->u[i].smp;

		snapshot_take(m->cur, m->w, m->n);
		for (int op = 0; op < OP_NDATA; op++) {
			hist_merge(&all->h[op], &m->cur->h[op]);
			all->bytes[op] += m->cur->bytes[op];
		}
		snapshot_add_lag(all, m->cur);
	}
}

/* The ramp is over (or a signal ended it): measurement starts at
 * measure_ns, from snapshots taken now (the workers count nothing earlier). */
static void measure_begin(struct runner *r)
{
	cpu_mark(&r->cpu_a);
	if (!r->wit_read)
		witness_begin(&r->wit);
	sampler_begin(&r->all, r->sh.measure_ns);
	for (unsigned i = 0; r->sp->nstreams && i < r->nu; i++)
		sampler_begin(&r->u[i].smp, r->sh.measure_ns);
	r->next_tick = r->sh.measure_ns + r->sp->interval_ns;
	r->prog_ns = r->sh.measure_ns;
	r->ramping = 0;
	phase_metrics_begin(r);
}

/* In a cluster: the interval just made, for the merge. */
void phase_made(struct runner *r)
{
	const struct hist *both[PHASE_MAX_STREAMS + 1] = { r->all.both };

	for (unsigned i = 0; r->sp->nstreams && i < r->nu; i++)
		both[i + 1] = r->u[i].smp.both;
	cluster_phase_made(r->cp, both);
}

/* In a cluster: a round of the stop protocol, and what it says. */
static void cluster_round(struct runner *r, int done)
{
	const struct cluster_local l = { .stop = r->sh.stop && !r->remote_stop && !r->res->interrupted,
					 .interrupted = r->res->interrupted, .done = done };
	int bits = cluster_phase_poll(r->cp, &l);

	if ((bits & CLUSTER_INTERRUPT) && !r->res->interrupted)
		mark_interrupted(r);
	if ((bits & CLUSTER_STOP) && !__atomic_load_n(&r->sh.stop, __ATOMIC_RELAXED)) {
		r->remote_stop = 1;
		__atomic_store_n(&r->sh.stop, 1, __ATOMIC_RELAXED);
	}
}

static void check_stop_if(struct runner *r);

/* In a cluster, interval k ends at measure + k x interval on every rank
 * (the ranks' k-th intervals are merged): each due tick is made and named
 * by that time, a late sampler's missed ones nearly empty, never one long
 * interval in their place. */
static void cluster_ticks(struct runner *r)
{
	for (; r->next_tick <= r->now && r->next_tick <= r->sh.end_ns; r->next_tick += r->sp->interval_ns) {
		phase_take_all(r);
		sampler_tick(&r->all, r->scratch, r->sh.measure_ns, r->next_tick);
		for (unsigned i = 0; r->sp->nstreams && i < r->nu; i++)
			sampler_tick(&r->u[i].smp, r->scratch, r->sh.measure_ns, r->next_tick);
		phase_made(r);
		phase_metrics_tick(r);
		check_stop_if(r);
	}
	if (r->next_tick > r->sh.end_ns)
		r->next_tick = UINT64_MAX;
}

/* The interval just made against sp.stop_if: the first limit it crosses
 * stops the workers and is said in the result (once). */
static void check_stop_if(struct runner *r)
{
	const struct phase_stop_if *l = &r->sp->stop_if;
	const struct interval *iv;
	static const char *const rate_names[2] = { "read_rate", "write_rate" }, *const iops_names[2] = { "read_iops",
													 "write_iops" };
	const char *by = NULL;
	double v = 0, lim = 0;

	if (r->res->stopped_by[0] || !r->res->nintervals)
		return;
	iv = &r->res->intervals[r->res->nintervals - 1];
	/* the interval's max is its top bucket's upper bound: an I/O is over
	 * the limit for sure when that bucket's lower bound is (no false stop;
	 * one within a bucket of it is the exact check's, after the phase) */
	if (l->latency_ns && iv->max_ns && hist_bucket_low(hist_index(iv->max_ns)) > l->latency_ns) {
		by = "latency", v = (double)iv->max_ns, lim = (double)l->latency_ns;
	} else if (iv->len_s >= (double)r->sp->interval_ns / 1e9 * 0.99) { /* a rate: over a whole interval only */
		for (int d = 0; d < 2 && !by; d++) {
			const double rate = (double)iv->bytes[d] / iv->len_s, iops = (double)iv->ios[d] / iv->len_s;

			if (l->rate[d] && rate < (double)l->rate[d])
				by = rate_names[d], v = rate, lim = (double)l->rate[d];
			else if (l->iops[d] && iops < (double)l->iops[d])
				by = iops_names[d], v = iops, lim = (double)l->iops[d];
		}
	}
	if (!by)
		return;
	snprintf(r->res->stopped_by, sizeof(r->res->stopped_by), "%s", by);
	r->res->stop_value = v;
	r->res->stop_limit = lim;
	r->res->stop_t_s = iv->t_s;
	__atomic_store_n(&r->sh.stop, 1, __ATOMIC_RELAXED);
}

/* An interval ends at now when a tick is due and the phase has not ended. */
static void tick(struct runner *r)
{
	const uint64_t now = r->now, step = r->sp->interval_ns;

	if (now < r->next_tick)
		return;
	if (r->cp) {
		cluster_ticks(r);
		return;
	}
	if (now > r->sh.end_ns) {
		/* past the end, draining: no more ticks (the last, partial
		 * interval is made after the join) */
		r->next_tick = UINT64_MAX;
		return;
	}
	phase_take_all(r);
	sampler_tick(&r->all, r->scratch, r->sh.measure_ns, now);
	for (unsigned i = 0; r->sp->nstreams && i < r->nu; i++)
		sampler_tick(&r->u[i].smp, r->scratch, r->sh.measure_ns, now);
	phase_metrics_tick(r);
	check_stop_if(r);
	r->next_tick += step;
	while (r->next_tick <= now)
		r->next_tick += step;
}

/* Hand the progress callback the time, and once measuring, the rates
 * since its last call. */
static void progress(struct runner *r)
{
	const struct phase_spec *sp = r->sp;
	struct phase_progress pg = { .name = sp->name, .ramping = r->ramping };
	uint64_t ios = 0, bytes = 0;

	if (r->ramping) {
		pg.elapsed_s = (double)(r->now - r->sh.t_start_ns) / 1e9;
		pg.total_s = (double)sp->ramp_ns / 1e9;
	} else {
		for (unsigned i = 0; i < sp->workers; i++)
			for (int op = 0; op < OP_NDATA; op++) {
				ios += hist_count_live(&r->w[i].c.op[op].lat);
				bytes += op < OP_TRIM ? stats_bytes(&r->w[i].c.op[op]) : 0; /* trims move no data */
			}
		pg.elapsed_s = (double)(r->now - r->sh.measure_ns) / 1e9;
		pg.total_s = (double)sp->duration_ns / 1e9;
		if (!sp->duration_ns && sp->replay && sp->replay->loops && !sp->replay->no_stall)
			pg.total_s = (double)sp->replay->pass_ns * (double)sp->replay->loops / 1e9; /* as recorded */
		pg.ios = ios;
		pg.iops = (double)(ios - r->prog_ios) * 1e9 / (double)(r->now - r->prog_ns);
		pg.mb_per_s = (double)(bytes - r->prog_bytes) * 1e3 / (double)(r->now - r->prog_ns);
		r->prog_ios = ios;
		r->prog_bytes = bytes;
		r->prog_ns = r->now;
	}
	sp->progress(&pg);
	r->next_progress = r->now + PROGRESS_NS;
}

/* The phase thread's one loop, through the ramp and the measurement,
 * until every worker has finished: it wakes for the ramp's end, each
 * interval's tick, each progress line, and often enough to see a signal. */
static void sample(struct runner *r)
{
	struct phase_shared *sh = &r->sh;

	r->now = sh->t_start_ns;
	r->ramping = 1;
	r->next_tick = sh->measure_ns;
	r->next_progress = r->sp->progress ? r->now + PROGRESS_NS : UINT64_MAX;
	while (finished(sh) < r->started) {
		if (phase_interrupt && !r->res->interrupted)
			mark_interrupted(r);
		if (r->ramping && (r->now >= sh->measure_ns || r->res->interrupted))
			measure_begin(r);
		r->now = wait_workers(sh, r->started,
				      min_u64(min_u64(r->next_tick, r->next_progress),
					      r->now + (r->cp ? CLUSTER_POLL_NS : INTERRUPT_POLL_NS)));
		if (!r->ramping)
			tick(r);
		if (r->sp->progress && r->now >= r->next_progress)
			progress(r);
		if (r->cp)
			cluster_round(r, 0);
	}
	if (r->ramping)
		measure_begin(r);
}

/* Whatever runner_setup got, given back (the threads are joined). */
static void runner_free(struct runner *r)
{
	if (r->shared_init) {
		pthread_cond_destroy(&r->sh.cond);
		pthread_mutex_destroy(&r->sh.lock);
	}
	for (unsigned i = 0; i < r->nu; i++) {
		struct unit *u = &r->u[i];

		for (unsigned t = 0; u->sp && t < u->sp->ntargets; t++)
			if (u->fds[t] >= 0)
				close(u->fds[t]);
		free(u->wls);
		free(u->smp.prev);
		free(u->smp.cur);
		free(u->smp.both);
	}
	if (r->w)
		free_workers(r->w, r->sp->workers);
	free(r->all.prev);
	free(r->all.cur);
	free(r->all.both);
	free(r->scratch);
}

int phase_run(const struct phase_spec *sp, struct phase_result *res, char *why, size_t why_len)
{
	struct runner r = { .sp = sp, .res = res };
	int rc;

	memset(res, 0, sizeof(*res));
	counters_init(&res->total);
	res->engine = sp->engine->name;
	rc = runner_setup(&r, why, why_len);
	if (rc == RC_OK)
		rc = start_workers(&r, why, why_len);
	rc = cluster_start(&r, rc, why, why_len);
	if (r.started)
		go(&r, rc);
	if (rc == RC_OK)
		sample(&r);
	for (unsigned i = 0; i < r.started; i++)
		pthread_join(r.w[i].thread, NULL);
	if (rc == RC_OK) {
		phase_collect(&r);
		phase_metrics_end(&r);
		if (r.cp) {
			const struct cluster_local l = { .stop = r.sh.stop && !r.remote_stop && !res->interrupted,
							 .interrupted = res->interrupted, .done = 1 };

			cluster_phase_end(r.cp, &l, r.sh.measure_ns);
			phase_metrics_cluster_end(&r);
		}
	}
	runner_free(&r);
	if (rc != RC_OK)
		phase_result_free(res);
	return rc;
}
