/* files.h - a files phase: metadata and small-file operations over a tree
 * of directories (mdtest's, elbencho's and Postmark's workloads).
 *
 * The tree lives under `dir` in a directory iomoon makes and marks
 * (FILES_ROOT, holding FILES_MARKER): one subtree per worker ("w3", or
 * "r1w3" under MPI), or one for all ("shared"). A subtree has `depth`
 * levels of `width` directories ("d0".."d<width-1>"); the leaves hold
 * `files` files ("f0".."f<files-1>"). Every name is computed from an index,
 * so a tree of a million files holds no path in memory. Every directory is
 * opened beneath the one above it with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS), and a file is opened the same way: no symlink and
 * no ".." leads out of dir.
 *
 * One operation over every file (or directory) of the tree, or a weighted
 * mix of them over the tree's files, is run by `workers` threads, each with
 * psync (the system calls, one at a time) or io_uring (qd operations in
 * flight, each a chain of openat2 / write / read / fsync / close, linked in
 * one submission where the ring has direct descriptors, or statx,
 * unlinkat, mkdirat, renameat; readdir by system call: the ring has no
 * getdents). files_uring.c holds the ring's loop.
 */
#ifndef IOMOON_FILES_H
#define IOMOON_FILES_H

#include <limits.h>
#include <pthread.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/hist.h"
#include "core/rng.h"
#include "core/stats.h"

struct phase_progress;

#define FILES_ROOT "iomoon-files"
#define FILES_MARKER ".iomoon-tree"
#define FILES_MAX_SIZES 16

enum files_op {
	FOP_MKDIR, FOP_CREATE, FOP_WRITE, FOP_APPEND, FOP_READ, FOP_STAT,
	FOP_DIRSTAT, FOP_OPEN, FOP_RENAME, FOP_READDIR, FOP_DELETE, FOP_RMDIR, FOP_N
};

extern const char *const files_op_names[FOP_N];

struct files_spec {
	char dir[PATH_MAX];
	unsigned depth, width;  /* leaves: width^depth per subtree */
	uint64_t files;         /* per leaf directory */
	int shared;             /* one subtree for every worker */
	int allow_write;        /* a tree may be made in a non-empty foreign dir */
	int foreign_tree;       /* a tree another user made may be used */
	uint64_t size[FILES_MAX_SIZES];
	double size_weight[FILES_MAX_SIZES];
	unsigned nsize;
	int mix;                /* weight[] is a mix; otherwise op, once over the tree */
	enum files_op op;
	double weight[FOP_N];
	unsigned workers, qd;
	uint64_t duration_ns;   /* 0: one pass (op), required for a mix unless ios */
	uint64_t ios;           /* 0: no count; else the operations of the phase */
	uint64_t bs;
	int fsync, direct, uring;
	int nfs;                /* dir is an nfs:// URL: files_nfs.c's calls */
	uint64_t seed;
	uint64_t interval_ns;   /* 0: no intervals */
	int rank;               /* -1 alone; else the MPI rank, in subtree names */
	unsigned ranks;         /* the MPI ranks (0 or 1: alone); a shared tree's items are split over them */
	/* NULL: no progress lines; else called about twice a second while the
	 * workers run, name being progress_name (phase.h's struct) */
	void (*progress)(const struct phase_progress *p);
	char progress_name[128];
};

#define FILES_ERRNO_N 134 /* errors counted by errno below it; the rest in the last */

struct files_opres {
	uint64_t ops, errors;
	uint64_t missing;       /* delete, rmdir: already gone (ENOENT), not an error */
	uint64_t by_errno[FILES_ERRNO_N];
	struct hist lat;
};

struct files_interval {
	double t_s, len_s;
	uint64_t ops, read_ops, write_ops, bytes, p50_ns, p99_ns, max_ns;
};

struct files_result {
	struct files_opres op[FOP_N];
	uint64_t created, deleted, dirs_made, dirs_removed, bytes_written, bytes_read;
	uint64_t prefilled;     /* files a mix made before its measured time */
	uint64_t chains;        /* io_uring: operations submitted as one linked chain */
	double seconds, first_done_s, last_done_s;
	double user_s, sys_s;
	struct cpu_use cpu;     /* this process's and the machine's CPU over the phase (core/stats.h) */
	int interrupted;
	int first_errno;
	char first_error[512];  /* "create iomoon-files/w0/d1/f7: No space left on device" */
	int64_t started_ns, ended_ns; /* wall clock */
	struct files_interval *iv;      /* the intervals (malloc'd: files_result_free) */
	unsigned niv, cap_iv;
};

/* Is the phase possible here, before anything is made: dir a directory, a
 * tree in it iomoon's (its marker) or dir empty or allow_write, free space
 * and inodes for what the phase makes, the open-file limit. RC_INPUT with
 * why naming the field otherwise. */
int files_check(const struct files_spec *sp, char *why, size_t why_len);

/* Run the phase into *res (allocated by the caller, zeroed here).
 * RC_OK (errors are counted in res), RC_INPUT / RC_FAIL with why. */
