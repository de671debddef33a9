/* lua_target.c - the target userdata of the binding: iomoon.target, its
 * methods (size, sector, kind, path, created, ours, read, write, fsync, probe, close),
 * and the target option tables phases share with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/rc.h"
#include "io/engine.h"
#include "io/target.h"
#include "lua/lua_api.h"
#include "lua/lua_cluster.h"
#include "lua/lua_int.h"

#define PROBE_MT "iomoon.probe"

struct target *api_check_target(lua_State *L, int idx)
{
	struct target *t = luaL_checkudata(L, idx, TARGET_MT);

	if (!t->path)
		luaL_error(L, "target is closed");
	return t;
}

/* Target options from the table at idx (whose strings stay on the stack). */
void api_target_opts(lua_State *L, int idx, struct target_opts *o, const char *what)
{
	static const char *const keys[] = { "path", "size", "create", "fill", "allow_write", "force", NULL };
	char f[64];

	idx = lua_absindex(L, idx);
	*o = (struct target_opts){ .what = what, .create = 1, .fill = FILL_RANDOM };
	api_check_keys(L, idx, what, keys);
	snprintf(f, sizeof(f), "%s.path", what);
	if (lua_getfield(L, idx, "path") != LUA_TSTRING)
		api_input_error(L, "%s: missing or not a string (a file or block device path)", f);
	o->path = api_expand_path(L, lua_tostring(L, -1)); /* {rank}, {host} */
	snprintf(f, sizeof(f), "%s.size", what);
	if (lua_getfield(L, idx, "size") != LUA_TNIL) {
		o->size = api_check_size(L, -1, f);
		if (!o->size)
			api_input_error(L, "%s: 0 bytes (give a size above zero, e.g. \"1g\")", f);
	}
	snprintf(f, sizeof(f), "%s.create", what);
	if (lua_getfield(L, idx, "create") != LUA_TNIL)
		o->create = api_check_bool(L, -1, f);
	snprintf(f, sizeof(f), "%s.fill", what);
	switch (lua_getfield(L, idx, "fill")) {
	case LUA_TNIL:
		break;
	case LUA_TBOOLEAN:
		o->fill = lua_toboolean(L, -1) ? FILL_RANDOM : FILL_NONE;
		break;
	case LUA_TSTRING:
		if (!strcmp(lua_tostring(L, -1), "random"))
			o->fill = FILL_RANDOM;
		else if (!strcmp(lua_tostring(L, -1), "zero"))
			o->fill = FILL_ZERO;
		else
			api_input_error(L, "%s: '%s' is not a fill (allowed: \"random\", \"zero\", false)", f, lua_tostring(L, -1));
		break;
	default:
		api_input_error(L, "%s: a %s is not a fill (allowed: \"random\", \"zero\", false)", f, luaL_typename(L, -1));
	}
	snprintf(f, sizeof(f), "%s.allow_write", what);
	if (lua_getfield(L, idx, "allow_write") != LUA_TNIL)
		o->allow_write = api_check_bool(L, -1, f);
	snprintf(f, sizeof(f), "%s.force", what);
	if (lua_getfield(L, idx, "force") != LUA_TNIL)
		o->force = api_check_bool(L, -1, f);
	lua_pop(L, 5); /* size, create, fill, allow_write, force; path stays for o->path */
}

struct target *api_new_target(lua_State *L)
{
	struct target *t = lua_newuserdatauv(L, sizeof(*t), 0);

	memset(t, 0, sizeof(*t));
	luaL_setmetatable(L, TARGET_MT);
	return t;
}

/* iomoon.target{path=, size=, ...} or iomoon.target(path) -> target */
int api_target(lua_State *L)
{
	struct target_opts o;
	struct target *t;
	char why[WHY_LEN];
	int rc;

	if (lua_type(L, 1) == LUA_TSTRING) { /* iomoon.target("path") */
		lua_createtable(L, 0, 1);
		lua_pushvalue(L, 1);
		lua_setfield(L, -2, "path");
		lua_replace(L, 1);
	}
	if (!lua_istable(L, 1))
		return api_input_error(L, "target: expects a table {path=, size=, ...} or a path");
	lua_settop(L, 1);
	api_target_opts(L, 1, &o, "target");
	t = api_new_target(L);
	rc = target_prepare(t, &o, why, sizeof(why));
	if (rc == RC_INPUT)
		return api_input_error(L, "%s", why);
	if (rc < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, why);
	return 1;
}

