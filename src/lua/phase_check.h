/* phase_check.h - what phase_check.c and phase_streams.c share: the
 * refusal that fills `why`, and the checks of one workload that a phase
 * with streams makes of each stream. Private to the binding.
 */
#ifndef IOMOON_PHASE_CHECK_H
#define IOMOON_PHASE_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#include "core/rc.h"
#include "lua/lua_phase.h"

/* qd x bs x workers, summed over a phase's streams */
#define PHASE_MAX_BUFFERS (8ull << 30)

/* why = the message; RC_INPUT. */
__attribute__((format(printf, 3, 4))) static inline int refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return RC_INPUT;
}

#define REFUSE(...) return refuse(why, why_len, __VA_ARGS__)
#define CHECK(call)                          \
	do {                                 \
		int rc_ = (call);            \
		if (rc_ != RC_OK)            \
			return rc_;          \
	} while (0)

/* The phase's own targets (a phase with streams checks them once). */
int phase_check_targets(struct run_state *rs, char *why, size_t why_len);
/* One workload (a phase without streams, or one stream): everything but
 * the generation maps (*four_k: its units are 4 KiB). */
int phase_check_workload(struct run_state *rs, int *four_k, char *why, size_t why_len);
/* A crc32c-verifying workload's generation maps, last. */
int phase_attach_gen_maps(struct run_state *rs, int four_k, char *why, size_t why_len);
/* Are t and u one file or device? */
int phase_same_target(const struct target *t, const struct target *u);
/* phase_streams.c: a phase with streams, checked as a whole. */
int phase_check_streams(struct run_state *rs, char *why, size_t why_len);

#endif