int files_run(const struct files_spec *sp, struct files_result *res, char *why, size_t why_len);

/* Open (or make, marked, when create) the tree's root in dir: its fd in
 * *root (files_tree.c). Under MPI rank 0 makes it before the others open it. */
int files_tree_open(const struct files_spec *sp, int create, int *root, char *why, size_t why_len);

/* What files_run allocated in res. */
void files_result_free(struct files_result *res);

/* --- shared by files.c, files_sample.c and files_uring.c --- */

/* The intervals of res, while n workers' results per run, until finished
 * reaches n (files_sample.c). */
void files_sample(const struct files_spec *sp, struct files_result *res, const struct files_result *per, unsigned n, const unsigned *finished,
		  uint64_t start_ns, uint64_t interval_ns);

/* A directory open beneath the subtree: key is (level << 48 | index). */
struct files_dirent {
	uint64_t key;
	int fd;
	unsigned refs;
	uint64_t used;
};

struct files_gate {
	unsigned ready;
	int go; /* 1: go; -1: a worker could not start, none runs */
	unsigned finished; /* workers done with their loop */
};

/* The tree's maker, as its root says (files_guard.c). */
struct files_ident {
	uid_t uid;
	int born;               /* the filesystem gives birth times */
	int64_t born_sec;
	uint32_t born_nsec;
};

struct files_worker {
	const struct files_spec *sp;
	const struct files_ident *tree; /* NULL: no file checked (over nfs://) */
	unsigned id;
	int subtree_fd;           /* the worker's subtree ("w3"), or the shared one */
	int gone;                 /* rmdir: the subtree is removed already (nothing to do) */
	uint64_t first_item, step, nitems; /* items first_item + k*step, k < nitems */
	uint64_t quota;           /* operations to do (UINT64_MAX: one pass; 0: none) */
	uint64_t taken;           /* operations taken so far, every level's */
	uint64_t deadline_ns;
	int waiting;              /* files_next found only files in flight: try again after one completes */
	struct files_dirent *dc;  /* a few open directories */
	unsigned ndc;
	uint64_t dc_clock;
	uint8_t *present;         /* a mix: one bit per item of the subtree */
	uint64_t npresent;
	struct rng rng;
	uint8_t *busy;             /* a mix: items with an operation in flight */
	char *buf;                /* qd buffers of bs bytes */
	struct files_result *res;
	uint64_t done_ns;
	int level;                /* mkdir / rmdir: the level being worked */
	struct files_gate *gate;  /* all ready, then go: the measured time starts */
	pthread_barrier_t *level_barrier;
	const uint64_t *start_ns;
	struct uslot *slots;      /* io_uring: the qd slots (files_uring.c) */
	int direct_ok;            /* io_uring: files in the ring's table, steps linked */
	int opened;               /* psync: the operation's file was opened */
	struct files_nfs *nfs;    /* over nfs://: the worker's connection */
	struct files_held *held;  /* rmdir: the level's directories not empty, judged after it (files_error.c) */
	unsigned nheld, cap_held;
};

/* Items of the subtree: files (leaf-major) or directory nodes of a level. */
uint64_t files_leaves(const struct files_spec *sp);
uint64_t files_level_nodes(const struct files_spec *sp, int level);
/* The directory (parent key) and name of file item i, or of node i of level. */
uint64_t files_item_parent(const struct files_spec *sp, uint64_t item, char *name, size_t len);
uint64_t files_node_parent(const struct files_spec *sp, int level, uint64_t i, char *name, size_t len);
/* The open directory of key (kept in w's cache; refs taken), or -errno. */
int files_dir_get(struct files_worker *w, uint64_t key, struct files_dirent **de);
void files_dir_put(struct files_dirent *de);
/* The size file item i has (from the size list, the same in every phase). */
uint64_t files_item_size(const struct files_spec *sp, unsigned worker, uint64_t item);
/* Count an error of op on the item named (relative to the subtree): an
 * ENOENT of delete and rmdir as missing; rmdir's ENOTEMPTY held to be
 * judged when the level is done (files_held_judge). */
void files_error(struct files_worker *w, enum files_op op, uint64_t parent, const char *name, int err);
/* The same with detail (or NULL) after the system's words in the message. */
void files_error_why(struct files_worker *w, enum files_op op, uint64_t parent, const char *name, int err,
		     const char *detail);
/* The result whose first_error the workers' errors set (NULL: none). */
void files_first_error_to(struct files_result *res);
/* The name of worker id's subtree ("w3", "r1w3", "shared"). */
void files_subtree_name(const struct files_spec *sp, unsigned id, char *out, size_t len);
/* Count error err of op into r, at where ("iomoon-files/w0/d1"), detail
 * (or NULL) in the first error's message after the system's words. */
