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

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/fs.h>
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

/* Write data into every hole of [0, size). */
static int fill_holes(struct target *t, enum target_fill fill, char *why, size_t why_len)
{
	uint64_t off = 0;
	char *buf;
	struct rng r;
	int fd, direct = 1;

	fd = open(t->path, O_WRONLY | O_DIRECT);
	if (fd < 0 && errno == EINVAL) {
		direct = 0;
		fd = open(t->path, O_WRONLY);
	}
	if (fd < 0) {
		snprintf(why, why_len, "target %s: open for fill: %s", t->path, strerror(errno));
		return -1;
	}
	if (posix_memalign((void **)&buf, 4096, FILL_CHUNK)) {
		close(fd);
		snprintf(why, why_len, "target %s: no memory for the fill buffer", t->path);
		return -1;
	}
	memset(buf, 0, FILL_CHUNK);
	rng_seed(&r, (uint64_t)time(NULL) ^ (uint64_t)getpid(), 7);
	while (off < t->size) {
		off_t hole = lseek(fd, (off_t)off, SEEK_HOLE), data;
		uint64_t end;

		if (hole < 0 || (uint64_t)hole >= t->size)
			break;
		data = lseek(fd, hole, SEEK_DATA);
		end = (data < 0 || (uint64_t)data > t->size) ? t->size : (uint64_t)data;
		/* holes start and end on filesystem blocks, so on sectors */
		for (off = (uint64_t)hole; off < end;) {
			size_t n = end - off < FILL_CHUNK ? (size_t)(end - off) : FILL_CHUNK;
			ssize_t w;

			if (fill == FILL_RANDOM)
				for (size_t i = 0; i < n / 8; i++)
					((uint64_t *)buf)[i] = rng_next(&r);
			if (direct && n % t->sector) {
				/* a tail that is not whole sectors: buffered */
				close(fd);
				fd = open(t->path, O_WRONLY);
				direct = 0;
				if (fd < 0)
					break;
			}
			w = pwrite(fd, buf, n, (off_t)off);
			if (w <= 0) {
				snprintf(why, why_len, "target %s: fill at offset %llu: %s", t->path,
					 (unsigned long long)off, w < 0 ? strerror(errno) : "no progress");
				free(buf);
				close(fd);
				return -1;
			}
			off += (uint64_t)w;
		}
	}
	free(buf);
	if (fd < 0 || fsync(fd) < 0) {
		snprintf(why, why_len, "target %s: fill: %s", t->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int target_inspect(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	struct stat st;
	char sz[32];
	const char *W = o->what ? o->what : "target";

	memset(t, 0, sizeof(*t));
	if (!o->path || !*o->path) {
		snprintf(why, why_len, "%s.path: missing (a file or block device path)", W);
		return -2;
	}
	t->exists = stat(o->path, &st) == 0;
	if (!t->exists && errno != ENOENT) {
		snprintf(why, why_len, "%s.path: %s: %s", W, o->path, strerror(errno));
		return -2;
	}
	if (t->exists && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		snprintf(why, why_len, "%s.path: %s is not a regular file or a block device", W, o->path);
		return -2;
	}
	t->allow_write = o->allow_write;
	t->force = o->force;

	if (t->exists && S_ISBLK(st.st_mode)) {
		uint64_t bytes = 0;
		int ssz = 512, fd = open(o->path, O_RDONLY);

		if (fd < 0) {
			snprintf(why, why_len, "%s.path: %s: %s", W, o->path, strerror(errno));
			return -2;
		}
		if (ioctl(fd, BLKGETSIZE64, &bytes) < 0 || ioctl(fd, BLKSSZGET, &ssz) < 0) {
			snprintf(why, why_len, "%s.path: %s: cannot read the device's size: %s", W, o->path, strerror(errno));
			close(fd);
			return -2;
		}
		close(fd);
		if (o->size > bytes) {
			units_format_size(bytes, sz, sizeof(sz));
			snprintf(why, why_len, "%s.size: %llu bytes is larger than the device %s (%s)", W,
				 (unsigned long long)o->size, o->path, sz);
			return -2;
		}
		t->kind = TARGET_BLOCK;
		t->size = o->size ? o->size : bytes;
		t->sector = (uint32_t)ssz;
		t->mem_align = (uint32_t)ssz;
	} else {
		uint64_t have = t->exists ? (uint64_t)st.st_size : 0;

		t->kind = TARGET_FILE;
		if (!t->exists && !o->create) {
			snprintf(why, why_len, "%s.path: %s does not exist (set create=true and a size to make it)", W, o->path);
			return -2;
		}
		if (!t->exists && !o->size) {
			snprintf(why, why_len, "%s.size: needed to create %s (e.g. size=\"1g\")", W, o->path);
			return -2;
		}
		t->ours = t->exists && getxattr(o->path, TARGET_XATTR, NULL, 0) >= 0;
		if (t->exists && !t->ours && !o->allow_write && o->size > have) {
			snprintf(why, why_len, "%s.size: %s is %llu bytes and iomoon did not create it; making it %llu bytes "
				 "writes to it: give allow_write=true (--allow-write)", W, o->path, (unsigned long long)have,
				 (unsigned long long)o->size);
			return -2;
		}
		t->size = o->size ? o->size : have;
		if (t->exists && !t->ours && !o->allow_write && o->fill != FILL_NONE) {
			int fd = open(o->path, O_RDONLY);
			off_t hole = fd >= 0 ? lseek(fd, 0, SEEK_HOLE) : -1;

			if (fd >= 0)
				close(fd);
			if (hole >= 0 && (uint64_t)hole < t->size) {
				snprintf(why, why_len, "%s.fill: %s has holes, and filling them writes to a file iomoon did not "
					 "create: give allow_write=true (--allow-write), or fill=false to read it as it is", W, o->path);
				return -2;
			}
		}
		if (!t->size) {
			snprintf(why, why_len, "%s.size: %s is empty; give a size to extend it", W, o->path);
			return -2;
		}
		if (t->exists) {
			file_alignment(o->path, &t->sector, &t->mem_align);
		} else {
			char dir[4096], *slash;

			snprintf(dir, sizeof(dir), "%s", o->path);
			slash = strrchr(dir, '/');
			if (slash == dir)
				dir[1] = 0;
			else if (slash)
				*slash = 0;
			else
				snprintf(dir, sizeof(dir), ".");
			if (access(dir, W_OK) < 0) {
				snprintf(why, why_len, "%s.path: cannot create %s: %s: %s", W, o->path, dir, strerror(errno));
				return -2;
			}
			file_alignment(dir, &t->sector, &t->mem_align);
		}
	}
	t->path = strdup(o->path);
	if (!t->path) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	return 0;
}

int target_materialize(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	uint64_t have = 0;
	struct stat st;
	const char *W = o->what ? o->what : "target";

	if (t->kind != TARGET_FILE)
		return 0;
	if (stat(t->path, &st) == 0) {
		have = (uint64_t)st.st_size;
	} else {
		int fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL, 0644);

		if (fd < 0) {
			snprintf(why, why_len, "%s.path: cannot create %s: %s", W, t->path, strerror(errno));
			return -2;
		}
		close(fd);
		t->created = 1;
		t->ours = 1;
		/* mark it ours; where the filesystem has no user xattrs, it
		 * will be treated as anyone's file next time */
		setxattr(t->path, TARGET_XATTR, "created", 7, 0);
		file_alignment(t->path, &t->sector, &t->mem_align);
	}
	if (have < t->size && truncate(t->path, (off_t)t->size) < 0) {
		snprintf(why, why_len, "%s.size: cannot make %s %llu bytes: %s", W, t->path,
			 (unsigned long long)t->size, strerror(errno));
		if (t->created)
			unlink(t->path);
		return -1;
	}
	if (o->fill != FILL_NONE && fill_holes(t, o->fill, why, why_len) < 0)
		return -1;
	t->exists = 1;
	return 0;
}

int target_prepare(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	int rc = target_inspect(t, o, why, why_len);

	if (rc == 0)
		rc = target_materialize(t, o, why, why_len);
	if (rc < 0)
		target_free(t);
	return rc;
}

int target_open(const struct target *t, int direct, int write, char *why, size_t why_len)
{
	int fd, flags = write ? O_RDWR : O_RDONLY;

	if (direct)
		flags |= O_DIRECT;
	fd = open(t->path, flags);
	if (fd < 0 && direct && errno == EINVAL) {
		snprintf(why, why_len, "direct: %s is on a filesystem without O_DIRECT (tmpfs before Linux 6.6?); set direct=false",
			 t->path);
		return -2;
	}
	if (fd < 0) {
		snprintf(why, why_len, "target %s: open: %s", t->path, strerror(errno));
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
	f = fopen(path, "r");
	if (!f) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/io_poll", maj, min);
		f = fopen(path, "r");
	}
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
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
static int device_in_use(const struct target *t, char *what, size_t what_len)
{
	struct stat st;
	char me[64], mine_parent[64], name[64], parent[64], line[4096];
	FILE *f;
	int used = 0;

	if (stat(t->path, &st) < 0 || sysfs_names(major(st.st_rdev), minor(st.st_rdev), me, sizeof(me), mine_parent,
						     sizeof(mine_parent)) < 0)
		return 0;
	f = fopen("/proc/self/mountinfo", "r");
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
	f = fopen("/proc/swaps", "r");
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

/* A filesystem, RAID or partition-table signature on the device, by libblkid. */
static int device_signature(const struct target *t, char *what, size_t what_len)
{
	blkid_probe pr = blkid_new_probe_from_filename(t->path);
	const char *type = NULL, *pttype = NULL;
	int found = 0;

	if (!pr)
		return 0;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL);
	blkid_probe_enable_partitions(pr, 1);
	if (blkid_do_safeprobe(pr) == 0) {
		blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
		blkid_probe_lookup_value(pr, "PTTYPE", &pttype, NULL);
		if (type) {
			snprintf(what, what_len, "it holds a %s signature", type);
			found = 1;
		} else if (pttype) {
			snprintf(what, what_len, "it holds a %s partition table", pttype);
			found = 1;
		}
	}
	blkid_free_probe(pr);
	return found;
}

int target_may_write(const struct target *t, char *why, size_t why_len)
{
	char what[1200];

	if (t->kind == TARGET_FILE) {
		if (t->exists && !t->ours && !t->allow_write) { /* a missing file will be ours */
			snprintf(why, why_len, "target %s: iomoon did not create this file; writing to it needs "
				 "allow_write=true (--allow-write)", t->path);
			return -2;
		}
		return 0;
	}
	if (!t->allow_write) {
		snprintf(why, why_len, "target %s: writing to a block device needs allow_write=true (--allow-write)", t->path);
		return -2;
	}
	if (t->force)
		return 0;
	if (device_in_use(t, what, sizeof(what)) || device_signature(t, what, sizeof(what))) {
		snprintf(why, why_len, "target %s: refusing to write: %s (force=true, --force, writes anyway and destroys it)",
			 t->path, what);
		return -2;
	}
	return 0;
}
