/* target.c - open, size, create and fill files and block devices.
 *
 * Order matters for the "nothing changed on bad input" rule: everything that
 * can be checked (path kind, size, sector alignment of the size, write
 * permission) is checked before a file is created or a byte is written.
 * A fill writes only the holes of a file: reading a hole measures the
 * filesystem's zero page, not the storage, so data is put there first.
 *
 * Safety. People run this as root against real disks. A file iomoon creates
 * (O_EXCL) carries the extended attribute user.iomoon naming its inode and
 * birth time; a file whose mark does not match (a copy, a newer file) is
 * anyone's, and anyone's file is only read unless allow_write. Nothing
 * claimed by something else (claims.c: a mount, swap, a loop device over
 * the file, a signature) is written unless force. Only regular files and
 * block devices are opened, and every open checks that the path still
 * names what was inspected. See doc/design.md, "Safety".
 */
#include "core/rc.h"
#include "core/shown.h"
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

#include "cluster/cluster.h"
#include "core/stop.h"
#include "core/units.h"
#include "io/claims.h"
#include "io/engine.h"
#include "io/fill.h"
#include "io/netblk.h"

#define FILL_CHUNK (1u << 20)

void target_free(struct target *t)
{
	free(t->path);
	t->path = NULL;
	free(t->url);
	t->url = NULL;
	t->gmap = NULL; /* the map belongs to genmap.c's registry */
}

/* Logical sector and buffer alignment for O_DIRECT on a file: statx's
 * DIOALIGN where the kernel and filesystem report it, else 512. */
static void file_alignment(const char *path, uint32_t *sector, uint32_t *mem)
{
	struct statx sx;

	*sector = 512;
	*mem = 512;
#ifdef STATX_DIOALIGN
	if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) &&
	    sx.stx_dio_offset_align) {
		*sector = sx.stx_dio_offset_align;
		*mem = sx.stx_dio_mem_align ? sx.stx_dio_mem_align : sx.stx_dio_offset_align;
	}
#else
	(void)sx;
	(void)path;
#endif
}

/* What a path is when it is neither a regular file nor a block device. */
static const char *kind_name(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device" :
	       S_ISDIR(m) ? "a directory" : "of another kind";
}

/* Is st the file or device recorded in t (id_dev, id_ino)? */
static int same_object(const struct target *t, const struct stat *st)
{
	if (t->kind == TARGET_BLOCK)
		return S_ISBLK(st->st_mode) && (uint64_t)st->st_rdev == t->id_dev;
	return S_ISREG(st->st_mode) && (uint64_t)st->st_dev == t->id_dev && (uint64_t)st->st_ino == t->id_ino;
}

static void record_object(struct target *t, const struct stat *st)
{
	t->id_dev = S_ISBLK(st->st_mode) ? (uint64_t)st->st_rdev : (uint64_t)st->st_dev;
	t->id_ino = S_ISBLK(st->st_mode) ? 0 : (uint64_t)st->st_ino;
}

/* Open t's path and check that it is still the file or device inspected:
 * O_NONBLOCK at open, so that a FIFO put there since cannot block us, then
 * cleared (io_uring would otherwise fail instead of waiting). RC_INPUT when
 * the path names something else now, RC_FAIL with errno when it cannot be
 * opened. */
