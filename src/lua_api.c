/* lua_api.c - the binding: the `iomoon` module, its argument checking,
 * target and histogram userdata, and CSV files. Phase tables and results
 * are translated in lua_phase.c.
 *
 * Errors are raised as small tables with a metatable, so the command line
 * can tell bad input (exit 2) from a failed run (exit 1) and a bug in a
 * script (a traceback). Every message names the field, the value and what
 * is allowed.
 */
#include "lua_api.h"
#include "lua_int.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "csv.h"
#include "engine.h"
#include "hist.h"
#include "outfile.h"
#include "phase.h"
#include "target.h"
#include "units.h"

#define CSVW_MT "iomoon.csv.writer"

/* ---- errors ---- */

/* msg with its control bytes shown (\n, \x1b): an echoed path or name
 * cannot break the one-line message or forge a second one. */
static void push_escaped(lua_State *L, const char *msg)
{
	luaL_Buffer b;

	luaL_buffinit(L, &b);
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			luaL_addchar(&b, (char)*p);
		} else {
			char e[8];

			snprintf(e, sizeof(e), *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : *p == '\r' ? "\\r" : "\\x%02x", *p);
			luaL_addstring(&b, e);
		}
	}
	luaL_pushresult(&b);
}

int api_raise_error(lua_State *L, const char *mt, const char *msg)
{
	lua_createtable(L, 0, 2);
	luaL_where(L, 2);
	lua_setfield(L, -2, "where");
	push_escaped(L, msg);
	lua_setfield(L, -2, "msg");
	luaL_setmetatable(L, mt);
	return lua_error(L);
}

int api_input_error(lua_State *L, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return api_raise_error(L, IOMOON_INPUT_ERROR, msg);
}

static int error_tostring(lua_State *L)
{
	lua_getfield(L, 1, "where");
	lua_getfield(L, 1, "msg");
	lua_concat(L, 2);
	return 1;
}

/* ---- values users type ---- */

/* A Lua string may hold NUL bytes; C would read only up to the first. */
static void check_no_nul(lua_State *L, int idx, const char *field)
{
	size_t len;
	const char *s = lua_tolstring(L, idx, &len);

	if (strlen(s) != len)
		api_input_error(L, "%s: the string holds a NUL byte at position %zu (give a plain size or duration)", field,
				strlen(s) + 1);
}

/* A size from a Lua integer or a string such as "4k". */
uint64_t api_check_size(lua_State *L, int idx, const char *field)
{
	char why[256];
	uint64_t v;

	if (lua_type(L, idx) == LUA_TNUMBER) {
		lua_Number n = lua_tonumber(L, idx);

		if (n < 0 || n != floor(n) || n > 9.2e18)
			api_input_error(L, "%s: %s is not a size in bytes (a whole number >= 0, or a string such as \"4k\")",
				    field, lua_tostring(L, idx));
		return (uint64_t)n;
	}
	if (lua_type(L, idx) != LUA_TSTRING)
		api_input_error(L, "%s: a %s is not a size (give bytes, or a string such as \"4k\" or \"1g\")", field,
			    luaL_typename(L, idx));
	check_no_nul(L, idx, field);
	if (units_parse_size(lua_tostring(L, idx), &v, why, sizeof(why)))
		api_input_error(L, "%s: %s", field, why);
	return v;
}

/* A duration in ns from a number of seconds or a string such as "500ms". */
uint64_t api_check_duration(lua_State *L, int idx, const char *field)
{
	char why[256];
	uint64_t v;

	if (lua_type(L, idx) == LUA_TNUMBER) {
		lua_Number n = lua_tonumber(L, idx);

		if (!(n >= 0) || n > 9.2e9)
			api_input_error(L, "%s: %s is not a duration (seconds >= 0, or a string such as \"500ms\")", field,
				    lua_tostring(L, idx));
		return (uint64_t)llround(n * 1e9);
	}
	if (lua_type(L, idx) != LUA_TSTRING)
		api_input_error(L, "%s: a %s is not a duration (give seconds, or a string such as \"10s\" or \"2m\")", field,
			    luaL_typename(L, idx));
	check_no_nul(L, idx, field);
	if (units_parse_duration(lua_tostring(L, idx), &v, why, sizeof(why)))
		api_input_error(L, "%s: %s", field, why);
	return v;
}

