/* worker.c - the hot loop of one thread: next op -> submit -> reap -> record.
 *
 * One turn of the loop (run) in named parts over one struct loop:
 * start_ios takes every I/O that may start now (next_ready: a free slot,
 * and no quota, burst gap, paced start or think time holding it back),
 * stamps and queues it (start_one), and hands what is queued to the kernel
 * at once, in groups of at most `bound` I/Os (phase.batch; "auto" finds it,
 * batch.c); wait_ios submits the last group and waits for
 * completions in one call; complete_one records each. Per I/O: one op from
 * the generator, one queue(), one histogram record (two when paced). The
 * clock is read once per batch of completions, and again after each
 * submit() system call, so an I/O's submit_ns is never before a submission
 * that went ahead of it. No allocation, lock, Lua or printf here: all of it
 * happens before the start barrier or after the loop.
 *
 * Ramp and end. An I/O counts when it completes at or after the start of
 * measurement and, for a timed phase, not after its end. A quota of ios or
 * bytes is exact: a worker stops issuing when what it counted plus what is
 * in flight reaches it, and issues again if an in-flight I/O did not count.
 */
#include "run/worker.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/discard.h"
#include "run/batch.h"
#include "run/replay.h"
#include "run/worker_verify.h"
#include "verify/verify.h"

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

/* How this worker's trims discard: a file's holes, a device's BLKDISCARD,
 * or its BLKSECDISCARD (trim_secure). */
static enum discard_kind worker_discard(const struct worker *w)
{
	if (w->target->kind != TARGET_BLOCK)
		return DISCARD_PUNCH;
	return w->spec->trim_secure ? DISCARD_SECURE : DISCARD_BLOCK;
}

static inline uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* All a worker's hot loop works on. */
struct loop {
	struct worker *w;
	struct phase_shared *sh;
	const struct phase_spec *sp;
	const struct pace *pace;
	const struct engine_ops *ops;
	unsigned qd;
	unsigned pacers;      /* the workers sharing the rate: this phase's, x the ranks of a cluster */
	int paced, think, stamping, verifying, autob;
	int odd_others;       /* a read, trim or sync needs more than queueing: crash records, data areas */
	int plain;            /* no pacing, think, burst nor verification */
	uint64_t now, measure, end, seq, wake;
	uint64_t if_at;       /* when the count in flight last changed (inflight_mark) */
	uint64_t if_start;    /* when the loop started */
	uint64_t pace_t0;     /* where the schedule's segments count from: measure, or a later start_delay */
	uint64_t ios_room, bytes_room; /* in this turn: what may be in flight */
	uint64_t n_ios, n_bytes, inflight_bytes, burst_resume;
	unsigned nfree, inflight, burst_left, bound;
	struct io_slot *held;
	struct io_slot **freeq, **done;
	uint64_t *ready_at;
	struct wl_state *st;
	struct pace_state *ps;
	struct rng *prng;
	struct batch_auto *au;
	/* fsync / fdatasync every sync_every writes of a slot: since[slot]
	 * counts them; a slot whose sync is due waits in syncq, and goes
	 * first in the next turn, whatever holds other I/Os back */
	unsigned sync_every, nsyncq;
	uint32_t *since;
	struct io_slot **syncq;
	int trim_sync;        /* trims by system call here (the engine has no way) */
	/* phase.replay: the trace's next record for this worker (rp_have),
	 * its time, and whether the trace is done for it */
	const struct replay *rp;
	struct replay_cursor *rc;
	struct wl_op rp_op;
	uint64_t rp_at;
	int rp_have, rp_over;
	int slot_after;       /* think time or syncs: slot_after() has work */
};

void worker_batch_merge(struct batch_stats *to, const struct worker *w)
{
	batch_stats_merge(to, &w->batch);
}

/* A burst's gap, the next paced start or every free slot's think time
 * holds the next I/O back: 1, and l->wake says until when. Else 0, and
 * *k is the free slot to take. */
