/* phase.h - one measured phase: its specification and its result.
 *
 * lua_phase.c parses and checks a phase table into a phase_spec (targets
 * inspected, workload and pacing built); phase_run opens the targets, starts
 * the workers (worker.c), and samples them from the calling thread through
 * the ramp and the measured time: one snapshot of their histograms per
 * interval, a progress callback, a signal (phase_interrupt) turned into a
 * stop. After the join it merges what the workers counted into a
 * phase_result, which lua_result.c turns into the result table. Nothing
 * here knows Lua. Return codes are rc.h's.
 */
#ifndef IOMOON_PHASE_H
#define IOMOON_PHASE_H

#include <stdint.h>

#include "core/hist.h"
#include "core/rc.h"
#include "core/stats.h"
#include "core/stop.h"
#include "io/devstat.h"
#include "io/engine.h"
#include "io/target.h"
#include "run/batch.h"
#include "run/workload.h"

#define PHASE_MAX_WORKERS 256
#define PHASE_MAX_QD 4096
#define PHASE_MAX_TARGETS 64
#define PHASE_MAX_STREAMS 16
/* The largest block size a phase runs (Lua sees it as iomoon.limits.max_bs). */
#define PHASE_MAX_BS (64u << 20)

struct cluster_result;
struct replay;
struct replay_stats;
struct trace_rec;

/* What writes carry. OFFSET: every 8-byte word holds its own absolute byte
 * offset (little-endian), which a reader can check without knowing the run.
 * REPEAT: IOMeter's repeating bytes (one byte value per write, a new one
 * each write); REUSE: IOMeter's pseudo random (one random buffer for every
 * write). RANDOM may be made compressible or deduplicable (data.h). */
enum pattern { PATTERN_RANDOM, PATTERN_ZERO, PATTERN_OFFSET, PATTERN_REPEAT, PATTERN_REUSE };
/* What reads check: nothing; the OFFSET pattern (a mismatch is EILSEQ);
 * crc32c headers that writes carry (verify.h). */
enum verify_kind { VERIFY_NONE, VERIFY_OFFSET, VERIFY_CRC };
/* How a workload's targets are opened for writing: as they are, O_DSYNC
 * (every write's data durable when it completes), or O_SYNC. */
enum open_sync { OPEN_SYNC_NONE, OPEN_SYNC_DSYNC, OPEN_SYNC_SYNC };

/* A live view for progress lines, taken by the phase's main thread. */
struct phase_progress {
	const char *name;
	double elapsed_s, total_s; /* total_s 0 when the phase ends on ios/bytes */
	int ramping;
	double iops, mb_per_s;     /* over the last progress period */
	uint64_t ios;
};

/* How long a phase lasts when nothing else (duration, ios, bytes, a
 * schedule) ends it: 10 s. */
#define PHASE_DEFAULT_DURATION_NS 10000000000ull

