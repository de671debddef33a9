/* phase.c - one measured phase: workers, ramp, duration, intervals, stop.
 *
 * The calling thread sets everything up (descriptors, buffers, per-target
 * workloads), starts the workers, and while they run it wakes once per
 * interval to take a snapshot of their histograms: an interval's figures are
 * the difference of two snapshots, so intervals add up exactly to the phase.
 * It also turns a signal into a stop, and hands progress to a callback.
 * After the join it merges the workers' counters into the result.
 */
#include "phase.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "clock.h"
#include "genmap.h"
#include "rng.h"
#include "worker.h"

volatile sig_atomic_t phase_interrupt;

#define PROGRESS_NS 500000000ull
/* How long the phase thread waits before looking for a signal's flag. */
#define INTERRUPT_POLL_NS 50000000ull

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

struct snapshot {
	struct hist h[2];
	uint64_t bytes[2];
};

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

static unsigned finished(struct phase_shared *sh)
{
	unsigned n;

	pthread_mutex_lock(&sh->lock);
	n = sh->finished;
	pthread_mutex_unlock(&sh->lock);
	return n;
}

static void snapshot_take(struct snapshot *s, struct worker *w, unsigned n)
{
	for (int op = 0; op < 2; op++) {
		hist_init(&s->h[op]);
		s->bytes[op] = 0;
		for (unsigned i = 0; i < n; i++) {
			hist_add_live(&s->h[op], &w[i].c.op[op].lat);
			s->bytes[op] += __atomic_load_n(&w[i].c.op[op].bytes, __ATOMIC_RELAXED);
		}
	}
}

/* An interval from two snapshots. `scratch` holds the delta histograms. */
static void interval_make(struct interval *iv, const struct snapshot *a, const struct snapshot *b,
			  struct hist *scratch, double t_s, double len_s)
{
	struct hist both;

	memset(iv, 0, sizeof(*iv));
	iv->t_s = t_s;
	iv->len_s = len_s;
	hist_init(&both);
	for (int op = 0; op < 2; op++) {
		hist_delta(scratch, &b->h[op], &a->h[op]);
		iv->ios[op] = scratch->count;
		iv->bytes[op] = b->bytes[op] - a->bytes[op];
		for (unsigned i = 0; i < HIST_BUCKETS; i++)
			both.buckets[i] += scratch->buckets[i];
		both.count += scratch->count;
		if (scratch->count) {
			if (scratch->min < both.min)
				both.min = scratch->min;
			if (scratch->max > both.max)
				both.max = scratch->max;
		}
	}
	iv->p50_ns = hist_percentile(&both, 50);
	iv->p99_ns = hist_percentile(&both, 99);
	iv->max_ns = both.count ? both.max : 0;
}

static int push_interval(struct phase_result *res, unsigned *cap, const struct interval *iv)
{
	if (res->nintervals == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 64;
		struct interval *p = realloc(res->intervals, ncap * sizeof(*p));

		if (!p)
			return -1;
		res->intervals = p;
		*cap = ncap;
	}
	res->intervals[res->nintervals++] = *iv;
	return 0;
}

static void free_workers(struct worker *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(w[i].slots);
		free(w[i].bufs);
		free(w[i].trace);
	}
	free(w);
}

void phase_result_free(struct phase_result *res)
{
	free(res->intervals);
	free(res->trace);
	res->intervals = NULL;
	res->trace = NULL;
}

/* Are the workers of a target given slices of its region? */
static int sliced(const struct phase_spec *sp)
{
	return sp->verify == VERIFY_CRC && sp->workers > sp->ntargets && phase_writes(sp);
}

/* Worker i's slice of its target's region [*off, *off + *len): whole
 * units and alignments, the same size for every worker of the target. */
