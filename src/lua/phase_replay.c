/* phase_replay.c - phase.replay: a trace object, or a table of the trace
 * and how to play it (replay.h). Parsing only: replay_prepare checks the
 * trace against the targets (phase_check.c). */
#include <lauxlib.h>
#include <string.h>

#include "lua/lua_int.h"
#include "lua/lua_trace.h"
#include "lua/phase_read.h"

static const char *const replay_keys[] = { "trace", "speed", "no_stall", "offsets", "loop", "devices", NULL };
static const char *const offset_names[] = { "exact", "wrap", "scale", NULL };

/* The trace at v, or an input error naming field. */
static const struct trace *check_trace(lua_State *L, int v, const char *field)
{
	const struct trace *tr = lua_trace_test(L, v);

	if (!tr)
		api_input_error(L, "%s: a %s is not a trace (give iomoon.trace.load(path), or { trace = ..., speed = ... })",
				field, luaL_typename(L, v));
	return tr;
}

/* replay.offsets: "exact", "wrap" or "scale". */
static enum replay_offsets check_offsets(lua_State *L, int v, const char *field)
{
	const char *s = lua_type(L, v) == LUA_TSTRING ? lua_tostring(L, v) : NULL;

	for (unsigned i = 0; s && offset_names[i]; i++)
		if (!strcmp(s, offset_names[i]))
			return (enum replay_offsets)i;
	return (enum replay_offsets)api_input_error(L, "%s: '%s' is not a way to place offsets (allowed: \"exact\", "
						       "\"wrap\", \"scale\")", field, s ? s : luaL_typename(L, v));
}

/* replay.loop: a number of passes (1: once), or true: until the phase's
 * duration, ios or bytes end it. */
static uint64_t check_loop(lua_State *L, int v, const char *field)
{
	if (lua_type(L, v) == LUA_TBOOLEAN)
		return lua_toboolean(L, v) ? 0 : 1;
	return (uint64_t)api_check_int(L, v, field, 1, INT64_MAX);
}

/* replay.devices: { [device name] = target number (from 1) or false }. */
static void read_devices(lua_State *L, int v, struct replay *rp, const char *field)
{
	const struct trace *tr = rp->tr;
	char f[160];

	if (!lua_istable(L, v))
		api_input_error(L, "%s: a %s is not a map of devices (give { [\"device\"] = target number, ... })", field,
				luaL_typename(L, v));
	for (unsigned d = 0; d < tr->ndevs; d++)
		rp->target_of[d] = REPLAY_UNMAPPED;
	lua_pushnil(L);
	while (lua_next(L, v)) {
		const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
		unsigned d;

		for (d = 0; name && d < tr->ndevs; d++)
			if (!strcmp(tr->devs[d], name))
				break;
		if (!name || d == tr->ndevs)
			api_input_error(L, "%s: '%s' is not a device of the trace (it has %u: %s%s)", field,
					name ? name : luaL_typename(L, -2), tr->ndevs, tr->devs[0], tr->ndevs > 1 ? ", ..." : "");
		snprintf(f, sizeof(f), "%s[\"%s\"]", field, name);
		if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1))
			rp->target_of[d] = REPLAY_NONE;
		else
			rp->target_of[d] = (int16_t)(api_check_int(L, -1, f, 1, PHASE_MAX_TARGETS) - 1);
		lua_pop(L, 1);
	}
	for (unsigned d = 0; d < tr->ndevs; d++) /* a device left out by mistake would drop its records unseen */
		if (rp->target_of[d] == REPLAY_UNMAPPED)
			api_input_error(L, "%s: device %s of the trace is not in it (map it to a target number, or to false "
					"to leave it out)", field, tr->devs[d]);
	rp->mapped = 1;
}

