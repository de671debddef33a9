/* devid.h - a stable identity of a block device, for its verification
 * state (genmap.h).
 *
 * A block device's state is named for its number (blockdev-MAJ-MIN), but
 * numbers and names move: /dev/sdb is another disk after a reboot that
 * probed in another order, and /dev/loop0 is whatever file was attached
 * last. So the state also records what the kernel says the device is
 * (sysfs, /sys/dev/block/MAJ:MIN): a loop device's backing file and that
 * file's identity (st_dev, st_ino, birth time); else the disk's WWID
 * (device/wwid, wwid); else its serial (serial, device/serial); else a
 * device-mapper device's uuid (dm/uuid). A partition is its disk's
 * identity, its number and where it starts. A device with none of them
 * (a RAM disk, zram) is known by its number and size only, as before.
 */
#ifndef IOMOON_DEVID_H
#define IOMOON_DEVID_H

#include <stddef.h>
#include <stdint.h>

/* The identity of block device maj:min: a 64-bit digest of it (never 0),
 * and into desc (len bytes) the identity in words ("loop device over
 * /x/a.img (inode 12 on 8:1)", "disk wwid naa.5000..."); 0 and "" when
 * the kernel gives none. */
uint64_t devid_of(unsigned maj, unsigned min, char *desc, size_t len);

struct gen_map;
/* The state at the name of m's target (path) is of another device, or
 * of another file on its inode (m->other): why, naming both. */
void devid_refusal(const char *path, const struct gen_map *m, char *why, size_t why_len);

#endif
