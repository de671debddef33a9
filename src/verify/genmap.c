/* genmap.c - generation maps of crc32c verification, kept per file or
 * device for the process's life and saved to a state file (genmap.h). */
#include "verify/genmap.h"
#include "core/outfile.h"
#include "core/rc.h"
#include "core/shown.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "io/target.h"
#include "verify/crash.h"
#include "verify/devid.h"
#include "verify/state_dirs.h"
#include "verify/verify.h"

#define MAP_MAX_BYTES (256ull << 20)
#define STATE_MAGIC "IOMVST02"
#define STATE_STALE 1u

/* The state file: this header, then n generations (host byte order). */
struct state_hdr {
	char magic[8];
	uint32_t unit, crc;  /* crc32c of header (crc 0) and generations */
	uint64_t size, n, dev, ino, btime_ns, next_gen;
	uint32_t flags, tid;  /* STATE_STALE; the target's id */
};

static struct gen_map *maps, *retired;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;


/* Fill m's identity from what path names; RC_FAIL with errno on failure. */
static int identify(const struct target *t, struct gen_map *m)
{
	struct statx sx;

	if (t->url) { /* a LUN or export: named by its URL (netblk.h) */
		m->dev = t->id_dev;
		m->ino = t->id_ino;
		m->btime_ns = 0;
		return RC_OK;
	}
	if (statx(AT_FDCWD, t->path, 0, STATX_TYPE | STATX_INO | STATX_BTIME, &sx))
		return RC_FAIL;
	if (S_ISBLK(sx.stx_mode)) {
		m->dev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
		m->ino = 0;
		m->btime_ns = devid_of(sx.stx_rdev_major, sx.stx_rdev_minor, m->devid, sizeof(m->devid));
	} else {
		m->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
		m->ino = sx.stx_ino;
		m->btime_ns = sx.stx_mask & STATX_BTIME
			? (uint64_t)sx.stx_btime.tv_sec * 1000000000ull + sx.stx_btime.tv_nsec : 0;
	}
	return RC_OK;
}

static int same_file(const struct gen_map *a, const struct gen_map *b)
{
	return a->dev == b->dev && a->ino == b->ino &&
	       (!a->btime_ns || !b->btime_ns || a->btime_ns == b->btime_ns);
}

static uint32_t state_crc(const struct state_hdr *h, const uint64_t *gens, uint64_t n)
{
	struct state_hdr c = *h;

	c.crc = 0;
	return crc32c(crc32c(0, &c, sizeof(c)), gens, n * sizeof(uint64_t));
}

/* Does g say a unit was written at or past index from (of n)? */
static int written_from(const uint64_t *g, uint64_t from, uint64_t n)
{
	for (uint64_t i = from; i < n; i++)
		if (g[i])
			return 1;
	return 0;
}

/* Load m's state file into m when it is of this very file and unit size
 * (any other is stale: ignored, and replaced at the next save). A state
 * marked stale gives only its next generation and id. RC_OK (loaded or
 * nothing to load), RC_FAIL with why when it exists but cannot be read or is
 * damaged: never verify against a state half understood. */
