/* fill.h - the data a file is filled with, reproducible from where it lies.
 *
 * A target's fill (target.c, fill = true) is pseudo-random, so that no
 * storage compresses or deduplicates it, but it is not drawn from a
 * running generator: each 8-byte word is a function of the file's key and
 * the word's byte offset,
 *
 *     word at offset o (o a multiple of 8) = mix(key + (o / 8 + 1) * GAMMA)
 *
 * with splitmix64's GAMMA and mix (rng.h), stored little-endian. The key is
 * drawn from the file's identity, the one its verification state is named
 * and checked by (device, inode, birth time: genmap.h), so two files never
 * hold the same data and a later process can compute, for any unit of a
 * file, what the fill put there. That is what lets a verifying read tell a
 * unit that was never written (it holds the fill, or zeros: a hole, a
 * fill = "zero", a trim) from one someone else wrote (verify_read.h).
 *
 * The format is fixed: files filled by this version must verify in later
 * ones (tests/unit/test_fill.c pins the values).
 */
#ifndef IOMOON_FILL_H
#define IOMOON_FILL_H

#include <stddef.h>
#include <stdint.h>

/* The unit a fill is judged in: each 512-byte sector of a never-written
 * unit is either the fill or zeros (holes are whole sectors). */
#define FILL_SECTOR 512u

/* The key of a file's fill, from its identity: st_dev, st_ino and birth
 * time in ns (0 where the filesystem keeps none), as genmap.c identifies it. */
uint64_t fill_key(uint64_t dev, uint64_t ino, uint64_t btime_ns);
/* The key of the file open at fd (statx: its device, inode and birth
 * time). 0, or -1 with errno. */
int fill_key_fd(int fd, uint64_t *key);

/* Write the fill of len bytes at byte offset `offset` (a multiple of 8)
 * into buf. A len not a multiple of 8 ends with the first bytes of the
 * next word. */
void fill_data(void *buf, size_t len, uint64_t key, uint64_t offset);

/* Is buf (len bytes read at offset, both whole sectors) blank: every
 * sector of it either all zeros or exactly the fill at its offset? 1 if
 * so; else 0, with *at the offset of the first word that is neither, *want
 * the fill's word there and *got what was read (little-endian). */
int fill_blank(const void *buf, size_t len, uint64_t key, uint64_t offset, uint64_t *at, uint64_t *want,
	       uint64_t *got);

#endif