static int open_checked(const struct target *t, int flags, struct stat *st)
{
	/* reading to check (a signature probe) leaves even the access time
	 * as it was, where the owner's O_NOATIME is allowed */
	int ro = (flags & O_ACCMODE) == O_RDONLY;
	int fd = open(t->path, flags | O_NONBLOCK | O_CLOEXEC | (ro ? O_NOATIME : 0)), fl;

	if (fd < 0 && ro && errno == EPERM)
		fd = open(t->path, flags | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return RC_FAIL;
	if (fstat(fd, st) < 0 || !same_object(t, st)) {
		close(fd);
		return RC_INPUT;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		close(fd);
		return RC_FAIL;
	}
	return fd;
}

/* A message for open_checked's failure rc. */
static void open_failed(const struct target *t, int rc, const char *field, char *why, size_t why_len)
{
	char p[1024];

	shown(t->path, p, sizeof(p));
	if (rc == RC_INPUT)
		snprintf(why, why_len, "%s: %s is no longer the file or device that was checked (it was replaced "
			 "or removed); nothing was written", field, p);
	else
		snprintf(why, why_len, "%s: %s: %s", field, p, strerror(errno));
}

/* The mark's value for the file open at fd: "iomoon-2" and the identity of
 * the inode iomoon created: its number and birth time; where the
 * filesystem keeps no birth time (ext4 with 128-byte inodes), its number
 * and generation (FS_IOC_GETVERSION: new each time the number is reused);
 * only where neither exists, its number and device. A copy (cp -a copies
 * the attribute) is another inode, and a file made later under the same
 * name, even in the same inode, is born later or of another generation, so
 * neither matches. RC_FAIL when statx cannot tell. */
static int mark_value(int fd, char *v, size_t len)
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
static int mark_matches(int fd)
{
	char have[128], want[128];
	ssize_t n = fgetxattr(fd, TARGET_XATTR, have, sizeof(have) - 1);

	if (n <= 0 || mark_value(fd, want, sizeof(want)) < 0)
		return 0;
	have[n] = 0;
	return !strcmp(have, want);
}

/* Has something else claimed what fd (st) is: a mount or swap on the
 * device, a loop device over the file, a signature on either, or a probe
 * that cannot tell? 1 with what naming it, else 0. */
static int claimed(const struct target *t, int fd, const struct stat *st, char *what, size_t what_len)
{
	if (t->kind == TARGET_BLOCK && claims_device_in_use(st->st_rdev, what, what_len))
		return 1;
	if (t->kind == TARGET_FILE && claims_loop_backing(st, what, what_len))
		return 1;
	return claims_signatures(fd, what, what_len);
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
		int fd = open_checked(t, O_RDONLY | O_EXCL, &st);

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
	fd = open_checked(t, O_RDONLY, &st);
	if (fd < 0) {
		open_failed(t, fd, "target", why, why_len);
		return RC_INPUT;
	}
	c = claimed(t, fd, &st, what, sizeof(what));
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

/* Is there a hole in [0, size) of the file open at fd? Its offset, or -1. */
static int64_t first_hole(int fd, uint64_t from, uint64_t size)
{
	off_t hole = lseek(fd, (off_t)from, SEEK_HOLE);

	return hole >= 0 && (uint64_t)hole < size ? (int64_t)hole : -1;
}

/* Bytes of holes in [0, size) of the file open at fd: what a fill adds. */
static uint64_t hole_bytes(int fd, uint64_t size)
{
	uint64_t sum = 0;
	int64_t hole = first_hole(fd, 0, size);

	while (hole >= 0) {
		off_t data = lseek(fd, (off_t)hole, SEEK_DATA);
		uint64_t end = data < 0 || (uint64_t)data > size ? size : (uint64_t)data;

		sum += end - (uint64_t)hole;
		hole = end < size ? first_hole(fd, end, size) : -1;
	}
	return sum;
}

/* Does the filesystem of directory dir take a file of size bytes? An
 * unnamed file (O_TMPFILE, gone when closed: nothing is left behind) is
 * made that long, sparse. 1 yes or cannot tell, 0 no (errno). */
static int fs_takes(const char *dir, uint64_t size)
{
	int fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600), rc, e;

	if (fd < 0)
		return 1; /* no O_TMPFILE here: the extension will say */
	rc = ftruncate(fd, (off_t)size);
	e = errno;
	close(fd);
	errno = e;
	return rc == 0 || (e != EFBIG && e != EINVAL);
}

/* Will the filesystem holding path (in directory dir) take what
 * materializing adds: a file of size bytes, need of them written (the
 * fill)? RC_INPUT before anything is created or written, else RC_OK. */
static int check_room(const char *W, const char *path, const char *dir, uint64_t size, uint64_t need, char *why,
		      size_t why_len)
{
	char p[1024], d[1024], a[32], b[32], f[32];
	struct statvfs vfs;
	uint64_t avail;

	shown(path, p, sizeof(p));
	shown(dir, d, sizeof(d));
	units_format_size(size, a, sizeof(a));
	if (!fs_takes(dir, size)) {
		snprintf(why, why_len, "%s.size: %s is larger than the largest file the filesystem of %s takes (%s)", W, a, d,
			 strerror(errno));
		return RC_INPUT;
	}
	if (!need || statvfs(dir, &vfs) < 0)
		return RC_OK;
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (need <= avail)
		return RC_OK;
	units_format_size(need, b, sizeof(b));
	units_format_size(avail, f, sizeof(f));
	snprintf(why, why_len, "%s.size: %s needs %s free on %s (%s free) to fill %s; give a smaller size (or "
		 "fill=false, which writes nothing)", W, a, b, d, f, p);
	return RC_INPUT;
}

/* check_room for the existing file open at fd, in its real directory. */
static int room(const struct target *t, const struct target_opts *o, int fd, char *why, size_t why_len)
{
	char *real = realpath(o->path, NULL), *d;
	int rc;

	if (!real)
		return RC_OK; /* the open checks will say */
	d = dirname(real);
	rc = check_room(o->what ? o->what : "target", o->path, d, t->size,
			o->fill != FILL_NONE ? hole_bytes(fd, t->size) : 0, why, why_len);
	free(real);
	return rc;
}

/* Will materializing write to the existing file open at fd (extend it, or
 * fill a hole)? Then it must be allowed now, before anything is written:
 * a file iomoon did not create needs allow_write, and a claimed one force. */
static int check_growth(struct target *t, const struct target_opts *o, int fd, const struct stat *st, char *why,
			size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	uint64_t have = (uint64_t)st->st_size;
	int grow = t->size > have, holes = o->fill != FILL_NONE && first_hole(fd, 0, t->size) >= 0;
	char p[1024], what[WHY_LEN];

	if (!grow && !holes)
		return RC_OK;
	shown(o->path, p, sizeof(p));
	if (!t->ours && !o->allow_write) {
		if (grow)
			snprintf(why, why_len, "%s.size: %s is %llu bytes and iomoon did not create it; making it %llu bytes "
				 "writes to it: give allow_write=true (--allow-write)", W, p, (unsigned long long)have,
				 (unsigned long long)t->size);
		else
			snprintf(why, why_len, "%s.fill: %s has holes, and filling them writes to a file iomoon did not "
				 "create: give allow_write=true (--allow-write), or fill=false to read it as it is", W, p);
		return RC_INPUT;
	}
	if (o->force || !claimed(t, fd, st, what, sizeof(what)))
		return room(t, o, fd, why, why_len);
	if (grow)
		snprintf(why, why_len, "%s.size: making %s %llu bytes writes to it, but %s (force=true, --force, writes "
			 "anyway and destroys it)", W, p, (unsigned long long)t->size, what);
	else
		snprintf(why, why_len, "%s.fill: %s has holes, and filling them writes to it, but %s: give fill=false to "
			 "read it as it is, or force=true (--force) to write anyway and destroy it", W, p, what);
	return RC_INPUT;
}

/* Open what stat found (st) read-only, as t's object from now on. */
static int open_inspected(struct target *t, const char *W, const struct stat *st, struct stat *now, char *why,
			  size_t why_len)
{
	char field[64];
	int fd;

	t->kind = S_ISBLK(st->st_mode) ? TARGET_BLOCK : TARGET_FILE;
	record_object(t, st);
	fd = open_checked(t, O_RDONLY, now);
	if (fd < 0) {
		snprintf(field, sizeof(field), "%s.path", W);
		open_failed(t, fd, field, why, why_len);
	}
	return fd;
}

/* A block device: its size and sector, read through a read-only descriptor. */
static int inspect_device(struct target *t, const struct target_opts *o, const struct stat *st, char *why,
			  size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char p[1024], sz[32];
	uint64_t bytes = 0;
	struct stat now;
	int ssz = 512, fd = open_inspected(t, W, st, &now, why, why_len);

	if (fd < 0)
		return RC_INPUT;
	shown(o->path, p, sizeof(p));
	if (ioctl(fd, BLKGETSIZE64, &bytes) < 0 || ioctl(fd, BLKSSZGET, &ssz) < 0) {
		snprintf(why, why_len, "%s.path: %s: cannot read the device's size: %s", W, p, strerror(errno));
		close(fd);
		return RC_INPUT;
	}
	close(fd);
	if (o->size > bytes) {
		units_format_size(bytes, sz, sizeof(sz));
		snprintf(why, why_len, "%s.size: %llu bytes is larger than the device %s (%s)", W,
			 (unsigned long long)o->size, p, sz);
		return RC_INPUT;
	}
	t->size = o->size ? o->size : bytes;
	t->sector = (uint32_t)ssz;
	t->mem_align = (uint32_t)ssz;
	return RC_OK;
}

/* An existing regular file: whose it is, its size, and whether what
 * materializing would write to it is allowed. */
static int inspect_file(struct target *t, const struct target_opts *o, const struct stat *st, char *why,
			size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char p[1024];
	struct stat now;
	int rc, fd = open_inspected(t, W, st, &now, why, why_len);

	if (fd < 0)
		return RC_INPUT;
	shown(o->path, p, sizeof(p));
	t->ours = mark_matches(fd);
	t->size = o->size ? o->size : (uint64_t)now.st_size;
	if (!t->size) {
		snprintf(why, why_len, "%s.size: %s is empty; give a size to extend it", W, p);
		close(fd);
		return RC_INPUT;
	}
	rc = check_growth(t, o, fd, &now, why, why_len);
	close(fd);
	if (rc == RC_OK)
		file_alignment(o->path, &t->sector, &t->mem_align);
	return rc;
}

/* A file to create: its directory must take it. */
static int inspect_missing(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char dir[4096], p[1024], *d;
	struct stat ls;

	shown(o->path, p, sizeof(p));
	t->kind = TARGET_FILE;
	if (lstat(o->path, &ls) == 0) { /* O_EXCL would refuse it later */
		snprintf(why, why_len, "%s.path: %s is a symbolic link to a missing file (iomoon creates no file "
			 "through a link; give the link's target)", W, p);
		return RC_INPUT;
	}
	if (!o->create) {
		snprintf(why, why_len, "%s.path: %s does not exist (set create=true and a size to make it)", W, p);
		return RC_INPUT;
	}
	if (!o->size) {
		snprintf(why, why_len, "%s.size: needed to create %s (e.g. size=\"1g\")", W, p);
		return RC_INPUT;
	}
	t->size = o->size;
	snprintf(dir, sizeof(dir), "%s", o->path);
	d = dirname(dir);
	if (access(d, W_OK) < 0) {
		snprintf(why, why_len, "%s.path: cannot create %s in its directory: %s", W, p, strerror(errno));
		return RC_INPUT;
	}
	if (check_room(W, o->path, d, t->size, o->fill != FILL_NONE ? t->size : 0, why, why_len) < 0)
		return RC_INPUT;
	file_alignment(d, &t->sector, &t->mem_align);
	return RC_OK;
}

int target_inspect(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char p[1024];
	struct stat st;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!o->path || !*o->path) {
		snprintf(why, why_len, "%s.path: missing (a file or block device path)", W);
		return RC_INPUT;
	}
	if (net_engine_for(o->path)) {
		rc = net_target_inspect(t, o, net_engine_for(o->path), why, why_len);
		if (rc < 0)
			target_free(t);
		return rc;
	}
	shown(o->path, p, sizeof(p));
	t->exists = stat(o->path, &st) == 0;
	if (!t->exists && errno != ENOENT) {
		snprintf(why, why_len, "%s.path: %s: %s", W, p, strerror(errno));
		return RC_INPUT;
	}
	/* nothing else is opened: a FIFO's open would block, a tape's rewind */
	if (t->exists && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		snprintf(why, why_len, "%s.path: %s is %s, not a regular file or block device", W, p, kind_name(st.st_mode));
		return RC_INPUT;
	}
	t->allow_write = o->allow_write;
	t->force = o->force;
	t->path = strdup(o->path); /* open_checked opens t->path */
	if (!t->path) {
		snprintf(why, why_len, "out of memory");
		return RC_FAIL;
	}
	if (!t->exists)
		rc = inspect_missing(t, o, why, why_len);
	else if (S_ISBLK(st.st_mode))
		rc = inspect_device(t, o, &st, why, why_len);
	else
		rc = inspect_file(t, o, &st, why, why_len);
	if (rc < 0)
		target_free(t);
	return rc;
}

