/* target_write.c - may a target be written? Its mark (a file iomoon
 * created names its own inode and birth time in user.iomoon), what else
 * claims it (claims.c), and the kernel's exclusive open of a block device.
 * See doc/design.md, "Safety". */
#include "io/target.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "core/rc.h"
#include "core/shown.h"
#include "io/claims.h"
#include "io/engine.h"
#include "io/netblk.h"
#include "io/target_int.h"

/* The mark's value for the file open at fd: "iomoon-2" and the identity of
 * the inode iomoon created: its number and birth time; where the
 * filesystem keeps no birth time (ext4 with 128-byte inodes), its number
 * and generation (FS_IOC_GETVERSION: new each time the number is reused);
 * only where neither exists, its number and device. A copy (cp -a copies
 * the attribute) is another inode, and a file made later under the same
 * name, even in the same inode, is born later or of another generation, so
 * neither matches. RC_FAIL when statx cannot tell. */
int target_mark_value(int fd, char *v, size_t len)
{
	struct statx sx;
	int gen;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &sx) < 0)
		return RC_FAIL;
	if (!(sx.stx_mask & STATX_BTIME) && ioctl(fd, FS_IOC_GETVERSION, &gen) == 0)
		return snprintf(v, len, "iomoon-2 ino=%llu gen=%u", (unsigned long long)sx.stx_ino, (unsigned)gen) < 0 ?
			RC_FAIL : RC_OK;
	if (!(sx.stx_mask & STATX_BTIME))
		return snprintf(v, len, "iomoon-2 ino=%llu dev=%u:%u", (unsigned long long)sx.stx_ino, sx.stx_dev_major,
				sx.stx_dev_minor) < 0 ? RC_FAIL : RC_OK;
	return snprintf(v, len, "iomoon-2 ino=%llu btime=%lld.%09u", (unsigned long long)sx.stx_ino,
			(long long)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec) < 0 ? RC_FAIL : RC_OK;
}

/* Does the file open at fd carry a mark that matches it? (An old "created"
 * mark, from before marks named their inode, does not: see doc/design.md.) */
int target_mark_matches(int fd)
{
	char have[128], want[128];
	ssize_t n = fgetxattr(fd, TARGET_XATTR, have, sizeof(have) - 1);

	if (n <= 0 || target_mark_value(fd, want, sizeof(want)) < 0)
		return 0;
	have[n] = 0;
	return !strcmp(have, want);
}

/* The note of what the signature probe found (what) in the file open at
 * fd, as it is now: "iomoon-seen-1", its mtime and size, and what. */
static int seen_value(int fd, const char *what, char *v, size_t len)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return RC_FAIL;
	return snprintf(v, len, "iomoon-seen-1 mtime=%lld.%09ld size=%lld %s", (long long)st.st_mtim.tv_sec,
			st.st_mtim.tv_nsec, (long long)st.st_size, what) < 0 ? RC_FAIL : RC_OK;
}

/* Does the file open at fd carry a note that its probe finds what, made
 * after iomoon last wrote it, with its mtime and size unchanged since? */
static int seen_matches(int fd, const char *what)
{
	char have[1024], want[1024];
	ssize_t n = fgetxattr(fd, TARGET_SEEN_XATTR, have, sizeof(have) - 1);

	if (n <= 0 || seen_value(fd, what, want, sizeof(want)) < 0)
		return 0;
	have[n] = 0;
	return !strcmp(have, want);
}

void target_note_seen(const struct target *t)
{
	char what[WHY_LEN], v[1024];
	struct stat st;
	int fd;

	if (t->kind != TARGET_FILE || !t->ours || t->net)
		return;
	fd = target_open_checked(t, O_RDONLY, &st);
	if (fd < 0)
		return;
	if (claims_signatures(fd, what, sizeof(what)) && seen_value(fd, what, v, sizeof(v)) == RC_OK)
		(void)fsetxattr(fd, TARGET_SEEN_XATTR, v, strlen(v), 0);
	else
		(void)fremovexattr(fd, TARGET_SEEN_XATTR);
	close(fd);
}

