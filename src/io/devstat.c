/* devstat.c - a block device's request counts, as the kernel keeps them. */
#include "io/devstat.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/rc.h"
#include "io/claims.h"

int devstat_device(const struct target *t, unsigned *maj, unsigned *min, char *name, size_t nlen)
{
	char parent[64], path[64];

	if (t->net || t->kind == TARGET_NONE || !t->id_dev)
		return RC_FAIL;
	*maj = major((dev_t)t->id_dev);
	*min = minor((dev_t)t->id_dev);
	if (*maj == 0) /* an anonymous device: tmpfs, overlayfs, btrfs */
		return RC_FAIL;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", *maj, *min);
	if (access(path, R_OK) < 0)
		return RC_FAIL;
	return claims_sysfs_names(*maj, *min, name, nlen, parent, sizeof(parent));
}

int devstat_read(unsigned maj, unsigned min, struct devstat *d)
{
	char path[64], buf[512];
	uint64_t f[17] = { 0 };
	ssize_t n;
	int fd, k;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", maj, min);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return RC_FAIL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return RC_FAIL;
	buf[n] = 0;
	/* 11 fields since 2.6, 15 with discards (4.18), 17 with flushes (5.5) */
	k = sscanf(buf, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64,
		   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &f[12], &f[13],
		   &f[14], &f[15], &f[16]);
	if (k < 11)
		return RC_FAIL;
	*d = (struct devstat){
		.ios = { f[0], f[4], f[11], f[15] },
		.sectors = { f[2], f[6], f[13], 0 },
		.ticks_ms = { f[3], f[7], f[14], f[16] },
		.io_ticks_ms = f[9],
		.in_queue_ms = f[10],
	};
	return RC_OK;
}

void devstat_sub(const struct devstat *b, const struct devstat *a, struct devstat *d)
{
	for (int i = 0; i < DEVSTAT_NOPS; i++) {
		d->ios[i] = b->ios[i] - a->ios[i];
		d->sectors[i] = b->sectors[i] - a->sectors[i];
		d->ticks_ms[i] = b->ticks_ms[i] - a->ticks_ms[i];
	}
	d->io_ticks_ms = b->io_ticks_ms - a->io_ticks_ms;
	d->in_queue_ms = b->in_queue_ms - a->in_queue_ms;
}

void devstat_add(struct devstat *to, const struct devstat *d)
{
	for (int i = 0; i < DEVSTAT_NOPS; i++) {
		to->ios[i] += d->ios[i];
		to->sectors[i] += d->sectors[i];
		to->ticks_ms[i] += d->ticks_ms[i];
	}
	to->io_ticks_ms += d->io_ticks_ms;
	to->in_queue_ms += d->in_queue_ms;
}
