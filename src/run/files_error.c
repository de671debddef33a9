/* files_error.c - a files phase's errors (files.h): each counted by
 * operation and errno, the first one's message with its path, and what a
 * failed rmdir leaves behind.
 *
 * rmdir of a directory that is not empty (ENOTEMPTY) is an error of its
 * own when the directory holds a name the tree does not have there
 * (someone else's file, left alone) or, a leaf, the tree's own files (not
 * deleted). A directory above the leaves that holds only the tree's
 * directories is what the failures beneath it left, each counted where it
 * is, or a stop (ios, duration, SIGINT) did: no second error. So one
 * foreign file is one error wherever it is, the subtrees and the root
 * included (files_tree_prune, files_nfs_prune). A worker holds its level's
 * ENOTEMPTY failures and judges them once the level is done
 * (files_held_judge), listing each through its engine: the ring's loop and
 * libnfs's cannot wait for a listing in the middle of their operations.
 */
#include "run/files.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t first_lock = PTHREAD_MUTEX_INITIALIZER;
static struct files_result *first_res;

/* A directory whose rmdir found it not empty: name in parent. */
struct files_held {
	uint64_t parent;
	int err;
	char name[40];
};

void files_first_error_to(struct files_result *res)
{
	pthread_mutex_lock(&first_lock);
	first_res = res;
	pthread_mutex_unlock(&first_lock);
}

/* Is the first error still to be set? */
static int first_wanted(void)
{
	int want;

	pthread_mutex_lock(&first_lock);
	want = first_res && !first_res->first_errno;
	pthread_mutex_unlock(&first_lock);
	return want;
}

void files_error_count(struct files_result *r, enum files_op op, int err, const char *where, const char *detail)
{
	r->op[op].errors++;
	r->op[op].by_errno[err > 0 && err < FILES_ERRNO_N ? err : FILES_ERRNO_N - 1]++;
	if (!where)
		return;
	pthread_mutex_lock(&first_lock);
	if (first_res && !first_res->first_errno) {
		first_res->first_errno = err;
		snprintf(first_res->first_error, sizeof(first_res->first_error), "%s %.300s: %.100s%s%.150s%s",
			 files_op_names[op], where, strerror(err), detail ? " (" : "", detail ? detail : "",
			 detail ? ")" : "");
	}
	pthread_mutex_unlock(&first_lock);
}

/* "iomoon-files/w0/d3/NAME": name in directory parent of w's subtree. */
static void where_of(const struct files_worker *w, uint64_t parent, const char *name, char *out, size_t len)
{
	char path[PATH_MAX], sub[64];

	files_key_path(w->sp, parent, path, sizeof(path));
	files_subtree_name(w->sp, w->id, sub, sizeof(sub));
	snprintf(out, len, "%s/%s%s%.200s/%.40s", FILES_ROOT, sub, parent ? "/" : "", parent ? path : "", name);
}

void files_error(struct files_worker *w, enum files_op op, uint64_t parent, const char *name, int err)
{
	files_error_why(w, op, parent, name, err, NULL);
}

void files_error_why(struct files_worker *w, enum files_op op, uint64_t parent, const char *name, int err,
		     const char *detail)
{
	char where[PATH_MAX];

	if (err == ENOENT && (op == FOP_DELETE || op == FOP_RMDIR)) {
		w->res->op[op].missing++; /* rm -f: what is gone is not an error */
		return;
	}
	/* not empty (EEXIST is POSIX's other word for it): whose is what is left? */
	if (op == FOP_RMDIR && !w->sp->mix && (err == ENOTEMPTY || err == EEXIST) && files_hold(w, parent, name, err) == 0)
		return;
	if (!first_wanted()) { /* an error storm (ENOSPC) formats no path */
		files_error_count(w->res, op, err, NULL, NULL);
		return;
	}
	where_of(w, parent, name, where, sizeof(where));
	files_error_count(w->res, op, err, where, detail);
}

/* --- whose a name left in a directory is --- */

/* Is name prefix, an index below n (no leading zero), then suffix? */
static int indexed(const char *name, char prefix, uint64_t n, const char *suffix)
{
	char *end;
	unsigned long long i;

	if (name[0] != prefix || !isdigit((unsigned char)name[1]) || (name[1] == '0' && isdigit((unsigned char)name[2])))
		return 0;
	i = strtoull(name + 1, &end, 10);
	return i < n && !strcmp(end, suffix);
}