static inline int held_back(struct loop *l, unsigned *k)
{
	const struct pace *pace = l->pace;

	if (pace->burst && !l->burst_left) {
		if (l->inflight)
			return 1; /* the burst drains before the delay */
		if (!l->burst_resume)
			l->burst_resume = l->now + pace->burst_delay_ns;
		if (l->now < l->burst_resume) {
			l->wake = l->burst_resume;
			return 1;
		}
		l->burst_left = pace->burst;
		l->burst_resume = 0;
	}
	if (l->paced && l->ps->next_ns > l->now) {
		l->wake = l->ps->next_ns;
		return 1;
	}
	if (l->think) {
		uint64_t soonest = UINT64_MAX;
		unsigned j;

		for (j = 0; j < l->nfree; j++) {
			if (l->ready_at[l->freeq[j]->index] <= l->now)
				break;
			soonest = min64(soonest, l->ready_at[l->freeq[j]->index]);
		}
		if (j == l->nfree) {
			l->wake = min64(l->wake, soonest);
			return 1;
		}
		*k = j;
	}
	return 0;
}

/* The next record of a replay, due now (or, no_stall, in order as slots
 * free): its slot, with its op and its recorded time as the intended
 * start, and its lag counted. NULL when the next is not due (l->wake says
 * when) or the trace is done for this worker (l->rp_over). */
static inline struct io_slot *next_replayed(struct loop *l)
{
	const struct replay *rp = l->rp;
	struct replay_stats *st = l->w->replay;
	struct io_slot *s;
	uint64_t lag;

	if (!l->rp_have) {
		if (l->rp_over || !replay_next(rp, l->rc, &l->rp_op, &l->rp_at)) {
			l->rp_over = 1;
			return NULL;
		}
		l->rp_have = 1;
	}
	if (!rp->no_stall && l->rp_at > l->now) {
		l->wake = l->rp_at;
		return NULL;
	}
	s = l->freeq[--l->nfree];
	s->op = l->rp_op;
	s->intended_ns = rp->no_stall ? l->now : l->rp_at;
	l->rp_have = 0;
	lag = l->now - s->intended_ns;
	hist_record(&st->lag, lag);
	st->late += lag > REPLAY_LATE_NS;
	if (!st->ios++)
		st->first_ns = l->now - l->measure;
	st->last_ns = l->now - l->measure;
	return s;
}

/* next_ready for a loop that is not plain: a held I/O, a burst's gap, a
 * paced start, think time, an overlap under verification, a replay. */
static inline struct io_slot *next_ready_paced(struct loop *l)
{
	unsigned k = l->nfree - 1;
	struct io_slot *s;

	if (l->held) {
		/* generated, waiting for an overlapping I/O */
		if (worker_overlaps(l->w, l->freeq, l->nfree, l->qd, l->held))
			return NULL;
		s = l->held;
		l->held = NULL;
		return s;
	}
	if (!l->nfree || l->inflight >= l->ios_room || l->inflight_bytes >= l->bytes_room)
		return NULL;
	if (l->rp)
		return next_replayed(l);
	if (held_back(l, &k))
		return NULL;
	s = l->freeq[k];
	l->freeq[k] = l->freeq[--l->nfree];
	if (l->paced) {
		s->intended_ns = l->ps->next_ns;
		pace_advance(l->pace, l->ps, l->pace_t0, l->pacers, l->prng);
	}
	wl_next(l->w->wl, l->st, &s->op);
	if (l->verifying && worker_overlaps(l->w, l->freeq, l->nfree, l->qd, s)) {
		l->held = s; /* kept as it is: issued when the other completes */
		return NULL;
	}
	return s;
}

/* The next slot that may start now, its op generated; NULL when none may
 * (then l->wake says when one may, UINT64_MAX: on a completion). A plain
 * loop (no pacing, think, burst, verification or trims by system call)
 * takes the last freed slot; the rest is next_ready_paced's. */
static inline struct io_slot *next_ready(struct loop *l)
{
	struct io_slot *s;

	if (__builtin_expect(!l->plain, 0))
		return next_ready_paced(l);
	if (!l->nfree || l->inflight >= l->ios_room || l->inflight_bytes >= l->bytes_room)
		return NULL;
	s = l->freeq[--l->nfree];
	wl_next(l->w->wl, l->st, &s->op);
	return s;
}

