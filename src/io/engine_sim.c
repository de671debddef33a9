/* engine_sim.c - a simulated device: every I/O completes a fixed service
 * time (phase field sim_latency) after it was queued, and no data moves.
 *
 * With qd slots and latency L its capacity is exactly qd / L I/Os per
 * second per worker: a device with a known knee, to test plans, searches
 * and pacing without depending on the disk underneath. Completions are in
 * queue order (one latency for all); waiting sleeps to the due time or the
 * caller's timeout, whichever is first, and spins only the last 75 us.
 *
 * Stopping: a reap that wants completions but gives no time to wait for
 * them (min > 0, timeout 0) is a worker draining a phase that has ended or
 * was stopped, when nothing completing counts; the simulated device then
 * drops everything in flight at once, rather than having the worker poll
 * for up to a whole service time (a real device cannot be told to). */
#include "io/engine.h"

#include <stdlib.h>

#include "core/clock.h"

struct sim_priv {
	uint64_t latency_ns;
	unsigned qd, head, n;      /* a ring of in-flight slots in queue order */
	struct io_slot **ring;
	uint64_t *due;
};

static void sim_exit(struct engine *e)
{
	struct sim_priv *p = e->priv;

	if (p) {
		free(p->ring);
		free(p->due);
		free(p);
	}
	e->priv = NULL;
}

static int sim_init(struct engine *e, const struct engine_cfg *cfg, char *why, size_t why_len)
{
	struct sim_priv *p = calloc(1, sizeof(*p));

	(void)why;
	(void)why_len;
	if (!p)
		return -1;
	e->priv = p;
	e->features = "";
	p->latency_ns = cfg->sim_latency_ns;
	p->qd = cfg->qd;
	p->ring = calloc(cfg->qd, sizeof(*p->ring));
	p->due = calloc(cfg->qd, sizeof(*p->due));
	if (!p->ring || !p->due) {
		sim_exit(e);
		return -1;
	}
	return 0;
}

static void sim_queue(struct engine *e, struct io_slot *s)
{
	struct sim_priv *p = e->priv;
	unsigned i = (p->head + p->n++) % p->qd;

	s->res = s->op.len;
	p->ring[i] = s;
	p->due[i] = clock_ns() + p->latency_ns;
}

/* Nothing to push: service started in queue(), so the device's capacity is
 * qd / sim_latency whatever the submissions. It exists so that batch =
 * "auto" runs its search here as on a device (worker.c), which tests use:
 * every bound completes alike on sim. */
static int sim_submit(struct engine *e)
{
	(void)e;
	return 0;
}

/* Move up to max in-flight I/Os due by `by` (in queue order) into done. */
static unsigned sim_take(struct sim_priv *p, uint64_t by, struct io_slot **done, unsigned max)
{
	unsigned n = 0;

	while (p->n && n < max && p->due[p->head] <= by) {
		done[n++] = p->ring[p->head];
		p->head = (p->head + 1) % p->qd;
		p->n--;
	}
	return n;
}

static int sim_reap(struct engine *e, unsigned min, uint64_t timeout_ns, struct io_slot **done, unsigned max)
{
	struct sim_priv *p = e->priv;
	uint64_t now = clock_ns();

	if (min && !timeout_ns)
		return (int)sim_take(p, UINT64_MAX, done, max); /* draining: drop them (see the top) */
	if (min && p->n && p->due[p->head] > now) {
		uint64_t until = p->due[p->head];

		if (timeout_ns != UINT64_MAX && now + timeout_ns < until)
			until = now + timeout_ns;
		now = clock_wait_until(until);
	}
	return (int)sim_take(p, now, done, max);
}

const struct engine_ops engine_sim = {
	.name = "sim",
	.trim_files = 1, /* nothing to discard: done at once */
	.trim_blocks = 1,
	.probe = engine_probe_always,
	.init = sim_init,
	.queue = sim_queue,
	.submit = sim_submit,
	.reap = sim_reap,
	.exit = sim_exit,
};
