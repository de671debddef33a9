/* cluster_phase.h - one phase run by every rank together (cluster.h).
 *
 * While the phase runs, its sampling thread polls (cluster_phase_poll)
 * a series of rounds, each one non-blocking MPI_Iallreduce of a few
 * numbers: whether a rank stopped (an error with on_error = "stop", an
 * engine failure, a signal), how many intervals every rank has made, and
 * whether every rank is done. A stop on one rank stops all within two
 * rounds. Intervals are merged as soon as every rank has made them, on
 * a communicator of their own: interval k of every rank (measured from
 * the common start) summed, histograms bucket by bucket, so the
 * cluster's IOPS and percentiles over time are exact and memory holds
 * only the intervals not merged yet. At the end (cluster_phase_end)
 * everything counted is reduced exactly and each rank's own figures are
 * gathered: every rank then holds the same phase_result.
 */
#ifndef IOMOON_CLUSTER_PHASE_H
#define IOMOON_CLUSTER_PHASE_H

#include <stdint.h>

#include "cluster/cluster.h"
#include "run/phase.h"

/* One rank's own figures in a clustered phase (result.hosts). */
struct cluster_host {
	char host[64];
	uint32_t rank;
	uint32_t workers, qd;    /* its phase's (qd: with streams, the largest of theirs) */
	uint32_t targets;        /* its phase's targets, each once (0: null and sim's nowhere) */
	int failed, interrupted;
	uint64_t ios, bytes, errors;
	double seconds;
	uint64_t p50_ns, p99_ns, max_ns;
	double mean_ns;
	double util_pct, user_s, sys_s; /* its machine's CPUs busy; its process's CPU time */
	double other_pct;               /* its machine's CPUs busy with other work */
	double other_user_pct;          /* ... with other processes in user mode */
	double user_pct, sys_pct, self_pct; /* its machine's in user mode, in the kernel; its process's (core/stats.h) */
	int64_t started_ns;             /* its measured window's start, on its wall clock */
	double inflight_mean;           /* its I/Os in flight, time-weighted */
	int has_device;                 /* the kernel's witness of its own devices */
	struct device_result device;
	char error[192];
	char stopped_by[16];            /* its stop_if limit crossed ("": none), and the figures */
	double stop_value, stop_limit, stop_t_s;
};

/* How a clustered phase went as a cluster (result.cluster). */
struct cluster_result {
	unsigned ranks;
	uint64_t start_skew_ns;   /* spread of the ranks' realtime clocks at the start */
	int stopped_by;           /* the lowest rank that stopped for its own reason; -1: none */
	uint64_t rounds;          /* rounds of the stop and interval protocol */
	uint64_t end_bytes;       /* the end reduction's payload, per rank */
	uint64_t end_ns;          /* the end reduction's time on this rank */
	uint64_t interval_bytes;  /* each interval's payload, per rank */
	struct cluster_host *hosts; /* ranks of them, by rank */
};

/* How often a clustered phase's sampler polls the rounds. */
#define CLUSTER_POLL_NS 10000000ull

/* What this rank says in a round. */
struct cluster_local {
	int stop;          /* it stopped for its own reason (not another rank's) */
	int interrupted;   /* a signal stopped it */
	int done;          /* its workers finished and its last interval is made */
};

/* cluster_phase_poll's answer: bits. */
#define CLUSTER_STOP 1       /* another rank stopped: stop too */
#define CLUSTER_INTERRUPT 2  /* another rank was interrupted */
#define CLUSTER_DONE 4       /* every rank is done and every interval merged */

struct cluster_phase;

/* The protocol of one phase, made by every rank once all are ready
 * (collective); NULL when not in a cluster. Out of memory here, or later
 * in the protocol, aborts: the other ranks would wait for this one. */
struct cluster_phase *cluster_phase_new(const struct phase_spec *sp, struct phase_result *res);
/* The barrier is passed: this rank's realtime clock as it left it. */
void cluster_phase_started(struct cluster_phase *cp, int64_t realtime_ns);
/* After each interval this rank made: its histograms for the phase and
 * each stream, in that order, each two (all ops together, then its
 * replay's lag: empty when it replays nothing); kept until merged. */
void cluster_phase_made(struct cluster_phase *cp, const struct hist *const *both);
/* Take part in the rounds (never waits); CLUSTER_* bits. */
int cluster_phase_poll(struct cluster_phase *cp, const struct cluster_local *l);
/* After the join and the local merge: every rank's figures reduced into
 * res, the intervals replaced by the merged ones, result.cluster and
 * result.hosts filled. measure_ns: this rank's measurement start. Frees cp. */
void cluster_phase_end(struct cluster_phase *cp, const struct cluster_local *l, uint64_t measure_ns);
/* A phase that never started (cp made, then a failure): free it. */
void cluster_phase_free(struct cluster_phase *cp);

#endif