/* Write fill data into [off, end) through fd, stopping between chunks
 * when the process is interrupted. *at gets where it stopped. */
static int fill_range(int fd, char *buf, uint64_t key, enum target_fill fill, uint64_t off, uint64_t end,
		      uint64_t *at)
{
	while (off < end) {
		size_t n = end - off < FILL_CHUNK ? (size_t)(end - off) : FILL_CHUNK;
		ssize_t w;

		*at = off;
		if (phase_interrupt) {
			errno = EINTR;
			return RC_FAIL;
		}
		if (fill == FILL_RANDOM)
			fill_data(buf, n, key, off); /* reproducible: fill.h */
		w = pwrite(fd, buf, n, (off_t)off);
		if (w <= 0) {
			errno = w < 0 ? errno : EIO;
			return RC_FAIL;
		}
		off += (uint64_t)w;
	}
	*at = off;
	return RC_OK;
}

/* Write data into every hole of [0, size). Holes are looked for through
 * rfd (read-only is enough); the file is opened for writing only when
 * there is one, and then checked to be the same file. Holes start and end
 * on filesystem blocks, so on sectors; a tail that is not whole sectors (at
 * the end of the file) is written buffered. */
static int fill_holes(struct target *t, enum target_fill fill, int rfd, char *why, size_t why_len)
{
	int64_t hole = first_hole(rfd, 0, t->size);
	uint64_t at = 0;
	struct stat st;
	uint64_t key;
	char *buf, p[1024];
	int fd, rc = RC_OK;

	if (hole < 0)
		return RC_OK;
	shown(t->path, p, sizeof(p));
	if (!t->ours && !t->allow_write) { /* inspection refused this already */
		snprintf(why, why_len, "target %s: refusing to fill a file iomoon did not create", p);
		return RC_FAIL;
	}
	fd = open_checked(t, O_WRONLY | O_DIRECT, &st);
	if (fd == RC_FAIL && errno == EINVAL)
		fd = open_checked(t, O_WRONLY, &st);
	if (fd < 0) {
		open_failed(t, fd, "target fill", why, why_len);
		return RC_FAIL;
	}
	if (posix_memalign((void **)&buf, 4096, FILL_CHUNK)) {
		close(fd);
		snprintf(why, why_len, "target %s: no memory for the fill buffer", p);
		return RC_FAIL;
	}
	memset(buf, 0, FILL_CHUNK);
	if (fill_key_fd(fd, &key) < 0)
		rc = RC_FAIL;
	while (rc == RC_OK && hole >= 0) {
		off_t data = lseek(rfd, (off_t)hole, SEEK_DATA);
		uint64_t end = (data < 0 || (uint64_t)data > t->size) ? t->size : (uint64_t)data;
		uint64_t whole = (end - (uint64_t)hole) / t->sector * t->sector;

		rc = fill_range(fd, buf, key, fill, (uint64_t)hole, (uint64_t)hole + whole, &at);
		if (rc == RC_OK && whole < end - (uint64_t)hole) { /* O_DIRECT cannot write it */
			int fl = fcntl(fd, F_GETFL);

			if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_DIRECT) < 0 ||
			    fill_range(fd, buf, key, fill, (uint64_t)hole + whole, end, &at) < 0)
				rc = RC_FAIL;
		}
		hole = rc == RC_OK ? first_hole(rfd, end, t->size) : -1;
	}
	free(buf);
	if (rc == RC_OK && fsync(fd) < 0)
		rc = RC_FAIL;
	if (rc < 0 && errno == EINTR)
		snprintf(why, why_len, "interrupted during the fill of %s at %llu of %llu bytes", p,
			 (unsigned long long)at, (unsigned long long)t->size);
	else if (rc < 0)
		snprintf(why, why_len, "target %s: fill at offset %llu: %s", p, (unsigned long long)at, strerror(errno));
	close(fd);
	return rc;
}

