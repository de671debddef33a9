/* claims.c - is something else using a file or block device? A mount or
 * swap on the device (or a partition on it), a holder in sysfs (dm, md), a
 * loop device over the file or the device, or a filesystem, RAID or
 * partition-table signature on either. What cannot be told (no sysfs, a
 * loop device that cannot be asked) is a claim too.
 *
 * Signatures are libblkid's: every one it sees, listed as wipefs lists
 * them, and "nothing here" only when its safe probe positively says so;
 * an ambivalent result or a failed probe counts as a claim.
 */
#include "io/claims.h"
#include "core/rc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <blkid/blkid.h>

/* The kernel's "huge" dev_t encoding (loop_info64's lo_device, lo_rdevice). */
static dev_t huge_decode(uint64_t d)
{
	return makedev((unsigned)((d & 0xfff00) >> 8), (unsigned)((d & 0xff) | ((d >> 12) & 0xfff00)));
}

/* What a loop device reads, as a match function sees it: the backing
 * file's device and inode, and its st_rdev when it is a block device. */
struct loop_match {
	int (*fn)(const struct loop_match *m, dev_t dev, ino_t ino, dev_t rdev);
	const struct stat *st; /* the file or block device asked about */
	char me[64];           /* a block device's sysfs name, or "" */
	char parent[64];       /* and its disk's, when it is a partition */
};

/* A file target: the backing file is it (device and inode). */
static int match_file(const struct loop_match *m, dev_t dev, ino_t ino, dev_t rdev)
{
	(void)rdev;
	return dev == m->st->st_dev && ino == m->st->st_ino;
}

static int on_disk(unsigned maj, unsigned min, const char *me, char *name, size_t nlen);

/* A block target: the backing device is it, a partition on it, or (for a
 * partition) its whole disk. */
static int match_block(const struct loop_match *m, dev_t dev, ino_t ino, dev_t rdev)
{
	char name[64];

	(void)dev;
	(void)ino;
	if (!rdev)
		return 0;
	if (rdev == m->st->st_rdev || (m->me[0] && on_disk(major(rdev), minor(rdev), m->me, name, sizeof(name))))
		return 1;
	return m->parent[0] && on_disk(major(rdev), minor(rdev), m->parent, name, sizeof(name)) &&
	       !strcmp(name, m->parent);
}

/* Is attached loop device `name` over what m matches? By LOOP_GET_STATUS64
 * (which still knows a backing file renamed, deleted or named in another
 * mount namespace). 1 yes, 0 no or not attached, -1 cannot tell (errno). */
static int loop_ioctl_backs(const char *name, const struct loop_match *m)
{
	struct loop_info64 li;
	char p[320];
	int fd, rc, e;

	snprintf(p, sizeof(p), "/dev/%s", name);
	fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = ioctl(fd, LOOP_GET_STATUS64, &li);
	e = errno;
	close(fd);
	if (rc < 0) {
		errno = e;
		return e == ENXIO ? 0 : -1;
	}
	return m->fn(m, huge_decode(li.lo_device), (ino_t)li.lo_inode, huge_decode(li.lo_rdevice));
}

/* Is loop device `name` (attached) over what m matches? The name sysfs
 * shows (stat'ed), then LOOP_GET_STATUS64. Without sysfs, only the ioctl.
 * 1, 0, or -1 when it cannot tell. */
static int loop_backs(const char *name, const struct loop_match *m, int sysfs)
{
	char p[320], back[4096];
	struct stat bs;
	FILE *f;
	int hit;

	if (!sysfs)
		return loop_ioctl_backs(name, m);
	snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", name);
	f = fopen(p, "re");
	if (!f)
		return 0; /* not attached */
	hit = fgets(back, sizeof(back), f) && (back[strcspn(back, "\n")] = 0, stat(back, &bs) == 0) &&
	      m->fn(m, bs.st_dev, bs.st_ino, S_ISBLK(bs.st_mode) ? bs.st_rdev : 0);
	fclose(f);
	if (hit)
		return 1;
	hit = loop_ioctl_backs(name, m);
	return hit < 0 ? 0 : hit; /* sysfs says it is attached; the name did not match */
}

/* Is "loopN" (digits only) a loop device's name? */
static int loop_name(const char *n)
{
	if (strncmp(n, "loop", 4) || !n[4])
		return 0;
	return strspn(n + 4, "0123456789") == strlen(n + 4);
}