static int load(struct gen_map *m, char *why, size_t why_len)
{
	struct state_hdr h;
	struct gen_map id = { .dev = m->dev };
	uint64_t *g = NULL, high;
	char p[256];
	int fd = open(m->state, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc = RC_FAIL;

	if (fd < 0) {
		if (errno == ENOENT)
			return RC_OK;
		snprintf(why, why_len, "verification state %s: %s", shown(m->state, p, sizeof(p)), strerror(errno));
		return RC_FAIL;
	}
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h.magic, STATE_MAGIC, 8) ||
	    h.n > MAP_MAX_BYTES / 8 || h.unit < 512 || h.unit % 512 || !(g = malloc(h.n * 8 + 1)) ||
	    pread(fd, g, h.n * 8, sizeof(h)) != (ssize_t)(h.n * 8) || state_crc(&h, g, h.n) != h.crc) {
		snprintf(why, why_len, "verification state %s: damaged or not a state file (remove it to verify "
			 "without it)", shown(m->state, p, sizeof(p)));
		goto out;
	}
	id.ino = h.ino;
	id.btime_ns = h.btime_ns;
	id.dev = h.dev;
	rc = RC_OK;
	if (h.dev == m->dev && h.ino == m->ino && !same_file(m, &id)) {
		m->other = 1; /* a number or inode reused: refused to a phase that only reads */
		m->other_btime = h.btime_ns;
	}
	if (!same_file(m, &id) || h.unit != m->unit || (!m->ino && h.size != m->size))
		goto out; /* another file or device: stale (a resized file keeps its units) */
	m->next_gen = h.next_gen;
	m->tid = h.tid;
	m->claimed = 1;
	high = crash_rec_high(m);
	if (high > m->next_gen) /* a writer killed before its save issued more */
		m->next_gen = high;
	if (h.flags & STATE_STALE) {
		m->stale = 1;
		goto out;
	}
	m->shrunk = written_from(g, m->size / m->unit, h.n);
	memcpy(m->gens, g, (h.n < m->n ? h.n : m->n) * 8);
	m->loaded = 1;
out:
	free(g);
	close(fd);
	return rc;
}

/* The units of the state of id in dir, when it is one of id's in units
 * of unit and not stale; 0 if not. */
static uint64_t state_units(const struct gen_map *id, const char *dir, uint32_t unit)
{
	struct state_hdr h;
	struct gen_map of = { 0 };
	char *st = sdir_state_path(id, dir);
	int fd = st ? open(st, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1, ok;

	free(st);
	if (fd < 0)
		return 0;
	ok = pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h.magic, STATE_MAGIC, 8) &&
	     !(h.flags & STATE_STALE) && h.unit == unit && h.n <= MAP_MAX_BYTES / 8;
	close(fd);
	of.dev = h.dev;
	of.ino = h.ino;
	of.btime_ns = h.btime_ns;
	return ok && same_file(id, &of) ? h.n : 0;
}

/* The unit size of t's state file, 0 when there is none to go by. */
static uint32_t state_unit(const char *state)
{
	struct state_hdr h;
	int fd = open(state, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	uint32_t u = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h.magic, STATE_MAGIC, 8) &&
	    !(h.flags & STATE_STALE))
		u = h.unit;
	close(fd);
	return u;
}

static void map_free(struct gen_map *m)
{
	if (!m)
		return;
	crash_rec_close(m);
	free(m->state);
	free(m->dir);
	free(m->path);
	free(m);
}

/* A new map of t in units of unit, its state in dir (NULL: the default),
 * loaded from it unless fresh; of min_n units at least (an after_crash
 * pass on a target cut short keeps every unit its state knows). */
static struct gen_map *map_new(const struct target *t, const struct gen_map *id, const char *dir, uint32_t unit,
			       int fresh, uint64_t min_n, char *why, size_t why_len)
{
	uint64_t n = t->size / unit + 1 > min_n ? t->size / unit + 1 : min_n;
	struct gen_map *m = calloc(1, sizeof(*m) + n * sizeof(uint64_t));

	if (!m) {
		snprintf(why, why_len, "verification: no memory for a generation map of %llu units",
			 (unsigned long long)n);
		return NULL;
	}
	m->dev = id->dev;
	m->ino = id->ino;
	m->btime_ns = id->btime_ns;
	memcpy(m->devid, id->devid, sizeof(m->devid));
	m->size = t->size;
	m->unit = unit;
	m->n = n;
	if (getrandom(&m->tid, sizeof(m->tid), 0) != sizeof(m->tid))
		m->tid = (uint32_t)(id->ino * 0x9e3779b1u ^ id->btime_ns);
	m->tid += !m->tid; /* 0 is no id */
	m->state = sdir_state_path(m, dir);
	m->dir = dir ? strdup(dir) : NULL;
	m->path = strdup(t->path);
	if (!m->state || !m->path || (dir && !m->dir) || (!fresh && load(m, why, why_len) < 0)) {
		if (!m->state || !m->path || (dir && !m->dir))
			snprintf(why, why_len, "verification: no memory");
		map_free(m);
		return NULL;
	}
	return m;
}