/* Create the missing file with O_EXCL (a file that appeared since the
 * inspection is not ours, and is refused), and mark it through the new
 * descriptor. A read-write descriptor, or RC_INPUT with why. */
static int create_file(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char v[128], p[1024];
	struct stat st;
	int fd = open(t->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	shown(t->path, p, sizeof(p));
	if (fd < 0 && errno == EEXIST) {
		snprintf(why, why_len, "%s.path: %s appeared after it was checked (something else made it, so it is "
			 "not iomoon's); nothing was written%s", W, p,
			 cluster_ranks() > 1 ? " (ranks on one host that create the same path: put {rank} in it)" : "");
		return RC_INPUT;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, why_len, "%s.path: cannot create %s: %s", W, p, strerror(errno));
		if (fd >= 0)
			close(fd);
		return RC_INPUT;
	}
	record_object(t, &st);
	t->created = 1;
	t->ours = 1;
	/* where the filesystem keeps no user xattrs, it is anyone's file next time */
	if (mark_value(fd, v, sizeof(v)) == RC_OK)
		(void)fsetxattr(fd, TARGET_XATTR, v, strlen(v), 0);
	file_alignment(t->path, &t->sector, &t->mem_align);
	return fd;
}

/* Extend the file open at fd to t->size (through a descriptor of its own
 * when fd is read-only). */
