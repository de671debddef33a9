/* lua_trace_profile.c - iomoon.trace.profile: what a trace does, summed up. */
#include "lua_trace.h"

void lua_trace_profile_register(lua_State *L)
{
	(void)L;
}
