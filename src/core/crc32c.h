/* crc32c.h - crc32c (Castagnoli), as iSCSI, ext4 and btrfs use it.
 *
 * crc32c() takes the CPU's instruction where there is one: SSE4.2's crc32
 * on x86-64 (chosen at start-up, so the build needs no -march), ARMv8's
 * crc32c on aarch64 when the compiler targets it (__ARM_FEATURE_CRC32, e.g.
 * -march=armv8-a+crc); anywhere else, or built with -DIOMOON_NO_CRC_INSN,
 * a portable table (slicing by 8). Every path gives the same value.
 */
#ifndef IOMOON_CRC32C_H
#define IOMOON_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* crc32c of buf, continuing from crc (0 to start): crc32c(crc32c(0, a), b)
 * is the crc32c of a followed by b. */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

/* Two crc32c at once, each continuing from its value as crc32c() does:
 * *a over len bytes at pa, *b over len bytes at pb. The instruction's
 * latency, not its throughput, bounds one chain: two run in the time of
 * one (verify.c: each sector's crc beside the unit's). */
void crc32c_pair(uint32_t *a, const void *pa, uint32_t *b, const void *pb, size_t len);

/* The same, always by the portable table (for tests). */
uint32_t crc32c_soft(uint32_t crc, const void *buf, size_t len);

/* Which path crc32c() takes: "sse4.2", "armv8-crc" or "table". */
const char *crc32c_impl(void);

#endif
