/* lua_phase.c - iomoon.run and iomoon.check: parse (phase_fields.c),
 * check (phase_check.c), create the targets option tables ask for, run
 * (phase.c), and hand the result (lua_result.c) to on_result's functions;
 * lua_phase.h draws the path. Also the progress line on a terminal.
 *
 * A wrong field raises an input error naming the field, the value and what
 * is allowed ("phase.mix[2].bs: 3000 is not a multiple of the 512-byte
 * sector of /dev/sdb (direct=true)"), before anything is touched.
 */
#include "lua/lua_phase.h"
#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rc.h"
#include "core/shown.h"
#include "io/target.h"
#include "lua/lua_api.h"
#include "lua/lua_cluster.h"
#include "lua/lua_int.h"
#include "lua/phase_files.h"
#include "run/phase.h"
#include "run/verify_lock.h"

static lua_Integer phases_run;     /* names "phase N" */
static int run_interrupted;        /* a phase was interrupted: later ones do not start */

static int progress_on;
static char progress_label[64];   /* e.g. "3/18": the phase's place in a suite */
static double progress_after_s;   /* seconds of the suite after this phase */

/* The live line on a terminal, as fio's status line: phase, time, rates, ETA.
 * Throughput in MiB/s, the unit of the tables' Avg MiB/s. */
static void progress_cb(const struct phase_progress *p)
{
	char where[160], name[80];
	double left = (p->total_s > p->elapsed_s ? p->total_s - p->elapsed_s : 0) + progress_after_s;
	const double mib = p->mb_per_s * 1e6 / 1048576.0;

	snprintf(where, sizeof(where), "%s%s%s", progress_label[0] ? progress_label : "", progress_label[0] ? " " : "",
		 shown(p->name, name, sizeof(name))); /* one line, no password */
	if (p->ramping)
		fprintf(stderr, "\r\033[K[%s] ramp %.1f/%.1f s", where, p->elapsed_s, p->total_s);
	else if (p->total_s > 0)
		fprintf(stderr, "\r\033[K[%s] %.1f/%.1f s  %.0f IOPS  %.1f MiB/s  [eta %.0f s]", where, p->elapsed_s,
			p->total_s, p->iops, mib, left);
	else
		fprintf(stderr, "\r\033[K[%s] %.1f s  %.0f IOPS  %.1f MiB/s  %llu I/Os", where, p->elapsed_s, p->iops,
			mib, (unsigned long long)p->ios);
}

/* The progress callback for a phase started now: NULL unless progress
 * lines are on and stderr is a terminal (files phases take it too). */
void (*api_progress_fn(void))(const struct phase_progress *p)
{
	return progress_on && isatty(2) ? progress_cb : NULL;
}

/* The workloads of rs: rs itself, then its streams. */
static struct run_state *workload_of(struct run_state *rs, unsigned i)
{
	return i == 0 ? rs : rs->stream[i - 1];
}

/* Remove every file this run created for rs and its streams. */
static void unlink_created(struct run_state *rs)
{
	for (unsigned k = 0; k <= rs->nstreams; k++) {
		struct run_state *w = workload_of(rs, k);

		for (unsigned i = 0; i < w->sp.ntargets; i++)
			if (w->is_pending[i])
				target_unlink_created(w->sp.targets[i]);
	}
}

/* Lock, against other processes, every target that the workloads of rs
 * writing or verifying with crc32c use and that exists now (verify_lock.h):
 * RC_INPUT with why when another process holds one. */
static int lock_targets(struct run_state *rs, char *why, size_t why_len)
{
	int rc = RC_OK;

	for (unsigned k = rs->nstreams ? 1 : 0; k <= rs->nstreams && rc == RC_OK; k++)
		rc = vlock_phase(&workload_of(rs, k)->sp, workload_of(rs, k)->path, why, why_len);
	return rc;
}

/* Undo what api_run did before a refusal: the locks, the files created. */
static void undo_run(struct run_state *rs)
{
	vlock_release();
	unlink_created(rs);
}

/* Create (or extend, or fill) target i of w. A file it creates is locked
 * as soon as it exists, before its fill: another process that finds it
 * half filled is refused, never let in to write it with verification. */