static void slice_of(const struct phase_spec *sp, unsigned i, uint64_t *off, uint64_t *len)
{
	const unsigned nt = sp->ntargets, t = i % nt, n = sp->workers / nt + (t < sp->workers % nt);
	uint64_t g = sp->verify_unit ? sp->verify_unit : 512, s;

	for (unsigned k = 0; k < sp->wl->nspecs; k++)
		if (sp->wl->spec[k].align > g)
			g = sp->wl->spec[k].align;
	s = *len / n / g * g;
	*off += s * (i / nt);
	*len = s;
}

uint64_t phase_region_len(const struct phase_spec *sp, unsigned t)
{
	return sp->region_len ? sp->region_len : sp->targets[t]->size - sp->region_off;
}

int phase_check_slices(const struct phase_spec *sp, char *why, size_t why_len)
{
	if (!sliced(sp))
		return 0;
	for (unsigned k = 0; k < sp->wl->nspecs; k++)
		if (sp->wl->spec[k].region_len) {
			snprintf(why, why_len, "phase.workers: %u workers writing with verification share %u target(s), "
				 "so each gets a slice of the region, but spec %u has a region of its own (give one "
				 "worker per target)", sp->workers, sp->ntargets, k + 1);
			return -2;
		}
	for (unsigned i = 0; i < sp->workers && i < sp->ntargets * 2; i++) {
		uint64_t off = sp->region_off, len = phase_region_len(sp, i % sp->ntargets);

		slice_of(sp, i, &off, &len);
		if (len < wl_max_bs(sp->wl)) {
			snprintf(why, why_len, "phase.workers: %u workers writing with verification get a slice of "
				 "the region each, %llu bytes, less than a block of %llu (give fewer workers or a "
				 "larger region)", sp->workers, (unsigned long long)len,
				 (unsigned long long)wl_max_bs(sp->wl));
			return -2;
		}
	}
	return 0;
}

/* Before the first write: a phase writing without crc32c marks the
 * verification state of its targets stale; a verifying phase that reads
 * buffered reads the device, not the page cache (fio's invalidate). */
static int verify_prepare(const struct phase_spec *sp, const int *fds, char *why, size_t why_len)
{
	for (unsigned t = 0; t < sp->ntargets; t++) {
		if (sp->targets[t]->kind == TARGET_NONE)
			continue;
		if (sp->verify != VERIFY_CRC && phase_writes(sp) && genmap_stale(sp->targets[t], why, why_len))
			return -1;
		if (sp->verify != VERIFY_NONE && !sp->direct && fds[t] >= 0) {
			fdatasync(fds[t]);
			posix_fadvise(fds[t], 0, 0, POSIX_FADV_DONTNEED);
		}
	}
	return 0;
}

/* Buffers, slots and fds of every worker; -1 with why on failure. */
static int setup_workers(const struct phase_spec *sp, struct phase_shared *sh, struct worker *w,
			 struct workload *wls, int *fds, char *why, size_t why_len)
{
	const uint64_t max_bs = wl_max_bs(sp->wl);

