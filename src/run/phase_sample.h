/* phase_sample.h - a phase's intervals, from snapshots of its workers'
 * counters (phase_sample.c): an interval's figures are the difference of
 * two snapshots, so intervals add up exactly to the phase. Used by the
 * phase's sampling thread (phase.c) only.
 */
#ifndef IOMOON_PHASE_SAMPLE_H
#define IOMOON_PHASE_SAMPLE_H

#include <stdint.h>

#include "core/hist.h"
#include "core/stats.h"
#include "run/worker.h"

struct snapshot {
	struct hist h[OP_NDATA];
	uint64_t bytes[OP_NDATA];
	int replays;            /* a worker replays a trace: lag holds their lags */
	struct hist lag;
};

/* Intervals of a set of workers, from snapshots of their counters: the
 * phase's (all workers), or a stream's (its own). */
struct sampler {
	struct worker *w;
	unsigned n;
	struct snapshot *prev, *cur;
	uint64_t prev_tick_ns;   /* the end of the last interval made */
	struct interval **list;  /* where its intervals go (*nlist of them, cap allocated) */
	unsigned *nlist, cap;
	struct hist *both;       /* in a cluster: the last interval's histograms, of all ops [0] and of its replay's lag [1] */
};

/* The counts of n running workers now, per op type: histograms and bytes
 * (and the replay's lag, when they replay). */
void snapshot_take(struct snapshot *s, struct worker *w, unsigned n);
/* dst += src's lag, when src replays (the phase's snapshot of its streams'). */
void snapshot_add_lag(struct snapshot *dst, const struct snapshot *src);
/* Start a sampler's first interval at t0 from zero counts. */
void sampler_begin(struct sampler *m, uint64_t t0);
/* The sampler's interval from its last tick to now (since measure_ns),
 * from its cur snapshot. */
void sampler_tick(struct sampler *m, struct hist *scratch, uint64_t measure_ns, uint64_t now);
/* The last, partial interval up to end (keep: see phase_sample.c);
 * returns whether it was kept. */
int sampler_last(struct sampler *m, struct hist *scratch, uint64_t measure_ns, uint64_t end, uint64_t interval_ns,
		 int keep);

#endif