/* One loop device for loop_scan: 1 (what says how) ends the scan. */
static int loop_one(const char *name, const struct loop_match *m, int sysfs, const char *as, char *what,
		    size_t what_len)
{
	int r;

	if (!loop_name(name))
		return 0;
	r = loop_backs(name, m, sysfs);
	if (r > 0)
		snprintf(what, what_len, "it is the %s of /dev/%s", as, name);
	else if (r < 0)
		snprintf(what, what_len, "it cannot be told whether /dev/%s uses it (/sys/block cannot be read, "
			 "and LOOP_GET_STATUS64 on /dev/%s failed: %s)", name, name, strerror(errno));
	return r != 0;
}

/* Without sysfs: the loop devices the kernel lists in /proc/partitions
 * (every attached one that has a size), asked through /dev, where a
 * missing node cannot be asked (a claim). -1 when it cannot be read. */
static int loop_scan_proc(const struct loop_match *m, const char *as, char *what, size_t what_len)
{
	FILE *f = fopen("/proc/partitions", "re");
	char line[256], name[64];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u %*u %*u %63s", name) == 1)
			found = loop_one(name, m, 0, as, what, what_len);
	fclose(f);
	return found;
}

/* Every loop device: the names in /sys/block, or, where sysfs cannot be
 * read, those in /proc/partitions and the nodes in /dev (asked by ioctl).
 * Anything that cannot be told is a claim that says so. */
static int loop_scan(const struct loop_match *m, const char *as, char *what, size_t what_len)
{
	DIR *d = opendir("/sys/block");
	int sysfs = d != NULL, found = 0, e = errno;
	struct dirent *ent;

	if (!d && loop_scan_proc(m, as, what, what_len) > 0)
		return 1;
	if (!d)
		d = opendir("/dev");
	if (!d) {
		snprintf(what, what_len, "it cannot be told whether a loop device uses it (neither /sys/block nor /dev "
			 "can be read: %s)", strerror(e));
		return 1;
	}
	while (!found && (ent = readdir(d)))
		found = loop_one(ent->d_name, m, sysfs, as, what, what_len);
	closedir(d);
	return found;
}

int claims_loop_backing(const struct stat *st, char *what, size_t what_len)
{
	struct loop_match m = { .fn = match_file, .st = st };

	return loop_scan(&m, "backing file", what, what_len);
}

/* Append the signature libblkid's last probe step found ("ext4 at offset
 * 0x438") to list; its type goes to first when it is the first. */
static void add_signature(blkid_probe pr, int n, char *list, size_t len, char *first, size_t flen, int *pt)
{
	const char *type = NULL, *off = NULL;
	size_t o = strlen(list);

	*pt = 0;
	if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) < 0 &&
	    blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) == 0)
		*pt = 1;
	if (blkid_probe_lookup_value(pr, *pt ? "PTMAGIC_OFFSET" : "SBMAGIC_OFFSET", &off, NULL) < 0)
		off = NULL;
	if (!type)
		type = "unknown";
	if (n == 0)
		snprintf(first, flen, "%s", type);
	if (off)
		snprintf(list + o, len - o, "%s%s%s at offset 0x%llx", n ? ", " : "", type, *pt ? " partition table" : "",
			 strtoull(off, NULL, 10));
	else
		snprintf(list + o, len - o, "%s%s%s", n ? ", " : "", type, *pt ? " partition table" : "");
}

