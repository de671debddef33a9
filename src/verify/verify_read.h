/* verify_read.h - the units of a verifying read judged one by one, and
 * counted.
 *
 * A unit the generation map (genmap.h) says was written is checked
 * against its header (verify.h: missing, corrupt, misdirected, lost
 * write, foreign). A unit the map says was never written must be blank:
 * every sector of it the target's fill (fill.h) or zeros (a hole, a
 * zero fill, a trim); if so it is counted as never written, else it is
 * `unexpected` data (an intact header there too: a writer the map does
 * not know of). With skip_unwritten such units are not looked at, and
 * counted as skipped; after a crash (the default there), only those
 * without an iomoon header are: one with a header is judged (a misplaced
 * write, another target's data). Without a map that says what was written, a phase
 * that only reads (strict) checks every unit against its header; a phase
 * that writes and has no map at all (a target too large for one) checks
 * the units that hold a header and skips the others.
 */
#ifndef IOMOON_VERIFY_READ_H
#define IOMOON_VERIFY_READ_H

#include <stdint.h>

#include "core/stats.h"
#include "verify/genmap.h"

/* How one worker judges its reads of one target (set up before the
 * start barrier, read-only after). */
struct verify_view {
	const uint64_t *gens; /* the map's generations; NULL: no map */
	uint64_t ngens;
	uint64_t fill_key;    /* the target's fill (fill.h) */
	uint32_t unit, tid;   /* bytes per unit; the target's id (0: any) */
	int strict;           /* no map says what was written: every unit needs a header */
	int skip_unwritten;   /* phase.skip_unwritten */
	/* after_crash (crash.h): every unit classed against the record */
	const uint64_t *durable, *issued;
	uint64_t ncrash;      /* their units (at most ngens) */
	uint64_t high, horizon; /* the highest generation the state or record knows of; past it, never issued (crash.h) */
	int after_crash, atomic;
};

/* The view of map m (NULL: none) for a phase verifying in units of unit. */
void verify_view_init(struct verify_view *v, const struct gen_map *m, uint32_t unit, int strict, int skip_unwritten);

/* An after_crash pass: the view judges against record c (crash.h). */
void verify_view_crash(struct verify_view *v, const struct crash_rec *c, int atomic);

/* Judge the units of buf (len bytes read at offset) from byte `from` on,
 * counting each into vc, up to the first bad one. 0 when all are well,
 * else its VERR_* with its offset, and the expected and found values of
 * verify_message. */
int verify_read(const struct verify_view *v, const void *buf, uint32_t len, uint64_t offset, uint32_t from,
		struct verify_counts *vc, uint64_t *bad_offset, uint64_t *expected, uint64_t *found);

/* Where the written area of m's target ends: the end of the highest unit
 * m says was written (0: none). Reads the whole map at worst. */
uint64_t verify_written_end(const struct gen_map *m);

#endif
