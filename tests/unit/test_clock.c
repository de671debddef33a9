/* test_clock.c - the wall clock as ISO 8601 (clock.h): exact answers. */
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "tap.h"

static void is(int64_t ns, const char *want)
{
	char buf[CLOCK_ISO_LEN];

	clock_iso8601(ns, buf, sizeof(buf));
	ok(!strcmp(buf, want), "%lld ns -> '%s' (got '%s')", (long long)ns, want, buf);
}

int main(void)
{
	char small[11];
	int64_t now = clock_realtime_ns();

	is(0, "1970-01-01T00:00:00.000Z");
	is(1796173547504000000, "2026-12-02T01:05:47.504Z");
	is(1796173547999999999, "2026-12-02T01:05:47.999Z"); /* milliseconds cut, never rounded into the next second */
	is(951782400000000000, "2000-02-29T00:00:00.000Z");   /* a leap day */
	is(-1, "");                                            /* before the epoch: not a time iomoon measured */
	clock_iso8601(1796173547504000000, small, sizeof(small));
	ok(!strcmp(small, "2026-12-02"), "a short buffer is cut, not overrun ('%s')", small);
	ok(now / 1000000000 - time(NULL) <= 1 && time(NULL) - now / 1000000000 <= 1,
	   "clock_realtime_ns is the wall clock (%lld s, time() %lld s)", (long long)(now / 1000000000),
	   (long long)time(NULL));
	return tap_done();
}
