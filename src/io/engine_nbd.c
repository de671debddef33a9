/* engine_nbd.c - an NBD export through libnbd (netblk.h).
 *
 * One connection per worker, asking for simple replies. queue() hands
 * each I/O to libnbd at once (nbd_aio_pread / pwrite / trim / flush, with
 * a completion callback that moves the slot to the done list; on TCP the
 * commands of a turn after its first are corked until the reap); reap()
 * drives the connection from the worker's own loop: the socket's fd
 * polled for the direction libnbd wants, nbd_aio_notify_read / write when
 * it is ready, then every reply already in the socket read without
 * another poll, until enough completions are in or the timeout passes.
 * Nothing blocks without a timeout: connecting gives up after
 * NET_CONNECT_TIMEOUT_NS, and I/O in flight with no reply for
 * net_io_timeout_ns() fails the engine (ETIMEDOUT). A connection the
 * server closed fails its I/Os and the engine. At a stop,
 * what is still in flight after ENGINE_DROP_NS is abandoned by exit() with
 * the connection (engine.h's `drops`); a stop signal ends a connect or a
 * probe's read at once.
 */
#include "core/rc.h"
#include "io/engine.h"
#include "io/netblk.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const nbd_schemes[] = { "nbd://", "nbds://", "nbd+unix://", "nbds+unix://", "nbd+vsock://",
					   "nbds+vsock://", NULL };

#ifdef HAVE_LIBNBD
#include <libnbd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "core/clock.h"

struct nbd_priv {
	struct nbd_handle *h;
	struct io_slot **done; /* completed, not yet reaped: a ring of qd */
	unsigned qd, head, ndone, inflight;
	uint64_t progress_ns;  /* the last completion, or the first I/O after none were in flight */
	int datasync;
	uint32_t write_flags;  /* LIBNBD_CMD_FLAG_FUA under ENGINE_FUA */
	int tcp;               /* a TCP connection: a turn's commands are corked */
	int corked;
	unsigned turn;         /* commands queued since the last reap */
};

/* TCP_CORK on or off: a turn's commands after its first leave in as few
 * segments as fit (the server is woken once, not per command), and the
 * reap that follows uncorks, which sends what is held. */
static void cork(struct nbd_priv *p, int on)
{
	int fd = nbd_aio_get_fd(p->h);

	if (fd >= 0 && setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on)) == 0)
		p->corked = on;
}

/* Wait until libnbd's fd is ready for what it wants, or deadline (ns on
 * the monotonic clock), NET_STOP_POLL_NS at most (the callers loop, and
 * look at net_stopped()); then let it read or write. 0, or -errno. */
static int drive(struct nbd_handle *h, uint64_t deadline)
{
	unsigned dir = nbd_aio_get_direction(h);
	struct pollfd p = { .fd = nbd_aio_get_fd(h) };
	uint64_t now = clock_ns();
	struct timespec ts = { 0, 0 };
	int n;

	if (p.fd < 0)
		return -ENOTCONN;
	p.events = (dir & LIBNBD_AIO_DIRECTION_READ ? POLLIN : 0) | (dir & LIBNBD_AIO_DIRECTION_WRITE ? POLLOUT : 0);
	if (deadline > now) {
		uint64_t wait = deadline - now < NET_STOP_POLL_NS ? deadline - now : NET_STOP_POLL_NS;

		ts.tv_sec = (time_t)(wait / 1000000000ull);
		ts.tv_nsec = (long)(wait % 1000000000ull);
	}
	n = ppoll(&p, 1, &ts, NULL);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if ((p.revents & (POLLIN | POLLHUP | POLLERR)) && nbd_aio_notify_read(h) < 0)
		return -(nbd_get_errno() ? nbd_get_errno() : EIO);
	if ((p.revents & POLLOUT) && nbd_aio_notify_write(h) < 0)
		return -(nbd_get_errno() ? nbd_get_errno() : EIO);
	return 0;
}

/* libnbd's last error as why; where libnbd quotes the URL (a URI it
 * cannot parse), the URL without its password. */
static void nbd_why(const char *url, const char *what, char *why, size_t why_len)
{
	const char *e = nbd_get_error() ? nbd_get_error() : "failed", *at;
	char u[512], m[1024];

	net_redact(url, u, sizeof(u));
	if (strcmp(u, url) && (at = strstr(e, url))) {
		snprintf(m, sizeof(m), "%.*s%s%s", (int)(at - e), e, u, at + strlen(url));
		e = m;
	}
	snprintf(why, why_len, "%s: %s: %s", u, what, e);
}

