/* engine_iscsi.c - an iSCSI LUN through libiscsi (netblk.h).
 *
 * One session per worker, logged in by init. queue() hands each I/O to
 * libiscsi at once as a SCSI command (READ16 / WRITE16 into and out of the
 * slot's own buffer, SYNCHRONIZE CACHE16, UNMAP for a trim) whose
 * completion callback moves the slot to the done ring; reap() drives the
 * session from the worker's own loop: the socket polled for what
 * iscsi_which_events() wants, iscsi_service() when it is ready, until
 * enough completions are in or the timeout passes. Offsets and lengths are
 * whole logical blocks (the target's sector is the LUN's block size, which
 * phase_check holds I/O to; queue() refuses the rest with EINVAL).
 *
 * Nothing waits without a timeout: logging in gives up after
 * NET_CONNECT_TIMEOUT_NS; a short command of inspect or read, and I/O in
 * flight with no completion, after net_io_timeout_ns() (30 s, or
 * IOMOON_NET_IO_TIMEOUT), the latter failing the engine (ETIMEDOUT), on
 * every reap, also while a worker drains; at a stop, what is still in
 * flight after ENGINE_DROP_NS is abandoned by exit() with the session
 * (engine.h's `drops`), and a stop signal ends a login or a short command
 * at once. libiscsi's automatic
 * reconnection is off: a session the target drops fails its commands
 * (ENOTCONN) and the engine, instead of retrying forever. A SCSI error
 * becomes an errno: a write-protected LUN's writes EROFS, an unsupported
 * command EOPNOTSUPP, an address past the end ERANGE, a medium error EIO.
 */
#include "core/rc.h"
#include "io/engine.h"
#include "io/netblk.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const iscsi_schemes[] = { "iscsi://", NULL };

#ifdef HAVE_LIBISCSI
#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/shown.h"

#define ISCSI_INITIATOR_DEFAULT "iqn.2026-11.org.iomoon:initiator"
#define ISCSI_URL_FORM "iscsi://[user[%password]@]host[:port]/IQN/LUN"

/* A command of inspect or read, waited for in place. It lives in the
 * session, so a callback that comes late (the context destroyed after a
 * timeout cancels it) still writes to memory that is there. */
struct waiter {
	int done, status;
	struct scsi_task *task;
};

/* One logged-in session to one LUN. */
struct session {
	struct iscsi_context *ctx;
	int lun;
	int login; /* 0 pending, 1 logged in, -1 failed */
	uint32_t block;
	uint64_t blocks;
	int lbpme;
	struct waiter w;
	char err[256]; /* why the login failed, as libiscsi said it then */
};

/* The initiator's name: IOMOON_ISCSI_INITIATOR, or ours. */
static const char *initiator_name(void)
{
	const char *n = getenv("IOMOON_ISCSI_INITIATOR");

	return n && *n ? n : ISCSI_INITIATOR_DEFAULT;
}

/* url without its password, control bytes escaped, into out. */
static const char *url_shown(const char *url, char *out, size_t len)
{
	char r[1024];

	net_redact(url, r, sizeof(r));
	return shown(r, out, len);
}

/* "URL: what: libiscsi's last error" as why (its first line only). */
static void isc_why(const char *url, struct iscsi_context *ctx, const char *what, char *why, size_t why_len)
{
	char u[1024], e[256], es[512];
	const char *err = ctx ? iscsi_get_error(ctx) : NULL;

	snprintf(e, sizeof(e), "%s", err && *err ? err : "failed");
	e[strcspn(e, "\n")] = 0;
	snprintf(why, why_len, "%s: %s: %s", url_shown(url, u, sizeof(u)), what, shown(e, es, sizeof(es)));
}

/* Wait until the session's socket is ready for what libiscsi wants, or
 * deadline (ns on the monotonic clock), NET_STOP_POLL_NS at most (the
 * callers loop, and look at net_stopped()); then let it read or write
 * (which runs the callbacks of what completed). 0, or -ENOTCONN when the
 * connection is gone. */
