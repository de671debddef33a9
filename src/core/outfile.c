/* outfile.c - replace a file atomically and durably; tell what is at a path. */
#include "core/outfile.h"
#include "core/rc.h"
#include "core/shown.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* RC_FAIL, with why saying path: what: errno's words (err 0: what only). */
static int fail(char *why, size_t why_len, const char *path, const char *what, int err)
{
	char p[256];

	snprintf(why, why_len, "%s: %s%s%s", shown(path, p, sizeof(p)), what, *what && err ? ": " : "",
		 err ? strerror(err) : "");
	errno = err;
	return RC_FAIL;
}

static const char *kind_of(mode_t m)
{
	if (S_ISREG(m))
		return "file";
	if (S_ISDIR(m))
		return "directory";
	if (S_ISBLK(m))
		return "block";
	if (S_ISCHR(m))
		return "char";
	if (S_ISFIFO(m))
		return "fifo";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISLNK(m))
		return "link";
	return "other";
}

int outfile_stat(const char *path, int follow, struct outfile_stat *st)
{
	struct stat s;

	if ((follow ? stat(path, &s) : lstat(path, &s)) < 0)
		return RC_FAIL;
	st->kind = kind_of(s.st_mode);
	st->dev = s.st_dev;
	st->ino = s.st_ino;
	st->size = s.st_size;
	st->writable = access(path, W_OK) == 0;
	return RC_OK;
}

/* What is at path may be replaced: nothing, or a regular file (its
 * permission bits are kept, without setuid, setgid and sticky). */
static int check_replaceable(struct outfile *o, char *why, size_t why_len)
{
	struct stat s;

	if (lstat(o->path, &s) < 0) {
		if (errno == ENOENT)
			return RC_OK;
		return fail(why, why_len, o->path, "", errno);
	}
	if (S_ISLNK(s.st_mode))
		return fail(why, why_len, o->path, "is a symbolic link, not replaced (give the real path)", 0);
	if (!S_ISREG(s.st_mode)) {
		static const char *const names[][2] = {
			{ "directory", "directory" }, { "block", "block device" }, { "char", "character device" },
			{ "fifo", "FIFO" }, { "socket", "socket" }, { "other", "special file" },
		};
		const char *kind = kind_of(s.st_mode);
		char what[96];

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(kind, names[i][0]))
				kind = names[i][1];
		snprintf(what, sizeof(what), "is a %s, not a regular file: not replaced", kind);
		return fail(why, why_len, o->path, what, 0);
	}
	/* the permissions only: a report is no program, and must not become a
	 * setuid one (owned by whoever replaced it) */
	o->mode = s.st_mode & 0777;
	o->keep_mode = 1;
	return RC_OK;
}

static void outfile_free(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	free(o->dir);
	o->path = o->tmp = o->dir = NULL;
	o->fd = -1;
}

int outfile_begin(struct outfile *o, const char *path, char *why, size_t why_len)
{
	static atomic_uint seq;
	const char *slash = strrchr(path, '/');
	size_t n = strlen(path) + 48;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!*path || (slash && !slash[1]))
		return fail(why, why_len, path, "is not a file name", 0);
	o->path = strdup(path);
	o->tmp = malloc(n);
	o->dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!o->path || !o->tmp || !o->dir) {
		outfile_free(o);
		return fail(why, why_len, path, "", ENOMEM);
	}
	if (check_replaceable(o, why, why_len) < 0) {
		outfile_free(o);
		return RC_FAIL;
	}
	for (int i = 0; i < 100 && o->fd < 0; i++) {
		snprintf(o->tmp, n, "%s.tmp-%ld-%u", path, (long)getpid(), atomic_fetch_add(&seq, 1));
		o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (o->fd < 0 && errno != EEXIST)
			break;
	}
	if (o->fd < 0) {
		int err = errno;

		outfile_free(o);
		return fail(why, why_len, path, "cannot create its temporary file", err);
	}
	return RC_OK;
}

int outfile_write(struct outfile *o, const void *buf, size_t len, char *why, size_t why_len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(o->fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return fail(why, why_len, o->path, "write failed, the previous file is kept", errno);
		if (w == 0)
			return fail(why, why_len, o->path, "write failed, the previous file is kept", ENOSPC);
		p += w;
		len -= (size_t)w;
	}
	return RC_OK;
}

void outfile_abort(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	outfile_free(o);
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	if (rc < 0 && errno == EINVAL) /* a directory that cannot be synced */
		rc = 0;
	close(fd);
	return rc;
}

int outfile_commit(struct outfile *o, char *why, size_t why_len)
{
	const char *what = NULL;
	int fd = o->fd, rc = RC_OK;

	if (o->keep_mode && fchmod(fd, o->mode) < 0)
		what = "cannot set the mode of its temporary file";
	else if (fsync(fd) < 0)
		what = "fsync failed, the previous file is kept";
	o->fd = -1;
	if (close(fd) < 0 && !what)
		what = "close failed, the previous file is kept";
	if (!what && rename(o->tmp, o->path) < 0)
		what = "rename failed, the previous file is kept";
	if (what) {
		int err = errno;

		unlink(o->tmp);
		rc = fail(why, why_len, o->path, what, err);
	} else if (fsync_dir(o->dir) < 0) {
		rc = fail(why, why_len, o->path, "written, but syncing its directory failed", errno);
	}
	outfile_free(o);
	return rc;
}

int outfile_write_atomic(const char *path, const void *buf, size_t len, char *why, size_t why_len)
{
	struct outfile o;

	if (outfile_begin(&o, path, why, why_len) < 0)
		return RC_FAIL;
	if (outfile_write(&o, buf, len, why, why_len) < 0) {
		int err = errno;

		outfile_abort(&o);
		errno = err;
		return RC_FAIL;
	}
	return outfile_commit(&o, why, why_len);
}
