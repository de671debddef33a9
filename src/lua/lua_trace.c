/* lua_trace.c - iomoon.trace: load and save traces from Lua (doc/replay.md).
 *
 * iomoon.trace.load(path [, opts]) reads a trace in C (trace.c) into a
 * trace object: a full userdata holding the struct trace, freed by __gc.
 * #t, t[i] (a record as a table), t:devices(), t.format, t.span_s,
 * t.skipped, t.first_bad_line, t.path, tostring(t).
 * iomoon.trace.save(trace_or_result, path [, format]) writes fio iolog v3 or
 * CSV; a phase result run with trace = N becomes a trace first.
 */
#include "lua/lua_trace.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "core/shown.h"
#include "lua/lua_api.h"
#include "lua/lua_int.h"
#include "run/workload.h"

struct trace *lua_trace_test(lua_State *L, int idx)
{
	struct trace **p = luaL_testudata(L, idx, TRACE_MT);

	return p ? *p : NULL;
}

/* ---- options ---- */

static const char *const format_words[] = { "iolog", "iolog2", "iolog3", "blktrace", "msr", "alibaba", "csv", NULL };

/* A string field at idx, no NUL inside; field names it in the message. */
static const char *check_string(lua_State *L, int idx, const char *field, const char *what)
{
	size_t len;
	const char *s;

	if (lua_type(L, idx) != LUA_TSTRING)
		api_input_error(L, "%s: a %s is not %s", field, luaL_typename(L, idx), what);
	s = lua_tolstring(L, idx, &len);
	if (strlen(s) != len)
		api_input_error(L, "%s: the string holds a NUL byte (give %s)", field, what);
	return s;
}

/* opts.format into o. */
static void opt_format(lua_State *L, int idx, struct trace_opts *o)
{
	const char *s = check_string(L, idx, "trace.load.opts.format", "a format name (\"iolog\", \"blktrace\", ...)");
	static const enum trace_format f[] = { TRACE_IOLOG2, TRACE_IOLOG2, TRACE_IOLOG3, TRACE_BLKTRACE,
					       TRACE_MSR,    TRACE_ALIBABA, TRACE_CSV };

	for (unsigned i = 0; format_words[i]; i++)
		if (!strcmp(s, format_words[i])) {
			o->format = f[i];
			o->any_iolog = i == 0;
			return;
		}
	const char *near = api_nearest(s, format_words);
	api_input_error(L, "trace.load.opts.format: '%s' is not a format (%s%s%sallowed: iolog, iolog2, iolog3, "
			"blktrace, msr, alibaba, csv)", s, near ? "did you mean '" : "", near ? near : "",
			near ? "'? " : "");
}

/* A column: a 1-based number or a header name (string, which needs a header). */
static void opt_column(lua_State *L, int idx, const char *k, unsigned *num, const char **name, int *named)
{
	char field[64];

	snprintf(field, sizeof(field), "trace.load.opts.columns.%s", k);
	if (lua_type(L, idx) == LUA_TSTRING) {
		*name = check_string(L, idx, field, "a column name");
		*named = 1;
		return;
	}
	if (lua_type(L, idx) != LUA_TNUMBER)
		api_input_error(L, "%s: a %s is not a column (a number from 1, or the header's name for it)", field,
				luaL_typename(L, idx));
	*num = (unsigned)api_check_int(L, idx, field, 1, 64);
}

/* columns.time_unit: ns per unit. */
static double opt_time_unit(lua_State *L, int idx)
{
	static const char *const units[] = { "ns", "us", "ms", "s", "100ns", NULL };
	static const double ns[] = { 1, 1e3, 1e6, 1e9, 100 };
	const char *s = check_string(L, idx, "trace.load.opts.columns.time_unit", "a time unit (\"ns\", \"us\", "
				     "\"ms\", \"s\", \"100ns\")");

	for (unsigned i = 0; units[i]; i++)
		if (!strcmp(s, units[i]))
			return ns[i];
	api_input_error(L, "trace.load.opts.columns.time_unit: '%s' is not a unit (allowed: ns, us, ms, s, 100ns)", s);
	return 0;
}

/* opts.columns (table at idx) into o->columns. Strings it holds stay on
 * the Lua stack's tables (opts is kept alive by the caller). */
