/* test_verify.c - crc32c against known values, the CPU's instruction
 * against the table, and verify_check telling bad units apart. */
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "tap.h"
#include "verify/verify.h"

static void test_crc(void)
{
	static unsigned char buf[9000];
	struct rng r;
	int same = 1;

	ok(crc32c(0, "123456789", 9) == 0xe3069283u, "crc32c(\"123456789\") is 0xe3069283 (RFC 3720)");
	ok(crc32c_soft(0, "123456789", 9) == 0xe3069283u, "the table gives it too");
	memset(buf, 0, 32);
	ok(crc32c(0, buf, 32) == 0x8a9136aau, "32 zero bytes: 0x8a9136aa (RFC 3720)");
	rng_seed(&r, 42, 1);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rng_next(&r);
	for (size_t len = 0; len + 8 < sizeof(buf); len += 1 + len / 3) {
		const unsigned char *p = buf + (len & 7);
		uint32_t a = crc32c(0, p, len);

		same = same && a == crc32c_soft(0, p, len);
		/* continuing over a split equals one pass */
		same = same && a == crc32c(crc32c(0, p, len / 2), p + len / 2, len - len / 2);
	}
	ok(same, "instruction and table agree on every length and alignment, and across splits");
}

static void test_check(void)
{
	static unsigned char buf[4 * 4096];
	uint64_t gens[8] = { 0 }, at = 0, want = 0, got = 0;
	int e;

	memset(buf, 0xab, sizeof(buf));
	verify_stamp(buf, sizeof(buf), 4 * 4096, 4096, 7, 1, 0);
	for (int i = 4; i < 8; i++)
		gens[i] = 7;
	ok(verify_check(buf, sizeof(buf), 4 * 4096, 0, 4096, gens, 8, 0, &at, &want, &got) == 0, "stamped units check");
	gens[5] = 9;
	e = verify_check(buf, sizeof(buf), 4 * 4096, 0, 4096, gens, 8, 0, &at, &want, &got);
	ok(e == VERR_LOST && at == 5 * 4096 && want == 9 && got == 7, "an older generation: lost write at its unit");
	gens[5] = 7;
	buf[2 * 4096 + 100] ^= 1;
	e = verify_check(buf, sizeof(buf), 4 * 4096, 0, 4096, gens, 8, 0, &at, &want, &got);
	ok(e == VERR_CORRUPT && at == 6 * 4096, "a flipped bit: corrupt");
	memset(buf + 4096, 0, 4096);
	e = verify_check(buf, sizeof(buf), 4 * 4096, 0, 4096, gens, 8, 0, &at, &want, &got);
	ok(e == VERR_MISSING && at == 5 * 4096 && want == VERIFY_MAGIC && got == 0, "a zeroed unit written: missing");
	e = verify_check(buf, sizeof(buf), 4 * 4096, 2 * 4096, 4096, gens, 8, 0, &at, &want, &got);
	ok(e == VERR_CORRUPT && at == 6 * 4096, "checking from a later unit on skips the earlier");
	gens[5] = 0;
	e = verify_check(buf, 2 * 4096, 4 * 4096, 0, 4096, gens, 8, 0, &at, &want, &got);
	ok(e == 0, "a zeroed unit never written: skipped");
	e = verify_check(buf, 2 * 4096, 4 * 4096, 0, 4096, NULL, 0, 1, &at, &want, &got);
	ok(e == VERR_MISSING && at == 5 * 4096, "strict (no map): every unit needs a header");
	e = verify_check(buf, 4096, 0, 0, 4096, NULL, 0, 0, &at, &want, &got);
	ok(e == VERR_MISDIRECTED && want == 0 && got == 4 * 4096, "a unit read at another offset: misdirected");
}

/* each sector's own crc32c (verify.h): intact sectors pass, a changed
 * byte anywhere in one, its tag included, fails that sector alone */
static void test_sectors(void)
{
	static unsigned char u[4096];
	int all = 1, one = 1;

	memset(u, 0x5a, sizeof(u));
	verify_stamp(u, sizeof(u), 8192, 4096, 3, 1, 0);
	for (uint32_t k = 0; k < 8; k++)
		all = all && verify_sector_ok(u + 512 * k, k);
	ok(all, "every sector of a stamped unit holds its own crc32c");
	u[5 * 512 + 300] ^= 0x10;
	for (uint32_t k = 0; k < 8; k++)
		one = one && verify_sector_ok(u + 512 * k, k) == (k != 5);
	ok(one, "a flipped bit in sector 5's bytes fails sector 5 alone");
	u[5 * 512 + 300] ^= 0x10;
	u[6 * 512] ^= 1; /* its tag's generation */
	ok(!verify_sector_ok(u + 6 * 512, 6), "a changed generation in a sector's tag fails it");
	u[6 * 512] ^= 1;
	u[4] ^= 1; /* the unit's crc: not part of the first sector's own */
	ok(verify_sector_ok(u, 0), "the first sector's crc32c leaves the unit's crc out");
	u[40] ^= 1;
	ok(!verify_sector_ok(u, 0), "but covers the rest of the header sector");
}

/* The stamp in one pass (the sectors' crcs beside the unit's) holds what
 * the layout defines: each sector's crc32c of its bytes, its field taken
 * as 0, and the unit's of all of them (verify_check), for every unit size. */
static void test_stamp_sizes(void)
{
	static unsigned char b[65536 + 512];
	static uint64_t gens[((1u << 20) + 65536) / 512];
	uint64_t at, want, got;
	int good = 1;

	for (size_t i = 0; i < sizeof(gens) / sizeof(gens[0]); i++)
		gens[i] = 77;

	for (uint32_t unit = 512; unit <= 65536; unit *= 2) {
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)(i * 131 + unit);
		verify_stamp(b, unit * (65536 / unit), 1u << 20, unit, 77, 5, 1);
		for (uint32_t k = 0; unit > 512 && k < 65536 / 512; k++)
			good = good && verify_sector_ok(b + 512u * k, k % (unit / 512));
		good = good && verify_check(b, 65536, 1u << 20, 0, unit, gens, sizeof(gens) / sizeof(gens[0]), 1, &at, &want,
					    &got) == 0;
	}
	ok(good, "stamped in one pass: every sector's crc32c and every unit's check hold, units of 512 B to 64 KiB");
}

int main(void)
{
	test_crc();
	test_check();
	test_sectors();
	test_stamp_sizes();
	return tap_done();
}