/* The hot loop's parts are inlined into run() (the instructions per I/O of
 * `make bench` show it); trim_now, the one other caller, is cold. */
#define HOT static inline __attribute__((always_inline))

HOT void complete_as(struct loop *l, struct io_slot *s, int counting, const int plain);
#define complete_one(l, s, counting) complete_as(l, s, counting, 0)

/* What a slot does after an I/O besides going back to the free list:
 * its trace record, when traced; its access spec's figures, when specs
 * have names; think time; and with
 * fsync / fdatasync every N writes, the sync (which
 * counts in no quota: a quota counts reads, writes and trims) or, after
 * the slot's Nth write, the sync it now owes, queued to go first (1: the
 * slot is not free). */
static inline int slot_after(struct loop *l, struct io_slot *s, int counting)
{
	struct worker *w = l->w;
	const uint64_t from = l->paced ? s->intended_ns : s->submit_ns;

	if (counting && s->res == (int64_t)s->op.len && w->ntrace < w->trace_max) {
		struct trace_rec *t = &w->trace[w->ntrace++];

		t->start_ns = (int64_t)(from - l->measure);
		t->submit_ns = (int64_t)(s->submit_ns - l->measure);
		t->lat_ns = l->now - from;
		t->offset = s->op.offset;
		t->len = s->op.len;
		t->worker = (uint16_t)w->id;
		t->op = s->op.op;
		t->target = w->trace_target;
	}
	if (w->specs && counting && s->res == (int64_t)s->op.len && s->op.op != OP_SYNC) {
		struct spec_stats *st = &w->specs[s->op.spec];

		hist_record(&st->lat, l->now - from);
		st->ios[s->op.op]++;
		st->bytes += s->op.len;
	}
	if (l->sync_every && s->op.op == OP_SYNC) {
		l->n_ios -= counting && s->res == 0;
		/* a commit: the write and its own sync, as a database waits for both */
		if (counting && s->res == 0 && l->sync_every == 1 && s->commit_ns)
			hist_record(&w->c.commit, l->now - s->commit_ns);
	} else if (l->sync_every && s->op.op == OP_WRITE && s->res == (int64_t)s->op.len &&
		   ++l->since[s->index] == l->sync_every) {
		l->since[s->index] = 0;
		s->commit_ns = from; /* the write's start, for its commit latency */
		s->op = (struct wl_op){ .op = OP_SYNC }; /* the slot's next I/O, before anything else */
		l->syncq[l->nsyncq++] = s;
		return 1;
	}
	if (l->think)
		l->ready_at[s->index] = l->now + pace_think_ns(l->pace, l->prng);
	return 0;
}

/* What has been in flight since the count last changed, summed over the
 * part of that time inside the measured time (c.inflight_ns: its mean is
 * result.inflight.mean). Called before the count changes, at the clock
 * reading the I/Os' submit_ns and latency use: an I/O counts in flight
 * from its submit_ns to its completion's reading, as its latency does, so
 * that IOPS x mean latency is the mean in flight (Little's law). */
static inline void inflight_mark(struct loop *l)
{
	const uint64_t from = l->if_at > l->measure ? l->if_at : l->measure, to = min64(l->now, l->end);

	if (to > from)
		hist_bump(&l->w->c.inflight_ns, (to - from) * l->inflight); /* read live (phase_metrics.c) */
	l->if_at = l->now;
}

/* A trim the engine cannot issue: BLKDISCARD or a punched hole now, by
 * system call, timed around it, and completed at once. */