static void opt_columns(lua_State *L, int idx, struct trace_opts *o)
{
	static const char *const keys[] = { "time", "op", "offset", "len", "device", "time_unit", "offset_unit",
					    "len_unit", "header", NULL };
	struct trace_columns *c = &o->columns;
	unsigned *nums[5] = { &c->time, &c->op, &c->offset, &c->len, &c->dev };
	const char **names[5] = { &c->time_name, &c->op_name, &c->offset_name, &c->len_name, &c->dev_name };
	int named = 0, header = -1;

	if (lua_type(L, idx) != LUA_TTABLE)
		api_input_error(L, "trace.load.opts.columns: a %s is not a table (e.g. {time = 1, op = 2, offset = 3, "
				"len = 4})", luaL_typename(L, idx));
	api_check_keys(L, idx, "trace.load.opts.columns", keys);
	for (unsigned k = 0; k < 9; k++) {
		if (lua_getfield(L, idx, keys[k]) == LUA_TNIL) {
			lua_pop(L, 1);
			continue;
		}
		if (k < 5)
			opt_column(L, -1, keys[k], nums[k], names[k], &named);
		else if (k == 5)
			c->time_ns = opt_time_unit(L, -1);
		else if (k < 8)
			*(k == 6 ? &c->offset_unit : &c->len_unit) =
				api_check_size(L, -1, k == 6 ? "trace.load.opts.columns.offset_unit"
							     : "trace.load.opts.columns.len_unit");
		else
			header = api_check_bool(L, -1, "trace.load.opts.columns.header");
		lua_pop(L, 1);
	}
	if (named && header == 0)
		api_input_error(L, "trace.load.opts.columns.header: false, but columns are named (give numbers, or "
				"header = true)");
	c->header = header < 0 ? named : header;
	if (!(c->op || c->op_name) || !(c->offset || c->offset_name) || !(c->len || c->len_name))
		api_input_error(L, "trace.load.opts.columns: op, offset and len are needed (a column number or a "
				"header name each)");
	if (!c->offset_unit || !c->len_unit)
		api_input_error(L, "trace.load.opts.columns: a unit of 0 bytes (offset_unit and len_unit are >= 1)");
}

/* The opts table at idx into o. */
static void load_opts(lua_State *L, int idx, struct trace_opts *o)
{
	static const char *const keys[] = { "format", "device", "disk", "from", "to", "skip_bad", "columns", NULL };

	memset(o, 0, sizeof(*o));
	o->columns = (struct trace_columns){ .time_ns = 1, .offset_unit = 1, .len_unit = 1 };
	if (lua_isnoneornil(L, idx))
		return;
	if (lua_type(L, idx) != LUA_TTABLE)
		api_input_error(L, "trace.load.opts: a %s is not a table of options (format, device, from, to, skip_bad, "
				"columns)", luaL_typename(L, idx));
	api_check_keys(L, idx, "trace.load.opts", keys);
	for (unsigned k = 0; keys[k]; k++) {
		char field[40];

		snprintf(field, sizeof(field), "trace.load.opts.%s", keys[k]);
		if (lua_getfield(L, idx, keys[k]) == LUA_TNIL) {
			lua_pop(L, 1);
			continue;
		}
		switch (k) {
		case 0: opt_format(L, -1, o); break;
		case 1:
		case 2:
			if (o->device)
				api_input_error(L, "trace.load.opts.disk: device and disk are the same option (give one)");
			o->device = check_string(L, -1, field, "a device name (as the trace names it)");
			break;
		case 3: o->from_ns = api_check_duration(L, -1, field), o->has_from = 1; break;
		case 4: o->to_ns = api_check_duration(L, -1, field), o->has_to = 1; break;
		case 5: o->skip_bad = api_check_bool(L, -1, field); break;
		default: opt_columns(L, lua_gettop(L), o); break;
		}
		lua_pop(L, 1);
	}
	if (o->has_from && o->has_to && o->to_ns <= o->from_ns)
		api_input_error(L, "trace.load.opts.to: not after from (the window is [from, to))");
	if (o->columns.op || o->columns.op_name) {
		if (o->format == TRACE_AUTO)
			o->format = TRACE_CSV;
		else if (o->format != TRACE_CSV)
			api_input_error(L, "trace.load.opts.columns: only for format = \"csv\"");
	}
}

/* ---- the object ---- */

static struct trace *check_trace(lua_State *L, int idx)
{
	struct trace **p = luaL_checkudata(L, idx, TRACE_MT);

	if (!*p)
		luaL_error(L, "trace: already freed");
	return *p;
}

/* Push a new trace object owning t. */
static void push_trace(lua_State *L, struct trace *t)
{
	struct trace **p = lua_newuserdatauv(L, sizeof(*p), 0);

	*p = t;
	luaL_setmetatable(L, TRACE_MT);
}

