/* files_uring.c - a files phase's worker on io_uring (files.h): qd
 * operations in flight, each a chain of the ring's own opcodes:
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
 *
 * Linked, where the kernel has direct descriptors (a sparse file table,
 * openat2 into a fixed slot: 5.15 and later): the file is opened into
 * slot i of the ring's table (slot i of the worker's qd) and the steps
 * after it name that slot, so the whole chain goes in one submission,
 * each step IOSQE_IO_LINK'd to the next (create: OPENAT2 -> WRITE x n ->
 * [FSYNC] -> CLOSE; read: OPENAT2 -> READ, the rest step by step as a
 * short read ends the file and a link). A step that fails cancels those
 * after it (-ECANCELED); a close cancelled so is then submitted alone, so
 * no slot keeps a file. Without direct descriptors each step is
 * submitted as the one before it completes, with ordinary descriptors.
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
#include <unistd.h>

#include "core/clock.h"
#include "core/stop.h"

/* This worker's ring had what was in flight cancelled after a stop. */
static _Thread_local int cancelled;

enum step { S_META, S_RENAME1, S_RENAME2, S_OPEN, S_IO, S_FSYNC, S_CLOSE };

/* Most writes one chain carries; a larger file's rest goes step by step. */
#define CHAIN_IO 20
#define CHAIN_MAX (CHAIN_IO + 3)

struct uslot {
	int busy;
	int direct;             /* its file in slot idx of the ring's table */
	unsigned idx;
	unsigned pending;       /* CQEs of a linked chain still to come */
	int opened, close_lost; /* a chain's open done; its close cancelled */
	int chain_close;        /* the chain ends with the file's close */
	int check_fd;           /* checked once open (files_guard_fd), O_TRUNC after */
	enum files_op op;
	enum step step;
	uint64_t item, parent, off, size, bytes, t0;
	struct files_dirent *de;
	int dfd, fd, err;
	char *buf;
	char name[40], to[44];
	struct open_how how;
	struct statx stx;
	char why[160];          /* why a check refused it */
};

static int is_write(enum files_op op)
{
	return op == FOP_CREATE || op == FOP_WRITE || op == FOP_APPEND;
}

static struct io_uring_sqe *prep(struct files_worker *w, struct io_uring *ring, struct uslot *s)
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
		s->how.flags = files_open_flags(sp, s->op) | (s->direct ? 0 : O_CLOEXEC); /* no O_CLOEXEC in a slot */
		if (s->check_fd)
			s->how.flags &= ~(uint64_t)O_TRUNC; /* after the check (opened) */
		s->how.mode = is_write(s->op) && s->op == FOP_CREATE ? 0644 : 0;
		s->how.resolve = FILES_RESOLVE;
		if (s->direct)
			io_uring_prep_openat2_direct(sqe, s->dfd, s->name, &s->how, s->idx);
		else
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
		if (s->direct)
			io_uring_prep_close_direct(sqe, s->idx);
		else
			io_uring_prep_close(sqe, s->fd);
		break;
	}
	if (s->direct && (s->step == S_IO || s->step == S_FSYNC))
		sqe->flags |= IOSQE_FIXED_FILE; /* s->fd is the slot */
	io_uring_sqe_set_data(sqe, (void *)((uintptr_t)s | s->step)); /* the step in the low bits */
	return sqe;
}

/* One linked step of s's chain: queued with IOSQE_IO_LINK unless last. */
static void link_step(struct files_worker *w, struct io_uring *ring, struct uslot *s, enum step st, int last)
{
	struct io_uring_sqe *sqe;

	s->step = st;
	sqe = prep(w, ring, s);
	if (!last)
		sqe->flags |= IOSQE_IO_LINK;
	s->pending++;
	s->chain_close |= st == S_CLOSE;
}

/* s's whole chain, linked, from its open (s->direct): the writes of a
 * file of up to CHAIN_IO x bs, [fsync], close; a read's first read; an
 * open's close. A larger file is linked as far as its open. */
