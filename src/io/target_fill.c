/* target_fill.c - a target made real: the missing file created (O_EXCL,
 * marked), an existing one extended, and every hole filled with data, so
 * that reading it measures the storage and not the file system's zero page.
 * Nothing here runs before the whole phase has been checked. */
#include "io/target.h"
#include "io/engine.h"
#include "io/netblk.h"

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
#include "core/rc.h"
#include "core/shown.h"
#include "core/stop.h"
#include "io/fill.h"
#include "io/target_int.h"

#define FILL_CHUNK (1u << 20)

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
	int64_t hole = target_first_hole(rfd, 0, t->size);
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
	fd = target_open_checked(t, O_WRONLY | O_DIRECT, &st);
	if (fd == RC_FAIL && errno == EINVAL)
		fd = target_open_checked(t, O_WRONLY, &st);
	if (fd < 0) {
		target_open_failed(t, fd, "target fill", why, why_len);
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
		hole = rc == RC_OK ? target_first_hole(rfd, end, t->size) : -1;
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
	if (rc == RC_OK)
		target_note_seen(t); /* the fill's data is iomoon's too */
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
	target_record_object(t, &st);
	t->created = 1;
	t->ours = 1;
	/* where the filesystem keeps no user xattrs, it is anyone's file next time */
	if (target_mark_value(fd, v, sizeof(v)) == RC_OK)
		(void)fsetxattr(fd, TARGET_XATTR, v, strlen(v), 0);
	target_file_alignment(t->path, &t->sector, &t->mem_align);
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
	wfd = t->created ? fd : target_open_checked(t, O_WRONLY, &st);
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

/* A file in an export (netblk.h): created, extended and filled by its
 * engine, with the fill a verifying read knows (its key from the
 * target's identity, as genmap.c's). */
static int materialize_net(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char err[WHY_LEN];
	int rc;

	if (t->exists && t->size <= t->net_size)
		return RC_OK;
	rc = t->net->net->prepare(t->url, !t->exists, t->size, o->fill == FILL_RANDOM, fill_key(t->id_dev, t->id_ino, 0),
				  err, sizeof(err));
	if (rc != RC_OK) {
		snprintf(why, why_len, "%s.path: %s", W, err);
		return rc;
	}
	if (!t->exists)
		t->created = t->ours = 1;
	t->exists = 1;
	t->net_size = t->size;
	return RC_OK;
}

int target_materialize(struct target *t, const struct target_opts *o, char *why, size_t why_len)
{
	char field[64];
	struct stat st;
	int fd, rc;

	if (t->kind == TARGET_FILE && t->net)
		return materialize_net(t, o, why, why_len);
	if (t->kind != TARGET_FILE)
		return RC_OK;
	snprintf(field, sizeof(field), "%s.path", o->what ? o->what : "target");
	if (!t->exists) {
		fd = create_file(t, o, why, why_len);
		if (fd < 0)
			return RC_INPUT;
	} else {
		fd = target_open_checked(t, O_RDONLY, &st);
		if (fd < 0) {
			target_open_failed(t, fd, field, why, why_len);
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
	if (!t->created || t->kind != TARGET_FILE || lstat(t->path, &st) < 0 || !target_same_object(t, &st))
		return 0;
	return unlink(t->path) == 0;
}
