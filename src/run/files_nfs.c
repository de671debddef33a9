/* files_nfs.c - a files phase whose dir is an nfs:// URL (files.h): the
 * tree in a directory of an NFS export, reached through libnfs without a
 * kernel NFS client.
 *
 * Every worker mounts the export on a connection of its own (nfs_file.h's
 * struct conn) and keeps qd operations in flight on it (struct files_slot),
 * each a chain of libnfs's asynchronous calls, the next started from the
 * callback of the one before (LOOKUPs / CREATE or OPEN, WRITEs or READs of
 * the connection's size, COMMIT with fsync, CLOSE; GETATTR, REMOVE,
 * RENAME twice, MKDIR, RMDIR, READDIR), the socket driven from the
 * worker's loop (nfs_drive). Over NFSv4 the operations that open a file
 * go one at a time per connection (slot_take says why). No operation
 * answered for the network I/O timeout, or a connection the server
 * closed, ends the worker's loop with what was in flight failed; a stop
 * starts nothing more and abandons what is left after FILES_NFS_DROP_NS.
 * The tree's checks, root and skeleton are calls waited for in place.
 *
 * The tree's root (DIR/iomoon-files) is marked by its FILES_MARKER holding
 * nfs_file.h's mark of the root's fileid, so a root iomoon did not make
 * is never touched. DIR itself is made when missing (one level: there is
 * no mount to make it through), and a DIR holding anything but iomoon's
 * tree needs allow_write. Paths are computed from indexes (files.h) and
 * hold no "..". Free space and inodes are not checked before (the server
 * says ENOSPC).
 */
#include "run/files.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/rc.h"

#ifdef HAVE_LIBNFS
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/clock.h"
#include "core/stop.h"
#include "io/netblk.h"
#include "io/nfs_file.h"

enum { S_OPEN, S_IO, S_SYNC, S_CLOSE };

/* One operation in flight: a chain of calls, each started from the
 * callback of the one before (slot_cb). */
struct files_slot {
	struct files_worker *w;
	enum files_op op;
	int busy, started, holds_open, step, err, eof, synced;
	uint64_t item, parent, t0, bytes, size, chunk;
	struct nfsfh *fh;
	char *buf;            /* bs bytes of w->buf: what a WRITE sends */
	char name[40];
	char path[PATH_MAX];
	char to[PATH_MAX + 4];
};

struct files_nfs {
	struct conn c;
	char base[PATH_MAX];  /* the subtree: "/DIR/iomoon-files/w3" in the export */
	struct files_slot *slots; /* qd */
	unsigned inflight;
	uint64_t progress_ns; /* the last reply came */
	int gone;             /* the connection failed: no more operations */
	int closing, fail_err; /* being destroyed: what is in flight ends with fail_err */
	int prefill;          /* the loop makes a mix's pool */
	int v4, opening;      /* NFSv4: a slot is between its OPEN and CLOSE */
};

/* A call started (r from libnfs's *_async), waited for within the I/O
 * timeout: 0, or -errno. */
static int waited(struct conn *c, int r)
{
	return r < 0 ? -EIO : nfs_wait(c, clock_ns() + net_io_timeout_ns());
}

static int n_stat(struct conn *c, const char *path, struct nfs_stat_64 *st)
{
	return waited(c, nfs_lstat64_async(c->n, path, nfs_call_cb, nfs_call(c, st, sizeof(*st))));
}

static int n_mkdir(struct conn *c, const char *path)
{
	return waited(c, nfs_mkdir_async(c->n, path, nfs_call_cb, nfs_call(c, NULL, 0)));
}

static int n_rmdir(struct conn *c, const char *path)
{
	return waited(c, nfs_rmdir_async(c->n, path, nfs_call_cb, nfs_call(c, NULL, 0)));
}

static int n_unlink(struct conn *c, const char *path)
{
	return waited(c, nfs_unlink_async(c->n, path, nfs_call_cb, nfs_call(c, NULL, 0)));
}

