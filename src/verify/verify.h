/* verify.h - block verification for burn-in: headers and crc32c.
 *
 * With verify = "crc32c" every unit of a write (4 KiB, or 512 bytes when
 * the phase's sizes and offsets are not whole 4 KiB) starts with a 32-byte
 * header: magic, crc32c of the unit, the unit's own offset, the write's
 * generation, the phase's seed, the writing worker and the unit's size. A
 * read checks them and tells apart:
 *   missing      no header where the generation map (genmap.h) says one
 *                was written (a zeroed or never-written unit)
 *   corrupt      a header, but the checksum does not match
 *   misdirected  the unit is intact but belongs to another offset
 *   lost write   intact and in place, but older than the last write iomoon
 *                completed there (the map keeps a generation per unit)
 *   foreign      intact and in place, but written for another target (the
 *                seed field holds the target's id, kept in its state)
 *   unexpected   a unit the map says was never written holds neither the
 *                fill nor zeros, or an intact header (verify_read.h)
 * Every 512-byte sector of a unit after its first starts with a tag: the
 * write's generation and the sector's own offset (xor VERIFY_TAG_KEY), so
 * that a unit whose sectors come from two writes (a write torn by a power
 * cut) can be told from a corrupt one (crash.h). Each sector of a unit of
 * more than one also carries a crc32c of its own (after the header in the
 * first, after the tag in the others; the field and the header's crc
 * taken as 0): a sector whose tag is intact but whose bytes are not the
 * ones its write put there is corrupt, not half of a tear.
 */
#ifndef IOMOON_VERIFY_H
#define IOMOON_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "core/crc32c.h"

#define VERIFY_MAGIC 0x564d4f49u /* "IOMV" */
#define VERIFY_HDR 32u
#define VERIFY_TAG_KEY 0x7461675f766d6f69ull /* "iomv_tag" */
/* where a sector's own crc32c lies: in the first sector, after the
 * header; in the others, after the tag (units of more than one sector) */
#define VERIFY_SCRC_FIRST VERIFY_HDR
#define VERIFY_SCRC_TAGGED 16u

/* pseudo-errnos for verification failures, counted like errnos */
#define VERR_CORRUPT 100001
#define VERR_MISDIRECTED 100002
#define VERR_LOST 100003
#define VERR_MISSING 100004
#define VERR_FOREIGN 100005
/* unexpected: data in a unit the map says was never written that is not
 * blank (the fill or zeros, fill.h); _HDR: an intact header there (a
 * writer the map does not know of). Both are named "unexpected"
 * (verify_read.h judges them). */
#define VERR_UNEXPECTED 100006
#define VERR_UNEXPECTED_HDR 100007
/* after_crash (crash.h): a unit lost the write a flush made durable; a
 * unit holds sectors of two writes (an error only with atomic = true) */
#define VERR_LOST_DURABLE 100008
#define VERR_TORN 100009
/* after_crash: a unit made durable lies past the end of a target cut
 * short (named lost_durable too) */
#define VERR_LOST_CUT 100010

struct verify_hdr {
	uint32_t magic;
	uint32_t crc;       /* crc32c of the whole unit with this field 0 */
	uint64_t offset;
	uint64_t generation;
	uint32_t seed;
	uint16_t worker;
	uint16_t unit_sectors;
};

/* Stamp a header into every unit of buf (len bytes at offset). */
void verify_stamp(void *buf, uint32_t len, uint64_t offset, uint32_t unit, uint64_t gen, uint32_t seed,
		  uint16_t worker);

/* Check the units of buf (len bytes read at offset) from byte `from` on;
 * gens[i] is the generation last written at unit i of the target (0:
 * none), gens NULL when there is no map. A unit without a header is
 * missing when its generation is not 0, or when `strict` (the map does not
 * say what was written: every unit must hold a header). 0 when all is
 * well, else a VERR_* with the offset, expected and found values of the
 * first bad unit. */
int verify_check(const void *buf, uint32_t len, uint64_t offset, uint32_t from, uint32_t unit,
		 const uint64_t *gens, uint64_t ngens, int strict, uint64_t *bad_offset, uint64_t *expected,
		 uint64_t *found);
/* The same, and a unit the map says was written must carry tid in its
 * seed field (VERR_FOREIGN if not). */
int verify_check_id(const void *buf, uint32_t len, uint64_t offset, uint32_t from, uint32_t unit,
		    const uint64_t *gens, uint64_t ngens, int strict, uint32_t tid, uint64_t *bad_offset,
		    uint64_t *expected, uint64_t *found);

/* Does sector k of a unit (512 bytes at s) hold the bytes its write put
 * there: its own crc32c (verify.h) matches? */
int verify_sector_ok(const unsigned char *s, uint32_t k);

/* A verification failure as a sentence: what was read, which unit, what
 * was expected and what was found. */
void verify_message(char *buf, size_t len, int err, uint32_t io_len, uint64_t io_offset, uint64_t unit_offset,
		    uint64_t expected, uint64_t found);

/* The name ("corrupt", ...) of a VERR_*, or NULL. */
const char *verify_err_name(int err);

#endif
