/* target.c - open, size, create and fill files and block devices.
 *
 * Order matters for the "nothing changed on bad input" rule: everything that
 * can be checked (path kind, size, sector alignment of the size, write
 * permission) is checked before a file is created or a byte is written.
 * A fill writes only the holes of a file: reading a hole measures the
 * filesystem's zero page, not the storage, so data is put there first.
 */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "rng.h"
#include "units.h"

#define FILL_CHUNK (1u << 20)

void target_free(struct target *t)
{
	free(t->path);
	t->path = NULL;
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
			t->filled_bytes += (uint64_t)w;
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
		t->size = o->size ? o->size : have;
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

	if (write && t->kind == TARGET_BLOCK && !t->allow_write) {
		snprintf(why, why_len, "target %s: writing to a block device needs allow_write=true (--allow-write)", t->path);
		errno = EPERM;
		return -2;
	}
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