/* The names in directory path, of a directory of level, into l. */
static int n_left(struct conn *c, const char *path, const struct files_spec *sp, int level, struct files_left *l)
{
	struct nfsdir *d;
	struct nfsdirent *e;
	int r = waited(c, nfs_opendir_async(c->n, path, nfs_call_cb, nfs_call(c, NULL, 0)));

	if (r < 0)
		return r;
	d = c->c.ptr;
	while ((e = nfs_readdir(c->n, d)))
		files_left_add(sp, level, e->name, l);
	nfs_closedir(c->n, d);
	return 0;
}

/* The root's path ("/DIR/iomoon-files") and its marker's. */
static void root_paths(const struct conn *c, char *root, char *marker, size_t len)
{
	snprintf(root, len, "%s/%s", c->u->file, FILES_ROOT);
	snprintf(marker, len, "%s/%s/%s", c->u->file, FILES_ROOT, FILES_MARKER);
}

/* Is the root at path iomoon's (its marker names its fileid)? */
static int root_ours(struct conn *c, const char *root, const char *marker)
{
	struct nfs_stat_64 st;

	return n_stat(c, root, &st) == 0 && S_ISDIR(st.nfs_mode) && nfs_mark_matches(c, marker, st.nfs_ino);
}

static int makes(const struct files_spec *sp)
{
	return sp->mix || sp->op == FOP_MKDIR || sp->op == FOP_CREATE;
}

int files_nfs_check(const struct files_spec *sp, char *why, size_t why_len)
{
	struct conn c;
	struct nfs_stat_64 st;
	char root[PATH_MAX], marker[PATH_MAX + 16];
	struct files_left left = { .n = 0 };
	int rc = nfs_conn_open(&c, sp->dir, why, why_len), r;

	if (rc != RC_OK) {
		if (rc == RC_INPUT)
			snprintf(why, why_len, "files.dir: %s is not an NFS directory URL (nfs://HOST[:PORT]/EXPORT/DIR"
				 "?version=4&nfsport=N)", c.shown);
		return rc;
	}
	root_paths(&c, root, marker, sizeof(root));
	r = n_stat(&c, c.u->file, &st);
	if (r == -ENOENT && makes(sp)) {
		rc = RC_OK; /* made by the phase, empty */
	} else if (r == -ENOENT) {
		snprintf(why, why_len, "files.dir: %s holds no tree of iomoon (%s) for op '%s'; make one first "
			 "(op = \"create\" or \"mkdir\", or a mix)", c.shown, FILES_ROOT, files_op_names[sp->op]);
		rc = RC_INPUT;
	} else if (r < 0) {
		nfs_why(&c, "files.dir", r, why, why_len);
		rc = RC_FAIL;
	} else if (!S_ISDIR(st.nfs_mode)) {
		snprintf(why, why_len, "files.dir: %s is not a directory (give a directory of the export)", c.shown);
		rc = RC_INPUT;
	} else if ((r = n_stat(&c, root, &st)) == 0) {
		if (!root_ours(&c, root, marker)) {
			snprintf(why, why_len, "files.dir: %s/%s was not made by iomoon (no matching %s in it): "
				 "nothing in it is touched; remove it or give another dir", c.shown, FILES_ROOT, FILES_MARKER);
			rc = RC_INPUT;
		}
	} else if (r != -ENOENT) {
		nfs_why(&c, FILES_ROOT, r, why, why_len);
		rc = RC_FAIL;
	} else if (makes(sp) && !sp->allow_write && (n_left(&c, c.u->file, sp, FILES_LEVEL_ROOT, &left) < 0 || left.n)) {
		snprintf(why, why_len, "files.dir: %s is not empty and holds no tree of iomoon; give files.allow_write = "
			 "true to make one beside what is there (only the tree's own files are ever touched)", c.shown);
		rc = RC_INPUT;
	}
	nfs_conn_close(&c);
	return rc;
}

