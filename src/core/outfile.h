/* outfile.h - replacing a file atomically (reports, CSV), and what is at a
 * path.
 *
 * A new version is written to a temporary file beside PATH (created with
 * O_EXCL, so nothing already there is followed or reused), every write is
 * checked and retried on short writes, the file is fsynced and closed
 * (checked), renamed over PATH, and PATH's directory is fsynced. On any
 * failure the temporary file is removed and PATH keeps its previous
 * contents. Only a regular file (or nothing) at PATH is ever replaced.
 */
#ifndef IOMOON_OUTFILE_H
#define IOMOON_OUTFILE_H

#include <stddef.h>
#include <sys/types.h>

struct outfile {
	int fd;
	mode_t mode;     /* the replaced file's permission bits (0777: never setuid,
			  * setgid or sticky, which a report has no use for) */
	int keep_mode;   /* replacing a file: set mode; else a new file (0666 & ~umask) */
	char *path, *tmp, *dir;
};

/* Create the temporary file for a new version of path. */
int outfile_begin(struct outfile *o, const char *path, char *why, size_t why_len);
/* Write all of buf (loops on short writes, retries EINTR). */
int outfile_write(struct outfile *o, const void *buf, size_t len, char *why, size_t why_len);
/* fsync, close, rename over path, fsync the directory; o is freed either way. */
int outfile_commit(struct outfile *o, char *why, size_t why_len);
/* Remove the temporary file; path is left as it was. */
void outfile_abort(struct outfile *o);
/* begin + write + commit. */
int outfile_write_atomic(const char *path, const void *buf, size_t len, char *why, size_t why_len);

/* What is at a path, as lstat (follow=0) or stat (follow=1) sees it. */
struct outfile_stat {
	const char *kind; /* file, directory, block, char, fifo, socket, link */
	dev_t dev;
	ino_t ino;
	off_t size;
	int writable;     /* access(W_OK) */
};
int outfile_stat(const char *path, int follow, struct outfile_stat *st);

#endif
