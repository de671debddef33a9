/* devstat.h - the kernel's own account of a block device's requests
 * (/sys/dev/block/MAJ:MIN/stat, Documentation/block/stat.rst): read before
 * and after a phase's measured time, it is the witness of iomoon's own
 * figures (result.device). */
#ifndef IOMOON_DEVSTAT_H
#define IOMOON_DEVSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "io/target.h"

enum { DEVSTAT_READ, DEVSTAT_WRITE, DEVSTAT_DISCARD, DEVSTAT_FLUSH, DEVSTAT_NOPS };

struct devstat {
	uint64_t ios[DEVSTAT_NOPS];      /* requests completed */
	uint64_t sectors[DEVSTAT_NOPS];  /* 512-byte sectors moved (none for flushes) */
	uint64_t ticks_ms[DEVSTAT_NOPS]; /* their times, summed */
	uint64_t io_ticks_ms;            /* time with a request in flight */
	uint64_t in_queue_ms;            /* requests in flight x ms */
};

/* The block device under t: itself, or the one a file's filesystem is on
 * (st_dev; a partition is itself a device with its own counts). RC_OK with
 * its numbers and name (vda, sda1, dm-0, loop3), or RC_FAIL where there is
 * none to read (a network target, tmpfs, btrfs's anonymous devices). */
int devstat_device(const struct target *t, unsigned *maj, unsigned *min, char *name, size_t nlen);
/* Its counts now: RC_OK, or RC_FAIL. */
int devstat_read(unsigned maj, unsigned min, struct devstat *d);
/* b - a, field by field (b read later). */
void devstat_sub(const struct devstat *b, const struct devstat *a, struct devstat *d);
/* to += d. */
void devstat_add(struct devstat *to, const struct devstat *d);

#endif