int files_nfs_tree_open(const struct files_spec *sp, int create, char *why, size_t why_len)
{
	struct conn c;
	struct nfs_stat_64 st;
	char root[PATH_MAX], marker[PATH_MAX + 16];
	int rc = nfs_conn_open(&c, sp->dir, why, why_len), r = 0;

	if (rc != RC_OK)
		return rc;
	root_paths(&c, root, marker, sizeof(root));
	if (create && n_stat(&c, c.u->file, &st) == -ENOENT)
		r = n_mkdir(&c, c.u->file);
	if (!r && create && n_stat(&c, root, &st) == -ENOENT) {
		r = n_mkdir(&c, root);
		if (!r)
			r = n_stat(&c, root, &st);
		if (!r)
			r = nfs_mark_write(&c, marker, st.nfs_ino);
	}
	if (r < 0) {
		nfs_why(&c, "cannot make and mark the tree", r, why, why_len);
		rc = r == -EROFS || r == -EACCES || r == -EPERM ? RC_INPUT : RC_FAIL; /* a read-only export */
	} else if (!root_ours(&c, root, marker)) {
		snprintf(why, why_len, "files.dir: %s/%s: %s", c.shown, FILES_ROOT,
			 create ? "not made by iomoon (its marker does not match)"
				: "holds no tree of iomoon; make one first (op = \"create\" or \"mkdir\", or a mix)");
		rc = RC_INPUT;
	}
	nfs_conn_close(&c);
	return rc;
}

/* The path of name in the directory of key, in w's subtree. */
static void item_path(const struct files_worker *w, uint64_t key, const char *name, char *out, size_t len)
{
	char rel[PATH_MAX];

	if (key == 0) {
		snprintf(out, len, "%.3000s/%.100s", w->nfs->base, name);
		return;
	}
	files_key_path(w->sp, key, rel, sizeof(rel));
	snprintf(out, len, "%.2000s/%.1900s/%.100s", w->nfs->base, rel, name);
}

/* Every directory of the subtree, made where missing, levels in order. */
static int skeleton(struct files_worker *w)
{
	char name[32], path[PATH_MAX];

	for (int l = 1; l <= (int)w->sp->depth; l++)
		for (uint64_t i = 0; i < files_level_nodes(w->sp, l); i++) {
			int r;

			item_path(w, files_node_parent(w->sp, l, i, name, sizeof(name)), name, path, sizeof(path));
			if ((r = n_mkdir(&w->nfs->c, path)) < 0 && r != -EEXIST)
				return r;
		}
	return 0;
}

int files_nfs_worker_open(struct files_worker *w, const char *subtree, int create, char *why, size_t why_len)
{
	const struct files_spec *sp = w->sp;
	struct files_nfs *f = calloc(1, sizeof(*f));
	int rc, r = 0;

	if (!f) {
		snprintf(why, why_len, "files: out of memory for worker %u's connection", w->id);
		return RC_FAIL;
	}
	if ((rc = nfs_conn_open(&f->c, sp->dir, why, why_len)) != RC_OK) {
		free(f);
		return rc;
	}
	w->nfs = f;
	f->v4 = strcasestr(sp->dir, "version=4") != NULL; /* libnfs's default is 3 */
	if (!(f->slots = calloc(sp->qd, sizeof(*f->slots)))) {
		snprintf(why, why_len, "files: out of memory for worker %u's operations", w->id);
		return RC_FAIL;
	}
	for (unsigned i = 0; i < sp->qd; i++)
		f->slots[i] = (struct files_slot){ .w = w, .buf = w->buf + (size_t)i * sp->bs };
	snprintf(f->base, sizeof(f->base), "%.3000s/%s/%s", f->c.u->file, FILES_ROOT, subtree);
	if (create && (!sp->shared || !w->id)) {
		r = n_mkdir(&f->c, f->base);
		if (r == -EEXIST)
			r = 0;
		if (!r && (sp->mix || sp->op != FOP_MKDIR))
			r = skeleton(w);
	} else {
		struct nfs_stat_64 st;

		r = n_stat(&f->c, f->base, &st);
	}
	if (r == -ENOENT && sp->op == FOP_RMDIR && !sp->mix) /* removed before: the root's left */
		w->gone = 1, r = 0;
	if (r < 0) {
		nfs_why(&f->c, subtree, r, why, why_len);
		return r == -ENOENT ? RC_INPUT : RC_FAIL;
	}
	return RC_OK;
}