/* A subtree's name: "shared", "w3", "r1w3" (another worker count's, or
 * another rank's, still iomoon's). */
static int subtree_named(const char *name)
{
	const char *w = name;

	if (!strcmp(name, "shared"))
		return 1;
	if (name[0] == 'r') {
		w = strchr(name, 'w');
		if (!w || w == name + 1 || strspn(name + 1, "0123456789") != (size_t)(w - name - 1))
			return 0;
	}
	return w[0] == 'w' && w[1] && strspn(w + 1, "0123456789") == strlen(w + 1);
}

int files_name_ours(const struct files_spec *sp, int level, const char *name)
{
	if (level == FILES_LEVEL_ROOT)
		return !strcmp(name, FILES_MARKER) || subtree_named(name);
	if (level < (int)sp->depth)
		return indexed(name, 'd', sp->width, "");
	return indexed(name, 'f', sp->files, "") || indexed(name, 'f', sp->files, ".r"); /* .r: a rename's half */
}

void files_left_add(const struct files_spec *sp, int level, const char *name, struct files_left *l)
{
	int ours;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return;
	ours = files_name_ours(sp, level, name);
	if (!l->n++ || (!ours && !l->foreign)) {
		snprintf(l->name, sizeof(l->name), "%.60s", name);
		l->foreign = !ours;
	}
}

int files_left_fd(const struct files_spec *sp, int fd, int level, struct files_left *l)
{
	int d = dup(fd);
	DIR *dp = d < 0 ? NULL : fdopendir(d);
	struct dirent *e;

	if (!dp) {
		int err = errno;

		if (d >= 0)
			close(d);
		return -err;
	}
	while ((e = readdir(dp)))
		files_left_add(sp, level, e->d_name, l);
	closedir(dp);
	return 0;
}

int files_left_error(const struct files_spec *sp, int level, const struct files_left *l, char *out, size_t len)
{
	if (l->foreign) {
		snprintf(out, len, "holds %s, which is not the tree's: left alone", l->name);
		return 1;
	}
	if (level == (int)sp->depth && l->n) {
		snprintf(out, len, "holds the tree's file %s: delete the files first", l->name);
		return 1;
	}
	return 0;
}

/* --- an rmdir level's directories not empty, judged after it --- */

int files_hold(struct files_worker *w, uint64_t parent, const char *name, int err)
{
	if (w->nheld == w->cap_held) { /* on the error path only: the loop allocates nothing else */
		unsigned cap = w->cap_held ? 2 * w->cap_held : 16;
		struct files_held *h = realloc(w->held, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		w->held = h;
		w->cap_held = cap;
	}
	w->held[w->nheld].parent = parent;
	w->held[w->nheld].err = err;
	snprintf(w->held[w->nheld].name, sizeof(w->held[0].name), "%s", name);
	w->nheld++;
	return 0;
}

/* The names of directory rel of w's subtree into l: 0 or -errno. */
static int left_of(struct files_worker *w, const char *rel, struct files_left *l)
{
	int fd, r;

	if (w->nfs)
		return files_nfs_left(w, rel, w->level, l);
	fd = files_openat2(w->subtree_fd, rel, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	r = files_left_fd(w->sp, fd, w->level, l);
	close(fd);
	return r;
}

void files_rmdir_left(const struct files_spec *sp, struct files_result *res, int level, int err, const char *where,
		      const struct files_left *l)
{
	char detail[128];
	const int listed = l && l->n; /* else gone or emptied since: the plain error */

	if (listed && !files_left_error(sp, level, l, detail, sizeof(detail)))
		return; /* its children's failures, or a stop, left it: counted there or none */
	files_error_count(res, FOP_RMDIR, err, where, listed ? detail : NULL);
}

void files_held_judge(struct files_worker *w)
{
	char rel[PATH_MAX], where[PATH_MAX];

	for (unsigned i = 0; i < w->nheld; i++) {
		const struct files_held *h = &w->held[i];
		struct files_left l = { .n = 0 };

		files_key_path(w->sp, h->parent, rel, sizeof(rel));
		snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/%s", h->name);
		where_of(w, h->parent, h->name, where, sizeof(where));
		files_rmdir_left(w->sp, w->res, w->level, h->err, where, left_of(w, rel, &l) == 0 ? &l : NULL);
	}
	w->nheld = 0;
}

void files_held_free(struct files_worker *w)
{
	free(w->held);
	w->held = NULL;
	w->nheld = w->cap_held = 0;
}