	for (unsigned t = 0; t < sp->ntargets; t++) {
		int write = 0, fd;

		for (unsigned i = 0; i < sp->wl->nspecs; i++)
			if (sp->wl->spec[i].read_thr < WL_ONE)
				write = 1;
		fd = target_open(sp->targets[t], sp->direct, write, why, why_len);
		if (fd < 0)
			return fd;
		fds[t] = fd;
	}
	for (unsigned i = 0; i < sp->workers; i++) {
		struct worker *wk = &w[i];
		const struct target *t = sp->targets[i % sp->ntargets];
		size_t align = t->mem_align > 4096 ? t->mem_align : 4096;
		struct rng r;

		wk->id = i;
		wk->sh = sh;
		wk->wl = &wls[sliced(sp) ? i : i % sp->ntargets];
		wk->fd = fds[i % sp->ntargets];
		wk->target = sp->targets[i % sp->ntargets];
		wk->buf_len = (size_t)((max_bs + align - 1) / align * align);
		counters_init(&wk->c);
		wk->slots = calloc(sp->qd, sizeof(*wk->slots));
		if (!wk->slots || posix_memalign(&wk->bufs, align, wk->buf_len * sp->qd)) {
			wk->bufs = NULL;
			snprintf(why, why_len, "out of memory for %u x %zu-byte buffers (qd x bs) in worker %u",
				 sp->qd, wk->buf_len, i);
			return -1;
		}
		rng_seed(&r, sp->seed, 1000 + i);
		for (size_t j = 0; j < wk->buf_len * sp->qd / 8; j++)
			((uint64_t *)wk->bufs)[j] = sp->pattern == PATTERN_RANDOM ? rng_next(&r) : 0;
		for (unsigned j = 0; j < sp->qd; j++) {
			wk->slots[j].index = j;
			wk->slots[j].buf = (char *)wk->bufs + j * wk->buf_len;
		}
		/* quotas split evenly, the remainder to the first workers */
		wk->ios_quota = sp->ios ? sp->ios / sp->workers + (i < sp->ios % sp->workers) : UINT64_MAX;
		wk->bytes_quota = sp->bytes ? sp->bytes / sp->workers + (i < sp->bytes % sp->workers) : UINT64_MAX;
		/* split as the quotas are: the records add up to trace_max */
		wk->trace_max = sp->trace_max / sp->workers + (i < sp->trace_max % sp->workers);
		if (wk->trace_max) {
			wk->trace = calloc(wk->trace_max, sizeof(*wk->trace));
			if (!wk->trace) {
				snprintf(why, why_len, "trace: no memory for %llu records", (unsigned long long)sp->trace_max);
				return -1;
			}
		} else {
			wk->trace_max = 0;
		}
	}
	return 0;
}

