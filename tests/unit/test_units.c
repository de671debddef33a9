/* test_units.c - size and duration parsing: exact answers and clear refusals. */
#include <string.h>

#include "core/rc.h"
#include "core/units.h"
#include "tap.h"

static void size_is(const char *s, uint64_t want)
{
	char why[WHY_LEN] = "";
	uint64_t v = 0;
	int r = units_parse_size(s, &v, why, sizeof(why));

	ok(r == RC_OK && v == want, "size '%s' = %llu (got %llu%s%s)", s, (unsigned long long)want,
	   (unsigned long long)v, r ? ": " : "", why);
}

static void size_bad(const char *s, const char *needle)
{
	char why[WHY_LEN] = "";
	uint64_t v;
	int r = units_parse_size(s, &v, why, sizeof(why));

	ok(r == RC_INPUT && strstr(why, needle), "size '%s' refused: %s", s, why);
}

static void dur_is(const char *s, uint64_t want)
{
	char why[WHY_LEN] = "";
	uint64_t v = 0;
	int r = units_parse_duration(s, &v, why, sizeof(why));

	ok(r == RC_OK && v == want, "duration '%s' = %llu ns (got %llu%s%s)", s, (unsigned long long)want,
	   (unsigned long long)v, r ? ": " : "", why);
}

static void dur_bad(const char *s, const char *needle)
{
	char why[WHY_LEN] = "";
	uint64_t v;
	int r = units_parse_duration(s, &v, why, sizeof(why));

	ok(r == RC_INPUT && strstr(why, needle), "duration '%s' refused: %s", s, why);
}

int main(void)
{
	char out[64];

	size_is("0", 0);
	size_is("512", 512);
	size_is("4k", 4096);
	size_is("4K", 4096);
	size_is("4KiB", 4096);
	size_is("4kb", 4096);
	size_is("0.5k", 512);
	size_is("1.5m", 1572864);
	size_is("8g", 8ull << 30);
	size_is("2t", 2ull << 40);
	size_is("100b", 100);
	size_is(" 64k ", 65536);
	size_bad("", "not a size");
	size_bad("k", "not a size");
	size_bad("-4k", "not a size");
	size_bad("4x", "unknown unit");
	size_bad("4kk", "unknown unit");
	size_bad("0.3k", "whole number");
	size_bad("99999999e", "unknown unit");
	size_bad("20000p", "too large");

	dur_is("10", 10000000000ull);
	dur_is("1.5", 1500000000ull);
	dur_is("250ns", 250);
	dur_is("100us", 100000);
	dur_is("500ms", 500000000ull);
	dur_is("10s", 10000000000ull);
	dur_is("2m", 120000000000ull);
	dur_is("2min", 120000000000ull);
	dur_is("1h", 3600000000000ull);
	dur_is("0.5ms", 500000);
	dur_bad("", "not a duration");
	dur_bad("fast", "not a duration");
	dur_bad("10 parsecs", "unknown unit");
	dur_bad("-1s", "not a duration");

	units_format_size(4096, out, sizeof(out));
	ok(!strcmp(out, "4 KiB"), "4096 formats as '4 KiB' (%s)", out);
	units_format_size(1536ull << 20, out, sizeof(out));
	ok(!strcmp(out, "1.50 GiB"), "1536 MiB formats as '1.50 GiB' (%s)", out);
	units_format_size(100, out, sizeof(out));
	ok(!strcmp(out, "100 B"), "100 formats as '100 B' (%s)", out);
	return tap_done();
}