static int l_load(lua_State *L)
{
	const char *path = check_string(L, 1, "trace.load.path", "a trace file's path");
	struct trace_opts o;
	struct trace *t;
	char why[WHY_LEN];
	int rc;

	lua_settop(L, 2);
	load_opts(L, 2, &o);
	rc = trace_load(path, &o, &t, why, sizeof(why));
	if (rc == RC_INPUT)
		return api_input_error(L, "%s", why);
	if (rc != RC_OK)
		return api_raise_error(L, IOMOON_RUN_ERROR, why);
	push_trace(L, t);
	return 1;
}

static void set_int(lua_State *L, const char *k, uint64_t v)
{
	lua_pushinteger(L, (lua_Integer)v);
	lua_setfield(L, -2, k);
}

/* Record i (from 0) as {time_ns, t_s, op, offset, len, device}. */
static void push_record(lua_State *L, const struct trace *t, uint64_t i)
{
	const struct trace_io *r = &t->io[i];

	lua_createtable(L, 0, 6);
	set_int(L, "time_ns", r->t_ns);
	lua_pushnumber(L, (double)r->t_ns / 1e9);
	lua_setfield(L, -2, "t_s");
	lua_pushstring(L, trace_op_names[r->op]);
	lua_setfield(L, -2, "op");
	set_int(L, "offset", r->offset);
	set_int(L, "len", r->len);
	lua_pushstring(L, t->devs[r->dev]);
	lua_setfield(L, -2, "device");
}

static int l_devices(lua_State *L)
{
	struct trace *t = check_trace(L, 1);

	lua_createtable(L, (int)t->ndevs, 0);
	for (unsigned i = 0; i < t->ndevs; i++) {
		lua_pushstring(L, t->devs[i]);
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

static const char *const trace_fields[] = { "devices", "format", "span_s", "skipped", "first_bad_line", "path",
					    "n", NULL };

/* t[i], t.field, t:method. */
static int l_index(lua_State *L)
{
	struct trace *t = check_trace(L, 1);
	const char *k, *near;
	int isint;
	lua_Integer i = lua_tointegerx(L, 2, &isint);

	if (isint) {
		if (i < 1 || (uint64_t)i > t->n)
			return 0;
		push_record(L, t, (uint64_t)i - 1);
		return 1;
	}
	k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?";
	if (!strcmp(k, "devices"))
		lua_pushcfunction(L, l_devices);
	else if (!strcmp(k, "format"))
		lua_pushstring(L, trace_format_name(t->format));
	else if (!strcmp(k, "span_s"))
		lua_pushnumber(L, (double)t->span_ns / 1e9);
	else if (!strcmp(k, "skipped"))
		lua_pushinteger(L, (lua_Integer)t->skipped);
	else if (!strcmp(k, "first_bad_line"))
		lua_pushinteger(L, (lua_Integer)t->first_bad_line);
	else if (!strcmp(k, "path"))
		lua_pushstring(L, t->path);
	else if (!strcmp(k, "n"))
		lua_pushinteger(L, (lua_Integer)t->n);
	else if ((near = api_nearest(k, trace_fields)))
		return api_input_error(L, "trace: no field '%s' (did you mean '%s'?)", k, near);
	else
		return api_input_error(L, "trace: no field '%s' (records are t[1] to t[#t]; fields: devices, format, "
				       "span_s, skipped, first_bad_line, path, n)", k);
	return 1;
}

static int l_len(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)check_trace(L, 1)->n);
	return 1;
}

static int l_gc(lua_State *L)
{
	struct trace **p = luaL_checkudata(L, 1, TRACE_MT);

	trace_free(*p);
	*p = NULL;
	return 0;
}

static int l_tostring(lua_State *L)
{
	struct trace *t = check_trace(L, 1);
	char sp[256];

	lua_pushfstring(L, "trace %s (%s): %I records, %d device%s, %f s%s", shown(t->path, sp, sizeof(sp)),
			trace_format_name(t->format), (lua_Integer)t->n, (int)t->ndevs, t->ndevs == 1 ? "" : "s",
			(lua_Number)t->span_ns / 1e9, t->skipped ? ", some lines skipped" : "");
	return 1;
}

/* ---- saving ---- */

