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
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "cluster/cluster.h"
#include "core/redact.h"
#include "lua/lua_api.h"
#include "run/phase.h"

#ifndef IOMOON_DATADIR
#define IOMOON_DATADIR "/usr/local/share/iomoon"
#endif

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t pipe_closed;
static lua_State *main_L;             /* for the hook a stop signal arms */
static char lib_source[PATH_MAX + 1]; /* "@" and the library's directory */
static struct timespec stop_at;       /* when the first stop signal came */

/* A count hook, armed by the first stop signal: a script that has not
 * returned to iomoon within a second of it (a busy Lua loop that never
 * asks iomoon.interrupted()) is stopped there with a run error. The
 * library's own code (a report being written) is never stopped. */
static void stop_hook(lua_State *L, lua_Debug *ar)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - stop_at.tv_sec) * 1000000000L + (now.tv_nsec - stop_at.tv_nsec) < 1000000000L)
		return;
	if (!lua_getinfo(L, "S", ar) || ar->source[0] != '@' || !strncmp(ar->source, lib_source, strlen(lib_source)))
		return;
	lua_sethook(L, NULL, 0, 0);
	lua_createtable(L, 0, 2); /* a run error, as api_raise_error makes: exit 1 */
	luaL_where(L, 1);
	lua_setfield(L, -2, "where");
	lua_pushliteral(L, "interrupted: the script did not stop within a second of the signal");
	lua_setfield(L, -2, "msg");
	luaL_setmetatable(L, IOMOON_RUN_ERROR);
	lua_error(L);
}

/* Set the stop flag. After a stop signal, the next one of any of the three
 * kills the process (their default action); a closed pipe changes nothing. */
static void on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGPIPE) {
		pipe_closed = 1;
	} else {
		for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
			signal(stop_signals[i], SIG_DFL); /* async-signal-safe */
		clock_gettime(CLOCK_MONOTONIC, &stop_at); /* both async-signal-safe */
		if (main_L)
			lua_sethook(main_L, stop_hook, LUA_MASKCOUNT, 10000);
	}
	phase_interrupt = 1;
	errno = saved;
}

/* SIGINT, SIGTERM and SIGHUP stop the run: the phase under way ends marked
 * interrupted, no later one starts, and reports are still written; a second
 * one ends the process at once. SIGPIPE (a write to a closed pipe, such as
 * stdout under `| head -1`) stops the run the same way instead of killing
 * it, so --output files are written; the write itself fails with EPIPE, and
 * later ones too (no reset: a second SIGPIPE must not kill us either).
 * A SIGHUP ignored when we start (nohup) stays ignored. */
static void install_signals(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND; /* a second signal ends the process at once */
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		if (sigaction(stop_signals[i], NULL, &old) == 0 &&
		    !(stop_signals[i] == SIGHUP && old.sa_handler == SIG_IGN))
			sigaction(stop_signals[i], &sa, NULL);
	sa.sa_flags = 0;
	sigaction(SIGPIPE, &sa, NULL);
}

/* Flush stdout; a run whose output was lost (a closed pipe, a full disk)
 * did not succeed: rc 0 becomes 1, with one line on stderr. */
static int finish_stdout(int rc)
{
	int err = fflush(stdout) ? errno : 0;

	if (!err && !ferror(stdout))
		return rc;
	if (err == EPIPE || (!err && pipe_closed))
		fprintf(stderr, "iomoon: standard output was closed (broken pipe): what it got is incomplete\n");
	else
		fprintf(stderr, "iomoon: cannot write standard output: %s\n", strerror(err ? err : EIO));
	return rc ? rc : 1;
}

static int readable(const char *dir, const char *file)
{
	char p[PATH_MAX];

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, file) >= sizeof(p))
		return 0; /* longer than a path can be: not there */
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

/* os.exit, in a cluster: the exit agreement first (cluster_finish), so
 * that the other ranks are told and none waits for this one forever. */
static int cluster_exit(lua_State *L)
{
	int code = lua_isboolean(L, 1) ? (lua_toboolean(L, 1) ? 0 : 1) : (int)luaL_optinteger(L, 1, 0);

	fflush(stdout);
	cluster_finish(code);
	exit(code);
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
	char why[512];
	lua_State *L;
	int rc;

	for (int i = 1; i < argc; i++)
		redact_keep(argv[i]); /* a URL's password given here is never shown (redact.h) */
	if (cluster_init(&argc, &argv, why, sizeof(why))) {
		fprintf(stderr, "iomoon: %s\n", why);
		return 2;
	}
	install_signals();
	find_datadir(luadir, sizeof(luadir));
	L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "iomoon: cannot create the Lua state (out of memory)\n");
		return 1;
	}
	iomoon_lua_setup(L, luadir);
	snprintf(lib_source, sizeof(lib_source), "@%s", luadir);
	main_L = L;
	if (cluster_on()) {
		lua_getglobal(L, "os");
		lua_pushcfunction(L, cluster_exit);
		lua_setfield(L, -2, "exit");
		lua_pop(L, 1);
	}

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
		cluster_finish(2);
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
		cluster_finish(2);
		return 2;
	}
	rc = finish_stdout((int)lua_tointeger(L, -1));
	main_L = NULL;
	lua_close(L);
	cluster_finish(rc);
	return rc;
}