/* A new handle connected to url within NET_CONNECT_TIMEOUT_NS, or NULL
 * with why (also at a stop signal); *rc RC_INPUT for a URL libnbd cannot
 * parse. */
static struct nbd_handle *nbd_open(const char *url, int *rc, char *why, size_t why_len)
{
	struct nbd_handle *h = nbd_create();
	uint64_t deadline = clock_ns() + NET_CONNECT_TIMEOUT_NS;

	*rc = RC_FAIL;
	if (!h) {
		nbd_why(url, "cannot create a handle", why, why_len);
		return NULL;
	}
	nbd_set_uri_allow_local_file(h, 1); /* nbd+unix:///x?socket=PATH */
	/* simple replies: a read's answer is one header and the data (two
	 * reads of the socket), not chunks (three or four); structured
	 * replies serve sparse reads and block status, which we never ask */
	nbd_set_request_structured_replies(h, 0);
	if (nbd_aio_connect_uri(h, url) < 0) {
		if (nbd_get_errno() == EINVAL)
			*rc = RC_INPUT;
		nbd_why(url, *rc == RC_INPUT ? "not an NBD URI" : "cannot connect", why, why_len);
		nbd_close(h);
		return NULL;
	}
	while (nbd_aio_is_connecting(h)) {
		if (clock_ns() >= deadline || net_stopped()) {
			char u[512];

			net_redact(url, u, sizeof(u));
			if (net_stopped())
				snprintf(why, why_len, "%s: interrupted (connecting and negotiating)", u);
			else
				snprintf(why, why_len, "%s: no answer in %llu s (connecting and negotiating)", u,
					 NET_CONNECT_TIMEOUT_NS / 1000000000ull);
			nbd_close(h);
			return NULL;
		}
		if (drive(h, deadline) < 0)
			break;
	}
	if (!nbd_aio_is_ready(h)) {
		nbd_why(url, "cannot connect", why, why_len);
		nbd_close(h);
		return NULL;
	}
	*rc = RC_OK;
	return h;
}

static int nbd_inspect(const char *url, struct net_info *ni, char *why, size_t why_len)
{
	int rc;
	struct nbd_handle *h = nbd_open(url, &rc, why, why_len);
	int64_t size, block;

	if (!h)
		return rc;
	memset(ni, 0, sizeof(*ni));
	size = nbd_get_size(h);
	block = nbd_get_block_size(h, LIBNBD_SIZE_MINIMUM);
	ni->size = size > 0 ? (uint64_t)size : 0;
	ni->block = block > 512 ? (uint32_t)block : 512; /* NBD works in bytes: 512 keeps O_DIRECT's rules */
	ni->read_only = nbd_is_read_only(h) == 1;
	ni->can_trim = nbd_can_trim(h) == 1;
	ni->can_flush = nbd_can_flush(h) == 1;
	ni->can_fua = nbd_can_fua(h) == 1;
	snprintf(ni->model, sizeof(ni->model), "NBD export");
	nbd_aio_disconnect(h, 0);
	nbd_close(h);
	if (size < 0) {
		snprintf(why, why_len, "the export's size cannot be read");
		return RC_FAIL;
	}
	return RC_OK;
}

/* The completion of one command: the slot to the done ring. */
static int nbd_done(void *user, int *error)
{
	struct io_slot *s = user;
	struct nbd_priv *p = s->engine_priv;

	s->res = *error ? -*error : s->op.op == OP_SYNC ? 0 : (int64_t)s->op.len;
	p->done[(p->head + p->ndone++) % p->qd] = s;
	p->inflight--;
	p->progress_ns = 0; /* the reap that sees it stamps the time */
	return 1;
}

/* Wait for one command (cookie) on h until deadline: 0 or -errno
 * (-EINTR at a stop signal). */
static int wait_cookie(struct nbd_handle *h, int64_t cookie, uint64_t deadline)
{
	int r;

	while ((r = nbd_aio_command_completed(h, (uint64_t)cookie)) == 0) {
		if (net_stopped())
			return -EINTR;
		if (clock_ns() >= deadline)
			return -ETIMEDOUT;
		if ((r = drive(h, deadline)) < 0)
			return r;
	}
	return r < 0 ? -(nbd_get_errno() ? nbd_get_errno() : EIO) : 0;
}

