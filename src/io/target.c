/* target.c - what a target is: files and block devices inspected (kind,
 * size, sector, whose, what filling it would need) and opened.
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
#include "core/units.h"
#include "io/engine.h"
#include "io/claims.h"
#include "io/fill.h"
#include "io/netblk.h"
#include "io/target_int.h"

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
void target_file_alignment(const char *path, uint32_t *sector, uint32_t *mem)
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
int target_same_object(const struct target *t, const struct stat *st)
{
	if (t->kind == TARGET_BLOCK)
		return S_ISBLK(st->st_mode) && (uint64_t)st->st_rdev == t->id_dev;
	return S_ISREG(st->st_mode) && (uint64_t)st->st_dev == t->id_dev && (uint64_t)st->st_ino == t->id_ino;
}

void target_record_object(struct target *t, const struct stat *st)
{
	t->id_dev = S_ISBLK(st->st_mode) ? (uint64_t)st->st_rdev : (uint64_t)st->st_dev;
	t->id_ino = S_ISBLK(st->st_mode) ? 0 : (uint64_t)st->st_ino;
}

/* Open t's path and check that it is still the file or device inspected:
 * O_NONBLOCK at open, so that a FIFO put there since cannot block us, then
 * cleared (io_uring would otherwise fail instead of waiting). RC_INPUT when
 * the path names something else now, RC_FAIL with errno when it cannot be
 * opened. */
int target_open_checked(const struct target *t, int flags, struct stat *st)
{
	/* reading to check (a signature probe) leaves even the access time
	 * as it was, where the owner's O_NOATIME is allowed */
	int ro = (flags & O_ACCMODE) == O_RDONLY;
	int fd = open(t->path, flags | O_NONBLOCK | O_CLOEXEC | (ro ? O_NOATIME : 0)), fl;

	if (fd < 0 && ro && errno == EPERM)
		fd = open(t->path, flags | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return RC_FAIL;
	if (fstat(fd, st) < 0 || !target_same_object(t, st)) {
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
void target_open_failed(const struct target *t, int rc, const char *field, char *why, size_t why_len)
{
	char p[1024];

	shown(t->path, p, sizeof(p));
	if (rc == RC_INPUT)
		snprintf(why, why_len, "%s: %s is no longer the file or device that was checked (it was replaced "
			 "or removed); nothing was written", field, p);
	else
		snprintf(why, why_len, "%s: %s: %s", field, p, strerror(errno));
}

/* Is there a hole in [0, size) of the file open at fd? Its offset, or -1. */
int64_t target_first_hole(int fd, uint64_t from, uint64_t size)
{
	off_t hole = lseek(fd, (off_t)from, SEEK_HOLE);

	return hole >= 0 && (uint64_t)hole < size ? (int64_t)hole : -1;
}

/* Bytes of holes in [0, size) of the file open at fd: what a fill adds. */
static uint64_t hole_bytes(int fd, uint64_t size)
{
	uint64_t sum = 0;
	int64_t hole = target_first_hole(fd, 0, size);

	while (hole >= 0) {
		off_t data = lseek(fd, (off_t)hole, SEEK_DATA);
		uint64_t end = data < 0 || (uint64_t)data > size ? size : (uint64_t)data;

		sum += end - (uint64_t)hole;
		hole = end < size ? target_first_hole(fd, end, size) : -1;
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
	int grow = t->size > have, holes = o->fill != FILL_NONE && target_first_hole(fd, 0, t->size) >= 0;
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
	if (o->force || !target_claimed(t, fd, st, what, sizeof(what)))
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
	target_record_object(t, st);
	fd = target_open_checked(t, O_RDONLY, now);
	if (fd < 0) {
		snprintf(field, sizeof(field), "%s.path", W);
		target_open_failed(t, fd, field, why, why_len);
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
	t->ours = target_mark_matches(fd);
	t->size = o->size ? o->size : (uint64_t)now.st_size;
	if (!t->size) {
		snprintf(why, why_len, "%s.size: %s is empty; give a size to extend it", W, p);
		close(fd);
		return RC_INPUT;
	}
	rc = check_growth(t, o, fd, &now, why, why_len);
	close(fd);
	if (rc == RC_OK)
		target_file_alignment(o->path, &t->sector, &t->mem_align);
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
	target_file_alignment(d, &t->sector, &t->mem_align);
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
	fd = target_open_checked(t, (write ? O_RDWR : O_RDONLY) | sync_flags | (direct ? O_DIRECT : 0), &st);

	shown(t->path, p, sizeof(p));
	if (fd == RC_FAIL && direct && errno == EINVAL) {
		snprintf(why, why_len, "direct: %s is on a filesystem without O_DIRECT (tmpfs before Linux 6.6?); set direct=false",
			 p);
		return RC_INPUT;
	}
	if (fd == RC_INPUT) {
		target_open_failed(t, fd, "target", why, why_len);
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
