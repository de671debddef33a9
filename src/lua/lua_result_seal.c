/* lua_result_seal.c - how results travel: a result table is sealed (a
 * misspelt field read from it, or from any of its described sub-tables, is
 * an input error naming it), then kept (iomoon.keep_results) and handed to
 * the functions given to iomoon.on_result.
 */
#include <lauxlib.h>
#include <string.h>

#include "lua/lua_int.h"
#include "lua/lua_phase.h"
#include "lua/lua_result_fields.h"

/* Results are kept only when a script asks (iomoon.keep_results): a burn-in
 * that loops short phases for days runs in flat memory. */
static int keep_results;

/* The registry table under key, made on first use. */
static void registry_table(lua_State *L, const char *key)
{
	if (lua_getfield(L, LUA_REGISTRYINDEX, key) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, LUA_REGISTRYINDEX, key);
	}
}

/* iomoon.keep_results(on): keep every later result for iomoon.results();
 * off forgets those kept. */
int api_keep_results(lua_State *L)
{
	luaL_checkany(L, 1);
	keep_results = lua_toboolean(L, 1);
	if (!keep_results) {
		lua_newtable(L);
		lua_setfield(L, LUA_REGISTRYINDEX, RESULTS_KEY);
	}
	return 0;
}

/* iomoon.results(): the results kept since keep_results(true), in order. */
int api_results(lua_State *L)
{
	if (!keep_results)
		return api_input_error(L, "iomoon.results: results are not kept; call iomoon.keep_results(true) before the "
				       "phases (or use iomoon.on_result(fn))");
	registry_table(L, RESULTS_KEY);
	return 1;
}

static int l_on_result_remove(lua_State *L)
{
	lua_Integer n;

	registry_table(L, ON_RESULT_KEY);
	n = (lua_Integer)lua_rawlen(L, -1);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, -1, i);
		if (lua_rawequal(L, -1, lua_upvalueindex(1))) {
			lua_pop(L, 1);
			for (; i < n; i++) {
				lua_rawgeti(L, -1, i + 1);
				lua_rawseti(L, -2, i);
			}
			lua_pushnil(L);
			lua_rawseti(L, -2, n);
			return 0;
		}
		lua_pop(L, 1);
	}
	return 0;
}

/* iomoon.on_result(fn): call fn(result) for every result iomoon.run makes,
 * before run returns it. Returns a function that removes fn again. */
int api_on_result(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TFUNCTION);
	registry_table(L, ON_RESULT_KEY);
	lua_pushvalue(L, 1);
	lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	lua_pushvalue(L, 1);
	lua_pushcclosure(L, l_on_result_remove, 1);
	return 1;
}

/* Whether k is an optional field of the description t (lua_result_fields.c). */
static int optional_field(const struct result_table *t, const char *k)
{
	for (unsigned i = 0; t->fields[i].name; i++)
		if (!strcmp(k, t->fields[i].name))
			return (t->fields[i].flags & RF_OPTIONAL) != 0;
	return 0;
}

/* __index of a result's tables: a misspelt field (r.lat.p99) is an input
 * error naming the field and the near names, not a nil that fails later;
 * an optional field the result does not have is nil. Upvalues: the
 * table's name in messages, its description. */
static int l_result_index(lua_State *L)
{
	const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
	const char *names[128];
	const char *near;
	unsigned n = 0;

	if (!k)
		return 0; /* ipairs and array probes: plain nil */
	if (optional_field(lua_touserdata(L, lua_upvalueindex(2)), k))
		return 0;
	lua_pushnil(L);
	while (lua_next(L, 1) && n < 127) {
		lua_pop(L, 1);
		if (lua_type(L, -1) == LUA_TSTRING)
			names[n++] = lua_tostring(L, -1);
	}
	names[n] = NULL;
	near = api_nearest(k, names);
	if (near)
		return api_input_error(L, "%s: no field '%s' (did you mean '%s'?)", lua_tostring(L, lua_upvalueindex(1)), k,
				       near);
	return api_input_error(L, "%s: no field '%s' (see doc/lua-api.md, \"Results\")", lua_tostring(L, lua_upvalueindex(1)), k);
}

/* Give the table at idx the strict __index of a result table called what,
 * described by t. */
static void seal_table(lua_State *L, int idx, const char *what, const struct result_table *t)
{
	char key[96];

	idx = lua_absindex(L, idx);
	snprintf(key, sizeof(key), "iomoon.result_mt:%s", what);
	if (lua_getfield(L, LUA_REGISTRYINDEX, key) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_createtable(L, 0, 1);
		lua_pushstring(L, what);
		lua_pushlightuserdata(L, (void *)t);
		lua_pushcclosure(L, l_result_index, 2);
		lua_setfield(L, -2, "__index");
		lua_pushvalue(L, -1);
		lua_setfield(L, LUA_REGISTRYINDEX, key);
	}
	lua_setmetatable(L, idx);
}

static void seal_described(lua_State *L, int idx, const char *what, const struct result_table *t);

/* Seal the entries of the list or map at idx (field f of the table called
 * what): "what.f[i]" or "what.f[name]". */
static void seal_entries(lua_State *L, int idx, const char *what, const struct result_field *f)
{
	const struct result_table *t = result_table_named(f->table);
	char sub[96];

	idx = lua_absindex(L, idx);
	snprintf(sub, sizeof(sub), "%s.%s[%s]", what, f->name, f->flags & RF_LIST ? "i" : "name");
	if (f->flags & RF_LIST) {
		for (lua_Integer i = 1; lua_rawgeti(L, idx, i) == LUA_TTABLE; i++) {
			seal_described(L, -1, sub, t);
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
		return;
	}
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		if (lua_istable(L, -1))
			seal_described(L, -1, sub, t);
		lua_pop(L, 1);
	}
}

/* Seal the table at idx, called what (messages name it), with its
 * description t, and every table under it that t describes. */
static void seal_described(lua_State *L, int idx, const char *what, const struct result_table *t)
{
	idx = lua_absindex(L, idx);
	seal_table(L, idx, what, t);
	for (unsigned i = 0; t->fields[i].name; i++) {
		const struct result_field *f = &t->fields[i];

		if (!f->table)
			continue;
		lua_pushstring(L, f->name);
		if (lua_rawget(L, idx) == LUA_TTABLE) {
			char sub[96]; /* "result.read.lat" and the like: our own names */

			if (f->flags & (RF_LIST | RF_MAP)) {
				seal_entries(L, -1, what, f);
			} else {
				snprintf(sub, sizeof(sub), "%s.%s", what, f->name);
				seal_described(L, -1, sub, result_table_named(f->table));
			}
		}
		lua_pop(L, 1);
	}
}

/* The result at the top of the stack, and every table of it that
 * lua_result_fields.c describes (lat, read, intervals[i], replay, cluster,
 * hosts[i], ...), say which field does not exist, instead of a silent nil.
 * A stream's result is sealed as a result of its own when it is made. */
void api_seal_result(lua_State *L)
{
	seal_described(L, -1, "result", result_table_named("result"));
}

/* Hand the result on top of the stack to what asked for results. */
void api_deliver_result(lua_State *L)
{
	int r = lua_gettop(L);
	lua_Integer n;

	if (keep_results) {
		registry_table(L, RESULTS_KEY);
		lua_pushvalue(L, r);
		lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
		lua_pop(L, 1);
	}
	registry_table(L, ON_RESULT_KEY);
	n = (lua_Integer)lua_rawlen(L, -1);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, r + 1, i);
		lua_pushvalue(L, r);
		lua_call(L, 1, 0);
	}
	lua_settop(L, r);
}