double api_check_pct(lua_State *L, int idx, const char *field)
{
	lua_Number n;

	if (lua_type(L, idx) != LUA_TNUMBER)
		api_input_error(L, "%s: a %s is not a percentage (a number from 0 to 100)", field, luaL_typename(L, idx));
	n = lua_tonumber(L, idx);
	if (!(n >= 0 && n <= 100))
		api_input_error(L, "%s: %s is outside 0..100 (a percentage)", field, lua_tostring(L, idx));
	return n;
}

lua_Integer api_check_int(lua_State *L, int idx, const char *field, lua_Integer lo, lua_Integer hi)
{
	int isint;
	lua_Integer v = lua_tointegerx(L, idx, &isint);

	if (!isint)
		api_input_error(L, "%s: %s is not a whole number (allowed: %lld to %lld)", field,
			    lua_type(L, idx) == LUA_TNUMBER || lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx)
											 : luaL_typename(L, idx),
			    (long long)lo, (long long)hi);
	if (v < lo || v > hi)
		api_input_error(L, "%s: %lld is out of range (allowed: %lld to %lld)", field, (long long)v, (long long)lo,
			    (long long)hi);
	return v;
}

int api_check_bool(lua_State *L, int idx, const char *field)
{
	if (!lua_isboolean(L, idx))
		api_input_error(L, "%s: a %s is not true or false", field, luaL_typename(L, idx));
	return lua_toboolean(L, idx);
}

/* Refuse keys of table t (absolute index) that are not in allowed. */
void api_check_keys(lua_State *L, int t, const char *what, const char *const *allowed)
{
	lua_pushnil(L);
	while (lua_next(L, t)) {
		const char *k;
		int ok = 0;

		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING) {
			/* array part: allowed only where the caller expects a list */
			if (lua_type(L, -1) == LUA_TNUMBER && !strcmp(allowed[0], "[list]"))
				continue;
			api_input_error(L, "%s: unexpected key %s of type %s", what, lua_tostring(L, -1) ? lua_tostring(L, -1) : "?",
				    luaL_typename(L, -1));
		}
		k = lua_tostring(L, -1);
		for (unsigned i = 0; allowed[i]; i++)
			if (!strcmp(allowed[i], k))
				ok = 1;
		if (!ok) {
			char list[512] = "";
			const char *near = api_nearest(k, allowed);

			if (near)
				api_input_error(L, "%s: unknown field '%s' (did you mean '%s'?)", what, k, near);
			for (unsigned i = 0; allowed[i]; i++) {
				if (allowed[i][0] == '[')
					continue;
				strncat(list, allowed[i], sizeof(list) - strlen(list) - 3);
				if (allowed[i + 1])
					strncat(list, ", ", sizeof(list) - strlen(list) - 1);
			}
			api_input_error(L, "%s: unknown field '%s' (known: %s)", what, k, list);
		}
	}
}

