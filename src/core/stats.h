/* stats.h - counters of one worker, CPU use, and per-interval samples.
 *
 * Workers count into their own struct counters (no sharing, no atomics but
 * the relaxed ones the sampler's live reads need: the histograms' counts and
 * the byte counts); the phase merges them at the end.
 * CPU use is the process's rusage and the machine's /proc/stat over a span.
 */
#ifndef IOMOON_STATS_H
#define IOMOON_STATS_H

#include <stdint.h>

#include "core/hist.h"
#include "core/op.h"

#define STATS_MAX_ERRNO 8     /* distinct (errno, op) pairs counted */
#define STATS_FIRST_ERRORS 4  /* errors kept with their offset, earliest first */

struct op_stats {
	struct hist lat;  /* latency: from the intended start when paced */
	struct hist svc;  /* service time submit -> complete (paced runs only) */
	uint64_t bytes;   /* relaxed-atomic (stats_add_bytes), read live by the sampler */
	uint64_t errors;
};

/* Count the bytes of one I/O of o's type. One writer per op_stats; the
 * sampler reads them live (stats_bytes), so a relaxed atomic store, which
 * on x86-64 is a plain add: the hot path pays nothing for it. */
static inline void stats_add_bytes(struct op_stats *o, uint64_t len)
{
	__atomic_store_n(&o->bytes, __atomic_load_n(&o->bytes, __ATOMIC_RELAXED) + len, __ATOMIC_RELAXED);
}

/* The bytes counted so far, read while the writer may be running. */
static inline uint64_t stats_bytes(const struct op_stats *o)
{
	return __atomic_load_n(&o->bytes, __ATOMIC_RELAXED);
}

struct err_count {
	int err;          /* errno, or 0 for a short transfer */
	int op;           /* OP_READ or OP_WRITE */
	uint64_t n;
};

struct first_error {
	uint64_t offset;
	uint32_t len;
	int op;
	int err;          /* errno; 0 for a short transfer */
	int64_t res;
	uint64_t at_ns;   /* when it completed: orders errors across workers */
	uint32_t rank;    /* the cluster rank that saw it (0 on one host) */
	uint64_t unit_offset, expected, found; /* verification failures */
};

/* What crc32c verification looked at (verify_read.h), unit by unit; only
 * verifying reads touch it. Sums, but written_end and known: the largest. */
/* after_crash (verify/crash.h): the units of each class, and the first
 * offsets of each (the lowest, CRASH_FIRST at most) */
#define CRASH_NCLASS 8
#define CRASH_FIRST 16
struct crash_counts {
	uint64_t n[CRASH_NCLASS];
	uint64_t at[CRASH_NCLASS][CRASH_FIRST];
	uint64_t judged;          /* 1: this was an after_crash pass */
};

struct verify_counts {
	uint64_t units_checked;    /* against their headers: written, per the map (all, with no map) */
	uint64_t units_unwritten;  /* never written, per the map, and blank (the fill or zeros) */
	uint64_t units_unexpected; /* never written, per the map, but holding other data (each an error) */
	uint64_t units_skipped;    /* never written and not looked at (skip_unwritten; no map) */
	uint64_t written_end;      /* bytes: the end of the highest unit a map says was written */
	uint64_t known;            /* 1: some map said what was written (written_end holds) */
	struct crash_counts crash;
};

/* What the writes carried (data.h), unit by unit: the distinct units by
 * construction, and the sample a compressor saw. Sums, but distinct_max
 * (the largest) and values (or-ed). */
struct data_counts {
	uint64_t units;            /* dedupe units written (ramp included) */
	uint64_t distinct;         /* of them, distinct ones, this writer's own */
	uint64_t distinct_max;     /* distinct units every writer writes alike (reuse, zero) */
	uint64_t values[4];        /* repeat: the byte values written, a bit each */
	uint64_t sampled, sampled_bytes, compressed_bytes; /* the units LZ4 compressed, their bytes before and after */
	uint64_t other_bytes, zstd_bytes, zlib_bytes; /* the rarer sample zstd and zlib compressed: before, after each */
	uint64_t checked, check_failed; /* sampled units whose crc32c was held to their dedupe set's */
	uint64_t records;          /* records sampled (data_record.c), and bytes after LZ4, zstd, zlib: */
	uint64_t rec_small[3], rec_large[3]; /* of their first 128 KiB, of the whole MiB */
};

