/* trace_profile.h - what a trace does, summed up: op shares, block sizes,
 * sequential share and the sequential streams that make it up, offset hot
 * spots fitted as a zoned distribution, inter-arrival gaps, I/Os over time
 * and a per-device breakdown.
 *
 * Sequentiality is judged per stream of offsets (trace_streams.h), not
 * record against record, so streams that interleave on one device are
 * found. trace_profile() reads the records twice: the first pass counts
 * and finds the streams and each device's extent of random I/Os; the
 * second, knowing which streams are significant, sums up the rest (the
 * random remainder), places its random I/Os in cells of that extent and
 * counts every stream's I/Os over time. Nothing is kept per record: memory
 * is about half a MiB whatever the trace's length. lua_trace_profile.c
 * turns the result into the table iomoon.trace.profile returns;
 * doc/replay.md lists its fields.
 */
#ifndef IOMOON_TRACE_PROFILE_H
#define IOMOON_TRACE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/op.h"
#include "trace/trace.h"
#include "trace/trace_streams.h"

#define TP_MAX_SIZES 16     /* block sizes listed; the rest are "other" */
#define TP_SIZE_SLOTS 4096  /* distinct sizes counted exactly per op */
#define TP_MAX_CELLS 1000
/* What a phase can take (run/workload.h; lua_trace_profile.c checks both):
 * a zoned distribution of WL_MAX_ZONES, a schedule of WL_MAX_SEGMENTS. */
#define TP_MAX_ZONES 16
#define TP_MAX_BUCKETS 4096
#define TP_ZONED_LEN 512
#define TP_MAX_STREAMS 15   /* significant streams listed: a phase has 16 streams, one is the rest */
#define TP_STREAM_PCT 1     /* a significant stream has at least this share of the data I/Os, */
#define TP_STREAM_RUN 16    /* and runs of this many records on average */

struct tp_opts {
	int dev;            /* the device index to profile; -1: all of them */
	unsigned cells;     /* the touched extent in this many cells (hot spots) */
	unsigned max_zones; /* the most zones the fit may use */
	unsigned buckets;   /* I/Os over time in this many buckets; 0: chosen */
	uint64_t seq_gap;   /* bytes a record may start past a stream's next offset and continue it */
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
	uint64_t seq_op[OP_NTYPES];  /* continued a sequential stream of the device (trace_streams.h) */
	uint64_t lo, hi;             /* lowest offset, highest offset + len (data ops) */
	uint64_t first_ns, last_ns;
	struct ts_counts streams;    /* runs, and the most in progress at once (a device's; all: the largest) */
};

/* A significant group of sequential runs (trace_streams.h): at least
 * TP_STREAM_PCT of the data I/Os, runs of TP_STREAM_RUN records or more
 * on average. */
struct tp_stream {
	struct ts_group g;
	uint64_t *bucket;            /* its data I/Os in each of the profile's buckets */
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
	/* the significant streams, most I/Os first, and the rest: every
	 * record not continuing one of them (syncs not counted for one) */
	unsigned nstreams;
	struct tp_stream stream[TP_MAX_STREAMS];
	struct tp_counts random;
	struct tp_sizes random_sizes_all, random_sizes_op[OP_NDATA];
	uint64_t *random_bucket;         /* its data I/Os in each bucket */
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
