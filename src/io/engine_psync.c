/* engine_psync.c - pread(2) and pwrite(2), one I/O at a time per worker.
 * The I/O is done in reap(), so the worker's clock brackets exactly one
 * system call. Concurrency with psync comes from workers, not queue depth. */
#include "io/discard.h"
#include "io/engine.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

struct psync_priv {
	int fd;
	struct io_slot *pending;
	int datasync, discard;
};

static int psync_init(struct engine *e, const struct engine_cfg *cfg, char *why, size_t why_len)
{
	struct psync_priv *p = calloc(1, sizeof(*p));

	(void)why;
	(void)why_len;
	if (!p)
		return -1;
	p->fd = cfg->fd;
	p->datasync = !!(cfg->flags & ENGINE_DATASYNC);
	p->discard = cfg->discard;
	e->priv = p;
	e->features = "";
	return 0;
}

static void psync_queue(struct engine *e, struct io_slot *s)
{
	struct psync_priv *p = e->priv;

	p->pending = s;
}

/* A sync (fsync or fdatasync) or a trim, by its system call: 0 or the
 * trim's length, or -errno. */
static int64_t other_op(const struct psync_priv *p, const struct io_slot *s)
{
	int r;

	if (s->op.op == OP_TRIM)
		return (r = discard_range(p->fd, p->discard, s->op.offset, s->op.len)) < 0 ? r : (int64_t)s->op.len;
	do
		r = p->datasync ? fdatasync(p->fd) : fsync(p->fd);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

static int psync_reap(struct engine *e, unsigned min, uint64_t timeout_ns, struct io_slot **done, unsigned max)
{
	struct psync_priv *p = e->priv;
	struct io_slot *s = p->pending;
	ssize_t r;

	(void)min;
	(void)timeout_ns;
	if (!s || !max)
		return 0;
	p->pending = NULL;
	if (s->op.op >= OP_TRIM) {
		s->res = other_op(p, s);
		done[0] = s;
		return 1;
	}
	do {
		if (s->op.op == OP_READ)
			r = pread(p->fd, s->buf, s->op.len, (off_t)s->op.offset);
		else
			r = pwrite(p->fd, s->buf, s->op.len, (off_t)s->op.offset);
	} while (r < 0 && errno == EINTR);
	s->res = r < 0 ? -errno : r;
	done[0] = s;
	return 1;
}

static void psync_exit(struct engine *e)
{
	free(e->priv);
	e->priv = NULL;
}

const struct engine_ops engine_psync = {
	.name = "psync",
	.sync = 1,
	.trim_files = 1,
	.trim_blocks = 1,
	.probe = engine_probe_always,
	.init = psync_init,
	.queue = psync_queue,
	.reap = psync_reap,
	.exit = psync_exit,
};
