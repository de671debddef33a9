/* verify.c - the per-unit headers of verify.h, checked with crc32c
 * (crc32c.c). */
#include "verify/verify.h"

#include <stdio.h>
#include <string.h>

/* The crc32c of sector k of a unit: its bytes with its own crc field
 * (and, in the first, the unit's crc) taken as 0. */
static uint32_t sector_crc(const unsigned char *s, uint32_t k)
{
	unsigned char head[VERIFY_SCRC_FIRST + 4];
	uint32_t at = k ? VERIFY_SCRC_TAGGED : VERIFY_SCRC_FIRST;

	memcpy(head, s, at + 4);
	memset(head + at, 0, 4);
	if (!k)
		memset(head + offsetof(struct verify_hdr, crc), 0, sizeof(uint32_t));
	return crc32c(crc32c(0, head, at + 4), s + at + 4, 512 - at - 4);
}

int verify_sector_ok(const unsigned char *s, uint32_t k)
{
	uint32_t c;

	memcpy(&c, s + (k ? VERIFY_SCRC_TAGGED : VERIFY_SCRC_FIRST), sizeof(c));
	return c == sector_crc(s, k);
}

/* The sectors' own crcs of unit u (more than one sector, its header and
 * tags in place, its crc field 0), stored; returns the unit's crc32c. One
 * pass: sector k's crc runs beside the unit's over sector k-1, whose own
 * crc is in place by then (two chains of the instruction in the time of
 * one, crc32c_pair). */
static uint32_t stamp_sectors(unsigned char *u, uint32_t unit)
{
	uint32_t whole = 0;

	for (uint32_t k = 0; k < unit / 512; k++) {
		unsigned char *s = u + 512u * k, head[VERIFY_SCRC_FIRST + 4];
		const uint32_t at = k ? VERIFY_SCRC_TAGGED : VERIFY_SCRC_FIRST, rest = 512 - at - 4;
		uint32_t c;

		memcpy(head, s, at + 4);
		memset(head + at, 0, 4); /* as sector_crc takes it (the unit's crc field is 0 already) */
		c = crc32c(0, head, at + 4);
		if (!k) {
			c = crc32c(c, s + at + 4, rest);
		} else {
			whole = crc32c(whole, s - 512, 512 - rest);
			crc32c_pair(&c, s + at + 4, &whole, s - rest, rest);
		}
		memcpy(s + at, &c, sizeof(c));
	}
	return crc32c(whole, u + unit - 512, 512);
}

void verify_stamp(void *buf, uint32_t len, uint64_t offset, uint32_t unit, uint64_t gen, uint32_t seed,
		  uint16_t worker)
{
	for (uint32_t o = 0; o + unit <= len; o += unit) {
		unsigned char *u = (unsigned char *)buf + o;
		struct verify_hdr h = { .magic = VERIFY_MAGIC, .crc = 0, .offset = offset + o, .generation = gen,
					.seed = seed, .worker = worker, .unit_sectors = (uint16_t)(unit / 512) };

		memcpy(u, &h, sizeof(h));
		for (uint32_t k = 512; k < unit; k += 512) { /* each later sector's tag (verify.h) */
			const uint64_t tag[2] = { gen, (offset + o + k) ^ VERIFY_TAG_KEY };

			memcpy(u + k, tag, sizeof(tag));
		}
		/* each sector's own crc (verify.h), and the unit's */
		h.crc = unit > 512 ? stamp_sectors(u, unit) : crc32c(0, u, unit);
		memcpy(u + offsetof(struct verify_hdr, crc), &h.crc, sizeof(h.crc));
	}
}

int verify_check(const void *buf, uint32_t len, uint64_t offset, uint32_t from, uint32_t unit,
		 const uint64_t *gens, uint64_t ngens, int strict, uint64_t *bad_offset, uint64_t *expected,
		 uint64_t *found)
{
	return verify_check_id(buf, len, offset, from, unit, gens, ngens, strict, 0, bad_offset, expected, found);
}

