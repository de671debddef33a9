/* nfs_file.c - a file inside an NFS export: connections, calls waited
 * for in place, and what target.c asks of one (nfs_file.h).
 *
 * The mark. NFSv4.0 and v3 have no extended attributes, so a file iomoon
 * creates is marked by a file beside it, ".NAME.iomoon", holding the
 * server's fileid of the file created; a file whose fileid does not match
 * (replaced, or never iomoon's) is anyone's, and only read unless
 * allow_write (target_write.c). A fill writes fill.h's data, NFS_FILL_QD
 * WRITEs in flight, then COMMITs.
 */
#include "io/nfs_file.h"

#ifdef HAVE_LIBNFS
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/rc.h"
#include "io/fill.h"
#include "io/netblk.h"

#define NFS_FILL_QD 32u             /* WRITEs in flight while prepare fills */
#define NFS_MARK "iomoon-nfs-1"

void nfs_call_cb(int status, struct nfs_context *n, void *data, void *priv)
{
	struct call *c = priv;

	(void)n;
	c->done = 1;
	c->status = status;
	if (status < 0) {
		snprintf(c->err, sizeof(c->err), "%s", data ? (const char *)data : strerror(-status));
		return;
	}
	c->ptr = data;
	if (c->out && data)
		memcpy(c->out, data, status > 0 && (size_t)status < c->out_len ? (size_t)status : c->out_len);
}

/* Wait until libnfs's socket is ready for what it wants, or deadline,
 * NET_STOP_POLL_NS at most (the callers loop); then let libnfs read, write
 * and time out. 0, or -ENOTCONN for a connection that is gone. */
int nfs_drive(struct nfs_context *n, uint64_t deadline)
{
	struct pollfd p = { .fd = nfs_get_fd(n), .events = (short)nfs_which_events(n) };
	uint64_t now = clock_ns();
	struct timespec ts = { 0, 0 };
	int r;

	if (p.fd < 0)
		return -ENOTCONN;
	if (deadline > now) {
		uint64_t wait = deadline - now < NET_STOP_POLL_NS ? deadline - now : NET_STOP_POLL_NS;

		ts.tv_sec = (time_t)(wait / 1000000000ull);
		ts.tv_nsec = (long)(wait % 1000000000ull);
	}
	r = ppoll(&p, 1, &ts, NULL);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	return nfs_service(n, r > 0 ? p.revents : 0) < 0 ? -ENOTCONN : 0;
}

/* Wait for the call started on c until deadline: 0, the call's -errno,
 * -ETIMEDOUT, -EINTR (a stop signal) or -ENOTCONN. */
int nfs_wait(struct conn *c, uint64_t deadline)
{
	int r;

	while (!c->c.done) {
		if (net_stopped())
			return -EINTR;
		if (clock_ns() >= deadline)
			return -ETIMEDOUT;
		if ((r = nfs_drive(c->n, deadline)) < 0)
			return r;
	}
	return c->c.status < 0 ? c->c.status : 0;
}

/* A fresh call on c (out: where its reply's data goes). */
struct call *nfs_call(struct conn *c, void *out, size_t out_len)
{
	c->c = (struct call){ .out = out, .out_len = out_len };
	return &c->c;
}

/* What a failed nfs_call (r, from wait_call or the call itself) was, as why. */
void nfs_why(struct conn *c, const char *what, int r, char *why, size_t why_len)
{
	char e[512];

	if (r == -ETIMEDOUT)
		snprintf(e, sizeof(e), "no answer in %llu s", (unsigned long long)(net_io_timeout_ns() / 1000000000ull));
	else if (r == -EINTR)
		snprintf(e, sizeof(e), "interrupted");
	else if (r == -ENOTCONN)
		snprintf(e, sizeof(e), "the server closed the connection");
	else
		net_redact(c->c.err[0] ? c->c.err : strerror(-r), e, sizeof(e));
	snprintf(why, why_len, "%s: %s: %s", c->shown, what, e);
}

