/* verify_lock.c - one verifying phase per target at a time, across
 * processes: OFD locks on the state's lock file and on the target's bytes
 * (verify_lock.h). Held by the thread that runs Lua, from the end of a
 * phase's check to the end of phase_run (the last worker saves the state
 * before it returns); a registry keyed by the target's identity, so a
 * target named twice in one phase is locked once. */
#include "run/verify_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "core/rc.h"
#include "core/shown.h"
#include "io/target.h"
#include "run/phase.h"
#include "verify/genmap.h"

/* Where block devices' byte locks live: one file per device number. */
#define VLOCK_DEVICE_DIR "/run/iomoon"

/* One target this process holds locks on. */
struct held {
	uint64_t dev, ino;   /* the target's identity (target.h) */
	int state_fd;        /* its state's lock file; -1: none (no state directory, verifying only) */
	int target_fd;       /* its own descriptor on the target; -1: a network target */
};

static struct held *held;
static unsigned nheld, held_cap;

static struct held *find(const struct target *t)
{
	for (unsigned i = 0; i < nheld; i++)
		if (held[i].dev == t->id_dev && held[i].ino == t->id_ino)
			return &held[i];
	return NULL;
}

void vlock_release(void)
{
	for (unsigned i = 0; i < nheld; i++) {
		if (held[i].state_fd >= 0)
			close(held[i].state_fd);
		if (held[i].target_fd >= 0)
			close(held[i].target_fd);
	}
	nheld = 0;
}

/* Did the lock just asked fail because the file system takes none (a
 * FUSE or 9p mount, NFS without its lock service)? Then the phase runs
 * unlocked there, as it did before locks: they guard, they do not gate. */
static int no_locks_here(void)
{
	return errno == ENOLCK || errno == EINVAL || errno == EOPNOTSUPP || errno == ENOSYS;
}

/* The lock that keeps l out of fd: its type (F_WRLCK, F_RDLCK) and range. */
static struct flock blocker(int fd, const struct flock *l)
{
	struct flock b = *l;

	b.l_pid = 0;
	if (fcntl(fd, F_OFD_GETLK, &b) < 0 || b.l_type == F_UNLCK)
		b.l_type = F_WRLCK; /* gone meanwhile: say the worse */
	return b;
}

/* " (pid N)" from the lock file, when that process lives; else "". The
 * holder writes its pid just after it locks: a refusal in between waits
 * for it, 20 ms at most. */
static void holder_pid(int fd, char *out, size_t len)
{
	out[0] = 0;
	for (int tries = 0; tries < 20 && !out[0]; tries++) {
		char buf[32] = "";
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		long pid = n > 0 ? strtol(buf, NULL, 10) : 0;

		if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			snprintf(out, len, " (pid %ld)", pid);
		else
			usleep(1000);
	}
}

/* The rule a refusal ends with: why the two cannot run together. */
static const char *rule(int write, int other_writes)
{
	if (write && other_writes)
		return "one process at a time writes a target with verification: each keeps its own generations, "
		       "and the other's writes would look corrupt; wait for it to end";
	if (write)
		return "writing it with verification now would make that verification report the new writes as "
		       "errors; wait for it to end";
	return "a verification while it writes would report its writes as errors; wait for it to end";
}

/* Refused over the state's lock file lk (fd holds it open). */
static int refuse_state(const struct target *t, const char *field, int write, int fd, const struct flock *l,
			const char *lk, char *why, size_t why_len)
{
	const struct flock b = blocker(fd, l);
	const int other_writes = b.l_type == F_WRLCK;
	char pid[32], p[256], q[256];

	holder_pid(fd, pid, sizeof(pid));
	snprintf(why, why_len, "%s.verify: another iomoon%s is %s %s%s (it holds the lock %s): %s%s", field, pid,
		 other_writes ? "writing" : "verifying", shown(t->path, p, sizeof(p)),
		 other_writes ? " with verification" : "", shown(lk, q, sizeof(q)), rule(write, other_writes),
		 cluster_ranks() > 1 ? " (ranks on one host that share a target need a state directory each: "
				       "verify_state = \"DIR-{rank}\", or IOMOON_STATE_DIR)"
				     : write && other_writes ? " (runs on disjoint regions of one target need a state "
							       "directory each: verify_state, or IOMOON_STATE_DIR)"
							     : "");
	return RC_INPUT;
}

