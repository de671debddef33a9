/* files.c - a files phase (files.h): the tree's names and directories, its
 * checks, the workers, and the psync loop (one system call chain at a
 * time). The ring's loop is files_uring.c's.
 */
#include "run/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/rc.h"
#include "core/stop.h"
#include "cluster/cluster_files.h"
#include "io/target_int.h"

const char *const files_op_names[FOP_N] = { "mkdir", "create", "write", "append", "read", "stat",
					    "dirstat", "open", "rename", "readdir", "delete", "rmdir" };

int files_openat2(int dirfd, const char *path, uint64_t flags, uint64_t mode)
{
	struct open_how how = { .flags = flags | O_CLOEXEC, .mode = flags & O_CREAT ? mode : 0, .resolve = FILES_RESOLVE };
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* --- the tree's geometry and names --- */

uint64_t files_level_nodes(const struct files_spec *sp, int level)
{
	uint64_t n = 1;

	for (int l = 0; l < level; l++)
		n *= sp->width;
	return n;
}

uint64_t files_leaves(const struct files_spec *sp)
{
	return files_level_nodes(sp, (int)sp->depth);
}

#define KEY(level, i) ((uint64_t)(level) << 48 | (i))

uint64_t files_item_parent(const struct files_spec *sp, uint64_t item, char *name, size_t len)
{
	snprintf(name, len, "f%llu", (unsigned long long)(item % sp->files));
	return KEY(sp->depth, item / sp->files);
}

uint64_t files_node_parent(const struct files_spec *sp, int level, uint64_t i, char *name, size_t len)
{
	snprintf(name, len, "d%llu", (unsigned long long)(i % sp->width));
	return KEY(level - 1, i / sp->width);
}

void files_key_path(const struct files_spec *sp, uint64_t key, char *out, size_t len)
{
	int level = (int)(key >> 48);
	uint64_t i = key & ((1ull << 48) - 1);
	char tmp[PATH_MAX];

	snprintf(out, len, ".");
	for (int l = level; l > 0; l--, i /= sp->width) {
		snprintf(tmp, sizeof(tmp), "d%llu%s%s", (unsigned long long)(i % sp->width), l == level ? "" : "/",
			 l == level ? "" : out);
		snprintf(out, len, "%s", tmp);
	}
}

uint64_t files_item_size(const struct files_spec *sp, unsigned worker, uint64_t item)
{
	uint64_t x = sp->seed ^ (item * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)worker << 40);
	double total = 0, at;

	if (sp->nsize == 1)
		return sp->size[0];
	for (unsigned i = 0; i < sp->nsize; i++)
		total += sp->size_weight[i];
	at = (double)(rng_splitmix64(&x) >> 11) / 9007199254740992.0 * total;
	for (unsigned i = 0; i < sp->nsize; i++) {
		if (at < sp->size_weight[i])
			return sp->size[i];
		at -= sp->size_weight[i];
	}
	return sp->size[sp->nsize - 1];
}

void files_subtree_name(const struct files_spec *sp, unsigned id, char *out, size_t len)
{
	if (sp->shared)
		snprintf(out, len, "shared");
	else if (sp->rank >= 0)
		snprintf(out, len, "r%dw%u", sp->rank, id);
	else
		snprintf(out, len, "w%u", id);
}

/* --- a worker's open directories --- */

int files_dir_get(struct files_worker *w, uint64_t key, struct files_dirent **out)
{
	struct files_dirent *victim = NULL;
	char path[PATH_MAX];
	int fd;

	for (unsigned i = 0; i < w->ndc; i++)
		if (w->dc[i].fd >= 0 && w->dc[i].key == key) {
			w->dc[i].refs++;
			w->dc[i].used = ++w->dc_clock;
			*out = &w->dc[i];
			return w->dc[i].fd;
		}
	for (unsigned i = 0; i < w->ndc; i++)
		if (!w->dc[i].refs && (!victim || w->dc[i].fd < 0 || w->dc[i].used < victim->used))
			if (!victim || victim->fd >= 0)
				victim = &w->dc[i];
	if (!victim)
		return -EMFILE; /* cannot be: the cache has more entries than slots */
	if (key == KEY(0, 0)) {
		fd = dup(w->subtree_fd);
		if (fd < 0)
			return -errno;
	} else {
		files_key_path(w->sp, key, path, sizeof(path));
		fd = files_openat2(w->subtree_fd, path, O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0)
			return fd;
	}
	if (victim->fd >= 0)
		close(victim->fd);
	victim->fd = fd;
	victim->key = key;
	victim->refs = 1;
	victim->used = ++w->dc_clock;
	*out = victim;
	return fd;
}

