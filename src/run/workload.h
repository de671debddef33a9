/* workload.h - what the next I/O is, and when it may start.
 *
 * A workload is read-only during a phase and shared by its workers; each
 * worker keeps a small wl_state (its random stream and sequential position).
 * Probabilities are fixed-point on a 2^32 scale so the hot path compares
 * integers. Nothing here allocates, locks or calls out.
 */
#ifndef IOMOON_WORKLOAD_H
#define IOMOON_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/op.h"
#include "core/rng.h"

#define WL_MAX_SPECS 32
#define WL_MAX_BS 32
#define WL_MAX_ZONES 16
#define WL_MAX_SEGMENTS 4096
#define WL_MAX_SEQ 64
#define WL_ONE (1ull << 32) /* probability 1 on the fixed-point scale */

enum wl_dist { DIST_UNIFORM, DIST_ZIPF, DIST_PARETO, DIST_NORMAL, DIST_ZONED, DIST_SEQUENCE };

struct wl_bs {
	uint64_t bytes;
	uint64_t cum; /* cumulative weight, 2^32 scale */
};

/* One IOMeter access specification. */
struct wl_spec {
	uint64_t cum;        /* cumulative weight among specs, 2^32 scale */
	uint64_t read_thr;   /* read % on the 2^32 scale */
	uint64_t random_thr; /* random % on the 2^32 scale */
	uint64_t align;      /* random offsets are multiples of this */
	uint64_t region_off, region_len; /* its own region (region_len 0: the phase's) */
	unsigned nbs;
	struct wl_bs bs[WL_MAX_BS];
	uint64_t trim_thr;   /* trim % on the 2^32 scale: the top of the scale, above the writes (0: none) */
	int64_t skip;        /* bytes skipped after each I/O on its sequential stream; < 0 steps back (fio's rw=read:-8k) */
};

struct wl_zone {
	uint64_t cum;        /* cumulative share of accesses, 2^32 scale */
	double region_pct;   /* share of the region, as given */
	uint64_t first, n;   /* grid cells it covers (set by wl_prepare) */
};

struct workload {
	unsigned nspecs;
	struct wl_spec spec[WL_MAX_SPECS];
	uint64_t region_off, region_len; /* bytes */
	uint64_t seq_start; /* the sequential stream starts this far into each worker's part (phase.seq_start) */

	enum wl_dist dist;
	double dist_arg;  /* zipf theta, pareto h, normal dev % */
	uint64_t grid;    /* granule of skewed distributions: the smallest align */
	uint64_t ncells;  /* region_len / grid */
	uint64_t scramble; /* multiplier coprime with ncells: spreads hot cells */
	unsigned nzones;
	struct wl_zone zone[WL_MAX_ZONES];
	double zipf_zetan, zipf_eta, zipf_alpha, zipf_2theta, pareto_pow;
	/* DIST_SEQUENCE: the block indices (in the spec's alignment) the random
	 * I/Os take in turn; seq_stride: each pass seq_n blocks further on */
	unsigned seq_n, seq_stride;
	uint64_t seq_idx[WL_MAX_SEQ];
	int random_map;    /* phase.random_map: fio's random map (wl_map_*), per worker */
	uint64_t prio_thr; /* share of I/Os with an I/O priority of their own, 2^32 scale (0: none) */
	uint16_t prio;     /* that priority (op.prio) */
};

struct wl_state {
	struct rng rng;
	/* region-relative offsets where a sequential I/O goes: [0] for the
	 * specs on the phase's region (one stream, as IOMeter), [1 + i] for
	 * spec i when it has a region of its own */
	uint64_t next_seq[WL_MAX_SPECS + 1];
	uint64_t seq_k; /* DIST_SEQUENCE: the random I/Os made so far */
	/* phase.random_map: a bit per grid cell of the region, set once a
	 * random I/O covered it (fio's random map), and a bit per word of it
	 * set when that word is full; NULL without. Cleared when every cell
	 * is set: a new pass over the region */
	uint64_t *map, *map_full;
	uint64_t map_used;
};

/* Compute derived tables (grid, zipf constants). 0, or -1 with why. */
int wl_prepare(struct workload *wl, char *why, size_t why_len);
/* Part `part` of `nparts` of a region of len bytes, in whole grains: the
 * first (len / grain) % nparts parts one grain more than the others, the
 * tail under a grain in none. [*off, *off + *part_len), relative to the
 * region's start; the parts tile [0, len - len % grain) in order. */
void wl_part(uint64_t len, uint64_t grain, unsigned part, unsigned nparts, uint64_t *off, uint64_t *part_len);
/* A worker's random stream (seeded by its id) and sequential positions:
 * each starts at the worker's part of its region (wl_part, in cells of
 * the grid; a spec's own region in its alignment). */
void wl_state_init(const struct workload *wl, struct wl_state *st, uint64_t seed, unsigned worker, unsigned part,
		   unsigned nparts);
void wl_next(const struct workload *wl, struct wl_state *st, struct wl_op *op);
/* The 64-bit words a worker's random map needs (both levels), 0 without
 * one; wl_map_attach gives st that memory (allocated at setup), cleared. */
size_t wl_map_words(const struct workload *wl);
void wl_map_attach(const struct workload *wl, struct wl_state *st, uint64_t *mem);
uint64_t wl_max_bs(const struct workload *wl);
uint64_t wl_min_bs(const struct workload *wl);
/* Does some spec trim? Does some spec write data (not only read or trim)? */
int wl_trims(const struct workload *wl);
int wl_writes_data(const struct workload *wl);

/* ---- pacing: think time, open-loop rate, schedules ---- */

enum think_kind { THINK_NONE, THINK_FIXED, THINK_UNIFORM, THINK_EXP };

struct pace_seg {
	uint64_t end_ns; /* from the start of measurement; UINT64_MAX: open-ended */
	double iops;     /* whole phase; 0 is an idle segment */
	int poisson;
};

struct pace {
	enum think_kind think;
	uint64_t think_a_ns, think_b_ns; /* fixed/mean, or uniform min..max */
	uint32_t burst;                  /* IOMeter burst length; 0 = none */
	uint64_t burst_delay_ns;
	unsigned nseg;                   /* 0: closed loop (no rate) */
	struct pace_seg seg[WL_MAX_SEGMENTS];
};

struct pace_state {
	uint64_t next_ns; /* intended start of the next I/O (absolute) */
	unsigned seg;
};

uint64_t pace_think_ns(const struct pace *p, struct rng *r);
/* The first intended start: at first_ns (plus a random stagger), on a
 * schedule whose segments count from t0 (the start of measurement). */
void pace_start(const struct pace *p, struct pace_state *ps, uint64_t t0, uint64_t first_ns,
		unsigned nworkers, struct rng *r);
/* Advance ps->next_ns past the I/O just given the slot; UINT64_MAX when the
 * schedule is over. */
void pace_advance(const struct pace *p, struct pace_state *ps, uint64_t t0, unsigned nworkers, struct rng *r);

#endif