static int drive(struct iscsi_context *ctx, uint64_t deadline)
{
	struct pollfd p = { .fd = iscsi_get_fd(ctx), .events = (short)iscsi_which_events(ctx) };
	uint64_t now = clock_ns();
	struct timespec ts = { 0, 0 };
	int n;

	if (p.fd < 0)
		return -ENOTCONN;
	if (deadline > now) {
		uint64_t wait = deadline - now;

		if (wait > NET_STOP_POLL_NS)
			wait = NET_STOP_POLL_NS; /* with nothing to wait for, libiscsi asks for a look every 100 ms */
		ts.tv_sec = (time_t)(wait / 1000000000ull);
		ts.tv_nsec = (long)(wait % 1000000000ull);
	}
	n = ppoll(&p, 1, &ts, NULL);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (iscsi_service(ctx, n ? p.revents : 0) < 0 || (p.revents & (POLLHUP | POLLERR)))
		return -ENOTCONN;
	return 0;
}

static void login_done(struct iscsi_context *ctx, int status, void *data, void *priv)
{
	struct session *s = priv;

	(void)data;
	if (s->login)
		return; /* the call that says a live session ended: reap() sees that itself */
	s->login = status == SCSI_STATUS_GOOD ? 1 : -1;
	if (s->login < 0) /* now: what libiscsi does next overwrites its error */
		snprintf(s->err, sizeof(s->err), "%s", iscsi_get_error(ctx) ? iscsi_get_error(ctx) : "failed");
}

static void wait_done(struct iscsi_context *ctx, int status, void *data, void *priv)
{
	struct waiter *w = priv;

	(void)ctx;
	w->done = 1;
	w->status = status;
	w->task = data;
}

/* w_wait's status for a wait a stop signal ended (no SCSI status) */
#define W_INTERRUPTED (-2)

/* Wait for the session's one command (task, already queued) until
 * deadline: SCSI_STATUS_GOOD or another status; the task stays in s->w
 * for the caller (w_free). -1 for no task, ETIMEDOUT's status for none in
 * time, W_INTERRUPTED at a stop signal. */
static int w_wait(struct session *s, struct scsi_task *task, uint64_t deadline)
{
	if (!task)
		return -1;
	while (!s->w.done) {
		if (net_stopped() || clock_ns() >= deadline || (drive(s->ctx, deadline) < 0 && !s->w.done)) {
			s->login = -1; /* a command still out: no logout, the close cancels it */
			if (net_stopped())
				return W_INTERRUPTED;
			return clock_ns() >= deadline ? SCSI_STATUS_TIMEOUT : SCSI_STATUS_CANCELLED;
		}
	}
	return s->w.status;
}

/* Forget the session's waited command (and free its task). */
static void w_free(struct session *s)
{
	if (s->w.done && s->w.task)
		scsi_free_scsi_task(s->w.task);
	memset(&s->w, 0, sizeof(s->w));
}

/* A SCSI command's result as -errno (0 when it went well). */
static int scsi_errno(int status, const struct scsi_task *t)
{
	switch (status) {
	case SCSI_STATUS_GOOD:
	case SCSI_STATUS_CONDITION_MET:
		return 0;
	case SCSI_STATUS_CANCELLED:
		return -ENOTCONN;
	case SCSI_STATUS_TIMEOUT:
		return -ETIMEDOUT;
	case SCSI_STATUS_BUSY:
	case SCSI_STATUS_TASK_SET_FULL:
	case SCSI_STATUS_RESERVATION_CONFLICT:
		return -EBUSY;
	case SCSI_STATUS_CHECK_CONDITION:
		break;
	default:
		return -EIO;
	}
	switch (t ? t->sense.key : SCSI_SENSE_NO_SENSE) {
	case SCSI_SENSE_DATA_PROTECTION:
		return -EROFS;
	case SCSI_SENSE_ILLEGAL_REQUEST:
		return t->sense.ascq == SCSI_SENSE_ASCQ_INVALID_OPERATION_CODE ? -EOPNOTSUPP
		       : t->sense.ascq == SCSI_SENSE_ASCQ_LBA_OUT_OF_RANGE     ? -ERANGE
		       : t->sense.ascq == SCSI_SENSE_ASCQ_LOGICAL_UNIT_NOT_SUPPORTED ? -ENXIO
										     : -EINVAL;
	case SCSI_SENSE_NOT_READY:
	case SCSI_SENSE_UNIT_ATTENTION:
		return -EAGAIN;
	case SCSI_SENSE_COMMAND_ABORTED:
		return -ECANCELED;
	case SCSI_SENSE_MISCOMPARE:
		return -EILSEQ;
	default: /* medium, hardware, and the rest */
		return -EIO;
	}
}

