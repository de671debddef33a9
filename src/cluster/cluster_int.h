/* cluster_int.h - what the two halves of a clustered phase share:
 * cluster_phase.c (rounds and merged intervals while it runs) and
 * cluster_end.c (the end reduction). HAVE_MPI only.
 */
#ifndef IOMOON_CLUSTER_INT_H
#define IOMOON_CLUSTER_INT_H

#include <mpi.h>
#include <stdint.h>

#include "cluster/cluster_phase.h"
#include "core/hist.h"
#include "core/stats.h"

/* Most interval reductions in flight at once. */
#define IV_INFLIGHT 4

/* One unit's interval as reduced: summed, the maxima and minima kept. */
struct iv_pay {
	double t_s;                 /* max: the end of the interval, since the common start */
	uint64_t ios[OP_NDATA], bytes[OP_NDATA];
	uint64_t count, min, max;
	uint64_t buckets[HIST_BUCKETS];
	/* a replay's lag of the records submitted in it: any rank that
	 * replays sets `replays` (max), the histogram is summed */
	uint64_t replays, lag_count, lag_min, lag_max;
	uint64_t lag_buckets[HIST_BUCKETS];
};

/* An interval made here and not yet posted: its histograms per unit,
 * two each (all ops, then the lag: h[2u], h[2u + 1]). */
struct iv_node {
	struct iv_node *next;
	struct hist h[];
};

struct iv_req {
	MPI_Request req;
	struct iv_pay *send, *recv;
	/* each rank's own I/Os and bytes of the interval, gathered onto rank
	 * 0 for its exporter: IV_OWN per unit, units by rank */
	MPI_Request greq;
	uint64_t *gsend, *grecv;
};

/* A rank's own figures of a unit's interval in the gather: ios, bytes per op. */
#define IV_OWN (2 * OP_NDATA)

/* A round: stop rank (as ranks - rank), interrupted, -ready, -done, made. */
#define HD_LEN 5

struct cluster_phase {
	const struct phase_spec *sp;
	struct phase_result *res;
	unsigned nu;                   /* units: the phase, then each stream */
	MPI_Comm hd_comm, iv_comm;
	MPI_Datatype iv_type;
	MPI_Request hd_req;
	int hd_active, all_done;
	int64_t hd_send[HD_LEN], hd_recv[HD_LEN];
	uint64_t rounds;
	int stopped_by;
	unsigned target;               /* intervals every rank has made (or will) */
	unsigned made, posted, merged;
	struct iv_node *head, *tail;   /* made, not posted */
	struct iv_req inflight[IV_INFLIGHT];
	unsigned nin, first_in;        /* a ring of nin from first_in */
	/* merged intervals, per unit */
	struct interval **list;
	unsigned *nlist, *cap;
	double last_t;
	char (*hosts)[CLUSTER_HOST_LEN]; /* rank 0 exporting: every rank's host, by rank */
	int64_t realtime_ns;
};

#endif
