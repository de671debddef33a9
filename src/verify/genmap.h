/* genmap.h - the generation map of crc32c verification, and its state file.
 *
 * Every unit of a target written with verify = "crc32c" carries the
 * generation of its write in its header; the map holds, per unit, the
 * generation iomoon last completed there (0: never written with
 * verification). A read whose header is older than the map is a lost
 * write; a unit the map says was written, with no header, is missing.
 *
 * One map per file or device (keyed by st_dev and st_ino, or st_rdev for a
 * block device), whatever path names it. At the end of a phase that wrote
 * with verification the map is saved to a state file (genmap_save), so
 * that a later process can verify what this one wrote; before its first
 * write, when no state holds the target's id yet, a state that says
 * nothing was written (genmap_claim). Every state lives
 * in the state directory, named for the identity it is of, never for a
 * path: file-MAJ-MIN-INO.iomoon-verify (birth time checked on load),
 * blockdev-MAJ-MIN.iomoon-verify (the device's identity, devid.h, checked
 * on load, and kept in words beside it: .iomoon-device). A phase that
 * only reads a target whose state is of another file or device at that
 * name is refused, naming both. The directory: the phase's verify_state
 * (dir below), else the one this run keeps the target's map in, else
 * $IOMOON_STATE_DIR, else /var/lib/iomoon for root, else
 * $XDG_STATE_HOME/iomoon or ~/.local/state/iomoon. A run keeps one
 * directory per target: a phase naming another for a map that holds
 * something is refused. 8 bytes per unit, in memory and on disk; no map
 * (and no state) when that would pass 256 MiB.
 *
 * A phase that writes without verification marks the state stale first
 * (genmap_stale): a later phase that only reads refuses it. Maps no target
 * uses any more are freed before each phase (genmap_collect).
 */
#ifndef IOMOON_GENMAP_H
#define IOMOON_GENMAP_H

#include <stddef.h>
#include <stdint.h>

struct target;
struct crash_rec;

struct gen_map {
	struct gen_map *next;
	uint64_t dev, ino, btime_ns;  /* identity (btime 0: not known; of a
				       * block device: devid.h's digest) */
	char devid[192];              /* a block device's identity in words (devid.h) */
	int other;                    /* the state at its name is of another
				       * device or file (a number or inode reused) */
	uint64_t other_btime;         /* that one's btime_ns */
	uint64_t size;                /* the target's size when made */
	uint32_t unit;                /* bytes per unit */
	int loaded;                   /* read from a state file */
	int stale;                    /* written without verification since */
	int shrunk;                   /* units written lie past the end now */
	int claimed;                  /* its state on disk holds its tid */
	uint32_t tid;                 /* this target's id, in every header */
	char *path;                   /* a path it was found by */
	int written;                  /* relaxed atomic: written with
				       * verification in this process */
	int dirty;                    /* relaxed atomic: written since saved */
	char *state;                  /* the state file's path */
	char *dir;                    /* its directory as a phase gave it (verify_state), NULL: the default */
	struct crash_rec *crash;      /* its durability record, when open (crash.h) */
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

/* What a phase does to a target: for genmap_attach. */
#define GENMAP_READS 1
#define GENMAP_WRITES 2
/* (with GENMAP_READS, when checking a plan) an earlier phase of the plan
 * writes the target with verification: a stale or shrunk state is not
 * refused yet (that phase makes it anew; the run attaches again) */
#define GENMAP_PLANNED 4
/* (with GENMAP_READS) an after_crash pass: a target smaller than what was
 * written is judged, not refused: the map keeps the state's units past
 * its end, whose writes the crash lost (crash.h) */
#define GENMAP_CRASH 8

/* Attach t to the map of its file or device, loading the state file (in
 * dir, phase.verify_state; NULL: the default) if this process has no map
 * of it yet; a map kept in another directory that holds something is
 * refused (RC_REFUSED). unit: the phase's unit; when data on
 * t was written in units of another size (the map's, else the state's,
 * else the header at probe_off, unless UINT64_MAX, says so), *unit becomes
 * that size if the phase's sizes are whole units of it (4096-byte units
 * need four_k), else RC_INPUT with why. fresh: the file was created by this run
 * (any map or state of its inode is stale). mode: GENMAP_READS and/or
 * GENMAP_WRITES; a phase that reads without writing is refused (RC_REFUSED, why
 * the whole message) a stale state, or a target now smaller than what was
 * written. t->gmap is NULL when the map would be too large. rc.h's codes:
 * RC_OK, RC_INPUT bad unit (why says which), RC_REFUSED, RC_FAIL a system
 * failure (why says); why holds WHY_LEN bytes. */
int genmap_attach(struct target *t, const char *dir, uint32_t *unit, int four_k, int fresh, uint64_t probe_off,
		  int mode, char *why, size_t why_len);

/* Before a phase's first write with verification to t: its state saved
 * now, saying nothing was written yet, when no state on disk holds its
 * target id (a new map: a file just made (genmap_attach does it then), a
 * state of another file, none). A writer killed before its save leaves
 * that id, so the next process takes the intact headers it wrote for its
 * own, not for another's data. RC_OK, or RC_FAIL with why. */
int genmap_claim(struct target *t, char *why, size_t why_len);

/* Before a phase writes t without verification: mark its map and state
 * stale (the units it writes lose their headers): the state in dir (NULL:
 * the map's, else the default), and the map's own. RC_OK, or RC_FAIL
 * with why. */
int genmap_stale(const struct target *t, const char *dir, char *why, size_t why_len);

/* The state directory dir names (NULL: the default), in buf if need be. */
const char *genmap_dir(const char *dir, char *buf, size_t len);

/* Can a state be saved in dir (NULL: the default) (write): is it, or
 * the nearest directory that exists above it, writable, and can a
 * directory be made there? Else (a phase that only reads): is it a
 * directory? RC_OK, or RC_INPUT with why. */
int genmap_dir_check(const char *dir, int write, char *why, size_t why_len);

/* Free the maps no target can use any more: replaced ones, and those of
 * files gone or replaced whose state is saved. Call only between phases
 * (every target of the next phase attaches again). */
void genmap_collect(void);

/* The durability record of t's map (crash.h), opened for a phase that
 * writes with a durability point (write), or for an after_crash pass
 * (RC_INPUT with why when there is none of this map). RC_OK, RC_INPUT,
 * RC_FAIL. */
int genmap_durable(struct target *t, int write, char *why, size_t why_len);

/* Save t's map to its state file if written since (fsync of the target
 * first, then tmp + fsync + rename). RC_OK, or RC_FAIL with why. */
int genmap_save(struct target *t, char *why, size_t why_len);

/* The lock file of t's state (verify_lock.h): the state's name with
 * .iomoon-lock for .iomoon-verify, in the state directory (dir, else the
 * map's, else the default), made first (mkdir -p) when make. Malloc'd;
 * NULL when t cannot be stat'ed. */
char *genmap_lock_path(const struct target *t, const char *dir, int make);

#endif
