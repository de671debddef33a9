/* files_guard.c - whose a name in a files phase's tree is (files.h): the
 * tree's owner checked before it is used, and each file checked before a
 * files phase opens, writes, renames or removes it.
 *
 * What iomoon made is told without a record per file: the tree's root is
 * iomoon's (its marker, files_tree.c) and the running user's (or the
 * phase says foreign_tree), and a file iomoon made in it is a regular
 * file, of the root's owner, with one link, born after the root (statx's
 * birth time, the same between phases and runs; a filesystem without one
 * is judged by the rest). A name that is not such a file was put there by
 * someone else: a FIFO, a device, a socket or a directory is never opened
 * (nor a symbolic link: ELOOP), and one with another owner, more than one
 * link (a hard link from outside the tree) or born before the tree (moved
 * in) is neither written, renamed nor removed; each is an error naming
 * it (EPERM, the reason after the path). On psync a file that is opened
 * (write, append, read, open) is checked on its descriptor, between the
 * open and the first I/O (files_guard_fd: one statx of the fd, the
 * fstat, in the timed span): what is checked is what is written, with no
 * window between them; the open carries O_NONBLOCK and O_NOFOLLOW, so
 * whatever is at the name, the open cannot block, and write's O_TRUNC
 * comes after the check, as an ftruncate. A rename or delete, and every
 * operation on io_uring (whose chain runs from the open to the close in
 * the kernel), is checked by one statx of the name before the timed span.
 */
#include "run/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GUARD_MASK (STATX_TYPE | STATX_UID | STATX_NLINK | STATX_BTIME)

int files_tree_ident(int root, struct files_ident *id)
{
	struct statx sx;

	memset(id, 0, sizeof(*id));
	if (statx(root, "", AT_EMPTY_PATH, GUARD_MASK, &sx) < 0)
		return -errno;
	id->uid = sx.stx_uid;
	id->born = !!(sx.stx_mask & STATX_BTIME);
	id->born_sec = sx.stx_btime.tv_sec;
	id->born_nsec = sx.stx_btime.tv_nsec;
	return 0;
}

int files_tree_owned(int root, int marker, int foreign_ok, char *why, size_t len)
{
	struct stat rs, ms;
	const uid_t me = geteuid();

	if (fstat(root, &rs) < 0 || fstat(marker, &ms) < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return -1;
	}
	if (foreign_ok || (rs.st_uid == me && ms.st_uid == me))
		return 0;
	snprintf(why, len, "made by uid %u, not by this user (uid %u): give files.foreign_tree = true to use a tree "
		 "someone else made (whoever owns it can change what is in it), or another dir",
		 (unsigned)(rs.st_uid != me ? rs.st_uid : ms.st_uid), (unsigned)me);
	return 1;
}

static const char *kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device" : S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link" : "not a file";
}

/* Does op open the file, write, rename or remove it? */
static int guarded(enum files_op op)
{
	return op == FOP_WRITE || op == FOP_APPEND || op == FOP_READ || op == FOP_OPEN || op == FOP_RENAME ||
	       op == FOP_DELETE;
}

/* Was the file seen in sx made by iomoon in this tree? 0, or why not. */
static const char *not_made(const struct files_ident *t, const struct statx *sx, char *buf, size_t len)
{
	if (sx->stx_uid != t->uid) {
		snprintf(buf, len, "owned by uid %u, not by the tree's owner (uid %u): not iomoon's, left alone",
			 (unsigned)sx->stx_uid, (unsigned)t->uid);
		return buf;
	}
	if (sx->stx_nlink > 1) {
		snprintf(buf, len, "%u links to it: a hard link to a file elsewhere, not iomoon's, left alone",
			 (unsigned)sx->stx_nlink);
		return buf;
	}
	if (t->born && (sx->stx_mask & STATX_BTIME) &&
	    (sx->stx_btime.tv_sec < t->born_sec ||
	     (sx->stx_btime.tv_sec == t->born_sec && sx->stx_btime.tv_nsec < t->born_nsec))) {
		snprintf(buf, len, "born before the tree: moved in (or made while the clock was behind), not iomoon's, "
			 "left alone");
		return buf;
	}
	return NULL;
}

/* The verdict on a file seen in sx for op: 0, or -errno with why. */
static int judge(const struct files_worker *w, enum files_op op, const struct statx *sx, char *why, size_t len)
{
	if (!S_ISREG(sx->stx_mode)) {
		snprintf(why, len, "%s, not a regular file: never opened%s", kind(sx->stx_mode),
			 op == FOP_DELETE ? " nor removed" : op == FOP_RENAME ? " nor renamed" : "");
		return S_ISLNK(sx->stx_mode) ? -ELOOP : S_ISDIR(sx->stx_mode) ? -EISDIR : -EPERM;
	}
	if (op == FOP_READ || op == FOP_OPEN)
		return 0; /* reading someone's file harms nobody */
	return not_made(w->tree, sx, why, len) ? -EPERM : 0;
}

int files_guard(const struct files_worker *w, enum files_op op, int dfd, const char *name, char *why, size_t len)
{
	struct statx sx;

	if (!guarded(op) || !w->tree)
		return 0;
	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW, GUARD_MASK, &sx) < 0)
		return 0; /* the operation meets the same error, its own */
	return judge(w, op, &sx, why, len);
}

int files_guard_fd(const struct files_worker *w, enum files_op op, int fd, char *why, size_t len)
{
	struct statx sx;

	if (!w->tree)
		return 0;
	if (statx(fd, "", AT_EMPTY_PATH, GUARD_MASK, &sx) < 0)
		return -errno;
	return judge(w, op, &sx, why, len);
}
