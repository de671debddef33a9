/* target.c - open, size, create and fill files and block devices.
 *
 * Order matters for the "nothing changed on bad input" rule: everything that
 * can be checked (path kind, size, sector alignment of the size, write
 * permission) is checked before a file is created or a byte is written.
 * A fill writes only the holes of a file: reading a hole measures the
 * filesystem's zero page, not the storage, so data is put there first.
 *
 * Safety. People run this as root against real disks. A file iomoon creates
 * carries the extended attribute user.iomoon; any other file is only read
 * unless allow_write is given (no write, extension or fill). A block device
 * is only read unless allow_write, and even then not written while it or a
 * partition on it is mounted or swapped on, or while libblkid finds a
 * filesystem, RAID member or partition table on it, unless force.
 */
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <blkid/blkid.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "phase.h"
#include "rng.h"
#include "units.h"

#define FILL_CHUNK (1u << 20)

void target_free(struct target *t)
{
	free(t->path);
	t->path = NULL;
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

/* s as a message may show it: control bytes (a newline, an escape) as \N,
 * as the Lua side shows them. */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 32 || c == 127)
			o += (size_t)snprintf(buf + o, len - o, "\\%u", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = 0;
	return buf;
}

/* What a path is when it is neither a regular file nor a block device. */
static const char *kind_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFDIR:
		return "a directory";
	case S_IFLNK:
		return "a symbolic link";
	}
	return "of an unknown kind";
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
 * cleared (io_uring would otherwise fail instead of waiting). -2 when the
 * path names something else now, -1 with errno when it cannot be opened. */
static int open_checked(const struct target *t, int flags, struct stat *st)
{
	int fd = open(t->path, flags | O_NONBLOCK | O_CLOEXEC), fl;

	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !same_object(t, st)) {
		close(fd);
		return -2;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A message for open_checked's failure. */
static void open_failed(const struct target *t, int rc, const char *field, char *why, size_t why_len)
{
	char p[1024];

	shown(t->path, p, sizeof(p));
	if (rc == -2)
		snprintf(why, why_len, "%s: %s is no longer the file or device that was checked (it was replaced "
			 "or removed); nothing was written", field, p);
	else
		snprintf(why, why_len, "%s: %s: %s", field, p, strerror(errno));
}

/* The mark's value for the file open at fd: "iomoon-2" and the identity of
 * the inode iomoon created (its number and birth time, or its number and
 * device where the filesystem keeps no birth time). A copy (cp -a copies
 * the attribute) is another inode, and a file made later under the same
 * name is born later, so neither matches. */
static int mark_value(int fd, char *v, size_t len)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &sx) < 0)
		return -1;
	if (sx.stx_mask & STATX_BTIME)
		snprintf(v, len, "iomoon-2 ino=%llu btime=%lld.%09u", (unsigned long long)sx.stx_ino,
			 (long long)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
	else
		snprintf(v, len, "iomoon-2 ino=%llu dev=%u:%u", (unsigned long long)sx.stx_ino, sx.stx_dev_major,
			 sx.stx_dev_minor);
	return 0;
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

/* Is loop device `name` (attached) backed by the file st? By device and
 * inode: the name sysfs shows, then LOOP_GET_STATUS64 (which still knows a
 * backing file that was renamed, deleted or is named in another mount
 * namespace). */
static int loop_backs(const char *name, const struct stat *st)
{
	char p[320], back[4096];
	struct loop_info64 li;
	struct stat bs;
	FILE *f;
	int fd, hit = 0;

	snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", name);
	f = fopen(p, "re");
	if (!f)
		return 0; /* not attached */
	if (!fgets(back, sizeof(back), f))
		back[0] = 0;
	fclose(f);
	back[strcspn(back, "\n")] = 0;
	if (back[0] && stat(back, &bs) == 0 && bs.st_dev == st->st_dev && bs.st_ino == st->st_ino)
		return 1;
	snprintf(p, sizeof(p), "/dev/%s", name);
	fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
		/* lo_device is the kernel's "huge" encoding of the dev_t */
		unsigned maj = (unsigned)((li.lo_device & 0xfff00) >> 8);
		unsigned min = (unsigned)((li.lo_device & 0xff) | ((li.lo_device >> 12) & 0xfff00));

		hit = li.lo_inode == (uint64_t)st->st_ino && maj == major(st->st_dev) && min == minor(st->st_dev);
	}
	if (fd >= 0)
		close(fd);
	return hit;
}

