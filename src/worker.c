/* worker.c - the hot loop of one thread: next op -> submit -> reap -> record.
 *
 * Per I/O this loop does: one op from the generator, one queue() into the
 * engine (and a submit() every `batch` I/Os: 1 by default, as fio and
 * IOMeter submit, because a virtual disk handed 32 I/Os at once tends to
 * complete them together, and the convoy costs it 10 to 20 % of its IOPS),
 * and on completion one histogram record (two when paced). The
 * clock is read once per batch of completions and that reading also stamps
 * the next batch of submissions. No allocation, lock, Lua or printf here:
 * all of it happens before the start barrier or after the loop.
 *
 * Ramp and end. An I/O counts when it completes at or after the start of
 * measurement and, for a timed phase, not after its end. A quota of ios or
 * bytes is exact: a worker stops issuing when what it counted plus what is
 * in flight reaches it, and issues again if an in-flight I/O did not count.
 */
#include "worker.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "clock.h"
#include "verify.h"

/* How long a worker may wait without looking at the stop flag. */
#define STOP_POLL_NS 50000000ull

/* Make every 4 KiB of a write unique (offset and sequence) so that no two
 * writes are deduplicated or compressed away by the storage. */
static inline void stamp(struct io_slot *s, uint64_t seq)
{
	char *b = s->buf;

	for (uint32_t o = 0; o + 16 <= s->op.len; o += 4096) {
		uint64_t v[2] = { s->op.offset + o, seq };

		memcpy(b + o, v, sizeof(v));
	}
}

static inline void fill_offsets(struct io_slot *s)
{
	uint64_t *p = s->buf;

	for (uint32_t i = 0; i < s->op.len / 8; i++)
		p[i] = s->op.offset + 8ull * i;
}

/* 1 if a read returned the OFFSET pattern for where it read. */
static inline int offsets_ok(const struct io_slot *s)
{
	const uint64_t *p = s->buf;

	for (uint32_t i = 0; i < s->op.len / 8; i++)
		if (p[i] != s->op.offset + 8ull * i)
			return 0;
	return 1;
}

/* A completed I/O under verification: a write records its generation, a
 * read is checked, every bad unit counted. 0 when a read failed. */
static int verified(struct worker *w, const struct io_slot *s, int strict, uint64_t now)
{
	const struct phase_spec *sp = w->sh->spec;
	struct gen_map *m = w->target->gmap;
	const uint32_t unit = sp->verify_unit;
	uint64_t at, want, got;
	int bad, nbad = 0;

	if (sp->verify == VERIFY_OFFSET) {
		if (s->op.op == OP_READ && !offsets_ok(s)) {
			counters_error(&w->c, OP_READ, EILSEQ, s->op.offset, s->op.len, -EILSEQ, now);
			return 0;
		}
		return 1;
	}
	if (s->op.op == OP_WRITE) {
		if (!m)
			return 1;
		for (uint64_t o = 0; o < s->op.len; o += unit)
			__atomic_store_n(&m->gens[(s->op.offset + o) / unit], s->gen, __ATOMIC_RELAXED);
		if (!__atomic_load_n(&m->dirty, __ATOMIC_RELAXED)) {
			__atomic_store_n(&m->written, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&m->dirty, 1, __ATOMIC_RELAXED);
		}
		return 1;
	}
	for (uint32_t from = 0; from < s->op.len; from = (uint32_t)(at - s->op.offset) + unit) {
		bad = verify_check_id(s->buf, s->op.len, s->op.offset, from, unit, m ? m->gens : NULL, m ? m->n : 0,
				      strict, m ? m->tid : 0, &at, &want, &got);
		if (!bad)
			break;
		counters_verify_error(&w->c, bad, s->op.offset, s->op.len, at, want, got, now);
		nbad++;
	}
	return !nbad;
}

/* Does s (taken from the free slots) overlap an I/O of this worker in
 * flight, one of them a write? (A read racing a write of the same unit may
 * see either, or a mix.) In flight: every slot neither free nor s. Only
 * verifying phases ask, so the hot loop keeps no bookkeeping for it. */
static int overlaps(const struct worker *w, struct io_slot *const *freeq, unsigned nfree, unsigned qd,
		    const struct io_slot *s)
{
	unsigned char idle[PHASE_MAX_QD];

	memset(idle, 0, qd);
	for (unsigned j = 0; j < nfree; j++)
		idle[freeq[j]->index] = 1;
	idle[s->index] = 1;
	for (unsigned j = 0; j < qd; j++) {
		const struct wl_op *o = &w->slots[j].op;

		if (!idle[j] && (o->op == OP_WRITE || s->op.op == OP_WRITE) && o->offset < s->op.offset + s->op.len &&
		    s->op.offset < o->offset + o->len)
			return 1;
	}
	return 0;
}

/* Before the start barrier: the generation map of a file this phase
 * created (its inspection found nothing to attach), and whether reads
 * must find a header in every unit (a phase that only reads, with no map
 * saying what was written). */