static int l_target_gc(lua_State *L)
{
	target_free(luaL_checkudata(L, 1, TARGET_MT));
	return 0;
}

static int l_target_size(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)api_check_target(L, 1)->size);
	return 1;
}

static int l_target_sector(lua_State *L)
{
	lua_pushinteger(L, api_check_target(L, 1)->sector);
	return 1;
}

static int l_target_kind(lua_State *L)
{
	lua_pushstring(L, api_check_target(L, 1)->kind == TARGET_BLOCK ? "block" : "file");
	return 1;
}

static int l_target_path(lua_State *L)
{
	lua_pushstring(L, api_check_target(L, 1)->path);
	return 1;
}

static int l_target_created(lua_State *L)
{
	lua_pushboolean(L, api_check_target(L, 1)->created);
	return 1;
}

static int l_target_ours(lua_State *L)
{
	lua_pushboolean(L, api_check_target(L, 1)->ours);
	return 1;
}

static int l_target_tostring(lua_State *L)
{
	struct target *t = luaL_checkudata(L, 1, TARGET_MT);

	if (!t->path)
		lua_pushstring(L, "iomoon.target (closed)");
	else
		lua_pushfstring(L, "iomoon.target %s (%s, %I bytes)", t->path,
				t->kind == TARGET_BLOCK ? "block" : "file", (lua_Integer)t->size);
	return 1;
}

/* A descriptor on t through target_open, which checks that the path still
 * names the file or device inspected (a link swapped to another file since
 * is refused, as bad input); raises on failure. */
static int open_target(lua_State *L, const struct target *t, int direct, int write, int sync_flags)
{
	char why[WHY_LEN];
	int fd;

	if (t->net) /* target_open would give /dev/null: the data is the server's */
		api_input_error(L, "target %s: a LUN or export is read and written by phases (engine %s), not by the "
				"target's own methods", t->path, t->net->name);
	fd = target_open(t, direct, write, sync_flags, why, sizeof(why));
	if (fd == RC_INPUT)
		api_input_error(L, "%s", why);
	if (fd < 0)
		api_raise_error(L, IOMOON_RUN_ERROR, why);
	return fd;
}

/* :read(offset, len [, {direct=true}]) -> string, ns. A probe, not a
 * phase: one pread, timed (the ns it took). direct reads through O_DIRECT,
 * where offset and len must be whole sectors. */
static int l_target_read(lua_State *L)
{
	struct target *t = api_check_target(L, 1);
	uint64_t off = api_check_size(L, 2, "read offset"), len = api_check_size(L, 3, "read length");
	int direct = 0, fd;
	uint64_t t0, t1;
	ssize_t r;
	void *buf;

	if (lua_istable(L, 4)) {
		api_check_keys(L, 4, "read options", (const char *const[]){ "direct", NULL });
		if (lua_getfield(L, 4, "direct") != LUA_TNIL)
			direct = api_check_bool(L, -1, "read options.direct");
		lua_pop(L, 1);
	}
	if (off + len > t->size || len > (1u << 30))
		return api_input_error(L, "read: %llu bytes at offset %llu is past the end of %s (%llu bytes)",
				       (unsigned long long)len, (unsigned long long)off, t->path, (unsigned long long)t->size);
	if (direct && (off % t->sector || len % t->sector))
		return api_input_error(L, "read: offset %llu and length %llu must be multiples of the %u-byte sector of %s (direct)",
				       (unsigned long long)off, (unsigned long long)len, t->sector, t->path);
	fd = open_target(L, t, direct, 0, 0);
	if (posix_memalign(&buf, t->mem_align > 4096 ? t->mem_align : 4096, len ? len : 1)) {
		close(fd);
		return api_raise_error(L, IOMOON_RUN_ERROR, "read: out of memory");
	}
	t0 = clock_ns();
	r = pread(fd, buf, len, (off_t)off);
	t1 = clock_ns();
	close(fd);
	if (r < 0) {
		int e = errno;

		free(buf);
		return api_raise_error(L, IOMOON_RUN_ERROR, strerror(e));
	}
	lua_pushlstring(L, buf, (size_t)r);
	free(buf);
	lua_pushinteger(L, (lua_Integer)(t1 - t0));
	return 2;
}

