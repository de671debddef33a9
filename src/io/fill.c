/* fill.c - a file's fill data, computed from its key and offset, and the
 * test for a blank unit (fill.h). */
#include "io/fill.h"

#include <endian.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define GAMMA 0x9e3779b97f4a7c15ull

/* splitmix64's output function (rng.h's rng_splitmix64 after its add). */
static inline uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t fill_key(uint64_t dev, uint64_t ino, uint64_t btime_ns)
{
	uint64_t k = mix(0x696f6d6f6f6e2d66ull ^ dev); /* "iomoon-f" */

	k = mix(k + GAMMA + ino);
	return mix(k + GAMMA + btime_ns);
}

/* The identity as genmap.c's identify() takes it from a path. */
int fill_key_fd(int fd, uint64_t *key)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO | STATX_BTIME, &sx))
		return -1;
	*key = fill_key(makedev(sx.stx_dev_major, sx.stx_dev_minor), sx.stx_ino,
			sx.stx_mask & STATX_BTIME ? (uint64_t)sx.stx_btime.tv_sec * 1000000000ull + sx.stx_btime.tv_nsec
						  : 0);
	return 0;
}

/* The fill's word at byte offset o (a multiple of 8), as stored. */
static inline uint64_t word_at(uint64_t key, uint64_t o)
{
	return htole64(mix(key + (o / 8 + 1) * GAMMA));
}

void fill_data(void *buf, size_t len, uint64_t key, uint64_t offset)
{
	uint64_t *p = buf, x = key + (offset / 8) * GAMMA;
	size_t n = len / 8;

	for (size_t i = 0; i < n; i++) {
		x += GAMMA;
		p[i] = htole64(mix(x));
	}
	if (len % 8) {
		uint64_t w = word_at(key, offset + 8 * n);

		memcpy((char *)buf + 8 * n, &w, len % 8);
	}
}

/* Is the sector at s all zeros? */
static int sector_zero(const uint64_t *s)
{
	uint64_t any = 0;

	for (unsigned i = 0; i < FILL_SECTOR / 8; i++)
		any |= s[i];
	return !any;
}

/* The index of the first word of the sector at s (read at offset) that is
 * not the fill, or FILL_SECTOR / 8 when all are. */
static unsigned sector_fill_upto(const uint64_t *s, uint64_t key, uint64_t offset)
{
	uint64_t x = key + (offset / 8) * GAMMA;

	for (unsigned i = 0; i < FILL_SECTOR / 8; i++) {
		x += GAMMA;
		if (s[i] != htole64(mix(x)))
			return i;
	}
	return FILL_SECTOR / 8;
}

int fill_blank(const void *buf, size_t len, uint64_t key, uint64_t offset, uint64_t *at, uint64_t *want,
	       uint64_t *got)
{
	for (size_t o = 0; o + FILL_SECTOR <= len; o += FILL_SECTOR) {
		const uint64_t *s = (const uint64_t *)((const char *)buf + o);
		unsigned i;

		if (sector_zero(s))
			continue;
		i = sector_fill_upto(s, key, offset + o);
		if (i == FILL_SECTOR / 8)
			continue;
		*at = offset + o + 8ull * i;
		*want = le64toh(word_at(key, *at));
		*got = le64toh(s[i]);
		return 0;
	}
	return 1;
}