/* Column k of result.trace (table at idx): its length, the table pushed. */
static lua_Integer trace_column(lua_State *L, int idx, const char *k)
{
	if (lua_getfield(L, idx, k) != LUA_TTABLE)
		api_input_error(L, "trace.save: result.trace.%s is missing (a result of a phase run with trace = N)", k);
	return (lua_Integer)lua_rawlen(L, -1);
}

/* The devices of a result: result.target, a path or a list of them. */
static void result_devices(lua_State *L, int res, struct trace *t)
{
	lua_pushliteral(L, "target");
	lua_rawget(L, res);
	if (lua_type(L, -1) == LUA_TSTRING) {
		lua_createtable(L, 1, 0);
		lua_insert(L, -2);
		lua_rawseti(L, -2, 1);
	}
	if (lua_type(L, -1) != LUA_TTABLE)
		api_input_error(L, "trace.save: the result has no target (a path or a list of them)");
	for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
		size_t len;
		const char *s = lua_tolstring(L, -1, &len);
		char sp[256];

		if (t->ndevs == TRACE_MAX_DEVS || len >= TRACE_DEV_NAME || strlen(s) != len)
			api_input_error(L, "trace.save: target '%s' (a trace holds %d devices of at most %d bytes each)",
					shown(s, sp, sizeof(sp)), TRACE_MAX_DEVS, TRACE_DEV_NAME - 1);
		memcpy(t->devs[t->ndevs++], s, len + 1);
		lua_pop(L, 1);
	}
	lua_pop(L, 2);
	if (!t->ndevs)
		api_input_error(L, "trace.save: the result has no target (a path or a list of them)");
}

/* Record i (from 1) of the columns pushed at top-4 .. top (start_ns, op,
 * offset, len, target) into r; times still signed (rebased by the
 * caller). A target is a place in result.target, from 1 (ndevs of them);
 * without the column (nil at the top) every record is on the one. */
static void result_record(lua_State *L, lua_Integer i, struct trace_io *r, int64_t *start, unsigned ndevs)
{
	int isint[3], op, has_target = !lua_isnil(L, -1), istarget = 1;
	size_t len;
	const char *ops;
	lua_Integer v[3], target = 1;

	for (int k = 0; k < 4; k++)
		lua_rawgeti(L, -5, i); /* each push brings the next column to -5 */
	if (has_target)
		lua_rawgeti(L, -5, i);
	else
		lua_pushnil(L);
	v[0] = lua_tointegerx(L, -5, &isint[0]);
	ops = lua_tolstring(L, -4, &len);
	v[1] = lua_tointegerx(L, -3, &isint[1]);
	v[2] = lua_tointegerx(L, -2, &isint[2]);
	if (has_target)
		target = lua_tointegerx(L, -1, &istarget);
	op = ops ? trace_op_word(ops, len) : -1;
	if (!isint[0] || !isint[1] || !isint[2] || !istarget || op < 0 || v[1] < 0 || v[2] < 0 || v[2] > UINT32_MAX)
		api_input_error(L, "trace.save: result.trace record %lld is not a record (start_ns, op, offset, len, "
				"target)", (long long)i);
	if (target < 1 || target > (lua_Integer)ndevs)
		api_input_error(L, "trace.save: result.trace record %lld has target %lld, not a place in result.target "
				"(1 to %u)", (long long)i, (long long)target, ndevs);
	lua_pop(L, 5);
	*start = v[0];
	*r = (struct trace_io){ .offset = (uint64_t)v[1], .len = (uint32_t)v[2], .op = (uint8_t)op,
				.dev = (uint16_t)(target - 1) };
}

/* result.trace.target (trace table at idx) pushed, n long; nil when the
 * result has one target and no such column. */
static void target_column(lua_State *L, int idx, lua_Integer n, unsigned ndevs)
{
	if (lua_getfield(L, idx, "target") == LUA_TNIL && ndevs == 1)
		return;
	if (!lua_istable(L, -1))
		api_input_error(L, "trace.save: result.trace.target is missing (the result has %u targets: a result of "
				"a phase run with trace = N says where each record went)", ndevs);
	if ((lua_Integer)lua_rawlen(L, -1) != n)
		api_input_error(L, "trace.save: result.trace's columns differ in length (target)");
}

/* The result table at res as a new trace (a trace object on the stack
 * owns it, so an error frees it). Each record's device is the target its
 * I/O went to (result.trace.target: a place in result.target). */
static struct trace *result_trace(lua_State *L, int res)
{
	static const char *const cols[] = { "start_ns", "op", "offset", "len" };
	struct trace *t = calloc(1, sizeof(*t));
	lua_Integer n = 0;
	int64_t *start, t0 = INT64_MAX;
	char why[WHY_LEN];

