/* state_dirs.c - where verification states live (state_dirs.h): the
 * state directory, a phase's own (verify_state), the list of the other
 * directories that hold a state of a target, and whether a directory can
 * hold one.
 */
#include "verify/state_dirs.h"
#include "core/outfile.h"
#include "core/rc.h"
#include "core/shown.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The state directory (genmap.h); never NULL. */
const char *sdir_default(char *buf, size_t len)
{
	const char *d = getenv("IOMOON_STATE_DIR"), *x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");

	if (d && *d)
		return d;
	if (geteuid() == 0)
		return "/var/lib/iomoon";
	if (x && *x && (size_t)snprintf(buf, len, "%s/iomoon", x) < len)
		return buf;
	if (h && *h && (size_t)snprintf(buf, len, "%s/.local/state/iomoon", h) < len)
		return buf;
	return "/var/lib/iomoon";
}

/* The directory a state lives in: dir when given (phase.verify_state),
 * else the default (state_dir). */
const char *sdir_of(const char *dir, char *buf, size_t len)
{
	return dir && *dir ? dir : sdir_default(buf, len);
}

const char *genmap_dir(const char *dir, char *buf, size_t len)
{
	return sdir_of(dir, buf, len);
}

/* Do a and b (NULL: the default) name one directory? By name, else by
 * identity when both exist. */
int sdir_same(const char *a, const char *b)
{
	char x[4096], y[4096];
	struct stat sa, sb;

	a = sdir_of(a, x, sizeof(x));
	b = sdir_of(b, y, sizeof(y));
	if (!strcmp(a, b))
		return 1;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Where the state of the file or device id names lives, in dir (NULL:
 * the default): named for its identity, so every path of it (links, ./,
 * absolute) finds the same. */
char *sdir_state_path(const struct gen_map *m, const char *dir)
{
	char buf[4096], *p = NULL;
	int n;

	dir = sdir_of(dir, buf, sizeof(buf));
	if (m->ino)
		n = asprintf(&p, "%s/file-%u-%u-%llu.iomoon-verify", dir, major(m->dev), minor(m->dev),
			     (unsigned long long)m->ino);
	else
		n = asprintf(&p, "%s/blockdev-%u-%u.iomoon-verify", dir, major(m->dev), minor(m->dev));
	return n < 0 ? NULL : p;
}

/* mkdir -p of the directory holding path (errors show at the open). */
void sdir_make_parents(const char *path)
{
	char *d = strdup(path), *s;

	if (!d)
		return;
	s = dirname(d);
	for (char *c = s + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = 0;
		mkdir(s, 0755);
		*c = '/';
	}
	mkdir(s, 0755);
	free(d);
}

/* The file beside state `state` with ext for .iomoon-verify. */
static char *side_path(const char *state, const char *ext)
{
	size_t n = strlen(state), k = strlen(".iomoon-verify");
	char *p = NULL;

	if (n < k || asprintf(&p, "%.*s%s", (int)(n - k), state, ext) < 0)
		return NULL;
	return p;
}

void sdir_side_write(const char *state, const char *ext, const char *text)
{
	char *path = side_path(state, ext), no[WHY_LEN];
	struct outfile o;

	if (path && outfile_begin(&o, path, no, sizeof(no)) == RC_OK) {
		o.mode = 0644;
		if (outfile_write(&o, text, strlen(text), no, sizeof(no)) == RC_OK &&
		    outfile_write(&o, "\n", 1, no, sizeof(no)) == RC_OK)
			outfile_commit(&o, no, sizeof(no));
		else
			outfile_abort(&o);
	}
	free(path);
}

int sdir_side_read(const char *state, const char *ext, char *buf, size_t len)
{
	char *path = side_path(state, ext);
	FILE *f = path ? fopen(path, "re") : NULL;
	int ok = f && fgets(buf, (int)len, f);

	free(path);
	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok && buf[0];
}

/* ---- the other directories that hold a state of a target ---- */

static char *dirs_path(const struct gen_map *id)
{
	char *st = sdir_state_path(id, NULL), *p = NULL;
	size_t n;

	if (!st)
		return NULL;
	n = strlen(st) - strlen(".iomoon-verify");
	if (asprintf(&p, "%.*s.iomoon-dirs", (int)n, st) < 0)
		p = NULL;
	free(st);
	return p;
}

/* The list of id's other directories into dirs (malloc'd strings);
 * their number. */
unsigned sdir_list_read(const struct gen_map *id, char *dirs[SDIR_LIST_MAX])
{
	char *path = dirs_path(id), line[4096];
	FILE *f = path ? fopen(path, "re") : NULL;
	unsigned n = 0;

	free(path);
	if (!f)
		return 0;
	while (n < SDIR_LIST_MAX && fgets(line, sizeof(line), f)) {
		unsigned long long of;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "id %llx", &of) == 1 && of && id->btime_ns && of != id->btime_ns) {
			sdir_list_free(dirs, n); /* a list of another device or file at this name: not this one's */
			n = 0;
			break;
		}
		if (line[0] == '/' && (dirs[n] = strdup(line)))
			n++;
	}
	fclose(f);
	return n;
}

