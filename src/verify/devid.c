/* devid.c - what a block device is, from sysfs (devid.h). */
#include "verify/devid.h"
#include "core/shown.h"
#include "verify/genmap.h"
#include "verify/state_dirs.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The first line of dir/name into buf, trailing blanks gone: 1 when it
 * holds something. */
static int sys_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == 0))
		buf[--n] = 0;
	return buf[0] != 0;
}

/* FNV-1a, 64 bits, of len bytes at p, continuing from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
	return h;
}

/* Where in its backing file loop device dir reads, into win: "" for the
 * whole file, else ", from byte N" and ", N bytes" (losetup -o, --sizelimit):
 * the same file through another window is another device. */
static void loop_window(const char *dir, char *win, size_t len)
{
	char off[32] = "0", lim[32] = "0";
	int n;

	sys_line(dir, "loop/offset", off, sizeof(off));
	sys_line(dir, "loop/sizelimit", lim, sizeof(lim));
	n = strcmp(off, "0") ? snprintf(win, len, ", from byte %s", off) : snprintf(win, len, "%s", "");
	if (strcmp(lim, "0") && n >= 0 && (size_t)n < len)
		snprintf(win + n, len - n, ", %s bytes", lim);
}

/* A loop device's backing file v, read through window win: in words into
 * desc; the digest of its identity (st_dev, st_ino, birth time, window),
 * of its name when it is gone. */
static uint64_t loop_id(const char *v, const char *win, const char *part, char *desc, size_t len)
{
	uint64_t h = fnv(0xcbf29ce484222325ull, "loop", 4);
	struct statx sx;

	h = fnv(h, win, strlen(win)); /* nothing for the whole file: the digest as before windows */
	if (statx(AT_FDCWD, v, 0, STATX_INO | STATX_BTIME, &sx)) {
		snprintf(desc, len, "loop device over %s%s%s", v, win, part);
		return fnv(h, v, strlen(v));
	}
	snprintf(desc, len, "loop device over %s (inode %llu on %u:%u)%s%s", v, (unsigned long long)sx.stx_ino,
		 sx.stx_dev_major, sx.stx_dev_minor, win, part);
	h = fnv(h, &sx.stx_dev_major, sizeof(sx.stx_dev_major));
	h = fnv(h, &sx.stx_dev_minor, sizeof(sx.stx_dev_minor));
	h = fnv(h, &sx.stx_ino, sizeof(sx.stx_ino));
	if (sx.stx_mask & STATX_BTIME)
		h = fnv(fnv(h, &sx.stx_btime.tv_sec, sizeof(sx.stx_btime.tv_sec)), &sx.stx_btime.tv_nsec,
			sizeof(sx.stx_btime.tv_nsec));
	return fnv(h, part, strlen(part));
}

uint64_t devid_of(unsigned maj, unsigned min, char *desc, size_t len)
{
	char dir[128], v[384], part[96] = "", start[32] = "?";
	uint64_t h;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", maj, min);
	if (sys_line(dir, "partition", v, sizeof(v))) { /* its disk's identity, and which part of it */
		sys_line(dir, "start", start, sizeof(start));
		snprintf(part, sizeof(part), ", partition %.16s at sector %s", v, start);
		strcat(dir, "/..");
	}
	if (sys_line(dir, "loop/backing_file", v, sizeof(v))) {
		char win[80];

		loop_window(dir, win, sizeof(win));
		h = loop_id(v, win, part, desc, len);
		return h + !h;
	}
	if (sys_line(dir, "device/wwid", v, sizeof(v)) || sys_line(dir, "wwid", v, sizeof(v)))
		snprintf(desc, len, "disk wwid %s%s", v, part);
	else if (sys_line(dir, "serial", v, sizeof(v)) || sys_line(dir, "device/serial", v, sizeof(v)))
		snprintf(desc, len, "disk serial %s%s", v, part);
	else if (sys_line(dir, "dm/uuid", v, sizeof(v)))
		snprintf(desc, len, "device-mapper uuid %s%s", v, part);
	else {
		if (len)
			desc[0] = 0;
		return 0;
	}
	h = fnv(0xcbf29ce484222325ull, desc, strlen(desc));
	return h + !h;
}

void devid_refusal(const char *path, const struct gen_map *m, char *why, size_t why_len)
{
	char was[192] = "", p[256], q[256];

	if (!m->ino) {
		sdir_side_read(m->state, ".iomoon-device", was, sizeof(was));
		snprintf(why, why_len, "phase.verify: target %s is not the device its verification state was made on: "
			 "the state %s is of %s, this is %s (device names and numbers move between boots, and a loop "
			 "device is whatever file was attached last: verify the device it was written on, by a name "
			 "that stays, /dev/disk/by-id/...; a verified write of this one makes its own state)",
			 shown(path, p, sizeof(p)), shown(m->state, q, sizeof(q)),
			 was[0] ? was : "a device of another identity", m->devid[0] ? m->devid : "one with no identity");
		return;
	}
	snprintf(why, why_len, "phase.verify: target %s is not the file its verification state was made on: the "
		 "state %s is of a file born at %llu.%09llu on that inode, this one was born at %llu.%09llu (the file "
		 "was deleted and made again; a verified write of this one makes its own state)",
		 shown(path, p, sizeof(p)), shown(m->state, q, sizeof(q)),
		 (unsigned long long)(m->other_btime / 1000000000ull), (unsigned long long)(m->other_btime % 1000000000ull),
		 (unsigned long long)(m->btime_ns / 1000000000ull), (unsigned long long)(m->btime_ns % 1000000000ull));
}
