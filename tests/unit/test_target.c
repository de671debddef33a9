/* test_target.c - what no shell test can time: a file that appears, or is
 * replaced, between a target's inspection and its creation; the mark set on
 * creation; an interrupt between fill chunks; the rc.h codes, and a message
 * longer than WHY_LEN cut inside its buffer. Works in a private directory
 * under $TMPDIR (or /tmp), removed at the end.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/rc.h"
#include "io/target.h"
#include "verify/genmap.h"
#include "run/phase.h"
#include "tap.h"

static char dir[256];

/* dir/name, in a buffer of its own (each test uses fewer than 16) */
static const char *in_dir(const char *name)
{
	static char p[16][512];
	static unsigned i;

	i = (i + 1) % 16;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

/* Write s to path (created or truncated). */
static void put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		perror(path);
	if (fd >= 0)
		close(fd);
}

/* path holds exactly s? */
static int holds(const char *path, const char *s)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(s) && !memcmp(buf, s, (size_t)n);
}

static void appears_after_inspection(void)
{
	struct target_opts o = { .path = in_dir("late.dat"), .size = 1 << 20, .create = 1, .fill = FILL_RANDOM };
	struct target t;
	char why[WHY_LEN] = "";
	int rc = target_inspect(&t, &o, why, sizeof(why));

	ok(rc == RC_OK && !t.exists, "a missing file inspects fine (%s)", why);
	put(o.path, "theirs");
	rc = target_materialize(&t, &o, why, sizeof(why));
	ok(rc == RC_INPUT && strstr(why, "appeared after it was checked"), "a file that appeared since: refused (%d: %s)", rc, why);
	ok(holds(o.path, "theirs"), "and not extended, filled or written");
	ok(getxattr(o.path, TARGET_XATTR, NULL, 0) < 0, "nor marked");
	target_free(&t);
}

static void replaced_after_inspection(void)
{
	struct target_opts o = { .path = in_dir("swap.dat"), .size = 1 << 20, .create = 1, .fill = FILL_RANDOM };
	struct target t;
	char why[WHY_LEN] = "", mark[128] = "", want[128];
	struct stat st;
	ssize_t n;
	int rc = target_prepare(&t, &o, why, sizeof(why));

	ok(rc == RC_OK && t.created && t.ours, "iomoon creates swap.dat (%s)", why);
	n = getxattr(o.path, TARGET_XATTR, mark, sizeof(mark) - 1);
	stat(o.path, &st);
	snprintf(want, sizeof(want), "iomoon-2 ino=%llu ", (unsigned long long)st.st_ino);
	ok(n > 0 && !strncmp(mark, want, strlen(want)), "its mark names its inode: '%s'", mark);
	target_free(&t);
	o.size = 2 << 20; /* extending writes */
	rc = target_inspect(&t, &o, why, sizeof(why));
	ok(rc == RC_OK && t.ours, "inspected again: ours (%s)", why);
	put(in_dir("other.dat"), "other");
	rename(in_dir("other.dat"), o.path);
	rc = target_materialize(&t, &o, why, sizeof(why));
	ok(rc == RC_INPUT && strstr(why, "no longer the file"), "replaced since: refused (%d: %s)", rc, why);
	ok(holds(o.path, "other"), "the file now there is not extended or filled");
	rc = target_open(&t, 0, 0, 0, why, sizeof(why));
	ok(rc == RC_INPUT && strstr(why, "no longer the file"), "nor opened for a phase (%d: %s)", rc, why);
	if (rc >= 0)
		close(rc);
	target_free(&t);
}

static void interrupted_fill(void)
{
	struct target_opts o = { .path = in_dir("int.dat"), .size = 64 << 20, .create = 1, .fill = FILL_RANDOM };
	struct target t;
	char why[WHY_LEN] = "";
	int rc;

	phase_interrupt = 1;
	rc = target_prepare(&t, &o, why, sizeof(why));
	phase_interrupt = 0;
	ok(rc == RC_FAIL && strstr(why, "interrupted during the fill of ") && strstr(why, " at 0 of 67108864 bytes"),
	   "an interrupt stops the fill before its first chunk (%d: %s)", rc, why);
	ok(access(o.path, F_OK) < 0, "and the file it created is removed");
}

/* The clean-up after a failed run removes the file it created only while
 * the name still names that inode: not a file renamed into its place, not
 * a symbolic link put there (nor what the link points to). */
