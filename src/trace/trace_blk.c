/* trace_blk.c - blktrace binary files (doc/replay.md, "Reading traces").
 *
 * A file is a run of struct blk_io_trace as the kernel lays it out
 * (linux/blktrace_api.h: 48 bytes: magic | version, sequence, time in ns,
 * sector, bytes, action, pid, device, cpu, error, pdu_len), each followed
 * by pdu_len bytes of payload, in the byte order of the machine that
 * recorded it (told by the magic). blktrace writes one file per CPU
 * (NAME.blktrace.N); blkparse -d merges them into one. A directory is read
 * as the per-CPU files in it (names holding ".blktrace."), merged by time
 * (trace.c sorts).
 *
 * Only queue events (__BLK_TA_QUEUE, not notify messages) become records:
 * discard -> trim, a flush or FUA with no data -> sync, else write when
 * the write category is set, else read; a zero-length event that is none
 * of these is skipped. Sectors are 512 bytes. The device is "MAJOR,MINOR"
 * (the kernel's dev_t: major = dev >> 20, minor = dev & 0xfffff).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/op.h"
#include "core/shown.h"
#include "trace/trace_int.h"

#define BLK_MAGIC 0x65617400u
#define BLK_VERSION 0x07u
#define BLK_REC 48
#define TA_QUEUE 1u
#define TA_CGROUP (1u << 8)
#define TC_WRITE (1u << 1)
#define TC_FLUSH (1u << 2)
#define TC_NOTIFY (1u << 10)
#define TC_DISCARD (1u << 13)
#define TC_FUA (1u << 15)

struct blk_rec {
	uint32_t magic, sequence;
	uint64_t time, sector;
	uint32_t bytes, action, pid, device, cpu;
	uint16_t error, pdu_len;
};

static uint16_t g16(const unsigned char *p, int sw)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return sw ? __builtin_bswap16(v) : v;
}

static uint32_t g32(const unsigned char *p, int sw)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return sw ? __builtin_bswap32(v) : v;
}

static uint64_t g64(const unsigned char *p, int sw)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return sw ? __builtin_bswap64(v) : v;
}

static void decode(const unsigned char *p, int sw, struct blk_rec *r)
{
	r->magic = g32(p, sw);
	r->sequence = g32(p + 4, sw);
	r->time = g64(p + 8, sw);
	r->sector = g64(p + 16, sw);
	r->bytes = g32(p + 24, sw);
	r->action = g32(p + 28, sw);
	r->pid = g32(p + 32, sw);
	r->device = g32(p + 36, sw);
	r->cpu = g32(p + 40, sw);
	r->error = g16(p + 44, sw);
	r->pdu_len = g16(p + 46, sw);
}

/* One event: a record when it is a queue event. */
static int blk_event(struct tbuild *b, const struct blk_rec *r)
{
	unsigned cat = r->action >> 16, ev = r->action & 0xffff & ~TA_CGROUP, op;
	char name[24];
	int dev;

	if ((cat & TC_NOTIFY) || ev != TA_QUEUE)
		return RC_OK;
	if (cat & TC_DISCARD)
		op = OP_TRIM;
	else if (!r->bytes && (cat & (TC_FLUSH | TC_FUA)))
		op = OP_SYNC;
	else if (!r->bytes)
		return RC_OK;
	else
		op = cat & TC_WRITE ? OP_WRITE : OP_READ;
	if (r->sector > (UINT64_MAX - r->bytes) / 512)
		return tb_bad(b, "sector %llu is past any device (512-byte sectors)", (unsigned long long)r->sector);
	snprintf(name, sizeof(name), "%u,%u", r->device >> 20, r->device & 0xfffff);
	dev = tb_dev(b, name, strlen(name));
	if (dev < 0)
		return b->o->skip_bad ? RC_OK : RC_INPUT;
	return tb_push(b, r->time, op, op == OP_SYNC ? 0 : r->sector * 512, op == OP_SYNC ? 0 : r->bytes, dev);
}

/* The file ends inside an event: with skip_bad counted (RC_OK), else
 * RC_INPUT (why is written). */
static int cut_short(struct tbuild *b)
{
	if (!b->o->skip_bad)
		return RC_INPUT;
	if (!b->t->skipped++)
		b->t->first_bad_line = b->line;
	return RC_OK;
}

/* Fill buf to at least want bytes from fd (less only at the end); the
 * bytes held, or -1. */