void files_nfs_worker_close(struct files_worker *w)
{
	if (!w->nfs)
		return;
	w->nfs->closing = 1; /* nothing is in flight by now; were it, it ends */
	nfs_conn_close(&w->nfs->c);
	free(w->nfs->slots);
	free(w->nfs);
	w->nfs = NULL;
}

/* The directory key and path of op on item. */
static uint64_t op_path(struct files_worker *w, enum files_op op, uint64_t item, char *name, size_t nlen, char *path,
			size_t plen)
{
	uint64_t parent;

	if (op == FOP_READDIR) {
		parent = files_node_parent(w->sp, (int)w->sp->depth, item, name, nlen);
		item_path(w, parent, name, path, plen);
		return (uint64_t)w->sp->depth << 48 | item;
	}
	parent = op == FOP_MKDIR || op == FOP_RMDIR ? files_node_parent(w->sp, w->level, item, name, nlen)
		 : op == FOP_DIRSTAT ? files_node_parent(w->sp, (int)w->sp->depth, item, name, nlen)
				     : files_item_parent(w->sp, item, name, nlen);
	item_path(w, parent, name, path, plen);
	return parent;
}

/* --- the worker's loop: qd operations in flight on its connection --- */

static void slot_cb(int status, struct nfs_context *n, void *data, void *priv);

/* The slot's operation is over (err 0 or -errno): counted, the slot free. */
static void slot_end(struct files_slot *s, int err)
{
	struct files_worker *w = s->w;

	if (!s->busy)
		return;
	s->busy = 0;
	if (s->holds_open)
		w->nfs->opening = s->holds_open = 0;
	w->nfs->inflight--;
	w->nfs->progress_ns = clock_ns();
	if (s->op == FOP_READDIR) {
		s->bytes = 0; /* entries, not bytes */
		snprintf(s->name, sizeof(s->name), ".");
	}
	if (w->nfs->prefill) { /* a mix's pool: present, counted as prefilled, not measured */
		if (err == 0 || err == -EEXIST) {
			files_done(w, FOP_CREATE, s->item, s->bytes);
			w->res->created--;
			w->res->bytes_written -= s->bytes;
			w->res->prefilled += err == 0;
		} else {
			files_error(w, FOP_CREATE, s->parent, s->name, -err);
		}
		return;
	}
	if (err < 0) {
		files_release(w, s->op, s->item);
		if (s->op == FOP_CREATE && (s->fh || err == -EEXIST)) /* the file made before the failure */
			files_create_left(w, s->item);
		files_error(w, s->op, s->parent, s->name, -err);
		return;
	}
	hist_record(&w->res->op[s->op].lat, clock_ns() - s->t0);
	w->res->op[s->op].ops++;
	files_done(w, s->op, s->item, s->bytes);
}

/* The next call on the slot's open file: a READ to its end, the WRITEs of
 * its size, a COMMIT (fsync), then CLOSE (at once after a failure, err
 * kept). The libnfs call's result. */
static int slot_next(struct files_slot *s)
{
	struct files_nfs *f = s->w->nfs;
	const int writes = s->op == FOP_CREATE || s->op == FOP_WRITE || s->op == FOP_APPEND;

	if (!s->err && s->op == FOP_READ && !s->eof) {
		s->step = S_IO;
		return nfs_read_async(f->c.n, s->fh, s->chunk, slot_cb, s);
	}
	if (!s->err && writes && s->bytes < s->size) {
		s->step = S_IO;
		return nfs_write_async(f->c.n, s->fh, s->size - s->bytes < s->chunk ? s->size - s->bytes : s->chunk, s->buf,
				       slot_cb, s);
	}
	if (!s->err && writes && s->w->sp->fsync && !s->synced) {
		s->step = S_SYNC;
		s->synced = 1;
		return nfs_fsync_async(f->c.n, s->fh, slot_cb, s);
	}
	s->step = S_CLOSE;
	return nfs_close_async(f->c.n, s->fh, slot_cb, s);
}

