/* phase_metrics.h - a running phase's figures handed to the exporter
 * (metrics.h), from the phase's sampling thread (phase.c): when
 * measurement begins, after every interval, and once after the join with
 * the phase's exact totals. Each does nothing when nothing is exported.
 */
#ifndef IOMOON_PHASE_METRICS_H
#define IOMOON_PHASE_METRICS_H

struct runner;

void phase_metrics_begin(struct runner *r);
void phase_metrics_tick(struct runner *r);
void phase_metrics_end(struct runner *r);
/* In a cluster (rank 0 exports): each merged interval of unit u (0: the
 * phase, then each stream) with its histogram of all ops, as the
 * cluster's series (host "all"); after the end reduction, the merged
 * result's exact totals. */
struct interval;
struct hist;
void phase_metrics_merged(unsigned u, const struct interval *iv, const struct hist *h);
void phase_metrics_cluster_end(struct runner *r);
/* In a cluster (rank 0): another rank's own interval of unit u, as that
 * rank's series (host and rank labels): its I/Os and bytes, no latency.
 * The merged intervals carry them (cluster_phase.c); rank 0's own are
 * its ticks'. */
void phase_metrics_rank(unsigned rank, const char *host, unsigned u, const struct interval *iv);
/* The state of the phase exported, given back. */
void phase_metrics_free(void);

#endif
