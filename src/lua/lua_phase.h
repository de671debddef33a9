/* lua_phase.h - one iomoon.run, from the phase table to the result:
 *
 *   phase table --phase_parse--> struct run_state --phase_check--> checked
 *       (phase_fields.c: the field       (phase_check.c: plain C, every
 *        table; types, ranges, names)     cross-field, geometry, permission
 *                                         and verification check)
 *   --lua_phase.c: create option-table targets, phase_run--> phase_result
 *   --lua_result.c: api_push_result--> result table --on_result--> callers
 *
 * Parsing raises input errors through Lua; checking returns RC_INPUT with a
 * message that starts with the field it is about (err.field); nothing is
 * created, opened for writing, filled or allocated beyond memory before
 * both have passed, and running fails only for the system's reasons.
 */
#ifndef IOMOON_LUA_PHASE_H
#define IOMOON_LUA_PHASE_H

#include <lua.h>

#include "io/target.h"
#include "run/phase.h"
#include "run/replay.h"
#include "run/workload.h"

/* Everything parsed for one iomoon.run, in a userdata so that an input
 * error (a longjmp) frees it with the rest of the Lua stack. Its one user
 * value is a table that anchors the phase's target userdata. */
struct run_state {
	struct phase_spec sp;
	struct workload wl;
	struct pace pace;
	char name[128];
	char dist[64];        /* phase.dist as given ("uniform" when not) */
	char spec_name[WL_MAX_SPECS][64]; /* mix[i].name, "" when none: result.specs */
	int engine_auto;      /* engine "auto" (or none) asked: no probe of a named one */
	int verify_only;
	int qd_given;         /* qd given by the phase or (for a stream) by it or its phase */
	struct replay replay; /* phase.replay (sp.replay points here when given) */
	uint64_t given;       /* bit i: field i of the field table was in the phase table */
	/* targets given as option tables or paths: created once the phase checks out */
	struct target_opts pending[PHASE_MAX_TARGETS];
	int is_pending[PHASE_MAX_TARGETS];
	char what[PHASE_MAX_TARGETS][32]; /* "phase.target[3]": names them in messages */
	struct target nominal;            /* null and sim without a target: nowhere */
	int self, table;                  /* stack indices of rs and its table, while parsing */
	char path[32];                    /* "phase", or "phase.streams[2]": messages start with it */
	char think_bare[96];              /* "phase.think.delay = 5": a think time of a bare 1 s or more */
	char verify_state[4096];          /* phase.verify_state as given ({rank}, {host} expanded) */
	int state_planned;                /* iomoon.check's written_before: an earlier phase of the plan makes
					   * the state an after_crash pass needs (iomoon.run checks it then) */
	/* phase.streams: each a run_state of its own, made from a copy of the
	 * phase's (its defaults) and the stream's table over it */
	unsigned nstreams;
	struct run_state *stream[PHASE_MAX_STREAMS];
};

/* phase_fields.c: read the phase table at idx into rs (zeroed, its user
 * value set), raising an input error for an unknown field, a wrong type or
 * a value out of range. Reads the file system not at all. */
void phase_parse(lua_State *L, int idx, struct run_state *rs);
/* Was field `name` (a phase table key) given? */
int phase_given(const struct run_state *rs, const char *name);

/* phase_check.c: every check that needs more than one field or the targets
 * (geometry, engine, verification, permissions), and the defaults that
 * depend on other fields. RC_OK, RC_INPUT (why starts with the field) or
 * RC_FAIL (a system failure inspecting a target). Plain C: no Lua. */
int phase_check(struct run_state *rs, char *why, size_t why_len);

/* phase_replay.c: result.replay, into the result table on top. */
void api_push_replay(lua_State *L, const struct run_state *rs, const struct replay_stats *st);

/* lua_verify.c: result.verify, into the result table on top (crc32c
 * phases only). */
void api_push_verify(lua_State *L, const struct run_state *rs, const struct phase_result *r);
/* lua_data.c: result.data, for a phase that wrote; the name of a pattern. */
void api_push_data(lua_State *L, const struct run_state *rs, const struct phase_result *r);
const char *api_pattern_name(unsigned pattern);

/* The result table of the phase rs ran, pushed. */
void api_push_result(lua_State *L, const struct run_state *rs, const struct phase_result *r);
/* result.device (or hosts[i].device): the kernel's counts of the devices
 * under the targets, beside the bytes iomoon moved (ours). */
void api_push_device(lua_State *L, const struct device_result *dev, double ours);
/* The result on top of the stack answers a missing field with an input error. */
void api_seal_result(lua_State *L);
/* Keep the result on top of the stack (keep_results) and call on_result's functions. */
void api_deliver_result(lua_State *L);

#endif