/* The map of the file id names, if this process has one. */
static struct gen_map **find(const struct gen_map *id)
{
	struct gen_map **pp;

	for (pp = &maps; *pp; pp = &(*pp)->next)
		if ((*pp)->dev == id->dev && (*pp)->ino == id->ino)
			return pp;
	return NULL;
}

/* The unit a phase verifies t in: the map's when it holds data (or the
 * state's), if the phase's sizes are whole map units; RC_INPUT if not. */
static int pick_unit(const struct target *t, uint32_t have, uint32_t *unit, int four_k, const char *from,
		     char *why, size_t why_len)
{
	char p[256];

	if (!have || have == *unit)
		return RC_OK;
	if (have == 512 || (have == 4096 && four_k)) {
		*unit = have;
		return RC_OK;
	}
	snprintf(why, why_len, "%u-byte units (target %s: %s)", have, shown(t->path, p, sizeof(p)), from);
	return RC_INPUT;
}

/* The unit size data on t was written in, when no map of this process
 * says: its state's, else the header at probe_off's; 0 when neither. */
static uint32_t unit_on_disk(const struct target *t, const struct gen_map *id, const char *dir, uint64_t probe_off,
			     const char **from)
{
	struct verify_hdr h;
	char *st = sdir_state_path(id, dir);
	uint32_t u = st ? state_unit(st) : 0;
	int fd;

	free(st);
	*from = "its verification state says so";
	if (u || probe_off == UINT64_MAX)
		return u;
	fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &h, sizeof(h), (off_t)probe_off) == (ssize_t)sizeof(h) && h.magic == VERIFY_MAGIC &&
	    h.offset == probe_off && h.unit_sectors)
		u = h.unit_sectors * 512u;
	close(fd);
	*from = "the header at the region's start says so";
	return u;
}

/* Replace *pp (when there is one) by m in the registry, keeping what the
 * old map knew of the units both have (the target grew); the old one is
 * retired, freed by genmap_collect before the next phase. */
static void map_insert(struct gen_map **pp, struct gen_map *m)
{
	struct gen_map *old = pp ? *pp : NULL;

	if (!old) {
		m->next = maps;
		maps = m;
		return;
	}
	if (same_file(old, m)) {
		if (old->next_gen > m->next_gen)
			m->next_gen = old->next_gen;
		m->tid = old->tid;
		m->claimed = old->claimed;
		m->stale = m->stale || old->stale;
	}
	if (old->unit == m->unit && same_file(old, m) && genmap_known(old) && !old->stale) {
		memcpy(m->gens, old->gens, (old->n < m->n ? old->n : m->n) * sizeof(uint64_t));
		m->written = old->written;
		m->loaded = m->loaded || old->loaded;
		m->shrunk = m->shrunk || written_from(old->gens, m->size / m->unit, old->n);
	}
	m->next = old->next;
	*pp = m;
	old->next = retired;
	retired = old;
}

/* A stale map a phase writes to starts again: nothing it claimed holds. */
static void map_restart(struct gen_map *m)
{
	memset(m->gens, 0, m->n * sizeof(uint64_t));
	m->loaded = 0;
	m->shrunk = 0;
	__atomic_store_n(&m->written, 0, __ATOMIC_RELAXED);
}

/* Refuse a phase that reads a stale or shrunk map without writing:
 * RC_REFUSED, why the whole message. */
