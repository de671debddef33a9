/* claims.c - is something else using a file or block device? A mount or
 * swap on the device (or a partition on it), a loop device over the file,
 * or a filesystem, RAID or partition-table signature on either.
 *
 * Signatures are libblkid's: every one it sees, listed as wipefs lists
 * them, and "nothing here" only when its safe probe positively says so;
 * an ambivalent result or a failed probe counts as a claim.
 */
#include "claims.h"

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

/* Is loop device `name` (attached) backed by the file st? By device and
 * inode: the name sysfs shows, then LOOP_GET_STATUS64 (which still knows a
 * backing file that was renamed, deleted or is named in another mount
 * namespace). */
static int loop_backs(const char *name, const struct stat *st)
{
	char p[320], back[4096];
	struct loop_info64 li;
	struct stat bs;
	FILE *f;
	int fd, hit = 0;

	snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", name);
	f = fopen(p, "re");
	if (!f)
		return 0; /* not attached */
	hit = fgets(back, sizeof(back), f) && (back[strcspn(back, "\n")] = 0, stat(back, &bs) == 0) &&
	      bs.st_dev == st->st_dev && bs.st_ino == st->st_ino;
	fclose(f);
	if (hit)
		return 1;
	snprintf(p, sizeof(p), "/dev/%s", name);
	fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
		/* lo_device is the kernel's "huge" encoding of the dev_t */
		unsigned maj = (unsigned)((li.lo_device & 0xfff00) >> 8);
		unsigned min = (unsigned)((li.lo_device & 0xff) | ((li.lo_device >> 12) & 0xfff00));

		hit = li.lo_inode == (uint64_t)st->st_ino && maj == major(st->st_dev) && min == minor(st->st_dev);
	}
	if (fd >= 0)
		close(fd);
	return hit;
}

int claims_loop_backing(const struct stat *st, char *what, size_t what_len)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d)))
		if (!strncmp(e->d_name, "loop", 4) && loop_backs(e->d_name, st)) {
			snprintf(what, what_len, "it is the backing file of /dev/%s", e->d_name);
			found = 1;
		}
	if (d)
		closedir(d);
	return found;
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
		return -1;
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
	return 0;
}

/* Is device maj:min the disk `me` or a partition on it? Its name to name. */
static int on_disk(unsigned maj, unsigned min, const char *me, char *name, size_t nlen)
{
	char parent[64];

	if (claims_sysfs_names(maj, min, name, nlen, parent, sizeof(parent)) < 0)
		return 0;
	return !strcmp(name, me) || !strcmp(parent, me);
}

int claims_device_in_use(dev_t rdev, char *what, size_t what_len)
{
	char me[64], mine_parent[64], name[64], line[4096];
	FILE *f;
	int used = 0;

	if (claims_sysfs_names(major(rdev), minor(rdev), me, sizeof(me), mine_parent, sizeof(mine_parent)) < 0)
		return 0;
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