__attribute__((noinline, cold)) static void trim_now(struct loop *l, struct io_slot *s)
{
	int r = discard_range(l->w->fd, worker_discard(l->w), s->op.offset, s->op.len);

	l->now = clock_ns();
	inflight_mark(l); /* it was in flight until now */
	s->res = r < 0 ? r : (int64_t)s->op.len;
	complete_one(l, s, l->now >= l->measure && l->now <= l->end);
	/* what it counted leaves less room in this turn: a quota stays exact */
	l->ios_room = l->n_ios < l->w->ios_quota ? l->w->ios_quota - l->n_ios : 0;
	l->bytes_room = l->n_bytes < l->w->bytes_quota ? l->w->bytes_quota - l->n_bytes : 0;
	/* it completed at once and its slot is free again: start_ios would go
	 * on trimming past the end or a stop, never back in the loop that
	 * sees them */
	if (l->now >= l->end || __atomic_load_n(&l->sh->stop, __ATOMIC_RELAXED))
		l->ios_room = 0;
}

/* Stamp a write's data and hand the I/O to the engine's queue. */
HOT void start_one(struct loop *l, struct io_slot *s)
{
	const struct phase_spec *sp = l->sp;

	s->submit_ns = l->now;
	if (__builtin_expect(!l->plain, 0)) {
		if (l->trim_sync && s->op.op == OP_TRIM) {
			inflight_mark(l);
			l->inflight++;
			l->inflight_bytes += s->op.len;
			trim_now(l, s);
			return;
		}
		if (l->pace->burst)
			l->burst_left--;
	}
	if (s->op.op == OP_WRITE) {
		struct data_gen *g = &l->w->data;

		if (g->mode == DATA_FRESH) {
			data_fill_fresh(g, s); /* data.h: its window and sector stamps */
			data_count_plain(g, s->op.len, &l->w->c.data);
		} else if (g->mode == DATA_REDUCE)
			data_fill_reduce(g, s, &l->w->c.data); /* data.h: its window and stamps, before a header */
		else if (g->mode != DATA_PLAIN)
			data_fill(g, s, &l->w->c.data);
		else
			data_count_plain(g, s->op.len, &l->w->c.data);
		if (sp->verify == VERIFY_CRC) {
			struct gen_map *m = l->w->target->gmap;

			s->gen = m ? __atomic_add_fetch(&m->next_gen, 1, __ATOMIC_RELAXED) : ++l->seq;
			verify_stamp(s->buf, s->op.len, s->op.offset, sp->verify_unit, s->gen,
				     m ? m->tid : (uint32_t)sp->seed, (uint16_t)l->w->id);
			if (l->w->ct)
				worker_crash_issue(l->w, s);
		} else if (l->stamping) {
			stamp(s, l->seq++);
		} else if (sp->pattern == PATTERN_OFFSET) {
			fill_offsets(s);
		}
		if (__builtin_expect(data_after(g, s, &l->w->c.data, l->now), 0))
			s->submit_ns = l->now = clock_ns(); /* a sample was compressed: not this I/O's time */
	} else if (__builtin_expect(l->odd_others, 0)) {
		if (s->op.op == OP_SYNC && l->w->ct)
			worker_crash_sync_start(l->w, s); /* what it will make durable */
		else if (data_moves_writes(&l->w->data))
			s->buf = data_read_buf(&l->w->data, s->index); /* not over the prepared data */
	}
	l->ops->queue(&l->w->engine, s);
	if (l->now != l->if_at)
		inflight_mark(l); /* the clock moved (a submit, a sample): in flight from its submit_ns */
	l->inflight++;
	l->inflight_bytes += s->op.len;
}

/* One hand-over of n queued I/Os, counted in the measured time. */
static inline void note_submit(struct loop *l, unsigned n)
{
	if (l->now >= l->measure)
		sizes_add(&l->w->batch.submit, n);
}

/* Start every I/O that may start now: queue them, and hand them to the
 * kernel in groups of at most `bound`. A full group goes (submit(), one
 * system call) only when another I/O is ready to follow it; the last group
 * (or the only one) goes with the wait in reap(), in the same call. After
 * each submit() the clock is read again, so an I/O's submit_ns is never
 * before a submission that went ahead of it. */