static int materialize_one(struct run_state *rs, struct run_state *w, unsigned i, char *why, size_t why_len)
{
	struct target *t = w->sp.targets[i];
	struct target_opts bare = w->pending[i];
	int rc;

	if (t->exists)
		return target_materialize(t, &w->pending[i], why, why_len);
	bare.fill = FILL_NONE;
	rc = target_materialize(t, &bare, why, why_len);
	if (rc == RC_OK)
		rc = lock_targets(rs, why, why_len);
	if (rc == RC_OK)
		rc = target_materialize(t, &w->pending[i], why, why_len);
	return rc;
}

/* Create what the option-table targets of the phase and its streams ask
 * for; on failure, take back what this call created. */
static void materialize_targets(lua_State *L, struct run_state *rs)
{
	for (unsigned k = 0; k <= rs->nstreams; k++) {
		struct run_state *w = workload_of(rs, k);

		for (unsigned i = 0; i < w->sp.ntargets; i++) {
			char why[WHY_LEN];
			int rc;

			if (!w->is_pending[i])
				continue;
			rc = materialize_one(rs, w, i, why, sizeof(why));
			if (rc < 0) {
				undo_run(rs); /* only the created are removed */
				api_raise_error(L, rc == RC_INPUT ? IOMOON_INPUT_ERROR : IOMOON_RUN_ERROR, why);
			}
		}
	}
}

/* Parse and check the phase table at index 1; the run_state is left at
 * index 2 (its user value anchors the targets). Nothing is created, opened
 * for writing or filled: a wrong field raises an input error. */
static struct run_state *check_phase(lua_State *L, int planned)
{
	struct run_state *rs;
	char why[WHY_LEN];
	int rc;

	if (!lua_istable(L, 1))
		api_input_error(L, "iomoon.run: expects a phase table, got a %s", luaL_typename(L, 1));
	lua_settop(L, 1);
	rs = lua_newuserdatauv(L, sizeof(*rs), 1); /* index 2 */
	memset(rs, 0, sizeof(*rs));
	lua_createtable(L, 4, 0);
	lua_setiuservalue(L, 2, 1);
	rs->self = 2;
	rs->sp.wl = &rs->wl;
	rs->sp.pace = &rs->pace;
	phase_parse(L, 1, rs);
	rs->state_planned = planned;
	if (!rs->name[0])
		snprintf(rs->name, sizeof(rs->name), "phase %lld", (long long)phases_run + 1);
	rc = phase_check(rs, why, sizeof(why));
	if (rc == RC_OK)
		rc = api_cluster_split(rs, why, sizeof(why));
	if (rc == RC_INPUT)
		api_raise_error(L, IOMOON_INPUT_ERROR, why);
	if (rc != RC_OK)
		api_raise_error(L, IOMOON_RUN_ERROR, why);
	return rs;
}

/* iomoon.check(phase [, {written_before = true}]): every check iomoon.run
 * makes, touching nothing. Returns true or raises the input error run
 * would raise. written_before: an earlier phase of the plan writes the
 * targets with verification, so an after_crash pass's state is not looked
 * for yet (iomoon.run looks). */
