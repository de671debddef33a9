/* clock.c - sleeping and spinning to a deadline on CLOCK_MONOTONIC; the
 * wall clock as ISO 8601. */
#include "core/clock.h"

#include <stdio.h>

int clock_sleep_stop(uint64_t ns, const volatile sig_atomic_t *stop)
{
	const uint64_t start = clock_ns();
	const uint64_t deadline = ns > UINT64_MAX - start ? UINT64_MAX : start + ns;

	for (;;) {
		uint64_t now = clock_ns(), until;
		struct timespec ts;

		if (*stop)
			return 1;
		if (now >= deadline)
			return 0;
		until = deadline - now > CLOCK_STOP_POLL_NS ? now + CLOCK_STOP_POLL_NS : deadline;
		ts.tv_sec = (time_t)(until / 1000000000ull);
		ts.tv_nsec = (long)(until % 1000000000ull);
		/* EINTR (a signal) or the slice's end: look at the flag again */
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

uint64_t clock_wait_until(uint64_t deadline_ns)
{
	uint64_t now = clock_ns();

	while (now < deadline_ns) {
		uint64_t left = deadline_ns - now;

		if (left > CLOCK_SPIN_NS) {
			struct timespec ts;
			uint64_t target = deadline_ns - CLOCK_SPIN_NS / 2;

			ts.tv_sec = target / 1000000000ull;
			ts.tv_nsec = target % 1000000000ull;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		now = clock_ns();
	}
	return now;
}

void clock_iso8601(int64_t realtime_ns, char *buf, size_t len)
{
	const time_t secs = (time_t)(realtime_ns / 1000000000);
	const int ms = (int)(realtime_ns % 1000000000 / 1000000);
	struct tm tm;
	char day[24];

	if (realtime_ns < 0 || !gmtime_r(&secs, &tm) || !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	snprintf(buf, len, "%s.%03dZ", day, ms);
}