static int extend_file(struct target *t, const struct target_opts *o, int fd, char *why, size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char p[1024];
	struct stat st;
	int wfd, rc;

	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size >= t->size)
		return RC_OK;
	wfd = t->created ? fd : open_checked(t, O_WRONLY, &st);
	if (wfd == RC_INPUT)
		errno = ESTALE;
	rc = wfd < 0 || ftruncate(wfd, (off_t)t->size) < 0 ? RC_FAIL : RC_OK;
	if (rc < 0)
		snprintf(why, why_len, "%s.size: cannot make %s %llu bytes: %s", W, shown(t->path, p, sizeof(p)),
			 (unsigned long long)t->size, strerror(errno));
	if (wfd >= 0 && wfd != fd)
		close(wfd);
	return rc;
}

int target_materialize(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	char field[64];
	struct stat st;
	int fd, rc;

	if (t->kind != TARGET_FILE || t->net)
		return RC_OK;
	snprintf(field, sizeof(field), "%s.path", o->what ? o->what : "target");
	if (!t->exists) {
		fd = create_file(t, o, why, why_len);
		if (fd < 0)
			return RC_INPUT;
	} else {
		fd = open_checked(t, O_RDONLY, &st);
		if (fd < 0) {
			open_failed(t, fd, field, why, why_len);
			return RC_INPUT;
		}
	}
	rc = extend_file(t, o, fd, why, why_len);
	if (rc == RC_OK && o->fill != FILL_NONE)
		rc = fill_holes(t, o->fill, fd, why, why_len);
	close(fd);
	if (rc == RC_OK)
		t->exists = 1;
	return rc;
}