int api_check(lua_State *L)
{
	int planned = 0;

	if (api_is_files_phase(L, 1))
		return api_check_files(L); /* phase_files.c */
	if (!lua_isnoneornil(L, 2)) {
		if (!lua_istable(L, 2))
			api_input_error(L, "iomoon.check: options: a %s is not a table (give {written_before = true})",
					luaL_typename(L, 2));
		lua_pushnil(L);
		while (lua_next(L, 2)) {
			if (lua_type(L, -2) != LUA_TSTRING || strcmp(lua_tostring(L, -2), "written_before"))
				api_input_error(L, "iomoon.check: options: '%s' is not an option (written_before)",
						lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?");
			if (!lua_isboolean(L, -1))
				api_input_error(L, "iomoon.check: options.written_before: a %s is not a boolean",
						luaL_typename(L, -1));
			planned = lua_toboolean(L, -1);
			lua_pop(L, 1);
		}
	}
	check_phase(L, planned);
	lua_pushboolean(L, 1);
	return 1;
}

/* A phase that ran to its end and completed no I/O measured nothing: a
 * failure, not a zero. */
static void fail_if_idle(struct phase_result *res)
{
	const struct counters *c = &res->total;

	for (int op = 0; op < OP_NTYPES; op++)
		if (c->op[op].lat.count || c->op[op].errors)
			return;
	if (res->interrupted || res->failed)
		return;
	res->failed = 1;
	snprintf(res->error, sizeof(res->error),
		 "no I/O completed in the measured time (shorter than one I/O's service time, "
		 "or than one gap of the rate asked, or than the set-up of this many workers and slots)");
}

/* meta: the caller's own tables (checked by the parser), the phase's and
 * each stream's, carried into the result on top of the stack. */
static void carry_meta(lua_State *L, const struct run_state *rs)
{
	lua_getfield(L, 1, "meta");
	lua_setfield(L, -2, "meta");
	if (!rs->nstreams)
		return;
	lua_getfield(L, 1, "streams");
	lua_getfield(L, -2, "streams");
	for (unsigned i = 1; i <= rs->nstreams; i++) {
		lua_rawgeti(L, -1, i);  /* result.streams[i] */
		lua_rawgeti(L, -3, i);  /* phase.streams[i] */
		lua_getfield(L, -1, "meta");
		lua_setfield(L, -3, "meta");
		lua_pop(L, 2);
	}
	lua_pop(L, 2);
}

static int check_fn(lua_State *L)
{
	check_phase(L, 0);
	lua_settop(L, 2);
	return 1;
}

static int materialize_fn(lua_State *L)
{
	materialize_targets(L, lua_touserdata(L, 1));
	return 0;
}

/* Call fn with the narg values on top, protected: RC_OK with its results
 * left on the stack, or RC_INPUT (iomoon's input error) / RC_FAIL with
 * the error's message in why and the stack as it was below the args. */
int api_pcall_why(lua_State *L, lua_CFunction fn, int narg, char *why, size_t why_len)
{
	const int top = lua_gettop(L) - narg;
	int input = 0;

	lua_pushcfunction(L, fn);
	lua_insert(L, top + 1);
	if (lua_pcall(L, narg, LUA_MULTRET, 0) == LUA_OK)
		return RC_OK;
	const int err = lua_gettop(L); /* iomoon's error table, or any value */

	if (lua_getmetatable(L, err)) {
		luaL_getmetatable(L, IOMOON_INPUT_ERROR);
		input = lua_rawequal(L, -1, -2);
	}
	if (lua_istable(L, err) && lua_getfield(L, err, "msg") == LUA_TSTRING)
		snprintf(why, why_len, "%s", lua_tostring(L, -1));
	else
		snprintf(why, why_len, "%s", luaL_tolstring(L, err, NULL));
	lua_settop(L, top);
	return input ? RC_INPUT : RC_FAIL;
}

/* In a cluster, call fn(arg) protected: an error it raises is this rank's
 * part of the agreement at point p, not a longjmp past the other ranks;
 * every rank then raises the agreed error (after `undo`, when given).
 * Returns fn's one result, or nothing when it returns none. */
static void agreed_call(lua_State *L, enum cluster_point p, lua_CFunction fn, int narg, struct run_state *rs,
			void (*undo)(struct run_state *))
{
	char why[WHY_LEN] = "", out[WHY_LEN];
	int rc = api_pcall_why(L, fn, narg, why, sizeof(why));

	rc = api_cluster_agree(p, p == CLUSTER_CHECK && rc == RC_OK ? lua_touserdata(L, -1) : rs, rc, why, out,
			       sizeof(out));
	if (rc == RC_OK)
		return;
	if (undo && rs)
		undo(rs);
	api_raise_error(L, rc == RC_INPUT ? IOMOON_INPUT_ERROR : IOMOON_RUN_ERROR, out);
}

/* After the check: in a cluster, the slices of the targets ranks share
 * (every rank calls it, then agrees); then the locks of the targets that
 * exist (verify_lock.h). A refusal on any rank raises the input error on
 * every rank, nothing held. */
static void lock_or_refuse(lua_State *L, struct run_state *rs)
{
	char why[WHY_LEN] = "", out[WHY_LEN];
	int rc = api_cluster_share(rs, why, sizeof(why));

	if (rc == RC_OK)
		rc = lock_targets(rs, why, sizeof(why));
	if (cluster_on())
		rc = api_cluster_agree(CLUSTER_CHECK, rs, rc, why, out, sizeof(out));
	else
		snprintf(out, sizeof(out), "%s", why);
	if (rc == RC_OK)
		return;
	vlock_release();
	api_raise_error(L, rc == RC_INPUT ? IOMOON_INPUT_ERROR : IOMOON_RUN_ERROR, out);
}

/* A think time given as a bare number of a second or more (phase_pace.c
 * notes the phase's, or a stream's, first) is said once on stderr as the
 * phase starts: IOMeter's delays are milliseconds, iomoon's bare numbers
 * seconds. Rank 0 says it for a cluster. */
static void warn_think(const struct run_state *rs)
{
	char name[256];

	if (cluster_on() && cluster_rank() != 0)
		return;
	for (unsigned k = 0; k <= rs->nstreams; k++) {
		const struct run_state *w = k ? rs->stream[k - 1] : rs;

		if (!w->think_bare[0])
			continue;
		const char *v = strrchr(w->think_bare, ' ') + 1;

		fprintf(stderr, "iomoon: warning: phase '%s': %s is read as %s s (a bare number is seconds; "
			"IOMeter's delays are milliseconds: write \"%sms\" if that is meant)\n",
			shown(rs->name, name, sizeof(name)), w->think_bare, v, v);
		return;
	}
}

/* iomoon.run(phase): check the phase (input errors), create what its
 * option-table targets ask for, run it, and return the result table.
 * In a cluster each step is agreed on by every rank (lua_cluster.h). */
int api_run(lua_State *L)
{
	struct run_state *rs;
	struct phase_spec *sp;
	struct phase_result res;
	struct cluster_saved saved;
	char why[WHY_LEN] = "";
	int rc;

	vlock_release(); /* none is held between phases (nor after an error's longjmp) */
	if (run_interrupted || phase_interrupt) /* a stop asked between phases too */
		return api_raise_error(L, IOMOON_RUN_ERROR, "interrupted");
	if (api_is_files_phase(L, 1)) { /* phase_files.c: its own check, run and result */
		api_run_files(L, (long long)phases_run + 1);
		if (phase_interrupt)
			run_interrupted = 1;
		phases_run++;
		api_seal_result(L);
		api_deliver_result(L);
		return 1;
	}
	if (cluster_on()) {
		lua_settop(L, 1);
		lua_pushvalue(L, 1);
		agreed_call(L, CLUSTER_CHECK, check_fn, 1, NULL, NULL);
		rs = lua_touserdata(L, 2);
		rs->self = 2;
	} else {
		rs = check_phase(L, 0);
	}
	lock_or_refuse(L, rs);
	warn_think(rs);
	sp = &rs->sp;
	sp->progress = api_progress_fn();
	if (cluster_on()) {
		lua_pushlightuserdata(L, rs);
		agreed_call(L, CLUSTER_CREATE, materialize_fn, 1, rs, undo_run);
	} else {
		materialize_targets(L, rs);
	}
	api_cluster_apply(rs, &saved);
	rc = phase_run(sp, &res, why, sizeof(why));
	vlock_release(); /* the last worker saved the state before phase_run returned */
	api_cluster_restore(rs, &saved);
	if (sp->progress)
		fprintf(stderr, "\r\033[K");
	if (rc == RC_INPUT) {
		/* refused at open (e.g. no O_DIRECT here): leave no file behind */
		unlink_created(rs);
		return api_input_error(L, "%s", why);
	}
	if (rc < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, why);
	if (res.interrupted)
		run_interrupted = 1;
	fail_if_idle(&res);
	api_push_result(L, rs, &res);
	phase_result_free(&res);
	carry_meta(L, rs);
	phases_run++;
	api_seal_result(L);
	api_deliver_result(L);
	return 1;
}

/* set_progress(on [, label, seconds_after]): the progress line, and where
 * the next phase stands in a suite (for the suite's ETA). */
int api_set_progress(lua_State *L)
{
	progress_on = lua_toboolean(L, 1);
	snprintf(progress_label, sizeof(progress_label), "%s", luaL_optstring(L, 2, ""));
	progress_after_s = luaL_optnumber(L, 3, 0);
	return 0;
}

int api_interrupted(lua_State *L)
{
	lua_pushboolean(L, run_interrupted || phase_interrupt);
	return 1;
}