/* What a failed waited command said, as why. */
static void cmd_why(const char *url, struct session *s, const char *cmd, int status, char *why, size_t why_len)
{
	char u[1024], what[160];
	const struct scsi_task *t = s->w.done ? s->w.task : NULL;

	if (status == SCSI_STATUS_CHECK_CONDITION && t)
		snprintf(what, sizeof(what), "%s: %s (%s)", cmd, scsi_sense_key_str(t->sense.key),
			 scsi_sense_ascq_str(t->sense.ascq));
	else if (status == SCSI_STATUS_TIMEOUT)
		snprintf(what, sizeof(what), "%s: no answer in %.0f s", cmd, net_io_timeout_ns() / 1e9);
	else if (status == SCSI_STATUS_CANCELLED)
		snprintf(what, sizeof(what), "%s: the connection closed", cmd);
	else if (status == W_INTERRUPTED)
		snprintf(what, sizeof(what), "%s: interrupted", cmd);
	else
		snprintf(what, sizeof(what), "%s: %s", cmd, strerror(-scsi_errno(status, t)));
	snprintf(why, why_len, "%s: %s", url_shown(url, u, sizeof(u)), what);
}

/* The session's context with the URL's target, LUN and CHAP applied, not
 * yet connected; NULL with why (RC_INPUT in *rc for a URL that does not
 * parse, or a password where it would be shown). */
static struct iscsi_context *context_for(const char *url, struct session *s, char **portal, int *rc, char *why,
					 size_t why_len)
{
	static unsigned isid_seq;
	struct iscsi_context *ctx = iscsi_create_context(initiator_name());
	struct iscsi_url *u;
	char sh[1024];

	*rc = RC_FAIL;
	if (!ctx) {
		snprintf(why, why_len, "%s: cannot create an iSCSI context (out of memory?)", url_shown(url, sh, sizeof(sh)));
		return NULL;
	}
	if (strstr(url, "target_password=")) { /* a query is shown as it is: no password there */
		snprintf(why, why_len, "the iSCSI URL holds target_password=: give the target's CHAP password in "
			 "LIBISCSI_CHAP_TARGET_PASSWORD instead (a URL's query would be shown)");
		*rc = RC_INPUT;
		iscsi_destroy_context(ctx);
		return NULL;
	}
	iscsi_set_header_digest(ctx, ISCSI_HEADER_DIGEST_NONE_CRC32C); /* a ?header_digest= in the URL overrides */
	u = iscsi_parse_full_url(ctx, url);
	if (!u || !u->portal[0] || u->portal[0] == ':') { /* libiscsi takes iscsi:///IQN/LUN */
		if (u)
			iscsi_destroy_url(u);
		snprintf(why, why_len, "%s: not an iSCSI URL (%s)", url_shown(url, sh, sizeof(sh)), ISCSI_URL_FORM);
		*rc = RC_INPUT;
		iscsi_destroy_context(ctx);
		return NULL;
	}
	iscsi_set_targetname(ctx, u->target);
	iscsi_set_session_type(ctx, ISCSI_SESSION_NORMAL);
	if (u->user[0])
		iscsi_set_initiator_username_pwd(ctx, u->user, u->passwd);
	if (u->user[0] && u->target_user[0])
		iscsi_set_target_username_pwd(ctx, u->target_user, u->target_passwd);
	/* sessions of one initiator name tell themselves apart by ISID: a
	 * repeated one would end the session before it */
	iscsi_set_isid_random(ctx, ((unsigned)getpid() ^ (unsigned)clock_ns()) & 0xffffff,
			      __atomic_add_fetch(&isid_seq, 1, __ATOMIC_RELAXED) & 0xffff);
	iscsi_set_noautoreconnect(ctx, 1);
	s->lun = u->lun;
	*portal = strdup(u->portal);
	iscsi_destroy_url(u);
	if (!*portal) {
		snprintf(why, why_len, "out of memory");
		iscsi_destroy_context(ctx);
		return NULL;
	}
	return ctx;
}