/* Edit distance of a and b (insertions, deletions, substitutions and
 * transpositions of neighbours: "form" is one edit from "from"), or a large
 * number when either is long. The Lua library's iomoon.errors.nearest
 * applies the same rule. */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned d[64][64], la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

	if (la >= 64 || lb >= 64)
		return 1000;
	for (unsigned i = 0; i <= la; i++)
		d[i][0] = i;
	for (unsigned j = 0; j <= lb; j++)
		d[0][j] = j;
	for (unsigned i = 1; i <= la; i++) {
		for (unsigned j = 1; j <= lb; j++) {
			unsigned best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *api_nearest(const char *k, const char *const *names)
{
	const char *best = NULL;
	unsigned best_d = 1000, len = (unsigned)strlen(k);

	for (unsigned i = 0; names[i]; i++) {
		unsigned d;

		if (names[i][0] == '[')
			continue;
		d = edit_distance(k, names[i]);
		/* a prefix ("qdepth" for "qd") is a near miss too */
		if (d > 2 && !strncmp(k, names[i], strlen(names[i])) && strlen(names[i]) >= 2)
			d = 2;
		/* a shared start of half the longer name ("fail_if", "fail_when") */
		if (d > 2) {
			size_t c = 0, ln = strlen(names[i]);

			while (k[c] && k[c] == names[i][c])
				c++;
			if (c >= 3 && 2 * c >= (len > ln ? len : ln))
				d = 2;
		}
		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	return best && best_d <= (len <= 4 ? 1u : len / 4 > 2 ? len / 4 : 2u) ? best : NULL;
}

/* The length of the list at idx, refusing holes and other keys: a list's
 * keys are exactly 1..n. */
lua_Integer api_check_list(lua_State *L, int idx, const char *field)
{
	lua_Integer n = 0, len;

	idx = lua_absindex(L, idx);
	len = (lua_Integer)lua_rawlen(L, idx);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > len) {
			const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
			lua_Integer at = 1;

			while (at <= len && lua_rawgeti(L, idx, at) != LUA_TNIL) {
				lua_pop(L, 1);
				at++;
			}
			if (k)
				api_input_error(L, "%s: a list has no field '%s' (give a list such as {\"4k\", \"8k\"})", field, k);
			api_input_error(L, "%s: a list with a hole at [%lld] (its items must be [1] to [n], none missing)", field,
					(long long)at);
		}
		n++;
	}
	if (n != len) { /* a border below a hole: find the first missing item */
		lua_Integer at = 1;

		while (lua_rawgeti(L, idx, at) != LUA_TNIL) {
			lua_pop(L, 1);
			at++;
		}
		api_input_error(L, "%s: a list with a hole at [%lld] (its items must be [1] to [n], none missing)", field,
				(long long)at);
	}
	return n;
}

/* ---- targets ---- */

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
	o->path = lua_tostring(L, -1);
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

static int l_target(lua_State *L)
{
	struct target_opts o;
	struct target *t;
	char why[512];
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
	if (rc == -2)
		return api_input_error(L, "%s", why);
	if (rc < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, why);
	return 1;
}

static int t_gc(lua_State *L)
{
	target_free(luaL_checkudata(L, 1, TARGET_MT));
	return 0;
}

static int t_size(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)api_check_target(L, 1)->size);
	return 1;
}

static int t_sector(lua_State *L)
{
	lua_pushinteger(L, api_check_target(L, 1)->sector);
	return 1;
}

static int t_kind(lua_State *L)
{
	lua_pushstring(L, api_check_target(L, 1)->kind == TARGET_BLOCK ? "block" : "file");
	return 1;
}

static int t_path(lua_State *L)
{
	lua_pushstring(L, api_check_target(L, 1)->path);
	return 1;
}

static int t_created(lua_State *L)
{
	lua_pushboolean(L, api_check_target(L, 1)->created);
	return 1;
}

static int t_tostring(lua_State *L)
{
	struct target *t = luaL_checkudata(L, 1, TARGET_MT);

	if (!t->path)
		lua_pushstring(L, "iomoon.target (closed)");
	else
		lua_pushfstring(L, "iomoon.target %s (%s, %I bytes)", t->path,
				t->kind == TARGET_BLOCK ? "block" : "file", (lua_Integer)t->size);
	return 1;
}

/* :read(offset, len [, {direct=true}]) -> string, ns. A probe, not a
 * phase: one pread, timed (the ns it took). direct reads through O_DIRECT,
 * where offset and len must be whole sectors. */
static int t_read(lua_State *L)
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
	fd = open(t->path, O_RDONLY | (direct ? O_DIRECT : 0));
	if (fd < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, strerror(errno));
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