/* Has something else claimed what fd (st) is: a mount or swap on the
 * device, a loop device over the file, a signature on either, or a probe
 * that cannot tell? 1 with what naming it, else 0. A signature in a file
 * of ours that its note (target_note_seen) says iomoon's own writes left
 * is not a claim. */
int target_claimed(const struct target *t, int fd, const struct stat *st, char *what, size_t what_len)
{
	if (t->kind == TARGET_BLOCK && claims_device_in_use(st->st_rdev, what, what_len))
		return 1;
	if (t->kind == TARGET_FILE && claims_loop_backing(st, what, what_len))
		return 1;
	if (!claims_signatures(fd, what, what_len))
		return 0;
	return !(t->kind == TARGET_FILE && t->ours && seen_matches(fd, what));
}

/* What an exclusive open's EBUSY means. */
#define BUSY "the kernel says it is busy (an exclusive open failed: it, or a partition on it, is mounted or " \
	     "claimed by device-mapper, RAID or another program)"

/* O_EXCL for a block device that force does not allow to be shared: the
 * kernel then refuses (EBUSY) while it is mounted or claimed. Only for the
 * probe in target_may_write (see target_open). */
static int excl(const struct target *t)
{
	return t->kind == TARGET_BLOCK && !t->force ? O_EXCL : 0;
}

/* Does the kernel refuse t an exclusive open (EBUSY)? A claim of a moment
 * (another iomoon's probe, as of ranks on one host) is waited out, 0.1 s
 * at most. 1 with what naming the claim, else 0. */
static int busy(const struct target *t, char *what, size_t what_len)
{
	struct stat st;

	for (int tries = 0; tries < 20; tries++) {
		int fd = target_open_checked(t, O_RDONLY | O_EXCL, &st);

		if (fd >= 0)
			close(fd);
		if (fd != RC_FAIL || errno != EBUSY)
			return 0;
		usleep(5000);
	}
	snprintf(what, what_len, "%s", BUSY);
	return 1;
}

int target_may_write(const struct target *t, char *why, size_t why_len)
{
	char what[WHY_LEN], p[1024];
	struct stat st;
	int fd, c;

	shown(t->path, p, sizeof(p));
	if (t->kind == TARGET_NONE || (t->kind == TARGET_FILE && !t->exists))
		return RC_OK; /* nothing on disk, or it will be created, and ours */
	if (t->kind == TARGET_FILE && !t->ours && !t->allow_write) {
		snprintf(why, why_len, "target %s: iomoon did not create this file; writing to it needs "
			 "allow_write=true (--allow-write)", p);
		return RC_INPUT;
	}
	if (t->net && t->net_read_only) {
		snprintf(why, why_len, "target %s: the server offers it read-only; a phase that writes cannot run on it", p);
		return RC_INPUT;
	}
	if (t->kind == TARGET_BLOCK && !t->allow_write) {
		snprintf(why, why_len, "target %s: writing to a block device needs allow_write=true (--allow-write)", p);
		return RC_INPUT;
	}
	if (t->force)
		return RC_OK;
	if (t->net && t->kind == TARGET_FILE && t->ours)
		return RC_OK; /* a file of ours in an export: its data is iomoon's */
	if (t->net) { /* its first and last MiB, read through the engine */
		c = net_signatures(t->net->net, t->url, t->size, what, sizeof(what));
		if (c == RC_FAIL) {
			snprintf(why, why_len, "target %s: %s", p, what);
			return RC_FAIL;
		}
		if (c) {
			snprintf(why, why_len, "target %s: refusing to write: %s (force=true, --force, writes anyway and "
				 "destroys it)", p, what);
			return RC_INPUT;
		}
		return RC_OK;
	}
	fd = target_open_checked(t, O_RDONLY, &st);
	if (fd < 0) {
		target_open_failed(t, fd, "target", why, why_len);
		return RC_INPUT;
	}
	c = target_claimed(t, fd, &st, what, sizeof(what));
	close(fd);
	if (!c && excl(t)) /* what sysfs does not show, the kernel may */
		c = busy(t, what, sizeof(what));
	if (c) {
		snprintf(why, why_len, "target %s: refusing to write: %s (force=true, --force, writes anyway and destroys it)",
			 p, what);
		return RC_INPUT;
	}
	return RC_OK;
}