static int nbd_read_sync(const char *url, uint64_t off, void *buf, size_t len, char *why, size_t why_len)
{
	int rc;
	struct nbd_handle *h = nbd_open(url, &rc, why, why_len);
	int64_t cookie;

	if (!h)
		return RC_FAIL;
	cookie = nbd_aio_pread(h, buf, len, off, NBD_NULL_COMPLETION, 0);
	rc = cookie < 0 ? -EIO : wait_cookie(h, cookie, clock_ns() + net_io_timeout_ns());
	if (rc < 0)
		snprintf(why, why_len, "reading %zu bytes at %llu: %s", len, (unsigned long long)off,
			 rc == -EINTR ? "interrupted" : strerror(-rc));
	if (!rc)
		nbd_aio_disconnect(h, 0);
	nbd_close(h); /* a command still out is abandoned: libnbd writes into buf no more */
	return rc < 0 ? RC_FAIL : RC_OK;
}

static int nbd_probe(char *why, size_t why_len)
{
	(void)why;
	(void)why_len;
	return 0;
}

static int nbd_init(struct engine *e, const struct engine_cfg *cfg, char *why, size_t why_len)
{
	struct nbd_priv *p = calloc(1, sizeof(*p));
	int rc;

	if (!p || !(p->done = calloc(cfg->qd, sizeof(*p->done)))) {
		free(p);
		snprintf(why, why_len, "engine nbd: out of memory");
		return -1;
	}
	p->h = nbd_open(cfg->url, &rc, why, why_len);
	if (!p->h) {
		free(p->done);
		free(p);
		return -1;
	}
	p->qd = cfg->qd;
	p->datasync = !!(cfg->flags & ENGINE_DATASYNC);
	p->write_flags = cfg->flags & ENGINE_FUA ? LIBNBD_CMD_FLAG_FUA : 0;
	for (unsigned i = 0; i < cfg->qd; i++)
		cfg->slots[i].engine_priv = p;
	e->priv = p;
	e->features = "";
	{
		int dom = 0;
		socklen_t len = sizeof(dom);

		p->tcp = getsockopt(nbd_aio_get_fd(p->h), SOL_SOCKET, SO_DOMAIN, &dom, &len) == 0 &&
			 (dom == AF_INET || dom == AF_INET6);
	}
	return 0;
}

static void nbd_queue(struct engine *e, struct io_slot *s)
{
	struct nbd_priv *p = e->priv;
	nbd_completion_callback cb = { .callback = nbd_done, .user_data = s };
	int64_t c;

	if (p->tcp && p->turn++ && !p->corked)
		cork(p, 1); /* the first command has left alone: it starts the server */

	switch (s->op.op) {
	case OP_READ:
		c = nbd_aio_pread(p->h, s->buf, s->op.len, s->op.offset, cb, 0);
		break;
	case OP_WRITE:
		c = nbd_aio_pwrite(p->h, s->buf, s->op.len, s->op.offset, cb, p->write_flags);
		break;
	case OP_TRIM:
		c = nbd_aio_trim(p->h, s->op.len, s->op.offset, cb, 0);
		break;
	default: /* NBD has one flush: fsync and fdatasync alike */
		c = nbd_aio_flush(p->h, cb, 0);
		break;
	}
	if (!p->inflight++)
		p->progress_ns = clock_ns();
	if (c < 0) { /* not sent: complete it here, failed */
		int err = nbd_get_errno() ? nbd_get_errno() : EIO;

		nbd_done(s, &err);
	}
}

/* Move up to max completions from the ring into done. */
static unsigned take(struct nbd_priv *p, struct io_slot **done, unsigned max)
{
	unsigned n = 0;

	while (p->ndone && n < max) {
		done[n++] = p->done[p->head];
		p->head = (p->head + 1) % p->qd;
		p->ndone--;
	}
	return n;
}

/* The connection is gone (the server died or closed it): libnbd retires
 * every command in flight with ENOTCONN, and refuses new ones so. Those
 * are the connection's failures, not the device's answers: hand out what
 * the server answered, then fail the engine, so the phase ends named
 * "engine nbd: ..." whichever saw the death first, the poll or a callback
 * (before, a death seen by the callbacks came out as I/O errors). */
static int dead_reap(struct nbd_priv *p, struct io_slot **done, unsigned max)
{
	unsigned n = 0;

	while (p->ndone && n < max) {
		struct io_slot *s = p->done[p->head];

		p->head = (p->head + 1) % p->qd;
		p->ndone--;
		if (s->res != -ENOTCONN)
			done[n++] = s;
	}
	return n ? (int)n : -ENOTCONN;
}

/* Read every reply the socket holds now, without a poll: libnbd reads
 * one reply per notification and then waits for the next poll, so each
 * reply would cost a ppoll. Ends when a read brings no completion (the
 * socket is empty, or holds part of a reply). 0, or -errno.
 * Only while libnbd waits for replies alone (READY): while a command is
 * half sent it also wants to read, and a notify_read there pauses the
 * write's payload to read a reply; with none in the socket libnbd 1.14
 * then waits for a reply only (its direction READ), and the server waits
 * for the rest of the payload: each write stalled a poll's timeout
 * (NET_STOP_POLL_NS), 1 MiB writes ran at 20 per second (issue 48). */
