/* replay.h - a trace played back by a phase's workers (phase.replay).
 *
 * Every record of the trace (trace.h) is issued at its recorded time,
 * divided by the speed, after the measurement starts (open loop: latency
 * counts from that time, service time beside it), with its op, length and
 * offset (mapped into the phase's region as `offsets` says). The records of
 * a device go to the target the device maps to; the workers of a target
 * take its records in turn (record k of the target to worker k mod m), so
 * each keeps the trace's order among its own. With no_stall the times are
 * ignored and each worker issues its records in order as fast as its qd
 * allows. How faithful the replay was is measured per I/O: its lag, the
 * time from its recorded (scaled) time to its submission.
 *
 * replay_prepare (phase_check.c) scans the trace once for what the checks
 * need (sizes, ops, whether every record fits); the worker's cursor and
 * replay_next do the rest without a lock, a branch on the format or an
 * allocation.
 */
#ifndef IOMOON_REPLAY_H
#define IOMOON_REPLAY_H

#include <stdint.h>

#include "core/hist.h"
#include "run/workload.h"
#include "trace/trace.h"

/* An I/O submitted more than this after its time is late (result.replay). */
#define REPLAY_LATE_NS 100000ull

enum replay_offsets {
	REPLAY_EXACT, /* as recorded: every record must fit in the region */
	REPLAY_WRAP,  /* modulo the region's size */
	REPLAY_SCALE, /* the device's extent scaled onto the region */
};

#define REPLAY_EVERY (-2) /* target_of: the one device goes to every target */
#define REPLAY_NONE (-1)  /* target_of: the device is not replayed */
#define REPLAY_UNMAPPED (-3) /* target_of, while phase.replay.devices is read: not named yet */

struct replay {
	const struct trace *tr;
	double speed;          /* 2: twice as fast as recorded */
	double inv_speed;      /* 1 / speed */
	int no_stall;
	enum replay_offsets offsets;
	uint64_t loops;        /* passes through the trace; 0: until the phase ends it */
	int16_t target_of[TRACE_MAX_DEVS]; /* a target index, REPLAY_EVERY or REPLAY_NONE */
	int mapped;            /* phase.replay.devices was given */
	/* set by replay_prepare */
	uint64_t pass_ns;      /* one pass, scaled: the next starts this much later */
	uint64_t nrec[TRACE_MAX_DEVS]; /* records of each device */
	uint64_t ops[OP_NTYPES];       /* records of each op, of the devices replayed */
	uint64_t sequential;   /* records that start where the device's last one ended */
	uint32_t min_len, max_len;
};

/* A worker's place in the replay. */
struct replay_cursor {
	const struct trace_io *io;
	uint64_t i, n;         /* the next record, and the trace's records */
	uint64_t pass;         /* passes done */
	uint64_t seen;         /* records of its target seen in this pass */
	uint64_t mine;         /* records of its target in a pass */
	uint64_t per_pass;     /* of them, its own (its share) */
	unsigned share, nshare; /* it takes record k of its target when k % nshare == share */
	int target;
	uint64_t region_off, region_len, align;
	uint64_t base_ns;      /* when the first pass starts (the measurement's start) */
	uint64_t ios, late;    /* records issued; of them, late */
};

struct phase_spec;

/* Check rp against the phase's targets and region: the device map, every
 * record's length (above 0 unless a sync, at most max_bs, whole sectors
 * under direct I/O) and, with offsets "exact", its place in the region;
 * fill the counts above. Describe the trace's ops and sizes as workload
 * wl (one access spec: its read and trim shares, its sizes, its random
 * share) so that the checks of writes, trims, syncs and buffers hold for
 * the replay. RC_OK, or RC_INPUT with why starting with `field`. */
int replay_prepare(struct replay *rp, const struct phase_spec *sp, struct workload *wl, uint64_t max_bs,
		   const char *field, char *why, size_t why_len);