static int refuse_reads(const struct target *t, const struct gen_map *m, int mode, char *why, size_t why_len)
{
	char p[256], q[256];

	if (!m || (mode & (GENMAP_WRITES | GENMAP_PLANNED)) || !(mode & GENMAP_READS))
		return RC_OK;
	if (m->other) {
		devid_refusal(t->path, m, why, why_len);
		return RC_REFUSED;
	}
	if (m->stale) {
		snprintf(why, why_len, "phase.verify: target %s was written since the last verified write this state "
			 "knows of (without verification, or by a run keeping its state in another directory: "
			 "verify_state, IOMOON_STATE_DIR): rewrite it with verify, or delete the state %s",
			 shown(t->path, p, sizeof(p)), shown(m->state, q, sizeof(q)));
		return RC_REFUSED;
	}
	if (m->shrunk && !(mode & GENMAP_CRASH)) {
		snprintf(why, why_len, "phase.verify: target %s is smaller than what was written with "
			 "verification (%llu bytes now): restore its size, or, after a crash that cut it short, judge "
			 "it with iomoon verify --after-crash (after_crash = true), which counts the units past its end "
			 "lost (the state %s says what was written there: keep it)",
			 shown(t->path, p, sizeof(p)), (unsigned long long)t->size, shown(m->state, q, sizeof(q)));
		return RC_REFUSED;
	}
	return RC_OK;
}

static int write_state(struct gen_map *m, int empty, char *why, size_t why_len);

/* m's state on disk with m's id before its first write (genmap_claim),
 * unless it holds that id already. */
static int claim_locked(struct gen_map *m, char *why, size_t why_len)
{
	if (!m || m->claimed)
		return RC_OK;
	sdir_make_parents(m->state);
	if (write_state(m, 1, why, why_len) < 0)
		return RC_FAIL;
	m->claimed = 1;
	return RC_OK;
}

/* A map of this process that holds something a state directory of its
 * own would lose: what was written, a claim, a stale mark. */
static int holds_state(const struct gen_map *m)
{
	return genmap_known(m) || m->claimed || m->stale;
}

/* dir (phase.verify_state) asked for a target whose map keeps its state
 * in another directory in this run: RC_REFUSED, why the whole message. */
static int refuse_dir(const struct target *t, const struct gen_map *m, const char *dir, char *why, size_t why_len)
{
	char buf[4096], p[256], q[256], r[256];

	snprintf(why, why_len, "phase.verify_state: %s, but target %s keeps its verification state in %s in this run "
		 "(an earlier phase's): one run keeps one state directory per target (give verify_state = %s, or "
		 "leave it out)", shown(dir, p, sizeof(p)), shown(t->path, q, sizeof(q)),
		 shown(sdir_of(m->dir, buf, sizeof(buf)), r, sizeof(r)), r);
	return RC_REFUSED;
}

static int attach_locked(struct target *t, const char *dir, uint32_t *unit, int four_k, int fresh,
			 uint64_t probe_off, int mode, char *why, size_t why_len)
{
	struct gen_map id = { 0 }, **pp, *m = NULL;
	const char *from = "so written by an earlier phase";
	uint32_t have = 0;
	char p[256];

	if (fresh && t->gmap)
		return RC_OK; /* another worker of this phase attached the new file */
	t->gmap = NULL;
	if (identify(t, &id)) {
		int e = errno;

		snprintf(why, why_len, "verification: stat %s: %s", shown(t->path, p, sizeof(p)), strerror(e));
		return RC_FAIL;
	}
	pp = find(&id);
	if (pp && !fresh && same_file(*pp, &id))
		m = *pp; /* else a new file on a reused inode: forget the old */
	if (m && dir && !sdir_same(dir, m->dir)) {
		if (holds_state(m))
			return refuse_dir(t, m, dir, why, why_len);
		m = NULL; /* it knows nothing: a map of the directory asked replaces it */
	} else if (m && !dir) {
		dir = m->dir; /* the directory this run keeps it in */
	}
	if (m && m->size > t->size)
		m->shrunk = m->shrunk || written_from(m->gens, t->size / m->unit, m->n);
	if (genmap_known(m) && !m->stale)
		have = m->unit;
	else if (!fresh)
		have = unit_on_disk(t, &id, dir, probe_off, &from);
	if (pick_unit(t, have, unit, four_k, from, why, why_len))
		return RC_INPUT;
	if (m && (m->unit != *unit || m->n < t->size / *unit + 1))
		m = NULL; /* never written in this unit, or resized: a new map */
	if (!m) {
		if ((t->size / *unit + 1) * sizeof(uint64_t) > MAP_MAX_BYTES)
			return RC_OK; /* too large to keep: lost writes go undetected */
		m = map_new(t, &id, dir, *unit, fresh, (mode & GENMAP_CRASH) && !fresh ? state_units(&id, dir, *unit) : 0,
			    why, why_len);
		if (!m)
			return RC_FAIL;
		map_insert(pp, m);
	}
	if (refuse_reads(t, m, mode, why, why_len))
		return RC_REFUSED;
	if (m->stale && (mode & GENMAP_WRITES))
		map_restart(m); /* stale until this phase's save */
	t->gmap = m;
	if (!fresh || !(mode & GENMAP_WRITES))
		return RC_OK;
	if (claim_locked(m, why, why_len))
		return RC_FAIL;
	sdir_list_add(m, m->dir); /* a new file: no other state of it to outdate */
	return RC_OK;
}

