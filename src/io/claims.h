/* claims.h - is something else using a file or block device? Each check
 * returns 1 with `what` naming the claim ("it holds a ext4 signature",
 * "loop0 is mounted on /mnt", "it is the backing file of /dev/loop3"),
 * else 0. Nothing here writes.
 */
#ifndef IOMOON_CLAIMS_H
#define IOMOON_CLAIMS_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Is the block device rdev, or a partition on it, mounted or swapped on,
 * held by another driver (sysfs holders: device-mapper, md), or the
 * backing device of an attached loop device? Where sysfs cannot tell, that
 * is a claim too (what says so). */
int claims_device_in_use(dev_t rdev, char *what, size_t what_len);
/* Is the file st the backing file of an attached loop device? By device
 * and inode, never by name: /sys/block, else every /dev/loopN asked by
 * LOOP_GET_STATUS64; a loop device that cannot be asked is a claim. */
int claims_loop_backing(const struct stat *st, char *what, size_t what_len);
/* Does what fd reads (a device or a file) hold any filesystem, RAID or
 * partition-table signature (bad checksums included)? 0 only when the
 * probe positively found nothing; an ambivalent or failed probe is 1, and
 * what says so. */
int claims_signatures(int fd, char *what, size_t what_len);
/* The name under /sys/dev/block of device maj:min ("loop0", "loop0p1"),
 * and its parent's for a partition ("loop0"), or "" when it has none:
 * RC_OK, or RC_FAIL when sysfs does not know the device (rc.h). */
int claims_sysfs_names(unsigned maj, unsigned min, char *name, size_t nlen, char *parent, size_t plen);

#endif