/* A call of the slot's chain answered: the next one started, or the end. */
static void slot_cb(int status, struct nfs_context *n, void *data, void *priv)
{
	struct files_slot *s = priv;
	struct files_nfs *f = s->w->nfs;
	int r = 0, end = 1, err = status < 0 ? status : 0;

	(void)n;
	if (!s->busy)
		return;
	f->progress_ns = clock_ns(); /* a reply: the I/O timeout counts from here */
	if (f->closing) { /* the connection is going: what it had in flight is cancelled */
		slot_end(s, f->fail_err);
		return;
	}
	switch (s->op) {
	case FOP_RENAME: /* NAME to NAME.r, then back */
		if (status >= 0 && !s->step++) {
			end = 0;
			r = nfs_rename_async(f->c.n, s->to, s->path, slot_cb, s);
		}
		break;
	case FOP_READDIR:
		if (status >= 0) {
			while (nfs_readdir(f->c.n, data))
				s->bytes++;
			nfs_closedir(f->c.n, data);
		}
		break;
	case FOP_CREATE:
	case FOP_WRITE:
	case FOP_APPEND:
	case FOP_READ:
	case FOP_OPEN:
		if (s->step == S_CLOSE) {
			err = s->err ? s->err : err;
			break;
		}
		if (s->step == S_OPEN && status < 0)
			break;
		if (s->step == S_OPEN)
			s->fh = data;
		else if (status < 0)
			s->err = status;
		else if (s->step == S_IO && s->op != FOP_READ && !status)
			s->err = -EIO; /* a WRITE that wrote nothing */
		else if (s->step == S_IO && (s->bytes += (uint64_t)status, s->op == FOP_READ))
			s->eof = (uint64_t)status < s->chunk; /* a short read is the end of a file */
		end = 0;
		r = slot_next(s);
		break;
	default: /* stat, dirstat, delete, mkdir, rmdir: one call */
		break;
	}
	if (!end && r < 0) {
		end = 1;
		err = s->err ? s->err : -EIO;
	}
	if (end)
		slot_end(s, err);
}

/* Does op open the file (OPEN ... CLOSE)? */
static int opens(enum files_op op)
{
	return op == FOP_CREATE || op == FOP_WRITE || op == FOP_APPEND || op == FOP_READ || op == FOP_OPEN;
}

/* Start the operation taken into slot s (slot_take). */
static void slot_go(struct files_slot *s)
{
	struct files_worker *w = s->w;
	struct conn *c = &w->nfs->c;
	const struct files_spec *sp = w->sp;
	const enum files_op op = s->op;
	const uint64_t item = s->item;
	int flags = (int)(files_open_flags(sp, op) & ~(uint64_t)O_DIRECT), r;

	s->started = 1;
	if (w->nfs->v4 && opens(op))
		w->nfs->opening = s->holds_open = 1;
	s->step = S_OPEN;
	s->err = s->eof = s->synced = 0;
	s->bytes = 0;
	s->fh = NULL;
	s->t0 = clock_ns();
	s->parent = op_path(w, op, item, s->name, sizeof(s->name), s->path, sizeof(s->path));
	s->size = op == FOP_CREATE || op == FOP_WRITE ? files_item_size(sp, w->id, item) : op == FOP_APPEND ? sp->bs : 0;
	s->chunk = op == FOP_READ ? (sp->bs < c->rmax ? sp->bs : c->rmax) : (sp->bs < c->wmax ? sp->bs : c->wmax);
	switch (op) {
	case FOP_STAT:
	case FOP_DIRSTAT:
		r = nfs_lstat64_async(c->n, s->path, slot_cb, s);
		break;
	case FOP_DELETE:
		r = nfs_unlink_async(c->n, s->path, slot_cb, s);
		break;
	case FOP_MKDIR:
		r = nfs_mkdir_async(c->n, s->path, slot_cb, s);
		break;
	case FOP_RMDIR:
		r = nfs_rmdir_async(c->n, s->path, slot_cb, s);
		break;
	case FOP_RENAME:
		snprintf(s->to, sizeof(s->to), "%s.r", s->path);
		r = nfs_rename_async(c->n, s->path, s->to, slot_cb, s);
		break;
	case FOP_READDIR:
		r = nfs_opendir_async(c->n, s->path, slot_cb, s);
		break;
	case FOP_CREATE:
		r = nfs_create_async(c->n, s->path, flags & ~O_CREAT, 0644, slot_cb, s);
		break;
	default:
		r = nfs_open_async(c->n, s->path, flags, slot_cb, s);
		break;
	}
	if (r < 0)
		slot_end(s, -EIO);
}

