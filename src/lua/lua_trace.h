/* lua_trace.h - traces in Lua: iomoon.trace (load, save, profile) and the
 * trace object, a userdata that holds a struct trace (trace.h). */
#ifndef IOMOON_LUA_TRACE_H
#define IOMOON_LUA_TRACE_H

#include <lua.h>

#include "trace/trace.h"

#define TRACE_MT "iomoon.trace"

/* The trace at idx, or NULL when the value there is not a trace object. */
struct trace *lua_trace_test(lua_State *L, int idx);
/* Push the iomoon.trace table (load, save, and profile's functions). */
int lua_trace_open(lua_State *L);
/* Add iomoon.trace.profile (lua_trace_profile.c) to the table on top. */
void lua_trace_profile_register(lua_State *L);

#endif
