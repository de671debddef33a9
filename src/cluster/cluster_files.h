/* cluster_files.h - a files phase (run/files.h) run by every rank together
 * under MPI: the start (every rank's set-up agreed on, then the barrier
 * the clocks start from) and the end (every rank's figures reduced
 * exactly, the same bytes on every rank, and each rank's own row).
 *
 * Without a cluster the start is the clock read now and the end does
 * nothing. A files phase has no rounds while it runs: each rank stops at
 * its own deadline, quota or signal (mpirun forwards SIGINT to every rank).
 */
#ifndef IOMOON_CLUSTER_FILES_H
#define IOMOON_CLUSTER_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "cluster/cluster_phase.h"
#include "run/files.h"

/* rc and why are this rank's set-up (RC_OK: its workers are ready). In a
 * cluster every rank agrees on them; when all are ready, the barrier.
 * *start_ns is the monotonic clock as this rank goes, *realtime_ns the
 * wall clock. RC_OK, or the agreed failure (the same on every rank) with
 * its message in why. */
int cluster_files_start(int rc, char *why, size_t why_len, uint64_t *start_ns, int64_t *realtime_ns);

/* After files_run on every rank (collective): res becomes the cluster's
 * (sums of operations, errors, bytes and latency buckets; the longest
 * seconds; the earliest first_done, the latest last_done; the intervals
 * by index, summed), the same on every rank; out gets ranks, the start
 * skew and each rank's own row (out->hosts: cluster_files_free).
 * 0, or -1 out of memory (on every rank). */
int cluster_files_end(const struct files_spec *sp, struct files_result *res, struct cluster_result *out);
void cluster_files_free(struct cluster_result *c);

#endif
