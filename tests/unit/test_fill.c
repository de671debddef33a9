/* test_fill.c - the fill's data (fill.h) against its definition and
 * pinned values, the blank test, and verify_read (verify_read.h) telling
 * never-written units apart: blank, unexpected data, an unexpected header,
 * skipped. */
#include <stdlib.h>
#include <string.h>

#include "io/fill.h"
#include "tap.h"
#include "verify/genmap.h"
#include "verify/verify.h"
#include "verify/verify_read.h"

#define GAMMA 0x9e3779b97f4a7c15ull

/* The definition in fill.h, written out again: word at byte offset o is
 * splitmix64's mix of key + (o / 8 + 1) * GAMMA. */
static uint64_t ref_word(uint64_t key, uint64_t o)
{
	uint64_t z = key + (o / 8 + 1) * GAMMA;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t word(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--) /* little-endian, whatever this CPU is */
		v = v << 8 | p[i];
	return v;
}

static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_data(void)
{
	static unsigned char a[1 << 20] __attribute__((aligned(4096))), b[8192] __attribute__((aligned(4096)));
	static uint64_t w[(1 << 20) / 8];
	const uint64_t key = fill_key(0x801, 12, 1700000000123456789ull);
	int same = 1, dup = 0;
	uint64_t ones = 0;

	ok(key == 0xcf1bde1509a7ba06ull, "fill_key(dev 8:1, ino 12, btime) is pinned: 0x%016llx", (unsigned long long)key);
	ok(fill_key(0x801, 13, 1700000000123456789ull) != key && fill_key(0x802, 12, 1700000000123456789ull) != key &&
	   fill_key(0x801, 12, 1700000000123456788ull) != key, "another inode, device or birth time: another key");
	fill_data(a, sizeof(a), key, 0);
	ok(word(a) == 0x7d55ff02f6adfccdull && word(a + 4096) == 0x8a5ebf54052458fcull,
	   "the words at 0 and 4096 are pinned: 0x%016llx 0x%016llx", (unsigned long long)word(a),
	   (unsigned long long)word(a + 4096));
	for (size_t o = 0; o < sizeof(a); o += 8)
		same = same && word(a + o) == ref_word(key, o);
	ok(same, "every word of 1 MiB is mix(key + (offset / 8 + 1) * GAMMA), little-endian");
	fill_data(b, 4096, key, 4096);
	ok(!memcmp(b, a + 4096, 4096), "a fill from offset 4096 on is the same data as there in a fill from 0");
	memset(b, 0xee, sizeof(b));
	fill_data(b, 13, key, 8);
	ok(!memcmp(b, a + 8, 13) && b[13] == 0xee, "13 bytes at 8: the fill's 13 bytes there, nothing past them");
	for (size_t i = 0; i < sizeof(w) / 8; i++) {
		w[i] = word(a + 8 * i);
		ones += (uint64_t)__builtin_popcountll(w[i]);
	}
	qsort(w, sizeof(w) / 8, 8, cmp64);
	for (size_t i = 1; i < sizeof(w) / 8; i++)
		dup += w[i] == w[i - 1];
	ok(dup == 0, "no two of its 131072 words are the same (nothing to deduplicate)");
	ok(ones > sizeof(a) * 8 / 2 - 4000 && ones < sizeof(a) * 8 / 2 + 4000,
	   "half its bits are ones (%llu of %zu: random to a compressor)", (unsigned long long)ones, sizeof(a) * 8);
}

static void test_blank(void)
{
	static unsigned char u[8192] __attribute__((aligned(4096)));
	const uint64_t key = fill_key(1, 2, 3);
	uint64_t at = 0, want = 0, got = 0;

	fill_data(u, sizeof(u), key, 40960);
	ok(fill_blank(u, sizeof(u), key, 40960, &at, &want, &got), "the fill at its offset is blank");
	ok(!fill_blank(u, sizeof(u), key, 40960 + 512, &at, &want, &got) && at == 40960 + 512,
	   "the same data judged a sector further on is not");
	ok(!fill_blank(u, sizeof(u), fill_key(1, 2, 4), 40960, &at, &want, &got) && at == 40960,
	   "nor is another file's fill");
	memset(u + 1024, 0, 512);
	memset(u + 4096, 0, 4096);
	ok(fill_blank(u, sizeof(u), key, 40960, &at, &want, &got), "sectors of zeros among the fill: blank (holes)");
	memset(u, 0, sizeof(u));
	ok(fill_blank(u, sizeof(u), key, 0, &at, &want, &got), "all zeros: blank");
	fill_data(u, sizeof(u), key, 40960);
	u[3000] ^= 0x10;
	ok(!fill_blank(u, sizeof(u), key, 40960, &at, &want, &got) && at == 40960 + 3000 &&
	   want == ref_word(key, 40960 + 3000) && got == (want ^ 0x10) && got == word(u + 3000),
	   "one flipped bit: not blank, at its word, with the fill's word and the one read");
	memset(u + 4096, 0, 256);
	fill_data(u, 4096, key, 40960);
	ok(!fill_blank(u, sizeof(u), key, 40960, &at, &want, &got) && at == 40960 + 4096,
	   "half a sector zeroed, half the fill: not blank (holes are whole sectors)");
}

