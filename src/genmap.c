/* genmap.c - generation maps of crc32c verification, kept per file or
 * device for the process's life and saved to a state file (genmap.h). */
#include "genmap.h"
#include "shown.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "target.h"
#include "verify.h"

#define MAP_MAX_BYTES (256ull << 20)
#define STATE_MAGIC "IOMVST01"

/* The state file: this header, then n generations (host byte order). */
struct state_hdr {
	char magic[8];
	uint32_t unit, crc;  /* crc32c of header (crc 0) and generations */
	uint64_t size, n, dev, ino, btime_ns, next_gen;
};

static struct gen_map *maps;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;


/* Fill m's identity from what path names; -1 with errno on failure. */
static int identify(const struct target *t, struct gen_map *m)
{
	struct statx sx;

	if (statx(AT_FDCWD, t->path, 0, STATX_TYPE | STATX_INO | STATX_BTIME, &sx))
		return -1;
	if (S_ISBLK(sx.stx_mode)) {
		m->dev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
		m->ino = 0;
		m->btime_ns = 0;
	} else {
		m->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
		m->ino = sx.stx_ino;
		m->btime_ns = sx.stx_mask & STATX_BTIME
			? (uint64_t)sx.stx_btime.tv_sec * 1000000000ull + sx.stx_btime.tv_nsec : 0;
	}
	return 0;
}

static int same_file(const struct gen_map *a, const struct gen_map *b)
{
	return a->dev == b->dev && a->ino == b->ino &&
	       (!a->btime_ns || !b->btime_ns || a->btime_ns == b->btime_ns);
}

/* Where the state of t lives: beside a file, in the state directory for
 * a block device. */
static char *state_path(const struct target *t, const struct gen_map *m)
{
	const char *dir = getenv("IOMOON_STATE_DIR");
	char *p = NULL;

	if (t->kind != TARGET_BLOCK) {
		if (asprintf(&p, "%s.iomoon-verify", t->path) < 0)
			return NULL;
		return p;
	}
	if (!dir || !*dir)
		dir = "/var/lib/iomoon";
	if (asprintf(&p, "%s/blockdev-%u-%u.iomoon-verify", dir, major(m->dev), minor(m->dev)) < 0)
		return NULL;
	return p;
}

static uint32_t state_crc(const struct state_hdr *h, const uint64_t *gens, uint64_t n)
{
	struct state_hdr c = *h;

	c.crc = 0;
	return crc32c(crc32c(0, &c, sizeof(c)), gens, n * sizeof(uint64_t));
}

/* Load m's state file into m when it is of this very file and unit size
 * (any other is stale: ignored, and replaced at the next save). 0 (loaded
 * or nothing to load), -1 with why when it exists but cannot be read or is
 * damaged: never verify against a state half understood. */
static int load(struct gen_map *m, char *why, size_t why_len)
{
	struct state_hdr h;
	struct gen_map id = { .dev = m->dev };
	uint64_t *g = NULL;
	char p[256];
	int fd = open(m->state, O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, why_len, "verification state %s: %s", shown(m->state, p, sizeof(p)), strerror(errno));
		return -1;
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
	rc = 0;
	if (!same_file(m, &id) || h.unit != m->unit || (!m->ino && h.size != m->size))
		goto out; /* another file or device: stale (a resized file keeps its units) */
	memcpy(m->gens, g, (h.n < m->n ? h.n : m->n) * 8);
	m->next_gen = h.next_gen;
	m->loaded = 1;
out:
	free(g);
	close(fd);
	return rc;
}

/* The unit size of t's state file, 0 when there is none to go by. */
static uint32_t state_unit(const char *state)
{
	struct state_hdr h;
	int fd = open(state, O_RDONLY | O_CLOEXEC);
	uint32_t u = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h.magic, STATE_MAGIC, 8))
		u = h.unit;
	close(fd);
	return u;
}