struct phase_spec {
	const char *name;
	struct target *targets[PHASE_MAX_TARGETS];
	unsigned ntargets;
	const struct engine_ops *engine;
	int direct;
	unsigned workers, qd;
	unsigned batch;        /* most I/Os per submission to the kernel, 1..qd, or BATCH_AUTO */
	struct workload *wl;   /* region set relative to each target in phase_run */
	uint64_t region_off, region_len; /* region_len 0: to the end of each target */
	uint64_t seq_start; /* bytes into each worker's part where its sequential stream starts (fio's
			     * first offset of rw=read:-8k with offset=) */
	struct pace *pace;
	uint64_t ramp_ns, duration_ns, ios, bytes; /* 0: not a limit */
	uint64_t start_delay_ns; /* a stream's workers start this long after the phase does (fio's startdelay) */
	uint64_t seed;
	uint64_t interval_ns;
	enum pattern pattern;
	/* data.h: ratios asked (1: none), the dedupe unit, the dedupe sets
	 * (0: one per unit of the pattern buffers) */
	double compress, dedupe;
	uint32_t dedupe_unit;
	uint64_t dedupe_sets;
	uint64_t sim_latency_ns; /* engine sim: the service time */
	unsigned engine_flags;   /* ENGINE_* */
	int on_error_continue;
	enum verify_kind verify;
	uint32_t verify_unit;  /* bytes per verified unit: 4096 or 512 */
	int skip_unwritten;    /* crc32c: units the map says were never written are not read for blankness;
				* -1 (not given): when the workload writes (phase_skips_unwritten) */
	/* after every N completed writes of a slot, the slot syncs: fsync(2)
	 * (fsync_every) or fdatasync(2) (fdatasync_every); 0: never */
	unsigned fsync_every, fdatasync_every;
	enum open_sync open_sync;
	int per_spec;          /* some access spec has a name: figures per spec */
	uint64_t trace_max;    /* per-I/O records to keep; 0: none */
	/* called from phase_run's thread every 0.5 s when set */
	void (*progress)(const struct phase_progress *p); /* NULL: no progress lines */
	/* phase.streams: workloads of their own, run together; each is a whole
	 * spec whose phase-wide fields (engine, ramp, duration, interval, seed,
	 * on_error, trace) are this one's. None: this spec is the workload. */
	unsigned nstreams;
	const struct phase_spec *streams[PHASE_MAX_STREAMS];
	/* phase.replay: a trace played back instead of the mix and pacing */
	const struct replay *replay;
	/* in a cluster: the ranks the phase's rates are shared by (each
	 * worker paces rate / (workers x rate_share)); 0 or 1: this host alone */
	unsigned rate_share;
	/* in a cluster: target t is written or verified with crc32c under one
	 * path by rank_parts[t] ranks (one device or file they share), of
	 * which this rank is number rank_part[t]: its region is that slice of
	 * the phase's region (phase_region_of), its workers slice the slice;
	 * 0 or 1 part: the whole region is this rank's */
	uint32_t rank_parts[PHASE_MAX_TARGETS], rank_part[PHASE_MAX_TARGETS];
	/* verify_only without a quota: every worker reads its part of its
	 * target's region (phase_part_of) once, its bytes quota that part;
	 * bytes is then their sum (phase_read_once_bytes) */
	int read_once;
	/* after_crash: a verify_only pass classes every unit against the
	 * durability record (verify/crash.h); atomic: a torn unit fails it */
	int after_crash, atomic;
	/* need_state: a verify_only pass with no state of its target (none
	 * found where it looked) is refused, not checked by headers alone */
	int need_state;
	int trim_secure;          /* trims by BLKSECDISCARD (a block device that does it) */
	/* crc32c: the directory of the targets' verification state (and its
	 * lock and durability record), NULL for the default (genmap.h) */
	const char *verify_state;
	/* phase.stop_if: limits checked at each interval's tick in the phase
	 * thread (never per I/O); one crossed stops the phase (result.stopped).
	 * latency_ns: an I/O of the interval slower; rate, iops [0] reads [1]
	 * writes: the interval's rate under it (bytes/s, IOPS). 0: no limit */
	struct phase_stop_if {
		uint64_t latency_ns, rate[2], iops[2];
	} stop_if;
	/* phase.end_first: the first worker to end (its quota done) stops the
	 * rest, as fio's exitall ends a group with its first job */
	int end_first;
	/* phase.ioprio: its workers' I/O priority (ioprio_set(2) of each
	 * worker thread: class << 13 | level), 0 the default */
	int ioprio;
};

/* One stream's share of a phase's result (phase_result.streams[i]). */
struct stream_result {
	struct counters total;
	struct spec_stats *specs; /* per access spec (wl->nspecs), when per_spec */
	struct interval *intervals;
	unsigned nintervals, icap;
	struct batch_stats batch;
	struct replay_stats *replay; /* the stream's replay, when it has one */
	double seconds;           /* its measured time: the phase's, or, when it ended by its own quota, until its last I/O */
};

/* The kernel's account of the block devices under a phase's targets over
 * its measured time (phase_witness.h): result.device. */
struct device_result {
	char name[96];          /* vda, or sda+sdb for several */
	unsigned devices;
	struct devstat counts;  /* summed over them */
	double seconds;         /* between the two readings */
};

struct phase_result {
	struct counters total;  /* every stream's, merged */
	double seconds;
	/* the measured window on the wall clock (CLOCK_REALTIME ns, UTC), read
	 * beside the monotonic clock as the phase started; under MPI rank 0's */
	int64_t started_ns, ended_ns;
	struct cpu_use cpu;
	struct interval *intervals;
	unsigned nintervals;
	const char *engine;
	char features[64];
	int interrupted;
	int failed;             /* an engine failure during the run (or no I/O at all) */
	char error[WHY_LEN];    /* what failed, when failed */
	/* a limit of sp.stop_if crossed in the interval ending at stop_t_s:
	 * which ("latency", "read_rate", ...), the interval's figure, the limit */
	char stopped_by[16];
	double stop_value, stop_limit, stop_t_s;
	struct trace_rec *trace;
	uint64_t ntrace;
	struct batch_stats batch;
	unsigned nstreams;      /* the spec's: 0 when it has none */
	struct stream_result *streams;
	struct spec_stats *specs; /* per access spec, when per_spec (none with streams) */
	struct replay_stats *replay; /* every replaying worker's, merged (NULL: none replays) */
	struct cluster_result *cluster; /* run by every rank of a cluster: merged (NULL: one host) */
	int has_device;         /* the kernel's witness, when it could be read (one host only) */
	int in_memory;          /* every target on tmpfs or ramfs: no device, the host's memory */
	struct device_result device;
};