int claims_signatures(int fd, char *what, size_t what_len)
{
	blkid_probe pr = blkid_new_probe();
	char list[768] = "", first[64] = "";
	int safe, rc = -1, n = 0, pt = 0;

	if (!pr || blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		snprintf(what, what_len, "libblkid cannot probe it for signatures (%s)", strerror(errno ? errno : EINVAL));
		if (pr)
			blkid_free_probe(pr);
		return 1;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	safe = blkid_do_safeprobe(pr);
	blkid_reset_probe(pr);
	while (n < 16 && (rc = blkid_do_probe(pr)) == 0)
		add_signature(pr, n++, list, sizeof(list), first, sizeof(first), &pt);
	blkid_free_probe(pr);
	if (n == 1)
		snprintf(what, what_len, "it holds a %s %s", first, pt ? "partition table" : "signature");
	else if (n > 1)
		snprintf(what, what_len, "it holds %d signatures: %s", n, list);
	else if (safe == 1 && rc == 1)
		return 0;
	else
		snprintf(what, what_len, "libblkid cannot tell what is on it (%s)",
			 safe == -2 ? "an ambivalent result" : "the probe failed");
	return 1;
}

int claims_sysfs_names(unsigned maj, unsigned min, char *name, size_t nlen, char *parent, size_t plen)
{
	char path[64], link[512], *slash;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", maj, min);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return RC_FAIL;
	link[n] = 0;
	slash = strrchr(link, '/');
	snprintf(name, nlen, "%s", slash ? slash + 1 : link);
	parent[0] = 0;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", maj, min);
	if (slash && access(path, F_OK) == 0) {
		*slash = 0;
		slash = strrchr(link, '/');
		snprintf(parent, plen, "%s", slash ? slash + 1 : link);
	}
	return RC_OK;
}

/* Is device maj:min the disk `me` or a partition on it? Its name to name. */
static int on_disk(unsigned maj, unsigned min, const char *me, char *name, size_t nlen)
{
	char parent[64];

	if (claims_sysfs_names(maj, min, name, nlen, parent, sizeof(parent)) < 0)
		return 0;
	return !strcmp(name, me) || !strcmp(parent, me);
}

/* Add the holders of block device `name` (/sys/class/block/NAME/holders:
 * device-mapper, md, bcache) to list, "dm-0" or "dm-1 (on loop0p1)" when
 * `name` is not the target itself. */
static void held_by(const char *name, int mine, char *list, size_t len)
{
	char p[256];
	struct dirent *e;
	DIR *d;

	snprintf(p, sizeof(p), "/sys/class/block/%s/holders", name);
	d = opendir(p);
	while (d && (e = readdir(d))) {
		size_t o = strlen(list);

		if (e->d_name[0] == '.')
			continue;
		snprintf(list + o, len - o, "%s%s%s%s%s", o ? ", " : "", e->d_name, mine ? "" : " (on ", mine ? "" : name,
			 mine ? "" : ")");
	}
	if (d)
		closedir(d);
}

/* Is the device `me`, a partition on it, or its disk `parent`, held by
 * another driver? 1 with what naming the holders. */
static int held(const char *me, const char *parent, char *what, size_t what_len)
{
	char list[512] = "", p[512];
	struct dirent *e;
	DIR *d;

	held_by(me, 1, list, sizeof(list));
	if (parent[0])
		held_by(parent, 0, list, sizeof(list));
	snprintf(p, sizeof(p), "/sys/class/block/%s", me);
	d = opendir(p);
	while (d && (e = readdir(d))) {
		snprintf(p, sizeof(p), "/sys/class/block/%s/%s/partition", me, e->d_name);
		if (e->d_name[0] != '.' && access(p, F_OK) == 0)
			held_by(e->d_name, 0, list, sizeof(list));
	}
	if (d)
		closedir(d);
	if (!list[0])
		return 0;
	snprintf(what, what_len, "it is held by %s (device-mapper, RAID or another driver uses it)", list);
	return 1;
}

/* Is the disk `me` or a partition on it mounted or swapped on? */
static int mounted(const char *me, char *what, size_t what_len)
{
	char name[64], line[4096];
	FILE *f;
	int used = 0;

	f = fopen("/proc/self/mountinfo", "re");
	while (f && !used && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		char mnt[1024];

		/* id parent maj:min root mountpoint ... */
		if (sscanf(line, "%*u %*u %u:%u %*s %1023s", &maj, &min, mnt) == 3 && maj &&
		    on_disk(maj, min, me, name, sizeof(name))) {
			snprintf(what, what_len, "%s is mounted on %s", name, mnt);
			used = 1;
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/swaps", "re");
	while (f && !used && fgets(line, sizeof(line), f)) {
		char dev[1024];
		struct stat ss;

		if (sscanf(line, "%1023s", dev) == 1 && stat(dev, &ss) == 0 && S_ISBLK(ss.st_mode) &&
		    on_disk(major(ss.st_rdev), minor(ss.st_rdev), me, name, sizeof(name))) {
			snprintf(what, what_len, "%s is in use as swap", name);
			used = 1;
		}
	}
	if (f)
		fclose(f);
	return used;
}

int claims_device_in_use(dev_t rdev, char *what, size_t what_len)
{
	struct stat st = { .st_rdev = rdev };
	struct loop_match m = { .fn = match_block, .st = &st };

	if (claims_sysfs_names(major(rdev), minor(rdev), m.me, sizeof(m.me), m.parent, sizeof(m.parent)) < 0) {
		snprintf(what, what_len, "it cannot be told whether it, or a partition on it, is mounted or held "
			 "(/sys/dev/block/%u:%u cannot be read: %s)", major(rdev), minor(rdev), strerror(errno));
		return 1;
	}
	if (mounted(m.me, what, what_len) || held(m.me, m.parent, what, what_len))
		return 1;
	return loop_scan(&m, "backing device", what, what_len);
}
