/* files_uring.c - a files phase's worker on io_uring (files.h): qd
 * operations in flight, each a chain of the ring's own opcodes, one step
 * submitted as the one before it completes:
 *
 *   create, write  OPENAT2 (O_CREAT|O_EXCL, or O_TRUNC) -> WRITE... -> [FSYNC] -> CLOSE
 *   append         OPENAT2 (O_APPEND) -> WRITE (bs) -> [FSYNC] -> CLOSE
 *   read           OPENAT2 -> READ... (to a short one: the end) -> CLOSE
 *   open           OPENAT2 -> CLOSE
 *   stat, dirstat  STATX (AT_SYMLINK_NOFOLLOW)
 *   delete, rmdir  UNLINKAT
 *   mkdir          MKDIRAT
 *   rename         RENAMEAT (RENAME_NOREPLACE) there, RENAMEAT back
 *   readdir        by system calls in the worker: the ring has no getdents
 *
 * Every OPENAT2 carries RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; every step
 * is relative to a directory opened beneath the subtree (files.c).
 */
#include "run/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/clock.h"
#include "core/stop.h"

enum step { S_META, S_RENAME1, S_RENAME2, S_OPEN, S_IO, S_FSYNC, S_CLOSE };

struct uslot {
	int busy;
	enum files_op op;
	enum step step;
	uint64_t item, parent, off, size, bytes, t0;
	struct files_dirent *de;
	int dfd, fd, err;
	char *buf;
	char name[40], to[44];
	struct open_how how;
	struct statx stx;
};

static int is_write(enum files_op op)
{
	return op == FOP_CREATE || op == FOP_WRITE || op == FOP_APPEND;
}

static void prep(struct files_worker *w, struct io_uring *ring, struct uslot *s)
{
	const struct files_spec *sp = w->sp;
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	uint64_t len;

	/* never NULL: the ring has qd entries and each slot has one step queued */
	switch (s->step) {
	case S_META:
		if (s->op == FOP_MKDIR)
			io_uring_prep_mkdirat(sqe, s->dfd, s->name, 0755);
		else if (s->op == FOP_STAT || s->op == FOP_DIRSTAT)
			io_uring_prep_statx(sqe, s->dfd, s->name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &s->stx);
		else
			io_uring_prep_unlinkat(sqe, s->dfd, s->name, s->op == FOP_RMDIR ? AT_REMOVEDIR : 0);
		break;
	case S_RENAME1:
		io_uring_prep_renameat(sqe, s->dfd, s->name, s->dfd, s->to, RENAME_NOREPLACE);
		break;
	case S_RENAME2:
		io_uring_prep_renameat(sqe, s->dfd, s->to, s->dfd, s->name, RENAME_NOREPLACE);
		break;
	case S_OPEN:
		memset(&s->how, 0, sizeof(s->how));
		s->how.flags = files_open_flags(sp, s->op) | O_CLOEXEC;
		s->how.mode = is_write(s->op) && s->op == FOP_CREATE ? 0644 : 0;
		s->how.resolve = FILES_RESOLVE;
		io_uring_prep_openat2(sqe, s->dfd, s->name, &s->how);
		break;
	case S_IO:
		len = s->size - s->off < sp->bs ? s->size - s->off : sp->bs;
		if (s->op == FOP_READ)
			io_uring_prep_read(sqe, s->fd, s->buf, (unsigned)sp->bs, s->off);
		else
			io_uring_prep_write(sqe, s->fd, s->buf, (unsigned)len, s->op == FOP_APPEND ? (uint64_t)-1 : s->off);
		break;
	case S_FSYNC:
		io_uring_prep_fsync(sqe, s->fd, 0);
		break;
	case S_CLOSE:
		io_uring_prep_close(sqe, s->fd);
		break;
	}
	io_uring_sqe_set_data(sqe, s);
}

static void finish(struct files_worker *w, struct uslot *s)
{
	files_dir_put(s->de);
	s->busy = 0;
	if (s->err) {
		files_release(w, s->op, s->item);
		files_error(w, s->op, s->parent, s->name, s->err);
		return;
	}
	hist_record(&w->res->op[s->op].lat, clock_ns() - s->t0);
	w->res->op[s->op].ops++;
	files_done(w, s->op, s->item, s->bytes);
}

/* After the file is open, or a write or read: the next step. */
static enum step after_io(const struct files_spec *sp, struct uslot *s)
{
	if (s->op == FOP_OPEN)
		return S_CLOSE;
	if (s->op == FOP_READ || s->off < s->size)
		return S_IO;
	return sp->fsync ? S_FSYNC : S_CLOSE;
}

/* The completion of slot s's step with res: its next step, or its end.
 * Returns 1 when a step was queued. */
