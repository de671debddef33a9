/* worker.h - one thread of a phase and its hot loop. */
#ifndef IOMOON_WORKER_H
#define IOMOON_WORKER_H

#include <pthread.h>
#include <stdint.h>

#include "core/stats.h"
#include "io/engine.h"
#include "run/data.h"
#include "run/phase.h"
#include "run/workload.h"
#include "verify/verify_read.h"

/* What the phase's threads share while it runs. The start and the end
 * are a handshake under `lock` (workers say ready, the phase says go,
 * workers say finished); during the run only `stop` is shared. */
struct crash_track;

struct phase_shared {
	const struct phase_spec *spec;
	pthread_mutex_t lock;
	pthread_cond_t cond;  /* on CLOCK_MONOTONIC */
	unsigned ready;       /* under lock: workers whose engine is set up */
	int go;               /* under lock: t_start_ns and friends are set */
	unsigned finished;    /* under lock: workers done */
	unsigned exiting;     /* atomic: workers past their loop (the last
			       * saves the verification state) */
	uint64_t t_start_ns, measure_ns, end_ns; /* end_ns UINT64_MAX: untimed */
	int stop;             /* relaxed atomic: finish now */
};

struct worker {
	pthread_t thread;
	unsigned id;
	struct phase_shared *sh;
	const struct phase_spec *spec; /* its workload: the phase's, or its stream's */
	const struct workload *wl;
	struct target *target;
	int fd;
	/* its part of its target's region (phase_part_of): where its
	 * sequential stream starts and, in a phase that reads the region
	 * once (read_once), its bytes quota */
	unsigned part, nparts;
	uint64_t ios_quota, bytes_quota; /* this worker's share; UINT64_MAX: none */
	struct engine engine;
	char features[64];     /* engine.features, kept past the engine's exit */
	struct io_slot *slots;
	void *bufs;
	uint64_t *rmap;            /* its random map (phase.random_map; workload.h), or NULL */
	size_t buf_len;
	void *shared;              /* buffers past the slots that writes use (data.h's bands), or NULL */
	size_t shared_len;
	struct counters c;
	struct data_gen data;      /* what its writes carry (data.h) */
	struct verify_view vv;     /* how its reads are verified (crc32c) */
	struct crash_track *ct;    /* its writes' durability, recorded (worker_verify.h) */
	struct trace_rec *trace;
	struct spec_stats *specs;  /* per access spec, when the phase has named specs */
	struct replay_stats *replay; /* its replay's lag, when it replays a trace */
	uint64_t ntrace, trace_max;
	uint8_t trace_target;      /* its target's place in phase_targets, for its trace records */
	struct batch_stats batch; /* submissions and reaps by size */
	int init_failed, engine_failed;
	char error[256];
};

void *worker_main(void *arg);
/* Add a finished worker's submission and reap sizes to a phase's. */
void worker_batch_merge(struct batch_stats *to, const struct worker *w);

#endif