int phase_run(const struct phase_spec *sp, struct phase_result *res, char *why, size_t why_len)
{
	struct phase_shared sh;
	struct worker *w;
	struct workload *wls;
	int fds[PHASE_MAX_TARGETS];
	int shared_init = 0;
	struct snapshot *snap_prev, *snap_now;
	struct hist *scratch;
	struct cpu_mark cpu_a, cpu_b;
	unsigned started = 0, icap = 0;
	uint64_t next_tick, next_progress, prev_tick_ns, prog_ios = 0, prog_bytes = 0, prog_ns;
	uint64_t stopped_ns = 0; /* when a signal stopped the phase */
	int rc = -1;

	memset(res, 0, sizeof(*res));
	counters_init(&res->total);
	res->engine = sp->engine->name;
	for (unsigned t = 0; t < sp->ntargets; t++)
		fds[t] = -1;
	w = calloc(sp->workers, sizeof(*w));
	wls = calloc(sliced(sp) ? sp->workers : sp->ntargets, sizeof(*wls));
	snap_prev = malloc(sizeof(*snap_prev));
	snap_now = malloc(sizeof(*snap_now));
	scratch = malloc(sizeof(*scratch));
	if (!w || !wls || !snap_prev || !snap_now || !scratch) {
		snprintf(why, why_len, "out of memory setting up the phase");
		goto out;
	}
	if (phase_check_slices(sp, why, why_len)) {
		rc = -2;
		goto out;
	}
	for (unsigned i = 0; i < (sliced(sp) ? sp->workers : sp->ntargets); i++) {
		wls[i] = *sp->wl;
		wls[i].region_off = sp->region_off;
		wls[i].region_len = phase_region_len(sp, i % sp->ntargets);
		if (sliced(sp))
			slice_of(sp, i, &wls[i].region_off, &wls[i].region_len);
		if (wl_prepare(&wls[i], why, why_len) < 0) {
			rc = -2;
			goto out;
		}
	}
	memset(&sh, 0, sizeof(sh));
	sh.spec = sp;
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&sh.cond, &ca);
		pthread_condattr_destroy(&ca);
		pthread_mutex_init(&sh.lock, NULL);
		shared_init = 1;
	}
	rc = setup_workers(sp, &sh, w, wls, fds, why, why_len);
	if (rc < 0 || (rc = verify_prepare(sp, fds, why, why_len)) < 0)
		goto out;
	rc = -1;
	for (; started < sp->workers; started++) {
		if (pthread_create(&w[started].thread, NULL, worker_main, &w[started])) {
			snprintf(why, why_len, "workers: cannot start thread %u of %u: %s", started + 1, sp->workers,
				 strerror(errno));
			sh.stop = 1;
			break;
		}
	}
	pthread_mutex_lock(&sh.lock);
	while (sh.ready < started)
		pthread_cond_wait(&sh.cond, &sh.lock);
	pthread_mutex_unlock(&sh.lock);
	for (unsigned i = 0; i < started; i++)
		if (w[i].init_failed && !why[0]) {
			snprintf(why, why_len, "%s", w[i].error);
			sh.stop = 1;
		}
	sh.t_start_ns = clock_ns();
	sh.measure_ns = sh.t_start_ns + sp->ramp_ns;
	sh.end_ns = sp->duration_ns ? sh.measure_ns + sp->duration_ns : UINT64_MAX;
	prev_tick_ns = sh.measure_ns;
	snapshot_take(snap_prev, w, sp->workers);
	cpu_mark(&cpu_a);
	pthread_mutex_lock(&sh.lock);
	sh.go = 1;
	pthread_cond_broadcast(&sh.cond);
	pthread_mutex_unlock(&sh.lock);

	if (!sh.stop) {
		uint64_t now = sh.t_start_ns;

		prog_ns = now;
		next_progress = sp->progress ? now + PROGRESS_NS : UINT64_MAX;
		/* ramp: no samples, only progress and signals */
		while (now < sh.measure_ns && finished(&sh) < started) {
			if (phase_interrupt) {
				__atomic_store_n(&sh.stop, 1, __ATOMIC_RELAXED);
				res->interrupted = 1;
				stopped_ns = clock_ns();
				break;
			}
			now = wait_workers(&sh, started, min_u64(sh.measure_ns, now + INTERRUPT_POLL_NS));
			if (sp->progress && now >= next_progress) {
				struct phase_progress pg = { .name = sp->name, .ramping = 1,
					.elapsed_s = (double)(now - sh.t_start_ns) / 1e9,
					.total_s = (double)sp->ramp_ns / 1e9 };
				sp->progress(sp->progress_ctx, &pg);
				next_progress = now + PROGRESS_NS;
			}
		}
		cpu_mark(&cpu_a);
		snapshot_take(snap_prev, w, sp->workers);
		prev_tick_ns = sh.measure_ns;
		next_tick = sh.measure_ns + sp->interval_ns;
		prog_ns = sh.measure_ns;
		while (finished(&sh) < started) {
			if (phase_interrupt && !res->interrupted) {
				__atomic_store_n(&sh.stop, 1, __ATOMIC_RELAXED);
				res->interrupted = 1;
				stopped_ns = clock_ns();
			}
			now = wait_workers(&sh, started, min_u64(min_u64(next_tick, next_progress), now + INTERRUPT_POLL_NS));
			if (now >= next_tick && now <= sh.end_ns) {
				struct interval iv;

				snapshot_take(snap_now, w, sp->workers);
				interval_make(&iv, snap_prev, snap_now, scratch, (double)(now - sh.measure_ns) / 1e9,
					      (double)(now - prev_tick_ns) / 1e9);
				if (push_interval(res, &icap, &iv) == 0) {
					struct snapshot *t = snap_prev;

					snap_prev = snap_now;
					snap_now = t;
					prev_tick_ns = now;
				}
				next_tick += sp->interval_ns;
				while (next_tick <= now)
					next_tick += sp->interval_ns;
			} else if (now >= next_tick) {
				/* past the end, draining: no more ticks (the last,
				 * partial interval is made after the join) */
				next_tick = UINT64_MAX;
			}
			if (sp->progress && now >= next_progress) {
				uint64_t ios = 0, bytes = 0;
				struct phase_progress pg = { .name = sp->name,
					.elapsed_s = (double)(now - sh.measure_ns) / 1e9,
					.total_s = (double)sp->duration_ns / 1e9 };

				for (unsigned i = 0; i < sp->workers; i++)
					for (int op = 0; op < 2; op++) {
						ios += __atomic_load_n(&w[i].c.op[op].lat.count, __ATOMIC_RELAXED);
						bytes += __atomic_load_n(&w[i].c.op[op].bytes, __ATOMIC_RELAXED);
					}
				pg.ios = ios;
				pg.iops = (double)(ios - prog_ios) * 1e9 / (double)(now - prog_ns);
				pg.mb_per_s = (double)(bytes - prog_bytes) * 1e3 / (double)(now - prog_ns);
				prog_ios = ios;
				prog_bytes = bytes;
				prog_ns = now;
				sp->progress(sp->progress_ctx, &pg);
				next_progress = now + PROGRESS_NS;
			}
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	cpu_mark(&cpu_b);

	if (!why[0]) {
		uint64_t stop_ns = clock_ns(), span_end;

		for (unsigned i = 0; i < sp->workers; i++) {
			counters_merge(&res->total, &w[i].c);
			if ((w[i].engine_failed || w[i].init_failed) && !res->failed) {
				res->failed = 1;
				snprintf(res->error, sizeof(res->error), "%s", w[i].error);
			}
		}
		if (res->interrupted) /* to the stop, or the last I/O counted before workers saw it */
			span_end = min_u64(stopped_ns > res->total.last_done_ns ? stopped_ns : res->total.last_done_ns,
					   sh.end_ns);
		else if (sp->duration_ns && sh.end_ns <= stop_ns && !res->total.nfirst)
			span_end = sh.end_ns;
		else
			span_end = res->total.last_done_ns > sh.measure_ns ? res->total.last_done_ns : stop_ns;
		if (span_end < sh.measure_ns)
			span_end = sh.measure_ns;
		res->seconds = (double)(span_end - sh.measure_ns) / 1e9;
		cpu_between(&cpu_a, &cpu_b, &res->cpu);
		/* the last, partial interval, when it saw any I/O */
		snapshot_take(snap_now, w, sp->workers);
		if (span_end > prev_tick_ns) {
			struct interval iv;

			interval_make(&iv, snap_prev, snap_now, scratch, (double)(span_end - sh.measure_ns) / 1e9,
				      (double)(span_end - prev_tick_ns) / 1e9);
			/* a tail of at least a tenth of an interval counts, idle or not */
			if (iv.ios[0] + iv.ios[1] || span_end - prev_tick_ns >= sp->interval_ns / 10)
				push_interval(res, &icap, &iv);
		}
		snprintf(res->features, sizeof(res->features), "%s", w[0].features);
		if (sp->trace_max) {
			uint64_t n = 0;

			for (unsigned i = 0; i < sp->workers; i++)
				n += w[i].ntrace;
			res->trace = malloc((n ? n : 1) * sizeof(*res->trace));
			if (res->trace)
				for (unsigned i = 0; i < sp->workers; i++) {
					memcpy(res->trace + res->ntrace, w[i].trace, w[i].ntrace * sizeof(*res->trace));
					res->ntrace += w[i].ntrace;
				}
		}
		rc = 0;
	}
out:
	if (shared_init) {
		pthread_cond_destroy(&sh.cond);
		pthread_mutex_destroy(&sh.lock);
	}
	for (unsigned t = 0; t < sp->ntargets; t++)
		if (fds[t] >= 0)
			close(fds[t]);
	if (w)
		free_workers(w, sp->workers);
	free(wls);
	free(snap_prev);
	free(snap_now);
	free(scratch);
	if (rc)
		phase_result_free(res);
	return rc;
}
