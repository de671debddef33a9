/* test_batch.c - batch = "auto" (batch.c) against simulated devices: a
 * completion rate per bound and a CPU cost per I/O per bound, turns of
 * 100 us on a clock of the test's own, driven as worker.c drives the
 * search. */
#include <math.h>

#include "io/engine.h"
#include "run/batch.h"
#include "run/phase.h"
#include "tap.h"

static int no_submit(struct engine *e)
{
	(void)e;
	return 0;
}

static const struct engine_ops ops = { .name = "test", .submit = no_submit };

/* The largest and smallest bounds search() used in its last run, and
 * whether it ever used 2. */
static unsigned max_bound, min_bound;
static int used_two;

/* A device: I/Os per second under bound b, at time t (s). */
typedef double (*device)(unsigned b, double t);

/* The worker's CPU per I/O (ns) under bound b: by default a system call
 * of 2000 ns shared by the bound's I/Os, and 1000 ns of each I/O's own. */
static double syscalls(unsigned b)
{
	return 1000 + 2000.0 / b;
}

static double (*cpu_of)(unsigned b) = syscalls;

/* Every bound costs the same CPU per I/O. */
static double same_cpu(unsigned b)
{
	(void)b;
	return 2000;
}

/* Run the search for secs on `dev`, qd slots, `ready` I/Os ready in each
 * turn; the bound that holds at the end (and in *trials, how many trials
 * decided). */
static unsigned search(device dev, unsigned qd, unsigned ready, double secs, unsigned *trials)
{
	struct phase_spec sp = { .qd = qd, .batch = BATCH_AUTO, .engine = &ops };
	struct batch_auto a;
	uint64_t now = 1000000000ull, end = now + (uint64_t)(secs * 1e9);
	unsigned bound, last_cur;
	double owed = 0, cpu = 0;
	int on;

	bound = batch_auto_init(&a, &sp, now, &on);
	max_bound = min_bound = bound;
	used_two = bound == 2;
	last_cur = a.cur;
	*trials = 0;
	while (on && now < end) {
		now += 100000;
		if (ready > a.ready_max)
			a.ready_max = ready;
		owed += dev(bound, (double)(now - 1000000000ull) / 1e9) * 1e-4;
		a.epoch_ios += (uint64_t)owed;
		cpu += floor(owed) * cpu_of(bound);
		owed -= floor(owed);
		if (now >= a.check_at) {
			unsigned epoch = a.epoch, cand = a.cand;

			bound = batch_auto_step(&a, qd, now, (uint64_t)cpu);
			*trials += cand && epoch == 2 * AUTO_PAIRS - 1;
			max_bound = bound > max_bound ? bound : max_bound;
			min_bound = bound < min_bound ? bound : min_bound;
			used_two |= bound == 2;
		}
		last_cur = a.cur;
	}
	return last_cur;
}

static double flat(unsigned b, double t)
{
	(void)b;
	(void)t;
	return 100000;
}

/* A group of more than 8 completes as a convoy: 10 % less at 16, 20 % at 32. */
static double convoy(unsigned b, double t)
{
	(void)t;
	return b <= 8 ? 100000 : b == 16 ? 90000 : 80000;
}

/* Every doubling of the bound costs 5 %. */
static double small(unsigned b, double t)
{
	(void)t;
	return 100000 * (1 - 0.05 * log2(b));
}

/* One I/O per submission is 3 % faster than any group (a device that
 * starts on the first I/O while the rest are still being submitted). */
static double head_start(unsigned b, double t)
{
	(void)t;
	return b == 1 ? 103000 : 100000;
}

/* The convoy device for 2 s, then the flat one. */
static double changes(unsigned b, double t)
{
	return t < 2 ? convoy(b, t) : flat(b, t);
}

/* Flat, but one epoch in three is hit by other load (a third of the rate)
 * whatever the bound: pairs outvoted by the median. */
