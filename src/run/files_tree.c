/* files_tree.c - a files phase's tree as a whole (files.h): whether it may
 * be made or used in dir (its marker, a foreign directory, free space and
 * inodes, the open-file limit), its root and subtrees made and opened, its
 * skeleton of directories, and its removal once empty (what is left in it
 * that is not the tree's an error: files_error.c).
 *
 * The root (dir/iomoon-files) holds a marker file whose content is the
 * root's own mark (target_mark_value: its inode and birth time), so a
 * directory of that name made by someone else, or a copy, is not iomoon's:
 * nothing in it is touched.
 */
#include "run/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/rc.h"
#include "core/units.h"
#include "io/target_int.h"


static int beneath(int dirfd, const char *path, uint64_t flags)
{
	struct open_how how = { .flags = flags | O_CLOEXEC, .resolve = FILES_RESOLVE };
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* Does an operation of the phase make files or directories? */
static int makes(const struct files_spec *sp)
{
	return sp->mix || sp->op == FOP_MKDIR || sp->op == FOP_CREATE;
}

/* The marker of the root open at fd, opened: a regular file (a FIFO put
 * there never blocks the open), or -1. */
static int marker_open(int fd)
{
	int m = openat(fd, FILES_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (m >= 0 && (fstat(m, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(m);
		return -1;
	}
	return m;
}

/* Does the marker in the root open at fd name this root? */
static int marker_matches(int fd)
{
	char want[128], have[128];
	int m = marker_open(fd);
	ssize_t n;

	if (m < 0)
		return 0;
	n = read(m, have, sizeof(have) - 1);
	close(m);
	if (n <= 0 || target_mark_value(fd, want, sizeof(want)) < 0)
		return 0;
	have[n] = 0;
	return !strcmp(have, want);
}

/* Is the root open at fd, marked, the running user's (or may another's be
 * used)? RC_OK, or RC_INPUT with why naming the field. */
static int tree_owned(const struct files_spec *sp, int fd, char *why, size_t why_len)
{
	char whose[256];
	int m = marker_open(fd), rc;

	rc = m < 0 ? -1 : files_tree_owned(fd, m, sp->foreign_tree, whose, sizeof(whose));
	if (m >= 0)
		close(m);
	if (rc == 0)
		return RC_OK;
	snprintf(why, why_len, "files.dir: %s/%s: %s", sp->dir, FILES_ROOT, rc < 0 ? "its marker cannot be read" : whose);
	return RC_INPUT;
}

/* Does the phase write, rename or remove files (what files_guard judges
 * by birth time)? */
static int changes(const struct files_spec *sp)
{
	return sp->mix || sp->op == FOP_WRITE || sp->op == FOP_APPEND || sp->op == FOP_RENAME || sp->op == FOP_DELETE;
}

/* Was the root open at fd born before now? A root born later (the clock
 * set back since it was made) makes every file made since look born
 * before the tree, moved in: refused up front, RC_INPUT, saying so. */
static int tree_clock(const struct files_spec *sp, int fd, char *why, size_t why_len)
{
	struct files_ident id;
	int64_t now = clock_realtime_ns();
	char when[32], at[32];
	time_t t;

	if (!changes(sp) || files_tree_ident(fd, &id) < 0 || !id.born ||
	    id.born_sec * 1000000000ll + id.born_nsec <= now)
		return RC_OK;
	t = (time_t)id.born_sec;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime(&t));
	t = (time_t)(now / 1000000000ll);
	strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S", gmtime(&t));
	snprintf(why, why_len, "files.dir: %s/%s was made at %s UTC, after now (%s UTC): the clock was set back since, "
		 "so the files made in it look born before it (moved in) and would be refused; remove it "
		 "(rm -r %s/%s) and make a new one", sp->dir, FILES_ROOT, when, at, sp->dir, FILES_ROOT);
	return RC_INPUT;
}

/* The inodes and bytes the phase may make, at most. */
static void phase_needs(const struct files_spec *sp, uint64_t *inodes, uint64_t *bytes)
{
	uint64_t subtrees = sp->shared ? 1 : sp->workers, dirs = 0, maxsize = 0, files;

	for (unsigned l = 1; l <= sp->depth; l++)
		dirs += files_level_nodes(sp, (int)l);
	for (unsigned i = 0; i < sp->nsize; i++)
		if (sp->size[i] > maxsize)
			maxsize = sp->size[i];
	files = files_leaves(sp) * sp->files * subtrees;
	*inodes = makes(sp) ? subtrees * (dirs + 1) + 2 + (sp->op == FOP_MKDIR ? 0 : files) : 0;
	*bytes = 0;
	if (sp->mix || sp->op == FOP_CREATE || sp->op == FOP_WRITE)
		*bytes = files * maxsize;
	if (sp->op == FOP_APPEND)
		*bytes = files * sp->bs;
	if (sp->mix && sp->weight[FOP_APPEND] > 0 && sp->ios)
		*bytes += sp->ios * sp->bs;
}

static int check_space(const struct files_spec *sp, char *why, size_t why_len)
{
	uint64_t inodes, bytes;
	struct statvfs vfs;
	char need[32], have[32];

	phase_needs(sp, &inodes, &bytes);
	if (statvfs(sp->dir, &vfs) < 0) {
		snprintf(why, why_len, "files.dir: %s: %s", sp->dir, strerror(errno));
		return RC_FAIL;
	}
	if (vfs.f_files && inodes > (uint64_t)vfs.f_favail) {
		snprintf(why, why_len, "files: the phase makes up to %llu files and directories; %s has %llu free inodes "
			 "(fewer files, dirs or workers)", (unsigned long long)inodes, sp->dir, (unsigned long long)vfs.f_favail);
		return RC_INPUT;
	}
	if (bytes > (uint64_t)vfs.f_bavail * vfs.f_frsize) {
		units_format_size(bytes, need, sizeof(need));
		units_format_size((uint64_t)vfs.f_bavail * vfs.f_frsize, have, sizeof(have));
		snprintf(why, why_len, "files.size: the phase writes up to %s; %s has %s free (smaller or fewer files)",
			 need, sp->dir, have);
		return RC_INPUT;
	}
	return RC_OK;
}

static int check_nofile(const struct files_spec *sp, char *why, size_t why_len)
{
	struct rlimit rl;
	uint64_t need = (uint64_t)sp->workers * (2 * sp->qd + 8) + 32;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && need > rl.rlim_cur) {
		snprintf(why, why_len, "qd: %u workers x qd %u keep up to %llu files open; the limit (ulimit -n) is %llu "
			 "(fewer workers or a lower qd, or raise the limit)", sp->workers, sp->qd, (unsigned long long)need,
			 (unsigned long long)rl.rlim_cur);
		return RC_INPUT;
	}
	return RC_OK;
}

int files_check(const struct files_spec *sp, char *why, size_t why_len)
{
	struct files_left left = { .n = 0 };
	struct stat st;
	int dfd, rfd, rc = RC_OK;

	if (sp->nfs)
		return files_nfs_check(sp, why, why_len);
	if (stat(sp->dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "files.dir: %s is not a directory (%s)", sp->dir,
			 errno && !S_ISDIR(st.st_mode) ? strerror(errno) : "give an existing directory");
		return RC_INPUT;
	}
	dfd = open(sp->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(why, why_len, "files.dir: %s: %s", sp->dir, strerror(errno));
		return RC_INPUT;
	}
	rfd = beneath(dfd, FILES_ROOT, O_RDONLY | O_DIRECTORY);
	if (rfd >= 0) {
		if (!marker_matches(rfd)) {
			snprintf(why, why_len, "files.dir: %s/%s was not made by iomoon (no matching %s in it): "
				 "nothing in it is touched; remove it or give another dir", sp->dir, FILES_ROOT, FILES_MARKER);
			rc = RC_INPUT;
		} else {
			rc = tree_owned(sp, rfd, why, why_len);
			if (rc == RC_OK)
				rc = tree_clock(sp, rfd, why, why_len);
		}
		close(rfd);
	} else if (rfd != -ENOENT) {
		snprintf(why, why_len, "files.dir: %s/%s: %s (a symbolic link is never followed)", sp->dir, FILES_ROOT,
			 strerror(-rfd));
		rc = RC_INPUT;
	} else if (makes(sp) && !sp->allow_write && (files_left_fd(sp, dfd, FILES_LEVEL_ROOT, &left) < 0 || left.n)) {
		snprintf(why, why_len, "files.dir: %s is not empty and holds no tree of iomoon; give files.allow_write = "
			 "true to make one beside what is there (only the tree's own files are ever touched)", sp->dir);
		rc = RC_INPUT;
	}
	close(dfd);
	if (rc == RC_OK && makes(sp))
		rc = check_space(sp, why, why_len);
	if (rc == RC_OK)
		rc = check_nofile(sp, why, why_len);
	return rc;
}

/* Open (or make, marked) the root: its fd in *root. */
int files_tree_open(const struct files_spec *sp, int create, int *root, char *why, size_t why_len)
{
	char mark[128];
	int dfd = open(sp->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd, m;

	if (dfd < 0) {
		snprintf(why, why_len, "files.dir: %s: %s", sp->dir, strerror(errno));
		return RC_FAIL;
	}
	fd = beneath(dfd, FILES_ROOT, O_RDONLY | O_DIRECTORY);
	if (fd == -ENOENT && create && mkdirat(dfd, FILES_ROOT, 0755) == 0) {
		fd = beneath(dfd, FILES_ROOT, O_RDONLY | O_DIRECTORY);
		m = fd < 0 ? -1 : openat(fd, FILES_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (m < 0 || target_mark_value(fd, mark, sizeof(mark)) < 0 || write(m, mark, strlen(mark)) < 0) {
			snprintf(why, why_len, "files.dir: %s/%s: cannot mark the tree: %s", sp->dir, FILES_ROOT,
				 strerror(errno));
			if (m >= 0)
				close(m);
			close(dfd);
			return RC_FAIL;
		}
		close(m);
	}
	close(dfd);
	if (fd == -ENOENT && !create) { /* a phase before it (a suite's) was to make it: known only now */
		snprintf(why, why_len, "files.dir: %s holds no tree of iomoon (%s) for op '%s'; make one first "
			 "(op = \"create\" or \"mkdir\", or a mix)", sp->dir, FILES_ROOT, files_op_names[sp->op]);
		return RC_INPUT;
	}
	if (fd < 0 || !marker_matches(fd)) {
		snprintf(why, why_len, "files.dir: %s/%s: %s", sp->dir, FILES_ROOT,
			 fd < 0 ? strerror(-fd) : "not made by iomoon (its marker does not match)");
		if (fd >= 0)
			close(fd);
		return RC_INPUT;
	}
	if (tree_owned(sp, fd, why, why_len) != RC_OK) {
		close(fd);
		return RC_INPUT;
	}
	*root = fd;
	return RC_OK;
}

/* Make (when create) and open the subtree called name in the root. */
int files_subtree_open(int root, const char *name, int create)
{
	if (create && mkdirat(root, name, 0755) < 0 && errno != EEXIST)
		return -errno;
	return beneath(root, name, O_RDONLY | O_DIRECTORY);
}

/* Every directory of the subtree open at fd, made where missing (levels in
 * order, each beneath its parent). 0 or -errno. */
int files_skeleton(const struct files_spec *sp, int fd, unsigned first, unsigned step)
{
	char name[32], path[PATH_MAX];

	for (int l = 1; l <= (int)sp->depth; l++) {
		for (uint64_t i = first; i < files_level_nodes(sp, l); i += step) {
			uint64_t parent = files_node_parent(sp, l, i, name, sizeof(name)), pi = parent & ((1ull << 48) - 1);
			int pfd;

			path[0] = 0;
			for (int k = l - 1; k > 0; k--, pi /= sp->width) {
				char tmp[PATH_MAX];

				if ((size_t)snprintf(tmp, sizeof(tmp), "d%llu%s%s", (unsigned long long)(pi % sp->width),
						     path[0] ? "/" : "", path) >= sizeof(tmp))
					return -ENAMETOOLONG;
				memcpy(path, tmp, strlen(tmp) + 1);
			}
			pfd = l == 1 ? dup(fd) : beneath(fd, path, O_RDONLY | O_DIRECTORY);
			if (pfd < 0)
				return pfd;
			if (mkdirat(pfd, name, 0755) < 0 && errno != EEXIST) {
				int e = errno;

				close(pfd);
				return -e;
			}
			close(pfd);
		}
	}
	return 0;
}

/* After rmdir: subtree name removed, or what is left in it that is not
 * the tree's counted in res (a shared one's on rank 0 alone). */
static void prune_subtree(const struct files_spec *sp, int root, const char *name, struct files_result *res)
{
	char where[PATH_MAX];
	struct files_left l = { .n = 0 };
	int e, fd, listed = 0;

	if (unlinkat(root, name, AT_REMOVEDIR) == 0 || errno == ENOENT || (sp->shared && sp->rank > 0))
		return;
	e = errno;
	if (e == ENOTEMPTY || e == EEXIST) {
		fd = beneath(root, name, O_RDONLY | O_DIRECTORY);
		listed = fd >= 0 && files_left_fd(sp, fd, 0, &l) == 0;
		if (fd >= 0)
			close(fd);
	}
	snprintf(where, sizeof(where), "%s/%s", FILES_ROOT, name);
	files_rmdir_left(sp, res, 0, e, where, listed ? &l : NULL);
}

/* After rmdir: the subtrees, then the root when it holds only its marker;
 * a name in it that is not the tree's counted in res (on rank 0 alone).
 * Other subtrees (other ranks' still working, another worker count's)
 * are left without an error. */
void files_tree_prune(const struct files_spec *sp, int root, const char *const *subtrees, unsigned n,
		      struct files_result *res)
{
	char dir[PATH_MAX + 16], detail[128];
	struct files_left l = { .n = 0 };
	int dfd;

	for (unsigned i = 0; i < n; i++)
		prune_subtree(sp, root, subtrees[i], res);
	if (files_left_fd(sp, root, FILES_LEVEL_ROOT, &l) < 0 || !marker_matches(root))
		return;
	if (files_left_error(sp, FILES_LEVEL_ROOT, &l, detail, sizeof(detail))) {
		if (sp->rank <= 0)
			files_error_count(res, FOP_RMDIR, ENOTEMPTY, FILES_ROOT, detail);
		return;
	}
	if (l.n != 1 || strcmp(l.name, FILES_MARKER))
		return;
	unlinkat(root, FILES_MARKER, 0);
	snprintf(dir, sizeof(dir), "%s", sp->dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		unlinkat(dfd, FILES_ROOT, AT_REMOVEDIR);
		close(dfd);
	}
}
