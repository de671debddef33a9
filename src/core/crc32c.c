/* crc32c.c - crc32c by the CPU's instruction or by a table (crc32c.h).
 *
 * The table is slicing by 8: eight 256-entry tables, tab[k][b] the crc of
 * byte b followed by k zero bytes, so eight input bytes cost eight lookups
 * and no loop-carried dependency on each byte. Bytes are read one by one
 * (the compiler merges the loads), so it holds on any byte order. */
#include "core/crc32c.h"

#include <string.h>

#if defined(__x86_64__) && !defined(IOMOON_NO_CRC_INSN)
#define CRC_X86 1
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
	!defined(IOMOON_NO_CRC_INSN)
#define CRC_ARM 1
#include <arm_acle.h>
#endif

#define POLY 0x82f63b78u /* 0x1edc6f41 bit-reversed */

static uint32_t tab[8][256];
static int use_hw;

/* The tables, and the choice of implementation: once, before main. */
__attribute__((constructor)) static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
		tab[0][i] = c;
	}
	for (int k = 1; k < 8; k++)
		for (int i = 0; i < 256; i++)
			tab[k][i] = (tab[k - 1][i] >> 8) ^ tab[0][tab[k - 1][i] & 0xff];
#if defined(CRC_X86)
	__builtin_cpu_init();
	use_hw = __builtin_cpu_supports("sse4.2");
#elif defined(CRC_ARM)
	use_hw = 1; /* the compiler was told the CPU has it */
#endif
}

/* The table over p; crc is the running (inverted) register. */
static uint32_t crc_table(uint32_t crc, const unsigned char *p, size_t len)
{
	for (; len >= 8; len -= 8, p += 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);

		crc = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^ tab[5][(lo >> 16) & 0xff] ^
		      tab[4][lo >> 24] ^ tab[3][p[4]] ^ tab[2][p[5]] ^ tab[1][p[6]] ^ tab[0][p[7]];
	}
	while (len--)
		crc = tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(CRC_X86)
/* SSE4.2's crc32, eight bytes at a time (unaligned loads are fine). */
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc;

	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#elif defined(CRC_ARM)
/* ARMv8's crc32c, eight bytes at a time (little-endian: see CRC_ARM). */
static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		crc = __crc32cd(crc, v);
	}
	while (len--)
		crc = __crc32cb(crc, *p++);
	return crc;
}
#else
static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	return crc_table(crc, p, len);
}
#endif

#if defined(CRC_X86)
/* Two chains interleaved, eight bytes of each at a time. */
__attribute__((target("sse4.2"))) static void pair_hw(uint32_t *a, const unsigned char *p, uint32_t *b,
						       const unsigned char *q, size_t len)
{
	uint64_t x = ~*a, y = ~*b;

	for (; len >= 8; len -= 8, p += 8, q += 8) {
		uint64_t v, w;

		memcpy(&v, p, 8);
		memcpy(&w, q, 8);
		x = __builtin_ia32_crc32di(x, v);
		y = __builtin_ia32_crc32di(y, w);
	}
	*a = ~crc_hw((uint32_t)x, p, len);
	*b = ~crc_hw((uint32_t)y, q, len);
}
#endif

void crc32c_pair(uint32_t *a, const void *pa, uint32_t *b, const void *pb, size_t len)
{
#if defined(CRC_X86)
	if (use_hw) {
		pair_hw(a, pa, b, pb, len);
		return;
	}
#endif
	*a = crc32c(*a, pa, len);
	*b = crc32c(*b, pb, len);
}

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	crc = ~crc;
	crc = use_hw ? crc_hw(crc, buf, len) : crc_table(crc, buf, len);
	return ~crc;
}

uint32_t crc32c_soft(uint32_t crc, const void *buf, size_t len)
{
	return ~crc_table(~crc, buf, len);
}

const char *crc32c_impl(void)
{
#if defined(CRC_X86)
	return use_hw ? "sse4.2" : "table";
#elif defined(CRC_ARM)
	return "armv8-crc";
#else
	return "table";
#endif
}
