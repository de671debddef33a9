/* lua_definition.c - result.definition: the phase as it ran, a plain table
 * that iomoon.check accepts and iomoon.run runs again (doc/reports.md).
 *
 * It is the phase table the script gave, copied deeply (target objects
 * become their paths, a trace object a table naming its file), with the
 * values the core chose for the fields the script left out: the engine
 * that ran, workers, qd, seed, duration, ramp, interval, dist, batch, the
 * block size and shares of a one-spec mix, each stream's workers and qd.
 * Only plain values remain: strings, numbers, booleans and tables of them.
 */
#include <lauxlib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/engine.h"
#include "lua/lua_int.h"
#include "lua/lua_phase.h"
#include "lua/lua_repro.h"
#include "lua/lua_trace.h"

/* How deep a phase table may nest before the copy stops (meta tables). */
#define DEF_MAX_DEPTH 16

static void copy_value(lua_State *L, int idx, int depth);

/* A trace object (phase.replay, or phase.replay.trace) as a table: the
 * file it came from (its absolute path), its format and how many records it held. */
static void push_trace_ref(lua_State *L, const struct trace *t)
{
	char abs[PATH_MAX];

	lua_createtable(L, 0, 3);
	lua_pushstring(L, realpath(t->path, abs) ? abs : t->path); /* a rerun may start elsewhere */
	lua_setfield(L, -2, "trace");
	lua_pushstring(L, trace_format_name(t->format));
	lua_setfield(L, -2, "format");
	lua_pushinteger(L, (lua_Integer)t->n);
	lua_setfield(L, -2, "records");
}

/* The table at idx, copied: keys that are strings or numbers, values
 * through copy_value; nothing else (functions, cycles deeper than
 * DEF_MAX_DEPTH) is kept. */
static void copy_table(lua_State *L, int idx, int depth)
{
	lua_newtable(L);
	if (depth >= DEF_MAX_DEPTH)
		return;
	luaL_checkstack(L, 8, "result.definition: the phase table nests too deep");
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		int kt = lua_type(L, -2);

		if (kt == LUA_TSTRING || kt == LUA_TNUMBER) {
			lua_pushvalue(L, -2);                   /* key */
			copy_value(L, lua_gettop(L) - 1, depth + 1); /* value */
			if (lua_isnil(L, -1))
				lua_pop(L, 2);
			else
				lua_rawset(L, -5); /* into the copy, under the key */
		}
		lua_pop(L, 1);
	}
}

/* Push the value at idx as plain data, or nil where it has none. */
static void copy_value(lua_State *L, int idx, int depth)
{
	const struct target *t;
	const struct trace *tr;

	idx = lua_absindex(L, idx);
	switch (lua_type(L, idx)) {
	case LUA_TSTRING: { /* a LUN's URL, or any text holding one: never its password */
		size_t len;
		const char *s = lua_tolstring(L, idx, &len);

		api_push_redacted(L, s, len);
		return;
	}
	case LUA_TNUMBER:
	case LUA_TBOOLEAN:
		lua_pushvalue(L, idx);
		return;
	case LUA_TTABLE:
		copy_table(L, idx, depth);
		return;
	case LUA_TUSERDATA:
		t = luaL_testudata(L, idx, TARGET_MT);
		tr = t ? NULL : lua_trace_test(L, idx);
		if (t && t->path)
			lua_pushstring(L, t->path);
		else if (tr)
			push_trace_ref(L, tr);
		else
			lua_pushnil(L);
		return;
	default:
		lua_pushnil(L);
	}
}

/* A duration in ns as the shortest exact text ("10s", "250ms", "100us"). */
static void push_duration(lua_State *L, uint64_t ns)
{
	static const struct {
		uint64_t per;
		const char *unit;
	} units[] = { { 1000000000ull, "s" }, { 1000000ull, "ms" }, { 1000ull, "us" }, { 1, "ns" } };
	unsigned i = 0;

	if (!ns) {
		lua_pushinteger(L, 0);
		return;
	}
	while (ns % units[i].per)
		i++;
	lua_pushfstring(L, "%I%s", (lua_Integer)(ns / units[i].per), units[i].unit);
}

/* Set field k of the table on top to the value on top of that, unless
 * the table has it (the script gave it); pop the value. */
static void fill(lua_State *L, const char *k)
{
	if (lua_getfield(L, -2, k) != LUA_TNIL) {
		lua_pop(L, 2);
		return;
	}
	lua_pop(L, 1);
	lua_setfield(L, -2, k);
}

static void fill_int(lua_State *L, const char *k, uint64_t v)
{
	lua_pushinteger(L, (lua_Integer)v);
	fill(L, k);
}