/* The options of a replay table at v (its trace already read). */
static void read_options(lua_State *L, int v, struct replay *rp, const char *field)
{
	char f[96];

	snprintf(f, sizeof(f), "%s.speed", field);
	if (lua_getfield(L, v, "speed") != LUA_TNIL) {
		lua_Number speed;

		if (!api_number(L, -1, f, "a speed above 0, at most 1000000", &speed) || !(speed > 0) || speed > 1e6)
			api_input_error(L, "%s: %s is not a speed (give a number above 0, at most 1000000: 2 plays twice as fast)", f,
					lua_type(L, -1) == LUA_TNUMBER ? lua_tostring(L, -1) : luaL_typename(L, -1));
		rp->speed = speed;
	}
	lua_pop(L, 1);
	snprintf(f, sizeof(f), "%s.no_stall", field);
	if (lua_getfield(L, v, "no_stall") != LUA_TNIL)
		rp->no_stall = api_check_bool(L, -1, f);
	lua_pop(L, 1);
	snprintf(f, sizeof(f), "%s.offsets", field);
	if (lua_getfield(L, v, "offsets") != LUA_TNIL)
		rp->offsets = check_offsets(L, -1, f);
	lua_pop(L, 1);
	snprintf(f, sizeof(f), "%s.loop", field);
	if (lua_getfield(L, v, "loop") != LUA_TNIL)
		rp->loops = check_loop(L, -1, f);
	lua_pop(L, 1);
	snprintf(f, sizeof(f), "%s.devices", field);
	if (lua_getfield(L, v, "devices") != LUA_TNIL)
		read_devices(L, lua_gettop(L), rp, f);
	lua_pop(L, 1);
}

void read_replay(lua_State *L, int v, struct run_state *rs, const char *field)
{
	struct replay *rp = &rs->replay;

	if (lua_isnil(L, v))
		return;
	memset(rp, 0, sizeof(*rp));
	rp->speed = 1;
	rp->loops = 1;
	if (lua_istable(L, v) && !lua_trace_test(L, v)) {
		char f[96];

		api_check_keys(L, v, field, replay_keys);
		snprintf(f, sizeof(f), "%s.trace", field);
		lua_getfield(L, v, "trace");
		if (lua_isnil(L, -1))
			api_input_error(L, "%s: missing (give the trace: iomoon.trace.load(path))", f);
		rp->tr = check_trace(L, -1, f);
		lua_pop(L, 1);
		read_options(L, v, rp, field);
	} else {
		rp->tr = check_trace(L, v, field);
	}
	rp->inv_speed = 1.0 / rp->speed;
	rs->sp.replay = rp;
}



/* result.replay: how faithfully the trace's times were kept, what was
 * never issued (missed: due; cut: not due), and how it was played
 * (doc/replay.md). on_time_pct is of the records due. A phase with
 * streams merges every replaying stream's. */
void api_push_replay(lua_State *L, const struct run_state *rs, const struct replay_stats *st)
{
	const struct replay *rp = rs->sp.replay ? rs->sp.replay : NULL;

	const uint64_t due = st->ios + st->missed, planned = st->endless ? 0 : st->planned;

	lua_createtable(L, 0, 24);
	api_set_int(L, "ios", st->ios);
	api_set_int(L, "planned_ios", planned);
	api_set_int(L, "due_ios", due);
	api_set_int(L, "on_time_ios", st->ios - st->late);
	api_set_int(L, "late_ios", st->late);
	api_set_int(L, "missed_ios", st->missed);
	api_set_int(L, "cut_ios", planned > due ? planned - due : 0);
	api_set_int(L, "late_ns", REPLAY_LATE_NS);
	api_set_int(L, "lag_p50_ns", st->ios ? hist_percentile(&st->lag, 50) : 0);
	api_set_int(L, "lag_p99_ns", st->ios ? hist_percentile(&st->lag, 99) : 0);
	api_set_int(L, "lag_p999_ns", st->ios ? hist_percentile(&st->lag, 99.9) : 0);
	api_set_int(L, "lag_max_ns", st->ios ? st->lag.max : 0);
	api_set_num(L, "lag_mean_ns", st->ios ? (double)st->lag.sum / (double)st->ios : 0);
	api_set_num(L, "on_time_pct", due ? 100.0 * (double)(st->ios - st->late) / (double)due : 0);
	api_set_num(L, "span_s", (double)(st->last_ns - st->first_ns) / 1e9);
	if (rp) {
		api_set_num(L, "recorded_span_s", (double)rp->tr->span_ns / 1e9);
		api_set_num(L, "speed", rp->speed);
		lua_pushboolean(L, rp->no_stall);
		lua_setfield(L, -2, "no_stall");
		lua_pushstring(L, rp->offsets == REPLAY_EXACT ? "exact" : rp->offsets == REPLAY_WRAP ? "wrap" : "scale");
		lua_setfield(L, -2, "offsets");
		api_set_int(L, "loop", rp->loops);
		lua_pushstring(L, rp->tr->path);
		lua_setfield(L, -2, "trace");
		lua_pushstring(L, trace_format_name(rp->tr->format));
		lua_setfield(L, -2, "format");
		api_set_int(L, "records", rp->tr->n);
		api_set_int(L, "skipped", rp->tr->skipped);
	}
	lua_setfield(L, -2, "replay");
}