/* Take op on item into the free slot s: started at once, or (NFSv4, an
 * operation that opens the file while another slot has one open) when
 * that one is closed: libnfs 4.0 keeps one open-owner per connection and
 * does not order its seqids, so two OPENs or CLOSEs in flight at once fail
 * (NFS4ERR_BAD_SEQID, ERANGE here). */
static void slot_take(struct files_slot *s, enum files_op op, uint64_t item)
{
	s->op = op;
	s->item = item;
	s->busy = 1;
	s->started = 0;
	s->w->nfs->inflight++;
	if (!(s->w->nfs->v4 && opens(op) && s->w->nfs->opening))
		slot_go(s);
}

/* The connection is gone (err: -ETIMEDOUT, -ENOTCONN, -EINTR): every
 * operation in flight ends with err, the context destroyed. */
static void fail_all(struct files_worker *w, int err)
{
	struct files_nfs *f = w->nfs;

	f->closing = 1;
	f->fail_err = err;
	nfs_conn_close(&f->c); /* cancels what is in flight: slot_cb ends each */
	for (unsigned i = 0; i < w->sp->qd; i++)
		slot_end(&f->slots[i], err);
	f->gone = 1;
}

#define FILES_NFS_DROP_NS 250000000ull /* what is in flight at a stop is awaited this long */

/* Operations from files_next (or, prefill, a create of every item of w's
 * part), qd in flight, until there are no more and none is in flight. */
static void run(struct files_worker *w, int prefill)
{
	struct files_nfs *f = w->nfs;
	uint64_t done = 0, k = 0, stop_ns = 0, item;
	enum files_op op;
	int more = 1;

	f->prefill = prefill;
	f->progress_ns = clock_ns();
	while (!f->gone) {
		for (unsigned i = 0; i < w->sp->qd; i++) { /* the waiting ones: at a stop, dropped untouched */
			struct files_slot *q = &f->slots[i];

			if (q->busy && !q->started && phase_interrupt) {
				q->busy = 0;
				f->inflight--;
				files_release(w, q->op, q->item);
			} else if (q->busy && !q->started && !f->opening) {
				slot_go(q);
			}
		}
		for (unsigned i = 0; i < w->sp->qd && more && !phase_interrupt; i++) {
			if (f->slots[i].busy)
				continue;
			if (prefill && k < w->nitems)
				op = FOP_CREATE, item = w->first_item + k++ * w->step;
			else if (prefill || !files_next(w, &op, &item, &done))
				more = 0;
			if (more)
				slot_take(&f->slots[i], op, item);
		}
		if (!f->inflight && (!more || phase_interrupt))
			break;
		more |= !prefill && w->waiting; /* the mix's files were all in flight: try again */
		if (phase_interrupt && !stop_ns)
			stop_ns = clock_ns();
		if (stop_ns && clock_ns() - stop_ns > FILES_NFS_DROP_NS)
			fail_all(w, -EINTR);
		else if (clock_ns() - f->progress_ns > net_io_timeout_ns())
			fail_all(w, -ETIMEDOUT);
		else if (nfs_drive(f->c.n, clock_ns() + NET_STOP_POLL_NS) < 0)
			fail_all(w, -ENOTCONN);
	}
	f->prefill = 0;
}

void files_nfs_loop(struct files_worker *w)
{
	run(w, 0);
}