static double noisy(unsigned b, double t)
{
	const long epoch = (long)(t * 100); /* 10 ms */

	return epoch % 3 == 0 ? convoy(b, t) / 3 : convoy(b, t);
}

int main(void)
{
	struct phase_spec fixed = { .qd = 32, .batch = 6, .engine = &ops };
	struct engine_ops nosub = { .name = "nosub" };
	struct phase_spec none = { .qd = 32, .batch = BATCH_AUTO, .engine = &nosub };
	struct batch_auto a;
	unsigned trials, b;
	int on;

	b = batch_auto_init(&a, &fixed, 0, &on);
	ok(b == 6 && !on, "batch = 6: the bound is 6, no search (%u, %d)", b, on);
	b = batch_auto_init(&a, &none, 0, &on);
	ok(b == 32 && !on, "auto on an engine without submit(): the whole queue, no search (%u, %d)", b, on);
	fixed.batch = BATCH_AUTO;
	fixed.qd = 1;
	b = batch_auto_init(&a, &fixed, 0, &on);
	ok(b == 1 && !on, "auto at qd 1: 1, no search (%u, %d)", b, on);
	fixed.qd = 2;
	b = batch_auto_init(&a, &fixed, 0, &on);
	ok(b == 2 && on, "auto at qd 2: starts at 2, searches (%u, %d)", b, on);

	b = search(flat, 32, 32, 3, &trials);
	ok(b == 32, "flat device, 32 ready: larger bounds cost nothing, auto climbs to the qd (%u after %u trials)", b,
	   trials);
	b = search(convoy, 32, 32, 3, &trials);
	ok(b == 8, "convoy above 8: auto settles at 8 (%u after %u trials)", b, trials);
	b = search(small, 32, 32, 3, &trials);
	ok(b == 1 && trials <= 6 && !used_two,
	   "each doubling costs 5 %%: auto goes from 4 to 1 (never 2: not plugged), then tries 4 once a second (%u after %u trials)",
	   b, trials);
	b = search(flat, 32, 3, 3, &trials);
	ok(b == 4 && max_bound == 4 && trials == 3 && !used_two,
	   "3 ready a turn: 8 would change nothing and is never tried; 1 is, once a second, and costs more CPU for no gain (%u, max %u, %u trials)",
	   b, max_bound, trials);
	b = search(head_start, 32, 32, 3, &trials);
	ok(b == 32 && min_bound == 4, "3 %% more IOPS at one I/O a call does not buy twice the CPU: 32, 1 never tried (%u, min %u)",
	   b, min_bound);
	cpu_of = same_cpu;
	b = search(head_start, 8, 8, 3, &trials);
	ok(b == 8, "CPU the same whatever the bound: a tie goes to the larger bound (%u after %u trials)", b, trials);
	b = search(small, 8, 8, 3, &trials);
	ok(b == 1, "same CPU, 5 %% faster per halving: 1 (%u after %u trials)", b, trials);
	cpu_of = syscalls;
	b = search(flat, 2, 2, 2, &trials);
	ok(b == 2 && min_bound == 1, "qd 2: 2 is the whole queue and holds; 1 is tried and costs more (%u, min %u)", b,
	   min_bound);
	b = search(flat, 3, 3, 2, &trials);
	ok(b == 3 && !used_two, "qd 3: starts at 3, never 2 (%u)", b);
	b = search(changes, 32, 32, 6, &trials);
	ok(b == 32, "a device that stops convoying after 2 s is followed: 32 by 6 s (%u after %u trials)", b, trials);
	b = search(noisy, 32, 32, 3, &trials);
	ok(b == 8, "convoy device with one epoch in three hit by other load: still 8 (%u after %u trials)", b, trials);
	b = search(convoy, 128, 128, 1.5, &trials);
	ok(b == 8, "qd 128, convoy above 8: 8 (%u after %u trials)", b, trials);
	return tap_done();
}
