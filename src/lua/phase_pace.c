/* phase_pace.c - when a phase's I/Os start: an open-loop rate (phase.rate),
 * a schedule of rates (phase.schedule), or think time between a slot's
 * I/Os (phase.think), read into the run_state's pace. At most one of the
 * three; the field table reads them in that order. */
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "lua/lua_int.h"
#include "lua/phase_read.h"

/* "fixed" (or nil) or "poisson" at v: 1 for poisson. */
static int read_arrival(lua_State *L, int v, const char *field)
{
	const char *a = lua_type(L, v) == LUA_TSTRING ? lua_tostring(L, v) : NULL;

	if (lua_isnil(L, v))
		return 0;
	if (!a || (strcmp(a, "fixed") && strcmp(a, "poisson")))
		api_input_error(L, "%s: '%s' is not an arrival process (allowed: \"fixed\", \"poisson\")", field,
				a ? a : luaL_typename(L, v));
	return !strcmp(a, "poisson");
}

/* What a rate is, in the message refusing a string that holds no number. */
#define RATE_IS "a rate: I/Os per second for the whole phase, as 1000 or \"1000\""

/* rate = N, or {iops = N, arrival = "fixed" | "poisson"}: one segment. */
void read_rate(lua_State *L, int v, struct run_state *rs, const char *field)
{
	lua_Number iops;
	int poisson = 0;
	char f[80];

	if (lua_isnil(L, v))
		return;
	snprintf(f, sizeof(f), "%s.iops", field);
	if (lua_istable(L, v)) {
		api_check_keys(L, v, field, (const char *const[]){ "iops", "arrival", NULL });
		lua_getfield(L, v, "iops");
		if (!api_number(L, -1, f, RATE_IS, &iops))
			api_input_error(L, "%s: missing or not a number (I/Os per second for the whole phase)", f);
		lua_getfield(L, v, "arrival");
		snprintf(f, sizeof(f), "%s.arrival", field);
		poisson = read_arrival(L, -1, f);
		lua_pop(L, 2);
		snprintf(f, sizeof(f), "%s.iops", field);
	} else if (!api_number(L, v, field, RATE_IS, &iops)) {
		api_input_error(L, "%s: a %s is not a rate (give {iops=N, arrival=\"fixed\"|\"poisson\"} or N)", field,
				luaL_typename(L, v));
	}
	if (!(iops > 0 && iops <= 1e9))
		api_input_error(L, "%s: %g is not a rate (above 0, at most 1e9 I/Os per second)", f, iops);
	rs->pace.nseg = 1;
	rs->pace.seg[0] = (struct pace_seg){ .end_ns = UINT64_MAX, .iops = iops, .poisson = poisson };
}

/* One segment {duration=, iops=, arrival=} of a schedule, ending at *at. */
static void read_segment(lua_State *L, int t, struct pace_seg *seg, uint64_t *at, const char *field)
{
	char f[112];
	lua_Number iops;

	api_check_keys(L, t, field, (const char *const[]){ "duration", "iops", "arrival", NULL });
	snprintf(f, sizeof(f), "%s.duration", field);
	if (lua_getfield(L, t, "duration") == LUA_TNIL)
		api_input_error(L, "%s: missing", f);
	*at += api_check_duration(L, -1, f);
	snprintf(f, sizeof(f), "%s.iops", field);
	lua_getfield(L, t, "iops");
	if (!api_number(L, -1, f, "I/Os per second from 0 (idle) to 1e9", &iops) || !(iops >= 0 && iops <= 1e9))
		api_input_error(L, "%s: must be a number from 0 (idle) to 1e9 I/Os per second", f);
	snprintf(f, sizeof(f), "%s.arrival", field);
	lua_getfield(L, t, "arrival");
	*seg = (struct pace_seg){ .end_ns = *at, .iops = iops, .poisson = read_arrival(L, -1, f) };
	lua_pop(L, 3);
}

/* schedule = { {duration=, iops=}, ... }: the phase lasts as long as the
 * segments unless it has a duration of its own. */
void read_schedule(lua_State *L, int v, struct run_state *rs, const char *field)
{
	uint64_t at = 0;
	lua_Integer n;

	if (lua_isnil(L, v))
		return;
	if (rs->pace.nseg)
		api_input_error(L, "%s.rate: given with %s (a schedule sets the rate of each segment)", rs->path, field);
	if (!lua_istable(L, v))
		api_input_error(L, "%s: a %s is not a list of {duration=, iops=} segments", field, luaL_typename(L, v));
	n = api_check_list(L, v, field);
	if (n < 1 || n > WL_MAX_SEGMENTS)
		api_input_error(L, "%s: %lld segments (give 1 to %d)", field, (long long)n, WL_MAX_SEGMENTS);
	for (lua_Integer i = 1; i <= n; i++) {
		char f[96];

		snprintf(f, sizeof(f), "%s[%lld]", field, (long long)i);
		if (lua_rawgeti(L, v, i) != LUA_TTABLE)
			api_input_error(L, "%s: a %s is not a segment {duration=, iops=}", f, luaL_typename(L, -1));
		read_segment(L, lua_gettop(L), &rs->pace.seg[i - 1], &at, f);
		lua_pop(L, 1);
	}
	rs->pace.nseg = (unsigned)n;
	if (!rs->sp.duration_ns)
		rs->sp.duration_ns = at;
}