static int t_write(lua_State *L)
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
		char why[1400];

		if (target_may_write(t, why, sizeof(why)) < 0)
			return api_input_error(L, "write: %s", why);
	}
	fd = open(t->path, O_WRONLY);
	if (fd < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, strerror(errno));
	r = pwrite(fd, s, len, (off_t)off);
	close(fd);
	if (r < 0 || (size_t)r != len)
		return api_raise_error(L, IOMOON_RUN_ERROR, r < 0 ? strerror(errno) : "short write");
	lua_pushinteger(L, r);
	return 1;
}

static int t_fsync(lua_State *L)
{
	struct target *t = api_check_target(L, 1);
	int fd = open(t->path, O_RDONLY), r;

	if (fd < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, strerror(errno));
	r = fsync(fd);
	close(fd);
	if (r < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, strerror(errno));
	return 0;
}

static int t_close(lua_State *L)
{
	target_free(luaL_checkudata(L, 1, TARGET_MT));
	return 0;
}

/* ---- histograms ---- */

struct hist *api_push_hist(lua_State *L)
{
	struct hist *h = lua_newuserdatauv(L, sizeof(*h), 0);

	hist_init(h);
	luaL_setmetatable(L, HIST_MT);
	return h;
}

static int l_hist(lua_State *L)
{
	api_push_hist(L);
	return 1;
}

static int h_record(lua_State *L)
{
	struct hist *h = luaL_checkudata(L, 1, HIST_MT);
	lua_Integer v = luaL_checkinteger(L, 2);
	lua_Integer n = luaL_optinteger(L, 3, 1);

	if (v < 0)
		return api_input_error(L, "hist:record: %lld is negative (values are >= 0, e.g. nanoseconds)", (long long)v);
	if (n < 0)
		return api_input_error(L, "hist:record: count %lld is negative (how many times to record the value: >= 0)",
				       (long long)n);
	hist_record_n(h, (uint64_t)v, (uint64_t)n); /* O(1) however large n is */
	return 0;
}

static int h_percentile(lua_State *L)
{
	struct hist *h = luaL_checkudata(L, 1, HIST_MT);
	lua_Number p = luaL_checknumber(L, 2);

	if (!(p >= 0 && p <= 100))
		return api_input_error(L, "hist:percentile: %f is outside 0..100", p);
	lua_pushinteger(L, (lua_Integer)hist_percentile(h, p));
	return 1;
}

static int h_merge(lua_State *L)
{
	hist_merge(luaL_checkudata(L, 1, HIST_MT), luaL_checkudata(L, 2, HIST_MT));
	lua_settop(L, 1);
	return 1;
}

static int h_count(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)((struct hist *)luaL_checkudata(L, 1, HIST_MT))->count);
	return 1;
}

static int h_min(lua_State *L)
{
	struct hist *h = luaL_checkudata(L, 1, HIST_MT);

	lua_pushinteger(L, h->count ? (lua_Integer)h->min : 0);
	return 1;
}

static int h_max(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)((struct hist *)luaL_checkudata(L, 1, HIST_MT))->max);
	return 1;
}

static int h_mean(lua_State *L)
{
	lua_pushnumber(L, hist_mean(luaL_checkudata(L, 1, HIST_MT)));
	return 1;
}

static int h_stdev(lua_State *L)
{
	lua_pushnumber(L, hist_stdev(luaL_checkudata(L, 1, HIST_MT)));
	return 1;
}

/* :buckets() -> list of {low, width, count} for the non-empty buckets */
static int h_buckets(lua_State *L)
{
	struct hist *h = luaL_checkudata(L, 1, HIST_MT);
	lua_Integer n = 0;

	lua_newtable(L);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		lua_createtable(L, 3, 0);
		lua_pushinteger(L, (lua_Integer)hist_bucket_low(i));
		lua_rawseti(L, -2, 1);
		lua_pushinteger(L, (lua_Integer)hist_bucket_width(i));
		lua_rawseti(L, -2, 2);
		lua_pushinteger(L, (lua_Integer)h->buckets[i]);
		lua_rawseti(L, -2, 3);
		lua_rawseti(L, -2, ++n);
	}
	return 1;
}