/* Log out (briefly: a second at most) and free the session. */
static void session_close(struct session *s)
{
	if (!s->ctx)
		return;
	if (s->login == 1 && iscsi_is_logged_in(s->ctx)) {
		uint64_t deadline = clock_ns() + 1000000000ull;

		w_free(s);
		if (iscsi_logout_async(s->ctx, wait_done, &s->w) == 0)
			while (!s->w.done && clock_ns() < deadline && drive(s->ctx, deadline) == 0)
				;
		s->w.task = NULL; /* a logout's data is no task */
	}
	iscsi_destroy_context(s->ctx);
	s->ctx = NULL;
	w_free(s);
}

/* READ CAPACITY 16: the LUN's blocks and block size. */
static int read_capacity(const char *url, struct session *s, char *why, size_t why_len)
{
	struct scsi_readcapacity16 *rc16;
	int st;

	w_free(s);
	st = w_wait(s, iscsi_readcapacity16_task(s->ctx, s->lun, wait_done, &s->w), clock_ns() + net_io_timeout_ns());
	if (st != SCSI_STATUS_GOOD) {
		cmd_why(url, s, "READ CAPACITY 16", st, why, why_len);
		return RC_FAIL;
	}
	rc16 = scsi_datain_unmarshall(s->w.task);
	if (!rc16 || !rc16->block_length || rc16->block_length % 512) {
		snprintf(why, why_len, "READ CAPACITY 16: %s", rc16 ? "a block size that is no multiple of 512" : "no answer");
		return RC_FAIL;
	}
	s->block = rc16->block_length;
	s->blocks = rc16->returned_lba + 1;
	s->lbpme = rc16->lbpme;
	w_free(s);
	return RC_OK;
}

/* Why the login failed, as why. */
static void login_why(const char *url, struct session *s, char *why, size_t why_len)
{
	char u[1024], e[512];

	s->err[strcspn(s->err, "\n")] = 0;
	url_shown(url, u, sizeof(u));
	if (strstr(s->err, "LOGICAL_UNIT_NOT_SUPPORTED"))
		snprintf(why, why_len, "%s: the target has no LUN %d", u, s->lun);
	else if (s->err[0])
		snprintf(why, why_len, "%s: cannot connect and log in: %s", u, shown(s->err, e, sizeof(e)));
	else
		isc_why(url, s->ctx, "cannot connect and log in", why, why_len);
}

/* Connect to url and log in within NET_CONNECT_TIMEOUT_NS, then read its
 * capacity. RC_OK; RC_INPUT or RC_FAIL with why (s closed). */
static int session_open(const char *url, struct session *s, char *why, size_t why_len)
{
	uint64_t deadline = clock_ns() + NET_CONNECT_TIMEOUT_NS;
	char *portal = NULL, u[1024];
	int rc;

	memset(s, 0, sizeof(*s));
	s->ctx = context_for(url, s, &portal, &rc, why, why_len);
	if (!s->ctx)
		return rc;
	if (iscsi_full_connect_async(s->ctx, portal, s->lun, login_done, s) != 0) {
		isc_why(url, s->ctx, "cannot connect", why, why_len);
		goto fail;
	}
	while (!s->login) {
		if (net_stopped()) {
			snprintf(why, why_len, "%s: interrupted (connecting and logging in)", url_shown(url, u, sizeof(u)));
			goto fail;
		}
		if (clock_ns() >= deadline) {
			snprintf(why, why_len, "%s: no answer in %llu s (connecting and logging in)",
				 url_shown(url, u, sizeof(u)), NET_CONNECT_TIMEOUT_NS / 1000000000ull);
			goto fail;
		}
		if (drive(s->ctx, deadline) < 0 && !s->login)
			s->login = -1;
	}
	if (s->login < 0) {
		login_why(url, s, why, why_len);
		goto fail;
	}
	free(portal);
	if (read_capacity(url, s, why, why_len) != RC_OK) {
		session_close(s);
		return RC_FAIL;
	}
	return RC_OK;
fail:
	free(portal);
	session_close(s);
	return RC_FAIL;
}