static int drain(struct nbd_priv *p)
{
	while (p->inflight && p->ndone < p->qd && nbd_aio_get_direction(p->h) == LIBNBD_AIO_DIRECTION_READ) {
		const unsigned before = p->ndone;

		if (nbd_aio_notify_read(p->h) < 0) { /* a connection gone: the caller's dead_reap */
			if (nbd_aio_is_dead(p->h) || nbd_aio_is_closed(p->h))
				return 0;
			return -(nbd_get_errno() ? nbd_get_errno() : EIO);
		}
		if (p->ndone == before)
			break;
	}
	return 0;
}

static int nbd_reap(struct engine *e, unsigned min, uint64_t timeout_ns, struct io_slot **done, unsigned max)
{
	struct nbd_priv *p = e->priv;
	uint64_t now = clock_ns(), deadline = timeout_ns == UINT64_MAX ? UINT64_MAX : now + timeout_ns;
	int r;

	if (nbd_aio_is_dead(p->h) || nbd_aio_is_closed(p->h))
		return dead_reap(p, done, max);
	/* without waiting: what the turn corked leaves, a write libnbd could
	 * not finish goes on; a reap that may not wait reads the replies
	 * already there (one that may wait polls first, below: a poll that
	 * finds a reply costs what a read that finds none would) */
	p->turn = 0;
	if (p->corked)
		cork(p, 0);
	if ((nbd_aio_get_direction(p->h) & LIBNBD_AIO_DIRECTION_WRITE) && (r = drive(p->h, 0)) < 0)
		return r;
	if (!min && (r = drain(p)) < 0)
		return r;
	if (nbd_aio_is_dead(p->h) || nbd_aio_is_closed(p->h))
		return dead_reap(p, done, max);
	for (;;) {
		if (!p->progress_ns)
			p->progress_ns = now;
		/* checked on every call: a worker draining past the phase's end
		 * calls with no time to wait, over and over */
		if (!p->ndone && p->inflight && now - p->progress_ns > net_io_timeout_ns())
			return -ETIMEDOUT;
		if (p->ndone >= min || !p->inflight || now >= deadline)
			break;
		if ((r = drive(p->h, deadline < p->progress_ns + net_io_timeout_ns() ? deadline
										   : p->progress_ns + net_io_timeout_ns())) < 0)
			return r;
		if ((r = drain(p)) < 0)
			return r;
		if (nbd_aio_is_dead(p->h) || nbd_aio_is_closed(p->h))
			return dead_reap(p, done, max);
		now = clock_ns();
	}
	if (p->ndone)
		p->progress_ns = now;
	return (int)take(p, done, max);
}

static void nbd_exit(struct engine *e)
{
	struct nbd_priv *p = e->priv;

	if (!p)
		return;
	/* never a call that waits: a server that stopped answering must not
	 * hold the phase's end (nbd_shutdown would wait for it). I/Os still in
	 * flight (a stop, engine.h's `drops`) are abandoned: nbd_close closes
	 * the socket and frees their commands without running their
	 * completions, and nothing reads into their slots' buffers after it */
	if (!p->inflight && nbd_aio_is_ready(p->h))
		nbd_aio_disconnect(p->h, 0);
	nbd_close(p->h);
	free(p->done);
	free(p);
	e->priv = NULL;
}

static const struct net_ops nbd_net = { .schemes = nbd_schemes, .inspect = nbd_inspect, .read = nbd_read_sync };

const struct engine_ops engine_nbd = {
	.name = "nbd",
	.trim_files = 1,
	.trim_blocks = 1,
	.probe = nbd_probe,
	.init = nbd_init,
	.queue = nbd_queue,
	.reap = nbd_reap,
	.exit = nbd_exit,
	.drops = 1,
	.net = &nbd_net,
};

#else /* !HAVE_LIBNBD */

static int nbd_probe(char *why, size_t why_len)
{
	snprintf(why, why_len, "iomoon was built without libnbd (install libnbd-dev, or run make deps, then make)");
	return -1;
}

static int nbd_inspect(const char *url, struct net_info *ni, char *why, size_t why_len)
{
	(void)url;
	(void)ni;
	return nbd_probe(why, why_len), RC_FAIL;
}

static const struct net_ops nbd_net = { .schemes = nbd_schemes, .inspect = nbd_inspect };

const struct engine_ops engine_nbd = {
	.name = "nbd",
	.probe = nbd_probe,
	.net = &nbd_net,
};
#endif