static ssize_t fill(int fd, unsigned char *buf, size_t have, size_t want, size_t cap)
{
	while (have < want) {
		ssize_t n = read(fd, buf + have, cap - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		have += (size_t)n;
	}
	return (ssize_t)have;
}

/* Every event of one file. b->line counts the events (from 1). */
static int blk_file(struct tbuild *b, const char *path)
{
	enum { CAP = 1 << 20 };
	unsigned char *buf = malloc(CAP);
	size_t have = 0, pos = 0, rec_at = 0;
	int fd, sw = -1, rc = trace_open(path, &fd, b->why, b->why_len);
	char sp[256];

	if (rc || !buf) {
		if (!buf)
			snprintf(b->why, b->why_len, "%s: no memory", shown(path, sp, sizeof(sp)));
		free(buf);
		if (fd >= 0)
			close(fd);
		return rc ? rc : RC_FAIL;
	}
	b->line = 0;
	b->events = 1;
	for (;;) {
		struct blk_rec r;
		ssize_t h;

		if (have - pos < BLK_REC + 65535) {
			memmove(buf, buf + pos, have - pos);
			have -= pos;
			pos = 0;
			h = fill(fd, buf, have, CAP, CAP);
			if (h < 0) {
				snprintf(b->why, b->why_len, "%s: read failed: %s", shown(path, sp, sizeof(sp)),
					 strerror(errno));
				rc = RC_FAIL;
				break;
			}
			have = (size_t)h;
		}
		if (pos == have)
			break;
		b->line++;
		if (have - pos < BLK_REC) {
			snprintf(b->why, b->why_len, "%s: event %llu at byte %zu: cut short (%zu of its 48 bytes)",
				 shown(path, sp, sizeof(sp)), (unsigned long long)b->line, rec_at, have - pos);
			rc = cut_short(b);
			break;
		}
		if (sw < 0)
			sw = (g32(buf + pos, 0) & 0xffffff00u) == BLK_MAGIC ? 0 : 1;
		decode(buf + pos, sw, &r);
		if ((r.magic & 0xffffff00u) != BLK_MAGIC || (r.magic & 0xff) != BLK_VERSION) {
			snprintf(b->why, b->why_len, "%s: event %llu at byte %zu: magic 0x%08x is not blktrace's "
				 "(expected 0x%08x, version 7)", shown(path, sp, sizeof(sp)), (unsigned long long)b->line,
				 rec_at, r.magic, BLK_MAGIC | BLK_VERSION);
			rc = RC_INPUT; /* nothing after it can be trusted: never skipped */
			break;
		}
		if (have - pos < BLK_REC + (size_t)r.pdu_len) {
			snprintf(b->why, b->why_len, "%s: event %llu at byte %zu: its %u bytes of payload are cut short",
				 shown(path, sp, sizeof(sp)), (unsigned long long)b->line, rec_at, r.pdu_len);
			rc = cut_short(b);
			break;
		}
		pos += BLK_REC + r.pdu_len;
		rec_at += BLK_REC + r.pdu_len;
		rc = blk_event(b, &r);
		if (rc)
			break;
	}
	close(fd);
	free(buf);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The per-CPU files of a directory, in name order. */
static int blk_dir(struct tbuild *b, const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL, full[4096];
	size_t n = 0;
	int rc = RC_OK;

	if (!d) {
		snprintf(b->why, b->why_len, "%s: cannot be read: %s", b->path, strerror(errno));
		return RC_FAIL;
	}
	while ((e = readdir(d))) {
		char **p;

		if (!strstr(e->d_name, ".blktrace."))
			continue;
		p = realloc(names, (n + 1) * sizeof(*names));
		if (!p || !(p[n] = strdup(e->d_name))) {
			names = p ? p : names;
			rc = RC_FAIL;
			snprintf(b->why, b->why_len, "%s: no memory", b->path);
			break;
		}
		names = p;
		n++;
	}
	closedir(d);
	if (rc == RC_OK && !n) {
		snprintf(b->why, b->why_len, "%s: a directory without blktrace files (NAME.blktrace.CPU)", b->path);
		rc = RC_INPUT;
	}
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; rc == RC_OK && i < n; i++) {
		snprintf(full, sizeof(full), "%s/%s", path, names[i]);
		rc = blk_file(b, full);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int trace_read_blktrace(struct tbuild *b, const char *path)
{
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return blk_dir(b, path);
	return blk_file(b, path);
}