int genmap_attach(struct target *t, const char *dir, uint32_t *unit, int four_k, int fresh, uint64_t probe_off,
		  int mode, char *why, size_t why_len)
{
	int rc;

	pthread_mutex_lock(&lock);
	rc = attach_locked(t, dir, unit, four_k, fresh, probe_off, mode, why, why_len);
	pthread_mutex_unlock(&lock);
	return rc;
}

/* May path be replaced by a state: absent, or a state file itself? */
static int replaceable(const char *path)
{
	struct stat st;
	char magic[8];
	int fd, ok;

	if (lstat(path, &st))
		return errno == ENOENT;
	if (!S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ok = pread(fd, magic, 8, 0) == 8 && !memcmp(magic, STATE_MAGIC, 8);
	close(fd);
	return ok;
}

/* Write m to its state file through outfile.c (a temporary beside it,
 * synced, renamed over the state, the directory synced), which must be a
 * state file or absent. A stale map is written as a stale state, without
 * its generations, and so is an empty one, as a state that says nothing
 * was written yet. Mode 0644 whoever wrote it before. */
static int write_state(struct gen_map *m, int empty, char *why, size_t why_len)
{
	uint64_t n = m->stale || empty ? 0 : m->n;
	struct state_hdr h = { .unit = m->unit, .size = m->size, .n = n, .dev = m->dev, .ino = m->ino,
			       .btime_ns = m->btime_ns, .next_gen = __atomic_load_n(&m->next_gen, __ATOMIC_RELAXED),
			       .flags = m->stale ? STATE_STALE : 0, .tid = m->tid };
	char no[WHY_LEN], p[256];
	struct outfile o;
	int rc;

	memcpy(h.magic, STATE_MAGIC, 8);
	h.crc = state_crc(&h, m->gens, n);
	if (!replaceable(m->state)) {
		snprintf(why, why_len, "verification state %s: not a state file, left as it is (a later process "
			 "cannot verify this phase's writes)", shown(m->state, p, sizeof(p)));
		return RC_FAIL;
	}
	rc = outfile_begin(&o, m->state, no, sizeof(no));
	if (rc == RC_OK) {
		o.mode = 0644;
		o.keep_mode = 1;
		rc = outfile_write(&o, &h, sizeof(h), no, sizeof(no));
		if (rc == RC_OK)
			rc = outfile_write(&o, m->gens, n * 8, no, sizeof(no));
		if (rc == RC_OK)
			rc = outfile_commit(&o, no, sizeof(no));
		else
			outfile_abort(&o);
	}
	if (rc != RC_OK)
		snprintf(why, why_len, "verification state: %s (a later process cannot verify this phase's writes)", no);
	else
		m->other = 0; /* the state at its name is its own now */
	if (rc == RC_OK && !m->ino && m->devid[0])
		sdir_side_write(m->state, ".iomoon-device", m->devid); /* to name it if another device comes */
	return rc == RC_OK ? RC_OK : RC_FAIL;
}

int genmap_save(struct target *t, char *why, size_t why_len)
{
	struct gen_map *m = t->gmap;
	int fd, rc;

	if (!m || !__atomic_exchange_n(&m->dirty, 0, __ATOMIC_RELAXED))
		return RC_OK;
	pthread_mutex_lock(&lock);
	/* what the state claims was written must be on the device first */
	fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	sdir_make_parents(m->state);
	m->stale = 0;
	rc = write_state(m, 0, why, why_len);
	m->claimed = m->claimed || rc == RC_OK;
	if (rc)
		__atomic_store_n(&m->dirty, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock);
	return rc;
}

/* The header of the state of id when it is one of id's, not stale. */
static int state_of(const struct gen_map *id, const char *state, struct state_hdr *h)
{
	struct gen_map of = { .dev = id->dev };
	int fd = open(state, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = pread(fd, h, sizeof(*h), 0) == (ssize_t)sizeof(*h) && !memcmp(h->magic, STATE_MAGIC, 8) &&
	     !(h->flags & STATE_STALE) && h->unit >= 512;
	close(fd);
	of.dev = h->dev;
	of.ino = h->ino;
	of.btime_ns = h->btime_ns;
	return ok && same_file(id, &of);
}

/* Is the state at path, stale or not, of another device or file than id
 * (a number or inode reused)? */
static int state_other(const struct gen_map *id, const char *state)
{
	struct state_hdr h;
	struct gen_map of = { 0 };
	int fd = open(state, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h.magic, STATE_MAGIC, 8);
	close(fd);
	of.dev = h.dev;
	of.ino = h.ino;
	of.btime_ns = h.btime_ns;
	return ok && !same_file(id, &of);
}

/* Mark the state at path (of id, with m's next generation if m) stale,
 * if it is one of id's; its durability record goes (what it said was
 * durable holds no more). */
static int mark_stale(const struct target *t, struct gen_map *id, const struct gen_map *m, const char *path,
		      char *why, size_t why_len)
{
	struct state_hdr h;

	if (!state_other(id, path))
		crash_rec_remove(path); /* (a state of another device or file at that name keeps its own) */
	if (!state_of(id, path, &h) || (!id->ino && h.size != t->size))
		return RC_OK;
	id->state = (char *)path;
	id->unit = h.unit;
	id->size = h.size;
	id->tid = h.tid;
	id->next_gen = m && m->next_gen > h.next_gen ? m->next_gen : h.next_gen;
	id->stale = 1;
	sdir_make_parents(path);
	return write_state(id, 0, why, why_len);
}

static int mark_others(const struct target *t, const struct gen_map *m, const char *const *keep, unsigned nkeep,
		       int busy_ok, char *why, size_t why_len);

static int stale_locked(const struct target *t, const char *dir, char *why, size_t why_len)
{
	struct gen_map id = { 0 }, **pp, *m = NULL;
	char *path;
	int rc;

	if (identify(t, &id))
		return RC_OK; /* nothing there yet: nothing verified */
	pp = find(&id);
	if (pp && same_file(*pp, &id))
		m = *pp;
	if (m && (genmap_known(m) || m->stale))
		m->stale = 1;
	if (m)
		crash_rec_close(m);
	path = sdir_state_path(&id, dir ? dir : m ? m->dir : NULL);
	if (!path) {
		snprintf(why, why_len, "verification: no memory");
		return RC_FAIL;
	}
	rc = mark_stale(t, &id, m, path, why, why_len);
	/* the state this run kept elsewhere is no more to be trusted either */
	if (rc == RC_OK && m && strcmp(m->state, path))
		rc = mark_stale(t, &id, m, m->state, why, why_len);
	free(path);
	if (rc == RC_OK) { /* and nor is any other that the list beside the default names */
		const char *done[2] = { dir ? dir : m ? m->dir : NULL, m ? m->dir : NULL };

		rc = mark_others(t, m, done, 2, 0, why, why_len);
	}
	return rc < 0 ? RC_FAIL : RC_OK;
}

/* Mark stale every state of t in the default directory and the listed
 * ones but those in the directories keep[0..nkeep) (NULL: the default);
 * with busy_ok, not one another process holds the lock of. */
static int mark_others(const struct target *t, const struct gen_map *m, const char *const *keep, unsigned nkeep,
		       int busy_ok, char *why, size_t why_len)
{
	struct gen_map id = { 0 };
	char *dirs[SDIR_LIST_MAX + 1];
	unsigned n;
	int rc = RC_OK;

	if (identify(t, &id))
		return RC_OK;
	dirs[0] = NULL; /* the default directory */
	n = 1 + sdir_list_read(&id, dirs + 1);
	for (unsigned i = 0; i < n && rc == RC_OK; i++) {
		char *path;
		int kept = 0;

		for (unsigned k = 0; k < nkeep && !kept; k++)
			kept = sdir_same(dirs[i], keep[k]);
		if (kept || !(path = sdir_state_path(&id, dirs[i])))
			continue;
		if (!(busy_ok && sdir_state_in_use(path)))
			rc = mark_stale(t, &id, m, path, why, why_len);
		free(path);
	}
	sdir_list_free(dirs + 1, n - 1);
	return rc;
}

int genmap_claim(struct target *t, char *why, size_t why_len)
{
	int rc;

	pthread_mutex_lock(&lock);
	rc = claim_locked(t->gmap, why, why_len);
	if (rc == RC_OK && t->gmap) {
		const char *own = t->gmap->dir;

		/* this phase's writes outdate every other state of the target */
		sdir_list_add(t->gmap, own);
		rc = mark_others(t, t->gmap, &own, 1, 1, why, why_len);
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

int genmap_durable(struct target *t, int write, char *why, size_t why_len)
{
	char p[256];
	int rc;

	if (!t->gmap) {
		if (write)
			return RC_OK; /* no map (too large): no record either */
		snprintf(why, why_len, "target %s: no verification state (too large for one, or never written with "
			 "verification)", shown(t->path, p, sizeof(p)));
		return RC_INPUT;
	}
	pthread_mutex_lock(&lock);
	rc = crash_rec_open(t->gmap, write, why, why_len);
	pthread_mutex_unlock(&lock);
	return rc;
}

int genmap_stale(const struct target *t, const char *dir, char *why, size_t why_len)
{
	int rc;

	if (t->kind == TARGET_NONE)
		return RC_OK;
	pthread_mutex_lock(&lock);
	rc = stale_locked(t, dir, why, why_len);
	pthread_mutex_unlock(&lock);
	return rc;
}

/* Is m of no use to any later phase: not dirty, and its path names
 * another file now (a state saved, or none wanted, covers it)? */
static int unused(const struct gen_map *m)
{
	struct target t = { .path = m->path };
	struct gen_map id = { 0 };

	if (__atomic_load_n(&m->dirty, __ATOMIC_RELAXED))
		return 0;
	return identify(&t, &id) || !same_file(m, &id) || id.dev != m->dev || id.ino != m->ino;
}

void genmap_collect(void)
{
	struct gen_map **pp, *m;

	pthread_mutex_lock(&lock);
	while ((m = retired)) {
		retired = m->next;
		map_free(m);
	}
	for (pp = &maps; (m = *pp);) {
		if (unused(m)) {
			*pp = m->next;
			map_free(m);
		} else {
			pp = &m->next;
		}
	}
	pthread_mutex_unlock(&lock);
}

char *genmap_lock_path(const struct target *t, const char *dir, int make)
{
	struct gen_map id = { 0 }, **pp;
	char *state, *p = NULL;
	size_t n;

	if (identify(t, &id))
		return NULL;
	pthread_mutex_lock(&lock);
	pp = find(&id);
	if (!dir && pp && same_file(*pp, &id))
		dir = (*pp)->dir;
	state = sdir_state_path(&id, dir);
	pthread_mutex_unlock(&lock);
	if (!state)
		return NULL;
	n = strlen(state) - strlen(".iomoon-verify");
	if (asprintf(&p, "%.*s.iomoon-lock", (int)n, state) < 0)
		p = NULL;
	if (p && make)
		sdir_make_parents(p);
	free(state);
	return p;
}
