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

/* How a range is discarded: a file's hole punched, a block device's
 * BLKDISCARD, or its BLKSECDISCARD (a secure erase of the range: the
 * data is gone from the medium too, not only unmapped). */
enum discard_kind { DISCARD_PUNCH, DISCARD_BLOCK, DISCARD_SECURE };

/* Can t's trims be secure discards (trim_secure)? A local block device
 * that does secure erase, asked by a probe that cannot erase anything (a
 * range that starts at byte 1: the kernel checks support before the
 * range, and refuses the range with EINVAL). A device without
 * allow_write is not asked (RC_OK: the run refuses it as any write). RC_OK,
 * or RC_INPUT with why. */
int target_can_secure_trim(const struct target *t, char *why, size_t why_len);

/* Discard [off, off + len) of fd by `kind`. 0 or -errno. */
int discard_range(int fd, enum discard_kind kind, uint64_t off, uint64_t len);

#endif