/* A phase's workloads: its streams, or the phase itself when it has none. */
static inline unsigned phase_nstreams(const struct phase_spec *sp)
{
	return sp->nstreams ? sp->nstreams : 1;
}

static inline const struct phase_spec *phase_stream(const struct phase_spec *sp, unsigned i)
{
	return sp->nstreams ? sp->streams[i] : sp;
}

/* Does a phase write? (Some spec is not all reads.) */
static inline int phase_writes(const struct phase_spec *sp)
{
	for (unsigned i = 0; i < sp->wl->nspecs; i++)
		if (sp->wl->spec[i].read_thr < WL_ONE)
			return 1;
	return 0;
}

/* A phase that writes with crc32c verification, with several workers on
 * one target, gives each of them a slice of the region of its own (two
 * workers writing one unit at once would leave the order to the device,
 * and a read could report a lost write on healthy storage); so do ranks
 * of a cluster that write or verify one target (rank_parts). RC_OK when
 * the slices work, else RC_INPUT with why (too small, or a spec region of
 * its own). */
int phase_check_slices(const struct phase_spec *sp, char *why, size_t why_len);
/* Part i of n of a byte quota q: whole blocks when every I/O of the phase
 * has one size that divides q (12k over 2 at 4k: 8k and 4k, 3 I/Os in
 * all, not 2 + 2), else bytes as evenly as they go; the parts add up to q. */
uint64_t phase_bytes_part(const struct phase_spec *sp, uint64_t q, unsigned n, unsigned i);

/* The phase's targets, each once, in the order its streams name them
 * (result.target, and the target of each trace record): n of them into
 * out (PHASE_MAX_WORKERS at most: every target has a worker). The null and
 * sim engines' nowhere (TARGET_NONE) is one target however often named. */
unsigned phase_targets(const struct phase_spec *ph, const struct target **out);
/* The place of target t in phase_targets(ph). */
unsigned phase_target_index(const struct phase_spec *ph, const struct target *t);

/* Are the workers of a target given slices of its region? */
int phase_sliced(const struct phase_spec *sp);
/* Worker i's slice of its target's region [*off, *off + *len). */
void phase_slice_of(const struct phase_spec *sp, unsigned i, uint64_t *off, uint64_t *len);
/* Worker i's part of its target's region: part *part of *nparts (its
 * place among the workers of its target; 0 of 1 when it has a slice of its
 * own), laid out by wl_part in cells of its workload's grid. */
void phase_part_of(const struct phase_spec *sp, unsigned i, unsigned *part, unsigned *nparts);
/* A read_once phase's bytes: every target's region (this rank's) in whole
 * cells of the grid, the smallest alignment (the one block size). */
uint64_t phase_read_once_bytes(const struct phase_spec *sp);
/* The tail of target t's region a phase reading it once leaves unread
 * (*len bytes, under a block): the offset of its first unit the state or
 * the durability record says was written, 0 when none was. */
uint64_t phase_tail_written(const struct phase_spec *sp, unsigned t, uint64_t *len);
/* The bytes of the phase's region on target t (all of it past region_off
 * when the phase gives no region size). */
uint64_t phase_region_len(const struct phase_spec *sp, unsigned t);
/* This rank's region of target t, [*off, *off + *len): the phase's, or
 * this rank's slice of it when ranks share t (rank_parts): whole units and
 * alignments, the same size for every rank. */
void phase_region_of(const struct phase_spec *sp, unsigned t, uint64_t *off, uint64_t *len);

/* RC_OK: it ran (the result may still hold I/O errors, an engine failure,
 * or interrupted); RC_INPUT: bad input, found before any I/O (a workload
 * that cannot be laid out, a target refused at open); RC_FAIL: a system
 * failure (memory, threads, an engine's set-up). Each but RC_OK with why;
 * the result is then empty. */
int phase_run(const struct phase_spec *spec, struct phase_result *res, char *why, size_t why_len);
void phase_result_free(struct phase_result *res);

#endif
