/* lua_machine.c - iomoon.machine: the machine a run ran on, and what each
 * target is (kind, size, file system, the disk under it and its model),
 * so that a JSON report says where it was measured (doc/reports.md).
 * Everything is read from uname, /proc, /etc/os-release and /sys; what
 * cannot be read is left out, never guessed.
 */
#include <ctype.h>
#include <lauxlib.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "io/netblk.h"
#include "lua/lua_api.h"
#include "lua/lua_int.h"
#include "lua/lua_repro.h"

/* The first line of file path, trimmed, into buf; 0, or -1 when unread. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *s;
	size_t n;

	if (!f)
		return -1;
	s = fgets(buf, (int)len, f);
	fclose(f);
	if (!s)
		return -1;
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	s = buf;
	while (isspace((unsigned char)*s))
		s++;
	memmove(buf, s, strlen(s) + 1);
	return buf[0] ? 0 : -1;
}

/* The value after "key" and a separator (':' or '=') on a line of path,
 * quotes removed, into buf; 0, or -1 when absent. */
static int read_key(const char *path, const char *key, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char line[512];
	size_t kl = strlen(key);
	int rc = -1;

	if (!f)
		return -1;
	while (rc < 0 && fgets(line, sizeof(line), f)) {
		char *v = line + kl;

		if (strncmp(line, key, kl) || (!isspace((unsigned char)*v) && *v != ':' && *v != '='))
			continue;
		v += strspn(v, " \t:=\"'");
		v[strcspn(v, "\"'\n")] = 0;
		while (*v && isspace((unsigned char)v[strlen(v) - 1]))
			v[strlen(v) - 1] = 0;
		snprintf(buf, len, "%s", v);
		rc = buf[0] ? 0 : -1;
	}
	fclose(f);
	return rc;
}

static void set_str(lua_State *L, const char *k, const char *v)
{
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, uint64_t v)
{
	lua_pushinteger(L, (lua_Integer)v);
	lua_setfield(L, -2, k);
}

/* statfs magic numbers (linux/magic.h) and their names. */
static const char *fs_name(long type)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} fs[] = {
		{ 0xEF53, "ext4" }, { 0x58465342, "xfs" }, { 0x9123683E, "btrfs" }, { 0x01021994, "tmpfs" },
		{ 0x794C7630, "overlay" }, { 0x2FC12FC1, "zfs" }, { 0xF2F52010, "f2fs" }, { 0xCA451A4E, "bcachefs" },
		{ 0x6969, "nfs" }, { 0xFF534D42, "cifs" }, { 0xFE534D42, "smb2" }, { 0x65735546, "fuse" },
		{ 0x4D44, "vfat" }, { 0x2011BAB0, "exfat" }, { 0x5346544E, "ntfs" }, { 0x858458F6, "ramfs" },
		{ 0x00C36400, "ceph" }, { 0x3153464A, "jfs" }, { 0x52654973, "reiserfs" }, { 0x62646576, "bdev" },
		{ 0x9FA0, "proc" }, { 0x62656572, "sysfs" }, { 0x1CD1, "devpts" }, { 0x47504653, "gpfs" },
		{ 0x0BD00BD0, "lustre" }, { 0x73717368, "squashfs" }, { 0x72B6, "jffs2" }, { 0x24051905, "ubifs" },
	};

	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if ((unsigned long)(unsigned int)type == fs[i].magic)
			return fs[i].name;
	return NULL;
}

/* The disk under block device dev (a partition's parent): its sysfs
 * directory into dir; 0, or -1 when /sys does not know dev. */
static int disk_dir(dev_t dev, char *dir, size_t len)
{
	char link[64], real[PATH_MAX], part[PATH_MAX + 16];
	struct stat st;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, real))
		return -1;
	snprintf(part, sizeof(part), "%s/partition", real);
	if (stat(part, &st) == 0)
		*strrchr(real, '/') = 0; /* a partition: its disk is the parent */
	snprintf(dir, len, "%s", real);
	return 0;
}