static inline void start_ios(struct loop *l)
{
	const unsigned before = l->inflight;
	unsigned mark = before; /* in flight at the last hand-over */
	struct io_slot *s;

	inflight_mark(l);

	while (l->nsyncq) { /* due syncs first: they belong to writes already done */
		struct io_slot *s = l->syncq[--l->nsyncq];

		s->intended_ns = l->now; /* no start on a schedule of its own: it follows its write */
		start_one(l, s);
	}
	/* a quota is exact: what counted plus what is in flight */
	l->ios_room = l->n_ios < l->w->ios_quota ? l->w->ios_quota - l->n_ios : 0;
	l->bytes_room = l->n_bytes < l->w->bytes_quota ? l->w->bytes_quota - l->n_bytes : 0;
	while ((s = next_ready(l))) {
		if (l->inflight == mark + l->bound) {
			note_submit(l, l->bound);
			mark = l->inflight;
			if (l->ops->submit) {
				l->ops->submit(&l->w->engine);
				l->now = clock_ns();
			}
		}
		start_one(l, s);
	}
	if (l->inflight != mark)
		note_submit(l, l->inflight - mark);
	if (l->autob && l->inflight - before > l->au->ready_max)
		l->au->ready_max = l->inflight - before;
	if (l->inflight > l->w->c.max_inflight)
		l->w->c.max_inflight = l->inflight;
}

/* Submit what is queued and wait for completions: until something may
 * start (polling, not sleeping, within CLOCK_SPIN_NS of it), the end, or
 * STOP_POLL_NS. The clock is read once, for the whole batch. */
static inline int wait_ios(struct loop *l)
{
	const uint64_t wake = l->wake, now = l->now;
	int n;

	if (wake != UINT64_MAX && wake <= now + CLOCK_SPIN_NS) {
		/* an I/O is due within the spin window: poll, do not sleep,
		 * or the wake-up lag would count as the device's latency */
		n = l->ops->reap(&l->w->engine, 0, 0, l->done, l->qd);
	} else {
		uint64_t deadline = min64(min64(wake == UINT64_MAX ? wake : wake - CLOCK_SPIN_NS, l->end),
					  now + STOP_POLL_NS);

		n = l->ops->reap(&l->w->engine, 1, deadline > now ? deadline - now : 0, l->done, l->qd);
	}
	l->now = clock_ns();
	return n;
}

/* One completion: errors, verification, latency (when `counting`: its
 * time, the same for the whole batch, is inside the measured time), the
 * trace, and the slot back to the free list. */
/* One completion (complete_one); plain: a constant 1 when the loop is
 * plain (no pacing, no verification), so the compiler leaves those tests
 * out of the plain loop's copy. */
HOT void complete_as(struct loop *l, struct io_slot *s, int counting, const int plain)
{
	struct worker *w = l->w;
	const struct phase_spec *sp = l->sp;
	const uint64_t now = l->now;
	const uint32_t len = s->op.len;

	l->inflight--;
	l->inflight_bytes -= len;
	if (s->res != (int64_t)len) {
		counters_error(&w->c, s->op.op, s->res < 0 ? (int)-s->res : 0, s->op.offset, len, s->res, now);
		if (!sp->on_error_continue)
			__atomic_store_n(&l->sh->stop, 1, __ATOMIC_RELAXED);
		goto free;
	}
	if (!plain && __builtin_expect(w->ct != NULL, 0) && s->op.op == OP_SYNC)
		worker_crash_synced(w, s);
	if (!plain && l->verifying && s->op.op <= OP_WRITE && !worker_verified(w, s, now) && !sp->on_error_continue &&
	    !sp->after_crash) {
		/* bad data: counted as errors, and as a completed I/O
		 * below, so a pass reads each unit once */
		__atomic_store_n(&l->sh->stop, 1, __ATOMIC_RELAXED);
	}
	if (counting) {
		struct op_stats *o = &w->c.op[s->op.op];
		const uint64_t from = !plain && l->paced ? s->intended_ns : s->submit_ns, lat = now - from;

		hist_record(&o->lat, lat);
		if (!plain && l->paced)
			hist_record(&o->svc, now - s->submit_ns);
		stats_add_bytes(o, len);
		l->n_ios++;
		l->n_bytes += len;
		w->c.last_done_ns = now;
	}
free:
	if (__builtin_expect(l->slot_after, 0) && slot_after(l, s, counting))
		return;
	l->freeq[l->nfree++] = s;
}

