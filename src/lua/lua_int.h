/* lua_int.h - what the binding's files (src/lua/) share inside it. */
#ifndef IOMOON_LUA_INT_H
#define IOMOON_LUA_INT_H

#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/hist.h"
#include "core/rc.h"
#include "io/target.h"

#define TARGET_MT "iomoon.target"
#define HIST_MT "iomoon.hist"
#define RESULTS_KEY "iomoon.results"   /* registry: results kept (keep_results) */
#define ON_RESULT_KEY "iomoon.on_result" /* registry: functions given to on_result */
#define OBJECT_MT "iomoon.object"      /* a map: {} in JSON even when empty */

/* Raise an error object (IOMOON_INPUT_ERROR or IOMOON_RUN_ERROR). */
int api_raise_error(lua_State *L, const char *mt, const char *msg);
/* Push s (len bytes) with every URL's password left out (redact_in_place). */
void api_push_redacted(lua_State *L, const char *s, size_t len);
int api_input_error(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Call fn with the narg values on top, protected (lua_phase.c): RC_OK with
 * its results on the stack, or RC_INPUT (an input error) / RC_FAIL with the
 * error's message in why, the args gone. */
int api_pcall_why(lua_State *L, lua_CFunction fn, int narg, char *why, size_t why_len);

/* Checked values; `field` names what is checked in the message. */
uint64_t api_check_size(lua_State *L, int idx, const char *field);
uint64_t api_check_duration(lua_State *L, int idx, const char *field);
double api_check_pct(lua_State *L, int idx, const char *field);
/* A share of the I/Os (read, trim, random) in percent: 0..100, a number
 * between 0 and 1 refused (a fraction, or a share under 1 % written "0.7%"). */
double api_check_share(lua_State *L, int idx, const char *field);
/* A number, or a string holding only one, at idx into *n: 1; another type:
 * 0; a string holding anything else: an input error naming `what`. */
int api_number(lua_State *L, int idx, const char *field, const char *what, lua_Number *n);
lua_Integer api_check_int(lua_State *L, int idx, const char *field, lua_Integer lo, lua_Integer hi);
int api_check_bool(lua_State *L, int idx, const char *field);
/* Refuse keys of table t not in allowed (NULL-ended; "[list]" first
 * allows integer keys). */
void api_check_keys(lua_State *L, int t, const char *what, const char *const *allowed);
/* The allowed name nearest to k by edit distance, or NULL if none is near. */
const char *api_nearest(const char *k, const char *const *names);
lua_Integer api_check_list(lua_State *L, int idx, const char *field);

/* The metatable `name` with methods as __index, and __gc, __tostring when given. */
void api_new_metatable(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc,
		       lua_CFunction tostring);

/* lua_target.c: target userdata */
int api_target(lua_State *L);
void api_target_metatable(lua_State *L);
struct target *api_check_target(lua_State *L, int idx);
struct target *api_new_target(lua_State *L);
void api_target_opts(lua_State *L, int idx, struct target_opts *o, const char *what);
struct hist *api_push_hist(lua_State *L);
/* t[k] = v for the table on top of the stack. */
static inline void api_set_int(lua_State *L, const char *k, uint64_t v)
{
	lua_pushinteger(L, (lua_Integer)v);
	lua_setfield(L, -2, k);
}

static inline void api_set_num(lua_State *L, const char *k, double v)
{
	lua_pushnumber(L, v);
	lua_setfield(L, -2, k);
}

/* t[k] = the wall-clock time realtime_ns as ISO 8601 (clock_iso8601);
 * nothing when it is not known (0). */
static inline void api_set_time(lua_State *L, const char *k, int64_t realtime_ns)
{
	char iso[CLOCK_ISO_LEN];

	if (realtime_ns <= 0)
		return;
	clock_iso8601(realtime_ns, iso, sizeof(iso));
	lua_pushstring(L, iso);
	lua_setfield(L, -2, k);
}

/* lat.percentiles of h, into the table on top (lua_api.c). */
void api_push_percentiles(lua_State *L, const struct hist *h);

/* lua_csv.c: the iomoon.csv table */
void api_push_csv(lua_State *L);

int api_run(lua_State *L);
int api_check(lua_State *L);
int api_keep_results(lua_State *L);
int api_results(lua_State *L);
int api_on_result(lua_State *L);
int api_set_progress(lua_State *L);
struct phase_progress;
void (*api_progress_fn(void))(const struct phase_progress *p);
int api_interrupted(lua_State *L);
/* lua_metrics.c: iomoon.metrics{...} */
int api_metrics(lua_State *L);

#endif
