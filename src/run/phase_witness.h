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

/* What phase_bottleneck weighs. */
struct bottleneck_in {
	int instant_engine;   /* the engine completes at once (null) */
	int spinning_engine;  /* its waits spin (sim): its CPU share and waits tell nothing */
	int held_by_design;   /* a rate, schedule, think time, bursts or a replay's times */
	int host_served;      /* the host's memory served the I/O: tmpfs, the page cache */
	double inflight_mean, allowed;
	double cpu_busiest;   /* the largest share of its loop's time a worker was on a CPU */
	double cpu_waited;    /* ... a worker was runnable, waiting for a CPU (schedstat's run delay) */
	double other_user_pct; /* the machine's CPUs running other processes in user mode, % (not the
			        * kernel's threads doing iomoon's I/O: a loop device's are the device) */
	int others_unseen;    /* the measured time too short for the machine's 10 ms ticks: other_user_pct tells nothing */
	unsigned workers, cpus; /* the phase's worker threads; the machine's CPUs online */
};

/* Who set a phase's figures (result.bottleneck), in this order: "tool"
 * when the engine completes at once (null); "rate" when fewer than 90 %
 * of the I/Os allowed were in flight and a rate, think time or replay held
 * them back by design; "tool" when the host's memory served the I/O
 * (host_served); "host" when a worker waited for a CPU HOST_WAIT of its
 * loop's time or more while other work held HOST_OTHER_PCT % of the
 * machine's CPUs or more, or, in a phase too short for the machine's
 * ticks to see other work, while the workers were fewer than the CPUs
 * (they could not have held them all themselves): others took the CPU,
 * the figures are partly the host's; "tool" when a worker was on a CPU or waiting for one (its own
 * process's threads holding them) BUSY_SHARE of its loop's time or more
 * (iomoon's CPU, not the device, paced the I/O); else "device". An
 * engine whose waits spin (sim, a simulated device: its last 75 us) is on
 * a CPU or waiting for one whoever else runs: neither is asked of it. */
#define BUSY_SHARE 0.85
#define HOST_WAIT 0.10
#define HOST_OTHER_PCT 10.0
const char *phase_bottleneck(const struct bottleneck_in *in);

#endif
