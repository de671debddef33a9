/* genmap.h - the generation map of crc32c verification, and its state file.
 *
 * Every unit of a target written with verify = "crc32c" carries the
 * generation of its write in its header; the map holds, per unit, the
 * generation iomoon last completed there (0: never written with
 * verification). A read whose header is older than the map is a lost
 * write; a unit the map says was written, with no header, is missing.
 *
 * One map per file or device (keyed by st_dev and st_ino, or st_rdev for a
 * block device), whatever path names it, for the process's life. At the
 * end of a phase that wrote with verification the map is saved to a state
 * file (genmap_save), so that a later process can verify what this one
 * wrote: for a regular file PATH.iomoon-verify beside it, for a block
 * device $IOMOON_STATE_DIR/blockdev-MAJ-MIN.iomoon-verify (default
 * /var/lib/iomoon). 8 bytes per unit, in memory and on disk; no map (and
 * no state) when that would pass 256 MiB.
 */
#ifndef IOMOON_GENMAP_H
#define IOMOON_GENMAP_H

#include <stddef.h>
#include <stdint.h>

struct target;

struct gen_map {
	struct gen_map *next;
	uint64_t dev, ino, btime_ns;  /* identity (btime 0: not known) */
	uint64_t size;                /* the target's size when made */
	uint32_t unit;                /* bytes per unit */
	int loaded;                   /* read from a state file */
	int written;                  /* relaxed atomic: written with
				       * verification in this process */
	int dirty;                    /* relaxed atomic: written since saved */
	char *state;                  /* the state file's path */
	uint64_t n, next_gen;         /* next_gen: atomic, the last handed out */
	uint64_t gens[];
};

/* Does the map say what was written (a state was loaded, or this process
 * wrote with verification)? If not, a verify_only pass cannot tell a unit
 * never written from a lost one: it expects every unit to hold a header. */
static inline int genmap_known(const struct gen_map *m)
{
	return m && (m->loaded || __atomic_load_n(&m->written, __ATOMIC_RELAXED));
}

/* Attach t to the map of its file or device, loading the state file if
 * this process has no map of it yet. unit: the phase's unit; when data on
 * t was written in units of another size (the map's, else the state's,
 * else the header at probe_off, unless UINT64_MAX, says so), *unit becomes that size if the
 * phase's sizes are whole units of it (4096-byte units need four_k), else
 * -2 with why. fresh: the file was created by this run (any map or state
 * of its inode is stale). t->gmap is NULL when the map would be too large.
 * 0, -2 bad input, -1 a system failure (why says). */
int genmap_attach(struct target *t, uint32_t *unit, int four_k, int fresh, uint64_t probe_off, char *why,
		  size_t why_len);

/* Save t's map to its state file if written since (fsync of the target
 * first, then tmp + fsync + rename). 0, or -1 with why. */
int genmap_save(struct target *t, char *why, size_t why_len);

#endif
