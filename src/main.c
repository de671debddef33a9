/* main.c - the iomoon command: a Lua state with the iomoon module, the
 * library path, signal handling, and a hand-over to lua/iomoon/cli.lua,
 * where the subcommands live.
 *
 * The library is looked for in $IOMOON_LUA_PATH, then beside the binary
 * (the source tree: ./lua), then in ../share/iomoon/lua relative to the
 * binary (an installed tree), then in the directory fixed at build time.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua_api.h"
#include "phase.h"

#ifndef IOMOON_DATADIR
#define IOMOON_DATADIR "/usr/local/share/iomoon"
#endif

static void on_signal(int sig)
{
	(void)sig;
	phase_interrupt = 1;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND; /* a second signal ends the process at once */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int readable(const char *dir, const char *file)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return access(p, R_OK) == 0;
}

/* The data directory: the one holding lua/iomoon/cli.lua. */
static void find_datadir(char *out, size_t len)
{
	char exe[PATH_MAX], cand[PATH_MAX];
	const char *env = getenv("IOMOON_LUA_PATH");
	ssize_t n;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *dir;

		exe[n] = 0;
		dir = dirname(exe);
		snprintf(cand, sizeof(cand), "%s/lua", dir);
		if (readable(cand, "iomoon/cli.lua")) {
			snprintf(out, len, "%s", cand);
			return;
		}
		snprintf(cand, sizeof(cand), "%s/../share/iomoon/lua", dir);
		if (readable(cand, "iomoon/cli.lua")) {
			snprintf(out, len, "%s", cand);
			return;
		}
	}
	snprintf(out, len, "%s/lua", IOMOON_DATADIR);
}

static int traceback(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);

	if (!msg && luaL_callmeta(L, 1, "__tostring"))
		msg = lua_tostring(L, -1);
	luaL_traceback(L, L, msg ? msg : "(error object)", 1);
	return 1;
}

int main(int argc, char **argv)
{
	char luadir[PATH_MAX];
	lua_State *L;
	int rc;

	install_signals();
	find_datadir(luadir, sizeof(luadir));
	L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "iomoon: cannot create the Lua state (out of memory)\n");
		return 1;
	}
	iomoon_lua_setup(L, luadir);

	lua_pushcfunction(L, traceback);
	lua_getglobal(L, "require");
	lua_pushliteral(L, "iomoon");
	lua_call(L, 1, 1);
	lua_pushstring(L, luadir);
	lua_setfield(L, -2, "lua_dir");
	lua_pop(L, 1);

	lua_getglobal(L, "require");
	lua_pushliteral(L, "iomoon.cli");
	if (lua_pcall(L, 1, 1, 1) != LUA_OK) {
		fprintf(stderr, "iomoon: cannot load the Lua library from %s (set IOMOON_LUA_PATH): %s\n", luadir,
			lua_tostring(L, -1));
		lua_close(L);
		return 2;
	}
	lua_getfield(L, -1, "main");
	lua_createtable(L, argc, 0);
	for (int i = 1; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i);
	}
	if (lua_pcall(L, 1, 1, 1) != LUA_OK) {
		fprintf(stderr, "iomoon: internal error: %s\n", lua_tostring(L, -1));
		lua_close(L);
		return 2;
	}
	rc = (int)lua_tointeger(L, -1);
	fflush(stdout);
	lua_close(L);
	return rc;
}