static void chain(struct files_worker *w, struct io_uring *ring, struct uslot *s)
{
	const struct files_spec *sp = w->sp;
	const int writes = is_write(s->op) && (s->size + sp->bs - 1) / sp->bs <= CHAIN_IO;

	s->fd = (int)s->idx;
	link_step(w, ring, s, S_OPEN, !writes && s->op != FOP_READ && s->op != FOP_OPEN);
	if (s->op == FOP_READ) {
		link_step(w, ring, s, S_IO, 1);
	} else if (writes) {
		for (uint64_t off = 0; off < s->size; off += sp->bs) {
			s->off = off;
			link_step(w, ring, s, S_IO, 0);
		}
		s->off = 0;
		if (sp->fsync)
			link_step(w, ring, s, S_FSYNC, 0);
	}
	if (writes || s->op == FOP_OPEN)
		link_step(w, ring, s, S_CLOSE, 1);
	s->step = S_OPEN;
	if (s->pending > 1) /* a file past CHAIN_IO writes: its open alone, no chain */
		w->res->chains++;
}

static void finish(struct files_worker *w, struct uslot *s)
{
	files_dir_put(s->de);
	s->busy = 0;
	if (s->err) {
		files_release(w, s->op, s->item);
		if (s->op == FOP_CREATE && (s->opened || s->err == EEXIST))
			files_create_left(w, s->item);
		files_error_why(w, s->op, s->parent, s->name, s->err, s->why[0] ? s->why : NULL);
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

/* A write's or append's file, open at s->fd (an ordinary descriptor):
 * checked on what was opened, and for write truncated only then (by
 * system calls in the worker): 0, or -1 with s->err and s->why. */
static int opened_ok(struct files_worker *w, struct uslot *s)
{
	int rc = files_guard_fd(w, s->op, s->fd, s->why, sizeof(s->why));

	if (!rc && s->op == FOP_WRITE && ftruncate(s->fd, 0) < 0)
		rc = -errno;
	s->err = rc < 0 ? -rc : 0;
	return rc < 0 ? -1 : 0;
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
		s->fd = s->direct ? (int)s->idx : res;
		s->opened = 1;
		s->step = after_io(w->sp, s);
		if (s->check_fd && opened_ok(w, s) < 0)
			s->step = S_CLOSE;
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

/* A completion of s's linked chain (step st, res): 1 while s is busy.
 * Once every step is in: the end, or the rest step by step (a read past
 * its first bs, a large file's writes, a close the chain lost). */
static int chain_done(struct files_worker *w, struct io_uring *ring, struct uslot *s, enum step st, int res)
{
	const struct files_spec *sp = w->sp;

	s->pending--;
	if (res == -ECANCELED) {
		s->close_lost |= st == S_CLOSE;
		if (cancelled && !s->err && st != S_CLOSE)
			s->err = ECANCELED; /* cut by the stop (wait_some), not by a step before */
	} else if (res < 0) {
		if (!s->err)
			s->err = -res;
	} else if (st == S_OPEN) {
		s->opened = 1;
	} else if (st == S_IO) {
		s->off += (uint64_t)res;
		s->bytes += (uint64_t)res;
	}
	if (s->pending)
		return 1;
	if (!s->opened || (s->chain_close && !s->close_lost))
		goto end; /* nothing opened, or closed by the chain */
	/* the file is still in its slot; after a short write (which breaks a
	 * chain) the rest is written step by step, as psync's loop goes on */
	if (s->err) {
		s->step = S_CLOSE; /* the slot emptied alone */
	} else if (s->op == FOP_READ) {
		s->step = s->bytes < sp->bs ? S_CLOSE : S_IO; /* a short read: the end of the file */
		if (s->step == S_IO && phase_interrupt) {
			s->err = EINTR;
			s->step = S_CLOSE;
		}
	} else {
		s->step = after_io(sp, s); /* a file larger than a chain, or a short write: the rest step by step */
	}
	prep(w, ring, s);
	return 1;
end:
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
	char why[160];

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
		s->why[0] = 0;
		/* a write's file is checked once open, between its open and its
		 * first write: not linked, so that a name swapped after the
		 * check of the name is not written through */
		s->check_fd = w->tree && (op == FOP_WRITE || op == FOP_APPEND);
		s->direct = w->direct_ok && !s->check_fd;
		s->idx = (unsigned)(s - w->slots);
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
		rc = files_guard(w, op, s->dfd, s->name, why, sizeof(why));
		if (rc < 0) {
			files_dir_put(s->de);
			files_release(w, op, item);
			files_error_why(w, op, s->parent, s->name, -rc, why);
			continue;
		}
		s->t0 = clock_ns(); /* the check is not the operation's */
		s->busy = 1;
		if (op == FOP_CREATE || op == FOP_WRITE)
			s->size = files_item_size(sp, w->id, item);
		else if (op == FOP_APPEND)
			s->size = sp->bs;
		snprintf(s->to, sizeof(s->to), "%.39s.r", s->name);
		s->step = op == FOP_RENAME ? S_RENAME1 : op == FOP_MKDIR || op == FOP_RMDIR || op == FOP_STAT ||
			  op == FOP_DIRSTAT || op == FOP_DELETE ? S_META : S_OPEN;
		if (s->step == S_OPEN && s->direct)
			chain(w, ring, s);
		else
			prep(w, ring, s);
		return 1;
	}
	return 0;
}

/* Submit and wait for a completion, 100 ms at a time: once the phase is
 * stopped (SIGINT, its duration over) what is in flight has 250 ms, then
 * all of it is cancelled, and again each 250 ms (a read of a FIFO put at a
 * name after its check would never complete by itself). */
static void wait_some(const struct files_worker *w, struct io_uring *ring, uint64_t *stopped_ns)
{
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 100000000 };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	uint64_t now;

	if (io_uring_submit_and_wait_timeout(ring, &cqe, 1, &ts, NULL) != -ETIME)
		return;
	now = clock_ns();
	if (!phase_interrupt && !(w->deadline_ns && now >= w->deadline_ns))
		return;
	if (!*stopped_ns || now - *stopped_ns < 250000000ull) {
		if (!*stopped_ns)
			*stopped_ns = now;
		return;
	}
	sqe = io_uring_get_sqe(ring);
	if (sqe) {
		io_uring_prep_cancel(sqe, NULL, IORING_ASYNC_CANCEL_ANY);
		cancelled = 1;
		io_uring_sqe_set_data(sqe, NULL);
		io_uring_submit(ring);
	}
	*stopped_ns = now;
}

/* Can this ring link a file's steps: a sparse table of qd slots (5.19's
 * register call, or the ring refuses it) and openat2 and close direct? */
static int files_uring_direct(struct io_uring *ring, unsigned qd)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	int ok = p && io_uring_opcode_supported(p, IORING_OP_OPENAT2) && io_uring_opcode_supported(p, IORING_OP_CLOSE);

	if (p)
		io_uring_free_probe(p);
	return ok && io_uring_register_files_sparse(ring, qd) == 0;
}