static int h_tostring(lua_State *L)
{
	struct hist *h = luaL_checkudata(L, 1, HIST_MT);

	lua_pushfstring(L, "iomoon.hist (%I values)", (lua_Integer)h->count);
	return 1;
}

/* ---- CSV ---- */

struct csvw_ud {
	struct csvw *w;
	lua_Integer rows;
};

static int l_csv_writer(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct csvw_ud *u = lua_newuserdatauv(L, sizeof(*u), 0);
	char why[512];

	u->w = NULL;
	u->rows = 0;
	luaL_setmetatable(L, CSVW_MT);
	u->w = csvw_open(path, why, sizeof(why));
	if (!u->w)
		return api_input_error(L, "csv.writer: %s", why);
	return 1;
}

/* w:row{...}: numbers are written as Lua prints them; nil as empty */
static int csvw_l_row(lua_State *L)
{
	struct csvw_ud *u = luaL_checkudata(L, 1, CSVW_MT);
	const char *fields[256];
	size_t lens[256];
	lua_Integer n;

	if (!u->w)
		return luaL_error(L, "csv writer is closed");
	luaL_checktype(L, 2, LUA_TTABLE);
	n = (lua_Integer)lua_rawlen(L, 2);
	if (n > 256)
		return api_input_error(L, "csv row: %lld fields (at most 256)", (long long)n);
	lua_settop(L, 2);
	luaL_checkstack(L, (int)n * 2 + 4, "csv row");
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, 2, i);
		if (lua_isnil(L, -1)) {
			fields[i - 1] = "";
			lens[i - 1] = 0;
		} else {
			fields[i - 1] = luaL_tolstring(L, -1, &lens[i - 1]); /* kept on the stack */
		}
	}
	if (csvw_row(u->w, fields, lens, (size_t)n) < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, "csv: write failed");
	u->rows++;
	return 0;
}

static int csvw_l_close(lua_State *L)
{
	struct csvw_ud *u = luaL_checkudata(L, 1, CSVW_MT);
	char why[512];

	if (u->w) {
		struct csvw *w = u->w;

		u->w = NULL;
		if (csvw_close(w, 1, why, sizeof(why)) < 0)
			return api_raise_error(L, IOMOON_RUN_ERROR, why);
	}
	return 0;
}

static int csvw_l_gc(lua_State *L)
{
	struct csvw_ud *u = luaL_checkudata(L, 1, CSVW_MT);
	char why[64];

	if (u->w) /* never closed: the file was not finished, keep the old one */
		csvw_close(u->w, 0, why, sizeof(why));
	u->w = NULL;
	return 0;
}

struct csv_read_ctx {
	lua_State *L;
	lua_Integer row, col;
};

static void csv_field_cb(void *ctx, const char *s, size_t len)
{
	struct csv_read_ctx *c = ctx;

	if (c->col == 0) {
		lua_newtable(c->L);
	}
	lua_pushlstring(c->L, s, len);
	lua_rawseti(c->L, -2, ++c->col);
}

static void csv_row_cb(void *ctx)
{
	struct csv_read_ctx *c = ctx;

	if (c->col == 0)
		lua_newtable(c->L);
	lua_rawseti(c->L, -2, ++c->row);
	c->col = 0;
}

/* csv.read(path) -> list of rows, each a list of strings */
static int l_csv_read(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct csv_read_ctx c = { L, 0, 0 };
	char why[512];

	lua_settop(L, 1);
	lua_newtable(L);
	luaL_checkstack(L, 8, NULL);
	if (csv_read_file(path, csv_field_cb, csv_row_cb, &c, why, sizeof(why)) < 0)
		return api_input_error(L, "csv.read: %s", why);
	if (c.col) /* a last row without a line end */
		csv_row_cb(&c);
	return 1;
}