/* Is the file st the backing file of an attached loop device? Names it. */
static int file_backs_loop(const struct stat *st, char *what, size_t what_len)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d)))
		if (!strncmp(e->d_name, "loop", 4) && loop_backs(e->d_name, st)) {
			snprintf(what, what_len, "it is the backing file of /dev/%s", e->d_name);
			found = 1;
		}
	if (d)
		closedir(d);
	return found;
}

/* Append the signature libblkid's last probe step found ("ext4 at offset
 * 0x438") to list; its type goes to first when it is the first. */
static void add_signature(blkid_probe pr, int n, char *list, size_t len, char *first, size_t flen, int *pt)
{
	const char *type = NULL, *off = NULL;
	size_t o = strlen(list);

	*pt = 0;
	if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) < 0 &&
	    blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) == 0)
		*pt = 1;
	if (blkid_probe_lookup_value(pr, *pt ? "PTMAGIC_OFFSET" : "SBMAGIC_OFFSET", &off, NULL) < 0)
		off = NULL;
	if (!type)
		type = "unknown";
	if (n == 0)
		snprintf(first, flen, "%s", type);
	if (off)
		snprintf(list + o, len - o, "%s%s%s at offset 0x%llx", n ? ", " : "", type, *pt ? " partition table" : "",
			 strtoull(off, NULL, 10));
	else
		snprintf(list + o, len - o, "%s%s%s", n ? ", " : "", type, *pt ? " partition table" : "");
}

/* Every filesystem, RAID or partition-table signature libblkid sees on fd,
 * as wipefs lists them (bad checksums included). 0: the probe positively
 * found nothing; 1: what names what was found; -1: what says why the probe
 * could not tell (an ambivalent result with nothing listed, an error). */