struct counters {
	struct op_stats op[OP_NTYPES]; /* OP_READ, OP_WRITE, OP_TRIM, OP_SYNC */
	struct hist commit;     /* each write followed by its own sync (fsync/fdatasync every write): from the
				 * write's start (its intended start when paced) to its sync's completion */
	struct err_count errno_count[STATS_MAX_ERRNO];
	struct first_error first_errors[STATS_FIRST_ERRORS];
	unsigned nfirst;
	uint64_t last_done_ns;  /* completion time of the last counted I/O */
	uint64_t max_inflight;  /* the largest number in flight at once */
	uint64_t inflight_ns;   /* I/Os in flight x ns, over the measured time (their time-weighted mean x its length) */
	double cpu_busiest;     /* the largest share of its loop's time a worker spent on a CPU (thread CPU / wall) */
	double cpu_waited;      /* ... a worker spent runnable, waiting for a CPU (its schedstat run delay / wall) */
	struct verify_counts verify;
	struct data_counts data;
};

void counters_init(struct counters *c);
/* dst += src, exactly (histograms, bytes, errors by errno; the first errors
 * stay the earliest STATS_FIRST_ERRORS of both, in time order). */
void counters_merge(struct counters *dst, const struct counters *src);
/* dst += src: sums, the largest written_end and known. */
void verify_counts_merge(struct verify_counts *dst, const struct verify_counts *src);
/* dst += src, as struct data_counts says. */
void data_counts_merge(struct data_counts *dst, const struct data_counts *src);
/* A failed I/O of type op (err 0: short, res bytes done): counted by errno
 * and kept with its offset while fewer than STATS_FIRST_ERRORS are. */
void counters_error(struct counters *c, int op, int err, uint64_t offset, uint32_t len, int64_t res, uint64_t at_ns);
/* A verification failure (err a VERR_*), with where and what was wrong. */
void counters_verify_error(struct counters *c, int err, uint64_t offset, uint32_t len, uint64_t unit_offset,
			   uint64_t expected, uint64_t found, uint64_t at_ns);

struct cpu_mark {
	double user_s, sys_s;   /* this process */
	uint64_t user, sys, total; /* the machine, in clock ticks: user + nice; system + irq + softirq; all */
};

/* This process's CPU times and the machine's busy and total ticks, now. */
void cpu_mark(struct cpu_mark *m);

/* Every _pct is a share of the machine: all its CPUs over the span. */
struct cpu_use {
	double user_s, sys_s;   /* this process, over the span */
	double util_pct;        /* the machine's CPUs busy over the span: user_pct + sys_pct */
	double user_pct;        /* ... in user mode (user + nice) */
	double sys_pct;         /* ... in the kernel (system, irq, softirq); steal and iowait count in none */
	double self_pct;        /* this process's CPU time (user_s + sys_s) */
	double other_pct;       /* util_pct less self_pct (0 at least): other work than this process's */
	double other_user_pct;  /* user_pct less this process's user time (0 at least): other processes in
				 * user mode; the kernel's threads serving this process's I/O (a loop
				 * device's workers, io_uring's, interrupts) are not in it */
};

/* This thread's time runnable but not running, waiting for a CPU (the
 * second figure of /proc/thread-self/schedstat, ns); 0 when the kernel
 * does not say. */
uint64_t thread_wait_ns(void);

/* The CPU used between two marks. */
void cpu_between(const struct cpu_mark *a, const struct cpu_mark *b, struct cpu_use *out);

/* The figures of one access spec (IOMeter reports per access spec): its
 * completed I/Os by type, bytes, and latency. */
struct spec_stats {
	struct hist lat;
	uint64_t ios[OP_NTYPES];
	uint64_t bytes;
};

/* One interval of a phase, from histogram deltas. */
struct interval {
	double t_s;             /* end of the interval, seconds since measurement began */
	double len_s;
	uint64_t ios[OP_NDATA], bytes[OP_NDATA]; /* reads, writes, trims */
	uint64_t p50_ns, p99_ns, max_ns; /* all of them together */
	int has_lag;            /* a replay's: the lag of the records submitted in it */
	uint64_t lag_p99_ns, lag_max_ns;
};

/* One counted I/O; times in ns since measurement began (< 0 in the ramp). */
struct trace_rec {
	int64_t start_ns;   /* what its latency is measured from: the intended start when paced, else submit_ns */
	int64_t submit_ns;  /* when the worker issued it: the clock reading that stamped its submission */
	uint64_t lat_ns;
	uint64_t offset;
	uint32_t len;
	uint16_t worker;    /* its worker, numbered within its stream */
	uint8_t op;
	uint8_t target;     /* where it went: its place in phase_targets (result.target) */
};

#endif
