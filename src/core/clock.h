/* clock.h - monotonic nanoseconds, and waiting until a moment.
 *
 * Every time in iomoon is a uint64_t of CLOCK_MONOTONIC nanoseconds; the
 * wall clock (CLOCK_REALTIME) only says when a phase was measured. Waits
 * sleep for the bulk and spin for the last stretch, so a rate of 100k IOPS is
 * paced to within a few microseconds without burning a core at low rates.
 */
#ifndef IOMOON_CLOCK_H
#define IOMOON_CLOCK_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The wall clock: CLOCK_REALTIME nanoseconds since the epoch (UTC). */
static inline int64_t clock_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A wall-clock time as ISO 8601 in UTC to the millisecond,
 * "2026-12-01T19:05:32.123Z", into buf (CLOCK_ISO_LEN bytes at least). */
#define CLOCK_ISO_LEN 32
void clock_iso8601(int64_t realtime_ns, char *buf, size_t len);

/* CPU time of the calling thread, in ns. */
static inline uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Below this much time left, waits spin: a sleep wakes ~30 us late on a VM
 * even with a timer slack of 1 ns (the workers set it), ~95 us with the
 * default 50 us slack. */
#define CLOCK_SPIN_NS 150000ull

/* Wait until clock_ns() >= deadline_ns; returns the time it woke at. */
uint64_t clock_wait_until(uint64_t deadline_ns);

/* How long clock_sleep_stop sleeps at most before it looks at its flag. */
#define CLOCK_STOP_POLL_NS 50000000ull

/* Sleep ns nanoseconds (no spinning; for coarse waits outside the hot
 * loop), or less: it returns 1 as soon as *stop is non-zero
 * (a signal's handler setting it cuts the current sleep short; the flag is
 * also read every CLOCK_STOP_POLL_NS, which covers a signal arriving just
 * before a sleep began), else 0 when the time is up. */
int clock_sleep_stop(uint64_t ns, const volatile sig_atomic_t *stop);

#endif
