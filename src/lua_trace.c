/* lua_trace.c - iomoon.trace: load and save traces from Lua. */
#include "lua_trace.h"

#include <lauxlib.h>

struct trace *lua_trace_test(lua_State *L, int idx)
{
	struct trace **p = luaL_testudata(L, idx, TRACE_MT);

	return p ? *p : NULL;
}

int lua_trace_open(lua_State *L)
{
	lua_newtable(L);
	lua_trace_profile_register(L);
	return 1;
}
