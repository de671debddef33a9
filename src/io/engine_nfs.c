/* engine_nfs.c - a file inside an NFS export through libnfs (netblk.h).
 *
 * A target nfs://HOST[:PORT]/EXPORT/PATH?version=3|4&nfsport=N... (libnfs's
 * URL form) is a regular file on a server, reached without a kernel NFS
 * client: one connection per worker, mounted and the file opened by init.
 * queue() hands each I/O to libnfs at once (nfs_pread_async /
 * nfs_pwrite_async / nfs_fsync_async, a COMMIT), cut into the READs and
 * WRITEs the connection carries, whose callbacks count the slot's parts
 * down and move it to the done ring with the last; reap() drives the
 * connection from the worker's own loop: the socket polled for what
 * nfs_which_events() wants, nfs_service() when it is ready (and once,
 * without waiting, on every reap: libnfs sends what is queued from there),
 * until enough completions are in or the timeout passes.
 *
 * How big one READ or WRITE may be, and the calls of inspection, creation
 * and the signature probe's read, are nfs_file.c's (nfs_file.h).
 *
 * Nothing waits without a timeout: mounting gives up after
 * NET_CONNECT_TIMEOUT_NS; a call of inspect, prepare or read, and I/O in
 * flight with no completion, after net_io_timeout_ns(), the latter failing
 * the engine (ETIMEDOUT); a connection the server closed fails the engine
 * (ENOTCONN) at once: libnfs's automatic reconnection is off. At a stop,
 * what is still in flight after ENGINE_DROP_NS is abandoned by exit() with
 * the context (engine.h's `drops`), and a stop signal ends a mount or a
 * call at once. Trims are refused (libnfs offers no DEALLOCATE), and so is
 * FUA (phase.sync: use fsync = N, a COMMIT).
 */
#include "core/rc.h"
#include "io/engine.h"
#include "io/netblk.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const nfs_schemes[] = { "nfs://", NULL };

#ifdef HAVE_LIBNFS
#include <fcntl.h>
#include <stdlib.h>

#include "core/clock.h"
#include "io/nfs_file.h"

/* The engine: a part is one READ or WRITE of a slot's I/O (or its COMMIT). */
struct nfs_priv;
struct nfs_part {
	struct nfs_priv *p;
	struct io_slot *s;
	uint32_t off, len;
};

struct nfs_io {
	unsigned parts_left;
	int err;
	uint64_t bytes;
};

struct nfs_priv {
	struct conn c;
	struct nfsfh *fh;
	struct io_slot **done; /* completed, not yet reaped: a ring of qd */
	unsigned qd, head, ndone, inflight;
	struct nfs_io *io;     /* per slot */
	struct nfs_part *part; /* nparts per slot */
	unsigned nparts;
	uint64_t progress_ns;  /* the last completion, or the first I/O after none were in flight */
	int dead, closing;
};

static void slot_done(struct nfs_priv *p, struct io_slot *s)
{
	struct nfs_io *io = &p->io[s->index];

	s->res = io->err ? io->err : s->op.op == OP_SYNC ? 0 : (int64_t)io->bytes;
	p->done[(p->head + p->ndone++) % p->qd] = s;
	p->inflight--;
	p->progress_ns = 0; /* the reap that sees it stamps the time */
}

static void io_cb(int status, struct nfs_context *n, void *data, void *priv)
{
	struct nfs_part *pt = priv;
	struct nfs_priv *p = pt->p;
	struct io_slot *s = pt->s;
	struct nfs_io *io;

	(void)n;
	if (p->closing)
		return;
	io = &p->io[s->index];
	if (status < 0) {
		if (!io->err)
			io->err = status;
	} else {
		size_t got = (size_t)status < pt->len ? (size_t)status : pt->len;

		if (s->op.op == OP_READ && data)
			memcpy((char *)s->buf + pt->off, data, got);
		io->bytes += got;
	}
	if (!--io->parts_left)
		slot_done(p, s);
}

