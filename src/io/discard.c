/* discard.c - trims. A trimmed range of a file reads back zeros and gives
 * its blocks back (a hole); a block device is told the range is unused
 * (BLKDISCARD), as a database or a file system tells an SSD. */
#include "io/discard.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/rc.h"
#include "core/shown.h"

#ifndef F2FS_SUPER_MAGIC
#define F2FS_SUPER_MAGIC 0xF2F52010
#endif

/* The bytes a block device discards at most in one request (its queue's
 * discard_max_bytes, or its whole disk's for a partition); 0 if none. */
static unsigned long long discard_max(dev_t rdev)
{
	char path[96];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/discard_max_bytes", major(rdev), minor(rdev));
	f = fopen(path, "re");
	if (!f) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/discard_max_bytes", major(rdev), minor(rdev));
		f = fopen(path, "re");
	}
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Does the file system holding path (or, missing, its directory) punch
 * holes? */
static int punches_holes(const char *path, char *fs, size_t fs_len)
{
	static const struct { long magic; const char *name; } yes[] = {
		{ EXT4_SUPER_MAGIC, "ext4" }, { XFS_SUPER_MAGIC, "xfs" }, { BTRFS_SUPER_MAGIC, "btrfs" },
		{ TMPFS_MAGIC, "tmpfs" }, { F2FS_SUPER_MAGIC, "f2fs" },
	};
	char dir[4096];
	struct statfs s;

	snprintf(dir, sizeof(dir), "%s", path);
	if (statfs(path, &s) < 0 && statfs(dirname(dir), &s) < 0) {
		snprintf(fs, fs_len, "an unknown file system (%s)", strerror(errno));
		return 0;
	}
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if ((long)s.f_type == yes[i].magic)
			return 1;
	snprintf(fs, fs_len, "a file system of type 0x%lx, not one known to punch holes (ext4, xfs, btrfs, tmpfs, "
		 "f2fs)", (unsigned long)s.f_type);
	return 0;
}

int target_can_trim(const struct target *t, char *why, size_t why_len)
{
	char fs[160], p[256];
	struct stat st;

	if (t->kind == TARGET_NONE)
		return RC_OK;
	if (t->net) {
		if (t->net_trims)
			return RC_OK;
		snprintf(why, why_len, "%s: the server does not offer trim", shown(t->path, p, sizeof(p)));
		return RC_INPUT;
	}
	if (t->kind == TARGET_BLOCK) {
		if (stat(t->path, &st) == 0 && discard_max(st.st_rdev) > 0)
			return RC_OK;
		snprintf(why, why_len, "%s does not discard (its queue/discard_max_bytes is 0)", shown(t->path, p, sizeof(p)));
		return RC_INPUT;
	}
	if (punches_holes(t->path, fs, sizeof(fs)))
		return RC_OK;
	snprintf(why, why_len, "%s is on %s", shown(t->path, p, sizeof(p)), fs);
	return RC_INPUT;
}

int target_can_secure_trim(const struct target *t, char *why, size_t why_len)
{
	uint64_t probe[2] = { 1, 0 };
	char p[1024];
	int fd, r, e;

	shown(t->path, p, sizeof(p));
	if (t->kind != TARGET_BLOCK || t->url) {
		snprintf(why, why_len, "%s is not a local block device (a secure discard is a block device's "
			 "BLKSECDISCARD)", p);
		return RC_INPUT;
	}
	if (!t->allow_write)
		return RC_OK;
	if ((fd = open(t->path, O_WRONLY | O_CLOEXEC)) < 0) {
		snprintf(why, why_len, "cannot open %s to ask whether it does secure discard: %s", p, strerror(errno));
		return RC_INPUT;
	}
	r = ioctl(fd, BLKSECDISCARD, probe);
	e = errno;
	close(fd);
	if (r == 0 || e == EINVAL)
		return RC_OK;
	snprintf(why, why_len, "%s does not do secure discard (BLKSECDISCARD: %s)", p,
		 e == EOPNOTSUPP ? "not supported by the device" : strerror(e));
	return RC_INPUT;
}

int discard_range(int fd, enum discard_kind kind, uint64_t off, uint64_t len)
{
	if (kind != DISCARD_PUNCH) {
		uint64_t range[2] = { off, len };

		return ioctl(fd, kind == DISCARD_SECURE ? BLKSECDISCARD : BLKDISCARD, range) < 0 ? -errno : 0;
	}
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) < 0 ? -errno : 0;
}