/* ---- output files (outfile.c) and CSV text ---- */

/* stat(path [, follow=true]) -> {kind=, dev=, ino=, size=, writable=}, or nil, message, errno */
static int l_stat(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct outfile_stat st;

	if (outfile_stat(path, lua_isnoneornil(L, 2) || lua_toboolean(L, 2), &st) < 0) {
		int err = errno;

		luaL_pushfail(L);
		lua_pushstring(L, strerror(err));
		lua_pushinteger(L, err);
		return 3;
	}
	lua_createtable(L, 0, 5);
	lua_pushstring(L, st.kind);
	lua_setfield(L, -2, "kind");
	lua_pushinteger(L, (lua_Integer)st.dev);
	lua_setfield(L, -2, "dev");
	lua_pushinteger(L, (lua_Integer)st.ino);
	lua_setfield(L, -2, "ino");
	lua_pushinteger(L, (lua_Integer)st.size);
	lua_setfield(L, -2, "size");
	lua_pushboolean(L, st.writable);
	lua_setfield(L, -2, "writable");
	return 1;
}

/* write_atomic(path, s): replace path by s, durably; a run error keeps the old file */
static int l_write_atomic(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	size_t len;
	const char *s = luaL_checklstring(L, 2, &len);
	char why[512];

	if (outfile_write_atomic(path, s, len, why, sizeof(why)) < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, why);
	return 0;
}

/* csv.format(rows) -> the CSV text of a list of rows (as csv.writer writes them) */
static int l_csv_format(lua_State *L)
{
	struct csvbuf b = { 0 };
	const char *fields[256];
	size_t lens[256];

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	for (lua_Integer r = 1; lua_rawgeti(L, 1, r) == LUA_TTABLE; r++) {
		lua_Integer n = (lua_Integer)lua_rawlen(L, 2);

		if (n > 256) {
			free(b.s);
			return api_input_error(L, "csv.format: row %lld has %lld fields (at most 256)", (long long)r,
					       (long long)n);
		}
		luaL_checkstack(L, (int)n + 4, "csv.format");
		for (lua_Integer i = 1; i <= n; i++) {
			lua_rawgeti(L, 2, i);
			fields[i - 1] = lua_isnil(L, -1) ? "" : luaL_tolstring(L, -1, &lens[i - 1]);
			if (lua_isnil(L, -1))
				lens[i - 1] = 0;
		}
		if (csv_format_row(&b, fields, lens, (size_t)n) < 0) {
			free(b.s);
			return luaL_error(L, "csv.format: out of memory");
		}
		lua_settop(L, 1);
	}
	lua_pushlstring(L, b.s ? b.s : "", b.len);
	free(b.s);
	return 1;
}

/* ---- module functions ---- */

static int l_now(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)clock_ns());
	return 1;
}

/* sleep(duration): returns early, within milliseconds, when a signal asks
 * the process to stop (iomoon.interrupted() is then true). */
static int l_sleep(lua_State *L)
{
	clock_sleep_stop(api_check_duration(L, 1, "sleep"), &phase_interrupt);
	return 0;
}

static int l_size(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)api_check_size(L, 1, "size"));
	return 1;
}

static int l_duration(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)api_check_duration(L, 1, "duration"));
	return 1;
}

/* engines() -> list of {name=, works=, why=} */
static int l_engines(lua_State *L)
{
	const struct engine_ops *const *e = engine_all();

	lua_newtable(L);
	for (int i = 0; e[i]; i++) {
		char why[256] = "";
		int ok = e[i]->probe(why, sizeof(why)) == 0;

		lua_createtable(L, 0, 3);
		lua_pushstring(L, e[i]->name);
		lua_setfield(L, -2, "name");
		lua_pushboolean(L, ok);
		lua_setfield(L, -2, "works");
		if (!ok) {
			lua_pushstring(L, why);
			lua_setfield(L, -2, "why");
		}
		lua_rawseti(L, -2, i + 1);
	}
	lua_pushstring(L, engine_auto()->name);
	return 2;
}