/* INQUIRY's vendor and product into ni->model ("" when it fails). */
static void inquire_model(struct session *s, struct net_info *ni)
{
	struct scsi_inquiry_standard *inq;
	char v[16], p[24];

	w_free(s);
	if (w_wait(s, iscsi_inquiry_task(s->ctx, s->lun, 0, 0, 255, wait_done, &s->w),
		   clock_ns() + net_io_timeout_ns()) == SCSI_STATUS_GOOD &&
	    (inq = scsi_datain_unmarshall(s->w.task))) {
		snprintf(v, sizeof(v), "%s", inq->vendor_identification);
		snprintf(p, sizeof(p), "%s", inq->product_identification);
		for (int n = (int)strlen(v); n > 0 && v[n - 1] == ' '; n--)
			v[n - 1] = 0;
		for (int n = (int)strlen(p); n > 0 && p[n - 1] == ' '; n--)
			p[n - 1] = 0;
		snprintf(ni->model, sizeof(ni->model), "%s %s", v, p);
	}
	w_free(s);
}

/* MODE SENSE 6's write-protect bit (WP, in the device-specific parameter):
 * 1 read-only, 0 writable or not said. */
static int write_protected(struct session *s)
{
	struct scsi_mode_sense *ms;
	int wp = 0;

	w_free(s);
	if (w_wait(s,
		   iscsi_modesense6_task(s->ctx, s->lun, 1, SCSI_MODESENSE_PC_CURRENT, SCSI_MODEPAGE_RETURN_ALL_PAGES, 0,
					 255, wait_done, &s->w),
		   clock_ns() + net_io_timeout_ns()) == SCSI_STATUS_GOOD &&
	    (ms = scsi_datain_unmarshall(s->w.task)))
		wp = !!(ms->device_specific_parameter & 0x80);
	w_free(s);
	return wp;
}

/* Does the LUN unmap? The Logical Block Provisioning VPD page's LBPU bit
 * when the LUN is thin-provisioned (READ CAPACITY 16's LBPME); a LUN
 * without the page but with LBPME is taken at its word. */
static int unmaps(struct session *s)
{
	struct scsi_inquiry_logical_block_provisioning *lbp;
	int yes = s->lbpme;

	if (!s->lbpme)
		return 0;
	w_free(s);
	if (w_wait(s,
		   iscsi_inquiry_task(s->ctx, s->lun, 1, SCSI_INQUIRY_PAGECODE_LOGICAL_BLOCK_PROVISIONING, 255,
				      wait_done, &s->w),
		   clock_ns() + net_io_timeout_ns()) == SCSI_STATUS_GOOD &&
	    (lbp = scsi_datain_unmarshall(s->w.task)))
		yes = lbp->lbpu;
	w_free(s);
	return yes;
}

static int iscsi_inspect(const char *url, struct net_info *ni, char *why, size_t why_len)
{
	struct session s;
	int rc = session_open(url, &s, why, why_len);

	if (rc != RC_OK)
		return rc;
	memset(ni, 0, sizeof(*ni));
	ni->size = s.blocks * s.block;
	ni->block = s.block;
	ni->read_only = write_protected(&s);
	ni->can_trim = unmaps(&s);
	ni->can_flush = 1;
	ni->can_fua = 1; /* WRITE(16)'s FUA bit: a device without a volatile cache has nothing to force */
	inquire_model(&s, ni);
	session_close(&s);
	return RC_OK;
}

static int iscsi_read_sync(const char *url, uint64_t off, void *buf, size_t len, char *why, size_t why_len)
{
	struct scsi_iovec iov = { .iov_base = buf, .iov_len = len };
	struct session s;
	int st;

	if (session_open(url, &s, why, why_len) != RC_OK)
		return RC_FAIL;
	if (off % s.block || len % s.block || len > UINT32_MAX) {
		snprintf(why, why_len, "reading %zu bytes at %llu: not whole %u-byte blocks", len, (unsigned long long)off,
			 s.block);
		session_close(&s);
		return RC_FAIL;
	}
	st = w_wait(&s,
		    iscsi_read16_iov_task(s.ctx, s.lun, off / s.block, (uint32_t)len, (int)s.block, 0, 0, 0, 0, 0,
					  wait_done, &s.w, &iov, 1),
		    clock_ns() + net_io_timeout_ns());
	if (st != SCSI_STATUS_GOOD) {
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "READ 16 of %zu bytes at %llu", len, (unsigned long long)off);
		cmd_why(url, &s, cmd, st, why, why_len);
	}
	session_close(&s);
	return st == SCSI_STATUS_GOOD ? RC_OK : RC_FAIL;
}

static int iscsi_probe(char *why, size_t why_len)
{
	(void)why;
	(void)why_len;
	return 0;
}