void sdir_list_free(char *dirs[], unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(dirs[i]);
}

/* Add dir (a state of id is made there) to id's list, unless it is the
 * default or listed. */
void sdir_list_add(const struct gen_map *id, const char *dir)
{
	char *dirs[SDIR_LIST_MAX], real[4096], *path, no[WHY_LEN];
	unsigned n;
	struct outfile o;

	if (!dir || sdir_same(dir, NULL) || !realpath(dir, real))
		return;
	n = sdir_list_read(id, dirs);
	for (unsigned i = 0; i < n; i++)
		if (sdir_same(dirs[i], real)) {
			sdir_list_free(dirs, n);
			return;
		}
	path = dirs_path(id);
	if (path) {
		sdir_make_parents(path);
		if (outfile_begin(&o, path, no, sizeof(no)) == RC_OK) {
			int rc = RC_OK;

			char idl[32];

			o.mode = 0644;
			snprintf(idl, sizeof(idl), "id %016llx\n", (unsigned long long)id->btime_ns); /* whose list */
			if (id->btime_ns)
				rc = outfile_write(&o, idl, strlen(idl), no, sizeof(no));
			for (unsigned i = n >= SDIR_LIST_MAX ? 1 : 0; i < n && rc == RC_OK; i++) /* the oldest goes */
				if (!access(dirs[i], F_OK)) /* a directory gone is no more listed */
					rc = outfile_write(&o, dirs[i], strlen(dirs[i]), no, sizeof(no)) ||
					     outfile_write(&o, "\n", 1, no, sizeof(no));
			if (rc == RC_OK && outfile_write(&o, real, strlen(real), no, sizeof(no)) == RC_OK &&
			    outfile_write(&o, "\n", 1, no, sizeof(no)) == RC_OK)
				outfile_commit(&o, no, sizeof(no));
			else
				outfile_abort(&o);
		}
	}
	free(path);
	sdir_list_free(dirs, n);
}

/* Does another process hold the lock of the state at path (a run
 * verifying a region of its own with that state)? */
int sdir_state_in_use(const char *path)
{
	char *lk = NULL;
	size_t n = strlen(path) - strlen(".iomoon-verify");
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd, held = 0;

	if (asprintf(&lk, "%.*s.iomoon-lock", (int)n, path) < 0)
		return 0;
	fd = open(lk, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	free(lk);
	if (fd < 0)
		return 0;
	held = fcntl(fd, F_OFD_GETLK, &l) == 0 && l.l_type != F_UNLCK;
	close(fd);
	return held;
}

/* Can a directory be made in d (an existing directory)? A probe made and
 * removed at once: access() says yes on /proc as root. */
static int can_make_in(const char *d)
{
	char probe[4096];

	if ((size_t)snprintf(probe, sizeof(probe), "%s/.iomoon-probe-XXXXXX", d) >= sizeof(probe) || !mkdtemp(probe))
		return 0;
	rmdir(probe);
	return 1;
}

int genmap_dir_check(const char *dir, int write, char *why, size_t why_len)
{
	char buf[4096], d[4096], p[256], q[256], *slash;
	const char *what = "is not a writable directory";
	struct stat st;
	int top = 1;

	snprintf(d, sizeof(d), "%s", sdir_of(dir, buf, sizeof(buf)));
	for (;;) {
		if (!stat(d, &st)) {
			if (!S_ISDIR(st.st_mode))
				what = "is not a directory";
			else if (!write && top)
				return RC_OK; /* a phase that reads needs the directory, not to write there */
			else if (!write)
				what = "does not exist: a phase that only reads finds the state where the writing phase "
				       "kept it";
			else if (!access(d, W_OK | X_OK) && (top || can_make_in(d)))
				return RC_OK;
			break;
		}
		if (errno != ENOENT || !strcmp(d, "/") || !strcmp(d, "."))
			break;
		if (!lstat(d, &st)) {
			what = "is a symbolic link to nothing";
			break;
		}
		slash = strrchr(d, '/');
		if (!slash)
			strcpy(d, ".");
		else if (slash == d)
			d[1] = 0;
		else
			*slash = 0;
		top = 0;
	}
	if (!write && !top)
		snprintf(d, sizeof(d), "%s", sdir_of(dir, buf, sizeof(buf)));
	if (dir && *dir)
		snprintf(why, why_len, "phase.verify_state: %s cannot hold the verification state (%s %s; give %s)",
			 shown(dir, p, sizeof(p)), shown(d, q, sizeof(q)), what,
			 write ? "a directory iomoon can make or write" : "the directory the writing phase had");
	else
		snprintf(why, why_len, "IOMOON_STATE_DIR: %s cannot hold the verification state (%s %s; set "
			 "IOMOON_STATE_DIR to one, or give phase.verify_state)",
			 shown(sdir_default(buf, sizeof(buf)), p, sizeof(p)), shown(d, q, sizeof(q)), what);
	return RC_INPUT;
}