void nfs_conn_close(struct conn *c)
{
	if (c->u)
		nfs_destroy_url(c->u);
	if (c->n)
		nfs_destroy_context(c->n); /* cancels what is in flight: its callbacks see an error */
	c->u = NULL;
	c->n = NULL;
}

/* Connect to url and mount its export within NET_CONNECT_TIMEOUT_NS:
 * RC_OK, RC_INPUT for a URL libnfs cannot parse, RC_FAIL (why). */
int nfs_conn_open(struct conn *c, const char *url, char *why, size_t why_len)
{
	int r;

	memset(c, 0, sizeof(*c));
	net_redact(url, c->shown, sizeof(c->shown));
	if (!(c->n = nfs_init_context())) {
		snprintf(why, why_len, "%s: cannot create an NFS context", c->shown);
		return RC_FAIL;
	}
	c->u = nfs_parse_url_full(c->n, url);
	if (!c->u || !c->u->file || !c->u->file[1]) {
		char e[512];

		net_redact(nfs_get_error(c->n) ? nfs_get_error(c->n) : "no file", e, sizeof(e));
		snprintf(why, why_len, "%s: not an NFS file URL (%s): %s", c->shown, NFS_URL_FORM, e);
		nfs_conn_close(c);
		return RC_INPUT;
	}
	nfs_set_autoreconnect(c->n, 0); /* a server gone fails the engine, never a retry forever */
	{
		/* NFSv4: a client of its own per connection. libnfs 4.0 names
		 * every context of a process alike, so the server takes two
		 * workers' connections for one client and one's SETCLIENTID
		 * voids the other's opens (NFS4ERR_STALE_CLIENTID, BAD_SEQID) */
		static unsigned seq;
		char id[96];

		snprintf(id, sizeof(id), "iomoon.%ld.%u.%llu", (long)getpid(), __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED),
			 (unsigned long long)clock_ns());
		nfs4_set_client_name(c->n, id);
	}
	r = nfs_mount_async(c->n, c->u->server, c->u->path, nfs_call_cb, nfs_call(c, NULL, 0));
	if (r == 0)
		r = nfs_wait(c, clock_ns() + NET_CONNECT_TIMEOUT_NS);
	if (r < 0) {
		if (r == -ETIMEDOUT)
			snprintf(why, why_len, "%s: no answer in %llu s (connecting and mounting %s)", c->shown,
				 NET_CONNECT_TIMEOUT_NS / 1000000000ull, c->u->path);
		else
			nfs_why(c, "cannot mount the export", r, why, why_len);
		nfs_conn_close(c);
		return RC_FAIL;
	}
	c->rmax = nfs_get_readmax(c->n) ? (uint32_t)(nfs_get_readmax(c->n) < NFS_RPC_MAX ? nfs_get_readmax(c->n)
											: NFS_RPC_MAX)
					: NFS4_READ_MAX;
	c->wmax = nfs_get_writemax(c->n) ? (uint32_t)(nfs_get_writemax(c->n) < NFS_RPC_MAX ? nfs_get_writemax(c->n)
											  : NFS_RPC_MAX)
					 : NFS4_WRITE_MAX;
	c->wmax -= c->wmax % 512;
	c->rmax -= c->rmax % 512;
	return RC_OK;
}

/* Calls waited for in place, each within the I/O timeout: 0 or -errno. */
static int do_stat(struct conn *c, const char *path, struct nfs_stat_64 *st)
{
	int r = nfs_stat64_async(c->n, path, nfs_call_cb, nfs_call(c, st, sizeof(*st)));

	return r < 0 ? -EIO : nfs_wait(c, clock_ns() + net_io_timeout_ns());
}

int nfs_file_open(struct conn *c, const char *path, int flags, struct nfsfh **fh)
{
	int r = (flags & O_CREAT) ? nfs_create_async(c->n, path, flags & ~O_CREAT, 0644, nfs_call_cb, nfs_call(c, NULL, 0))
				  : nfs_open_async(c->n, path, flags, nfs_call_cb, nfs_call(c, NULL, 0));

	if (r < 0)
		return -EIO;
	r = nfs_wait(c, clock_ns() + net_io_timeout_ns());
	*fh = r == 0 ? c->c.ptr : NULL;
	return r;
}

