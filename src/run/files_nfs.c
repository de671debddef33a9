/* files_nfs.c - a files phase whose dir is an nfs:// URL (files.h): the
 * tree in a directory of an NFS export, reached through libnfs without a
 * kernel NFS client.
 *
 * Every worker mounts the export on a connection of its own (nfs_file.h's
 * struct conn) and does one operation at a time, each a chain of calls
 * waited for in place (qd 1: LOOKUP / CREATE or OPEN, WRITEs or READs of
 * the connection's size, COMMIT with fsync, CLOSE; GETATTR, REMOVE,
 * RENAME, MKDIR, RMDIR, READDIR). A call with no answer in the network I/O
 * timeout, or a connection the server closed, ends the worker's loop with
 * that error counted; a stop signal ends a wait at once.
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

struct files_nfs {
	struct conn c;
	char base[PATH_MAX];  /* the subtree: "/DIR/iomoon-files/w3" in the export */
	int gone;             /* the connection failed: no more operations */
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

/* The entries of directory path but "." and ".." (and skip): into *n. */
static int n_entries(struct conn *c, const char *path, const char *skip, uint64_t *n)
{
	struct nfsdir *d;
	struct nfsdirent *e;
	int r = waited(c, nfs_opendir_async(c->n, path, nfs_call_cb, nfs_call(c, NULL, 0)));

	*n = 0;
	if (r < 0)
		return r;
	d = c->c.ptr;
	while ((e = nfs_readdir(c->n, d)))
		if (strcmp(e->name, ".") && strcmp(e->name, "..") && (!skip || strcmp(e->name, skip)))
			(*n)++;
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
	uint64_t n = 0;
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
	} else if (makes(sp) && !sp->allow_write && (n_entries(&c, c.u->file, NULL, &n) < 0 || n)) {
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
	nfs_conn_close(&w->nfs->c);
	free(w->nfs);
	w->nfs = NULL;
}

/* size bytes of w's buffer into fh, WRITEs of bs (and the connection's
 * size) at most: 0 or -errno. */
static int write_all(struct files_worker *w, struct nfsfh *fh, uint64_t size, uint64_t *bytes)
{
	struct conn *c = &w->nfs->c;
	uint64_t chunk = w->sp->bs < c->wmax ? w->sp->bs : c->wmax;

	for (uint64_t off = 0; off < size;) {
		uint64_t len = size - off < chunk ? size - off : chunk;
		int r;

		if (phase_interrupt)
			return -EINTR;
		r = waited(c, nfs_write_async(c->n, fh, len, w->buf, nfs_call_cb, nfs_call(c, NULL, 0)));
		if (r < 0)
			return r;
		off += (uint64_t)c->c.status;
		*bytes += (uint64_t)c->c.status;
		if (!c->c.status)
			return -EIO;
	}
	return 0;
}

static int read_all(struct files_worker *w, struct nfsfh *fh, uint64_t *bytes)
{
	struct conn *c = &w->nfs->c;
	uint64_t chunk = w->sp->bs < c->rmax ? w->sp->bs : c->rmax;

	for (;;) {
		int r;

		if (phase_interrupt)
			return -EINTR;
		r = waited(c, nfs_read_async(c->n, fh, chunk, nfs_call_cb, nfs_call(c, w->buf, chunk)));
		if (r < 0)
			return r;
		*bytes += (uint64_t)c->c.status;
		if ((uint64_t)c->c.status < chunk) /* a short read is the end of a file */
			return 0;
	}
}

