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
 * holds and under a neighbour (about twice or half of it), AUTO_PAIRS of
 * each, and compares each pair of epochs twice: the completion rates, and
 * the worker thread's CPU time per completion. The medians of the pairs'
 * ratios decide. A neighbour wins when it is faster by more than
 * AUTO_FAST_PCT, or when it loses at most AUTO_TOL_PCT of the rate and
 * costs at least AUTO_CPU_PCT less CPU per I/O; a larger one also wins a
 * tie (as fast, no dearer): it makes fewer system calls. So a bound that
 * buys a percent or two of rate with a fifth more CPU does not win.
 *
 * A bound of 2 is never tried when the queue allows 3 or more: the kernel
 * plugs a submission only when it carries more than 2 I/Os (io_uring's
 * io_submit_state_start, aio's AIO_PLUG_THRESHOLD), so groups of 2 pay a
 * system call per 2 I/Os and still one dispatch (and one device
 * notification) per I/O: the cost of 1 with less of its speed. The
 * neighbours of 4 are 1 and 8.
 *
 * A neighbour is tried only where it would change something: a larger one
 * when a turn had more ready I/Os than the bound, a smaller one when a
 * turn had more than it. Once neither wins, the bound holds for
 * AUTO_SETTLE_NS before the next trial, so a device that changes is
 * followed. Nothing is ever held back to fill a batch: the bound only
 * splits what is ready into several submissions. */
#define AUTO_START 4u
#define AUTO_EPOCH_NS 10000000ull
#define AUTO_EPOCH_IOS 64u
#define AUTO_PAIRS 4u
#define AUTO_TOL_PCT 2u
#define AUTO_FAST_PCT 5u
#define AUTO_CPU_PCT 5u
#define AUTO_SETTLE_NS 1000000000ull

struct batch_auto {
	unsigned cur;         /* the bound that holds */
	unsigned cand;        /* the neighbour on trial; 0: none */
	unsigned epoch;       /* of the trial: even under cur, odd under cand */
	int down;             /* the trial in progress or next is of a smaller bound */
	unsigned ready_max;   /* most I/Os ready in one turn, since the last hold */
	uint64_t check_at;    /* when the next epoch may end, or the next trial start */
	uint64_t epoch_start, epoch_ios, epoch_cpu;
	double cur_rate;        /* completions per ns in this pair's epoch under cur */
	double cur_cpu;         /* thread CPU ns per completion in that epoch */
	double ratio[AUTO_PAIRS]; /* per pair: the rate under cand / under cur */
	double cpu_ratio[AUTO_PAIRS]; /* per pair: CPU per I/O under cand / under cur */
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
/* Called when the clock passes a->check_at, with the worker thread's CPU
 * time (thread_cpu_ns()): end an epoch of a trial or start the next
 * trial. Returns the bound for the submissions that follow. */
unsigned batch_auto_step(struct batch_auto *a, unsigned qd, uint64_t now, uint64_t cpu_ns);

#endif