int nfs_file_close(struct conn *c, struct nfsfh *fh)
{
	int r = nfs_close_async(c->n, fh, nfs_call_cb, nfs_call(c, NULL, 0));

	return r < 0 ? -EIO : nfs_wait(c, clock_ns() + net_io_timeout_ns());
}

static int do_pread(struct conn *c, struct nfsfh *fh, uint64_t off, void *buf, size_t len)
{
	while (len) {
		size_t n = len < c->rmax ? len : c->rmax;
		int r = nfs_pread_async(c->n, fh, off, n, nfs_call_cb, nfs_call(c, buf, n));

		if (r < 0 || (r = nfs_wait(c, clock_ns() + net_io_timeout_ns())) < 0)
			return r < 0 ? r : -EIO;
		if ((size_t)c->c.status < n) { /* past the end: what is not there reads as zeros */
			memset((char *)buf + c->c.status, 0, n - (size_t)c->c.status);
			if (!c->c.status)
				return 0;
		}
		off += n;
		buf = (char *)buf + n;
		len -= n;
	}
	return 0;
}

static int do_pwrite(struct conn *c, struct nfsfh *fh, uint64_t off, const void *buf, size_t len)
{
	int r = nfs_pwrite_async(c->n, fh, off, len, buf, nfs_call_cb, nfs_call(c, NULL, 0));

	return r < 0 ? -EIO : nfs_wait(c, clock_ns() + net_io_timeout_ns());
}

/* The mark's name for the file "/NAME": "/.NAME.iomoon". */
static void mark_name(const char *file, char *out, size_t len)
{
	const char *slash = strrchr(file, '/');

	snprintf(out, len, "%.*s.%s.iomoon", (int)(slash ? slash - file + 1 : 0), file, slash ? slash + 1 : file);
}

/* Does the mark at path say iomoon created the file of fileid? */
int nfs_mark_matches(struct conn *c, const char *path, uint64_t fileid)
{
	char have[128] = "", want[128];
	struct nfsfh *fh;

	if (nfs_file_open(c, path, O_RDONLY, &fh) < 0)
		return 0;
	(void)do_pread(c, fh, 0, have, sizeof(have) - 1);
	(void)nfs_file_close(c, fh);
	snprintf(want, sizeof(want), "%s fileid=%llu\n", NFS_MARK, (unsigned long long)fileid);
	return !strcmp(have, want);
}

/* Write the mark at path for the file of fileid (made, or replaced): 0 or
 * -errno. */
int nfs_mark_write(struct conn *c, const char *path, uint64_t fileid)
{
	char v[128];
	struct nfsfh *fh;
	int r;

	snprintf(v, sizeof(v), "%s fileid=%llu\n", NFS_MARK, (unsigned long long)fileid);
	if ((r = nfs_file_open(c, path, O_CREAT | O_RDWR | O_TRUNC, &fh)) < 0)
		return r;
	r = do_pwrite(c, fh, 0, v, strlen(v));
	(void)nfs_file_close(c, fh);
	return r;
}

static int mark_matches(struct conn *c, uint64_t fileid)
{
	char name[1024];

	mark_name(c->u->file, name, sizeof(name));
	return nfs_mark_matches(c, name, fileid);
}

static int mark_write(struct conn *c, uint64_t fileid, char *why, size_t why_len)
{
	char name[1024];
	int r;

	mark_name(c->u->file, name, sizeof(name));
	if ((r = nfs_mark_write(c, name, fileid)) < 0) {
		nfs_why(c, "cannot write the mark (the file beside it that says iomoon created it)", r, why, why_len);
		return RC_FAIL;
	}
	return RC_OK;
}