/* One operation on the file at path: 0, or -errno. */
static int file_op(struct files_worker *w, enum files_op op, const char *path, uint64_t item, uint64_t *bytes)
{
	const struct files_spec *sp = w->sp;
	struct conn *c = &w->nfs->c;
	struct nfs_stat_64 st;
	struct nfsfh *fh;
	char to[PATH_MAX + 4];
	int r, r2;

	switch (op) {
	case FOP_STAT:
	case FOP_DIRSTAT:
		return n_stat(c, path, &st);
	case FOP_DELETE:
		return n_unlink(c, path);
	case FOP_MKDIR:
		return n_mkdir(c, path);
	case FOP_RMDIR:
		return n_rmdir(c, path);
	case FOP_RENAME:
		snprintf(to, sizeof(to), "%s.r", path);
		r = waited(c, nfs_rename_async(c->n, path, to, nfs_call_cb, nfs_call(c, NULL, 0)));
		return r < 0 ? r : waited(c, nfs_rename_async(c->n, to, path, nfs_call_cb, nfs_call(c, NULL, 0)));
	case FOP_READDIR:
		return n_entries(c, path, NULL, bytes);
	default:
		break;
	}
	r = nfs_file_open(c, path, (int)files_open_flags(sp, op) & ~O_DIRECT, &fh);
	if (r < 0)
		return r;
	if (op == FOP_CREATE || op == FOP_WRITE)
		r = write_all(w, fh, files_item_size(sp, w->id, item), bytes);
	else if (op == FOP_APPEND)
		r = write_all(w, fh, sp->bs, bytes);
	else if (op == FOP_READ)
		r = read_all(w, fh, bytes);
	if (!r && sp->fsync && (op == FOP_CREATE || op == FOP_WRITE || op == FOP_APPEND))
		r = waited(c, nfs_fsync_async(c->n, fh, nfs_call_cb, nfs_call(c, NULL, 0)));
	if (r == -ETIMEDOUT || r == -ENOTCONN || r == -EINTR)
		return r; /* the handle goes with the connection */
	r2 = nfs_file_close(c, fh);
	return r ? r : r2;
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

/* A failure that ends the worker: the connection is no more. */
static int fatal(int r)
{
	return r == -ETIMEDOUT || r == -ENOTCONN;
}

void files_nfs_loop(struct files_worker *w)
{
	enum files_op op;
	uint64_t item, done = 0;
	char name[40], path[PATH_MAX];

	while (!w->nfs->gone && files_next(w, &op, &item, &done)) {
		uint64_t bytes = 0, t0 = clock_ns();
		uint64_t parent = op_path(w, op, item, name, sizeof(name), path, sizeof(path));
		int rc = file_op(w, op, path, item, &bytes);

		if (op == FOP_READDIR) {
			bytes = 0;
			snprintf(name, sizeof(name), ".");
		}
		if (rc < 0) {
			files_release(w, op, item);
			files_error(w, op, parent, name, -rc);
			w->nfs->gone = fatal(rc);
			continue;
		}
		hist_record(&w->res->op[op].lat, clock_ns() - t0);
		w->res->op[op].ops++;
		files_done(w, op, item, bytes);
	}
}

/* A mix's pool: every file of w's part made where missing (not measured:
 * counted as prefilled, not created). */
void files_nfs_prefill(struct files_worker *w)
{
	char name[40], path[PATH_MAX];

	for (uint64_t k = 0; k < w->nitems && !phase_interrupt && !w->nfs->gone; k++) {
		uint64_t item = w->first_item + k * w->step, bytes = 0;
		uint64_t parent = op_path(w, FOP_CREATE, item, name, sizeof(name), path, sizeof(path));
		int r = file_op(w, FOP_CREATE, path, item, &bytes);

		if (r == 0 || r == -EEXIST) {
			files_done(w, FOP_CREATE, item, bytes); /* marks it present; counted as prefilled instead */
			w->res->created--;
			w->res->bytes_written -= bytes;
			w->res->prefilled += r == 0;
		} else {
			files_error(w, FOP_CREATE, parent, name, -r);
			w->nfs->gone = fatal(r);
		}
	}
}

void files_nfs_prune(const struct files_spec *sp, const char *const *subtrees, unsigned n)
{
	struct conn c;
	char root[PATH_MAX], marker[PATH_MAX + 16], path[PATH_MAX + 64], why[512];
	uint64_t left = 1;

	if (nfs_conn_open(&c, sp->dir, why, sizeof(why)) != RC_OK)
		return;
	root_paths(&c, root, marker, sizeof(root));
	for (unsigned i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, subtrees[i]);
		(void)n_rmdir(&c, path); /* ENOTEMPTY: left */
	}
	if (root_ours(&c, root, marker) && n_entries(&c, root, FILES_MARKER, &left) == 0 && !left &&
	    n_unlink(&c, marker) == 0)
		(void)n_rmdir(&c, root);
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

void files_nfs_prune(const struct files_spec *sp, const char *const *subtrees, unsigned n)
{
	(void)sp;
	(void)subtrees;
	(void)n;
}
#endif