void files_error_count(struct files_result *r, enum files_op op, int err, const char *where, const char *detail);
/* openat2 beneath dirfd, never through a symlink: the fd, or -errno. */
int files_openat2(int dirfd, const char *path, uint64_t flags, uint64_t mode);
/* The next operation of w and its item: 0 when w is done. */
int files_next(struct files_worker *w, enum files_op *op, uint64_t *item, uint64_t *done);
/* Readdir of leaf node (synchronous); bytes into *entries. 0 or -errno. */
int files_readdir(struct files_worker *w, uint64_t node, uint64_t *entries);
/* After op on item completed: the mix's bitmap and the result's counts. */
void files_release(struct files_worker *w, enum files_op op, uint64_t item); /* a failed one */
/* a mix's create that failed with its file made (its open done, or EEXIST): the file is there */
void files_create_left(struct files_worker *w, uint64_t item);
void files_done(struct files_worker *w, enum files_op op, uint64_t item, uint64_t bytes);
/* open_how of op (O_ flags) for openat2 beneath. */
uint64_t files_open_flags(const struct files_spec *sp, enum files_op op);
#define FILES_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

int files_uring_loop(struct files_worker *w);
/* "d3/d0/d7" of node key, relative to the subtree ("." for the subtree). */
void files_key_path(const struct files_spec *sp, uint64_t key, char *out, size_t len);

/* --- whose a name in the tree is (files_guard.c) --- */

/* The owner and birth time of the root open at root: 0 or -errno. */
int files_tree_ident(int root, struct files_ident *id);
/* Are the root and its marker (open fds) the running user's? 0: yes (or
 * foreign_ok); 1: no, why says whose; -1: fstat failed, why says why. */
int files_tree_owned(int root, int marker, int foreign_ok, char *why, size_t len);
/* May op (write, append, read, open, rename, delete) act on name in dfd? 0, or
 * -errno (EPERM: not iomoon's; ELOOP, EISDIR) with why: a name that is
 * not a regular file is never opened; one iomoon did not make (another
 * owner, more than one link, born before the tree) never written,
 * renamed or removed. Nothing checked where w->tree is NULL. */
int files_guard(const struct files_worker *w, enum files_op op, int dfd, const char *name, char *why, size_t len);
/* The same verdict on the file open at fd (psync, after its open). */
int files_guard_fd(const struct files_worker *w, enum files_op op, int fd, char *why, size_t len);

/* --- what an rmdir leaves (files_error.c) --- */

#define FILES_LEVEL_ROOT (-1) /* the root; 0 is a subtree, depth its leaves */

/* The names left in a directory: the first that is not the tree's (or,
 * none such, the first of them) and how many there are. */
struct files_left {
	char name[64];
	int foreign;  /* name is not the tree's */
	uint64_t n;   /* names but "." and ".." */
};

/* Is name one the tree has in a directory of level (the marker and the
 * subtrees in the root, d<i> above the leaves, f<i> and f<i>.r in them)? */
int files_name_ours(const struct files_spec *sp, int level, const char *name);
/* Name, found in a directory of level, into l. */
void files_left_add(const struct files_spec *sp, int level, const char *name, struct files_left *l);
/* The names of the directory open at fd into l: 0 or -errno. */
int files_left_fd(const struct files_spec *sp, int fd, int level, struct files_left *l);
/* Is a directory not empty, holding l, an error of its own (a name not
 * the tree's, or a leaf's files)? Else it holds only what failures below
 * it, or a stop, left. Its detail for the message into out. */
int files_left_error(const struct files_spec *sp, int level, const struct files_left *l, char *out, size_t len);
/* Count rmdir's err at where (a directory of level, not removed) unless
 * l, what it was found to hold (NULL: not listed), is only what failures
 * below it or a stop left (files_left_error). */
void files_rmdir_left(const struct files_spec *sp, struct files_result *res, int level, int err, const char *where,
		      const struct files_left *l);
/* Hold directory name of parent, not empty (err) at w's level, for the
 * judge: 0, or -ENOMEM (then count it at once). */
int files_hold(struct files_worker *w, uint64_t parent, const char *name, int err);
/* Judge w's held directories (the level's work done): each an error or
 * not (files_left_error), listed through w's engine. */
void files_held_judge(struct files_worker *w);
void files_held_free(struct files_worker *w);

/* --- over nfs:// (files_nfs.c): a connection per worker through libnfs,
 * qd operations in flight; the tree's checks, root, subtrees and removal
 * as files_tree.c's. RC_INPUT without libnfs. --- */
int files_nfs_check(const struct files_spec *sp, char *why, size_t why_len);
int files_nfs_tree_open(const struct files_spec *sp, int create, char *why, size_t why_len);
int files_nfs_worker_open(struct files_worker *w, const char *subtree, int create, char *why, size_t why_len);
void files_nfs_worker_close(struct files_worker *w);
void files_nfs_prefill(struct files_worker *w);
void files_nfs_loop(struct files_worker *w);
/* After rmdir: the subtrees, then the root, removed when empty; what is
 * left that is not the tree's counted as an error in res. */
void files_nfs_prune(const struct files_spec *sp, const char *const *subtrees, unsigned n, struct files_result *res);
/* The names of directory rel of w's subtree into l: 0 or -errno. */
int files_nfs_left(struct files_worker *w, const char *rel, int level, struct files_left *l);

#endif