static int l_target_write(lua_State *L)
{
	struct target *t = api_check_target(L, 1);
	uint64_t off = api_check_size(L, 2, "write offset");
	size_t len;
	const char *s = luaL_checklstring(L, 3, &len);
	ssize_t r;
	int fd;

	if (off + len > t->size)
		return api_input_error(L, "write: %zu bytes at offset %llu is past the end of %s (%llu bytes)", len,
				   (unsigned long long)off, t->path, (unsigned long long)t->size);
	{
		char why[WHY_LEN];

		if (target_may_write(t, why, sizeof(why)) != RC_OK)
			return api_input_error(L, "write: %s", why);
	}
	fd = open_target(L, t, 0, 1, 0);
	r = pwrite(fd, s, len, (off_t)off);
	close(fd);
	if (r < 0 || (size_t)r != len)
		return api_raise_error(L, IOMOON_RUN_ERROR, r < 0 ? strerror(errno) : "short write");
	lua_pushinteger(L, r);
	return 1;
}

static int l_target_fsync(lua_State *L)
{
	struct target *t = api_check_target(L, 1);
	int fd = open_target(L, t, 0, 0, 0), r;

	r = fsync(fd);
	close(fd);
	if (r < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, strerror(errno));
	return 0;
}

/* A probe (t:probe): one descriptor on a target, opened and checked once
 * as the target's methods open it, for many timed requests in a row (iomoon
 * ping): nothing is opened or allocated between two requests. */
struct probe {
	int fd;
	int direct;
	unsigned sector;
	size_t mem_align;
	uint64_t size;
	void *buf;
	size_t cap;
};

static struct probe *check_probe(lua_State *L)
{
	struct probe *p = luaL_checkudata(L, 1, PROBE_MT);

	if (p->fd < 0)
		luaL_error(L, "probe is closed");
	return p;
}

/* p's buffer of at least len bytes, aligned and already touched (so no
 * page fault lands in a timed call); NULL when out of memory. */
static void *probe_buf(struct probe *p, size_t len)
{
	void *b;

	if (len <= p->cap)
		return p->buf;
	if (posix_memalign(&b, p->mem_align > 4096 ? p->mem_align : 4096, len))
		return NULL;
	memset(b, 0, len);
	free(p->buf);
	p->buf = b;
	p->cap = len;
	return b;
}

/* p:read(offset, len [, drop]) and p:write(offset, s [, drop [, sync]]) ->
 * ns: one pread or pwrite (and with sync an fdatasync after it), timed;
 * drop first drops the range's cached pages (POSIX_FADV_DONTNEED, untimed),
 * as ioping does before each request unless -C. */
