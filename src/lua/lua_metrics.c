/* lua_metrics.c - iomoon.metrics{listen =, public =, file =, live =}:
 * the run's live figures exported (run/metrics.h), checked and started
 * before any phase runs, so a port in use, an address that is not local
 * or a file that cannot be written is bad input with nothing run.
 *
 * Under mpirun only rank 0 exports: the others return at once.
 */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "core/rc.h"
#include "io/protect.h"
#include "lua/lua_api.h"
#include "lua/lua_int.h"
#include "run/metrics.h"

static void metrics_atexit(void)
{
	metrics_stop();
}

/* t[k]: a string or nil (another type: an input error naming metrics.k). */
static const char *opt_string(lua_State *L, const char *k)
{
	const char *s;

	lua_getfield(L, 1, k);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return NULL;
	}
	if (lua_type(L, -1) != LUA_TSTRING)
		api_input_error(L, "metrics.%s: a %s, not a string", k, luaL_typename(L, -1));
	s = lua_tostring(L, -1);
	if (!s[0])
		api_input_error(L, "metrics.%s: empty (give %s)", k,
				!strcmp(k, "listen") ? "ADDR:PORT, say 127.0.0.1:9464" : "a path");
	lua_pop(L, 1); /* the string stays alive in the table */
	return s;
}

int api_metrics(lua_State *L)
{
	static const char *const fields[] = { "listen", "public", "file", "live", NULL };
	static int registered;
	struct metrics_config c = { 0 };
	char why[WHY_LEN];
	int rc;

	luaL_checktype(L, 1, LUA_TTABLE);
	api_check_keys(L, 1, "metrics", fields);
	c.listen = opt_string(L, "listen");
	c.file = opt_string(L, "file");
	c.live = opt_string(L, "live");
	lua_getfield(L, 1, "public");
	c.public_ok = lua_isnil(L, -1) ? 0 : api_check_bool(L, -1, "metrics.public");
	lua_pop(L, 1);
	if (!c.listen && !c.file && !c.live)
		return api_input_error(L, "metrics: give listen (ADDR:PORT), file (a path) or live (a path or \"-\")");
	if (c.file && c.live && !strcmp(c.file, c.live))
		return api_input_error(L, "metrics.live: %s is metrics.file too (give each a path of its own)", c.live);
	if (metrics_on())
		return api_input_error(L, "metrics: already exporting (once per run: %s)", metrics_address()[0] ? metrics_address() : "files");
	lua_createtable(L, 0, 1);
	if (cluster_on() && cluster_rank() != 0)
		return 1; /* rank 0 exports for the cluster */
	c.host = cluster_host();
	if ((rc = metrics_start(&c, why, sizeof(why))) != RC_OK) {
		if (rc == RC_INPUT)
			return api_input_error(L, "metrics.%s", why);
		return api_raise_error(L, IOMOON_RUN_ERROR, why);
	}
	if (!registered++)
		atexit(metrics_atexit);
	if (c.file)
		protect_add(c.file, "the metrics file (metrics.file)");
	if (c.live && strcmp(c.live, "-"))
		protect_add(c.live, "the live file (metrics.live)");
	if (c.listen) {
		lua_pushstring(L, metrics_address());
		lua_setfield(L, -2, "listen");
	}
	return 1;
}