/* Worker k (of m on target t) sets its cursor up, the measurement
 * starting at base_ns (a worker the trace gives nothing: c->n 0). */
void replay_cursor_init(const struct replay *rp, struct replay_cursor *c, int t, unsigned k, unsigned m,
			uint64_t region_off, uint64_t region_len, uint64_t align, uint64_t base_ns);

/* The records cursor c issues to the replay's end, every pass
 * (UINT64_MAX at most); 0 when it loops until the phase ends. */
uint64_t replay_planned(const struct replay *rp, const struct replay_cursor *c);

/* Of the records cursor c has still to issue, how many are due before
 * until_ns (their time earlier); c moves past them. The passes wholly due
 * are counted, not walked, so a short trace looped through a long phase
 * costs no more than two passes. Not for no_stall (no record has a time). */
uint64_t replay_due_left(const struct replay *rp, struct replay_cursor *c, uint64_t until_ns);

/* A recorded time scaled by the speed, at most REPLAY_NEVER_NS (a tiny
 * speed must not overflow: such a record is due in centuries, not now). */
#define REPLAY_NEVER_NS 4000000000000000000ull
static inline uint64_t replay_scaled(const struct replay *rp, uint64_t t_ns)
{
	double x = (double)t_ns * rp->inv_speed;

	return x < (double)REPLAY_NEVER_NS ? (uint64_t)x : REPLAY_NEVER_NS;
}

/* The offset in the target of record r for cursor c. */
static inline uint64_t replay_offset(const struct replay *rp, const struct replay_cursor *c,
				     const struct trace_io *r)
{
	uint64_t o = r->offset, room;

	if (rp->offsets == REPLAY_EXACT || r->op == OP_SYNC)
		return c->region_off + o;
	room = c->region_len - r->len; /* replay_prepare: every len fits */
	if (rp->offsets == REPLAY_WRAP)
		o %= c->region_len;
	else
		o = (uint64_t)((unsigned __int128)o * c->region_len / (rp->tr->dev_end[r->dev] ? rp->tr->dev_end[r->dev] : 1));
	if (o > room)
		o = room;
	return c->region_off + o - o % c->align;
}

/* The next record cursor c issues: its op in *op and its time in *at_ns.
 * 0 when the replay is over for c. */
static inline int replay_next(const struct replay *rp, struct replay_cursor *c, struct wl_op *op, uint64_t *at_ns)
{
	if (!c->n)
		return 0; /* nothing of the trace is this worker's */
	for (;;) {
		const struct trace_io *r;
		int16_t to;

		if (c->i == c->n) {
			if (rp->loops && ++c->pass >= rp->loops)
				return 0;
			if (!rp->loops)
				c->pass++;
			c->i = 0;
			c->seen = 0;
		}
		r = &c->io[c->i++];
		to = rp->target_of[r->dev];
		if ((to != c->target && to != REPLAY_EVERY) || c->seen++ % c->nshare != c->share)
			continue;
		op->op = r->op;
		op->len = r->len;
		op->spec = 0;
		op->offset = replay_offset(rp, c, r);
		*at_ns = c->base_ns + c->pass * rp->pass_ns + replay_scaled(rp, r->t_ns);
		return 1;
	}
}

/* How faithfully a replay (phase.replay, replay.h) kept the trace's
 * times: the lag of every record issued (its submission after its
 * recorded, scaled time), how many were late (over REPLAY_LATE_NS), the
 * first and the last submission (ns since measurement began); and what
 * was never issued: missed, the records due (their time before the
 * replay ended for their worker) that were not issued; planned, the
 * records the replay would issue to its end, every pass (meaningful
 * only when no worker loops endlessly: endless counts those that do). */
struct replay_stats {
	struct hist lag;
	uint64_t ios, late;
	uint64_t first_ns, last_ns;
	uint64_t missed, planned, endless;
};

/* to += from, exactly (the first and last submissions: the earliest and
 * the latest of both). */
void replay_stats_merge(struct replay_stats *to, const struct replay_stats *from);

#endif