/* Who may write path (the file, or "/" for the export's root): 1 when the
 * server says this user may not (ACCESS; a read-only export). */
static int read_only(struct conn *c, const char *path)
{
	int r = nfs_access2_async(c->n, path, nfs_call_cb, nfs_call(c, NULL, 0));

	if (r < 0 || nfs_wait(c, clock_ns() + net_io_timeout_ns()) < 0)
		return 0; /* cannot tell: a write will say */
	return !(c->c.status & W_OK);
}

int nfs_file_inspect(const char *url, struct net_info *ni, char *why, size_t why_len)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct nfs_stat_64 st;
	int rc, r;

	if (!c) {
		snprintf(why, why_len, "out of memory");
		return RC_FAIL;
	}
	if ((rc = nfs_conn_open(c, url, why, why_len)) != RC_OK) {
		free(c);
		return rc;
	}
	memset(ni, 0, sizeof(*ni));
	ni->is_file = 1;
	ni->block = 512;
	ni->can_flush = 1;
	snprintf(ni->model, sizeof(ni->model), "NFS file");
	r = do_stat(c, c->u->file, &st);
	if (r == 0 && !S_ISREG(st.nfs_mode)) {
		snprintf(why, why_len, "%s is %s, not a regular file", c->shown,
			 S_ISDIR(st.nfs_mode) ? "a directory" : "of another kind");
		rc = RC_INPUT;
	} else if (r == 0) {
		ni->exists = 1;
		ni->size = st.nfs_size;
		ni->ours = mark_matches(c, st.nfs_ino);
		ni->read_only = read_only(c, c->u->file);
	} else if (r == -ENOENT) {
		ni->read_only = read_only(c, "/");
	} else {
		nfs_why(c, "cannot look the file up", r, why, why_len);
		rc = RC_FAIL;
	}
	nfs_conn_close(c);
	free(c);
	return rc;
}

int nfs_file_read(const char *url, uint64_t off, void *buf, size_t len, char *why, size_t why_len)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct nfsfh *fh;
	int r;

	if (!c || nfs_conn_open(c, url, why, why_len) != RC_OK) {
		free(c);
		return RC_FAIL;
	}
	r = nfs_file_open(c, c->u->file, O_RDONLY, &fh);
	if (r == 0) {
		r = do_pread(c, fh, off, buf, len);
		if (r == 0)
			(void)nfs_file_close(c, fh);
	}
	if (r < 0) {
		char what[96];

		snprintf(what, sizeof(what), "reading %zu bytes at %llu", len, (unsigned long long)off);
		nfs_why(c, what, r, why, why_len);
	}
	nfs_conn_close(c); /* before c goes: a late callback writes into c->c, and buf no more */
	free(c);
	return r < 0 ? RC_FAIL : RC_OK;
}

/* prepare's fill: NFS_FILL_QD WRITEs of fill.h's data in flight. */
struct fill_part {
	struct fill_state *f;
	int busy;
	char *buf;
};

struct fill_state {
	unsigned inflight;
	int err;
	struct fill_part part[NFS_FILL_QD];
};

static void fill_cb(int status, struct nfs_context *n, void *data, void *priv)
{
	struct fill_part *p = priv;

	(void)n;
	(void)data;
	p->busy = 0;
	p->f->inflight--;
	if (status < 0 && !p->f->err)
		p->f->err = status;
}

