/* trace_streams.h - sequential streams found in records that interleave:
 * the stream detector trace_profile.c judges sequentiality with.
 *
 * Consecutive records of a device rarely continue each other when several
 * streams share it (a database's WAL appends between random data I/Os):
 * judged record against record, the WAL looks random. Like the kernel's
 * readahead and an array's prefetch, the detector keeps, per device, a
 * small table of stream heads, each the offset its stream's next record
 * would start at. A record that starts at a head's offset (or at most
 * `gap` bytes past it) continues that stream; any other record starts a
 * candidate head of its own. The table has two parts: TS_PROBATION heads
 * of records that continued nothing yet (replaced in turn), and TS_STREAMS
 * heads of runs, records that continued one, where a short run gives way
 * to a long one, so that random records, however many, never push an
 * established stream out.
 *
 * A run is a stream once it holds three records, or two one right after
 * the other on the device (what judging record against record finds too);
 * two records apart, and no third, is what random offsets in a small
 * region give by chance, and counts as random. A stream lasts from its
 * first record to its last: it ends when its head is replaced (a record at
 * its offset later starts a new run) or at the trace's end.
 *
 * Streams are summed into groups: those of one device whose first records
 * had one op and one length (a WAL of 8 KiB appends: every stream of it,
 * each segment it wraps into, is one group). A sync counts for the run
 * that wrote last since the device's previous sync (a WAL's fdatasync
 * after its append, whatever random writes came between), else for the
 * record that wrote last, if it starts a stream; else for none.
 *
 * Every data record is judged once, as a stream's first record, a record
 * that continued a stream, or random; some only later (a candidate's
 * record when the candidate is continued or replaced). Everything is
 * O(records x table), nothing is kept per record, and the answer depends
 * on the records alone: fed the same records, a fresh detector judges
 * every record the same and numbers the groups the same.
 */
#ifndef IOMOON_TRACE_STREAMS_H
#define IOMOON_TRACE_STREAMS_H

#include <stdint.h>

#include "core/op.h"
#include "trace/trace.h"

#define TS_PROBATION 16   /* candidate heads: records that continued nothing yet */
#define TS_STREAMS 16     /* heads of runs */
#define TS_LONG 16        /* a run of this many records gives way only to another */
#define TS_MAX_GROUPS 32
#define TS_GROUP_SIZES 4  /* sizes counted per group; the rest are other */
#define TS_MAX_GAP (1ull << 30)

/* The streams of one device, op and length (of each one's first record). */
struct ts_group {
	unsigned dev;                   /* the trace's device index */
	uint8_t op;                     /* the first records' op */
	uint32_t bs;                    /* the first records' length */
	uint64_t runs;                  /* streams found */
	uint64_t ios;                   /* records of them, each one's first included */
	uint64_t n_op[OP_NDATA], bytes_op[OP_NDATA];
	uint64_t lo, hi;                /* where they lie: lowest offset, highest offset + length (first records too) */
	uint64_t first_ns, last_ns;     /* the first and the last record of them */
	uint64_t cont_ns;               /* the last that continued one, + 1 (0: none yet) */
	uint64_t syncs;                 /* syncs after a write of theirs */
	unsigned concurrent;            /* the most of them in progress at once */
	uint64_t gaps;                  /* gaps between consecutive records that continued them */
	double gap_sum_ns, gap_sq_ns;   /* their sum and sum of squares */
	unsigned nsizes;
	uint32_t size[TS_GROUP_SIZES];  /* lengths of their records, first seen first */
	uint64_t size_n[TS_GROUP_SIZES];
	uint64_t size_other;            /* records of other lengths */
};

/* What was found on one device. */
struct ts_counts {
	uint64_t runs, runs_op[OP_NDATA];       /* streams found (by their first record's op) */
	unsigned streams, streams_op[OP_NDATA]; /* the most in progress at once (of that op) */
};

struct ts_dev; /* one device's heads (trace_streams.c) */

enum { TS_RANDOM, TS_FIRST, TS_SEQ }; /* a record is random, a stream's first, or continued one */

/* A data record judged: verdict TS_*, group: its stream's (-1: random, or
 * no group was left). */
typedef void ts_judged_fn(void *ctx, const struct trace_io *io, int group, int verdict);

struct ts_detector {
	ts_judged_fn *judged;           /* NULL: not told */
	void *ctx;
	uint64_t gap;                   /* a record at most this many bytes past a head continues it */
	uint64_t now;                   /* records fed */
	uint64_t serial;                /* heads made */
	struct ts_dev *dev[TRACE_MAX_DEVS];
	unsigned ngroups;
	uint64_t ungrouped;             /* streams for which no group was left */
	struct ts_group group[TS_MAX_GROUPS];
};

/* A detector with no heads yet; gap in bytes (0: exactly at the head),
 * at most TS_MAX_GAP; judged (or NULL) told of every data record what it
 * was, with ctx, once known. */
void ts_init(struct ts_detector *d, uint64_t gap, ts_judged_fn *judged, void *ctx);
void ts_free(struct ts_detector *d);
/* Feed a data record (read, write, trim) in time order: 0, or -1 without
 * memory (a device's table is made when first seen). */
int ts_record(struct ts_detector *d, const struct trace_io *io);
/* Feed a sync (in time order with the data records). It counts for a
 * run's group once that run is a stream: a group's syncs are known once
 * every record was fed. */
void ts_sync(struct ts_detector *d, const struct trace_io *io);
/* End every run still in progress (concurrency is known at a run's end)
 * and judge the records still waiting; then ts_device_counts says what
 * each device had. */
void ts_finish(struct ts_detector *d);
void ts_device_counts(const struct ts_detector *d, unsigned dev, struct ts_counts *c);

#endif