/* A slot's own part: what its command's callback needs. */
struct islot {
	struct iscsi_priv *p;
	struct io_slot *s;
	struct scsi_iovec iov;
	struct unmap_list unmap;
};

struct iscsi_priv {
	struct session sn;
	struct islot *is;
	struct io_slot **done; /* completed, not yet reaped: a ring of qd */
	unsigned qd, head, ndone, inflight;
	uint64_t progress_ns;  /* the last completion, or the first I/O after none were in flight */
	int dead;              /* the session is gone: every I/O fails at once */
	int closing;           /* exit(): callbacks only free their tasks */
	int fua;               /* ENGINE_FUA: every WRITE(16) with its FUA bit */
};

/* The completion of one command: the slot to the done ring. */
static void io_done(struct iscsi_context *ctx, int status, void *data, void *priv)
{
	struct islot *is = priv;
	struct iscsi_priv *p = is->p;
	struct io_slot *s = is->s;
	struct scsi_task *t = data;
	int err = scsi_errno(status, t);

	(void)ctx;
	if (!err && t && t->residual_status == SCSI_RESIDUAL_UNDERFLOW && t->residual &&
	    (s->op.op == OP_READ || s->op.op == OP_WRITE))
		err = -EIO; /* a short transfer (an UNMAP's parameter list may be read short: tgt does) */
	if (t)
		scsi_free_scsi_task(t);
	if (p->closing)
		return;
	if (err == -ENOTCONN)
		p->dead = 1;
	s->res = err ? err : s->op.op == OP_SYNC ? 0 : (int64_t)s->op.len;
	p->done[(p->head + p->ndone++) % p->qd] = s;
	p->inflight--;
	p->progress_ns = 0; /* the reap that sees it stamps the time */
}

static int iscsi_init(struct engine *e, const struct engine_cfg *cfg, char *why, size_t why_len)
{
	struct iscsi_priv *p = calloc(1, sizeof(*p));

	if (!p || !(p->done = calloc(cfg->qd, sizeof(*p->done))) || !(p->is = calloc(cfg->qd, sizeof(*p->is)))) {
		if (p)
			free(p->done);
		free(p);
		snprintf(why, why_len, "engine iscsi: out of memory");
		return -1;
	}
	if (session_open(cfg->url, &p->sn, why, why_len) != RC_OK) {
		free(p->is);
		free(p->done);
		free(p);
		return -1;
	}
	p->qd = cfg->qd;
	p->fua = !!(cfg->flags & ENGINE_FUA);
	for (unsigned i = 0; i < cfg->qd; i++) {
		p->is[i] = (struct islot){ .p = p, .s = &cfg->slots[i] };
		cfg->slots[i].engine_priv = &p->is[i];
	}
	e->priv = p;
	e->features = "";
	return 0;
}

/* The SCSI command for a slot's I/O, queued in libiscsi; NULL if it could
 * not be. */
static struct scsi_task *command(struct iscsi_priv *p, struct islot *is)
{
	const struct wl_op *op = &is->s->op;
	struct session *sn = &p->sn;
	uint64_t lba = op->offset / sn->block;

	is->iov = (struct scsi_iovec){ .iov_base = is->s->buf, .iov_len = op->len };
	switch (op->op) {
	case OP_READ:
		return iscsi_read16_iov_task(sn->ctx, sn->lun, lba, op->len, (int)sn->block, 0, 0, 0, 0, 0, io_done, is,
					     &is->iov, 1);
	case OP_WRITE:
		return iscsi_write16_iov_task(sn->ctx, sn->lun, lba, NULL, op->len, (int)sn->block, 0, 0, p->fua, 0, 0,
					      io_done, is, &is->iov, 1);
	case OP_TRIM:
		is->unmap = (struct unmap_list){ .lba = lba, .num = op->len / sn->block };
		return iscsi_unmap_task(sn->ctx, sn->lun, 0, 0, &is->unmap, 1, io_done, is);
	default: /* SCSI has one cache flush: fsync and fdatasync alike, the whole LUN */
		return iscsi_synchronizecache16_task(sn->ctx, sn->lun, 0, 0, 0, 0, io_done, is);
	}
}

static inline uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* A slot completed here, failed with err, without going to the target. */
static void fail_now(struct iscsi_priv *p, struct io_slot *s, int err)
{
	s->res = -err;
	p->done[(p->head + p->ndone++) % p->qd] = s;
	p->inflight--;
}