void files_dir_put(struct files_dirent *de)
{
	if (de && de->refs)
		de->refs--;
}

/* --- counts --- */

static int bit(const uint8_t *b, uint64_t i)
{
	return b[i >> 3] >> (i & 7) & 1;
}

static void set_bit(uint8_t *b, uint64_t i, int on)
{
	if (on)
		b[i >> 3] |= (uint8_t)(1u << (i & 7));
	else
		b[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

/* The mix's index of item in w's bitmaps. */
static uint64_t local(const struct files_worker *w, uint64_t item)
{
	return (item - w->first_item) / w->step;
}

void files_release(struct files_worker *w, enum files_op op, uint64_t item)
{
	if (w->busy && op != FOP_READDIR && op != FOP_DIRSTAT)
		set_bit(w->busy, local(w, item), 0);
}

void files_create_left(struct files_worker *w, uint64_t item)
{
	if (w->present && !bit(w->present, local(w, item)))
		set_bit(w->present, local(w, item), 1), w->npresent++;
}

void files_done(struct files_worker *w, enum files_op op, uint64_t item, uint64_t bytes)
{
	struct files_result *r = w->res;

	files_release(w, op, item);
	if (w->present)
		item = local(w, item);
	switch (op) {
	case FOP_CREATE:
		r->created++;
		r->bytes_written += bytes;
		if (w->present && !bit(w->present, item))
			set_bit(w->present, item, 1), w->npresent++;
		break;
	case FOP_DELETE:
		r->deleted++;
		if (w->present && bit(w->present, item))
			set_bit(w->present, item, 0), w->npresent--;
		break;
	case FOP_WRITE:
	case FOP_APPEND:
		r->bytes_written += bytes;
		break;
	case FOP_READ:
		r->bytes_read += bytes;
		break;
	case FOP_MKDIR:
		r->dirs_made++;
		break;
	case FOP_RMDIR:
		r->dirs_removed++;
		break;
	default:
		break;
	}
}

/* --- what comes next --- */

/* An item of the mix for op: absent for create, present otherwise, never one
 * in flight; UINT64_MAX when there is none. */
static uint64_t mix_item(struct files_worker *w, enum files_op op)
{
	const uint64_t n = w->nitems;
	const int want = op != FOP_CREATE;

	if (op == FOP_READDIR || op == FOP_DIRSTAT)
		return rng_below(&w->rng, files_leaves(w->sp));
	if ((want && !w->npresent) || (!want && w->npresent == n))
		return UINT64_MAX;
	for (int tries = 0; tries < 8; tries++) {
		uint64_t i = rng_below(&w->rng, n);

		if (bit(w->present, i) == want && !bit(w->busy, i))
			return i;
	}
	/* then from a random byte on, skipping the bytes with no candidate */
	for (uint64_t k = 0, nb = (n + 7) / 8, b = rng_below(&w->rng, nb); k < nb; k++, b = b + 1 == nb ? 0 : b + 1) {
		uint8_t cand = (uint8_t)((want ? w->present[b] : ~w->present[b]) & ~w->busy[b]);

		for (unsigned j = 0; cand && j < 8; j++)
			if (cand >> j & 1 && b * 8 + j < n)
				return b * 8 + j;
	}
	return UINT64_MAX;
}

static enum files_op mix_op(struct files_worker *w)
{
	double total = 0, at;

	for (int op = 0; op < FOP_N; op++)
		total += w->sp->weight[op];
	at = rng_unit(&w->rng) * total;
	for (int op = 0; op < FOP_N; op++) {
		if (at < w->sp->weight[op] && w->sp->weight[op] > 0)
			return (enum files_op)op;
		at -= w->sp->weight[op];
	}
	for (int op = FOP_N - 1; op >= 0; op--)
		if (w->sp->weight[op] > 0)
			return (enum files_op)op;
	return FOP_STAT;
}

int files_next(struct files_worker *w, enum files_op *op, uint64_t *item, uint64_t *done)
{
	w->waiting = 0;
	if (phase_interrupt || w->taken >= w->quota) /* over every level of mkdir and rmdir */
		return 0;
	if (w->deadline_ns && clock_ns() >= w->deadline_ns)
		return 0;
	if (!w->sp->mix) {
		if (*done >= w->nitems)
			return 0;
		*op = w->sp->op;
		*item = w->first_item + *done * w->step;
		(*done)++;
		w->taken++;
		return 1;
	}
	for (int tries = 0; tries < 64; tries++) {
		*op = mix_op(w);
		*item = mix_item(w, *op);
		if (*item == UINT64_MAX)
			continue;
		if (*op != FOP_READDIR && *op != FOP_DIRSTAT) {
			set_bit(w->busy, *item, 1);
			*item = w->first_item + *item * w->step;
		}
		(*done)++;
		w->taken++;
		return 1;
	}
	w->waiting = 1; /* nothing the mix can do (no file, no room), or not until a file in flight is done */
	return 0;
}

uint64_t files_open_flags(const struct files_spec *sp, enum files_op op)
{
	/* a FIFO put at a name after its check (files_guard) cannot block an open */
	uint64_t d = (sp->direct ? O_DIRECT : 0) | O_NONBLOCK | O_NOFOLLOW;

	switch (op) {
	case FOP_CREATE:
		return O_WRONLY | O_CREAT | O_EXCL | d;
	case FOP_WRITE:
		return O_WRONLY | O_TRUNC | d;
	case FOP_APPEND:
		return O_WRONLY | O_APPEND | d;
	case FOP_READ:
		return O_RDONLY | d;
	default:
		return O_RDONLY | O_NONBLOCK | O_NOFOLLOW;
	}
}

int files_readdir(struct files_worker *w, uint64_t node, uint64_t *entries)
{
	char name[32], buf[8192];
	struct files_dirent *de;
	int pfd = files_dir_get(w, files_node_parent(w->sp, (int)w->sp->depth, node, name, sizeof(name)), &de);
	int fd = pfd < 0 ? pfd : files_openat2(pfd, name, O_RDONLY | O_DIRECTORY, 0);
	long n;

	files_dir_put(pfd < 0 ? NULL : de);
	if (fd < 0)
		return fd;
	*entries = 0;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n; off += ((struct dirent *)(buf + off))->d_reclen)
			(*entries)++;
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

/* --- the psync loop --- */

static int write_all(int fd, char *buf, uint64_t size, uint64_t bs, uint64_t *bytes)
{
	for (uint64_t off = 0; off < size;) {
		uint64_t len = size - off < bs ? size - off : bs;
		ssize_t n;

		if (phase_interrupt)
			return -EINTR; /* a large file is not finished after a stop */
		n = write(fd, buf, len);

		if (n < 0)
			return -errno;
		off += (uint64_t)n;
		*bytes += (uint64_t)n;
	}
	return 0;
}

/* The file op works on, opened (O_TRUNC left to after the check) and
 * checked on its descriptor (files_guard_fd): its fd, or -errno with why. */
static int psync_open(struct files_worker *w, enum files_op op, int dfd, const char *name, char *why, size_t len)
{
	const uint64_t flags = files_open_flags(w->sp, op);
	int fd = files_openat2(dfd, name, flags & ~(uint64_t)O_TRUNC, 0644), rc;

	if (fd < 0) /* what is at the name, when it is not a file (a FIFO without a reader: ENXIO) */
		return op != FOP_CREATE && (rc = files_guard(w, op, dfd, name, why, len)) < 0 ? rc : fd;
	w->opened = 1;
	if (op != FOP_CREATE && (rc = files_guard_fd(w, op, fd, why, len)) < 0) {
		close(fd);
		return rc;
	}
	if (flags & O_TRUNC && ftruncate(fd, 0) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/* One file operation by system calls: 0, or -errno (with why). */
static int psync_file_op(struct files_worker *w, enum files_op op, int dfd, const char *name, uint64_t item,
			 uint64_t *bytes, char *why, size_t len)
{
	const struct files_spec *sp = w->sp;
	char to[48];
	struct statx sx;
	int fd, rc = 0;
	ssize_t n;

	switch (op) {
	case FOP_STAT:
		return statx(dfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) < 0 ? -errno : 0;
	case FOP_DELETE:
		return unlinkat(dfd, name, 0) < 0 ? -errno : 0;
	case FOP_RENAME:
		snprintf(to, sizeof(to), "%.40s.r", name);
		if (renameat2(dfd, name, dfd, to, RENAME_NOREPLACE) < 0)
			return -errno;
		return renameat2(dfd, to, dfd, name, RENAME_NOREPLACE) < 0 ? -errno : 0;
	default:
		break;
	}
	fd = psync_open(w, op, dfd, name, why, len);
	if (fd < 0)
		return fd;
	if (op == FOP_CREATE || op == FOP_WRITE)
		rc = write_all(fd, w->buf, files_item_size(sp, w->id, item), sp->bs, bytes);
	else if (op == FOP_APPEND)
		rc = write_all(fd, w->buf, sp->bs, sp->bs, bytes);
	else if (op == FOP_READ)
		while ((n = read(fd, w->buf, sp->bs)) != 0) { /* a short read is the end of a file */
			if (phase_interrupt) {
				rc = -EINTR;
				break;
			}
			if (n < 0) {
				rc = -errno;
				break;
			}
			*bytes += (uint64_t)n;
			if ((uint64_t)n < sp->bs)
				break;
		}
	if (!rc && sp->fsync && (op == FOP_CREATE || op == FOP_WRITE || op == FOP_APPEND) && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

static void psync_loop(struct files_worker *w)
{
	enum files_op op;
	uint64_t item, done = 0;
	char name[40], why[160];

	while (files_next(w, &op, &item, &done)) {
		uint64_t bytes = 0, parent, t0 = clock_ns();
		struct files_dirent *de = NULL;
		int rc, dfd;

		w->opened = 0;
		why[0] = 0;
		if (op == FOP_READDIR) {
			parent = KEY(w->sp->depth, item);
			snprintf(name, sizeof(name), ".");
			rc = files_readdir(w, item, &bytes);
			bytes = 0;
		} else {
			parent = op == FOP_MKDIR || op == FOP_RMDIR ? files_node_parent(w->sp, w->level, item, name, sizeof(name))
				 : op == FOP_DIRSTAT ? files_node_parent(w->sp, (int)w->sp->depth, item, name, sizeof(name))
						     : files_item_parent(w->sp, item, name, sizeof(name));
			dfd = rc = files_dir_get(w, parent, &de);
			if (dfd >= 0) {
				struct statx sx;

				if (op == FOP_DIRSTAT)
					rc = statx(dfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) < 0 ? -errno : 0;
				else if (op == FOP_MKDIR)
					rc = mkdirat(dfd, name, 0755) < 0 ? -errno : 0;
				else if (op == FOP_RMDIR)
					rc = unlinkat(dfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
				else if ((op != FOP_DELETE && op != FOP_RENAME) ||
					 (rc = files_guard(w, op, dfd, name, why, sizeof(why))) == 0) {
					t0 = clock_ns(); /* a name's check is not the operation's; a file's is (psync_open) */
					rc = psync_file_op(w, op, dfd, name, item, &bytes, why, sizeof(why));
				}
				files_dir_put(de);
			}
		}
		if (rc < 0) {
			files_release(w, op, item);
			if (op == FOP_CREATE && (w->opened || rc == -EEXIST))
				files_create_left(w, item);
			files_error_why(w, op, parent, name, -rc, why[0] ? why : NULL);
			continue;
		}
		hist_record(&w->res->op[op].lat, clock_ns() - t0);
		w->res->op[op].ops++;
		files_done(w, op, item, bytes);
	}
}

/* --- the workers and the phase --- */

int files_subtree_open(int root, const char *name, int create);
int files_skeleton(const struct files_spec *sp, int fd, unsigned first, unsigned step);
void files_tree_prune(const struct files_spec *sp, int root, const char *const *subtrees, unsigned n,
		      struct files_result *res);

static void loop(struct files_worker *w)
{
	if (w->nfs)
		files_nfs_loop(w);
	else if (w->sp->uring)
		files_uring_loop(w);
	else
		psync_loop(w);
}

/* A mix's pool: every file of w's part made where missing (not measured). */
static void prefill(struct files_worker *w)
{
	char name[40];

	for (uint64_t k = 0; k < w->nitems && !phase_interrupt; k++) {
		uint64_t item = w->first_item + k * w->step, bytes = 0;
		struct files_dirent *de;
		uint64_t parent = files_item_parent(w->sp, item, name, sizeof(name));
		int dfd = files_dir_get(w, parent, &de), fd;

		fd = dfd < 0 ? dfd : files_openat2(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd >= 0) {
			write_all(fd, w->buf, files_item_size(w->sp, w->id, item), w->sp->bs, &bytes);
			close(fd);
			w->res->prefilled++;
		}
		if (dfd >= 0)
			files_dir_put(de);
		if (fd >= 0 || fd == -EEXIST) {
			set_bit(w->present, k, 1);
			w->npresent++;
		} else {
			files_error(w, FOP_CREATE, parent, name, -fd);
		}
	}
}

/* Work the nodes of one level (mkdir, rmdir), or the items of the phase:
 * a shared tree's split over every worker of every rank. */
static void set_items(struct files_worker *w, uint64_t n)
{
	const struct files_spec *sp = w->sp;
	const unsigned ranks = sp->ranks > 1 ? sp->ranks : 1, rank = sp->rank > 0 ? (unsigned)sp->rank : 0;

	w->first_item = sp->shared ? (uint64_t)rank * sp->workers + w->id : 0;
	w->step = sp->shared ? (uint64_t)sp->workers * ranks : 1;
	w->nitems = n > w->first_item ? (n - w->first_item + w->step - 1) / w->step : 0;
}

static void *worker_main(void *arg)
{
	struct files_worker *w = arg;
	const struct files_spec *sp = w->sp;
	enum files_op op = sp->op;

	if (sp->mix && w->nfs)
		files_nfs_prefill(w);
	else if (sp->mix)
		prefill(w);
	__atomic_add_fetch(&w->gate->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&w->gate->go, __ATOMIC_ACQUIRE))
		usleep(50);
	if (w->gate->go < 0)
		return NULL;
	w->deadline_ns = sp->duration_ns ? *w->start_ns + sp->duration_ns : 0;
	if (!sp->mix && (op == FOP_MKDIR || op == FOP_RMDIR)) {
		for (unsigned k = 0; k < sp->depth; k++) { /* every level: the barrier's count */
			w->level = op == FOP_MKDIR ? (int)k + 1 : (int)(sp->depth - k);
			set_items(w, files_level_nodes(sp, w->level));
			loop(w);
			if (op == FOP_RMDIR)
				files_held_judge(w);
			if (sp->shared)
				pthread_barrier_wait(w->level_barrier);
		}
	} else {
		loop(w);
	}
	w->done_ns = clock_ns();
	__atomic_add_fetch(&w->gate->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The workers' own memory, and their subtrees opened (made when the phase
 * makes files). */
static int workers_setup(const struct files_spec *sp, struct files_worker *w, struct files_result *res, int root,
			 char (*names)[32], char *why, size_t why_len)
{
	const int create = sp->mix || sp->op == FOP_MKDIR || sp->op == FOP_CREATE;
	const uint64_t items = files_leaves(sp) * sp->files;
	int rc;

	for (unsigned i = 0; i < sp->workers; i++) {
		w[i].sp = sp;
		w[i].id = i;
		w[i].res = &res[i];
		hist_init(&res[i].op[0].lat);
		for (int op = 0; op < FOP_N; op++)
			hist_init(&res[i].op[op].lat);
		rng_seed(&w[i].rng, sp->seed, i + 1 + (sp->rank > 0 ? (uint64_t)sp->rank << 20 : 0));
		w[i].ndc = sp->qd + 4;
		w[i].dc = calloc(w[i].ndc, sizeof(*w[i].dc));
		if (posix_memalign((void **)&w[i].buf, 4096, sp->bs * sp->qd) || !w[i].dc) {
			snprintf(why, why_len, "files: out of memory for %u workers' buffers", sp->workers);
			return RC_FAIL;
		}
		memset(w[i].buf, 0x5a, sp->bs * sp->qd);
		for (unsigned k = 0; k < w[i].ndc; k++)
			w[i].dc[k].fd = -1;
		files_subtree_name(sp, i, names[i], sizeof(names[i]));
		if (sp->nfs && (rc = files_nfs_worker_open(&w[i], names[i], create, why, why_len)) != RC_OK)
			return rc;
		if (sp->shared && i && !sp->nfs)
			w[i].gone = w[0].gone;
		w[i].subtree_fd = sp->nfs || w[i].gone ? 0
				  : (sp->shared && i) ? dup(w[0].subtree_fd) : files_subtree_open(root, names[i], create);
		if (w[i].subtree_fd == -ENOENT && sp->op == FOP_RMDIR && !sp->mix) /* removed before: the root's left */
			w[i].subtree_fd = 0, w[i].gone = 1;
		if (w[i].subtree_fd < 0) {
			int e = w[i].subtree_fd == -1 ? errno : -w[i].subtree_fd;

			snprintf(why, why_len, "files.dir: %s/%s/%s: %s", sp->dir, FILES_ROOT, names[i], strerror(e));
			return e == ENOENT ? RC_INPUT : RC_FAIL;
		}
		if (!sp->nfs && create && (sp->mix || sp->op != FOP_MKDIR) && (!sp->shared || !i)) {
			int rc = files_skeleton(sp, w[i].subtree_fd, 0, 1);

			if (rc < 0) {
				snprintf(why, why_len, "files.dir: the directories of %s/%s/%s: %s", sp->dir, FILES_ROOT,
					 names[i], strerror(-rc));
				return RC_FAIL;
			}
		}
		set_items(&w[i], (sp->op == FOP_READDIR || sp->op == FOP_DIRSTAT) && !sp->mix ? files_leaves(sp) : items);
		w[i].quota = w[i].gone ? 0 : sp->ios ? sp->ios / sp->workers + (i < sp->ios % sp->workers) : UINT64_MAX;
		if (sp->mix) {
			w[i].present = calloc(w[i].nitems / 8 + 1, 1);
			w[i].busy = calloc(w[i].nitems / 8 + 1, 1);
			if (!w[i].present || !w[i].busy) {
				snprintf(why, why_len, "files: out of memory for the mix's bitmaps");
				return RC_FAIL;
			}
		}
	}
	return RC_OK;
}

static void workers_free(const struct files_spec *sp, struct files_worker *w)
{
	for (unsigned i = 0; i < sp->workers; i++) {
		files_nfs_worker_close(&w[i]);
		for (unsigned k = 0; w[i].dc && k < w[i].ndc; k++)
			if (w[i].dc[k].fd >= 0)
				close(w[i].dc[k].fd);
		if (w[i].subtree_fd > 0)
			close(w[i].subtree_fd);
		free(w[i].dc);
		free(w[i].buf);
		free(w[i].present);
		free(w[i].busy);
		files_held_free(&w[i]);
	}
	free(w);
}

/* Sum the workers' results into res. */
static void merge(const struct files_spec *sp, const struct files_worker *w, struct files_result *per,
		  struct files_result *res, uint64_t start_ns)
{
	uint64_t first = UINT64_MAX, last = 0;

	for (unsigned i = 0; i < sp->workers; i++) {
		const struct files_result *r = &per[i];

		for (int op = 0; op < FOP_N; op++) {
			res->op[op].ops += r->op[op].ops;
			res->op[op].errors += r->op[op].errors;
			res->op[op].missing += r->op[op].missing;
			for (int e = 0; e < FILES_ERRNO_N; e++)
				res->op[op].by_errno[e] += r->op[op].by_errno[e];
			hist_merge(&res->op[op].lat, &r->op[op].lat);
		}
		res->created += r->created;
		res->deleted += r->deleted;
		res->dirs_made += r->dirs_made;
		res->dirs_removed += r->dirs_removed;
		res->bytes_written += r->bytes_written;
		res->bytes_read += r->bytes_read;
		res->prefilled += r->prefilled;
		res->chains += r->chains;
		if (w[i].done_ns < first)
			first = w[i].done_ns;
		if (w[i].done_ns > last)
			last = w[i].done_ns;
	}
	res->first_done_s = (double)(first - start_ns) / 1e9;
	res->last_done_s = res->seconds = (double)(last - start_ns) / 1e9;
}

int files_run(const struct files_spec *sp, struct files_result *res, char *why, size_t why_len)
{
	struct files_worker *w = calloc(sp->workers, sizeof(*w));
	struct files_result *per = calloc(sp->workers, sizeof(*per));
	char (*names)[32] = calloc(sp->workers, 32);
	pthread_t *tid = calloc(sp->workers, sizeof(*tid));
	pthread_barrier_t level;
	struct files_gate gate = { 0, 0, 0 };
	struct files_ident tree;
	struct cpu_mark cpu0, cpu1;
	int root = -1, rc = RC_FAIL;
	uint64_t start_ns = 0;
	unsigned started = 0;

	memset(res, 0, sizeof(*res));
	for (int op = 0; op < FOP_N; op++)
		hist_init(&res->op[op].lat);
	if (!w || !per || !names || !tid) {
		snprintf(why, why_len, "files: out of memory for %u workers", sp->workers);
		goto out;
	}
	rc = sp->nfs ? files_nfs_tree_open(sp, sp->mix || sp->op == FOP_MKDIR || sp->op == FOP_CREATE, why, why_len)
		     : files_tree_open(sp, sp->mix || sp->op == FOP_MKDIR || sp->op == FOP_CREATE, &root, why, why_len);
	if (rc == RC_OK && !sp->nfs && files_tree_ident(root, &tree) < 0) {
		snprintf(why, why_len, "files.dir: %s/%s: %s", sp->dir, FILES_ROOT, strerror(errno));
		rc = RC_FAIL;
	}
	if (rc == RC_OK)
		rc = workers_setup(sp, w, per, root, names, why, why_len);
	if (rc != RC_OK) {
		cluster_files_start(rc, why, why_len, &start_ns, &res->started_ns); /* the other ranks hear why */
		goto out;
	}
	pthread_barrier_init(&level, NULL, sp->workers);
	files_first_error_to(res);
	for (unsigned i = 0; i < sp->workers; i++) {
		w[i].gate = &gate;
		w[i].level_barrier = &level;
		w[i].start_ns = &start_ns;
		w[i].tree = sp->nfs ? NULL : &tree;
	}
	for (; started < sp->workers; started++)
		if (pthread_create(&tid[started], NULL, worker_main, &w[started]))
			break;
	while (__atomic_load_n(&gate.ready, __ATOMIC_ACQUIRE) < started)
		usleep(100);
	if (started < sp->workers)
		snprintf(why, why_len, "files: cannot start worker %u of %u", started + 1, sp->workers);
	/* under MPI: every rank ready, then the barrier every rank's clock starts from */
	rc = cluster_files_start(started < sp->workers ? RC_FAIL : RC_OK, why, why_len, &start_ns, &res->started_ns);
	cpu_mark(&cpu0);
	__atomic_store_n(&gate.go, rc == RC_OK ? 1 : -1, __ATOMIC_RELEASE);
	if (rc == RC_OK)
		files_sample(sp, res, per, sp->workers, &gate.finished, start_ns, sp->interval_ns);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	cpu_mark(&cpu1);
	res->ended_ns = clock_realtime_ns();
	pthread_barrier_destroy(&level);
	if (rc != RC_OK)
		goto out;
	merge(sp, w, per, res, start_ns);
	cpu_between(&cpu0, &cpu1, &res->cpu);
	res->user_s = res->cpu.user_s;
	res->sys_s = res->cpu.sys_s;
	res->interrupted = phase_interrupt != 0;
	if (sp->op == FOP_RMDIR && !sp->mix) {
		const char *list[sp->workers];

		for (unsigned i = 0; i < sp->workers; i++)
			list[i] = names[i];
		workers_free(sp, w);
		w = NULL;
		if (sp->nfs)
			files_nfs_prune(sp, list, sp->shared ? 1 : sp->workers, res);
		else
			files_tree_prune(sp, root, list, sp->shared ? 1 : sp->workers, res);
	}
	rc = RC_OK;
out:
	files_first_error_to(NULL);
	if (w)
		workers_free(sp, w);
	if (root >= 0)
		close(root);
	free(per);
	free(names);
	free(tid);
	return rc;
}

void files_result_free(struct files_result *res)
{
	free(res->iv);
	res->iv = NULL;
	res->niv = res->cap_iv = 0;
}