/* A new map of t in units of unit, loaded from its state unless fresh. */
static struct gen_map *map_new(const struct target *t, const struct gen_map *id, uint32_t unit, int fresh,
			       char *why, size_t why_len)
{
	uint64_t n = t->size / unit + 1;
	struct gen_map *m = calloc(1, sizeof(*m) + n * sizeof(uint64_t));

	if (!m) {
		snprintf(why, why_len, "verification: no memory for a generation map of %llu units",
			 (unsigned long long)n);
		return NULL;
	}
	m->dev = id->dev;
	m->ino = id->ino;
	m->btime_ns = id->btime_ns;
	m->size = t->size;
	m->unit = unit;
	m->n = n;
	m->state = state_path(t, m);
	if (!m->state || (!fresh && load(m, why, why_len) < 0)) {
		if (!m->state)
			snprintf(why, why_len, "verification: no memory");
		free(m->state);
		free(m);
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
 * state's), if the phase's sizes are whole map units; -2 if not. */
static int pick_unit(const struct target *t, uint32_t have, uint32_t *unit, int four_k, const char *from,
		     char *why, size_t why_len)
{
	char p[256];

	if (!have || have == *unit)
		return 0;
	if (have == 512 || (have == 4096 && four_k)) {
		*unit = have;
		return 0;
	}
	snprintf(why, why_len, "%u-byte units (target %s: %s)", have, shown(t->path, p, sizeof(p)), from);
	return -2;
}

/* The unit size data on t was written in, when no map of this process
 * says: its state's, else the header at probe_off's; 0 when neither. */
static uint32_t unit_on_disk(const struct target *t, const struct gen_map *id, uint64_t probe_off,
			     const char **from)
{
	struct verify_hdr h;
	char *st = state_path(t, id);
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
 * old map knew of the units both have (the target grew). */
static void map_insert(struct gen_map **pp, struct gen_map *m)
{
	struct gen_map *old = pp ? *pp : NULL;

	if (!old) {
		m->next = maps;
		maps = m;
		return;
	}
	m->next_gen = old->next_gen;
	if (old->unit == m->unit && same_file(old, m) && genmap_known(old)) {
		memcpy(m->gens, old->gens, (old->n < m->n ? old->n : m->n) * sizeof(uint64_t));
		m->written = old->written;
		m->loaded = m->loaded || old->loaded;
	}
	m->next = old->next;
	*pp = m; /* the old one stays for targets still pointing at it */
}

static int attach_locked(struct target *t, uint32_t *unit, int four_k, int fresh, uint64_t probe_off, char *why,
			 size_t why_len)
{
	struct gen_map id = { 0 }, **pp, *m = NULL;
	const char *from = "so written by an earlier phase";
	uint32_t have = 0;

	if (fresh && t->gmap)
		return 0; /* another worker of this phase attached the new file */
	t->gmap = NULL;
	if (identify(t, &id)) {
		snprintf(why, why_len, "verification: stat %s: %s", t->path, strerror(errno));
		return -1;
	}
	pp = find(&id);
	if (pp && !fresh && same_file(*pp, &id))
		m = *pp; /* else a new file on a reused inode: forget the old */
	if (genmap_known(m))
		have = m->unit;
	else if (!fresh)
		have = unit_on_disk(t, &id, probe_off, &from);
	if (pick_unit(t, have, unit, four_k, from, why, why_len))
		return -2;
	if (m && (m->unit != *unit || m->n < t->size / *unit + 1))
		m = NULL; /* never written in this unit, or resized: a new map */
	if (!m) {
		if ((t->size / *unit + 1) * sizeof(uint64_t) > MAP_MAX_BYTES)
			return 0; /* too large to keep: lost writes go undetected */
		m = map_new(t, &id, *unit, fresh, why, why_len);
		if (!m)
			return -1;
		map_insert(pp, m);
	}
	t->gmap = m;
	return 0;
}

int genmap_attach(struct target *t, uint32_t *unit, int four_k, int fresh, uint64_t probe_off, char *why,
		  size_t why_len)
{
	int rc;

	pthread_mutex_lock(&lock);
	rc = attach_locked(t, unit, four_k, fresh, probe_off, why, why_len);
	pthread_mutex_unlock(&lock);
	return rc;
}

/* fsync the directory holding path */
static void sync_dir(const char *path)
{
	char *d = strdup(path);
	int fd;

	if (!d)
		return;
	fd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(d);
}

/* Write m to its state file: a temporary beside it, synced, renamed. */
static int write_state(struct gen_map *m, char *why, size_t why_len)
{
	struct state_hdr h = { .unit = m->unit, .size = m->size, .n = m->n, .dev = m->dev, .ino = m->ino,
			       .btime_ns = m->btime_ns, .next_gen = __atomic_load_n(&m->next_gen, __ATOMIC_RELAXED) };
	char *tmp = NULL, p[256];
	const char *at = m->state;
	int fd = -1, ok = 0;

	memcpy(h.magic, STATE_MAGIC, 8);
	h.crc = state_crc(&h, m->gens, m->n);
	if (asprintf(&tmp, "%s.tmp", m->state) < 0) {
		tmp = NULL;
		errno = ENOMEM;
		goto out;
	}
	unlink(tmp); /* a leftover of a crash; never write through a link */
	at = tmp;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out;
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    pwrite(fd, m->gens, m->n * 8, sizeof(h)) != (ssize_t)(m->n * 8) || fsync(fd))
		goto out;
	at = m->state;
	if (rename(tmp, m->state))
		goto out;
	sync_dir(m->state);
	ok = 1;
out:
	if (!ok) {
		snprintf(why, why_len, "verification state %s: %s (a later process cannot verify this phase's "
			 "writes)", shown(at, p, sizeof(p)), strerror(errno ? errno : EIO));
		if (fd >= 0)
			unlink(tmp);
	}
	if (fd >= 0)
		close(fd);
	free(tmp);
	return ok ? 0 : -1;
}

int genmap_save(struct target *t, char *why, size_t why_len)
{
	struct gen_map *m = t->gmap;
	int fd, rc;

	if (!m || !__atomic_exchange_n(&m->dirty, 0, __ATOMIC_RELAXED))
		return 0;
	pthread_mutex_lock(&lock);
	/* what the state claims was written must be on the device first */
	fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	if (t->kind == TARGET_BLOCK) {
		char *d = strdup(m->state);

		if (d)
			mkdir(dirname(d), 0755); /* one level; an error shows at the open */
		free(d);
	}
	rc = write_state(m, why, why_len);
	pthread_mutex_unlock(&lock);
	return rc;
}