static void iscsi_queue(struct engine *e, struct io_slot *s)
{
	struct iscsi_priv *p = e->priv;
	struct islot *is = s->engine_priv;

	if (!p->inflight++)
		p->progress_ns = clock_ns();
	if (p->dead)
		fail_now(p, s, ENOTCONN);
	else if (s->op.op != OP_SYNC && (s->op.offset % p->sn.block || s->op.len % p->sn.block))
		fail_now(p, s, EINVAL); /* whole blocks only (phase_check says so up front) */
	else if (!command(p, is))
		fail_now(p, s, ENOMEM);
}

/* Move up to max completions from the ring into done. */
static unsigned take(struct iscsi_priv *p, struct io_slot **done, unsigned max)
{
	unsigned n = 0;

	while (p->ndone && n < max) {
		done[n++] = p->done[p->head];
		p->head = (p->head + 1) % p->qd;
		p->ndone--;
	}
	return n;
}

static int iscsi_reap(struct engine *e, unsigned min, uint64_t timeout_ns, struct io_slot **done, unsigned max)
{
	struct iscsi_priv *p = e->priv;
	uint64_t now = clock_ns(), deadline = timeout_ns == UINT64_MAX ? UINT64_MAX : now + timeout_ns;
	const int wait = p->ndone < min && now < deadline;

	/* send what is queued at once (the socket does not block: what does
	 * not fit waits for POLLOUT); when there is no waiting to do, take
	 * what has come */
	if (!p->dead && p->inflight && (iscsi_which_events(p->sn.ctx) & POLLOUT) &&
	    iscsi_service(p->sn.ctx, POLLOUT) < 0)
		p->dead = 1;
	if (!p->dead && p->inflight && !wait && drive(p->sn.ctx, 0) < 0)
		p->dead = 1;
	while (p->inflight && !p->dead) {
		if (!p->progress_ns)
			p->progress_ns = now;
		if (now - p->progress_ns > net_io_timeout_ns()) {
			p->sn.login = -1; /* a server that does not answer gets no logout either */
			return -ETIMEDOUT;
		}
		if (p->ndone >= min || now >= deadline)
			break;
		if (drive(p->sn.ctx, min64(deadline, p->progress_ns + net_io_timeout_ns())) < 0)
			p->dead = 1;
		now = clock_ns();
	}
	if (p->dead && !p->ndone)
		return -ENOTCONN;
	if (p->ndone)
		p->progress_ns = now;
	return (int)take(p, done, max);
}

static void iscsi_exit(struct engine *e)
{
	struct iscsi_priv *p = e->priv;

	if (!p)
		return;
	/* commands still in flight (a stop, engine.h's `drops`) are abandoned:
	 * no logout, which a stalled target would not answer; the close
	 * cancels them (their callbacks free their tasks, nothing more), and
	 * libiscsi reads into their slots' buffers no more after it */
	p->closing = 1;
	if (p->dead || p->inflight)
		p->sn.login = -1;
	session_close(&p->sn);
	free(p->is);
	free(p->done);
	free(p);
	e->priv = NULL;
}

static const struct net_ops iscsi_net = { .schemes = iscsi_schemes, .inspect = iscsi_inspect, .read = iscsi_read_sync };

const struct engine_ops engine_iscsi = {
	.name = "iscsi",
	.trim_files = 1,
	.trim_blocks = 1,
	.probe = iscsi_probe,
	.init = iscsi_init,
	.queue = iscsi_queue,
	.reap = iscsi_reap,
	.exit = iscsi_exit,
	.drops = 1,
	.net = &iscsi_net,
};

#else /* !HAVE_LIBISCSI */

static int iscsi_probe(char *why, size_t why_len)
{
	snprintf(why, why_len, "iomoon was built without libiscsi (install libiscsi-dev, or run make deps, then make)");
	return -1;
}

static int iscsi_inspect(const char *url, struct net_info *ni, char *why, size_t why_len)
{
	(void)url;
	(void)ni;
	return iscsi_probe(why, why_len), RC_FAIL;
}

static const struct net_ops iscsi_net = { .schemes = iscsi_schemes, .inspect = iscsi_inspect };

const struct engine_ops engine_iscsi = {
	.name = "iscsi",
	.probe = iscsi_probe,
	.net = &iscsi_net,
};
#endif