static int verify_setup(struct worker *w, int *strict)
{
	const struct phase_spec *sp = w->sh->spec;
	struct target *t = w->target;
	uint32_t unit = sp->verify_unit;
	int reads_only = 1;

	*strict = 0;
	if (sp->verify != VERIFY_CRC)
		return 0;
	if (t->created && genmap_attach(t, &unit, 1, 1, 0, GENMAP_WRITES, w->error, sizeof(w->error)) < 0)
		return -1;
	for (unsigned i = 0; i < w->wl->nspecs; i++)
		reads_only = reads_only && w->wl->spec[i].read_thr >= WL_ONE;
	*strict = reads_only && !genmap_known(t->gmap);
	return 0;
}

/* The last worker of a phase out saves the maps its writes changed. */
static void verify_finish(struct worker *w)
{
	struct phase_shared *sh = w->sh;
	const struct phase_spec *sp = sh->spec;

	if (sp->verify != VERIFY_CRC || __atomic_add_fetch(&sh->exiting, 1, __ATOMIC_ACQ_REL) != sp->workers)
		return;
	for (unsigned t = 0; t < sp->ntargets; t++)
		if (genmap_save(sp->targets[t], w->error, sizeof(w->error)) < 0)
			w->engine_failed = 1;
}

static inline uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct phase_shared *sh = w->sh;
	const struct phase_spec *sp = sh->spec;
	const struct pace *pace = sp->pace;
	const struct engine_ops *ops = sp->engine;
	const unsigned qd = sp->qd;
	struct io_slot *freeq[PHASE_MAX_QD], *done[PHASE_MAX_QD], *held = NULL;
	uint64_t ready_at[PHASE_MAX_QD];
	struct engine_cfg cfg = { .fd = w->fd, .qd = qd, .slots = w->slots, .buf_len = w->buf_len,
				  .sim_latency_ns = sp->sim_latency_ns, .flags = sp->engine_flags };
	struct wl_state st;
	struct pace_state ps = { .next_ns = 0 };
	struct rng prng;
	uint64_t now, measure, end, seq = (uint64_t)w->id << 48;
	uint64_t n_ios = 0, n_bytes = 0, inflight_bytes = 0, burst_resume = 0;
	unsigned nfree = qd, inflight = 0, burst_left;
	const int paced = pace->nseg > 0, think = pace->think != THINK_NONE;
	const int stamping = sp->pattern == PATTERN_RANDOM;
	const int verifying = sp->verify != VERIFY_NONE;
	unsigned queued = 0;
	int strict = 0;

	/* paced starts and think times are timers: no slack on them */
	prctl(PR_SET_TIMERSLACK, 1UL);
	w->engine.ops = ops;
	if (ops->init(&w->engine, &cfg, w->error, sizeof(w->error)) < 0) {
		w->init_failed = 1;
		if (!w->error[0])
			snprintf(w->error, sizeof(w->error), "engine %s: set-up failed", ops->name);
		w->engine.priv = NULL;
	} else {
		snprintf(w->features, sizeof(w->features), "%s", w->engine.features ? w->engine.features : "");
		if (verify_setup(w, &strict) < 0)
			w->init_failed = 1;
	}
	pthread_mutex_lock(&sh->lock);
	sh->ready++;
	pthread_cond_broadcast(&sh->cond);
	while (!sh->go)
		pthread_cond_wait(&sh->cond, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	if (w->init_failed || __atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
		goto out;

	/* the clock as this thread wakes, not the phase's start: a worker that
	 * wakes late must not count its wake-up in its first I/Os' latency */
	now = clock_ns();
	measure = sh->measure_ns;
	end = sh->end_ns;
	wl_state_init(w->wl, &st, sp->seed, w->id, sp->workers);
	rng_seed(&prng, sp->seed ^ 0x5851f42d4c957f2dull, w->id + 1);
	for (unsigned i = 0; i < qd; i++) {
		freeq[i] = &w->slots[qd - 1 - i];
		ready_at[i] = 0;
	}
	if (paced)
		pace_start(pace, &ps, measure, now, sp->workers, &prng);
	burst_left = pace->burst;

	for (;;) {
		int stopping = __atomic_load_n(&sh->stop, __ATOMIC_RELAXED) || now >= end;
		uint64_t wake = UINT64_MAX; /* when something may next be issued */
		int n;

		if (stopping && end > now)
			end = now; /* a stop ends the phase here: nothing completing later counts */

		while (!stopping && (nfree || held)) {
			unsigned k = nfree - 1;
			struct io_slot *s;

			if (held) {
				/* generated, waiting for an overlapping I/O */
				if (overlaps(w, freeq, nfree, qd, held))
					break;
				s = held;
				held = NULL;
				goto start;
			}
			if (n_ios + inflight >= w->ios_quota || n_bytes + inflight_bytes >= w->bytes_quota)
				break;
			if (pace->burst && !burst_left) {
				if (inflight)
					break; /* the burst drains before the delay */
				if (!burst_resume)
					burst_resume = now + pace->burst_delay_ns;
				if (now < burst_resume) {
					wake = burst_resume;
					break;
				}
				burst_left = pace->burst;
				burst_resume = 0;
			}
			if (paced && ps.next_ns > now) {
				wake = ps.next_ns;
				break;
			}
			if (think) {
				uint64_t soonest = UINT64_MAX;
				unsigned j;

				for (j = 0; j < nfree; j++) {
					if (ready_at[freeq[j]->index] <= now)
						break;
					soonest = min64(soonest, ready_at[freeq[j]->index]);
				}
				if (j == nfree) {
					wake = min64(wake, soonest);
					break;
				}
				k = j;
			}
			s = freeq[k];
			freeq[k] = freeq[--nfree];
			if (paced) {
				s->intended_ns = ps.next_ns;
				pace_advance(pace, &ps, measure, sp->workers, &prng);
			}
			wl_next(w->wl, &st, &s->op);
			if (verifying && overlaps(w, freeq, nfree, qd, s)) {
				held = s; /* kept as it is: issued when the other completes */
				break;
			}
start:
			s->submit_ns = now;
			if (s->op.op == OP_WRITE) {
				if (sp->verify == VERIFY_CRC) {
					s->gen = w->target->gmap ? __atomic_add_fetch(&w->target->gmap->next_gen, 1,
										      __ATOMIC_RELAXED)
								 : ++seq;
					verify_stamp(s->buf, s->op.len, s->op.offset, sp->verify_unit, s->gen,
						     w->target->gmap ? w->target->gmap->tid : (uint32_t)sp->seed,
						     (uint16_t)w->id);
				} else if (stamping) {
					stamp(s, seq++);
				} else if (sp->pattern == PATTERN_OFFSET) {
					fill_offsets(s);
				}
			}
			ops->queue(&w->engine, s);
			if (ops->submit && ++queued >= sp->batch) {
				ops->submit(&w->engine);
				queued = 0;
			}
			inflight++;
			inflight_bytes += s->op.len;
			if (pace->burst)
				burst_left--;
		}
		if (inflight > w->c.max_inflight)
			w->c.max_inflight = inflight;

		if (!inflight) {
			/* a finished schedule idles to the phase's end (which a
			 * schedule always sets), as its idle segments do */
			if (stopping || n_ios >= w->ios_quota || n_bytes >= w->bytes_quota)
				break;
			wake = min64(min64(wake, end), now + STOP_POLL_NS);
			now = clock_wait_until(wake);
			continue;
		}

		if (wake != UINT64_MAX && wake <= now + CLOCK_SPIN_NS) {
			/* an I/O is due within the spin window: poll, do not sleep,
			 * or the wake-up lag would count as the device's latency */
			n = ops->reap(&w->engine, 0, 0, done, qd);
		} else {
			uint64_t deadline = min64(min64(wake == UINT64_MAX ? wake : wake - CLOCK_SPIN_NS, end),
						  now + STOP_POLL_NS);

			n = ops->reap(&w->engine, 1, deadline > now ? deadline - now : 0, done, qd);
		}
		now = clock_ns();
		if (n < 0) {
			snprintf(w->error, sizeof(w->error), "engine %s: %s", ops->name, strerror(-n));
			w->engine_failed = 1;
			__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
			break;
		}
		for (int i = 0; i < n; i++) {
			struct io_slot *s = done[i];
			const uint32_t len = s->op.len;

			inflight--;
			inflight_bytes -= len;
			if (s->res != (int64_t)len) {
				counters_error(&w->c, s->op.op, s->res < 0 ? (int)-s->res : 0, s->op.offset, len, s->res, now);
				if (!sp->on_error_continue)
					__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
				goto next;
			}
			if (verifying && !verified(w, s, strict, now) && !sp->on_error_continue) {
				/* bad data: counted as errors, and as a completed I/O
				 * below, so a pass reads each unit once */
				__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
			}
			if (now >= measure && now <= end) {
				struct op_stats *o = &w->c.op[s->op.op];
				const uint64_t lat = now - (paced ? s->intended_ns : s->submit_ns);

				hist_record(&o->lat, lat);
				if (paced)
					hist_record(&o->svc, now - s->submit_ns);
				hist_inc(&o->bytes, len);
				n_ios++;
				n_bytes += len;
				w->c.last_done_ns = now;
				if (w->ntrace < w->trace_max) {
					struct trace_rec *t = &w->trace[w->ntrace++];

					t->start_ns = (int64_t)((paced ? s->intended_ns : s->submit_ns) - measure);
					t->submit_ns = (int64_t)(s->submit_ns - measure);
					t->lat_ns = lat;
					t->offset = s->op.offset;
					t->len = len;
					t->worker = (uint16_t)w->id;
					t->op = s->op.op;
				}
			}
next:
			if (think)
				ready_at[s->index] = now + pace_think_ns(pace, &prng);
			freeq[nfree++] = s;
		}
	}
out:
	if (w->engine.priv)
		ops->exit(&w->engine);
	verify_finish(w);
	pthread_mutex_lock(&sh->lock);
	sh->finished++;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	return NULL;
}