static int nfs_probe(char *why, size_t why_len)
{
	(void)why;
	(void)why_len;
	return 0;
}

static void nfs_exit(struct engine *e);

static int nfs_init(struct engine *e, const struct engine_cfg *cfg, char *why, size_t why_len)
{
	struct nfs_priv *p = calloc(1, sizeof(*p));
	int r;

	e->priv = p;
	if (!p || nfs_conn_open(&p->c, cfg->url, why, why_len) != RC_OK) {
		free(p);
		e->priv = NULL;
		return -1;
	}
	p->qd = cfg->qd;
	{
		uint32_t unit = p->c.rmax < p->c.wmax ? p->c.rmax : p->c.wmax;

		p->nparts = (unsigned)((cfg->buf_len + unit - 1) / unit);
		if (!p->nparts)
			p->nparts = 1;
	}
	p->done = calloc(cfg->qd, sizeof(*p->done));
	p->io = calloc(cfg->qd, sizeof(*p->io));
	p->part = calloc((size_t)cfg->qd * p->nparts, sizeof(*p->part));
	if (!p->done || !p->io || !p->part) {
		snprintf(why, why_len, "engine nfs: out of memory");
		nfs_exit(e);
		return -1;
	}
	/* read-write where the server allows it: a read-only export's file
	 * is read (target_may_write keeps writing phases off it) */
	r = nfs_file_open(&p->c, p->c.u->file, O_RDWR, &p->fh);
	if (r == -EROFS || r == -EACCES || r == -EPERM)
		r = nfs_file_open(&p->c, p->c.u->file, O_RDONLY, &p->fh);
	if (r < 0) {
		nfs_why(&p->c, "cannot open the file", r, why, why_len);
		p->fh = NULL;
		nfs_exit(e);
		return -1;
	}
	for (unsigned i = 0; i < cfg->qd * p->nparts; i++)
		p->part[i].p = p;
	e->features = "";
	return 0;
}

/* One part of s: [off, off + len) of its buffer. 0, or -1 when libnfs
 * refused to queue it. */
static int queue_part(struct nfs_priv *p, struct io_slot *s, struct nfs_part *pt, uint32_t off, uint32_t len)
{
	pt->s = s;
	pt->off = off;
	pt->len = len;
	switch (s->op.op) {
	case OP_READ:
		return nfs_pread_async(p->c.n, p->fh, s->op.offset + off, len, io_cb, pt);
	case OP_WRITE:
		return nfs_pwrite_async(p->c.n, p->fh, s->op.offset + off, len, (char *)s->buf + off, io_cb, pt);
	default: /* fsync and fdatasync alike: a COMMIT */
		return nfs_fsync_async(p->c.n, p->fh, io_cb, pt);
	}
}

static void nfs_queue(struct engine *e, struct io_slot *s)
{
	struct nfs_priv *p = e->priv;
	struct nfs_io *io = &p->io[s->index];
	struct nfs_part *pt = &p->part[(size_t)s->index * p->nparts];
	uint32_t unit = s->op.op == OP_READ ? p->c.rmax : p->c.wmax, len = s->op.len;
	unsigned n = s->op.op == OP_READ || s->op.op == OP_WRITE ? (len + unit - 1) / unit : 1;

	n = n ? n : 1;
	*io = (struct nfs_io){ .parts_left = n };
	if (!p->inflight++)
		p->progress_ns = clock_ns();
	if (s->op.op == OP_TRIM || p->dead || n > p->nparts) { /* trims are refused before a phase runs */
		io->err = s->op.op == OP_TRIM ? -EOPNOTSUPP : p->dead ? -ENOTCONN : -EINVAL;
		slot_done(p, s);
		return;
	}
	for (unsigned k = 0; k < n; k++) {
		uint32_t off = k * unit, l = len - off < unit ? len - off : unit;

		if (queue_part(p, s, &pt[k], off, s->op.op == OP_SYNC ? 0 : l) < 0) {
			/* not sent: this part and the ones after it fail here;
			 * those sent count the rest down */
			io->err = -EIO;
			io->parts_left -= n - k;
			if (!io->parts_left)
				slot_done(p, s);
			return;
		}
	}
}