	if (!t)
		luaL_error(L, "trace.save: no memory");
	push_trace(L, t);
	t->format = TRACE_AUTO;
	snprintf(t->path, sizeof(t->path), "(a result)");
	result_devices(L, res, t);
	lua_pushliteral(L, "trace");
	if (lua_rawget(L, res) != LUA_TTABLE)
		api_input_error(L, "trace.save: the result has no trace records (run the phase with trace = N)");
	for (int k = 0; k < 4; k++) {
		lua_Integer m = trace_column(L, -1 - k, cols[k]);

		if (k && m != n)
			api_input_error(L, "trace.save: result.trace's columns differ in length (%s)", cols[k]);
		n = m;
	}
	target_column(L, -5, n, t->ndevs);
	if (!n)
		api_input_error(L, "trace.save: the result has no trace records (run the phase with trace = N)");
	t->io = malloc((size_t)n * sizeof(*t->io));
	start = lua_newuserdatauv(L, (size_t)n * sizeof(*start), 0);
	lua_insert(L, -6);
	if (!t->io)
		luaL_error(L, "trace.save: no memory");
	for (lua_Integer i = 1; i <= n; i++) {
		result_record(L, i, &t->io[i - 1], &start[i - 1], t->ndevs);
		t0 = start[i - 1] < t0 ? start[i - 1] : t0;
	}
	for (lua_Integer i = 0; i < n; i++)
		t->io[i].t_ns = (uint64_t)start[i] - (uint64_t)t0; /* exact, whatever the signs */
	t->n = (uint64_t)n;
	lua_pop(L, 7);
	int rc = trace_seal(t, why, sizeof(why));

	if (rc == RC_INPUT)
		api_input_error(L, "trace.save: %s", why);
	else if (rc != RC_OK)
		luaL_error(L, "trace.save: %s", why);
	return t;
}

/* iomoon.trace.save(trace_or_result, path [, format]): the number of
 * records written. */
static int l_save(lua_State *L)
{
	struct trace *t = lua_trace_test(L, 1);
	const char *path = check_string(L, 2, "trace.save.path", "a file path to write");
	enum trace_format f = TRACE_IOLOG3;
	char why[WHY_LEN];
	int rc;

	if (!lua_isnoneornil(L, 3)) {
		static const char *const words[] = { "iolog", "csv", NULL };
		const char *s = check_string(L, 3, "trace.save.format", "\"iolog\" or \"csv\"");

		if (strcmp(s, "iolog") && strcmp(s, "csv")) {
			const char *near = api_nearest(s, words);

			return api_input_error(L, "trace.save.format: '%s' is not a format (%s%s%sallowed: iolog, csv)", s,
					       near ? "did you mean '" : "", near ? near : "", near ? "'? " : "");
		}
		f = strcmp(s, "csv") ? TRACE_IOLOG3 : TRACE_CSV;
	}
	lua_settop(L, 3);
	if (!t && lua_type(L, 1) == LUA_TTABLE)
		t = result_trace(L, 1);
	else if (!t)
		return api_input_error(L, "trace.save: a %s is neither a trace (iomoon.trace.load) nor a result (of a "
				       "phase run with trace = N)", luaL_typename(L, 1));
	else if (!*(struct trace **)lua_touserdata(L, 1))
		return luaL_error(L, "trace: already freed");
	rc = trace_save(t, path, f, why, sizeof(why));
	if (rc == RC_INPUT)
		return api_input_error(L, "%s", why);
	if (rc != RC_OK)
		return api_raise_error(L, IOMOON_RUN_ERROR, why);
	lua_pushinteger(L, (lua_Integer)t->n);
	return 1;
}

int lua_trace_open(lua_State *L)
{
	static const luaL_Reg funcs[] = {
		{ "load", l_load },
		{ "save", l_save },
		{ NULL, NULL },
	};

	if (luaL_newmetatable(L, TRACE_MT)) {
		lua_pushcfunction(L, l_index);
		lua_setfield(L, -2, "__index");
		lua_pushcfunction(L, l_len);
		lua_setfield(L, -2, "__len");
		lua_pushcfunction(L, l_gc);
		lua_setfield(L, -2, "__gc");
		lua_pushcfunction(L, l_tostring);
		lua_setfield(L, -2, "__tostring");
	}
	lua_pop(L, 1);
	luaL_newlib(L, funcs);
	lua_trace_profile_register(L);
	return 1;
}
