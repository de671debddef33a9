/* lua_verify.c - result.verify: what a crc32c verification looked at, unit
 * by unit (verify_read.h), from the counters every worker (and, under MPI,
 * every rank) kept. */
#include <lua.h>

#include "lua/lua_int.h"
#include "lua/lua_phase.h"
#include "verify/crash.h"

/* Did a stream leave never-written units unread? As asked, else (not
 * given) when its mix writes: what a phase that writes reads of
 * never-written units says nothing of what it wrote; and after a crash,
 * where a unit nothing was written to says nothing of what the storage
 * kept (verify_read.h: one holding an iomoon header is still judged). */
static int stream_skips(const struct phase_spec *sp)
{
	if (sp->skip_unwritten >= 0)
		return sp->skip_unwritten;
	if (sp->after_crash)
		return 1;
	for (unsigned i = 0; i < sp->wl->nspecs; i++)
		if (sp->wl->spec[i].read_thr < WL_ONE)
			return 1;
	return 0;
}

/* What rs's streams verifying with crc32c share: whether there is one
 * (the return), their unit (0 when they differ: each stream's result says
 * its own) and whether every one of them skipped never-written units. */
static int crc_streams(const struct run_state *rs, uint32_t *unit, int *skips)
{
	int any = 0;

	*unit = 0;
	*skips = 1;
	for (unsigned k = 0; k < phase_nstreams(&rs->sp); k++) {
		const struct phase_spec *sp = phase_stream(&rs->sp, k);

		if (sp->verify != VERIFY_CRC)
			continue;
		*unit = any && *unit != sp->verify_unit ? 0 : sp->verify_unit;
		*skips = *skips && stream_skips(sp);
		any = 1;
	}
	return any;
}

/* result.crash: an after_crash pass's classes (verify/crash.h), and the
 * first offsets of each class but durable_ok. */
static void push_crash(lua_State *L, const struct crash_counts *c, int atomic)
{
	lua_createtable(L, 0, CRASH_NCLASS + 2);
	for (int k = 0; k < CRASH_NCLASS; k++)
		api_set_int(L, crash_class_names[k], c->n[k]);
	lua_createtable(L, 0, CRASH_NCLASS - 1);
	for (int k = 1; k < CRASH_NCLASS; k++) {
		unsigned n = c->n[k] < CRASH_FIRST ? (unsigned)c->n[k] : CRASH_FIRST;

		lua_createtable(L, (int)n, 0);
		for (unsigned i = 0; i < n; i++) {
			lua_pushinteger(L, (lua_Integer)c->at[k][i]);
			lua_rawseti(L, -2, i + 1);
		}
		lua_setfield(L, -2, crash_class_names[k]);
	}
	lua_setfield(L, -2, "offsets");
	lua_pushboolean(L, atomic);
	lua_setfield(L, -2, "atomic");
	lua_setfield(L, -2, "crash");
}

void api_push_verify(lua_State *L, const struct run_state *rs, const struct phase_result *r)
{
	const struct verify_counts *v = &r->total.verify;
	uint32_t unit;
	int skips;

	if (!crc_streams(rs, &unit, &skips))
		return;
	lua_createtable(L, 0, 8);
	api_set_int(L, "units_checked", v->units_checked);
	api_set_int(L, "units_unwritten", v->units_unwritten);
	api_set_int(L, "units_unexpected", v->units_unexpected);
	api_set_int(L, "units_skipped", v->units_skipped);
	api_set_int(L, "unit_bytes", unit);
	if (v->known) /* else no map said what was written */
		api_set_int(L, "written_end_bytes", v->written_end);
	lua_pushboolean(L, skips);
	lua_setfield(L, -2, "skip_unwritten");
	lua_setfield(L, -2, "verify");
	if (v->crash.judged)
		push_crash(L, &v->crash, rs->sp.atomic);
}
