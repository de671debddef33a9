/* trace_profile.h - what a trace does, summed up: op shares, block sizes,
 * sequential share, offset hot spots fitted as a zoned distribution,
 * inter-arrival gaps, I/Os over time and a per-device breakdown.
 *
 * trace_profile() reads the records twice (the second pass places the
 * random I/Os in cells of each device's touched extent, which the first
 * pass finds) and keeps nothing per record: memory is a few hundred KiB
 * whatever the trace's length. lua_trace_profile.c turns the result into
 * the table iomoon.trace.profile returns; doc/replay.md lists its fields.
 */
#ifndef IOMOON_TRACE_PROFILE_H
#define IOMOON_TRACE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"
#include "workload.h"

#define TP_MAX_SIZES 16     /* block sizes listed; the rest are "other" */
#define TP_SIZE_SLOTS 4096  /* distinct sizes counted exactly per op */
#define TP_MAX_CELLS 1000
#define TP_MAX_ZONES WL_MAX_ZONES
#define TP_MAX_BUCKETS 4096 /* WL_MAX_SEGMENTS: a schedule can follow them */
#define TP_ZONED_LEN 512

struct tp_opts {
	int dev;            /* the device index to profile; -1: all of them */
	unsigned cells;     /* the touched extent in this many cells (hot spots) */
	unsigned max_zones; /* the most zones the fit may use */
	unsigned buckets;   /* I/Os over time in this many buckets; 0: chosen */
};

/* One block size and how many I/Os had it. */
struct tp_size {
	uint32_t bytes;
	uint64_t n;
};

/* The block sizes of one op (or all), most common first. */
struct tp_sizes {
	unsigned n;                         /* sizes listed */
	struct tp_size size[TP_MAX_SIZES];
	uint64_t other;                     /* I/Os of sizes not listed */
	uint64_t total;
};

/* The counts of one device (or of everything profiled). */
struct tp_counts {
	uint64_t n;
	uint64_t n_op[OP_NTYPES];
	uint64_t bytes_op[OP_NTYPES];
	uint64_t seq_op[OP_NTYPES];  /* began where the device's previous I/O ended */
	uint64_t lo, hi;             /* lowest offset, highest offset + len (data ops) */
	uint64_t first_ns, last_ns;
};

struct tp_zone {
	double access_pct, region_pct;
};

struct trace_profile {
	struct tp_counts all;
	double span_s, iops;             /* iops: (n - 1) / span */
	struct tp_sizes sizes_all, sizes_op[OP_NDATA];
	/* inter-arrival gaps between consecutive records */
	uint64_t gaps;
	double gap_mean_ns, gap_cv;
	uint64_t gap_p50_ns, gap_p99_ns, gap_max_ns;
	const char *arrival;             /* "fixed", "poisson" or "bursty" */
	/* I/Os over time */
	unsigned nbuckets;
	double bucket_s;
	uint64_t *bucket;                /* nbuckets counts */
	/* hot spots: cells of each device's [lo, hi), random I/Os counted */
	unsigned ncells;
	uint64_t *cell;                  /* ncells counts, in offset order */
	uint64_t cell_total;
	int cells_random;                /* 1: random I/Os only; 0: all (under 1 % were random) */
	unsigned nzones;
	struct tp_zone zone[TP_MAX_ZONES]; /* hottest first */
	double fit_error_pct;            /* accesses the zones put in other cells than the trace */
	char zoned[TP_ZONED_LEN];        /* "zoned:A/R:..." as phase.dist takes it */
	/* per device (with tp_opts.dev >= 0, just that one) */
	unsigned ndevs;
	unsigned dev_index[TRACE_MAX_DEVS]; /* into trace.devs */
	struct tp_counts dev[TRACE_MAX_DEVS];
};

/* Profile t (or its device o->dev). RC_OK, RC_INPUT with why (options out
 * of range, an unknown device, nothing to profile), or RC_FAIL (no memory).
 * The profile owns memory: trace_profile_free. */
int trace_profile(const struct trace *t, const struct tp_opts *o, struct trace_profile *p, char *why, size_t why_len);
void trace_profile_free(struct trace_profile *p);

#endif
