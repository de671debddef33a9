/* clock.c - sleeping and spinning to a deadline on CLOCK_MONOTONIC. */
#include "clock.h"

#include <errno.h>

void clock_sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ull, .tv_nsec = ns % 1000000000ull };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
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
