/* engine_uring.c - io_uring through liburing.
 *
 * One ring per worker, sized to the queue depth. Queued I/Os become SQEs;
 * submit() pushes them (the worker calls it for each full group of its
 * bound on one submission, phase.batch), reap() submits what is left (the
 * last group, or all that was ready) and waits in one io_uring_enter(2)
 * (io_uring_submit_and_wait_timeout), then takes every ready CQE in a batch.
 * Where the kernel allows, the file and the slot buffers are registered
 * (fixed file, fixed buffers: no per-I/O fget or page pinning), so is the
 * ring's own descriptor (ring-fd: no fdget per io_uring_enter), and the ring
 * is single-issuer with cooperative task running. Each refusal falls back
 * to the plain form, and `features` says what is in use. A phase may ask
 * for SQPOLL, IOPOLL or DEFER_TASKRUN; those it gets or it fails with why.
 */
#include "io/engine.h"

#include <errno.h>
#include <linux/falloc.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

struct uring_priv {
	struct io_uring ring;
	int fd;
	int fixed_file, fixed_bufs;
	int ring_fd;         /* the ring's own fd registered: no fdget per enter */
	int defer;           /* DEFER_TASKRUN: completions need a GETEVENTS enter */
	int datasync;        /* OP_SYNC is fdatasync */
	unsigned qd;
	const void *shared;  /* cfg.shared: registered as buffer qd */
	size_t shared_len;
	struct io_uring_cqe **cqes;
	char features[64];
};

