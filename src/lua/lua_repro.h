/* lua_repro.h - what makes a result say what was measured and how
 * (doc/reports.md): the phase's definition as it ran (lua_definition.c)
 * and the machine it ran on (lua_machine.c). */
#ifndef IOMOON_LUA_REPRO_H
#define IOMOON_LUA_REPRO_H

#include <lua.h>

struct run_state;

/* Set result.definition (and result.engine_asked) on the result table on
 * top: the phase table of rs (at stack index rs->table, as iomoon.run has
 * it) copied as plain data, with the values the core chose for the fields
 * it left out; `engine` is the engine that ran. */
void api_push_definition(lua_State *L, const struct run_state *rs, const char *engine);

/* iomoon.machine([paths]): this machine, and each path's target. */
int api_machine(lua_State *L);

#endif
