/* discard.h - trims: whether a target can discard, and one discard done
 * with a system call (where an engine has no asynchronous way). */
#ifndef IOMOON_DISCARD_H
#define IOMOON_DISCARD_H

#include <stddef.h>
#include <stdint.h>

#include "io/target.h"

/* Can t discard ranges? A block device whose queue says so
 * (discard_max_bytes above 0), or a file on a file system known to punch
 * holes (ext4, xfs, btrfs, tmpfs, f2fs; by statfs, which changes nothing:
 * a probe by fallocate would change the file's times). RC_OK, or RC_INPUT
 * with why. */
int target_can_trim(const struct target *t, char *why, size_t why_len);

/* Discard [off, off + len) of fd: BLKDISCARD on a block device,
 * fallocate(PUNCH_HOLE | KEEP_SIZE) on a file. 0 or -errno. */
int discard_range(int fd, int block, uint64_t off, uint64_t len);

#endif
