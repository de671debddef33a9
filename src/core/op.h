/* op.h - what one I/O is: its kind, where it goes, how long it is.
 *
 * The workload's generator (run/workload.h) makes them, a replay takes
 * them from a trace, the engines (io/engine.h) do them, the counters
 * (stats.h) and the trace readers count them by kind.
 */
#ifndef IOMOON_OP_H
#define IOMOON_OP_H

#include <stdint.h>

/* What an I/O does. Reads, writes and trims come from the mix; a sync
 * (fsync or fdatasync) follows every N writes of a slot (worker.c). */
enum { OP_READ = 0, OP_WRITE = 1, OP_TRIM = 2, OP_SYNC = 3, OP_NTYPES = 4 };
/* The op types that move or discard data, and count as I/Os: read, write, trim. */
#define OP_NDATA 3

struct wl_op {
	uint64_t offset; /* absolute, bytes */
	uint32_t len;
	uint8_t op;      /* OP_READ, OP_WRITE, OP_TRIM or OP_SYNC */
	uint8_t spec;    /* the access spec it came from (its index in the mix) */
	uint16_t prio;   /* its own I/O priority (ioprio(2)'s class << 13 | level); 0: the thread's */
};

#endif