/* device, model, rotational, scheduler: the disk under block device dev. */
static void push_disk(lua_State *L, dev_t dev, int with_size)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], v[256];

	if (disk_dir(dev, dir, sizeof(dir)) < 0)
		return;
	lua_pushfstring(L, "/dev/%s", strrchr(dir, '/') + 1);
	lua_setfield(L, -2, "device");
	snprintf(path, sizeof(path), "%s/device/model", dir);
	if (!read_line(path, v, sizeof(v)))
		set_str(L, "model", v);
	snprintf(path, sizeof(path), "%s/dm/name", dir);
	if (!read_line(path, v, sizeof(v)))
		set_str(L, "dm_name", v);
	snprintf(path, sizeof(path), "%s/queue/rotational", dir);
	if (!read_line(path, v, sizeof(v))) {
		lua_pushboolean(L, v[0] == '1');
		lua_setfield(L, -2, "rotational");
	}
	snprintf(path, sizeof(path), "%s/queue/scheduler", dir);
	if (!read_line(path, v, sizeof(v))) { /* "none [mq-deadline] kyber": the one in brackets */
		char *a = strchr(v, '['), *b = a ? strchr(a, ']') : NULL;

		if (a && b) {
			*b = 0;
			set_str(L, "scheduler", a + 1);
		} else if (!strchr(v, ' ')) {
			set_str(L, "scheduler", v); /* a single one: "none" */
		}
	}
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/size", major(dev), minor(dev));
	if (with_size && !read_line(path, v, sizeof(v)))
		set_int(L, "size", strtoull(v, NULL, 10) * 512);
}

/* What path is: { path, kind, size, filesystem, device, model, ... }. */
static void push_target(lua_State *L, const char *path)
{
	struct stat st;
	struct statfs fs;

	lua_createtable(L, 0, 8);
	if (strstr(path, "://")) { /* a network block device (nbd://): its engine knows it */
		char r[1024];

		net_redact(path, r, sizeof(r)); /* a machine description never carries a password */
		set_str(L, "path", r);
		set_str(L, "kind", "network");
		return;
	}
	set_str(L, "path", path);
	if (stat(path, &st) < 0) {
		set_str(L, "kind", "missing");
		return;
	}
	if (S_ISBLK(st.st_mode)) {
		set_str(L, "kind", "block");
		push_disk(L, st.st_rdev, 1);
		return;
	}
	set_str(L, "kind", S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "directory" : "other");
	set_int(L, "size", (uint64_t)st.st_size);
	if (statfs(path, &fs) == 0 && fs_name(fs.f_type))
		set_str(L, "filesystem", fs_name(fs.f_type));
	push_disk(L, st.st_dev, 0);
}

/* The CPUs this process may run on (as nproc counts them). */
static long cores(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* hostname, kernel, cpu_model, cores, memory_bytes, os, iomoon. */
static void push_host(lua_State *L)
{
	struct utsname u;
	char v[256];
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	if (uname(&u) == 0) {
		set_str(L, "hostname", u.nodename);
		set_str(L, "kernel", u.release);
		set_str(L, "arch", u.machine);
	}
	if (!read_key("/proc/cpuinfo", "model name", v, sizeof(v)) || !read_key("/proc/cpuinfo", "Model", v, sizeof(v)) ||
	    !read_key("/proc/cpuinfo", "Hardware", v, sizeof(v)))
		set_str(L, "cpu_model", v);
	set_int(L, "cores", (uint64_t)cores());
	if (pages > 0 && page > 0)
		set_int(L, "memory_bytes", (uint64_t)pages * (uint64_t)page);
	if (!read_key("/etc/os-release", "PRETTY_NAME", v, sizeof(v)) ||
	    !read_key("/usr/lib/os-release", "PRETTY_NAME", v, sizeof(v)))
		set_str(L, "os", v);
	set_str(L, "iomoon", IOMOON_VERSION);
}

/* iomoon.machine([paths]): this machine; with a list of paths (or one),
 * `targets`, what each of them is. */
int api_machine(lua_State *L)
{
	lua_settop(L, 1);
	lua_createtable(L, 0, 10);
	push_host(L);
	if (lua_type(L, 1) == LUA_TSTRING) {
		lua_createtable(L, 1, 0);
		push_target(L, lua_tostring(L, 1));
		lua_rawseti(L, -2, 1);
		lua_setfield(L, -2, "targets");
	} else if (lua_istable(L, 1)) {
		lua_Integer n = api_check_list(L, 1, "iomoon.machine: paths");

		lua_createtable(L, (int)n, 0);
		for (lua_Integer i = 1; i <= n; i++) {
			lua_rawgeti(L, 1, i);
			if (lua_type(L, -1) != LUA_TSTRING)
				return api_input_error(L, "iomoon.machine: paths[%lld] is a %s (give paths as strings)",
						       (long long)i, luaL_typename(L, -1));
			push_target(L, lua_tostring(L, -1));
			lua_remove(L, -2);
			lua_rawseti(L, -2, i);
		}
		lua_setfield(L, -2, "targets");
	} else if (!lua_isnil(L, 1)) {
		return api_input_error(L, "iomoon.machine: a %s is not a path or a list of paths", luaL_typename(L, 1));
	}
	return 1;
}
