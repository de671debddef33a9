/* engine_null.c - completes every I/O at once without doing it.
 * What a phase measures on it is the cost of iomoon itself per I/O. */
#include "io/engine.h"

#include <stdlib.h>

struct null_priv {
	unsigned n;
	struct io_slot *done[];
};

static int null_init(struct engine *e, const struct engine_cfg *cfg, char *why, size_t why_len)
{
	struct null_priv *p = calloc(1, sizeof(*p) + cfg->qd * sizeof(p->done[0]));

	(void)why;
	(void)why_len;
	if (!p)
		return -1;
	e->priv = p;
	e->features = "";
	return 0;
}

static void null_queue(struct engine *e, struct io_slot *s)
{
	struct null_priv *p = e->priv;

	s->res = s->op.len;
	p->done[p->n++] = s;
}

static int null_reap(struct engine *e, unsigned min, uint64_t timeout_ns, struct io_slot **done, unsigned max)
{
	struct null_priv *p = e->priv;
	unsigned n = p->n < max ? p->n : max;

	(void)min;
	(void)timeout_ns;
	for (unsigned i = 0; i < n; i++)
		done[i] = p->done[i];
	for (unsigned i = n; i < p->n; i++)
		p->done[i - n] = p->done[i];
	p->n -= n;
	return (int)n;
}

static void null_exit(struct engine *e)
{
	free(e->priv);
	e->priv = NULL;
}

const struct engine_ops engine_null = {
	.name = "null",
	.trim_files = 1, /* nothing to discard: done at once */
	.trim_blocks = 1,
	.probe = engine_probe_always,
	.init = null_init,
	.queue = null_queue,
	.reap = null_reap,
	.exit = null_exit,
};
