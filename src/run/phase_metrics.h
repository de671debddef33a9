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
/* The state of the phase exported, given back. */
void phase_metrics_free(void);

#endif
