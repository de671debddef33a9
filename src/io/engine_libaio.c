/* engine_libaio.c - Linux native AIO through libaio: io_submit(2) of the
 * whole queued batch, io_getevents(2) for completions. Needs O_DIRECT to be
 * truly asynchronous; buffered I/O works but blocks in io_submit. */
#include "io/engine.h"

#include <errno.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO (1 << 1) /* linux/aio_abi.h: aio_reqprio holds the I/O's priority */
#endif

/* io_submit's -EAGAIN with nothing in flight is retried this many times,
 * 1 ms apart, before it is the I/O's error: bounded, never a spin. */
#define AIO_EAGAIN_TRIES 100

struct aio_priv {
	io_context_t ctx;
	int fd;
	int datasync;           /* OP_SYNC is fdatasync */
	unsigned qd, npending;
	unsigned inflight;      /* submitted, not yet reaped */
	struct iocb *iocbs;     /* one per slot */
	struct iocb **pending;
	struct io_event *events;
};

static int aio_probe(char *why, size_t why_len)
{
	io_context_t ctx = 0;
	int r = io_setup(1, &ctx);

	if (r < 0) {
		snprintf(why, why_len, "io_setup: %s", strerror(-r));
		return -1;
	}
	io_destroy(ctx);
	return 0;
}

static void aio_exit(struct engine *e)
{
	struct aio_priv *p = e->priv;

	if (!p)
		return;
	if (p->ctx)
		io_destroy(p->ctx);
	free(p->iocbs);
	free(p->pending);
	free(p->events);
	free(p);
	e->priv = NULL;
}

static int aio_init(struct engine *e, const struct engine_cfg *cfg, char *why, size_t why_len)
{
	struct aio_priv *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -1;
	e->priv = p;
	e->features = "";
	p->fd = cfg->fd;
	p->datasync = !!(cfg->flags & ENGINE_DATASYNC);
	p->qd = cfg->qd;
	p->iocbs = calloc(cfg->qd, sizeof(*p->iocbs));
	p->pending = calloc(cfg->qd, sizeof(*p->pending));
	p->events = calloc(cfg->qd, sizeof(*p->events));
	if (!p->iocbs || !p->pending || !p->events) {
		aio_exit(e);
		return -1;
	}
	r = io_setup((int)cfg->qd, &p->ctx);
	if (r < 0) {
		snprintf(why, why_len, "io_setup(%u): %s (see /proc/sys/fs/aio-max-nr)", cfg->qd, strerror(-r));
		p->ctx = 0;
		aio_exit(e);
		return -1;
	}
	return 0;
}

static void aio_queue(struct engine *e, struct io_slot *s)
{
	struct aio_priv *p = e->priv;
	struct iocb *cb = &p->iocbs[s->index];

	if (s->op.op == OP_READ)
		io_prep_pread(cb, p->fd, s->buf, s->op.len, (long long)s->op.offset);
	else if (s->op.op == OP_WRITE)
		io_prep_pwrite(cb, p->fd, s->buf, s->op.len, (long long)s->op.offset);
	else if (p->datasync) /* OP_SYNC: the kernel's aio fsync (Linux 4.18 on); no trims here */
		io_prep_fdsync(cb, p->fd);
	else
		io_prep_fsync(cb, p->fd);
	if (s->op.prio && s->op.op < OP_TRIM) { /* its own priority (Linux 5.0 on) */
		cb->u.c.flags |= IOCB_FLAG_IOPRIO;
		cb->aio_reqprio = (short)s->op.prio;
	}
	cb->data = s;
	p->pending[p->npending++] = cb;
}

/* Submit what is queued. -EAGAIN (the kernel short of resources) while
 * I/Os are in flight leaves the rest queued for the next call, after the
 * reap has freed some; with none in flight it is retried, bounded. */
static int aio_submit(struct engine *e)
{
	struct aio_priv *p = e->priv;
	unsigned off = 0, tries = 0;
	int r = 0;

	while (off < p->npending) {
		r = io_submit(p->ctx, (long)(p->npending - off), p->pending + off);
		if (r > 0) {
			off += (unsigned)r;
			p->inflight += (unsigned)r;
			continue;
		}
		if (r == -EINTR)
			continue;
		if (r == 0) /* nothing taken: as short of resources */
			r = -EAGAIN;
		if (r != -EAGAIN || p->inflight > 0 || ++tries > AIO_EAGAIN_TRIES)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
	if (off == p->npending) {
		p->npending = 0;
		return 0;
	}
	memmove(p->pending, p->pending + off, (p->npending - off) * sizeof(*p->pending));
	p->npending -= off;
	return r == -EAGAIN && p->inflight > 0 ? 0 : r; /* else the rest goes after the reap */
}

static int aio_reap(struct engine *e, unsigned min, uint64_t timeout_ns, struct io_slot **done, unsigned max)
{
	struct aio_priv *p = e->priv;
	struct timespec ts, *tsp = NULL;
	int r = aio_submit(e);

	if (r < 0)
		return r;
	if (timeout_ns != UINT64_MAX) {
		ts.tv_sec = (time_t)(timeout_ns / 1000000000ull);
		ts.tv_nsec = (long)(timeout_ns % 1000000000ull);
		tsp = &ts;
	}
	if (max > p->qd)
		max = p->qd;
	if (min > p->inflight) /* what -EAGAIN left queued cannot complete yet */
		min = p->inflight;
	do
		r = io_getevents(p->ctx, min, max, p->events, tsp);
	while (r == -EINTR);
	if (r < 0)
		return r;
	p->inflight -= (unsigned)r;
	for (int i = 0; i < r; i++) {
		struct io_slot *s = p->events[i].data;
		long res = (long)p->events[i].res;

		s->res = res;
		done[i] = s;
	}
	return r;
}

const struct engine_ops engine_libaio = {
	.name = "libaio",
	.probe = aio_probe,
	.init = aio_init,
	.queue = aio_queue,
	.submit = aio_submit,
	.reap = aio_reap,
	.exit = aio_exit,
};