/* Move up to max completions from the ring into done. */
static unsigned take(struct nfs_priv *p, struct io_slot **done, unsigned max)
{
	unsigned n = 0;

	while (p->ndone && n < max) {
		done[n++] = p->done[p->head];
		p->head = (p->head + 1) % p->qd;
		p->ndone--;
	}
	return n;
}

static int nfs_reap(struct engine *e, unsigned min, uint64_t timeout_ns, struct io_slot **done, unsigned max)
{
	struct nfs_priv *p = e->priv;
	uint64_t now = clock_ns(), deadline = timeout_ns == UINT64_MAX ? UINT64_MAX : now + timeout_ns;
	int r;

	if (p->dead)
		return -ENOTCONN;
	/* without waiting: libnfs sends what was queued, and reads the
	 * replies already there */
	if ((r = nfs_drive(p->c.n, 0)) < 0) {
		p->dead = 1;
		return r;
	}
	for (;;) {
		if (!p->progress_ns)
			p->progress_ns = now;
		/* checked on every call: a worker draining past the phase's end
		 * calls with no time to wait, over and over */
		if (!p->ndone && p->inflight && now - p->progress_ns > net_io_timeout_ns())
			return -ETIMEDOUT;
		if (p->ndone >= min || !p->inflight || now >= deadline)
			break;
		r = nfs_drive(p->c.n, deadline < p->progress_ns + net_io_timeout_ns() ? deadline
										 : p->progress_ns + net_io_timeout_ns());
		if (r < 0) {
			p->dead = 1;
			return r;
		}
		now = clock_ns();
	}
	if (p->ndone)
		p->progress_ns = now;
	return (int)take(p, done, max);
}

static void nfs_exit(struct engine *e)
{
	struct nfs_priv *p = e->priv;

	if (!p)
		return;
	/* a healthy connection closes the file (NFSv4: its open state on the
	 * server), ENGINE_DROP_NS at most; one that stopped answering is not
	 * waited for. What is still in flight (a stop: engine.h's `drops`) is
	 * cancelled with the context, its callbacks ignored */
	if (p->fh && !p->dead && !p->inflight && p->c.n &&
	    nfs_close_async(p->c.n, p->fh, nfs_call_cb, nfs_call(&p->c, NULL, 0)) == 0)
		(void)nfs_wait(&p->c, clock_ns() + ENGINE_DROP_NS);
	p->closing = 1;
	nfs_conn_close(&p->c);
	free(p->done);
	free(p->io);
	free(p->part);
	free(p);
	e->priv = NULL;
}

static const struct net_ops nfs_net = {
	.schemes = nfs_schemes, .inspect = nfs_file_inspect, .read = nfs_file_read, .prepare = nfs_file_prepare,
};

const struct engine_ops engine_nfs = {
	.name = "nfs",
	.probe = nfs_probe,
	.init = nfs_init,
	.queue = nfs_queue,
	.reap = nfs_reap,
	.exit = nfs_exit,
	.drops = 1,
	.net = &nfs_net,
};

#else /* !HAVE_LIBNFS */

static int nfs_probe(char *why, size_t why_len)
{
	snprintf(why, why_len, "iomoon was built without libnfs (install libnfs-dev, or run make deps, then make)");
	return -1;
}

static int nfs_inspect(const char *url, struct net_info *ni, char *why, size_t why_len)
{
	(void)url;
	(void)ni;
	return nfs_probe(why, why_len), RC_FAIL;
}

static const struct net_ops nfs_net = { .schemes = nfs_schemes, .inspect = nfs_inspect };

const struct engine_ops engine_nfs = {
	.name = "nfs",
	.probe = nfs_probe,
	.net = &nfs_net,
};
#endif
