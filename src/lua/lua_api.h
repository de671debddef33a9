/* lua_api.h - the `iomoon` Lua module (the binding between Lua and the core). */
#ifndef IOMOON_LUA_API_H
#define IOMOON_LUA_API_H

#include <lua.h>

#define IOMOON_VERSION "0.1.0"

/* Metatables of the two error objects the module raises. A script may
 * catch them with pcall; the command line turns them into exit status 2
 * (bad input) and 1 (the run failed). Both have __tostring. */
#define IOMOON_INPUT_ERROR "iomoon.input_error"
#define IOMOON_RUN_ERROR "iomoon.run_error"

int luaopen_iomoon(lua_State *L);

/* The standard libraries, `iomoon` preloaded, and luadir/?.lua first on
 * package.path: the state main.c (and the fuzzer) run in. */
void iomoon_lua_setup(lua_State *L, const char *luadir);

#endif