static int uring_probe(char *why, size_t why_len)
{
	struct io_uring ring;
	int r = io_uring_queue_init(2, &ring, 0);

	if (r < 0) {
		snprintf(why, why_len, "io_uring_setup: %s", strerror(-r));
		return -1;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

static void uring_exit(struct engine *e)
{
	struct uring_priv *p = e->priv;

	if (!p)
		return;
	if (p->ring.ring_fd > 0)
		io_uring_queue_exit(&p->ring);
	free(p->cqes);
	free(p);
	e->priv = NULL;
}

/* Append name to the comma-separated list in buf when on. */
static void add_feature(char *buf, size_t len, int on, const char *name)
{
	size_t n = strlen(buf);

	if (on)
		snprintf(buf + n, len - n, "%s%s", n ? "," : "", name);
}

static int uring_init(struct engine *e, const struct engine_cfg *cfg, char *why, size_t why_len)
{
	struct uring_priv *p = calloc(1, sizeof(*p));
	struct io_uring_params params;
	struct iovec *iov;
	int r;

	if (!p)
		return -1;
	e->priv = p;
	p->fd = cfg->fd;
	p->datasync = !!(cfg->flags & ENGINE_DATASYNC);
	p->qd = cfg->qd;
	p->ring.ring_fd = -1;
	p->cqes = calloc(cfg->qd, sizeof(*p->cqes));
	if (!p->cqes) {
		uring_exit(e);
		return -1;
	}
	memset(&params, 0, sizeof(params));
	params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
	if (cfg->flags & ENGINE_SQPOLL) {
		params.flags = IORING_SETUP_SQPOLL;
		params.sq_thread_idle = 100; /* ms before the poll thread sleeps */
	}
	if (cfg->flags & ENGINE_IOPOLL)
		params.flags |= IORING_SETUP_IOPOLL;
	if (cfg->flags & ENGINE_DEFER_TASKRUN)
		params.flags = (params.flags & ~IORING_SETUP_COOP_TASKRUN) | IORING_SETUP_DEFER_TASKRUN;
	r = io_uring_queue_init_params(cfg->qd, &p->ring, &params);
	if (r == -EINVAL && !cfg->flags) { /* an older kernel: the plain ring */
		memset(&params, 0, sizeof(params));
		r = io_uring_queue_init_params(cfg->qd, &p->ring, &params);
	}
	if (r < 0) {
		p->ring.ring_fd = -1;
		snprintf(why, why_len, "io_uring_setup(%u entries%s%s%s): %s", cfg->qd,
			 cfg->flags & ENGINE_SQPOLL ? ", sqpoll" : "", cfg->flags & ENGINE_IOPOLL ? ", iopoll" : "",
			 cfg->flags & ENGINE_DEFER_TASKRUN ? ", defer_taskrun" : "", strerror(-r));
		uring_exit(e);
		return -1;
	}
	p->defer = (params.flags & IORING_SETUP_DEFER_TASKRUN) != 0;
	p->ring_fd = io_uring_register_ring_fd(&p->ring) == 1;
	p->fixed_file = io_uring_register_files(&p->ring, &p->fd, 1) == 0;
	iov = calloc(cfg->qd + 1, sizeof(*iov));
	if (iov) {
		for (unsigned i = 0; i < cfg->qd; i++) {
			iov[i].iov_base = cfg->slots[i].buf;
			iov[i].iov_len = cfg->buf_len;
		}
		iov[cfg->qd] = (struct iovec){ .iov_base = cfg->shared, .iov_len = cfg->shared_len };
		p->shared = cfg->shared;
		p->shared_len = cfg->shared_len;
		p->fixed_bufs = io_uring_register_buffers(&p->ring, iov, cfg->qd + (cfg->shared != NULL)) == 0;
		free(iov);
	}
	p->features[0] = '\0';
	add_feature(p->features, sizeof(p->features), p->fixed_file, "fixed-file");
	add_feature(p->features, sizeof(p->features), p->fixed_bufs, "fixed-buffers");
	add_feature(p->features, sizeof(p->features), p->ring_fd, "ring-fd");
	add_feature(p->features, sizeof(p->features), params.flags & IORING_SETUP_SQPOLL, "sqpoll");
	add_feature(p->features, sizeof(p->features), params.flags & IORING_SETUP_IOPOLL, "iopoll");
	add_feature(p->features, sizeof(p->features), p->defer, "defer-taskrun");
	e->features = p->features;
	return 0;
}

static void uring_queue(struct engine *e, struct io_slot *s)
{
	struct uring_priv *p = e->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
	int fd = p->fixed_file ? 0 : p->fd;

	/* The ring has qd entries and at most qd slots are in flight. */
	if (s->op.op >= OP_TRIM) {
		if (s->op.op == OP_SYNC)
			io_uring_prep_fsync(sqe, fd, p->datasync ? IORING_FSYNC_DATASYNC : 0);
		else /* a file's range (block devices: the worker's BLKDISCARD) */
			io_uring_prep_fallocate(sqe, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, s->op.offset,
						s->op.len);
	} else if (p->fixed_bufs) {
		/* a write into the shared buffers (data.h's bands) names them */
		const int at = (uintptr_t)s->buf - (uintptr_t)p->shared < p->shared_len ? (int)p->qd : (int)s->index;

		if (s->op.op == OP_READ)
			io_uring_prep_read_fixed(sqe, fd, s->buf, s->op.len, s->op.offset, (int)s->index);
		else
			io_uring_prep_write_fixed(sqe, fd, s->buf, s->op.len, s->op.offset, at);
	} else if (s->op.op == OP_READ) {
		io_uring_prep_read(sqe, fd, s->buf, s->op.len, s->op.offset);
	} else {
		io_uring_prep_write(sqe, fd, s->buf, s->op.len, s->op.offset);
	}
	if (p->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	if (s->op.op < OP_TRIM)
		sqe->ioprio = s->op.prio; /* 0: the thread's priority */
	io_uring_sqe_set_data(sqe, s);
}

static int uring_submit(struct engine *e)
{
	struct uring_priv *p = e->priv;
	int r = io_uring_submit(&p->ring);

	return r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY ? r : 0;
}

static int uring_reap(struct engine *e, unsigned min, uint64_t timeout_ns, struct io_slot **done, unsigned max)
{
	struct uring_priv *p = e->priv;
	unsigned n;
	int r;

	if (min) {
		struct __kernel_timespec ts, *tsp = NULL;
		struct io_uring_cqe *cqe;

		if (timeout_ns != UINT64_MAX) {
			ts.tv_sec = (long long)(timeout_ns / 1000000000ull);
			ts.tv_nsec = (long long)(timeout_ns % 1000000000ull);
			tsp = &ts;
		}
		r = io_uring_submit_and_wait_timeout(&p->ring, &cqe, min, tsp, NULL);
		if (r < 0 && r != -ETIME && r != -EINTR && r != -EAGAIN && r != -EBUSY)
			return r;
	} else {
		if (io_uring_sq_ready(&p->ring)) {
			r = io_uring_submit(&p->ring);
			if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
				return r;
		}
		if (p->defer) /* deferred completion work runs only in an enter */
			io_uring_get_events(&p->ring);
	}
	if (max > p->qd)
		max = p->qd;
	n = io_uring_peek_batch_cqe(&p->ring, p->cqes, max);
	for (unsigned i = 0; i < n; i++) {
		struct io_slot *s = io_uring_cqe_get_data(p->cqes[i]);

		s->res = p->cqes[i]->res;
		if (s->op.op == OP_TRIM && s->res == 0)
			s->res = s->op.len; /* fallocate says 0 */
		done[i] = s;
	}
	io_uring_cq_advance(&p->ring, n);
	return (int)n;
}

const struct engine_ops engine_uring = {
	.name = "io_uring",
	.trim_files = 1,
	.probe = uring_probe,
	.init = uring_init,
	.queue = uring_queue,
	.submit = uring_submit,
	.reap = uring_reap,
	.exit = uring_exit,
};
