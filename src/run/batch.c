/* batch.c - batch = "auto": the search for the bound on one submission
 * (see batch.h), and the merge of the submission and reap sizes that
 * workers count. Nothing here runs per I/O: the worker calls
 * batch_auto_step when an epoch may have ended.
 */
#include "run/batch.h"
#include "run/phase.h"

#include <string.h>

static void sizes_merge(struct batch_sizes *to, const struct batch_sizes *from)
{
	to->ios += from->ios;
	if (from->max > to->max)
		to->max = from->max;
	for (unsigned i = 0; i < BATCH_HIST; i++)
		to->hist[i] += from->hist[i];
}

void batch_stats_merge(struct batch_stats *to, const struct batch_stats *from)
{
	sizes_merge(&to->submit, &from->submit);
	sizes_merge(&to->reap, &from->reap);
	if (from->bound > to->bound)
		to->bound = from->bound;
}

/* The neighbours of bound b under a queue of qd: about twice and half of
 * it, never 2 where 3 or more are allowed (batch.h: groups of 2 are not
 * plugged). */
static unsigned bigger(unsigned b, unsigned qd)
{
	unsigned n = b * 2 < qd ? b * 2 : qd;

	return n == 2 && qd > 2 ? (qd < 4 ? qd : 4) : n;
}

static unsigned smaller(unsigned b, unsigned qd)
{
	unsigned n = b / 2;

	return n == 2 && qd > 2 ? 1 : n;
}

/* Begin a trial of a neighbour of the bound, if one would change anything
 * (the other one too when `turn`), else hold the bound for another
 * AUTO_SETTLE_NS. */
static void auto_try(struct batch_auto *a, unsigned qd, uint64_t now, uint64_t cpu, int turn)
{
	const int up_ok = a->ready_max > a->cur && a->cur < qd;
	const int down_ok = a->cur > 1 && a->ready_max > smaller(a->cur, qd);

	if (turn && (a->down ? !down_ok && up_ok : !up_ok))
		a->down = !a->down;
	if (a->down ? !down_ok : !up_ok) {
		a->cand = 0; /* hold, and look again at what is ready */
		a->ready_max = 0;
		a->check_at = now + AUTO_SETTLE_NS;
		return;
	}
	a->cand = a->down ? smaller(a->cur, qd) : bigger(a->cur, qd);
	a->epoch = 0;
	a->epoch_start = now;
	a->epoch_ios = 0;
	a->epoch_cpu = cpu;
	a->check_at = now + AUTO_EPOCH_NS;
}

/* The median of AUTO_PAIRS ratios. */
static double median(const double *x)
{
	double r[AUTO_PAIRS];

	for (unsigned i = 0; i < AUTO_PAIRS; i++) { /* insertion sort of 4 */
		unsigned j = i;

		for (; j > 0 && r[j - 1] > x[i]; j--)
			r[j] = r[j - 1];
		r[j] = x[i];
	}
	return (r[(AUTO_PAIRS - 1) / 2] + r[AUTO_PAIRS / 2]) / 2;
}

/* Does the neighbour on trial win (batch.h)? The pairs' median ratios of
 * rate and of CPU per I/O decide; a pair whose epochs were hit by other
 * load is outvoted. */
static int auto_won(const struct batch_auto *a)
{
	const double rate = median(a->ratio), cpu = median(a->cpu_ratio);
	const int faster = rate > 1 + AUTO_FAST_PCT / 100.0, as_fast = rate >= 1 - AUTO_TOL_PCT / 100.0;

	if (faster)
		return 1;
	if (!as_fast)
		return 0;
	return cpu < 1 - AUTO_CPU_PCT / 100.0 || (!a->down && cpu <= 1 + AUTO_CPU_PCT / 100.0);
}

/* The end of a trial: keep the winner, and go on in the direction that
 * won (or turn once after a larger bound lost). */
static void auto_decide(struct batch_auto *a, unsigned qd, uint64_t now, uint64_t cpu)
{
	const int won = auto_won(a);

	if (won)
		a->cur = a->cand;
	else
		a->down = !a->down;
	if (won || a->down) {
		auto_try(a, qd, now, cpu, won); /* after a loss, only the other way */
	} else {
		a->cand = 0; /* both neighbours lost: hold */
		a->ready_max = 0;
		a->check_at = now + AUTO_SETTLE_NS;
	}
}

/* Called when the clock passes check_at: end an epoch of a trial or start
 * the next trial. Returns the bound for the submissions that follow (the
 * neighbour in a trial's odd epochs). */
unsigned batch_auto_step(struct batch_auto *a, unsigned qd, uint64_t now, uint64_t cpu)
{
	if (!a->cand) {
		auto_try(a, qd, now, cpu, 1);
	} else if (a->epoch_ios < AUTO_EPOCH_IOS) {
		a->check_at = now + AUTO_EPOCH_NS / 10;
	} else {
		const double rate = (double)a->epoch_ios / (double)(now - a->epoch_start + 1);
		const double per_io = (double)(cpu - a->epoch_cpu) / (double)a->epoch_ios;

		if (a->epoch & 1) {
			a->ratio[a->epoch / 2] = rate / (a->cur_rate > 0 ? a->cur_rate : 1e-12);
			a->cpu_ratio[a->epoch / 2] = a->cur_cpu > 0 ? per_io / a->cur_cpu : 1; /* unmeasured: a tie */
		} else {
			a->cur_rate = rate;
			a->cur_cpu = per_io;
		}
		a->epoch_start = now;
		a->epoch_ios = 0;
		a->epoch_cpu = cpu;
		a->check_at = now + AUTO_EPOCH_NS;
		if (++a->epoch == 2 * AUTO_PAIRS)
			auto_decide(a, qd, now, cpu);
	}
	return a->cand && (a->epoch & 1) ? a->cand : a->cur;
}

/* The bound on one submission to start with. Auto searches (*search) only
 * where it can matter: an engine that submits by system call, qd > 1;
 * elsewhere it is the whole queue. */
unsigned batch_auto_init(struct batch_auto *a, const struct phase_spec *sp, uint64_t now, int *search)
{
	unsigned bound = sp->batch;

	*search = sp->batch == BATCH_AUTO && sp->engine->submit && sp->qd > 1;
	if (sp->batch == BATCH_AUTO)
		bound = *search ? (AUTO_START < sp->qd ? AUTO_START : sp->qd) : sp->qd;
	memset(a, 0, sizeof(*a));
	a->cur = bound;
	a->check_at = now + AUTO_EPOCH_NS; /* the first trial, after one epoch */
	return bound;
}

