/* lua_api.c - the binding: the `iomoon` module, its argument checking and
 * histogram userdata. Phase tables and results are translated in
 * lua_phase.c, targets are lua_target.c's, iomoon.csv is lua_csv.c's.
 *
 * Errors are raised as small tables with a metatable, so the command line
 * can tell bad input (exit 2) from a failed run (exit 1) and a bug in a
 * script (a traceback). Every message names the field, the value and what
 * is allowed.
 */
#include "lua/lua_api.h"
#include "core/redact.h"
#include "core/shown.h"
#include "io/protect.h"
#include "lua/lua_cluster.h"
#include "lua/lua_int.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/hist.h"
#include "core/outfile.h"
#include "core/units.h"
#include "io/engine.h"
#include "io/target.h"
#include "lua/lua_repro.h"
#include "lua/lua_result_fields.h"
#include "lua/lua_trace.h"
#include "run/phase.h"

/* ---- errors ---- */

/* "file:line: " of the innermost Lua code on the stack that is not the
 * shipped library's (so an error points at the user's line whether the
 * call was direct or through iomoon.plan), or "" when there is none. */
static void push_user_where(lua_State *L)
{
	char where[512] = "", lib[4096] = "";
	int top = lua_gettop(L);
	lua_Debug ar;

	lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
	if (lua_getfield(L, -1, "iomoon") == LUA_TTABLE && lua_getfield(L, -1, "lua_dir") == LUA_TSTRING)
		snprintf(lib, sizeof(lib), "@%s", lua_tostring(L, -1));
	lua_settop(L, top);
	for (int level = 1; lua_getstack(L, level, &ar); level++) {
		if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0)
			continue;
		if (lib[0] && !strncmp(ar.source, lib, strlen(lib)))
			continue;
		snprintf(where, sizeof(where), "%s:%d: ", ar.short_src, ar.currentline);
		break;
	}
	lua_pushstring(L, where);
}

/* The length of the field path an input error's message starts with
 * ("phase.mix[2].bs" in "phase.mix[2].bs: 3000 is not ..."), or 0. */
