/* crashdisk.c - an nbdkit plugin for tests/86-crash.t: a disk with a
 * volatile write cache that misbehaves on purpose, and a power cut of its
 * own.
 *
 *   nbdkit --unix S ./crashdisk.so file=BACKING mode=MODE crash=K seed=N log=LOG
 *
 * Writes go to a cache in memory (what reads see at once) and reach
 * BACKING (the persistent medium) only at a flush, as MODE says:
 *   honest     a flush persists the whole cache before it is acknowledged
 *   lie        a flush is acknowledged, and nothing is persisted
 *   partial    a flush persists each cached write with a chance of 1/2
 *              (the rest is dropped), and is acknowledged
 *   torn       honest; at the power cut each cached write is persisted
 *              whole, in part (its first 1..n-1 sectors) or not at all
 *   misdirect  honest, but at each flush (a chance of 1/2) one cached
 *              write lands one unit further on (wrapping at the end)
 * With client=kill, the client (iomoon) is killed with SIGKILL first, at
 * that flush (nbdkit_peer_pid: over a Unix socket).
 * At the K-th flush request (not acknowledged) the power goes: each
 * cached write is persisted with a chance of 1/2 (what a cache writing
 * back had done; torn: as said above), LOG is written and the server
 * kills itself with SIGKILL (kill -9: nothing else of it survives).
 *
 * LOG, the ground truth: a line per unit anyone wrote or that holds data,
 *   U D W G0 F0 G1 F1 ...
 * U the unit's index, D the generation of the last write to it received
 * before an acknowledged flush (0: none), W of the last write received,
 * then per 512-byte sector what BACKING holds: the generation of the
 * write it came from and the sector (offset / 512) that write was for
 * (0 -1: never persisted). Lines "# ..." say what the disk did. It knows
 * iomoon's format only to read a write's generation (the header's, at
 * byte 16 of each unit). The unit is unit=BYTES (4096). Requests are
 * served one at a time, in order.
 */
#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define THREAD_MODEL NBDKIT_THREAD_MODEL_SERIALIZE_ALL_REQUESTS

enum { HONEST, LIE, PARTIAL, TORN, MISDIRECT };
static const char *const modes[] = { "honest", "lie", "partial", "torn", "misdirect", NULL };

struct cw {
	uint64_t off;
	uint32_t len;
	struct cw *next;
	unsigned char data[];
};

static const char *file, *logpath;
static int mode, fd = -1, kill_client;
static unsigned crash_at = 1, flushes;
static uint32_t unit = 4096;
static uint64_t size, nunits, rng = 88172645463325252ull;
static unsigned char *view;       /* what reads see: BACKING and the cache */
static struct cw *head, **tail = &head;
static uint64_t *dur, *wr;        /* per unit: D and W of the log */
static int64_t *sgen, *sfor;      /* per sector of BACKING: generation, sector it was for */
static FILE *events;              /* the log's "#" lines, until the cut */

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cd_config(const char *key, const char *value)
{
	if (!strcmp(key, "file"))
		file = value;
	else if (!strcmp(key, "log"))
		logpath = value;
	else if (!strcmp(key, "crash"))
		crash_at = (unsigned)atoi(value);
	else if (!strcmp(key, "seed"))
		rng = strtoull(value, NULL, 10) * 2654435761ull + 1;
	else if (!strcmp(key, "client"))
		kill_client = !strcmp(value, "kill");
	else if (!strcmp(key, "unit"))
		unit = (uint32_t)atoi(value);
	else if (!strcmp(key, "mode")) {
		for (mode = 0; modes[mode] && strcmp(modes[mode], value); mode++)
			;
		if (!modes[mode]) {
			nbdkit_error("mode: %s is not a mode", value);
			return -1;
		}
	} else {
		nbdkit_error("unknown parameter %s", key);
		return -1;
	}
	return 0;
}

static int cd_config_complete(void)
{
	struct stat st;

	if (!file || !logpath || !crash_at || unit < 512 || unit % 512) {
		nbdkit_error("give file=, log=, crash= (1 or more), unit= (whole sectors)");
		return -1;
	}
	fd = open(file, O_RDWR);
	if (fd < 0 || fstat(fd, &st)) {
		nbdkit_error("%s: %m", file);
		return -1;
	}
	size = (uint64_t)st.st_size;
	nunits = size / unit;
	view = malloc(size);
	dur = calloc(nunits, 8);
	wr = calloc(nunits, 8);
	sgen = calloc(size / 512, 8);
	sfor = malloc(size / 512 * 8);
	events = tmpfile();
	if (!view || !dur || !wr || !sgen || !sfor || !events || pread(fd, view, size, 0) != (ssize_t)size) {
		nbdkit_error("set-up failed");
		return -1;
	}
	for (uint64_t s = 0; s < size / 512; s++)
		sfor[s] = -1;
	return 0;
}

static void *cd_open(int readonly)
{
	(void)readonly;
	return &fd;
}

static int64_t cd_get_size(void *h)
{
	(void)h;
	return (int64_t)size;
}

static int cd_can_flush(void *h)
{
	(void)h;
	return 1;
}

static int cd_pread(void *h, void *buf, uint32_t count, uint64_t offset, uint32_t flags)
{
	(void)h;
	(void)flags;
	memcpy(buf, view + offset, count);
	return 0;
}

