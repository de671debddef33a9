/* fuzz_units.c - libFuzzer: sizes and durations from arbitrary bytes.
 * Parsing must never crash or read past the string; a parsed size must
 * format and parse back to itself when it is a whole KiB multiple. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), why[256];
	uint64_t v, ns;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (units_parse_size(s, &v, why, sizeof(why)) == 0 && v && v % 1024 == 0 && v < (1ull << 60)) {
		char out[64], num[64];
		uint64_t back;

		/* "<n>k" must read back as the same number of bytes */
		snprintf(num, sizeof(num), "%llu" "k", (unsigned long long)(v / 1024));
		if (units_parse_size(num, &back, why, sizeof(why)) != 0 || back != v)
			abort();
		units_format_size(v, out, sizeof(out));
	}
	units_parse_duration(s, &ns, why, sizeof(why));
	free(s);
	return 0;
}
