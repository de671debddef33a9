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

#endif