static size_t field_prefix(const char *msg)
{
	size_t n = strspn(msg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.[]-");

	return n && msg[n] == ':' && msg[n + 1] == ' ' ? n : 0;
}

/* Raise an error table of metatable mt: where (the user's line), msg, and
 * for an input error the field it names as data (field, and what: the
 * message after "field: "), so no caller has to take the text apart. */
int api_raise_error(lua_State *L, const char *mt, const char *msg)
{
	char buf[8192]; /* control bytes shown (shown.h): one line, never forged */
	size_t f;

	lua_createtable(L, 0, 4);
	push_user_where(L);
	lua_setfield(L, -2, "where");
	shown(msg, buf, sizeof(buf));
	lua_pushstring(L, buf);
	lua_setfield(L, -2, "msg");
	f = strcmp(mt, IOMOON_INPUT_ERROR) ? 0 : field_prefix(buf);
	if (f) {
		lua_pushlstring(L, buf, f);
		lua_setfield(L, -2, "field");
		lua_pushstring(L, buf + f + 2);
		lua_setfield(L, -2, "what");
	}
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

void api_push_redacted(lua_State *L, const char *s, size_t len)
{
	luaL_Buffer b;
	char *p;

	p = luaL_buffinitsize(L, &b, len + 1);
	memcpy(p, s, len);
	p[len] = 0;
	for (size_t at = 0; at <= len; at++) { /* each text between NUL bytes on its own */
		size_t was = strlen(p + at), now = redact_in_place(p + at, 0);

		memmove(p + at + now, p + at + was, len - (at + was) + 1);
		len -= was - now;
		at += now;
	}
	luaL_pushresultsize(&b, len);
}

/* iomoon.redact(s): s without any URL's password (redact.h), the one
 * redaction every message, name and report goes through. */
static int l_redact(lua_State *L)
{
	size_t len;
	const char *s = luaL_checklstring(L, 1, &len);

	api_push_redacted(L, s, len);
	return 1;
}

static int l_error_tostring(lua_State *L)
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
	char why[WHY_LEN];
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
	char why[WHY_LEN];
	uint64_t v;

	if (lua_type(L, idx) == LUA_TNUMBER) {
		lua_Number n = lua_tonumber(L, idx);

		if (n > 9.2e9 && n <= DBL_MAX) /* whole ns below 2^63 */
			api_input_error(L, "%s: %s s is too long (at most 9.2e9 s, about 291 years)", field,
				    lua_tostring(L, idx));
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

/* A number at idx: a Lua number, or a string holding only one ("16",
 * " 1e3 ", as Lua itself reads it): every number of a phase is taken
 * either way. A string holding anything else ("1000/s") is refused, `what`
 * (what the field takes) in the message; any other type returns 0. */
int api_number(lua_State *L, int idx, const char *field, const char *what, lua_Number *n)
{
	int ok;

	*n = lua_tonumberx(L, idx, &ok);
	if (!ok && lua_type(L, idx) == LUA_TSTRING)
		api_input_error(L, "%s: \"%s\" is not a number (%s; a string must hold only the number, no unit)", field,
				lua_tostring(L, idx), what);
	return ok;
}

double api_check_pct(lua_State *L, int idx, const char *field)
{
	lua_Number n;

	if (!api_number(L, idx, field, "a percentage from 0 to 100", &n))
		api_input_error(L, "%s: a %s is not a percentage (a number from 0 to 100)", field, luaL_typename(L, idx));
	if (!(n >= 0 && n <= 100))
		api_input_error(L, "%s: %s is outside 0..100 (a percentage)", field, lua_tostring(L, idx));
	return n;
}

/* A share of the I/Os in percent (read, trim, random): as api_check_pct,
 * but a number between 0 and 1 is refused as the fraction it looks like
 * (read = 0.7 would be 0.7 % reads: a write storm); a share under 1 % is
 * a string with its sign, "0.7%". */
double api_check_share(lua_State *L, int idx, const char *field)
{
	if (lua_type(L, idx) == LUA_TSTRING) {
		const char *s = lua_tostring(L, idx);
		char *end;
		double n = strtod(s, &end);

		if (end != s && end[0] == '%' && !end[1]) {
			if (!(n >= 0 && n <= 100))
				api_input_error(L, "%s: %s is outside 0..100 (a percentage)", field, s);
			return n;
		}
	}
	double n = api_check_pct(L, idx, field);

	if (n > 0 && n < 1)
		api_input_error(L, "%s: %g means %g %%, not %g %% (a percentage from 0 to 100, not a fraction): did you "
				"mean %g? (a share under 1 %% is written as a string, \"%g%%\")", field, n, n, n * 100, n * 100, n);
	return n;
}

lua_Integer api_check_int(lua_State *L, int idx, const char *field, lua_Integer lo, lua_Integer hi)
{
	int isint;
	lua_Integer v = lua_tointegerx(L, idx, &isint);
	lua_Number n;
	char what[80];

	snprintf(what, sizeof(what), "a whole number from %lld to %lld", (long long)lo, (long long)hi);
	if (!isint && !api_number(L, idx, field, what, &n))
		api_input_error(L, "%s: a %s is not a whole number (allowed: %lld to %lld)", field, luaL_typename(L, idx),
				(long long)lo, (long long)hi);
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
	unsigned limit = 2 * (len <= 4 ? 1u : len / 4 > 2 ? len / 4 : 2u);

	/* distances in half edits, so that a prefix can be nearer than one edit */
	for (unsigned i = 0; names[i]; i++) {
		size_t ln = strlen(names[i]), c = 0;
		unsigned d;

		if (names[i][0] == '[')
			continue;
		d = 2 * edit_distance(k, names[i]);
		/* a known name that k starts with ("qdepth" for "qd") */
		if (d > 4 && ln >= 2 && !strncmp(k, names[i], ln))
			d = 4;
		/* k the start of a known name ("p99" for "p99_ns"): nearer than any edit */
		if (len >= 2 && ln > len && !strncmp(names[i], k, len))
			d = 1;
		/* a shared start of half the longer name ("fail_if", "fail_when") */
		while (k[c] && k[c] == names[i][c])
			c++;
		if (d > 4 && c >= 3 && 2 * c >= (len > ln ? len : ln))
			d = 4;
		if (d < best_d || (d == best_d && best && ln < strlen(best))) {
			best_d = d;
			best = names[i];
		}
	}
	return best && best_d <= limit ? best : NULL;
}

/* The length of the list at idx, refusing holes and other keys: a list's
 * keys are exactly 1..n. */
lua_Integer api_check_list(lua_State *L, int idx, const char *field)
{
	lua_Integer n = 0, len, at = 1, top = 0;
	int outside = 0;

	idx = lua_absindex(L, idx);
	len = (lua_Integer)lua_rawlen(L, idx);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) == LUA_TSTRING)
			api_input_error(L, "%s: a list has no field '%s' (give a list such as {\"4k\", \"8k\"})", field,
					lua_tostring(L, -1));
		outside |= !lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > len;
		if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > top)
			top = lua_tointeger(L, -1);
		n++;
	}
	if (!outside && n == len) /* n keys, all in 1..n: exactly 1..n */
		return n;
	while (at <= top && lua_rawgeti(L, idx, at) != LUA_TNIL) { /* the first missing item */
		lua_pop(L, 1);
		at++;
	}
	if (at > top)
		return api_input_error(L, "%s: not a list: it has a key outside [1] to [%lld] (items are [1] to [n], "
				       "no others)", field, (long long)len);
	return api_input_error(L, "%s: not a list: its items must be [1] to [n], none missing and no others "
			       "(the first missing is [%lld])", field, (long long)at);
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

