/* crash.c - the durability record of a target and the judgement of its
 * units after a crash (crash.h). */
#include "verify/crash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rc.h"
#include "core/shown.h"
#include "io/fill.h"
#include "verify/genmap.h"
#include "verify/verify.h"

#define REC_MAGIC "IOMVDR02"
/* a record of an iomoon whose sectors had no crc32c of their own (verify.h):
 * its torn units cannot be told from corrupt ones */
#define REC_MAGIC_OLD "IOMVDR01"
#define REC_HDR 4096u

const char *const crash_class_names[CRASH_NCLASS] = { "durable_ok", "lost_durable", "unflushed_kept",
						      "unflushed_lost", "torn", "corrupt", "misdirected",
						      "foreign" };

struct rec_hdr {
	char magic[8];
	uint32_t unit, tid;
	uint64_t n, dev, ino, btime_ns;
};

/* The record's path: the state's, .iomoon-durable for .iomoon-verify. */
static char *rec_path(const char *state)
{
	size_t n = strlen(state), k = strlen(".iomoon-verify");
	char *p;

	if (n < k || asprintf(&p, "%.*s.iomoon-durable", (int)(n - k), state) < 0)
		return NULL;
	return p;
}

static void hdr_of(const struct gen_map *m, struct rec_hdr *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, REC_MAGIC, 8);
	h->unit = m->unit;
	h->tid = m->tid;
	h->n = m->n;
	h->dev = m->dev;
	h->ino = m->ino;
	h->btime_ns = m->btime_ns;
}

/* Is the record open at fd one of m's (its target, id, unit and units)?
 * With fewer: of fewer units too (the file grew since); *n its units. */
