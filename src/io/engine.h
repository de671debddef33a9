/* engine.h - the I/O engine interface: one small ops table per engine.
 *
 * A worker owns one engine instance and an array of slots (one per unit of
 * queue depth). It fills a slot's op, calls queue() for each I/O it wants to
 * start, then reap(), which pushes everything queued to the kernel and waits
 * for at least `min` completions or the timeout. A completed slot has res
 * set to the bytes transferred or -errno (a trim: its length; a sync: 0).
 * Besides reads and writes, an engine issues syncs (fsync, or fdatasync
 * under ENGINE_DATASYNC) and, where trim_files / trim_blocks say so, trims
 * (the worker does the others with a system call). Engines know nothing of Lua,
 * phases, statistics or reports; adding one is a file and a line in engine.c.
 */
#ifndef IOMOON_ENGINE_H
#define IOMOON_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/op.h"

struct io_slot {
	struct wl_op op;
	void *buf;
	uint64_t intended_ns; /* open loop: when this I/O was meant to start */
	uint64_t submit_ns;
	uint64_t commit_ns;   /* a write followed by its own sync: when the write started (commit latency) */
	int64_t res;          /* bytes done, or -errno */
	uint64_t gen;         /* crc32c verification: this write's generation */
	unsigned index;       /* position in the worker's slot array */
	void *engine_priv;    /* the engine's, for engines whose completions name only the slot */
};

struct engine_cfg {
	int fd;
	unsigned qd;
	struct io_slot *slots; /* qd of them, buffers already allocated */
	size_t buf_len;        /* bytes in each slot's buffer */
	void *shared;          /* and shared_len bytes any slot's write may point into (or NULL) */
	size_t shared_len;
	uint64_t sim_latency_ns; /* the sim engine's service time */
	unsigned flags;          /* ENGINE_* options, for the engines that have them */
	int discard;             /* how trims discard: enum discard_kind (io/discard.h) */
	const char *url;         /* a network engine's LUN or export (netblk.h); fd is then -1 */
};

/* io_uring's kernel features, asked for per phase */
#define ENGINE_SQPOLL 1u         /* a kernel thread polls the submission queue */
#define ENGINE_IOPOLL 2u         /* completions are polled from the device */
#define ENGINE_DEFER_TASKRUN 4u  /* completion work runs only when we wait */
/* every engine: an OP_SYNC is fdatasync(2), not fsync(2) */
#define ENGINE_DATASYNC 8u
/* a network engine: every write with Force Unit Access (phase.sync =
 * "dsync" or "sync": what O_DSYNC is to a file), durable when it completes */
#define ENGINE_FUA 16u

/* How long a stopped worker of an engine that drops waits for its
 * in-flight I/Os (a healthy server answers in far less) before exit()
 * abandons them: a server that stalls does not hold the stop. */
#define ENGINE_DROP_NS 250000000ull

struct engine;

struct engine_ops {
	const char *name;
	int sync;  /* does each I/O inside reap(); one in flight at a time */
	int trim_files, trim_blocks; /* issues OP_TRIM itself on a file, a block device */
	/* 0 if the engine works on this kernel; else -1 and why. */
	int (*probe)(char *why, size_t why_len);
	int (*init)(struct engine *e, const struct engine_cfg *cfg, char *why, size_t why_len);
	void (*queue)(struct engine *e, struct io_slot *s);
	/* Push what is queued to the kernel now, without waiting (optional:
	 * NULL where queue() or reap() does the work; then phase.batch =
	 * "auto" does not search, batch.c). -errno on failure. */
	int (*submit)(struct engine *e);
	/* Submit what is queued, then wait up to timeout_ns (UINT64_MAX:
	 * forever) for min completions; store up to max of them in done.
	 * Returns how many, or -errno for a failure of the engine itself. */
	int (*reap)(struct engine *e, unsigned min, uint64_t timeout_ns,
		    struct io_slot **done, unsigned max);
	void (*exit)(struct engine *e);
	/* A network engine: at a stop (a signal, an error, a timed phase's
	 * end) I/Os still in flight ENGINE_DROP_NS after it are abandoned,
	 * not waited for: exit() drops them with the connection, at once
	 * (their completions never run, and the library writes into no slot's
	 * buffer after exit() returns), and they are not counted. */
	int drops;
	/* a network engine (netblk.h): its URL schemes and short
	 * connections; NULL for the engines of local files and devices */
	const struct net_ops *net;
};

struct engine {
	const struct engine_ops *ops;
	void *priv;
	const char *features; /* what init enabled, e.g. "fixed-files,fixed-buffers" */
};

/* probe() of an engine that needs nothing of the kernel */
int engine_probe_always(char *why, size_t why_len);

const struct engine_ops *engine_find(const char *name);
/* The first engine that works here, in the order io_uring, libaio, psync. */
const struct engine_ops *engine_auto(void);
/* All engines, NULL-terminated, for `iomoon list`. */
const struct engine_ops *const *engine_all(void);

extern const struct engine_ops engine_psync;
extern const struct engine_ops engine_libaio;
extern const struct engine_ops engine_uring;
extern const struct engine_ops engine_null;
extern const struct engine_ops engine_sim;
extern const struct engine_ops engine_nbd;
extern const struct engine_ops engine_iscsi;
extern const struct engine_ops engine_nfs;

#endif