/* The generation of the write data d (at offset off) gives the unit at u. */
static uint64_t gen_of(const unsigned char *d, uint64_t off, uint64_t u)
{
	uint64_t g;

	memcpy(&g, d + (u * unit - off) + 16, 8);
	return g;
}

static int cd_pwrite(void *h, const void *buf, uint32_t count, uint64_t offset, uint32_t flags)
{
	struct cw *w = malloc(sizeof(*w) + count);

	(void)h;
	(void)flags;
	if (!w || offset % unit || count % unit) {
		nbdkit_error("writes must be whole units of %u bytes", unit);
		return -1;
	}
	w->off = offset;
	w->len = count;
	w->next = NULL;
	memcpy(w->data, buf, count);
	memcpy(view + offset, buf, count);
	for (uint64_t u = offset / unit; u < (offset + count) / unit; u++)
		wr[u] = gen_of(w->data, offset, u);
	*tail = w;
	tail = &w->next;
	return 0;
}

/* The first `sectors` sectors of w onto BACKING at offset at. */
static void persist(const struct cw *w, uint64_t at, uint32_t sectors)
{
	if (pwrite(fd, w->data, sectors * 512u, (off_t)at) != (ssize_t)(sectors * 512u))
		abort();
	for (uint32_t k = 0; k < sectors; k++) {
		uint64_t s = at / 512 + k, u = (w->off + 512u * k) / unit;

		sgen[s] = (int64_t)gen_of(w->data, w->off, u);
		sfor[s] = (int64_t)(w->off / 512 + k);
	}
}

static void drop_cache(void)
{
	while (head) {
		struct cw *n = head->next;

		free(head);
		head = n;
	}
	tail = &head;
}

/* The power cut: what the cache had written back by then, the log, and
 * SIGKILL. */
static void power_cut(void)
{
	FILE *f = fopen(logpath, "w");
	char line[256];

	for (struct cw *w = head; w; w = w->next) {
		uint64_t r = rnd() % 3;
		uint32_t n = w->len / 512;

		if (mode == TORN && r == 1) {
			uint32_t k = 1 + (uint32_t)(rnd() % (n - 1));

			persist(w, w->off, k);
			fprintf(events, "# torn %" PRIu64 " %u of %u sectors\n", w->off / unit, k, n);
		} else if (mode == TORN ? r == 0 : rnd() % 2) {
			persist(w, w->off, n);
			fprintf(events, "# unflushed kept %" PRIu64 "\n", w->off / unit);
		} else {
			fprintf(events, "# unflushed lost %" PRIu64 "\n", w->off / unit);
		}
	}
	if (!f)
		abort();
	rewind(events);
	while (fgets(line, sizeof(line), events))
		fputs(line, f);
	fprintf(f, "# power cut at flush %u (mode %s)\n", flushes, modes[mode]);
	for (uint64_t u = 0; u < nunits; u++) {
		int any = dur[u] || wr[u];

		for (uint32_t k = 0; k < unit / 512; k++)
			any = any || sfor[u * (unit / 512) + k] >= 0;
		if (!any)
			continue;
		fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64, u, dur[u], wr[u]);
		for (uint32_t k = 0; k < unit / 512; k++)
			fprintf(f, " %" PRId64 " %" PRId64, sgen[u * (unit / 512) + k], sfor[u * (unit / 512) + k]);
		fputc('\n', f);
	}
	fclose(f); /* in the page cache: a kill -9 leaves it */
	kill(getpid(), SIGKILL);
}

static int cd_flush(void *h, uint32_t flags)
{
	int misplaced = 0;

	(void)h;
	(void)flags;
	if (++flushes == crash_at) {
		if (kill_client) {
			int64_t pid = nbdkit_peer_pid();

			if (pid > 0)
				kill((pid_t)pid, SIGKILL);
			fprintf(events, "# client %" PRId64 " killed\n", pid);
		}
		power_cut(); /* never returns: this flush is not acknowledged */
	}
	for (struct cw *w = head; w; w = w->next) {
		if (mode == LIE || (mode == PARTIAL && rnd() % 2)) {
			fprintf(events, "# dropped %" PRIu64 " at flush %u\n", w->off / unit, flushes);
			continue;
		}
		if (mode == MISDIRECT && !misplaced && (!w->next || rnd() % 4 == 0) && rnd() % 2) {
			uint64_t to = (w->off + w->len) % size;

			if (to + w->len <= size) {
				misplaced = 1;
				persist(w, to, w->len / 512);
				memcpy(view + to, w->data, w->len);
				fprintf(events, "# misdirected %" PRIu64 " to %" PRIu64 " at flush %u\n", w->off / unit,
					to / unit, flushes);
				continue;
			}
		}
		persist(w, w->off, w->len / 512);
	}
	for (uint64_t u = 0; u < nunits; u++)
		dur[u] = wr[u]; /* every write received before this flush: durable, as acknowledged */
	drop_cache();
	return 0;
}

static struct nbdkit_plugin plugin = {
	.name = "crashdisk",
	.longname = "a disk with a volatile cache that misbehaves, for iomoon's tests",
	.config = cd_config,
	.config_complete = cd_config_complete,
	.open = cd_open,
	.get_size = cd_get_size,
	.can_flush = cd_can_flush,
	.pread = cd_pread,
	.pwrite = cd_pwrite,
	.flush = cd_flush,
};

NBDKIT_REGISTER_PLUGIN(plugin)