static int l_hist_record(lua_State *L)
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

static int l_hist_percentile(lua_State *L)
{
	struct hist *h = luaL_checkudata(L, 1, HIST_MT);
	lua_Number p = luaL_checknumber(L, 2);

	if (!(p >= 0 && p <= 100))
		return api_input_error(L, "hist:percentile: %f is outside 0..100", p);
	lua_pushinteger(L, (lua_Integer)hist_percentile(h, p));
	return 1;
}

static int l_hist_merge(lua_State *L)
{
	hist_merge(luaL_checkudata(L, 1, HIST_MT), luaL_checkudata(L, 2, HIST_MT));
	lua_settop(L, 1);
	return 1;
}

static int l_hist_count(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)((struct hist *)luaL_checkudata(L, 1, HIST_MT))->count);
	return 1;
}

static int l_hist_min(lua_State *L)
{
	struct hist *h = luaL_checkudata(L, 1, HIST_MT);

	lua_pushinteger(L, h->count ? (lua_Integer)h->min : 0);
	return 1;
}

static int l_hist_max(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)((struct hist *)luaL_checkudata(L, 1, HIST_MT))->max);
	return 1;
}

static int l_hist_mean(lua_State *L)
{
	lua_pushnumber(L, hist_mean(luaL_checkudata(L, 1, HIST_MT)));
	return 1;
}

static int l_hist_stdev(lua_State *L)
{
	lua_pushnumber(L, hist_stdev(luaL_checkudata(L, 1, HIST_MT)));
	return 1;
}

/* :buckets() -> list of {low, width, count} for the non-empty buckets */
static int l_hist_buckets(lua_State *L)
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

static int l_hist_tostring(lua_State *L)
{
	struct hist *h = luaL_checkudata(L, 1, HIST_MT);

	lua_pushfstring(L, "iomoon.hist (%I values)", (lua_Integer)h->count);
	return 1;
}

/* ---- output files (outfile.c) ---- */

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
	char why[WHY_LEN];

	if (!api_cluster_writes())
		return 0; /* in a cluster, rank 0 writes the reports */
	if (outfile_write_atomic(path, s, len, why, sizeof(why)) < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, why);
	return 0;
}

/* ---- module functions ---- */

static int l_now(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)clock_ns());
	return 1;
}

/* sleep(duration): returns early, within milliseconds, when a signal asks
 * the process to stop (iomoon.interrupted() is then true). */
/* iomoon.protect(path [, what]): no phase of this run may use path as a
 * target (the command line protects its report, script and suite files). */
static int l_protect(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1), *what = luaL_optstring(L, 2, "a protected file");

	if (protect_add(path, what) < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, "iomoon.protect: too many protected files");
	return 0;
}

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