/* Set up the engine in this thread, then wait at the start barrier.
 * 0 to run, -1 when this worker (or the phase) cannot. */
static int worker_ready(struct worker *w)
{
	struct phase_shared *sh = w->sh;
	const struct phase_spec *sp = w->spec;
	const struct engine_ops *ops = sp->engine;
	struct engine_cfg cfg = { .fd = w->fd, .qd = sp->qd, .slots = w->slots, .buf_len = w->buf_len,
				  .shared = w->shared, .shared_len = w->shared_len,
				  .sim_latency_ns = sp->sim_latency_ns,
				  .flags = sp->engine_flags | (sp->fdatasync_every ? ENGINE_DATASYNC : 0) |
					   (sp->open_sync != OPEN_SYNC_NONE && w->target->url ? ENGINE_FUA : 0),
				  .discard = worker_discard(w), .url = w->target->url };

	/* paced starts and think times are timers: no slack on them */
	prctl(PR_SET_TIMERSLACK, 1UL);
	w->engine.ops = ops;
	if (sp->ioprio && syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0 /* this thread */, sp->ioprio) < 0) {
		snprintf(w->error, sizeof(w->error), "ioprio: the kernel refused class %d level %d: %s", sp->ioprio >> 13,
			 sp->ioprio & 7, strerror(errno));
		w->init_failed = 1;
		w->engine.priv = NULL;
	} else if (ops->init(&w->engine, &cfg, w->error, sizeof(w->error)) < 0) {
		w->init_failed = 1;
		if (!w->error[0])
			snprintf(w->error, sizeof(w->error), "engine %s: set-up failed", ops->name);
		w->engine.priv = NULL;
	} else {
		snprintf(w->features, sizeof(w->features), "%s", w->engine.features ? w->engine.features : "");
		if (worker_verify_setup(w) < 0)
			w->init_failed = 1;
	}
	pthread_mutex_lock(&sh->lock);
	sh->ready++;
	pthread_cond_broadcast(&sh->cond);
	while (!sh->go)
		pthread_cond_wait(&sh->cond, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	return w->init_failed || __atomic_load_n(&sh->stop, __ATOMIC_RELAXED) ? -1 : 0;
}

/* The engine failed (n = -errno): the worker ends, the phase stops. */
__attribute__((noinline, cold)) static void engine_failed(struct loop *l, int n)
{
	snprintf(l->w->error, sizeof(l->w->error), "engine %s: %s", l->ops->name, strerror(-n));
	l->w->engine_failed = 1;
	__atomic_store_n(&l->sh->stop, 1, __ATOMIC_RELAXED);
}

/* The n completions a reap returned (in l->done): counted when they
 * completed in the measured time, each one completed (the plain copy of
 * complete_as when the loop is plain). */
static inline void completed(struct loop *l, int n)
{
	const int counting = l->now >= l->measure && l->now <= l->end;

	inflight_mark(l);
	if (n && counting)
		sizes_add(&l->w->batch.reap, (unsigned)n);
	if (l->plain)
		for (int i = 0; i < n; i++)
			complete_as(l, l->done[i], counting, 1);
	else
		for (int i = 0; i < n; i++)
			complete_as(l, l->done[i], counting, 0);
}

/* A stopped worker of an engine that drops (a network target): what
 * completes within ENGINE_DROP_NS of the end is reaped as in run(), the
 * rest left for exit() to abandon with the connection (a stalled server
 * holds the stop no longer). It sleeps in the engine's reap. */
__attribute__((noinline, cold)) static void drain_dropping(struct loop *l)
{
	const uint64_t until = l->end + ENGINE_DROP_NS;

	while (l->inflight && l->now < until) {
		int n = l->ops->reap(&l->w->engine, 1, min64(until - l->now, STOP_POLL_NS), l->done, l->qd);

		l->now = clock_ns();
		if (n < 0) {
			engine_failed(l, n);
			return;
		}
		completed(l, n);
	}
}

/* The loop, until the phase ends for this worker: start what may start,
 * wait, complete what completed. */