/* tid 0: any (the seed of a unit written with no map) */
int verify_check_id(const void *buf, uint32_t len, uint64_t offset, uint32_t from, uint32_t unit,
		    const uint64_t *gens, uint64_t ngens, int strict, uint32_t tid, uint64_t *bad_offset,
		    uint64_t *expected, uint64_t *found)
{
	for (uint32_t o = from; o + unit <= len; o += unit) {
		const unsigned char *u = (const unsigned char *)buf + o;
		uint64_t at = offset + o, idx = at / unit, last = idx < ngens && gens ? gens[idx] : 0;
		struct verify_hdr h;
		uint32_t want;
		unsigned char copy[VERIFY_HDR];

		memcpy(&h, u, sizeof(h));
		*bad_offset = at;
		if (h.magic != VERIFY_MAGIC) {
			if (!last && !strict)
				continue; /* never written with headers: nothing to check */
			*expected = VERIFY_MAGIC;
			*found = h.magic;
			return VERR_MISSING;
		}
		/* crc of the unit with its crc field zeroed */
		memcpy(copy, u, VERIFY_HDR);
		memset(copy + offsetof(struct verify_hdr, crc), 0, sizeof(h.crc));
		want = crc32c(crc32c(0, copy, VERIFY_HDR), u + VERIFY_HDR, unit - VERIFY_HDR);
		/* crc32c(0, a) then continuing over b equals crc32c over a|b */
		if (want != h.crc) {
			*expected = h.crc;
			*found = want;
			return VERR_CORRUPT;
		}
		if (h.offset != at) {
			*expected = at;
			*found = h.offset;
			return VERR_MISDIRECTED;
		}
		if (last && tid && h.seed != tid) {
			*expected = tid;
			*found = h.seed;
			return VERR_FOREIGN;
		}
		if (last && h.generation < last) {
			*expected = last;
			*found = h.generation;
			return VERR_LOST;
		}
	}
	return 0;
}

void verify_message(char *buf, size_t len, int err, uint32_t io_len, uint64_t io_offset, uint64_t unit_offset,
		    uint64_t expected, uint64_t found)
{
	int n = err == VERR_LOST_CUT ? 0 /* nothing was read there */
		: snprintf(buf, len, "read of %u bytes at offset %llu: ", io_len, (unsigned long long)io_offset);
	unsigned long long u = unit_offset, e = expected, f = found;

	if (n < 0 || (size_t)n >= len)
		return;
	buf += n;
	len -= (size_t)n;
	switch (err) {
	case VERR_MISSING:
		snprintf(buf, len, "missing: no header at offset %llu (expected magic 0x%08llx, found 0x%08llx)", u, e, f);
		break;
	case VERR_CORRUPT:
		snprintf(buf, len, "corrupt: the unit at %llu fails its check (crc32c stored 0x%08llx, computed 0x%08llx)",
			 u, e, f);
		break;
	case VERR_MISDIRECTED:
		snprintf(buf, len, "misdirected: the unit at %llu holds the data written for offset %llu", u, f);
		break;
	case VERR_LOST:
		snprintf(buf, len, "lost write: the unit at %llu holds generation %llu, but generation %llu was "
			 "written there last", u, f, e);
		break;
	case VERR_FOREIGN:
		snprintf(buf, len, "foreign: the unit at %llu was written for another target (its id 0x%08llx, this "
			 "target's 0x%08llx)", u, f, e);
		break;
	case VERR_UNEXPECTED:
		snprintf(buf, len, "unexpected: the unit at %llu was never written with verification, yet holds neither "
			 "zeros nor this file's fill (a word 0x%016llx where the fill has 0x%016llx): data from another "
			 "program, an earlier iomoon's fill or a write without verification (skip_unwritten = true leaves "
			 "never-written units unread)", u, f, e);
		break;
	case VERR_UNEXPECTED_HDR:
		snprintf(buf, len, "unexpected: the unit at %llu holds an intact iomoon header of generation %llu, but "
			 "the state says it was never written with verification: a writer this state does not know of "
			 "(another process or host, or a state deleted since)", u, f);
		break;
	case VERR_LOST_DURABLE:
		snprintf(buf, len, "lost durable write: the unit at %llu holds generation %llu, but generation %llu was "
			 "written there and made durable by a completed flush (0: no data of this target)", u, f, e);
		break;
	case VERR_LOST_CUT:
		snprintf(buf, len, "lost durable write: the unit at %llu lies %s the end of the target, cut short to %llu "
			 "bytes, but generation %llu was written there and made durable by a completed flush", u,
			 f > u ? "across" : "past", f, e);
		break;
	case VERR_TORN:
		snprintf(buf, len, "torn: the unit at %llu holds sectors of two writes (generations %llu and %llu), and "
			 "atomic = true", u, f, e);
		break;
	default:
		snprintf(buf, len, "verification error %d", err);
	}
}

const char *verify_err_name(int err)
{
	switch (err) {
	case VERR_CORRUPT: return "corrupt";
	case VERR_MISDIRECTED: return "misdirected";
	case VERR_LOST: return "lost_write";
	case VERR_MISSING: return "missing";
	case VERR_FOREIGN: return "foreign";
	case VERR_UNEXPECTED:
	case VERR_UNEXPECTED_HDR: return "unexpected";
	case VERR_LOST_DURABLE:
	case VERR_LOST_CUT: return "lost_durable";
	case VERR_TORN: return "torn";
	default: return NULL;
	}
}
