/* worker_verify.h - a worker's part in verification (worker_verify.c). */
#ifndef IOMOON_WORKER_VERIFY_H
#define IOMOON_WORKER_VERIFY_H

#include <stdint.h>

#include "run/worker.h"

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