static int probe_io(lua_State *L, int write)
{
	struct probe *p = check_probe(L);
	uint64_t off = api_check_size(L, 2, "probe offset"), len, t0, t1;
	const char *s = NULL;
	size_t slen = 0;
	ssize_t r;
	void *buf;

	if (write)
		s = luaL_checklstring(L, 3, &slen);
	len = write ? slen : api_check_size(L, 3, "probe length");
	if (off + len > p->size || len > (1u << 30))
		return api_input_error(L, "probe: %llu bytes at offset %llu are past the end (%llu bytes)",
				       (unsigned long long)len, (unsigned long long)off, (unsigned long long)p->size);
	if (p->direct && (off % p->sector || len % p->sector))
		return api_input_error(L, "probe: offset %llu and length %llu must be multiples of the %u-byte sector (direct)",
				       (unsigned long long)off, (unsigned long long)len, p->sector);
	buf = probe_buf(p, len ? len : 1);
	if (!buf)
		return api_raise_error(L, IOMOON_RUN_ERROR, "probe: out of memory");
	if (write)
		memcpy(buf, s, len);
	if (lua_toboolean(L, 4))
		posix_fadvise(p->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	t0 = clock_ns();
	r = write ? pwrite(p->fd, buf, len, (off_t)off) : pread(p->fd, buf, len, (off_t)off);
	if (r >= 0 && write && lua_toboolean(L, 5) && fdatasync(p->fd) < 0)
		r = -1;
	t1 = clock_ns();
	if (r < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, strerror(errno));
	if ((uint64_t)r != len)
		return api_raise_error(L, IOMOON_RUN_ERROR, write ? "short write" : "short read");
	lua_pushinteger(L, (lua_Integer)(t1 - t0));
	return 1;
}

static int l_probe_read(lua_State *L)
{
	return probe_io(L, 0);
}

static int l_probe_write(lua_State *L)
{
	return probe_io(L, 1);
}

static int l_probe_close(lua_State *L)
{
	struct probe *p = luaL_checkudata(L, 1, PROBE_MT);

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	free(p->buf);
	p->buf = NULL;
	p->cap = 0;
	return 0;
}

/* probe options.sync at idx: "none" (or nil), "dsync" or "sync", as open flags. */
static int probe_sync(lua_State *L, int idx)
{
	const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : NULL;

	if (lua_isnil(L, idx) || (s && !strcmp(s, "none")))
		return 0;
	if (s && !strcmp(s, "dsync"))
		return O_DSYNC;
	if (s && !strcmp(s, "sync"))
		return O_SYNC;
	return api_input_error(L, "probe options.sync: %s is not a sync mode (allowed: \"none\", \"dsync\", \"sync\")",
			       s ? s : luaL_typename(L, idx));
}

/* t:probe([{direct=, write=, sync=}]) -> probe: a descriptor on t for timed
 * requests (write: t must be writable, as for t:write; sync "dsync" or
 * "sync": opened O_DSYNC or O_SYNC, reads too, as ioping -y and -Y). */
static int l_target_probe(lua_State *L)
{
	struct target *t = api_check_target(L, 1);
	int direct = 0, write = 0, sync = 0, fd;
	struct probe *p;

	if (lua_istable(L, 2)) {
		api_check_keys(L, 2, "probe options", (const char *const[]){ "direct", "write", "sync", NULL });
		if (lua_getfield(L, 2, "direct") != LUA_TNIL)
			direct = api_check_bool(L, -1, "probe options.direct");
		if (lua_getfield(L, 2, "write") != LUA_TNIL)
			write = api_check_bool(L, -1, "probe options.write");
		lua_getfield(L, 2, "sync");
		sync = probe_sync(L, -1);
		lua_pop(L, 3);
	}
	if (write) {
		char why[WHY_LEN];

		if (target_may_write(t, why, sizeof(why)) != RC_OK)
			return api_input_error(L, "probe: %s", why);
	}
	p = lua_newuserdatauv(L, sizeof(*p), 0);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	luaL_setmetatable(L, PROBE_MT);
	fd = open_target(L, t, direct, write, sync);
	/* no readahead: a probe times the one request, as ioping does (it
	 * sets POSIX_FADV_RANDOM on its working set). Else a buffered read
	 * after its range's pages were dropped reads ahead up to the
	 * device's read_ahead_kb, and `ping -R` timed 10 to 15 KiB of device
	 * reads per 4 KiB request, 2.5x ioping's figure (issue 48) */
	if (!direct)
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	p->fd = fd;
	p->direct = direct;
	p->sector = t->sector;
	p->mem_align = t->mem_align;
	p->size = t->size;
	return 1;
}

static int l_target_close(lua_State *L)
{
	target_free(luaL_checkudata(L, 1, TARGET_MT));
	return 0;
}

/* The metatable of targets (TARGET_MT). */
void api_target_metatable(lua_State *L)
{
	static const luaL_Reg target_methods[] = {
		{ "size", l_target_size }, { "sector", l_target_sector }, { "kind", l_target_kind }, { "path", l_target_path },
		{ "created", l_target_created }, { "ours", l_target_ours }, { "read", l_target_read }, { "write", l_target_write }, { "fsync", l_target_fsync },
		{ "probe", l_target_probe }, { "close", l_target_close }, { NULL, NULL },
	};
	static const luaL_Reg probe_methods[] = {
		{ "read", l_probe_read }, { "write", l_probe_write }, { "close", l_probe_close }, { NULL, NULL },
	};

	api_new_metatable(L, TARGET_MT, target_methods, l_target_gc, l_target_tostring);
	api_new_metatable(L, PROBE_MT, probe_methods, l_probe_close, NULL);
}