static int advance(struct files_worker *w, struct io_uring *ring, struct uslot *s, int res)
{
	switch (s->step) {
	case S_META:
	case S_RENAME2:
		s->err = res < 0 ? -res : 0;
		break;
	case S_RENAME1:
		if (res < 0) {
			s->err = -res;
			break;
		}
		s->step = S_RENAME2;
		prep(w, ring, s);
		return 1;
	case S_OPEN:
		if (res < 0) {
			s->err = -res;
			break;
		}
		s->fd = res;
		s->step = after_io(w->sp, s);
		prep(w, ring, s);
		return 1;
	case S_IO:
		if (res < 0 || (res == 0 && s->op != FOP_READ)) {
			s->err = res < 0 ? -res : EIO;
			s->step = S_CLOSE;
		} else if (s->op == FOP_READ && (uint64_t)res < w->sp->bs) { /* a short read: the end of the file */
			s->bytes += (uint64_t)res;
			s->step = S_CLOSE;
		} else {
			s->off += (uint64_t)res;
			s->bytes += (uint64_t)res;
			s->step = after_io(w->sp, s);
			if (s->step == S_IO && phase_interrupt) { /* a large file is not finished after a stop */
				s->err = EINTR;
				s->step = S_CLOSE;
			}
		}
		prep(w, ring, s);
		return 1;
	case S_FSYNC:
		s->err = res < 0 ? -res : 0;
		s->step = S_CLOSE;
		prep(w, ring, s);
		return 1;
	case S_CLOSE:
		if (res < 0 && !s->err)
			s->err = -res;
		break;
	}
	finish(w, s);
	return 0;
}

/* Start the next operation in the free slot s: 1 when one was queued, 0
 * when w is done; readdir and the failures to open a directory are done
 * (and counted) on the spot. */
static int start(struct files_worker *w, struct io_uring *ring, struct uslot *s, uint64_t *done)
{
	const struct files_spec *sp = w->sp;
	enum files_op op;
	uint64_t item;

	while (files_next(w, &op, &item, done)) {
		uint64_t t0 = clock_ns(), entries;
		int rc;

		if (op == FOP_READDIR) {
			rc = files_readdir(w, item, &entries);
			if (rc < 0) {
				files_error(w, op, (uint64_t)sp->depth << 48 | item, ".", -rc);
				continue;
			}
			hist_record(&w->res->op[op].lat, clock_ns() - t0);
			w->res->op[op].ops++;
			continue;
		}
		memset(s, 0, offsetof(struct uslot, buf));
		s->op = op;
		s->item = item;
		s->t0 = t0;
		s->fd = -1;
		s->parent = op == FOP_MKDIR || op == FOP_RMDIR ? files_node_parent(sp, w->level, item, s->name, sizeof(s->name))
			    : op == FOP_DIRSTAT ? files_node_parent(sp, (int)sp->depth, item, s->name, sizeof(s->name))
						: files_item_parent(sp, item, s->name, sizeof(s->name));
		s->dfd = files_dir_get(w, s->parent, &s->de);
		if (s->dfd < 0) {
			files_release(w, op, item);
			files_error(w, op, s->parent, s->name, -s->dfd);
			continue;
		}
		s->busy = 1;
		if (op == FOP_CREATE || op == FOP_WRITE)
			s->size = files_item_size(sp, w->id, item);
		else if (op == FOP_APPEND)
			s->size = sp->bs;
		snprintf(s->to, sizeof(s->to), "%.39s.r", s->name);
		s->step = op == FOP_RENAME ? S_RENAME1 : op == FOP_MKDIR || op == FOP_RMDIR || op == FOP_STAT ||
			  op == FOP_DIRSTAT || op == FOP_DELETE ? S_META : S_OPEN;
		prep(w, ring, s);
		return 1;
	}
	return 0;
}

int files_uring_loop(struct files_worker *w)
{
	const unsigned qd = w->sp->qd;
	struct uslot *slot = calloc(qd, sizeof(*slot));
	struct io_uring ring;
	uint64_t done = 0;
	unsigned active = 0;
	int more = 1, rc;

	if (!slot)
		return -ENOMEM;
	rc = io_uring_queue_init(qd < 4 ? 4 : qd, &ring, 0);
	if (rc < 0) {
		free(slot);
		return rc;
	}
	for (unsigned i = 0; i < qd; i++)
		slot[i].buf = w->buf + (uint64_t)i * w->sp->bs;
	for (;;) {
		struct io_uring_cqe *cqe;

		for (unsigned i = 0; i < qd && more; i++)
			if (!slot[i].busy) {
				if (start(w, &ring, &slot[i], &done))
					active++;
				else
					more = 0;
			}
		if (!active)
			break;
		io_uring_submit_and_wait(&ring, 1);
		while (io_uring_peek_cqe(&ring, &cqe) == 0) {
			struct uslot *s = io_uring_cqe_get_data(cqe);
			int res = cqe->res;

			io_uring_cqe_seen(&ring, cqe);
			if (!advance(w, &ring, s, res))
				active--;
		}
	}
	io_uring_queue_exit(&ring);
	free(slot);
	return 0;
}
