/* worker_verify.h - a worker's part in verification (worker_verify.c). */
#ifndef IOMOON_WORKER_VERIFY_H
#define IOMOON_WORKER_VERIFY_H

#include <stdint.h>

#include "run/worker.h"
#include "verify/crash.h"

/* A worker's writes on their way to durability (verify/crash.h): those
 * completed, in order, until a flush issued after them completes. A
 * ring: when a flush is long in coming the oldest are dropped (the record
 * then claims less than it could, never more). */
struct crash_entry {
	uint64_t off, gen;
	uint32_t len;
};
struct crash_track {
	struct crash_rec *rec;
	uint32_t unit;
	int dsync;            /* O_DSYNC / O_SYNC: a write is durable when it completes */
	unsigned since;       /* dsync: writes made durable since the record's last sync */
	uint64_t done, base;  /* writes completed (appended); the first not yet durable */
	uint64_t cap;
	struct crash_entry e[];
};

/* A verified write issued: its generation in the record. */
static inline void worker_crash_issue(struct worker *w, const struct io_slot *s)
{
	crash_issue(w->ct->rec, s->op.offset, s->op.len, w->ct->unit, s->gen);
}
/* A flush issued: it covers the writes completed until now. */
static inline void worker_crash_sync_start(struct worker *w, struct io_slot *s)
{
	s->gen = w->ct->done;
}
/* A flush completed: what it covers is durable. */
void worker_crash_synced(struct worker *w, const struct io_slot *s);

/* A completed I/O under verification: a write records its generation, a
 * read is checked, every bad unit counted. 0 when a read failed. */
int worker_verified(struct worker *w, const struct io_slot *s, uint64_t now);
/* Does s (taken from the free slots) overlap an I/O of this worker in
 * flight, one of them a write? */
int worker_overlaps(const struct worker *w, struct io_slot *const *freeq, unsigned nfree, unsigned qd,
		    const struct io_slot *s);
/* Before the start barrier: the generation map and how reads are judged.
 * 0, or -1 with w->error. */
int worker_verify_setup(struct worker *w);
/* The last worker of a phase out saves the maps its writes changed. */
void worker_verify_finish(struct worker *w);

#endif