static void unlink_only_created(void)
{
	struct target_opts o = { .path = in_dir("gone.dat"), .size = 1 << 20, .create = 1, .fill = FILL_NONE };
	struct target t;
	char why[WHY_LEN] = "";
	int rc = target_prepare(&t, &o, why, sizeof(why));

	ok(rc == RC_OK && t.created, "iomoon creates gone.dat (%s)", why);
	put(in_dir("theirs.dat"), "theirs");
	rename(in_dir("theirs.dat"), o.path);
	ok(target_unlink_created(&t) == 0 && holds(o.path, "theirs"), "a file renamed into its place is left alone");
	unlink(o.path);
	put(in_dir("theirs.dat"), "theirs");
	symlink(in_dir("theirs.dat"), o.path);
	ok(target_unlink_created(&t) == 0 && holds(o.path, "theirs") && holds(in_dir("theirs.dat"), "theirs"),
	   "a link put in its place, and what it points to, are left alone");
	unlink(o.path);
	unlink(in_dir("theirs.dat"));
	target_free(&t);
	rc = target_prepare(&t, &o, why, sizeof(why));
	ok(rc == RC_OK && target_unlink_created(&t) == 1 && access(o.path, F_OK) < 0, "the file it created is removed (%s)",
	   why);
	target_free(&t);
}

/* A refusal is RC_INPUT; a message longer than WHY_LEN is cut inside the
 * buffer (a guard after it stays untouched) and still names its field. */
static void codes_and_cut_messages(void)
{
	struct {
		char why[WHY_LEN];
		char guard[32];
	} b;
	char path[2048], guard[32];
	struct target_opts o = { .path = path };
	struct target t;
	int rc, n;

	n = snprintf(path, sizeof(path), "%s", dir);
	for (int i = 0; i < 6; i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "/%0200d", i);
	memset(&b, 0x5a, sizeof(b));
	memset(guard, 0x5a, sizeof(guard));
	rc = target_inspect(&t, &o, b.why, sizeof(b.why));
	ok(rc == RC_INPUT && !strncmp(b.why, "target.path: ", 13) && strlen(b.why) == WHY_LEN - 1 &&
	   !memcmp(b.guard, guard, sizeof(guard)), "a missing %d-byte path: RC_INPUT, why cut to %d bytes (%.40s...)",
	   n, WHY_LEN - 1, b.why);
	put(in_dir("anyones.dat"), "theirs");
	o.path = in_dir("anyones.dat");
	b.why[0] = 0;
	rc = target_inspect(&t, &o, b.why, sizeof(b.why));
	ok(rc == RC_OK && !t.ours && t.size == 6, "a file iomoon did not create inspects fine (%s)", b.why);
	rc = target_may_write(&t, b.why, sizeof(b.why));
	ok(rc == RC_INPUT && strstr(b.why, "iomoon did not create this file") && strstr(b.why, "allow_write=true"),
	   "writing it without allow_write: RC_INPUT (%s)", b.why);
	t.allow_write = 1;
	t.force = 1;
	ok(target_may_write(&t, b.why, sizeof(b.why)) == RC_OK && holds(o.path, "theirs"),
	   "with allow_write and force: RC_OK, and nothing written by asking");
	target_free(&t);
	unlink(o.path);
}

/* genmap_attach's message for a path that cannot be stat'ed shows its
 * control bytes escaped: the message stays one line. */
static void attach_message_escaped(void)
{
	struct target t = { .path = (char *)in_dir("no\nsuch\x1b[2J.dat"), .kind = TARGET_FILE, .size = 1 << 20 };
	uint32_t unit = 4096;
	char why[WHY_LEN] = "";
	int rc = genmap_attach(&t, NULL, &unit, 1, 0, UINT64_MAX, GENMAP_READS, why, sizeof(why));

	ok(rc == RC_FAIL && strstr(why, "no\\nsuch\\x1b[2J.dat: No such file") && !strchr(why, '\n') &&
	   !strchr(why, 0x1b), "genmap_attach on a missing path: RC_FAIL, its name escaped (%s)", why);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/iomoon-unit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	appears_after_inspection();
	replaced_after_inspection();
	interrupted_fill();
	unlink_only_created();
	codes_and_cut_messages();
	attach_message_escaped();
	unlink(in_dir("late.dat"));
	unlink(in_dir("swap.dat"));
	unlink(in_dir("int.dat"));
	rmdir(dir);
	return tap_done();
}
