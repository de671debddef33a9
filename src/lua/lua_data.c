/* lua_data.c - result.data: what the writes carried, as asked (pattern,
 * compress, dedupe, dedupe_unit) and as measured on the data as it went out
 * (data.h): distinct units by construction, LZ4 (and, on a rarer sample,
 * zstd and zlib) on a sample of the units. */
#include <lua.h>

#include "cluster/cluster.h"
#include "lua/lua_int.h"
#include "lua/lua_phase.h"
#include "run/data.h"

static const char *const pattern_names[] = { "random", "zero", "offset", "repeat", "reuse" };

const char *api_pattern_name(unsigned pattern)
{
	return pattern < sizeof(pattern_names) / sizeof(pattern_names[0]) ? pattern_names[pattern] : "?";
}

static double ratio(uint64_t before, uint64_t after)
{
	return after ? (double)before / (double)after : 1.0;
}

/* Can no unit have been written twice? One worker on one host, writes
 * only of whole units, sequential without skips on the phase's region
 * from its start, their units (the ramp's included) within it, none
 * failed: then the
 * counts of the writes issued are also those of the units the phase left
 * on disk. Anything else may overwrite, and knowing what is left would
 * take a map of the target and a look at it per I/O: not kept. */
static int written_once(const struct run_state *rs, const struct phase_result *r, uint32_t unit)
{
	const struct phase_spec *sp = &rs->sp;
	const struct workload *wl = sp->wl;

	if (rs->nstreams || sp->replay || r->cluster || cluster_on() || sp->workers != 1 || !wl || !sp->ntargets ||
	    r->total.op[OP_WRITE].errors || sp->region_off % unit)
		return 0;
	for (unsigned k = 0; k < wl->nspecs; k++) {
		const struct wl_spec *s = &wl->spec[k];

		if (s->read_thr || s->trim_thr || s->random_thr || s->skip || s->region_len)
			return 0;
		for (unsigned b = 0; b < s->nbs; b++)
			if (s->bs[b].bytes % unit)
				return 0; /* a write under the unit counts as one: units would not be the disk's */
	}
	return r->total.data.units <= phase_region_len(sp, 0) / unit;
}

static unsigned popcount4(const uint64_t v[4])
{
	return (unsigned)(__builtin_popcountll(v[0]) + __builtin_popcountll(v[1]) + __builtin_popcountll(v[2]) +
			  __builtin_popcountll(v[3]));
}

void api_push_data(lua_State *L, const struct run_state *rs, const struct phase_result *r)
{
	const struct phase_spec *sp = rs->nstreams ? &rs->stream[0]->sp : &rs->sp; /* what was asked: the streams' */
	const struct data_counts *d = &r->total.data;
	int alike = 1;
	const uint32_t unit = data_reduces(sp) || sp->pattern == PATTERN_REPEAT || sp->pattern == PATTERN_REUSE
				      ? sp->dedupe_unit : 4096;
	const uint64_t distinct = d->distinct + d->distinct_max + popcount4(d->values);

	if (!d->units)
		return; /* nothing written */
	for (unsigned i = 1; i < rs->nstreams; i++) {
		const struct phase_spec *o = &rs->stream[i]->sp;

		alike = alike && o->pattern == sp->pattern && o->compress == sp->compress && o->dedupe == sp->dedupe &&
			o->dedupe_unit == sp->dedupe_unit && o->dedupe_sets == sp->dedupe_sets;
	}
	lua_createtable(L, 0, 16);
	lua_pushstring(L, alike ? api_pattern_name(sp->pattern) : "mixed"); /* streams that differ: each says its own */
	lua_setfield(L, -2, "pattern");
	if (alike) {
		api_set_num(L, "compress", sp->compress);
		api_set_num(L, "dedupe", sp->dedupe);
		api_set_int(L, "dedupe_unit", unit);
		if (sp->dedupe_sets)
			api_set_int(L, "dedupe_sets", sp->dedupe_sets);
	}
	api_set_int(L, "units", d->units);
	lua_pushboolean(L, alike && written_once(rs, r, unit ? unit : 4096));
	lua_setfield(L, -2, "written_once");
	if (sp->pattern != PATTERN_OFFSET) { /* an offset's content is its place: rewrites repeat it */
		api_set_int(L, "distinct", distinct);
		api_set_num(L, "dedupe_measured", ratio(d->units, distinct));
	}
	if (alike && sp->pattern != PATTERN_OFFSET) { /* at 512 bytes: a unit's sectors differ, but zero's and repeat's */
		const uint64_t per = (unit ? unit : 4096) / 512;
		const uint64_t ds = sp->pattern == PATTERN_ZERO ? 1 : sp->pattern == PATTERN_REPEAT ? popcount4(d->values)
												   : distinct * per;

		api_set_num(L, "dedupe_sectors", ratio(d->units * per, ds));
	}
	if (d->sampled) {
		api_set_num(L, "compress_measured", ratio(d->sampled_bytes, d->compressed_bytes));
		api_set_int(L, "sampled", d->sampled);
	}
	if (d->other_bytes) {
		api_set_num(L, "compress_zstd", ratio(d->other_bytes, d->zstd_bytes));
		api_set_num(L, "compress_zlib", ratio(d->other_bytes, d->zlib_bytes));
	}
	if (d->records) { /* records of several writes (data_record.c) */
		static const char *const names[2][3] = { { "record_128k_lz4", "record_128k_zstd", "record_128k_zlib" },
							 { "record_1m_lz4", "record_1m_zstd", NULL } };

		api_set_int(L, "records_sampled", d->records);
		for (int i = 0; i < 3; i++) {
			api_set_num(L, names[0][i], ratio(d->records * DATA_RECORD_SMALL, d->rec_small[i]));
			if (names[1][i])
				api_set_num(L, names[1][i], ratio(d->records * DATA_RECORD, d->rec_large[i]));
		}
	}
	if (d->checked) {
		api_set_int(L, "dedupe_checked", d->checked);
		api_set_int(L, "dedupe_check_failed", d->check_failed);
	}
	lua_pushliteral(L, "lz4 on 1 in 128 units, each alone, at most 2000 a second a worker (zstd -3 and zlib -6 on "
			   "1 in 64 of those); records: the first 1 MiB of a worker's writes end to end (and its first "
			   "128 KiB), worker 0, after the loop; dedupe: distinct units by construction");
	lua_setfield(L, -2, "measured_with");
	lua_setfield(L, -2, "data");
}