/* This process's pid into the lock file it holds (21 bytes, over any
 * before), for another's refusal to name. */
static void note_holder(int fd)
{
	char pid[32];
	const int n = snprintf(pid, sizeof(pid), "%-20ld\n", (long)getpid());

	if (pwrite(fd, pid, (size_t)n, 0) != n)
		return; /* opened read-only (verifying, no write access there): others' refusals name no pid */
}

/* The state's lock file of t, locked whole into h->state_fd. A phase that
 * only verifies takes it only where it can be opened: with no state
 * directory there is no state to guard, and the target's own lock holds. */
static int lock_state(const struct target *t, const char *dir, const char *field, int write, struct held *h,
		      char *why, size_t why_len)
{
	const struct flock l = { .l_type = write ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET };
	char *lk = genmap_lock_path(t, dir, write), p[256];
	struct stat st;
	int fd = -1, rc = RC_OK;

	if (lk) {
		fd = open(lk, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
		if (fd < 0 && !write)
			fd = open(lk, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	}
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (write)
			snprintf(why, why_len, "%s.verify: the verification lock %s: %s", field,
				 lk ? shown(lk, p, sizeof(p)) : "(none)", fd < 0 ? strerror(errno) : "not a regular file");
		rc = write ? RC_FAIL : RC_OK;
		goto out;
	}
	if (fcntl(fd, F_OFD_SETLK, &l) < 0 && !no_locks_here()) {
		if (errno == EAGAIN || errno == EACCES) {
			rc = refuse_state(t, field, write, fd, &l, lk, why, why_len);
		} else {
			snprintf(why, why_len, "%s.verify: cannot lock %s: %s", field, shown(lk, p, sizeof(p)),
				 strerror(errno));
			rc = RC_FAIL;
		}
		goto out;
	}
	note_holder(fd);
	h->state_fd = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	free(lk);
	return rc;
}

/* Does another process hold the lock of t's state against this phase?
 * Then why says so (refuse_state); nothing is created to ask. */
static int state_held(const struct target *t, const char *dir, const char *field, int write, char *why,
		      size_t why_len)
{
	struct flock l = { .l_type = write ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET };
	char *lk = genmap_lock_path(t, dir, 0);
	int fd = lk ? open(lk, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1, held = 0;

	if (fd >= 0 && fcntl(fd, F_OFD_GETLK, &l) == 0 && l.l_type != F_UNLCK) {
		l.l_type = write ? F_WRLCK : F_RDLCK;
		refuse_state(t, field, write, fd, &l, lk, why, why_len);
		held = 1;
	}
	if (fd >= 0)
		close(fd);
	free(lk);
	return held;
}

/* A block device's bytes are locked in a file named for its device
 * number, in a directory of the host (VLOCK_DEVICE_DIR), not on its node:
 * another node of the same device (mknod, a name in another /dev) is
 * another inode, and an OFD lock on it would not meet this one. -1 where
 * the directory cannot be made (not root): then the node itself. */
static int device_lock_file(const struct target *t)
{
	char p[128];
	int fd;

	if (mkdir(VLOCK_DEVICE_DIR, 0755) < 0 && errno != EEXIST)
		return -1;
	snprintf(p, sizeof(p), VLOCK_DEVICE_DIR "/blockdev-%u-%u.lock", major((dev_t)t->id_dev),
		 minor((dev_t)t->id_dev));
	fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	return fd;
}

/* Bytes [off, off + len) of t, locked through h->target_fd (opened first:
 * the device's lock file, or the target itself). */
static int lock_bytes(const struct target *t, const char *dir, const char *field, int write, uint64_t off,
		      uint64_t len, struct held *h, char *why, size_t why_len)
{
	const struct flock l = { .l_type = write ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET, .l_start = (off_t)off,
				 .l_len = (off_t)len };
	struct flock b;
	char p[256], end[32];

	if (t->url || t->kind == TARGET_NONE || !len)
		return RC_OK;
	if (h->target_fd < 0 && t->kind == TARGET_BLOCK)
		h->target_fd = device_lock_file(t);
	if (h->target_fd < 0 && (h->target_fd = target_open(t, 0, write, 0, why, why_len)) < 0) {
		const int rc = h->target_fd;

		h->target_fd = -1;
		return rc;
	}
	if (fcntl(h->target_fd, F_OFD_SETLK, &l) == 0 || no_locks_here())
		return RC_OK;
	if (errno != EAGAIN && errno != EACCES) {
		snprintf(why, why_len, "%s.verify: cannot lock bytes of %s: %s", field, shown(t->path, p, sizeof(p)),
			 strerror(errno));
		return RC_FAIL;
	}
	if (state_held(t, dir, field, write, why, why_len))
		return RC_INPUT; /* one state directory: say whose, and the rule */
	b = blocker(h->target_fd, &l);
	if (b.l_len)
		snprintf(end, sizeof(end), "%lld", (long long)(b.l_start + b.l_len - 1));
	else
		snprintf(end, sizeof(end), "the end");
	snprintf(why, why_len, "%s.verify: another process holds a %s lock on bytes %lld to %s of %s (an iomoon %s, "
		 "with a state directory of its own): a region written with verification must not overlap one "
		 "that another process writes or verifies at the same time; give disjoint regions, or wait for "
		 "it to end", field, b.l_type == F_WRLCK ? "write" : "read", (long long)b.l_start, end,
		 shown(t->path, p, sizeof(p)), b.l_type == F_WRLCK ? "writing them with verification" : "verifying them");
	return RC_INPUT;
}

/* The registry's entry of t, added (nothing locked yet) when new. */
static struct held *entry(const struct target *t)
{
	struct held *h = find(t);

	if (h)
		return h;
	if (nheld == held_cap) {
		unsigned cap = held_cap ? held_cap * 2 : 8;
		struct held *n = realloc(held, cap * sizeof(*n));

		if (!n)
			return NULL;
		held = n;
		held_cap = cap;
	}
	h = &held[nheld++];
	*h = (struct held){ .dev = t->id_dev, .ino = t->id_ino, .state_fd = -1, .target_fd = -1 };
	return h;
}

/* The bytes of every target first (a refusal there leaves the state
 * directory as it was), then the state of each not locked yet. */
int vlock_phase(const struct phase_spec *sp, const char *field, char *why, size_t why_len)
{
	const int write = phase_writes(sp);

	if (sp->verify != VERIFY_CRC)
		return RC_OK;
	for (int pass = 0; pass < 2; pass++)
		for (unsigned t = 0; t < sp->ntargets; t++) {
			const struct target *tg = sp->targets[t];
			struct held *h;
			uint64_t off, len;
			int rc;

			if (tg->kind == TARGET_NONE || !tg->exists)
				continue;
			if (!(h = entry(tg))) {
				snprintf(why, why_len, "%s.verify: no memory for the verification locks", field);
				return RC_FAIL;
			}
			phase_region_of(sp, t, &off, &len);
			rc = pass ? (h->state_fd < 0 ? lock_state(tg, sp->verify_state, field, write, h, why, why_len)
						     : RC_OK)
				  : lock_bytes(tg, sp->verify_state, field, write, off, len, h, why, why_len);
			if (rc != RC_OK)
				return rc;
		}
	return RC_OK;
}
