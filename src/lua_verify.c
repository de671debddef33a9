/* lua_verify.c - result.verify: what a crc32c verification looked at, unit
 * by unit (verify_read.h), from the counters every worker (and, under MPI,
 * every rank) kept. */
#include <lua.h>

#include "lua_int.h"
#include "lua_phase.h"

/* The unit of rs's crc32c verification: its own, or the one every
 * verifying stream shares (0: they differ, each stream's result says its
 * own); 0 too when nothing verifies with crc32c. */
static uint32_t crc_unit(const struct run_state *rs)
{
	uint32_t unit = 0;

	for (unsigned k = 0; k < phase_nstreams(&rs->sp); k++) {
		const struct phase_spec *sp = phase_stream(&rs->sp, k);

		if (sp->verify != VERIFY_CRC)
			continue;
		if (unit && unit != sp->verify_unit)
			return 0;
		unit = sp->verify_unit;
	}
	return unit;
}

static int verifies_crc(const struct run_state *rs)
{
	for (unsigned k = 0; k < phase_nstreams(&rs->sp); k++)
		if (phase_stream(&rs->sp, k)->verify == VERIFY_CRC)
			return 1;
	return 0;
}

/* Did a stream leave never-written units unread? As asked, else (not
 * given) when its mix writes: what a phase that writes reads of
 * never-written units says nothing of what it wrote. */
static int stream_skips(const struct phase_spec *sp)
{
	if (sp->skip_unwritten >= 0)
		return sp->skip_unwritten;
	for (unsigned i = 0; i < sp->wl->nspecs; i++)
		if (sp->wl->spec[i].read_thr < WL_ONE)
			return 1;
	return 0;
}

/* true only when every stream verifying with crc32c skips them */
static int skips_unwritten(const struct run_state *rs)
{
	int any = 0;

	for (unsigned k = 0; k < phase_nstreams(&rs->sp); k++) {
		const struct phase_spec *sp = phase_stream(&rs->sp, k);

		if (sp->verify != VERIFY_CRC)
			continue;
		if (!stream_skips(sp))
			return 0;
		any = 1;
	}
	return any;
}

void api_push_verify(lua_State *L, const struct run_state *rs, const struct phase_result *r)
{
	const struct verify_counts *v = &r->total.verify;

	if (!verifies_crc(rs))
		return;
	lua_createtable(L, 0, 8);
	api_set_int(L, "units_checked", v->units_checked);
	api_set_int(L, "units_unwritten", v->units_unwritten);
	api_set_int(L, "units_unexpected", v->units_unexpected);
	api_set_int(L, "units_skipped", v->units_skipped);
	api_set_int(L, "unit_bytes", crc_unit(rs));
	if (v->known) /* else no map said what was written */
		api_set_int(L, "written_end_bytes", v->written_end);
	lua_pushboolean(L, skips_unwritten(rs));
	lua_setfield(L, -2, "skip_unwritten");
	lua_setfield(L, -2, "verify");
}
