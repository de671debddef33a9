/* phase_witness.h - the kernel as a witness of a phase (result.device):
 * the block devices under its targets, their request counts read as the
 * measured time starts and again after the join (io/devstat.h). */
#ifndef IOMOON_PHASE_WITNESS_H
#define IOMOON_PHASE_WITNESS_H

#include <stdint.h>

#include "io/devstat.h"
#include "run/phase.h"

#define WITNESS_MAX_DEVS 4

struct witness {
	unsigned n;                  /* devices to read (0: none) */
	unsigned maj[WITNESS_MAX_DEVS], min[WITNESS_MAX_DEVS];
	char names[96];              /* theirs, joined by '+' */
	struct devstat a[WITNESS_MAX_DEVS];
	uint64_t a_ns;               /* when a was read (0: not yet, or it failed) */
	int in_memory;               /* every target is on tmpfs or ramfs */
};

/* The devices under every target of sp (and of its streams). None when a
 * target has no device of its own to read (a network target, tmpfs), or
 * more than WITNESS_MAX_DEVS: a witness of part of the I/O would mislead. */
void witness_setup(struct witness *w, const struct phase_spec *sp);
/* Measurement starts: the counts now. */
void witness_begin(struct witness *w);
/* After the join: what the devices did since witness_begin, into
 * out->device (out->has_device 0 when there is nothing to tell). */
void witness_end(struct witness *w, struct phase_result *out);

/* Who set a phase's figures (result.bottleneck): "tool" when the engine
 * completes at once (null), when the host's memory served the I/O
 * (host_served: a file on tmpfs, or a device that moved under a tenth of
 * the bytes: the page cache), or when a worker was on a CPU at least
 * BUSY_SHARE of its loop's time (cpu_busiest: its thread's share, or the
 * process's per worker) (the host's CPU, not the device, paced the I/O);
 * "rate" when fewer than 90 % of the I/Os allowed were in flight and a
 * rate, think time or replay held them back by design; else "device". An
 * engine whose waits spin (sim, a simulated device: its last 75 us) is on
 * the CPU while it waits, so its CPU share tells nothing. */
#define BUSY_SHARE 0.85
const char *phase_bottleneck(int instant_engine, int spinning_engine, int held_by_design, int host_served,
			     double inflight_mean, double allowed, double cpu_busiest);

#endif
