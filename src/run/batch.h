/* batch.h - how queued I/Os go to the kernel: the bound on one submission
 * that batch = "auto" searches for (batch.c), and the sizes of submissions
 * and reaps that a result reports (struct batch_stats).
 */
#ifndef IOMOON_BATCH_H
#define IOMOON_BATCH_H

#include <stdint.h>

#include "core/stats.h"

struct phase_spec;

/* phase.batch = "auto" (the default): the worker finds the bound on one
 * submission from what the device does (batch.c, doc/performance.md). */
#define BATCH_AUTO 0

/* Submissions and reaps by size: hist[k] counts those of 2^k to
 * 2^(k+1) - 1 I/Os (hist[0]: 1 I/O; hist[1]: 2-3; hist[2]: 4-7; ...;
 * hist[12]: PHASE_MAX_QD). */
#define BATCH_HIST 13
struct batch_sizes {
	uint64_t ios;          /* the I/Os in them (how many: the sum of hist) */
	uint64_t max;
	uint64_t hist[BATCH_HIST];
};

/* How a phase's I/Os went to the kernel and came back, over the measured
 * time: every hand-over of queued I/Os (a submit, or the reap that carries
 * them), every reap that returned completions, and the bound on one
 * submission that held at the end (under auto: where it settled; the
 * largest over the workers). */
struct batch_stats {
	struct batch_sizes submit, reap;
	unsigned bound;
};

/* batch = "auto": the bound on one submission is a small experiment run by
 * the worker. Starting at AUTO_START, a trial alternates epochs (at least
 * AUTO_EPOCH_NS and AUTO_EPOCH_IOS completions each) under the bound that
 * holds and under a neighbour (twice or half of it), AUTO_PAIRS of each,
 * and compares the completion rates of each pair of epochs; the median of
 * the pairs' ratios decides. A larger bound (fewer system calls, less CPU)
 * wins unless it loses more than AUTO_TOL_PCT of the rate; a smaller one
 * only if it gains more. A neighbour is tried only where it
 * would change something: twice the bound when a turn had more ready I/Os
 * than the bound, half of it when a turn had more than half. Once neither
 * wins, the bound holds for AUTO_SETTLE_NS before the next trial, so a
 * device that changes is followed. Nothing is ever held back to fill a
 * batch: the bound only splits what is ready into several submissions. */
#define AUTO_START 4u
#define AUTO_EPOCH_NS 10000000ull
#define AUTO_EPOCH_IOS 64u
#define AUTO_PAIRS 4u
#define AUTO_TOL_PCT 2u
#define AUTO_SETTLE_NS 1000000000ull

struct batch_auto {
	unsigned cur;         /* the bound that holds */
	unsigned cand;        /* the neighbour on trial; 0: none */
	unsigned epoch;       /* of the trial: even under cur, odd under cand */
	int down;             /* the trial in progress or next is of cur / 2 */
	unsigned ready_max;   /* most I/Os ready in one turn, since the last hold */
	uint64_t check_at;    /* when the next epoch may end, or the next trial start */
	uint64_t epoch_start, epoch_ios;
	double cur_rate;        /* completions per ns in this pair's epoch under cur */
	double ratio[AUTO_PAIRS]; /* per pair: the rate under cand / under cur */
};

/* Count one hand-over (or reap) of n >= 1 I/Os: the worker's hot loop. */
static inline void sizes_add(struct batch_sizes *b, unsigned n)
{
	b->ios += n;
	b->hist[31 - __builtin_clz(n)]++; /* n >= 1 */
	if (n > b->max)
		b->max = n;
}

/* Add one worker's sizes and bound to a phase's. */
void batch_stats_merge(struct batch_stats *to, const struct batch_stats *from);
/* The bound on one submission to start with; *search: auto searches. */
unsigned batch_auto_init(struct batch_auto *a, const struct phase_spec *sp, uint64_t now, int *search);
/* Called when the clock passes a->check_at: end an epoch of a trial or
 * start the next trial. Returns the bound for the submissions that follow. */
unsigned batch_auto_step(struct batch_auto *a, unsigned qd, uint64_t now);

#endif
