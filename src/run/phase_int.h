/* phase_int.h - what the two halves of phase_run share: the set-up and
 * the sampling loop (phase.c), and the result after the join
 * (phase_collect.c).
 */
#ifndef IOMOON_PHASE_INT_H
#define IOMOON_PHASE_INT_H

#include <stdint.h>

#include "core/stats.h"
#include "run/phase.h"
#include "run/phase_sample.h"
#include "run/phase_witness.h"
#include "run/worker.h"

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}


/* One workload of a running phase: the phase's own, or one stream's. */
struct unit {
	const struct phase_spec *sp;
	struct worker *w;        /* its sp->workers workers, in the runner's */
	struct workload *wls;    /* one per target, or one per worker when sliced */
	int fds[PHASE_MAX_TARGETS];
	struct stream_result *res;    /* a stream's: its figures, and its intervals from */
	struct sampler smp;           /* its own snapshots */
};

/* Everything phase_run holds while a phase runs: what the workers share,
 * the workers, and the sampler's state (snapshots, ticks, progress). */
struct runner {
	const struct phase_spec *sp; /* the phase: its time, and all its workers */
	struct phase_result *res;
	struct phase_shared sh;
	int shared_init;
	struct worker *w;
	struct unit u[PHASE_MAX_STREAMS];
	unsigned nu;
	unsigned started;        /* threads running (to join) */
	struct sampler all;      /* the phase's intervals */
	struct hist *scratch;
	int ramping;
	uint64_t now;            /* the last clock reading of the sampler */
	uint64_t next_tick;      /* the ramp's end, then the next interval's */
	uint64_t next_progress, prog_ios, prog_bytes, prog_ns;
	uint64_t stopped_ns;     /* when a signal stopped the phase */
	struct cpu_mark cpu_a, cpu_b;
	struct cluster_phase *cp; /* run by every rank of a cluster (else NULL) */
	int remote_stop;          /* stopped because another rank did */
	int64_t realtime_ns;      /* the realtime clock at the start (sh.t_start_ns) */
	struct witness wit;       /* the kernel's counts of the devices under the targets */
	int wit_read;             /* ... read before the workers were let go (no ramp) */
};

/* n empty spec_stats, or NULL when out of memory. */
struct spec_stats *phase_specs_new(unsigned n);
/* The sampler (phase.c): a snapshot of every unit's workers; an interval
 * made of the last two (and handed to the cluster, when there is one). */
void phase_take_all(struct runner *r);
void phase_made(struct runner *r);
/* After the join: everything the workers counted, into r->res. */
void phase_collect(struct runner *r);

#endif