/* lat.percentiles: {p, ns} pairs from 0 to 99.9999 %, for curves on a
 * "nines" axis (HdrHistogram's plot) that survive a JSON file: the tail
 * goes only as far as the I/Os counted can tell (1 - 1/count), then max. */
void api_push_percentiles(lua_State *L, const struct hist *h)
{
	static const double ps[] = { 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.995,
				     99.999, 99.9995, 99.9999 };
	int n = 0;

	lua_createtable(L, 24, 0);
	for (unsigned i = 0; h->count && i < sizeof(ps) / sizeof(ps[0]); i++) {
		if (ps[i] > 100.0 * (1.0 - 1.0 / (double)h->count))
			break;
		lua_createtable(L, 2, 0);
		lua_pushnumber(L, ps[i]);
		lua_rawseti(L, -2, 1);
		lua_pushinteger(L, (lua_Integer)(ps[i] == 0 ? h->min : hist_percentile(h, ps[i])));
		lua_rawseti(L, -2, 2);
		lua_rawseti(L, -2, ++n);
	}
	if (h->count) {
		lua_createtable(L, 2, 0);
		lua_pushnumber(L, 100);
		lua_rawseti(L, -2, 1);
		lua_pushinteger(L, (lua_Integer)h->max);
		lua_rawseti(L, -2, 2);
		lua_rawseti(L, -2, ++n);
	}
	lua_setfield(L, -2, "percentiles");
}

/* engines() -> list of {name=, works=, why=} */
static int l_engines(lua_State *L)
{
	const struct engine_ops *const *e = engine_all();

	lua_newtable(L);
	for (int i = 0; e[i]; i++) {
		char why[WHY_LEN] = "";
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

/* The metatable `name` with methods as __index, and __gc, __tostring when given. */
void api_new_metatable(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc,
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
	static const luaL_Reg hist_methods[] = {
		{ "record", l_hist_record }, { "percentile", l_hist_percentile }, { "merge", l_hist_merge },
		{ "count", l_hist_count }, { "min", l_hist_min }, { "max", l_hist_max }, { "mean", l_hist_mean },
		{ "stdev", l_hist_stdev }, { "buckets", l_hist_buckets }, { NULL, NULL },
	};
	static const luaL_Reg funcs[] = {
		{ "target", api_target }, { "run", api_run }, { "check", api_check }, { "now", l_now }, { "sleep", l_sleep },
		{ "size", l_size }, { "duration", l_duration }, { "hist", l_hist }, { "engines", l_engines },
		{ "protect", l_protect }, { "results", api_results }, { "keep_results", api_keep_results }, { "on_result", api_on_result },
		{ "set_progress", api_set_progress }, { "interrupted", api_interrupted },
		{ "stat", l_stat }, { "write_atomic", l_write_atomic }, { "machine", api_machine }, { "redact", l_redact },
		{ "metrics", api_metrics },
		{ NULL, NULL },
	};

	api_target_metatable(L);
	api_new_metatable(L, HIST_MT, hist_methods, NULL, l_hist_tostring);
	luaL_newmetatable(L, IOMOON_INPUT_ERROR);
	lua_pushcfunction(L, l_error_tostring);
	lua_setfield(L, -2, "__tostring");
	luaL_newmetatable(L, IOMOON_RUN_ERROR);
	lua_pushcfunction(L, l_error_tostring);
	lua_setfield(L, -2, "__tostring");
	luaL_newmetatable(L, OBJECT_MT);
	lua_pushliteral(L, "object");
	lua_setfield(L, -2, "__json");
	lua_pop(L, 3);
	luaL_newlib(L, funcs);
	api_push_csv(L);
	lua_setfield(L, -2, "csv");
	lua_trace_open(L);
	lua_setfield(L, -2, "trace");
	api_push_cluster_table(L);
	lua_setfield(L, -2, "cluster");
	lua_pushstring(L, IOMOON_VERSION);
	lua_setfield(L, -2, "version");
	lua_createtable(L, 0, 1);
	lua_pushinteger(L, PHASE_MAX_BS);
	lua_setfield(L, -2, "max_bs");
	lua_setfield(L, -2, "limits");
	api_push_result_fields(L);
	lua_setfield(L, -2, "result_fields");
	return 1;
}