static int fill_range(struct conn *c, struct nfsfh *fh, uint64_t key, uint64_t off, uint64_t end)
{
	struct fill_state *f = calloc(1, sizeof(*f));
	char *bufs = malloc((size_t)NFS_FILL_QD * c->wmax);
	uint64_t progress = clock_ns();
	int r = 0;

	if (!f || !bufs) {
		free(f);
		free(bufs);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < NFS_FILL_QD; i++)
		f->part[i] = (struct fill_part){ .f = f, .buf = bufs + (size_t)i * c->wmax };
	while ((off < end || f->inflight) && !f->err && !r) {
		for (unsigned i = 0; i < NFS_FILL_QD && off < end; i++) {
			struct fill_part *p = &f->part[i];
			size_t n = end - off < c->wmax ? (size_t)(end - off) : c->wmax;

			if (p->busy)
				continue;
			fill_data(p->buf, n, key, off);
			if (nfs_pwrite_async(c->n, fh, off, n, p->buf, fill_cb, p) < 0) {
				r = -EIO;
				break;
			}
			p->busy = 1;
			f->inflight++;
			off += n;
		}
		if (r)
			break;
		{
			unsigned before = f->inflight;

			if (net_stopped())
				r = -EINTR;
			else if (clock_ns() - progress > net_io_timeout_ns())
				r = -ETIMEDOUT;
			else
				r = nfs_drive(c->n, clock_ns() + NET_STOP_POLL_NS);
			if (f->inflight < before)
				progress = clock_ns();
		}
	}
	if (!r)
		r = f->err;
	if (r && f->inflight)
		nfs_conn_close(c); /* what is still in flight writes from bufs: cancelled first */
	free(bufs);
	free(f);
	return r;
}

int nfs_file_prepare(const char *url, int create, uint64_t size, int random, uint64_t key, char *why,
		       size_t why_len)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct nfs_stat_64 st;
	struct nfsfh *fh = NULL;
	int rc = RC_FAIL, r;

	if (!c || nfs_conn_open(c, url, why, why_len) != RC_OK) {
		free(c);
		return RC_FAIL;
	}
	if (create) {
		r = do_stat(c, c->u->file, &st);
		if (r == 0) {
			snprintf(why, why_len, "%s appeared since it was checked; nothing was written", c->shown);
			rc = RC_INPUT;
			goto out;
		}
		r = nfs_file_open(c, c->u->file, O_CREAT | O_EXCL | O_RDWR, &fh);
	} else {
		r = nfs_file_open(c, c->u->file, O_RDWR, &fh);
	}
	if (r < 0) {
		nfs_why(c, create ? "cannot create the file" : "cannot open the file for writing", r, why, why_len);
		rc = r == -EROFS || r == -EACCES || r == -EPERM || r == -EEXIST ? RC_INPUT : RC_FAIL;
		goto out;
	}
	r = nfs_fstat64_async(c->n, fh, nfs_call_cb, nfs_call(c, &st, sizeof(st)));
	if (r < 0 || (r = nfs_wait(c, clock_ns() + net_io_timeout_ns())) < 0) {
		nfs_why(c, "cannot stat the file", r, why, why_len);
		goto out;
	}
	if (create && mark_write(c, st.nfs_ino, why, why_len) != RC_OK)
		goto out;
	if (size > st.nfs_size) {
		r = nfs_ftruncate_async(c->n, fh, size, nfs_call_cb, nfs_call(c, NULL, 0));
		if (r < 0 || (r = nfs_wait(c, clock_ns() + net_io_timeout_ns())) < 0) {
			nfs_why(c, "cannot extend the file", r, why, why_len);
			goto out;
		}
		if (random && (r = fill_range(c, fh, key, st.nfs_size, size)) < 0) {
			if (!c->n) { /* fill_range closed it */
				snprintf(why, why_len, "%s: filling it: %s", c->shown,
					 r == -EINTR ? "interrupted" : r == -ENOTCONN ? "the server closed the connection"
					 : strerror(-r));
				fh = NULL;
				goto out;
			}
			nfs_why(c, "filling it", r, why, why_len);
			goto out;
		}
		r = nfs_fsync_async(c->n, fh, nfs_call_cb, nfs_call(c, NULL, 0));
		if (r < 0 || (r = nfs_wait(c, clock_ns() + net_io_timeout_ns())) < 0) {
			nfs_why(c, "cannot commit the fill", r, why, why_len);
			goto out;
		}
	}
	rc = RC_OK;
out:
	if (fh && c->n)
		(void)nfs_file_close(c, fh);
	nfs_conn_close(c);
	free(c);
	return rc;
}
#endif