static int probe_signatures(int fd, char *what, size_t what_len)
{
	blkid_probe pr = blkid_new_probe();
	char list[768] = "", first[64] = "";
	int safe, rc = -1, n = 0, pt = 0;

	if (!pr || blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		snprintf(what, what_len, "libblkid cannot probe it for signatures (%s)", strerror(errno ? errno : EINVAL));
		if (pr)
			blkid_free_probe(pr);
		return -1;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	safe = blkid_do_safeprobe(pr);
	blkid_reset_probe(pr);
	while (n < 16 && (rc = blkid_do_probe(pr)) == 0)
		add_signature(pr, n++, list, sizeof(list), first, sizeof(first), &pt);
	blkid_free_probe(pr);
	if (n == 1)
		snprintf(what, what_len, "it holds a %s %s", first, pt ? "partition table" : "signature");
	else if (n > 1)
		snprintf(what, what_len, "it holds %d signatures: %s", n, list);
	else if (safe == 1 && rc == 1)
		return 0;
	else
		snprintf(what, what_len, "libblkid cannot tell what is on it (%s)",
			 safe == -2 ? "an ambivalent result" : "the probe failed");
	return 1;
}

/* The name under /sys/dev/block of device maj:min ("loop0", "loop0p1"),
 * and its parent's for a partition ("loop0"), or "" when it has none. */
static int sysfs_names(unsigned maj, unsigned min, char *name, size_t nlen, char *parent, size_t plen)
{
	char path[64], link[512], *slash;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", maj, min);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = 0;
	slash = strrchr(link, '/');
	snprintf(name, nlen, "%s", slash ? slash + 1 : link);
	parent[0] = 0;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", maj, min);
	if (slash && access(path, F_OK) == 0) {
		*slash = 0;
		slash = strrchr(link, '/');
		snprintf(parent, plen, "%s", slash ? slash + 1 : link);
	}
	return 0;
}

/* Is the device (or a partition on it) mounted or swapped on? Names where. */
static int device_in_use(const struct stat *st, char *what, size_t what_len)
{
	char me[64], mine_parent[64], name[64], parent[64], line[4096];
	FILE *f;
	int used = 0;

	if (sysfs_names(major(st->st_rdev), minor(st->st_rdev), me, sizeof(me), mine_parent, sizeof(mine_parent)) < 0)
		return 0;
	f = fopen("/proc/self/mountinfo", "re");
	while (f && !used && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		char mnt[1024];

		/* id parent maj:min root mountpoint ... */
		if (sscanf(line, "%*u %*u %u:%u %*s %1023s", &maj, &min, mnt) != 3 || maj == 0)
			continue;
		if (sysfs_names(maj, min, name, sizeof(name), parent, sizeof(parent)) < 0)
			continue;
		if (!strcmp(name, me) || !strcmp(parent, me)) {
			snprintf(what, what_len, "%s is mounted on %s", name, mnt);
			used = 1;
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/swaps", "re");
	while (f && !used && fgets(line, sizeof(line), f)) {
		char dev[1024];
		struct stat ss;

		if (sscanf(line, "%1023s", dev) == 1 && stat(dev, &ss) == 0 && S_ISBLK(ss.st_mode) &&
		    sysfs_names(major(ss.st_rdev), minor(ss.st_rdev), name, sizeof(name), parent, sizeof(parent)) == 0 &&
		    (!strcmp(name, me) || !strcmp(parent, me))) {
			snprintf(what, what_len, "%s is in use as swap", name);
			used = 1;
		}
	}
	if (f)
		fclose(f);
	return used;
}

/* Has something else claimed what fd (st) is: a mount or swap on the
 * device, a loop device over the file, a signature on either, or a probe
 * that cannot tell? 1 with what naming it, else 0. */
static int claimed(const struct target *t, int fd, const struct stat *st, char *what, size_t what_len)
{
	if (t->kind == TARGET_BLOCK && device_in_use(st, what, what_len))
		return 1;
	if (t->kind == TARGET_FILE && file_backs_loop(st, what, what_len))
		return 1;
	return probe_signatures(fd, what, what_len) != 0;
}

int target_may_write(const struct target *t, char *why, size_t why_len)
{
	char what[1200], p[1024];
	struct stat st;
	int fd, c;

	shown(t->path, p, sizeof(p));
	if (t->kind == TARGET_FILE && !t->exists)
		return 0; /* it will be created, and ours */
	if (t->kind == TARGET_FILE && !t->ours && !t->allow_write) {
		snprintf(why, why_len, "target %s: iomoon did not create this file; writing to it needs "
			 "allow_write=true (--allow-write)", p);
		return -2;
	}
	if (t->kind == TARGET_BLOCK && !t->allow_write) {
		snprintf(why, why_len, "target %s: writing to a block device needs allow_write=true (--allow-write)", p);
		return -2;
	}
	if (t->force)
		return 0;
	fd = open_checked(t, O_RDONLY, &st);
	if (fd < 0) {
		open_failed(t, fd, "target", why, why_len);
		return -2;
	}
	c = claimed(t, fd, &st, what, sizeof(what));
	close(fd);
	if (c) {
		snprintf(why, why_len, "target %s: refusing to write: %s (force=true, --force, writes anyway and destroys it)",
			 p, what);
		return -2;
	}
	return 0;
}

/* Is there a hole in [0, size) of the file open at fd? Its offset, or -1. */
static int64_t first_hole(int fd, uint64_t from, uint64_t size)
{
	off_t hole = lseek(fd, (off_t)from, SEEK_HOLE);

	return hole >= 0 && (uint64_t)hole < size ? (int64_t)hole : -1;
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
	char p[1024], what[1200];

	if (!grow && !holes)
		return 0;
	shown(o->path, p, sizeof(p));
	if (!t->ours && !o->allow_write) {
		if (grow)
			snprintf(why, why_len, "%s.size: %s is %llu bytes and iomoon did not create it; making it %llu bytes "
				 "writes to it: give allow_write=true (--allow-write)", W, p, (unsigned long long)have,
				 (unsigned long long)t->size);
		else
			snprintf(why, why_len, "%s.fill: %s has holes, and filling them writes to a file iomoon did not "
				 "create: give allow_write=true (--allow-write), or fill=false to read it as it is", W, p);
		return -2;
	}
	if (o->force || !claimed(t, fd, st, what, sizeof(what)))
		return 0;
	if (grow)
		snprintf(why, why_len, "%s.size: making %s %llu bytes writes to it, but %s (force=true, --force, writes "
			 "anyway and destroys it)", W, p, (unsigned long long)t->size, what);
	else
		snprintf(why, why_len, "%s.fill: %s has holes, and filling them writes to it, but %s: give fill=false to "
			 "read it as it is, or force=true (--force) to write anyway and destroy it", W, p, what);
	return -2;
}

/* A block device: its size and sector, read through a read-only descriptor. */
static int inspect_device(struct target *t, const struct target_opts *o, const struct stat *st, char *why,
			  size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char p[1024], sz[32], field[64];
	uint64_t bytes = 0;
	struct stat now;
	int ssz = 512, fd;

	shown(o->path, p, sizeof(p));
	t->kind = TARGET_BLOCK;
	record_object(t, st);
	fd = open_checked(t, O_RDONLY, &now);
	if (fd < 0) {
		snprintf(field, sizeof(field), "%s.path", W);
		open_failed(t, fd, field, why, why_len);
		return -2;
	}
	if (ioctl(fd, BLKGETSIZE64, &bytes) < 0 || ioctl(fd, BLKSSZGET, &ssz) < 0) {
		snprintf(why, why_len, "%s.path: %s: cannot read the device's size: %s", W, p, strerror(errno));
		close(fd);
		return -2;
	}
	close(fd);
	if (o->size > bytes) {
		units_format_size(bytes, sz, sizeof(sz));
		snprintf(why, why_len, "%s.size: %llu bytes is larger than the device %s (%s)", W,
			 (unsigned long long)o->size, p, sz);
		return -2;
	}
	t->size = o->size ? o->size : bytes;
	t->sector = (uint32_t)ssz;
	t->mem_align = (uint32_t)ssz;
	return 0;
}

/* An existing regular file: whose it is, its size, and whether what
 * materializing would write to it is allowed. */
static int inspect_file(struct target *t, const struct target_opts *o, const struct stat *st, char *why,
			size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char p[1024], field[64];
	struct stat now;
	int fd, rc;

	shown(o->path, p, sizeof(p));
	t->kind = TARGET_FILE;
	record_object(t, st);
	fd = open_checked(t, O_RDONLY, &now);
	if (fd < 0) {
		snprintf(field, sizeof(field), "%s.path", W);
		open_failed(t, fd, field, why, why_len);
		return -2;
	}
	t->ours = mark_matches(fd);
	t->size = o->size ? o->size : (uint64_t)now.st_size;
	if (!t->size) {
		snprintf(why, why_len, "%s.size: %s is empty; give a size to extend it", W, p);
		close(fd);
		return -2;
	}
	rc = check_growth(t, o, fd, &now, why, why_len);
	close(fd);
	if (rc == 0)
		file_alignment(o->path, &t->sector, &t->mem_align);
	return rc;
}

/* A file to create: its directory must take it. */
static int inspect_missing(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char dir[4096], p[1024], *slash;
	struct stat ls;

	shown(o->path, p, sizeof(p));
	t->kind = TARGET_FILE;
	if (lstat(o->path, &ls) == 0) { /* O_EXCL would refuse it later */
		snprintf(why, why_len, "%s.path: %s is a symbolic link to a missing file (iomoon creates no file "
			 "through a link; give the link's target)", W, p);
		return -2;
	}
	if (!o->create) {
		snprintf(why, why_len, "%s.path: %s does not exist (set create=true and a size to make it)", W, p);
		return -2;
	}
	if (!o->size) {
		snprintf(why, why_len, "%s.size: needed to create %s (e.g. size=\"1g\")", W, p);
		return -2;
	}
	t->size = o->size;
	snprintf(dir, sizeof(dir), "%s", o->path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	if (access(dir, W_OK) < 0) {
		snprintf(why, why_len, "%s.path: cannot create %s: %s", W, p, strerror(errno));
		return -2;
	}
	file_alignment(dir, &t->sector, &t->mem_align);
	return 0;
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
		return -2;
	}
	shown(o->path, p, sizeof(p));
	t->exists = stat(o->path, &st) == 0;
	if (!t->exists && errno != ENOENT) {
		snprintf(why, why_len, "%s.path: %s: %s", W, p, strerror(errno));
		return -2;
	}
	/* nothing else is opened: a FIFO's open would block, a tape's rewind */
	if (t->exists && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		snprintf(why, why_len, "%s.path: %s is %s, not a regular file or block device", W, p, kind_name(st.st_mode));
		return -2;
	}
	t->allow_write = o->allow_write;
	t->force = o->force;
	t->path = strdup(o->path); /* open_checked opens t->path */
	if (!t->path) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	if (!t->exists)
		rc = inspect_missing(t, o, why, why_len);
	else if (S_ISBLK(st.st_mode))
		rc = inspect_device(t, o, &st, why, why_len);
	else
		rc = inspect_file(t, o, &st, why, why_len);
	if (rc < 0) {
		free(t->path);
		t->path = NULL;
	}
	return rc;
}

/* Write fill data into [off, end) through fd, stopping between chunks
 * when the process is interrupted. *at gets where it stopped. */
static int fill_range(int fd, char *buf, struct rng *r, enum target_fill fill, uint64_t off, uint64_t end,
		      uint64_t *at)
{
	while (off < end) {
		size_t n = end - off < FILL_CHUNK ? (size_t)(end - off) : FILL_CHUNK;
		ssize_t w;

		*at = off;
		if (phase_interrupt) {
			errno = EINTR;
			return -1;
		}
		if (fill == FILL_RANDOM)
			for (size_t i = 0; i < n / 8; i++)
				((uint64_t *)buf)[i] = rng_next(r);
		w = pwrite(fd, buf, n, (off_t)off);
		if (w <= 0) {
			errno = w < 0 ? errno : EIO;
			return -1;
		}
		off += (uint64_t)w;
	}
	*at = off;
	return 0;
}

/* The end of a hole that is not whole sectors: written buffered, as
 * O_DIRECT cannot. */
static int fill_tail(const struct target *t, char *buf, struct rng *r, enum target_fill fill, uint64_t off,
		     uint64_t end, uint64_t *at)
{
	struct stat st;
	int fd = open_checked(t, O_WRONLY, &st), rc;

	if (fd < 0) {
		errno = fd == -2 ? ESTALE : errno;
		return -1;
	}
	rc = fill_range(fd, buf, r, fill, off, end, at);
	if (rc == 0 && fsync(fd) < 0)
		rc = -1;
	close(fd);
	return rc;
}

/* Write data into every hole of [0, size). Holes are looked for through
 * rfd (read-only is enough); the file is opened for writing only when
 * there is one, and then checked to be the same file. Holes start and end
 * on filesystem blocks, so on sectors; a tail that is not whole sectors is
 * written buffered. */
static int fill_holes(struct target *t, enum target_fill fill, int rfd, char *why, size_t why_len)
{
	int64_t hole = first_hole(rfd, 0, t->size);
	uint64_t at = 0;
	struct stat st;
	struct rng r;
	char *buf, p[1024];
	int fd, rc = 0;

	if (hole < 0)
		return 0;
	shown(t->path, p, sizeof(p));
	if (!t->ours && !t->allow_write) { /* inspection refused this already */
		snprintf(why, why_len, "target %s: refusing to fill a file iomoon did not create", p);
		return -1;
	}
	fd = open_checked(t, O_WRONLY | O_DIRECT, &st);
	if (fd == -1 && errno == EINVAL)
		fd = open_checked(t, O_WRONLY, &st);
	if (fd < 0) {
		open_failed(t, fd, "target fill", why, why_len);
		return -1;
	}
	if (posix_memalign((void **)&buf, 4096, FILL_CHUNK)) {
		close(fd);
		snprintf(why, why_len, "target %s: no memory for the fill buffer", p);
		return -1;
	}
	memset(buf, 0, FILL_CHUNK);
	rng_seed(&r, (uint64_t)time(NULL) ^ (uint64_t)getpid(), 7);
	while (rc == 0 && hole >= 0) {
		off_t data = lseek(rfd, (off_t)hole, SEEK_DATA);
		uint64_t end = (data < 0 || (uint64_t)data > t->size) ? t->size : (uint64_t)data;
		uint64_t whole = (end - (uint64_t)hole) / t->sector * t->sector;

		rc = fill_range(fd, buf, &r, fill, (uint64_t)hole, (uint64_t)hole + whole, &at);
		if (rc == 0 && (uint64_t)hole + whole < end)
			rc = fill_tail(t, buf, &r, fill, (uint64_t)hole + whole, end, &at);
		hole = rc == 0 ? first_hole(rfd, end, t->size) : -1;
	}
	free(buf);
	if (rc == 0 && fsync(fd) < 0)
		rc = -1;
	if (rc < 0 && errno == EINTR)
		snprintf(why, why_len, "target %s: interrupted during the fill of %s at %llu of %llu bytes", p, p,
			 (unsigned long long)at, (unsigned long long)t->size);
	else if (rc < 0)
		snprintf(why, why_len, "target %s: fill at offset %llu: %s", p, (unsigned long long)at, strerror(errno));
	close(fd);
	return rc;
}

/* Create the missing file with O_EXCL (a file that appeared since the
 * inspection is not ours, and is refused), and mark it through the new
 * descriptor. A read-write descriptor, or -2 with why. */
static int create_file(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char v[128], p[1024];
	struct stat st;
	int fd = open(t->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	shown(t->path, p, sizeof(p));
	if (fd < 0 && errno == EEXIST) {
		snprintf(why, why_len, "%s.path: %s appeared after it was checked (something else made it, so it is "
			 "not iomoon's); nothing was written", W, p);
		return -2;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, why_len, "%s.path: cannot create %s: %s", W, p, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -2;
	}
	record_object(t, &st);
	t->created = 1;
	t->ours = 1;
	/* where the filesystem keeps no user xattrs, it is anyone's file next time */
	if (mark_value(fd, v, sizeof(v)) == 0)
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
		return 0;
	wfd = t->created ? fd : open_checked(t, O_WRONLY, &st);
	if (wfd == -2)
		errno = ESTALE;
	rc = wfd < 0 || ftruncate(wfd, (off_t)t->size) < 0 ? -1 : 0;
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

	if (t->kind != TARGET_FILE)
		return 0;
	snprintf(field, sizeof(field), "%s.path", o->what ? o->what : "target");
	if (!t->exists) {
		fd = create_file(t, o, why, why_len);
		if (fd < 0)
			return -2;
	} else {
		fd = open_checked(t, O_RDONLY, &st);
		if (fd < 0) {
			open_failed(t, fd, field, why, why_len);
			return -2;
		}
	}
	rc = extend_file(t, o, fd, why, why_len);
	if (rc == 0 && o->fill != FILL_NONE)
		rc = fill_holes(t, o->fill, fd, why, why_len);
	close(fd);
	if (rc == 0)
		t->exists = 1;
	return rc;
}

/* Remove the file this run created, if it is still the one it created. */
static void unlink_created(const struct target *t)
{
	struct stat st;

	if (t->created && stat(t->path, &st) == 0 && same_object(t, &st))
		unlink(t->path);
}

int target_prepare(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	int rc = target_inspect(t, o, why, why_len);

	if (rc == 0)
		rc = target_materialize(t, o, why, why_len);
	if (rc < 0) {
		if (t->path)
			unlink_created(t);
		target_free(t);
	}
	return rc;
}

int target_open(const struct target *t, int direct, int write, char *why, size_t why_len)
{
	char p[1024];
	struct stat st;
	int fd = open_checked(t, (write ? O_RDWR : O_RDONLY) | (direct ? O_DIRECT : 0), &st);

	shown(t->path, p, sizeof(p));
	if (fd == -1 && direct && errno == EINVAL) {
		snprintf(why, why_len, "direct: %s is on a filesystem without O_DIRECT (tmpfs before Linux 6.6?); set direct=false",
			 p);
		return -2;
	}
	if (fd == -2) {
		open_failed(t, fd, "target", why, why_len);
		return -2;
	}
	if (fd < 0) {
		snprintf(why, why_len, "target %s: open: %s", p, strerror(errno));
		return -1;
	}
	return fd;
}

int target_polls(const struct target *t, char *dev, size_t dev_len)
{
	struct stat st;
	char path[128], link[256];
	unsigned maj, min;
	ssize_t n;
	FILE *f;
	int v = -1;

	if (stat(t->path, &st) < 0)
		return -1;
	maj = t->kind == TARGET_BLOCK ? major(st.st_rdev) : major(st.st_dev);
	min = t->kind == TARGET_BLOCK ? minor(st.st_rdev) : minor(st.st_dev);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", maj, min);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		snprintf(dev, dev_len, "%s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	} else {
		snprintf(dev, dev_len, "%u:%u", maj, min);
	}
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
