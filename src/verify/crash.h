/* crash.h - verification across a power cut: what a writing phase made
 * durable, recorded as it goes, and every unit judged against it after
 * the crash.
 *
 * The record: a phase writing with verify = "crc32c" and a durability
 * point (fsync / fdatasync every N writes, sync = "dsync" or "sync") keeps
 * beside the target's state (genmap.h) a file of its own,
 * DIR/...-MAJ-MIN[-INO].iomoon-durable: a 4 KiB header, then per unit the
 * last generation made durable, then per unit the last generation issued
 * (in flight or acknowledged). It is mapped shared: a write's issue
 * stores its generation in memory (no system call); when a flush
 * completes, every write of that worker that completed before the flush
 * was issued is durable, stored, and the record fdatasync'd (one more
 * sync per flush, of the pages those stores dirtied). The page cache
 * keeps it across a kill -9 of iomoon; the fdatasync across a power cut
 * of the host (the record on another disk: IOMOON_STATE_DIR). What the
 * record claims is never more than the storage acknowledged as durable: a
 * record cut short claims less, and no unit is blamed wrongly.
 *
 * The judgement (after_crash = true on a verify_only phase), unit by unit,
 * with D its last durable generation and W its last written one (the
 * state's, or the record's issued one):
 *   durable_ok      D > 0, and the unit holds generation D or a later one
 *   lost_durable    D > 0, and it holds an older one, or no data of ours,
 *                   or a tear with a sector older than D: the storage lied
 *   unflushed_kept  D = 0, and it holds a write of ours (one no flush
 *                   covered: the storage was free to lose it)
 *   unflushed_lost  D = 0, W > 0, and it holds no data (blank)
 *   torn            sectors of two writes (each sector's tag, verify.h),
 *                   every one intact (its own crc32c): an older one, and
 *                   at most W or one later write (the write in flight at
 *                   the cut: issued after the record's last sync, so the
 *                   record may not know of it), below the horizon
 *   corrupt         a header or sector no write of ours produced, or
 *                   sectors of two generations above W, or one of a
 *                   generation past the horizon: more than
 *                   CRASH_GEN_SLACK past the highest the state or record
 *                   knows of, never issued
 *   misdirected     an intact unit written for another offset
 *   foreign         an intact unit written for another target
 * A unit neither durable nor written (D = W = 0) and blank is never
 * written, and counted as such (result.verify.units_unwritten).
 * lost_durable, corrupt, misdirected and foreign fail the phase; torn too
 * with atomic = true.
 */
#ifndef IOMOON_CRASH_H
#define IOMOON_CRASH_H

#include <stddef.h>
#include <stdint.h>

#include "core/stats.h"

struct gen_map;

enum crash_class {
	CRASH_DURABLE_OK,
	CRASH_LOST_DURABLE,
	CRASH_UNFLUSHED_KEPT,
	CRASH_UNFLUSHED_LOST,
	CRASH_TORN,
	CRASH_CORRUPT,
	CRASH_MISDIRECTED,
	CRASH_FOREIGN,
	CRASH_UNWRITTEN = -1, /* D = W = 0, and blank: not a class */
};

/* The names of the classes, in enum order (result.crash's fields). */
extern const char *const crash_class_names[CRASH_NCLASS];

struct crash_rec {
	int fd, writable;
	uint64_t n;           /* units */
	size_t len;           /* the mapping's */
	void *map;
	uint64_t *durable;    /* the last generation a completed flush covered */
	uint64_t *issued;     /* the last generation issued */
};

/* The record of m's target (m->state's name with .iomoon-durable): opened
 * for writing (write: made, or made again when it is of another file,
 * target id or unit size), or for reading (an after_crash pass: RC_INPUT
 * with why when there is none that is m's). m->crash holds it. RC_OK,
 * RC_INPUT, RC_FAIL with why. */
int crash_rec_open(struct gen_map *m, int write, char *why, size_t why_len);
void crash_rec_close(struct gen_map *m);
/* The highest generation the record of m's target says was issued, if it
 * is of m's target and id (0: none): a writer killed before its save left
 * generations above its state's. */
uint64_t crash_rec_high(const struct gen_map *m);
/* The record beside state path `state` removed (written without
 * verification: it holds no more). */
void crash_rec_remove(const char *state);

/* Issue of a write: its generation, unit by unit (never lowered: two
 * workers' writes of one unit may store theirs out of order). */
static inline void crash_issue(struct crash_rec *c, uint64_t off, uint32_t len, uint32_t unit, uint64_t gen)
{
	for (uint64_t o = 0; o < len; o += unit) {
		uint64_t i = (off + o) / unit, was;

		if (i >= c->n)
			continue;
		was = __atomic_load_n(&c->issued[i], __ATOMIC_RELAXED);
		while (was < gen && !__atomic_compare_exchange_n(&c->issued[i], &was, gen, 1, __ATOMIC_RELAXED,
								 __ATOMIC_RELAXED))
			;
	}
}

/* A write made durable: its units hold at least gen. */
static inline void crash_durable(struct crash_rec *c, uint64_t off, uint32_t len, uint32_t unit, uint64_t gen)
{
	for (uint64_t o = 0; o < len; o += unit) {
		uint64_t i = (off + o) / unit, was;

		if (i >= c->n)
			continue;
		was = __atomic_load_n(&c->durable[i], __ATOMIC_RELAXED);
		while (was < gen && !__atomic_compare_exchange_n(&c->durable[i], &was, gen, 1, __ATOMIC_RELAXED,
								 __ATOMIC_RELAXED))
			;
	}
}

/* What was stored so far, on the record's disk (fdatasync). 0 or -1. */
int crash_rec_sync(struct crash_rec *c);

/* How far past the highest generation its state or record knows of a
 * write may have been issued before a power cut: the record's issued
 * generations reach its disk at each flush, not at each issue. */
#define CRASH_GEN_SLACK (1ull << 32)

/* Judge unit u (unit bytes read at offset at) of a target whose fill key
 * is fill_key and id tid, whose last durable generation is d and last
 * written w, no generation above horizon ever issued: its class (*lo,
 * *hi: the lowest and highest generation it holds, 0 for none). */
int crash_judge(const unsigned char *u, uint32_t unit, uint64_t at, uint64_t fill_key, uint32_t tid, uint64_t d,
		uint64_t w, uint64_t horizon, uint64_t *lo, uint64_t *hi);

/* A class counted, with its offset among the first. */
static inline void crash_count(struct crash_counts *cc, int cls, uint64_t at)
{
	if (cc->n[cls] < CRASH_FIRST)
		cc->at[cls][cc->n[cls]] = at;
	cc->n[cls]++;
}

#endif