/* A count (workers, qd, seed): filled as fill_int, and where the script
 * gave it as a string ("4", which the checks accept), the number it
 * resolved to, so that a definition's counts are numbers in every result. */
static void fill_count(lua_State *L, const char *k, uint64_t v)
{
	if (lua_getfield(L, -1, k) == LUA_TSTRING) {
		lua_pop(L, 1);
		lua_pushinteger(L, (lua_Integer)v);
		lua_setfield(L, -2, k);
		return;
	}
	lua_pop(L, 1);
	fill_int(L, k, v);
}

/* The share of 2^32 thr as a percentage, to 6 decimals (as result.mix). */
static double pct(uint64_t thr)
{
	return (double)(uint64_t)((double)thr / (double)WL_ONE * 1e8 + 0.5) / 1e6;
}

/* A one-spec mix given by bs/read/random (or not at all): its resolved
 * size and shares, unless the table has a mix. */
static void fill_mix(lua_State *L, const struct run_state *rs)
{
	const struct wl_spec *s = &rs->wl.spec[0];
	int has_mix = lua_getfield(L, -1, "mix") != LUA_TNIL;

	lua_pop(L, 1);
	if (has_mix || rs->wl.nspecs != 1 || s->nbs != 1)
		return;
	fill_int(L, "bs", s->bs[0].bytes);
	lua_pushnumber(L, pct(s->read_thr));
	fill(L, "read");
	lua_pushnumber(L, pct(s->random_thr));
	fill(L, "random");
}

/* The values the core chose for the fields of a stream's table (on top)
 * that it left out; the rest a stream takes from the phase's table. */
static void fill_stream(lua_State *L, const struct run_state *st)
{
	lua_pushstring(L, st->name);
	fill(L, "name");
	fill_count(L, "workers", st->sp.workers);
	fill_count(L, "qd", st->sp.qd);
}

/* The phase's own resolved values, into the definition on top. */
static void fill_phase(lua_State *L, const struct run_state *rs, const char *engine)
{
	const struct phase_spec *sp = &rs->sp;

	lua_pushstring(L, sp->name);
	fill(L, "name");
	lua_pushstring(L, engine);
	lua_setfield(L, -2, "engine"); /* the engine that ran, "auto" resolved */
	lua_pushboolean(L, sp->direct);
	fill(L, "direct");
	if (!rs->nstreams) /* with streams, each stream's (the phase's is their total) */
		fill_count(L, "workers", sp->workers);
	fill_count(L, "qd", sp->qd);
	if (sp->batch == BATCH_AUTO)
		lua_pushliteral(L, "auto");
	else
		lua_pushinteger(L, (lua_Integer)sp->batch);
	fill(L, "batch");
	if (!sp->replay) { /* a replay's offsets are the trace's, measured from its first record */
		lua_pushstring(L, rs->dist);
		fill(L, "dist");
		push_duration(L, sp->ramp_ns);
		fill(L, "ramp");
	}
	fill_count(L, "seed", sp->seed);
	if (sp->duration_ns) {
		push_duration(L, sp->duration_ns);
		fill(L, "duration");
	}
	push_duration(L, sp->interval_ns);
	fill(L, "interval");
	if (sp->start_delay_ns) {
		push_duration(L, sp->start_delay_ns);
		fill(L, "start_delay");
	}
	if (!sp->verify) {
		lua_pushstring(L, api_pattern_name(sp->pattern));
		fill(L, "pattern");
	}
	lua_pushstring(L, sp->on_error_continue ? "continue" : "stop");
	fill(L, "on_error");
	if (!strcmp(engine, "sim")) {
		push_duration(L, sp->sim_latency_ns);
		fill(L, "sim_latency");
	}
	if (!rs->nstreams && !sp->replay)
		fill_mix(L, rs);
}

void api_push_definition(lua_State *L, const struct run_state *rs, const char *engine)
{
	copy_value(L, rs->table, 0);
	fill_phase(L, rs, engine);
	if (rs->nstreams && lua_getfield(L, -1, "streams") == LUA_TTABLE) {
		for (unsigned i = 0; i < rs->nstreams; i++) {
			if (lua_rawgeti(L, -1, i + 1) == LUA_TTABLE)
				fill_stream(L, rs->stream[i]);
			lua_pop(L, 1);
		}
	}
	if (rs->nstreams)
		lua_pop(L, 1);
	lua_setfield(L, -2, "definition");
	lua_pushstring(L, rs->engine_auto ? "auto" : engine);
	lua_setfield(L, -2, "engine_asked");
}