/* A mix's pool: every file of w's part made where missing (not measured:
 * counted as prefilled, not created). */
void files_nfs_prefill(struct files_worker *w)
{
	run(w, 1);
}

int files_nfs_left(struct files_worker *w, const char *rel, int level, struct files_left *l)
{
	char path[PATH_MAX];

	if (w->nfs->gone)
		return -ENOTCONN;
	snprintf(path, sizeof(path), "%.3000s/%.1000s", w->nfs->base, rel);
	return n_left(&w->nfs->c, path, w->sp, level, l);
}

/* After rmdir: subtree path removed, or what is left in it that is not
 * the tree's counted in res (a shared one's on rank 0 alone). */
static void prune_subtree(const struct files_spec *sp, struct conn *c, const char *path, struct files_result *res)
{
	char where[PATH_MAX];
	struct files_left l = { .n = 0 };
	int r = n_rmdir(c, path), listed = 0;

	if (r == 0 || r == -ENOENT || (sp->shared && sp->rank > 0))
		return;
	if (r == -ENOTEMPTY || r == -EEXIST)
		listed = n_left(c, path, sp, 0, &l) == 0;
	snprintf(where, sizeof(where), "%s/%s", FILES_ROOT, strrchr(path, '/') + 1);
	files_rmdir_left(sp, res, 0, -r, where, listed ? &l : NULL);
}

void files_nfs_prune(const struct files_spec *sp, const char *const *subtrees, unsigned n, struct files_result *res)
{
	struct conn c;
	char root[PATH_MAX], marker[PATH_MAX + 16], path[PATH_MAX + 64], why[512], detail[128];
	struct files_left l = { .n = 0 };

	if (nfs_conn_open(&c, sp->dir, why, sizeof(why)) != RC_OK)
		return;
	root_paths(&c, root, marker, sizeof(root));
	for (unsigned i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, subtrees[i]);
		prune_subtree(sp, &c, path, res);
	}
	if (root_ours(&c, root, marker) && n_left(&c, root, sp, FILES_LEVEL_ROOT, &l) == 0) {
		if (files_left_error(sp, FILES_LEVEL_ROOT, &l, detail, sizeof(detail))) {
			if (sp->rank <= 0)
				files_error_count(res, FOP_RMDIR, ENOTEMPTY, FILES_ROOT, detail);
		} else if (l.n == 1 && !strcmp(l.name, FILES_MARKER) && n_unlink(&c, marker) == 0) {
			(void)n_rmdir(&c, root);
		}
	}
	nfs_conn_close(&c);
}

#else

static int not_built(char *why, size_t why_len)
{
	snprintf(why, why_len, "files.dir: an nfs:// directory needs engine nfs, which is not built here (libnfs was "
		 "not found: make deps installs libnfs-dev, then make)");
	return RC_INPUT;
}

int files_nfs_check(const struct files_spec *sp, char *why, size_t why_len)
{
	(void)sp;
	return not_built(why, why_len);
}

int files_nfs_tree_open(const struct files_spec *sp, int create, char *why, size_t why_len)
{
	(void)sp;
	(void)create;
	return not_built(why, why_len);
}

int files_nfs_worker_open(struct files_worker *w, const char *subtree, int create, char *why, size_t why_len)
{
	(void)w;
	(void)subtree;
	(void)create;
	return not_built(why, why_len);
}

void files_nfs_worker_close(struct files_worker *w)
{
	(void)w;
}

void files_nfs_prefill(struct files_worker *w)
{
	(void)w;
}

void files_nfs_loop(struct files_worker *w)
{
	(void)w;
}

void files_nfs_prune(const struct files_spec *sp, const char *const *subtrees, unsigned n, struct files_result *res)
{
	(void)sp;
	(void)subtrees;
	(void)n;
	(void)res;
}

int files_nfs_left(struct files_worker *w, const char *rel, int level, struct files_left *l)
{
	(void)w;
	(void)rel;
	(void)level;
	(void)l;
	return -ENOSYS;
}
#endif