static void new_metatable(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc,
			  lua_CFunction tostring)
{
	luaL_newmetatable(L, name);
	lua_newtable(L);
	luaL_setfuncs(L, methods, 0);
	lua_setfield(L, -2, "__index");
	if (gc) {
		lua_pushcfunction(L, gc);
		lua_setfield(L, -2, "__gc");
	}
	if (tostring) {
		lua_pushcfunction(L, tostring);
		lua_setfield(L, -2, "__tostring");
	}
	lua_pop(L, 1);
}

void iomoon_lua_setup(lua_State *L, const char *luadir)
{
	luaL_openlibs(L);
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
	lua_pushcfunction(L, luaopen_iomoon);
	lua_setfield(L, -2, "iomoon");
	lua_pop(L, 1);
	lua_getglobal(L, "package");
	lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", luadir, luadir);
	lua_getfield(L, -2, "path");
	lua_concat(L, 2);
	lua_setfield(L, -2, "path");
	lua_pop(L, 1);
}

int luaopen_iomoon(lua_State *L)
{
	static const luaL_Reg target_methods[] = {
		{ "size", t_size }, { "sector", t_sector }, { "kind", t_kind }, { "path", t_path },
		{ "created", t_created }, { "read", t_read }, { "write", t_write }, { "fsync", t_fsync },
		{ "close", t_close }, { NULL, NULL },
	};
	static const luaL_Reg hist_methods[] = {
		{ "record", h_record }, { "percentile", h_percentile }, { "merge", h_merge },
		{ "count", h_count }, { "min", h_min }, { "max", h_max }, { "mean", h_mean },
		{ "stdev", h_stdev }, { "buckets", h_buckets }, { NULL, NULL },
	};
	static const luaL_Reg csvw_methods[] = {
		{ "row", csvw_l_row }, { "close", csvw_l_close }, { NULL, NULL },
	};
	static const luaL_Reg funcs[] = {
		{ "target", l_target }, { "run", api_run }, { "check", api_check }, { "now", l_now }, { "sleep", l_sleep },
		{ "size", l_size }, { "duration", l_duration }, { "hist", l_hist }, { "engines", l_engines },
		{ "results", api_results }, { "keep_results", api_keep_results }, { "on_result", api_on_result },
		{ "set_progress", api_set_progress }, { "interrupted", api_interrupted },
		{ "stat", l_stat }, { "write_atomic", l_write_atomic },
		{ NULL, NULL },
	};
	static const luaL_Reg csv_funcs[] = {
		{ "writer", l_csv_writer }, { "read", l_csv_read }, { "format", l_csv_format }, { NULL, NULL },
	};

	new_metatable(L, TARGET_MT, target_methods, t_gc, t_tostring);
	new_metatable(L, HIST_MT, hist_methods, NULL, h_tostring);
	new_metatable(L, CSVW_MT, csvw_methods, csvw_l_gc, NULL);
	luaL_newmetatable(L, IOMOON_INPUT_ERROR);
	lua_pushcfunction(L, error_tostring);
	lua_setfield(L, -2, "__tostring");
	luaL_newmetatable(L, IOMOON_RUN_ERROR);
	lua_pushcfunction(L, error_tostring);
	lua_setfield(L, -2, "__tostring");
	luaL_newmetatable(L, OBJECT_MT);
	lua_pushliteral(L, "object");
	lua_setfield(L, -2, "__json");
	lua_pop(L, 3);
	luaL_newlib(L, funcs);
	luaL_newlib(L, csv_funcs);
	lua_setfield(L, -2, "csv");
	lua_pushstring(L, IOMOON_VERSION);
	lua_setfield(L, -2, "version");
	lua_createtable(L, 0, 1);
	lua_pushinteger(L, PHASE_MAX_BS);
	lua_setfield(L, -2, "max_bs");
	lua_setfield(L, -2, "limits");
	return 1;
}