static int rec_matches(int fd, const struct gen_map *m, int fewer, uint64_t *n)
{
	struct rec_hdr h, want;
	struct stat st;

	hdr_of(m, &want);
	if (fstat(fd, &st) || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return 0;
	if (fewer && h.n && h.n < m->n)
		want.n = h.n;
	*n = want.n;
	return (uint64_t)st.st_size == REC_HDR + 16 * want.n && !memcmp(&h, &want, sizeof(h));
}

int crash_rec_open(struct gen_map *m, int write, char *why, size_t why_len)
{
	struct crash_rec *c;
	char *path, p[256];
	uint64_t n = m->n;
	int fd;

	if (m->crash && (m->crash->writable || !write))
		return RC_OK;
	crash_rec_close(m);
	path = rec_path(m->state);
	if (!path) {
		snprintf(why, why_len, "verification: no memory");
		return RC_FAIL;
	}
	fd = open(path, (write ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && !write && errno == ENOENT) {
		snprintf(why, why_len, "no record of what was made durable (%s): write the target first with verify = "
			 "\"crc32c\" and a durability point (fsync, fdatasync or sync = \"dsync\")", shown(path, p, sizeof(p)));
		free(path);
		return RC_INPUT;
	}
	if (fd < 0) {
		snprintf(why, why_len, "durability record %s: %s", shown(path, p, sizeof(p)), strerror(errno));
		free(path);
		return RC_FAIL;
	}
	if (!rec_matches(fd, m, !write, &n)) {
		struct rec_hdr h;

		if (!write) {
			char magic[8] = { 0 };

			if (pread(fd, magic, 8, 0) == 8 && !memcmp(magic, REC_MAGIC_OLD, 8))
				snprintf(why, why_len, "the durability record %s was made by an earlier iomoon, whose "
					 "sectors carry no checksum of their own: judge the crash with that version",
					 shown(path, p, sizeof(p)));
			else
				snprintf(why, why_len, "the durability record %s is of another write of the target (a later "
					 "phase wrote it without a durability point, or in other units): nothing to judge a "
					 "crash by", shown(path, p, sizeof(p)));
			close(fd);
			free(path);
			return RC_INPUT;
		}
		hdr_of(m, &h);
		if (ftruncate(fd, 0) || ftruncate(fd, (off_t)(REC_HDR + 16 * m->n)) ||
		    pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || fdatasync(fd)) {
			snprintf(why, why_len, "durability record %s: %s", shown(path, p, sizeof(p)), strerror(errno));
			close(fd);
			free(path);
			return RC_FAIL;
		}
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		free(path);
		snprintf(why, why_len, "verification: no memory");
		return RC_FAIL;
	}
	c->fd = fd;
	c->writable = write;
	c->n = write ? m->n : n; /* an after_crash pass: the record's (a file grown since has more units) */
	c->len = REC_HDR + 16 * c->n;
	c->map = mmap(NULL, c->len, write ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
	if (c->map == MAP_FAILED) {
		snprintf(why, why_len, "durability record %s: mmap: %s", shown(path, p, sizeof(p)), strerror(errno));
		close(fd);
		free(c);
		free(path);
		return RC_FAIL;
	}
	c->durable = (uint64_t *)((char *)c->map + REC_HDR);
	c->issued = c->durable + c->n;
	m->crash = c;
	free(path);
	return RC_OK;
}

void crash_rec_close(struct gen_map *m)
{
	struct crash_rec *c = m->crash;

	if (!c)
		return;
	if (c->writable)
		fdatasync(c->fd);
	munmap(c->map, c->len);
	close(c->fd);
	free(c);
	m->crash = NULL;
}

uint64_t crash_rec_high(const struct gen_map *m)
{
	char *path = rec_path(m->state);
	uint64_t high = 0, *g, n;
	int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;

	free(path);
	if (fd < 0)
		return 0;
	if (rec_matches(fd, m, 0, &n) && (g = malloc(16 * m->n + 1))) {
		if (pread(fd, g, 16 * m->n, REC_HDR) == (ssize_t)(16 * m->n))
			for (uint64_t i = 0; i < 2 * m->n; i++)
				high = g[i] > high ? g[i] : high;
		free(g);
	}
	close(fd);
	return high;
}

void crash_rec_remove(const char *state)
{
	char *path = rec_path(state);

	if (path)
		unlink(path);
	free(path);
}

int crash_rec_sync(struct crash_rec *c)
{
	return fdatasync(c->fd) ? -1 : 0;
}

/* Sector k of unit u at offset at: the generation it holds (0: blank), or
 * -1 when it holds what no write of ours produced there: its header or
 * tag is not this offset's, or its bytes fail its own crc32c (verify.h). */
static int sector_gen(const unsigned char *u, uint32_t k, uint32_t unit, uint64_t at, uint64_t fill_key, uint32_t tid,
		      uint64_t *gen)
{
	const unsigned char *s = u + 512u * k;
	uint64_t w1, w2, w3;

	if (!k) {
		struct verify_hdr h;

		memcpy(&h, s, sizeof(h));
		if (h.magic == VERIFY_MAGIC && h.offset == at && h.unit_sectors == unit / 512 && (!tid || h.seed == tid) &&
		    verify_sector_ok(s, 0)) {
			*gen = h.generation;
			return 0;
		}
	} else {
		uint64_t tag[2];

		memcpy(tag, s, sizeof(tag));
		if (tag[1] == ((at + 512u * k) ^ VERIFY_TAG_KEY) && verify_sector_ok(s, k)) {
			*gen = tag[0];
			return 0;
		}
	}
	*gen = 0;
	return fill_blank(s, 512, fill_key, at + 512u * k, &w1, &w2, &w3) ? 0 : -1;
}

int crash_judge(const unsigned char *u, uint32_t unit, uint64_t at, uint64_t fill_key, uint32_t tid, uint64_t d,
		uint64_t w, uint64_t horizon, uint64_t *lo, uint64_t *hi)
{
	uint64_t w1, w2, w3, g, later = 0;
	int e = verify_check_id(u, unit, at, 0, unit, NULL, 0, 1, 0, &w1, &w2, &w3);

	*lo = *hi = 0;
	if (e == 0 || e == VERR_MISDIRECTED) { /* intact */
		struct verify_hdr h;

		memcpy(&h, u, sizeof(h));
		*lo = *hi = h.generation;
		if (e)
			return CRASH_MISDIRECTED;
		if (tid && h.seed != tid)
			return CRASH_FOREIGN;
		return !d ? CRASH_UNFLUSHED_KEPT : h.generation >= d ? CRASH_DURABLE_OK : CRASH_LOST_DURABLE;
	}
	if (fill_blank(u, unit, fill_key, at, &w1, &w2, &w3))
		return d ? CRASH_LOST_DURABLE : w ? CRASH_UNFLUSHED_LOST : CRASH_UNWRITTEN;
	/* sector by sector: a tear, or damage. Above w, one write at most:
	 * the one in flight at the cut, which the record may not know of */
	*lo = UINT64_MAX;
	for (uint32_t k = 0; k < unit / 512; k++) {
		if (sector_gen(u, k, unit, at, fill_key, tid, &g) < 0 || g > horizon || (g > w && later && g != later)) {
			*lo = *hi = 0;
			return CRASH_CORRUPT;
		}
		later = g > w ? g : later;
		*lo = g < *lo ? g : *lo;
		*hi = g > *hi ? g : *hi;
	}
	if (*lo == *hi)
		return CRASH_CORRUPT; /* one write's sectors, yet its checksum fails */
	return d && *lo < d ? CRASH_LOST_DURABLE : CRASH_TORN;
}