/* A think time at idx. One given as a bare number (or a string holding
 * only one) of a second or more is noted (the phase's first such), for
 * the warning iomoon.run prints: a bare number is seconds, and IOMeter's
 * delays are in milliseconds. */
static uint64_t think_duration(lua_State *L, int idx, struct run_state *rs, const char *field)
{
	uint64_t ns = api_check_duration(L, idx, field);
	int bare;
	lua_Number n = lua_tonumberx(L, idx, &bare); /* a number, or a string of one ("5"): no unit */

	if (bare && ns >= 1000000000ull && !rs->think_bare[0])
		snprintf(rs->think_bare, sizeof(rs->think_bare), "%s = %.14g", field, (double)n);
	return ns;
}

/* think.uniform = {min, max}. */
static void read_uniform(lua_State *L, int v, struct run_state *rs, const char *field)
{
	struct pace *p = &rs->pace;
	char f[96];

	if (!lua_istable(L, v) || lua_rawlen(L, v) != 2)
		api_input_error(L, "%s: give {min, max} durations, e.g. {\"1ms\", \"5ms\"}", field);
	p->think = THINK_UNIFORM;
	snprintf(f, sizeof(f), "%s[1]", field);
	lua_rawgeti(L, v, 1);
	p->think_a_ns = think_duration(L, -1, rs, f);
	snprintf(f, sizeof(f), "%s[2]", field);
	lua_rawgeti(L, v, 2);
	p->think_b_ns = think_duration(L, -1, rs, f);
	if (p->think_b_ns < p->think_a_ns)
		api_input_error(L, "%s: max is below min", field);
	lua_pop(L, 2);
}

/* think = {fixed= | uniform= | exponential=, burst=, delay=}. */
static void read_think_table(lua_State *L, int v, struct run_state *rs, const char *field)
{
	struct pace *p = &rs->pace;
	static const char *const kinds[] = { "fixed", "exponential", "uniform" };
	int given = 0;
	char f[80];

	api_check_keys(L, v, field, (const char *const[]){ "fixed", "uniform", "exponential", "burst", "delay", NULL });
	for (unsigned k = 0; k < 3; k++) {
		snprintf(f, sizeof(f), "%s.%s", field, kinds[k]);
		if (lua_getfield(L, v, kinds[k]) != LUA_TNIL) {
			given++;
			if (k == 2) {
				read_uniform(L, lua_gettop(L), rs, f);
			} else {
				p->think = k ? THINK_EXP : THINK_FIXED;
				p->think_a_ns = think_duration(L, -1, rs, f);
			}
		}
		lua_pop(L, 1);
	}
	if (given > 1)
		api_input_error(L, "%s: give one of fixed, uniform or exponential", field);
	snprintf(f, sizeof(f), "%s.delay", field);
	lua_getfield(L, v, "delay");
	if (lua_getfield(L, v, "burst") != LUA_TNIL) {
		char b[80];

		snprintf(b, sizeof(b), "%s.burst", field);
		p->burst = (uint32_t)api_check_int(L, -1, b, 1, 1000000000);
		if (lua_isnil(L, -2))
			api_input_error(L, "%s: missing (the idle time after each burst, e.g. \"10ms\")", f);
		p->burst_delay_ns = think_duration(L, -2, rs, f);
	} else if (!lua_isnil(L, -2)) {
		api_input_error(L, "%s: given without burst (the delay follows each burst of N I/Os)", f);
	} else if (!given) {
		api_input_error(L, "%s: empty (give fixed=, uniform=, exponential=, or burst= with delay=)", field);
	}
	lua_pop(L, 2);
}

/* think: a duration (fixed), or a table; not with a rate or schedule. */
void read_think(lua_State *L, int v, struct run_state *rs, const char *field)
{
	int t = lua_type(L, v);

	if (t == LUA_TNIL)
		return;
	if (rs->pace.nseg)
		api_input_error(L, "%s: given with a rate or schedule (think time paces closed loops; rate paces open loops)",
				field);
	if (t == LUA_TNUMBER || t == LUA_TSTRING) {
		rs->pace.think = THINK_FIXED;
		rs->pace.think_a_ns = think_duration(L, v, rs, field);
	} else if (t == LUA_TTABLE) {
		read_think_table(L, v, rs, field);
	} else {
		api_input_error(L, "%s: a %s is not a think time (give a duration, or a table)", field, luaL_typename(L, v));
	}
}

/* A schedule's length (0: none; a rate is one endless segment). */
uint64_t pace_schedule_ns(const struct pace *p)
{
	return p->nseg && p->seg[p->nseg - 1].end_ns != UINT64_MAX ? p->seg[p->nseg - 1].end_ns : 0;
}

/* How far past the measured start a start_delay puts a stream's (or the
 * phase's) start, and so its schedule's (the ramp: ramp_ns). */
uint64_t pace_late_ns(const struct phase_spec *sp, uint64_t ramp_ns)
{
	return sp->start_delay_ns > ramp_ns ? sp->start_delay_ns - ramp_ns : 0;
}