int files_uring_loop(struct files_worker *w)
{
	const unsigned qd = w->sp->qd;
	struct uslot *slot = calloc(qd, sizeof(*slot));
	struct io_uring ring;
	uint64_t done = 0, stopped_ns = 0;
	unsigned active = 0;
	int more = 1, rc;

	if (!slot)
		return -ENOMEM;
	/* a phase that opens files: room for every slot's whole chain, within
	 * the ring's most entries (stat, delete and the like: one step each) */
	const enum files_op op = w->sp->op;
	const int link = qd * CHAIN_MAX <= 32768 && (w->sp->mix || op == FOP_CREATE || op == FOP_WRITE ||
						     op == FOP_APPEND || op == FOP_READ || op == FOP_OPEN);

	rc = io_uring_queue_init(link ? qd * CHAIN_MAX : qd < 4 ? 4 : qd, &ring, 0);
	if (rc < 0) {
		free(slot);
		return rc;
	}
	w->slots = slot;
	cancelled = 0;
	w->direct_ok = link && files_uring_direct(&ring, qd);
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
		wait_some(w, &ring, &stopped_ns);
		while (io_uring_peek_cqe(&ring, &cqe) == 0) {
			const uintptr_t data = (uintptr_t)io_uring_cqe_get_data(cqe);
			struct uslot *s = (struct uslot *)(data & ~(uintptr_t)7);
			int res = cqe->res;

			io_uring_cqe_seen(&ring, cqe);
			if (!s)
				continue; /* a cancel's own */
			if (!(s->pending ? chain_done(w, &ring, s, (enum step)(data & 7), res) : advance(w, &ring, s, res)))
				active--;
		}
		more |= w->waiting; /* the mix's files were all in flight: some may be free now */
	}
	io_uring_queue_exit(&ring);
	free(slot);
	return 0;
}
