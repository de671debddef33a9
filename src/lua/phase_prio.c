/* phase_prio.c - the I/O priorities of a phase: ioprio (its workers'
 * threads, ioprio_set(2)) and cmdprio (a share of its I/Os with a
 * priority of their own: io_uring's sqe->ioprio, libaio's aio_reqprio),
 * as fio's prio/prioclass and cmdprio_percentage/cmdprio_class/cmdprio.
 */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lua_int.h"
#include "lua/phase_read.h"

/* "CLASS[:LEVEL]": rt, be or idle (ioprio(2)'s 1, 2, 3), level 0 (the
 * highest, fio's default) to 7; the kernel's value, class << 13 | level. */
static int parse_ioprio(lua_State *L, int v, const char *field)
{
	static const char *const classes[] = { "rt", "be", "idle" };
	const char *s = lua_type(L, v) == LUA_TSTRING ? lua_tostring(L, v) : NULL;
	const char *colon = s ? strchr(s, ':') : NULL;
	size_t n = s ? (colon ? (size_t)(colon - s) : strlen(s)) : 0;
	long level = 0;
	char *end = NULL;

	for (int c = 0; s && c < 3; c++) {
		if (strlen(classes[c]) != n || strncmp(s, classes[c], n))
			continue;
		if (colon) {
			level = strtol(colon + 1, &end, 10);
			if (end == colon + 1 || *end || level < 0 || level > 7)
				break;
		}
		return (c + 1) << 13 | (int)level;
	}
	api_input_error(L, "%s: '%s' is not an I/O priority (give \"rt\", \"be\" or \"idle\", with a level 0 to 7 after "
			"a colon: \"be:4\"; 0 is the highest)", field, s ? s : luaL_typename(L, v));
	return 0;
}

/* ioprio = "CLASS[:LEVEL]": the workers' threads' I/O priority. */
void read_ioprio(lua_State *L, int v, struct run_state *rs, const char *field)
{
	rs->sp.ioprio = lua_isnil(L, v) ? 0 : parse_ioprio(L, v, field);
}

/* cmdprio = { pct = P, ioprio = "CLASS[:LEVEL]" }: P % of the reads and
 * writes, drawn at random, carry that priority of their own; only the
 * engines that pass one per I/O (io_uring, libaio) take it. */
void read_cmdprio(lua_State *L, int v, struct run_state *rs, const char *field)
{
	static const char *const keys[] = { "pct", "ioprio", NULL };
	const char *engine = rs->sp.engine ? rs->sp.engine->name : "";
	char f[96];

	rs->wl.prio_thr = 0;
	rs->wl.prio = 0;
	if (lua_isnil(L, v))
		return;
	if (!lua_istable(L, v))
		api_input_error(L, "%s: a %s is not { pct = P, ioprio = \"rt\" }", field, luaL_typename(L, v));
	api_check_keys(L, v, field, keys);
	if (strcmp(engine, "io_uring") && strcmp(engine, "libaio"))
		api_input_error(L, "%s: engine %s cannot give an I/O a priority of its own (io_uring and libaio do; "
				"ioprio sets the workers' own)", field, engine);
	snprintf(f, sizeof(f), "%s.pct", field);
	if (lua_getfield(L, v, "pct") == LUA_TNIL)
		api_input_error(L, "%s: missing (the share of I/Os with the priority, in %%)", f);
	rs->wl.prio_thr = (uint64_t)(api_check_share(L, -1, f) / 100.0 * (double)WL_ONE);
	lua_pop(L, 1);
	snprintf(f, sizeof(f), "%s.ioprio", field);
	lua_getfield(L, v, "ioprio");
	rs->wl.prio = (uint16_t)(lua_isnil(L, -1) ? 1 << 13 : parse_ioprio(L, lua_gettop(L), f)); /* fio: rt, 0 */
	lua_pop(L, 1);
}
