/* test_crc32c.c - crc32c against published values, and every path
 * (the CPU's instruction, the slicing-by-8 table, a bit-at-a-time
 * reference written here) agreeing on random buffers of every length up
 * to 1 KiB and many longer, at every alignment from 0 to 15. Built with
 * -DIOMOON_NO_CRC_INSN it checks that the table is the path taken. */
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/rng.h"
#include "tap.h"

/* The definition, one bit at a time: the reference for the others. */
static uint32_t crc_bits(uint32_t crc, const unsigned char *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return ~crc;
}

/* RFC 3720 B.4 and the usual check value, by both paths */
static void test_known(void)
{
	unsigned char b[32];
	int both;

	ok(crc32c(0, "123456789", 9) == 0xe3069283u && crc32c_soft(0, "123456789", 9) == 0xe3069283u,
	   "crc32c(\"123456789\") is 0xe3069283 by %s and by the table", crc32c_impl());
	ok(crc32c(0, "", 0) == 0 && crc32c_soft(0, "", 0) == 0 && crc32c(0x12345678, "", 0) == 0x12345678,
	   "no bytes: the crc given back");
	memset(b, 0, 32);
	both = crc32c(0, b, 32) == 0x8a9136aau && crc32c_soft(0, b, 32) == 0x8a9136aau;
	ok(both, "32 zero bytes: 0x8a9136aa");
	memset(b, 0xff, 32);
	both = crc32c(0, b, 32) == 0x62a8ab43u && crc32c_soft(0, b, 32) == 0x62a8ab43u;
	ok(both, "32 0xff bytes: 0x62a8ab43");
	for (int i = 0; i < 32; i++)
		b[i] = (unsigned char)i;
	both = crc32c(0, b, 32) == 0x46dd794eu && crc32c_soft(0, b, 32) == 0x46dd794eu;
	ok(both, "bytes 0..31: 0x46dd794e");
	for (int i = 0; i < 32; i++)
		b[i] = (unsigned char)(31 - i);
	both = crc32c(0, b, 32) == 0x113fdb5cu && crc32c_soft(0, b, 32) == 0x113fdb5cu;
	ok(both, "bytes 31..0: 0x113fdb5c");
}

/* The path crc32c() takes is the one this CPU and build allow. */
static void test_impl(void)
{
	const char *want = "table";

#if defined(__x86_64__) && !defined(IOMOON_NO_CRC_INSN)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("sse4.2"))
		want = "sse4.2";
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32) && !defined(IOMOON_NO_CRC_INSN)
	want = "armv8-crc";
#endif
	ok(!strcmp(crc32c_impl(), want), "crc32c takes the %s path (expected %s)", crc32c_impl(), want);
}

/* Every length to 1 KiB and many to 64 KiB, at alignments 0..15. */
static void test_agree(void)
{
	static unsigned char buf[65536 + 16];
	struct rng r;
	int same = 1, ref = 1, split = 1;
	size_t n = 0;

	rng_seed(&r, 20261130, 3);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rng_next(&r);
	for (size_t len = 0; len <= 65536; len += len < 1024 ? 1 : 1 + (rng_next(&r) % 4096)) {
		for (size_t a = 0; a < 16; a++, n++) {
			const unsigned char *p = buf + a;
			uint32_t seed = a & 1 ? (uint32_t)rng_next(&r) : 0, h = crc32c(seed, p, len);
			size_t cut = len ? (size_t)(rng_next(&r) % (len + 1)) : 0;

			same = same && h == crc32c_soft(seed, p, len);
			if (len <= 4096 || a == 0)
				ref = ref && h == crc_bits(seed, p, len);
			split = split && h == crc32c(crc32c(seed, p, cut), p + cut, len - cut) &&
				h == crc32c_soft(crc32c_soft(seed, p, cut), p + cut, len - cut);
		}
	}
	ok(same, "%s and the table agree on %zu random buffers (lengths 0..65536, alignments 0..15)", crc32c_impl(), n);
	ok(ref, "both agree with a bit-at-a-time crc32c");
	ok(split, "continuing over a random split equals one pass, on both paths");
}

/* crc32c_pair: two chains at once, each as crc32c alone gives it. */
static void test_pair(void)
{
	static unsigned char buf[8192 + 16];
	struct rng r;
	int same = 1;

	rng_seed(&r, 20261207, 5);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rng_next(&r);
	for (size_t len = 0; len <= 4096; len += 1 + len / 8)
		for (size_t a = 0; a < 16; a += 3) {
			uint32_t x = (uint32_t)rng_next(&r), y = a & 1 ? 0 : (uint32_t)rng_next(&r);
			const uint32_t wx = crc32c(x, buf + a, len), wy = crc32c(y, buf + 4096 + a / 2, len);

			crc32c_pair(&x, buf + a, &y, buf + 4096 + a / 2, len);
			same = same && x == wx && y == wy;
		}
	ok(same, "crc32c_pair gives each chain what crc32c gives it, at every length and alignment");
}

int main(void)
{
	test_known();
	test_impl();
	test_agree();
	test_pair();
	return tap_done();
}