/* A map of 8 units of 4 KiB whose generations are gens. */
static struct gen_map *map_of(const uint64_t *gens)
{
	struct gen_map *m = calloc(1, sizeof(*m) + 8 * sizeof(uint64_t));

	m->dev = 7;
	m->ino = 99;
	m->btime_ns = 5;
	m->unit = 4096;
	m->n = 8;
	m->tid = 0x1234;
	m->loaded = 1;
	memcpy(m->gens, gens, 8 * sizeof(uint64_t));
	return m;
}

static void test_read(void)
{
	static unsigned char b[4 * 4096] __attribute__((aligned(4096)));
	const uint64_t gens[8] = { 0, 0, 0, 0, 3, 0, 0, 0 };
	struct gen_map *m = map_of(gens);
	struct verify_view v;
	struct verify_counts c = { 0 };
	uint64_t at = 0, want = 0, got = 0, key = fill_key(7, 99, 5);
	int e;

	/* read at 16384: unit 4 written (gen 3), 5 the fill, 6 zeros, 7 garbage */
	verify_stamp(b, 4096, 4 * 4096, 4096, 3, 0x1234, 0);
	fill_data(b + 4096, 4096, key, 5 * 4096);
	memset(b + 2 * 4096, 0, 4096);
	memset(b + 3 * 4096, 0x5a, 4096);
	verify_view_init(&v, m, 4096, 0, 0);
	e = verify_read(&v, b, sizeof(b), 4 * 4096, 0, &c, &at, &want, &got);
	ok(e == VERR_UNEXPECTED && at == 7 * 4096 && got == 0x5a5a5a5a5a5a5a5aull && want == ref_word(key, 7 * 4096),
	   "garbage in a never-written unit: unexpected, at its unit, the word read and the fill's");
	ok(c.units_checked == 1 && c.units_unwritten == 2 && c.units_unexpected == 1 && c.units_skipped == 0,
	   "counted: 1 checked, 2 never written (the fill, zeros), 1 unexpected");
	ok(!strcmp(verify_err_name(e), "unexpected"), "named unexpected");
	memset(&c, 0, sizeof(c));
	verify_view_init(&v, m, 4096, 0, 1);
	e = verify_read(&v, b, sizeof(b), 4 * 4096, 0, &c, &at, &want, &got);
	ok(e == 0 && c.units_checked == 1 && c.units_skipped == 3 && c.units_unwritten == 0,
	   "skip_unwritten: the never-written units are skipped, unread, and the written one checked");
	verify_stamp(b + 3 * 4096, 4096, 7 * 4096, 4096, 9, 0x4321, 1);
	memset(&c, 0, sizeof(c));
	verify_view_init(&v, m, 4096, 0, 0);
	e = verify_read(&v, b, sizeof(b), 4 * 4096, 0, &c, &at, &want, &got);
	ok(e == VERR_UNEXPECTED_HDR && at == 7 * 4096 && got == 9 && !strcmp(verify_err_name(e), "unexpected"),
	   "an intact header of another id where the map says nothing was written: unexpected, with its generation");
	verify_stamp(b + 3 * 4096, 4096, 7 * 4096, 4096, 9, m->tid, 1);
	memset(&c, 0, sizeof(c));
	e = verify_read(&v, b, sizeof(b), 4 * 4096, 0, &c, &at, &want, &got);
	ok(e == 0 && c.units_checked == 1 && c.units_unwritten == 3 && c.units_unexpected == 0,
	   "one of this target's own id (a write whose state was never saved): counted as never written, no error");
	memset(&c, 0, sizeof(c));
	verify_view_init(&v, m, 4096, 1, 0);
	e = verify_read(&v, b, sizeof(b), 4 * 4096, 0, &c, &at, &want, &got);
	ok(e == VERR_MISSING && at == 5 * 4096 && c.units_checked == 2,
	   "strict (no map says what was written): every unit is checked against a header");
	memset(&c, 0, sizeof(c));
	verify_view_init(&v, NULL, 4096, 0, 0);
	e = verify_read(&v, b, sizeof(b), 4 * 4096, 0, &c, &at, &want, &got);
	ok(e == 0 && c.units_checked == 2 && c.units_skipped == 2,
	   "no map at all, a phase that writes: units with a header checked, the others skipped");
	m->gens[6] = 5;
	ok(verify_written_end(m) == 7 * 4096, "the written area ends after the highest unit written: 28672");
	memset(m->gens, 0, 8 * sizeof(uint64_t));
	ok(verify_written_end(m) == 0, "nothing written: 0");
	free(m);
}

int main(void)
{
	test_data();
	test_blank();
	test_read();
	return tap_done();
}