static inline void run(struct loop *l)
{
	for (;;) {
		int n, stopping = __atomic_load_n(&l->sh->stop, __ATOMIC_RELAXED) || l->now >= l->end;

		if (stopping && l->end > l->now)
			l->end = l->now; /* a stop ends the phase here: nothing completing later counts */
		l->wake = UINT64_MAX; /* when something may next be issued */
		if (!stopping)
			start_ios(l);
		if (!l->inflight) {
			/* a finished schedule idles to the phase's end (which a
			 * schedule always sets), as its idle segments do */
			if (stopping || l->n_ios >= l->w->ios_quota || l->n_bytes >= l->w->bytes_quota || l->rp_over)
				return;
			l->now = clock_wait_until(min64(min64(l->wake, l->end), l->now + STOP_POLL_NS));
			continue;
		}
		if (stopping && l->ops->drops) {
			drain_dropping(l);
			return;
		}
		n = wait_ios(l);
		if (n < 0) {
			engine_failed(l, n);
			return;
		}
		completed(l, n);
		if (l->autob) {
			l->au->epoch_ios += (unsigned)n;
			if (l->now >= l->au->check_at) {
				l->bound = batch_auto_step(l->au, l->qd, l->now, thread_cpu_ns());
				l->w->batch.bound = l->au->cur;
			}
		}
	}
}

/* After the loop, what of its replay this worker never issued: the
 * records due before the phase ended for it (its end, a stop, or a
 * failure: l->end, or now when earlier) are missed; none when it ended on
 * its quota (the rest lie past what the phase asked for) or ignores the
 * times (no_stall). And the records it would have issued to the end. */
static void replay_end(struct loop *l)
{
	struct replay_stats *st = l->w->replay;
	const uint64_t until = min64(l->end, l->now);

	st->planned = replay_planned(l->rp, l->rc);
	st->endless = !l->rp->loops;
	if (l->rp_over || l->rp->no_stall || l->n_ios >= l->w->ios_quota || l->n_bytes >= l->w->bytes_quota)
		return;
	st->missed = (l->rp_have && l->rp_at < until) + replay_due_left(l->rp, l->rc, until);
}

/* The loop's state as the worker starts, after the barrier. Fields are
 * set one by one (not by an initializer): the compiler then keeps them in
 * registers, which the instructions per I/O of `make bench` show. */
static inline void loop_init(struct loop *l, struct worker *w)
{
	const struct phase_spec *sp = w->spec;
	int autob;

	l->w = w;
	l->sh = w->sh;
	l->sp = sp;
	l->pace = sp->pace;
	l->ops = sp->engine;
	l->qd = sp->qd;
	l->paced = l->pace->nseg > 0;
	l->think = l->pace->think != THINK_NONE;
	l->stamping = sp->pattern == PATTERN_RANDOM && w->data.mode == DATA_PLAIN; /* data.h stamps its own */
	l->odd_others = w->ct || data_moves_writes(&w->data);
	l->verifying = sp->verify != VERIFY_NONE;
	l->plain = !l->paced && !l->think && !l->pace->burst && !l->verifying;
	/* the clock as this thread wakes, not the phase's start: a worker that
	 * wakes late must not count its wake-up in its first I/Os' latency */
	l->now = clock_ns();
	l->measure = w->sh->measure_ns;
	l->end = w->sh->end_ns;
	l->seq = (uint64_t)w->id << 48;
	l->wake = UINT64_MAX;
	l->if_at = l->if_start = l->now;
	l->n_ios = l->n_bytes = l->inflight_bytes = l->burst_resume = 0;
	l->nfree = l->qd;
	l->inflight = 0;
	l->burst_left = l->pace->burst;
	l->held = NULL;
	wl_state_init(w->wl, l->st, sp->seed, w->id, w->part, w->nparts);
	wl_map_attach(w->wl, l->st, w->rmap);
	rng_seed(l->prng, sp->seed ^ 0x5851f42d4c957f2dull, w->id + 1);
	for (unsigned i = 0; i < l->qd; i++) {
		l->freeq[i] = &w->slots[l->qd - 1 - i];
		l->ready_at[i] = 0;
	}
	l->ps->next_ns = 0;
	l->pacers = sp->workers * (sp->rate_share ? sp->rate_share : 1);
	/* a stream that starts after the ramp starts its schedule then: its
	 * first segment is its first, not what the others have reached */
	l->pace_t0 = w->sh->t_start_ns + sp->start_delay_ns > l->measure ? w->sh->t_start_ns + sp->start_delay_ns
									 : l->measure;
	if (l->paced)
		pace_start(l->pace, l->ps, l->pace_t0, l->now, l->pacers, l->prng);
	l->sync_every = sp->fsync_every ? sp->fsync_every : sp->fdatasync_every;
	l->nsyncq = 0;
	memset(l->since, 0, l->qd * sizeof(*l->since));
	l->trim_sync = wl_trims(w->wl) &&
		       (w->target->kind == TARGET_BLOCK ? !l->ops->trim_blocks : !l->ops->trim_files);
	l->plain = l->plain && !l->trim_sync;
	l->slot_after = l->think || l->sync_every || w->specs || w->trace_max;
	l->rp = sp->replay;
	l->rp_have = l->rp_over = 0;
	if (l->rp) {
		const unsigned nt = sp->ntargets, t = w->id % nt;

		/* open loop: latency from each record's time, service time beside */
		l->paced = 1;
		l->plain = 0;
		replay_cursor_init(l->rp, l->rc, (int)t, w->id / nt, (sp->workers - t + nt - 1) / nt, w->wl->region_off,
				   w->wl->region_len, w->target->sector, l->measure);
	}
	l->bound = batch_auto_init(l->au, sp, l->now, &autob);
	l->autob = autob;
	w->batch.bound = l->bound;
}

