/* lua_phase.h - what lua_phase.c (parse, check, run) and lua_result.c
 * (the result table) share: the state of one iomoon.run. */
#ifndef IOMOON_LUA_PHASE_H
#define IOMOON_LUA_PHASE_H

#include <lua.h>

#include "phase.h"
#include "target.h"
#include "workload.h"

/* Everything parsed for one iomoon.run, in a userdata so that an input
 * error (a longjmp) frees it with the rest of the Lua stack. */
struct run_state {
	struct phase_spec sp;
	struct workload wl;
	struct pace pace;
	char name[128];
	char dist[64];        /* phase.dist as given ("uniform" when not) */
	/* targets given as option tables: created once the phase checks out */
	struct target_opts pending[PHASE_MAX_TARGETS];
	int is_pending[PHASE_MAX_TARGETS];
};

/* The result table of the phase rs ran, pushed. */
void api_push_result(lua_State *L, const struct run_state *rs, const struct phase_result *r);
/* The result on top of the stack answers a missing field with an input error. */
void api_seal_result(lua_State *L);
/* Keep the result on top of the stack (keep_results) and call on_result's functions. */
void api_deliver_result(lua_State *L);

#endif