int target_unlink_created(const struct target *t)
{
	struct stat st;

	/* lstat: the name itself must be the inode created (a link put in its
	 * place is not followed, and is left alone) */
	if (!t->created || t->kind != TARGET_FILE || lstat(t->path, &st) < 0 || !same_object(t, &st))
		return 0;
	return unlink(t->path) == 0;
}

int target_prepare(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	int rc = target_inspect(t, o, why, why_len);

	if (rc == RC_OK)
		rc = target_materialize(t, o, why, why_len);
	if (rc < 0) {
		if (t->path)
			target_unlink_created(t);
		target_free(t);
	}
	return rc;
}

int target_open(const struct target *t, int direct, int write, int sync_flags, char *why, size_t why_len)
{
	char p[1024];
	struct stat st;
	int fd;

	if (t->kind == TARGET_NONE || t->net) { /* a descriptor the engines never use */
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			snprintf(why, why_len, "target: open /dev/null: %s", strerror(errno));
		return fd;
	}
	/* no O_EXCL here: io_uring releases its files after the process has
	 * exited, so the claim would outlive iomoon (mkfs right after it fails
	 * with EBUSY); target_may_write's exclusive probe is what asks */
	fd = open_checked(t, (write ? O_RDWR | sync_flags : O_RDONLY) | (direct ? O_DIRECT : 0), &st);

	shown(t->path, p, sizeof(p));
	if (fd == RC_FAIL && direct && errno == EINVAL) {
		snprintf(why, why_len, "direct: %s is on a filesystem without O_DIRECT (tmpfs before Linux 6.6?); set direct=false",
			 p);
		return RC_INPUT;
	}
	if (fd == RC_INPUT) {
		open_failed(t, fd, "target", why, why_len);
		return RC_INPUT;
	}
	if (fd < 0) {
		snprintf(why, why_len, "target %s: open: %s", p, strerror(errno));
		return RC_FAIL;
	}
	return fd;
}

int target_polls(const struct target *t, char *dev, size_t dev_len)
{
	struct stat st;
	char path[128], parent[64];
	unsigned maj, min;
	FILE *f;
	int v = -1;

	if (stat(t->path, &st) < 0)
		return -1;
	maj = t->kind == TARGET_BLOCK ? major(st.st_rdev) : major(st.st_dev);
	min = t->kind == TARGET_BLOCK ? minor(st.st_rdev) : minor(st.st_dev);
	if (claims_sysfs_names(maj, min, dev, dev_len, parent, sizeof(parent)) < 0)
		snprintf(dev, dev_len, "%u:%u", maj, min);
	/* a whole disk has queue/ beside it; a partition's is its parent's */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/io_poll", maj, min);
	f = fopen(path, "re");
	if (!f) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/io_poll", maj, min);
		f = fopen(path, "re");
	}
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}