/* A stream's start_delay: wait from the phase's start until it is up (or
 * the phase stops: then -1, no I/O). */
static int start_delay(struct worker *w)
{
	const uint64_t until = w->sh->t_start_ns + w->spec->start_delay_ns;

	for (uint64_t now = clock_ns(); now < until; now = clock_ns()) {
		if (__atomic_load_n(&w->sh->stop, __ATOMIC_RELAXED))
			return -1;
		clock_wait_until(now + (until - now < STOP_POLL_NS ? until - now : STOP_POLL_NS));
	}
	return 0;
}

/* One worker thread: set-up, the start barrier, the loop, tear-down. */
void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct phase_shared *sh = w->sh;
	struct io_slot *freeq[PHASE_MAX_QD], *done[PHASE_MAX_QD];
	uint64_t ready_at[PHASE_MAX_QD];
	uint32_t since[PHASE_MAX_QD];
	struct io_slot *syncq[PHASE_MAX_QD];
	struct wl_state st;
	struct pace_state ps;
	struct rng prng;
	struct batch_auto au;
	struct replay_cursor rc;
	struct loop l;
	uint64_t cpu0, wait0;

	if (worker_ready(w) == 0 && (!w->spec->start_delay_ns || start_delay(w) == 0)) {
		l.freeq = freeq;
		l.done = done;
		l.ready_at = ready_at;
		l.since = since;
		l.syncq = syncq;
		l.st = &st;
		l.ps = &ps;
		l.prng = &prng;
		l.au = &au;
		l.rc = &rc;
		loop_init(&l, w);
		cpu0 = thread_cpu_ns();
		wait0 = thread_wait_ns();
		run(&l);
		if (sh->spec->end_first) /* the first to end ends the phase (fio's exitall) */
			__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
		if (l.now > l.if_start) {
			const double wall = (double)(clock_ns() - l.if_start);

			w->c.cpu_busiest = (double)(thread_cpu_ns() - cpu0) / wall;
			w->c.cpu_waited = (double)(thread_wait_ns() - wait0) / wall;
		}
		data_finish(&w->data, &w->c.data); /* after: its record's compression is no part of the loop's CPU */
		if (l.rp)
			replay_end(&l);
	}
	if (w->engine.priv)
		w->spec->engine->exit(&w->engine);
	worker_verify_finish(w);
	pthread_mutex_lock(&sh->lock);
	sh->finished++;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	return NULL;
}
