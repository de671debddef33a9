/* lua_phase.c - the binding of iomoon.run: a phase table becomes a
 * phase_spec, run; lua_result.c makes the phase_result a result table.
 *
 * Every phase field is checked before anything is opened or created, and a
 * wrong one raises an input error naming the field, the value and what is
 * allowed ("phase.mix[2].bs: 3000 is not a multiple of the 512-byte sector
 * of /dev/sdb (direct=true)"). A target given as an option table is created
 * only once the whole phase has passed.
 */
#include <errno.h>
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "hist.h"
#include "lua_api.h"
#include "lua_int.h"
#include "lua_phase.h"
#include "phase.h"
#include "protect.h"
#include "target.h"
#include "units.h"
#include "verify.h"

#define PHASE_MAX_BUFFERS (8ull << 30)

/* ---- phase tables ---- */

static lua_Integer phases_run;     /* names "phase N" */

static int progress_on;
static char progress_label[64];   /* e.g. "3/18": the phase's place in a suite */
static double progress_after_s;   /* seconds of the suite after this phase */

/* The live line on a terminal, as fio's status line: phase, time, rates, ETA. */
static void progress_cb(void *ctx, const struct phase_progress *p)
{
	char where[96];
	double left = (p->total_s > p->elapsed_s ? p->total_s - p->elapsed_s : 0) + progress_after_s;

	(void)ctx;
	snprintf(where, sizeof(where), "%s%s%s", progress_label[0] ? progress_label : "", progress_label[0] ? " " : "",
		 p->name);
	if (p->ramping)
		fprintf(stderr, "\r\033[K[%s] ramp %.1f/%.1f s", where, p->elapsed_s, p->total_s);
	else if (p->total_s > 0)
		fprintf(stderr, "\r\033[K[%s] %.1f/%.1f s  %.0f IOPS  %.1f MB/s  [eta %.0f s]", where, p->elapsed_s,
			p->total_s, p->iops, p->mb_per_s, left);
	else
		fprintf(stderr, "\r\033[K[%s] %.1f s  %.0f IOPS  %.1f MB/s  %llu I/Os", where, p->elapsed_s, p->iops,
			p->mb_per_s, (unsigned long long)p->ios);
}

static void parse_bs(lua_State *L, int idx, struct wl_spec *s, const char *field)
{
	char f[160];

	if (!lua_istable(L, idx)) {
		s->nbs = 1;
		s->bs[0].bytes = api_check_size(L, idx, field);
		s->bs[0].cum = WL_ONE;
		return;
	}
	{
		lua_Integer n = api_check_list(L, idx, field);
		double sum = 0, cum = 0;
		int weighted = -1;

		if (n < 1 || n > WL_MAX_BS)
			api_input_error(L, "%s: a list of %lld sizes (give 1 to %d sizes, or {size, weight %%} pairs)", field,
				    (long long)n, WL_MAX_BS);
		s->nbs = (unsigned)n;
		double w[WL_MAX_BS];
		for (lua_Integer i = 1; i <= n; i++) {
			int pair;

			lua_rawgeti(L, idx, i);
			pair = lua_istable(L, -1);
			if (weighted >= 0 && weighted != pair)
				api_input_error(L, "%s: mixes plain sizes and {size, weight} pairs (use one form)", field);
			weighted = pair;
			snprintf(f, sizeof(f), "%s[%lld]", field, (long long)i);
			if (pair) {
				lua_rawgeti(L, -1, 1);
				s->bs[i - 1].bytes = api_check_size(L, -1, f);
				lua_rawgeti(L, -2, 2);
				snprintf(f, sizeof(f), "%s[%lld] weight", field, (long long)i);
				w[i - 1] = api_check_pct(L, -1, f);
				lua_pop(L, 2);
			} else {
				s->bs[i - 1].bytes = api_check_size(L, -1, f);
				w[i - 1] = 100.0 / (double)n;
			}
			sum += w[i - 1];
			lua_pop(L, 1);
		}
		if (weighted && fabs(sum - 100) > 1e-6)
			api_input_error(L, "%s: weights sum to %g %% (they must sum to 100)", field, sum);
		for (unsigned i = 0; i < s->nbs; i++) {
			cum += w[i];
			s->bs[i].cum = i + 1 == s->nbs ? WL_ONE : (uint64_t)(cum / 100.0 * (double)WL_ONE);
		}
	}
}

static const char *const spec_keys[] = { "bs", "read", "random", "align", "weight", "name", "region", NULL };

/* One access spec from table idx; *weight gets its weight or -1. */
static void parse_spec(lua_State *L, int idx, struct wl_spec *s, double *weight, const char *field, int shorthand)
{
	char f[160];
	uint64_t min_bs = UINT64_MAX;

	idx = lua_absindex(L, idx);
	if (!shorthand)
		api_check_keys(L, idx, field, spec_keys);
	snprintf(f, sizeof(f), "%s%sbs", field, shorthand ? "" : ".");
	if (lua_getfield(L, idx, "bs") == LUA_TNIL)
		api_input_error(L, "%s: missing (a block size such as \"4k\", or a list of sizes)", f);
	parse_bs(L, -1, s, f);
	lua_pop(L, 1);
	for (unsigned i = 0; i < s->nbs; i++) {
		snprintf(f, sizeof(f), "%s%sbs", field, shorthand ? "" : ".");
		if (s->bs[i].bytes == 0)
			api_input_error(L, "%s: 0 bytes (a block size must be above zero)", f);
		if (s->bs[i].bytes > PHASE_MAX_BS) {
			char max[32];

			units_format_size(PHASE_MAX_BS, max, sizeof(max));
			api_input_error(L, "%s: %llu bytes is larger than the largest block size, %s", f,
				    (unsigned long long)s->bs[i].bytes, max);
		}
		if (s->bs[i].bytes < min_bs)
			min_bs = s->bs[i].bytes;
	}
	s->read_thr = WL_ONE;
	snprintf(f, sizeof(f), "%s%sread", field, shorthand ? "" : ".");
	if (lua_getfield(L, idx, "read") != LUA_TNIL)
		s->read_thr = (uint64_t)(api_check_pct(L, -1, f) / 100.0 * (double)WL_ONE);
	snprintf(f, sizeof(f), "%s%srandom", field, shorthand ? "" : ".");
	if (lua_getfield(L, idx, "random") != LUA_TNIL)
		s->random_thr = (uint64_t)(api_check_pct(L, -1, f) / 100.0 * (double)WL_ONE);
	s->align = min_bs;
	snprintf(f, sizeof(f), "%s%salign", field, shorthand ? "" : ".");
	if (lua_getfield(L, idx, "align") != LUA_TNIL) {
		s->align = api_check_size(L, -1, f);
		if (!s->align)
			api_input_error(L, "%s: 0 bytes (an alignment must be above zero)", f);
	}
	*weight = -1;
	snprintf(f, sizeof(f), "%s%sweight", field, shorthand ? "" : ".");
	if (lua_getfield(L, idx, "weight") != LUA_TNIL)
		*weight = api_check_pct(L, -1, f);
	lua_pop(L, 4);
	if (shorthand)
		return; /* phase.region is the phase's own */
	snprintf(f, sizeof(f), "%s.region", field);
	switch (lua_getfield(L, idx, "region")) {
	case LUA_TNIL:
		break;
	case LUA_TTABLE: {
		char g[200];

		api_check_keys(L, lua_absindex(L, -1), f, (const char *const[]){ "offset", "size", NULL });
		snprintf(g, sizeof(g), "%s.offset", f);
		if (lua_getfield(L, -1, "offset") != LUA_TNIL)
			s->region_off = api_check_size(L, -1, g);
		snprintf(g, sizeof(g), "%s.size", f);
		if (lua_getfield(L, -2, "size") == LUA_TNIL)
			api_input_error(L, "%s: missing (a spec's region needs its size)", g);
		s->region_len = api_check_size(L, -1, g);
		if (!s->region_len)
			api_input_error(L, "%s: 0 bytes (give a size above zero)", g);
		lua_pop(L, 2);
		break;
	}
	default:
		s->region_len = api_check_size(L, -1, f);
		if (!s->region_len)
			api_input_error(L, "%s: 0 bytes (give a size above zero)", f);
	}
	lua_pop(L, 1);
}

static void parse_mix(lua_State *L, int phase, struct workload *wl)
{
	double w[WL_MAX_SPECS], sum = 0, cum = 0;
	int t = lua_getfield(L, phase, "mix");
	int has_short = lua_getfield(L, phase, "bs") != LUA_TNIL;

	lua_pop(L, 1);
	if (t == LUA_TNIL) {
		if (!has_short)
			api_input_error(L, "phase.mix: missing (a list of access specs {bs=, read=, random=, weight=}, or bs= on the phase)");
		wl->nspecs = 1;
		parse_spec(L, phase, &wl->spec[0], &w[0], "phase.", 1);
		wl->spec[0].cum = WL_ONE;
		lua_pop(L, 1);
		return;
	}
	if (has_short)
		api_input_error(L, "phase.bs: given with phase.mix (put bs, read and random in the mix's specs)");
	if (t != LUA_TTABLE)
		api_input_error(L, "phase.mix: a %s is not a list of access specs", luaL_typename(L, -1));
	if (lua_getfield(L, -1, "bs") != LUA_TNIL) { /* one spec, not a list */
		lua_pop(L, 1);
		wl->nspecs = 1;
		parse_spec(L, -1, &wl->spec[0], &w[0], "phase.mix", 0);
		if (w[0] >= 0 && fabs(w[0] - 100) > 1e-6)
			api_input_error(L, "phase.mix.weight: %g %% for the only spec (it must be 100, or left out)", w[0]);
		wl->spec[0].cum = WL_ONE;
		lua_pop(L, 1);
		return;
	}
	lua_pop(L, 1);
	{
		lua_Integer n = api_check_list(L, -1, "phase.mix");
		int given = 0;

		if (n < 1 || n > WL_MAX_SPECS)
			api_input_error(L, "phase.mix: %lld access specs (give 1 to %d)", (long long)n, WL_MAX_SPECS);
		api_check_keys(L, lua_absindex(L, -1), "phase.mix", (const char *const[]){ "[list]", NULL });
		wl->nspecs = (unsigned)n;
		for (lua_Integer i = 1; i <= n; i++) {
			char f[64];

			snprintf(f, sizeof(f), "phase.mix[%lld]", (long long)i);
			if (lua_rawgeti(L, -1, i) != LUA_TTABLE)
				api_input_error(L, "%s: a %s is not an access spec {bs=, read=, random=, weight=}", f,
					    luaL_typename(L, -1));
			parse_spec(L, -1, &wl->spec[i - 1], &w[i - 1], f, 0);
			lua_pop(L, 1);
			if (w[i - 1] >= 0)
				given++;
		}
		if (n == 1 && !given)
			w[0] = 100;
		else if (given != n)
			api_input_error(L, "phase.mix: %d of %lld specs have a weight (with several specs, give each a weight %%; they sum to 100)",
				    given, (long long)n);
		for (unsigned i = 0; i < wl->nspecs; i++)
			sum += w[i];
		if (fabs(sum - 100) > 1e-6)
			api_input_error(L, "phase.mix: weights sum to %g %% (they must sum to 100)", sum);
		for (unsigned i = 0; i < wl->nspecs; i++) {
			cum += w[i];
			wl->spec[i].cum = i + 1 == wl->nspecs ? WL_ONE : (uint64_t)(cum / 100.0 * (double)WL_ONE);
		}
	}
	lua_pop(L, 1);
}

static void parse_dist(lua_State *L, const char *s, struct workload *wl)
{
	char *end;

	if (!strcmp(s, "uniform") || !strcmp(s, "random")) {
		wl->dist = DIST_UNIFORM;
	} else if (!strncmp(s, "zipf:", 5)) {
		wl->dist = DIST_ZIPF;
		wl->dist_arg = strtod(s + 5, &end);
		if (*end || end == s + 5 || !(wl->dist_arg > 0) || wl->dist_arg == 1 || wl->dist_arg > 100)
			api_input_error(L, "phase.dist: '%s': zipf's theta must be a number above 0 and not 1 (e.g. \"zipf:1.2\")", s);
	} else if (!strncmp(s, "pareto:", 7)) {
		wl->dist = DIST_PARETO;
		wl->dist_arg = strtod(s + 7, &end);
		if (*end || end == s + 7 || !(wl->dist_arg > 0 && wl->dist_arg < 1))
			api_input_error(L, "phase.dist: '%s': pareto's h must be between 0 and 1 (e.g. \"pareto:0.9\")", s);
	} else if (!strncmp(s, "normal:", 7)) {
		wl->dist = DIST_NORMAL;
		wl->dist_arg = strtod(s + 7, &end);
		if (*end || end == s + 7 || !(wl->dist_arg > 0 && wl->dist_arg <= 100))
			api_input_error(L, "phase.dist: '%s': normal's deviation is a %% of the region, above 0 and at most 100 (e.g. \"normal:20\")", s);
	} else if (!strncmp(s, "zoned:", 6)) {
		const char *p = s + 6;
		double acc = 0, reg = 0;

		wl->dist = DIST_ZONED;
		wl->nzones = 0;
		while (*p) {
			double a, r;

			if (wl->nzones == WL_MAX_ZONES)
				api_input_error(L, "phase.dist: '%s' has more than %d zones", s, WL_MAX_ZONES);
			a = strtod(p, &end);
			if (end == p || *end != '/')
				api_input_error(L, "phase.dist: '%s': a zone is access%%/region%% (e.g. \"zoned:60/10:30/20:10/70\")", s);
			p = end + 1;
			r = strtod(p, &end);
			if (end == p || (*end && *end != ':') || !(a >= 0) || !(r > 0))
				api_input_error(L, "phase.dist: '%s': a zone is access%%/region%% with region%% above 0 (e.g. \"zoned:60/10:30/20:10/70\")", s);
			p = *end ? end + 1 : end;
			acc += a;
			reg += r;
			wl->zone[wl->nzones].cum = (uint64_t)(acc / 100.0 * (double)WL_ONE);
			wl->zone[wl->nzones].region_pct = r;
			wl->nzones++;
		}
		if (!wl->nzones || fabs(acc - 100) > 1e-6 || fabs(reg - 100) > 1e-6)
			api_input_error(L, "phase.dist: '%s': access shares sum to %g %% and region shares to %g %% (both must sum to 100)", s, acc, reg);
		wl->zone[wl->nzones - 1].cum = WL_ONE;
	} else {
		api_input_error(L, "phase.dist: '%s' is not a distribution (allowed: \"uniform\", \"zipf:THETA\", \"pareto:H\", \"normal:DEV%%\", \"zoned:A/R:A/R...\")", s);
	}
}

static const char *arrival_name(lua_State *L, int idx, const char *field, int *poisson)
{
	const char *a;

	if (lua_isnil(L, idx)) {
		*poisson = 0;
		return "fixed";
	}
	a = lua_tostring(L, idx);
	if (!a || (strcmp(a, "fixed") && strcmp(a, "poisson")))
		api_input_error(L, "%s: '%s' is not an arrival process (allowed: \"fixed\", \"poisson\")", field,
			    a ? a : luaL_typename(L, idx));
	*poisson = !strcmp(a, "poisson");
	return a;
}

static void parse_pacing(lua_State *L, int phase, struct run_state *rs)
{
	struct pace *p = &rs->pace;
	int has_rate = lua_getfield(L, phase, "rate") != LUA_TNIL;
	int has_sched = lua_getfield(L, phase, "schedule") != LUA_TNIL;
	int has_think = lua_getfield(L, phase, "think") != LUA_TNIL;

	if (has_rate && has_sched)
		api_input_error(L, "phase.rate: given with phase.schedule (a schedule sets the rate of each segment)");
	if (has_think && (has_rate || has_sched))
		api_input_error(L, "phase.think: given with a rate or schedule (think time paces closed loops; rate paces open loops)");
	if (has_rate) {
		double iops = 0;
		int poisson = 0;

		if (lua_type(L, -3) == LUA_TNUMBER) {
			iops = lua_tonumber(L, -3);
		} else if (lua_istable(L, -3)) {
			api_check_keys(L, lua_absindex(L, -3), "phase.rate", (const char *const[]){ "iops", "arrival", NULL });
			lua_getfield(L, -3, "iops");
			if (lua_type(L, -1) != LUA_TNUMBER)
				api_input_error(L, "phase.rate.iops: missing or not a number (I/Os per second for the whole phase)");
			iops = lua_tonumber(L, -1);
			lua_getfield(L, -4, "arrival");
			arrival_name(L, -1, "phase.rate.arrival", &poisson);
			lua_pop(L, 2);
		} else {
			api_input_error(L, "phase.rate: a %s is not a rate (give {iops=N, arrival=\"fixed\"|\"poisson\"} or N)",
				    luaL_typename(L, -3));
		}
		if (!(iops > 0 && iops <= 1e9))
			api_input_error(L, "phase.rate.iops: %g is not a rate (above 0, at most 1e9 I/Os per second)", iops);
		p->nseg = 1;
		p->seg[0] = (struct pace_seg){ .end_ns = UINT64_MAX, .iops = iops, .poisson = poisson };
	}
	if (has_sched) {
		lua_Integer n;
		uint64_t at = 0;

		if (!lua_istable(L, -2))
			api_input_error(L, "phase.schedule: a %s is not a list of {duration=, iops=} segments", luaL_typename(L, -2));
		n = api_check_list(L, -2, "phase.schedule");
		if (n < 1 || n > WL_MAX_SEGMENTS)
			api_input_error(L, "phase.schedule: %lld segments (give 1 to %d)", (long long)n, WL_MAX_SEGMENTS);
		for (lua_Integer i = 1; i <= n; i++) {
			char f[80];
			int poisson;
			double iops;

			snprintf(f, sizeof(f), "phase.schedule[%lld]", (long long)i);
			if (lua_rawgeti(L, -2, i) != LUA_TTABLE)
				api_input_error(L, "%s: a %s is not a segment {duration=, iops=}", f, luaL_typename(L, -1));
			api_check_keys(L, lua_absindex(L, -1), f, (const char *const[]){ "duration", "iops", "arrival", NULL });
			snprintf(f, sizeof(f), "phase.schedule[%lld].duration", (long long)i);
			lua_getfield(L, -1, "duration");
			if (lua_isnil(L, -1))
				api_input_error(L, "%s: missing", f);
			at += api_check_duration(L, -1, f);
			snprintf(f, sizeof(f), "phase.schedule[%lld].iops", (long long)i);
			lua_getfield(L, -2, "iops");
			if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0 && lua_tonumber(L, -1) <= 1e9))
				api_input_error(L, "%s: must be a number from 0 (idle) to 1e9 I/Os per second", f);
			iops = lua_tonumber(L, -1);
			snprintf(f, sizeof(f), "phase.schedule[%lld].arrival", (long long)i);
			lua_getfield(L, -3, "arrival");
			arrival_name(L, -1, f, &poisson);
			p->seg[i - 1] = (struct pace_seg){ .end_ns = at, .iops = iops, .poisson = poisson };
			lua_pop(L, 4);
		}
		p->nseg = (unsigned)n;
		if (!rs->sp.duration_ns)
			rs->sp.duration_ns = at;
	}
	if (has_think) {
		int t = lua_type(L, -1);

		if (t == LUA_TNUMBER || t == LUA_TSTRING) {
			p->think = THINK_FIXED;
			p->think_a_ns = api_check_duration(L, -1, "phase.think");
		} else if (t == LUA_TTABLE) {
			int kinds = 0;

			api_check_keys(L, lua_absindex(L, -1), "phase.think",
				   (const char *const[]){ "fixed", "uniform", "exponential", "burst", "delay", NULL });
			if (lua_getfield(L, -1, "fixed") != LUA_TNIL) {
				p->think = THINK_FIXED;
				p->think_a_ns = api_check_duration(L, -1, "phase.think.fixed");
				kinds++;
			}
			if (lua_getfield(L, -2, "exponential") != LUA_TNIL) {
				p->think = THINK_EXP;
				p->think_a_ns = api_check_duration(L, -1, "phase.think.exponential");
				kinds++;
			}
			if (lua_getfield(L, -3, "uniform") != LUA_TNIL) {
				if (!lua_istable(L, -1) || lua_rawlen(L, -1) != 2)
					api_input_error(L, "phase.think.uniform: give {min, max} durations, e.g. {\"1ms\", \"5ms\"}");
				p->think = THINK_UNIFORM;
				lua_rawgeti(L, -1, 1);
				p->think_a_ns = api_check_duration(L, -1, "phase.think.uniform[1]");
				lua_rawgeti(L, -2, 2);
				p->think_b_ns = api_check_duration(L, -1, "phase.think.uniform[2]");
				if (p->think_b_ns < p->think_a_ns)
					api_input_error(L, "phase.think.uniform: max is below min");
				lua_pop(L, 2);
				kinds++;
			}
			if (kinds > 1)
				api_input_error(L, "phase.think: give one of fixed, uniform or exponential");
			if (lua_getfield(L, -4, "burst") != LUA_TNIL) {
				p->burst = (uint32_t)api_check_int(L, -1, "phase.think.burst", 1, 1000000000);
				lua_getfield(L, -5, "delay");
				if (lua_isnil(L, -1))
					api_input_error(L, "phase.think.delay: missing (the idle time after each burst, e.g. \"10ms\")");
				p->burst_delay_ns = api_check_duration(L, -1, "phase.think.delay");
				lua_pop(L, 1);
			} else {
				lua_getfield(L, -5, "delay");
				if (!lua_isnil(L, -1))
					api_input_error(L, "phase.think.delay: given without burst (the delay follows each burst of N I/Os)");
				lua_pop(L, 1);
				if (!kinds)
					api_input_error(L, "phase.think: empty (give fixed=, uniform=, exponential=, or burst= with delay=)");
			}
			lua_pop(L, 4);
		} else {
			api_input_error(L, "phase.think: a %s is not a think time (give a duration, or a table)", luaL_typename(L, -1));
		}
	}
	lua_pop(L, 3);
}

/* Refuse a phase whose sizes are not whole units of the data (why says
 * which target and unit): a read smaller than a unit cannot check it. */
static void unit_refused(lua_State *L, const struct workload *wl, const char *why)
{
	for (unsigned i = 0; i < wl->nspecs; i++)
		for (unsigned j = 0; j < wl->spec[i].nbs; j++)
			if (wl->spec[i].bs[j].bytes % 4096)
				api_input_error(L, "phase.bs: %llu, but the data to verify was written in %s; a read "
						"must cover whole units to check them (give a multiple of the unit)",
						(unsigned long long)wl->spec[i].bs[j].bytes, why);
	api_input_error(L, "phase.region: the offset or alignment is not in whole units, but the data to verify "
			"was written in %s (give multiples of the unit)", why);
}

/* Each existing target's generation map (a file this phase creates gets
 * its map in the workers): the unit of data already written with
 * verification is the phase's, when its sizes allow. */
static void attach_gen_maps(lua_State *L, struct phase_spec *sp, int four_k)
{
	char why[512];
	uint64_t probe = UINT64_MAX; /* a phase that only writes reads no header */
	int mode = 0;

	for (unsigned i = 0; i < sp->wl->nspecs; i++) {
		if (sp->wl->spec[i].read_thr)
			probe = sp->region_off;
		mode |= sp->wl->spec[i].read_thr ? GENMAP_READS : 0;
		mode |= sp->wl->spec[i].read_thr < WL_ONE ? GENMAP_WRITES : 0;
	}
	if ((mode & GENMAP_WRITES) && genmap_dir_check(why, sizeof(why)))
		api_input_error(L, "%s", why);
	genmap_collect(); /* every target of this phase attaches again below */
	for (int pass = 0; pass < 2; pass++)
		for (unsigned t = 0; t < sp->ntargets; t++) {
			uint32_t unit = sp->verify_unit;
			int rc;

			sp->targets[t]->gmap = NULL;
			if (!sp->targets[t]->exists)
				continue;
			rc = genmap_attach(sp->targets[t], &unit, four_k, 0, probe, mode, why, sizeof(why));
			if (rc == -2)
				unit_refused(L, sp->wl, why);
			if (rc == -3)
				api_input_error(L, "%s", why);
			if (rc == 0 && pass && unit != sp->verify_unit)
				api_input_error(L, "phase.target: the targets hold data verified in different unit sizes "
						"(verify them in separate phases)");
			if (rc < 0)
				api_raise_error(L, IOMOON_RUN_ERROR, why);
			sp->verify_unit = unit;
		}
}

/* verify_only, and the unit crc32c verification works in */
static void parse_verify(lua_State *L, int phase, struct run_state *rs)
{
	struct phase_spec *sp = &rs->sp;
	int four_k = sp->region_off % 4096 == 0;

	if (lua_getfield(L, phase, "verify_only") != LUA_TNIL && api_check_bool(L, -1, "phase.verify_only")) {
		if (sp->verify == VERIFY_NONE)
			api_input_error(L, "phase.verify_only: needs verify = \"crc32c\" (or \"offset\")");
		/* read the whole region back, in order */
		for (unsigned i = 0; i < rs->wl.nspecs; i++) {
			rs->wl.spec[i].read_thr = WL_ONE;
			rs->wl.spec[i].random_thr = 0;
		}
		if (!sp->bytes && !sp->ios && !lua_isnil(L, -1)) {
			uint64_t len = phase_region_len(sp, 0);

			for (unsigned t = 1; t < sp->ntargets; t++)
				if (phase_region_len(sp, t) < len)
					len = phase_region_len(sp, t);
			sp->bytes = len * sp->ntargets; /* each target's region once, its workers a slice each */
			sp->duration_ns = 0;
		}
	}
	lua_pop(L, 1);
	if (sp->verify != VERIFY_CRC)
		return;
	for (unsigned i = 0; i < rs->wl.nspecs; i++) {
		const struct wl_spec *w = &rs->wl.spec[i];

		for (unsigned j = 0; j < w->nbs; j++) {
			if (w->bs[j].bytes % 512)
				api_input_error(L, "phase.verify: crc32c verifies whole 512-byte units; block size %llu is not one",
						(unsigned long long)w->bs[j].bytes);
			four_k = four_k && w->bs[j].bytes % 4096 == 0;
		}
		if (w->align % 512 || (w->region_len && w->region_off % 512))
			api_input_error(L, "phase.verify: crc32c verifies whole 512-byte units; spec %u's alignment or region is not in them",
					i + 1);
		four_k = four_k && w->align % 4096 == 0 && (!w->region_len || w->region_off % 4096 == 0);
	}
	if (sp->region_off % 512)
		api_input_error(L, "phase.verify: crc32c verifies whole 512-byte units; the region's offset is not one");
	sp->verify_unit = four_k ? 4096 : 512;
	attach_gen_maps(L, sp, four_k);
	{
		char why[512];

		if (phase_check_slices(sp, why, sizeof(why)))
			api_input_error(L, "%s", why);
	}
}

/* sqpoll, iopoll, defer_taskrun: io_uring's own features, checked here so a
 * refusal is an input error that says why, not a failed run. */
static void parse_uring_options(lua_State *L, int phase, struct phase_spec *sp)
{
	static const struct { const char *name; unsigned flag; } opts[] = {
		{ "sqpoll", ENGINE_SQPOLL }, { "iopoll", ENGINE_IOPOLL }, { "defer_taskrun", ENGINE_DEFER_TASKRUN },
	};

	for (unsigned i = 0; i < 3; i++) {
		char f[32];

		snprintf(f, sizeof(f), "phase.%s", opts[i].name);
		if (lua_getfield(L, phase, opts[i].name) != LUA_TNIL && api_check_bool(L, -1, f)) {
			if (sp->engine != &engine_uring)
				api_input_error(L, "%s: an io_uring feature, asked of engine %s (set engine=\"io_uring\")", f,
						sp->engine->name);
			sp->engine_flags |= opts[i].flag;
		}
		lua_pop(L, 1);
	}
	if ((sp->engine_flags & ENGINE_SQPOLL) && (sp->engine_flags & ENGINE_DEFER_TASKRUN))
		api_input_error(L, "phase.defer_taskrun: not with sqpoll (the poll thread runs completions itself)");
	if (sp->engine_flags & ENGINE_IOPOLL) {
		if (!sp->direct)
			api_input_error(L, "phase.iopoll: needs direct=true (polled I/O bypasses the page cache)");
		for (unsigned t = 0; t < sp->ntargets; t++) {
			char dev[64];
			int polls = target_polls(sp->targets[t], dev, sizeof(dev));

			if (polls == 0)
				api_input_error(L, "phase.iopoll: %s is on %s, which does not do polled I/O (its queue/io_poll is 0; "
						"an NVMe drive needs poll queues: nvme.poll_queues)", sp->targets[t]->path, dev);
		}
	}
}

static const char *const phase_keys[] = {
	"name", "target", "engine", "direct", "workers", "qd", "mix", "bs", "read", "random", "align",
	"region", "ramp", "duration", "ios", "bytes", "rate", "think", "schedule", "dist", "pattern",
	"verify", "seed", "interval", "on_error", "trace", "sim_latency", "meta", "batch", "sqpoll", "iopoll",
	"defer_taskrun", "verify_only", NULL,
};

static int run_interrupted;

/* One element of phase.target: a target, an option table, or a path. The
 * userdata for an option table or path is left on the stack (anchored). */
/* A target may not be one of the run's own files (iomoon.protect). */
static void check_protected(lua_State *L, const char *path, const char *what)
{
	const char *is = path ? protect_find(path) : NULL;

	if (is)
		api_input_error(L, "%s: %s is %s of this run; it cannot also be a target", what, path, is);
}

static void parse_one_target(lua_State *L, int idx, struct run_state *rs, unsigned i, const char *what)
{
	struct target_opts *o = &rs->pending[i];
	char why[512];
	int rc;

	idx = lua_absindex(L, idx);
	if (luaL_testudata(L, idx, TARGET_MT)) {
		rs->sp.targets[i] = api_check_target(L, idx);
		check_protected(L, rs->sp.targets[i]->path, what);
		return;
	}
	if (lua_type(L, idx) == LUA_TSTRING) { /* a path: use it as it is */
		*o = (struct target_opts){ .what = what, .path = lua_tostring(L, idx), .create = 0, .fill = FILL_NONE };
	} else if (lua_istable(L, idx)) {
		api_target_opts(L, idx, o, what);
		lua_pop(L, 1); /* the path string: the phase table keeps it alive */
	} else {
		api_input_error(L, "%s: a %s is not a target (give iomoon.target{...}, {path=, size=}, or a path)", what,
			    luaL_typename(L, idx));
	}
	check_protected(L, o->path, what);
	rs->sp.targets[i] = api_new_target(L);
	rs->is_pending[i] = 1;
	rc = target_inspect(rs->sp.targets[i], o, why, sizeof(why));
	if (rc == -2)
		api_input_error(L, "%s", why);
	if (rc < 0)
		api_raise_error(L, IOMOON_RUN_ERROR, why);
}

/* The engines that do no I/O (null, sim) run without a target: on a
 * nominal region of phase.region's size (default 1 GiB) that is nowhere. */
static int nominal_target(lua_State *L, int phase, struct run_state *rs)
{
	const char *e;
	struct target *t;
	uint64_t size = 1ull << 30;

	lua_getfield(L, phase, "engine");
	e = lua_tostring(L, -1);
	lua_pop(L, 1);
	if (!e || (strcmp(e, "null") && strcmp(e, "sim")))
		return 0;
	if (lua_getfield(L, phase, "verify") != LUA_TNIL && lua_toboolean(L, -1))
		api_input_error(L, "phase.verify: engine %s without a target has no data to verify (give a target)", e);
	lua_pop(L, 1);
	switch (lua_getfield(L, phase, "region")) {
	case LUA_TNIL:
		break;
	case LUA_TTABLE:
		if (lua_getfield(L, -1, "size") != LUA_TNIL)
			size = api_check_size(L, -1, "phase.region.size");
		if (lua_getfield(L, -2, "offset") != LUA_TNIL)
			size += api_check_size(L, -1, "phase.region.offset");
		lua_pop(L, 2);
		break;
	default:
		size = api_check_size(L, -1, "phase.region");
	}
	lua_pop(L, 1);
	t = api_new_target(L); /* anchored on the stack, as parsed targets are */
	t->path = strdup("(none)");
	if (!t->path)
		api_raise_error(L, IOMOON_RUN_ERROR, "out of memory");
	t->kind = TARGET_NONE;
	t->size = size ? size : 1;
	t->sector = t->mem_align = 512;
	t->exists = t->ours = 1;
	rs->sp.targets[0] = t;
	rs->sp.ntargets = 1;
	return 1;
}

static void parse_targets(lua_State *L, int phase, struct run_state *rs)
{
	int t = lua_getfield(L, phase, "target");
	int list = t == LUA_TTABLE && lua_getfield(L, -1, "path") == LUA_TNIL;

	if (t == LUA_TTABLE)
		lua_pop(L, 1);
	if (t == LUA_TNIL && nominal_target(L, phase, rs))
		return;
	if (t == LUA_TNIL)
		api_input_error(L, "phase.target: missing (give iomoon.target{...}, {path=, size=}, a path, or a list; "
				"engines null and sim need none)");
	if (!list) {
		rs->sp.ntargets = 1;
		parse_one_target(L, -1, rs, 0, "phase.target");
		return;
	}
	{
		lua_Integer n = api_check_list(L, -1, "phase.target");
		int list_idx = lua_absindex(L, -1);

		if (n < 1 || n > PHASE_MAX_TARGETS)
			api_input_error(L, "phase.target: a list of %lld targets (give 1 to %d)", (long long)n, PHASE_MAX_TARGETS);
		luaL_checkstack(L, (int)n + 8, "targets");
		for (lua_Integer i = 1; i <= n; i++) {
			char what[48];

			snprintf(what, sizeof(what), "phase.target[%lld]", (long long)i);
			lua_rawgeti(L, list_idx, i);
			parse_one_target(L, -1, rs, (unsigned)(i - 1), what);
		}
		rs->sp.ntargets = (unsigned)n;
	}
	/* the targets and their anchors stay on the stack: they outlive the run */
}

/* Create what the phase's option-table targets ask for; on failure, take
 * back what this call created. */
static void materialize_targets(lua_State *L, struct run_state *rs)
{
	for (unsigned i = 0; i < rs->sp.ntargets; i++) {
		char why[512];
		int rc;

		if (!rs->is_pending[i])
			continue;
		rc = target_materialize(rs->sp.targets[i], &rs->pending[i], why, sizeof(why));
		if (rc < 0) {
			for (unsigned j = 0; j <= i; j++)
				if (rs->is_pending[j])
					target_unlink_created(rs->sp.targets[j]);
			if (rc == -2)
				api_input_error(L, "%s", why);
			api_raise_error(L, IOMOON_RUN_ERROR, why);
		}
	}
}

/* Direct I/O alignment and region bounds, for every target. */
static void check_geometry(lua_State *L, struct run_state *rs)
{
	struct phase_spec *sp = &rs->sp;
	const struct workload *wl = &rs->wl;

	for (unsigned t = 0; t < sp->ntargets; t++) {
		const struct target *tg = sp->targets[t];
		uint64_t len = sp->region_len ? sp->region_len : (tg->size > sp->region_off ? tg->size - sp->region_off : 0);

		if (sp->region_off + len > tg->size || sp->region_off >= tg->size)
			api_input_error(L, "phase.region: offset %llu + size %llu runs past the end of %s (%llu bytes)",
				    (unsigned long long)sp->region_off, (unsigned long long)len, tg->path,
				    (unsigned long long)tg->size);
		if (sp->direct && sp->region_off % tg->sector)
			api_input_error(L, "phase.region.offset: %llu is not a multiple of the %u-byte sector of %s (direct=true)",
				    (unsigned long long)sp->region_off, tg->sector, tg->path);
		for (unsigned i = 0; i < wl->nspecs; i++) {
			const struct wl_spec *s = &wl->spec[i];
			char f[48];

			if (wl->nspecs > 1)
				snprintf(f, sizeof(f), "phase.mix[%u].", i + 1);
			else
				snprintf(f, sizeof(f), "phase.");
			for (unsigned j = 0; j < s->nbs; j++) {
				if (!s->region_len && s->bs[j].bytes > len)
					api_input_error(L, "%sbs: %llu bytes is larger than the region (%llu bytes of %s)", f,
						    (unsigned long long)s->bs[j].bytes, (unsigned long long)len, tg->path);
				if (sp->direct && s->bs[j].bytes % tg->sector)
					api_input_error(L, "%sbs: %llu is not a multiple of the %u-byte sector of %s (direct=true)", f,
						    (unsigned long long)s->bs[j].bytes, tg->sector, tg->path);
			}
			if (sp->direct && s->align % tg->sector)
				api_input_error(L, "%salign: %llu is not a multiple of the %u-byte sector of %s (direct=true)", f,
					    (unsigned long long)s->align, tg->sector, tg->path);
			if (s->region_len) {
				if (s->region_off + s->region_len > tg->size)
					api_input_error(L, "%sregion: offset %llu + size %llu runs past the end of %s (%llu bytes)", f,
						    (unsigned long long)s->region_off, (unsigned long long)s->region_len,
						    tg->path, (unsigned long long)tg->size);
				if (sp->direct && s->region_off % tg->sector)
					api_input_error(L, "%sregion.offset: %llu is not a multiple of the %u-byte sector of %s (direct=true)",
						    f, (unsigned long long)s->region_off, tg->sector, tg->path);
				for (unsigned j = 0; j < s->nbs; j++)
					if (s->bs[j].bytes > s->region_len)
						api_input_error(L, "%sbs: %llu bytes is larger than the spec's region (%llu bytes)", f,
							    (unsigned long long)s->bs[j].bytes, (unsigned long long)s->region_len);
			}
		}
	}
}

/* Every zone of a zoned distribution holds a block on every target. */
static void check_zones(lua_State *L, struct run_state *rs)
{
	struct phase_spec *sp = &rs->sp;

	if (rs->wl.dist != DIST_ZONED)
		return;
	for (unsigned t = 0; t < sp->ntargets; t++) {
		struct workload w = rs->wl;
		char why[256];

		w.region_off = sp->region_off;
		w.region_len = phase_region_len(sp, t);
		if (wl_prepare(&w, why, sizeof(why)) < 0)
			api_input_error(L, "phase.%s on %s", why, sp->targets[t]->path);
	}
}

/* Refuse engine name s, listing the engines of engine.c's table. */
static void unknown_engine(lua_State *L, const char *s)
{
	const struct engine_ops *const *e = engine_all();
	char names[256] = "auto";
	size_t n = strlen(names);

	for (unsigned i = 0; e[i] && n < sizeof(names); i++)
		n += snprintf(names + n, sizeof(names) - n, ", %s", e[i]->name);
	api_input_error(L, "phase.engine: '%s' is not an engine (allowed: %s)", s, names);
}

/* name, engine, direct, workers, qd, batch. */
static void parse_basics(lua_State *L, int phase, struct run_state *rs)
{
	struct phase_spec *sp = &rs->sp;
	char why[512] = "";
	const char *s;

	lua_getfield(L, phase, "name");
	if (lua_isnil(L, -1)) {
		snprintf(rs->name, sizeof(rs->name), "phase %lld", (long long)phases_run + 1);
	} else {
		size_t len;

		if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
			api_input_error(L, "phase.name: a %s is not a name (give a string)", luaL_typename(L, -1));
		if (strlen(lua_tolstring(L, -1, &len)) != len)
			api_input_error(L, "phase.name: holds a NUL byte (every report would cut the name there)");
		if (len >= sizeof(rs->name))
			api_input_error(L, "phase.name: %zu bytes (at most %zu)", len, sizeof(rs->name) - 1);
		snprintf(rs->name, sizeof(rs->name), "%s", lua_tostring(L, -1));
	}
	lua_pop(L, 1);
	sp->name = rs->name;

	lua_getfield(L, phase, "engine");
	s = lua_isnil(L, -1) ? "auto" : lua_tostring(L, -1);
	if (!s)
		api_input_error(L, "phase.engine: a %s is not an engine name", luaL_typename(L, -1));
	sp->engine = strcmp(s, "auto") ? engine_find(s) : engine_auto();
	if (!sp->engine)
		unknown_engine(L, s);
	if (strcmp(s, "auto") && sp->engine->probe(why, sizeof(why)))
		api_input_error(L, "phase.engine: %s does not work on this kernel: %s", s, why);
	lua_pop(L, 1);

	sp->direct = 1;
	if (lua_getfield(L, phase, "direct") != LUA_TNIL)
		sp->direct = api_check_bool(L, -1, "phase.direct");
	sp->workers = sp->ntargets;
	if (lua_getfield(L, phase, "workers") != LUA_TNIL)
		sp->workers = (unsigned)api_check_int(L, -1, "phase.workers", 1, PHASE_MAX_WORKERS);
	if (sp->workers < sp->ntargets)
		api_input_error(L, "phase.workers: %u is fewer than the %u targets (each target needs a worker)",
				sp->workers, sp->ntargets);
	sp->qd = 1;
	if (lua_getfield(L, phase, "qd") != LUA_TNIL)
		sp->qd = (unsigned)api_check_int(L, -1, "phase.qd", 1, PHASE_MAX_QD);
	sp->batch = 1;
	if (lua_getfield(L, phase, "batch") != LUA_TNIL)
		sp->batch = (unsigned)api_check_int(L, -1, "phase.batch", 1, sp->qd);
	lua_pop(L, 1);
	if (sp->engine->sync && sp->qd > 1)
		api_input_error(L, "phase.qd: %u with engine %s, which does one I/O at a time (use qd=1 and more workers, or engine io_uring or libaio)",
				sp->qd, sp->engine->name);
	lua_pop(L, 3);
}

/* region, ramp, duration, ios, bytes, then the pacing fields. */
static void parse_window(lua_State *L, int phase, struct run_state *rs)
{
	struct phase_spec *sp = &rs->sp;

	switch (lua_getfield(L, phase, "region")) {
	case LUA_TNIL:
		break;
	case LUA_TTABLE:
		api_check_keys(L, lua_absindex(L, -1), "phase.region", (const char *const[]){ "offset", "size", NULL });
		if (lua_getfield(L, -1, "offset") != LUA_TNIL)
			sp->region_off = api_check_size(L, -1, "phase.region.offset");
		if (lua_getfield(L, -2, "size") != LUA_TNIL) {
			sp->region_len = api_check_size(L, -1, "phase.region.size");
			if (!sp->region_len)
				api_input_error(L, "phase.region.size: 0 bytes (give a size above zero, or leave it out for the whole target)");
		}
		lua_pop(L, 2);
		break;
	default:
		sp->region_len = api_check_size(L, -1, "phase.region");
		if (!sp->region_len)
			api_input_error(L, "phase.region: 0 bytes (give a size above zero, or leave it out for the whole target)");
	}
	lua_pop(L, 1);
	check_geometry(L, rs);

	if (lua_getfield(L, phase, "ramp") != LUA_TNIL)
		sp->ramp_ns = api_check_duration(L, -1, "phase.ramp");
	if (lua_getfield(L, phase, "duration") != LUA_TNIL) {
		sp->duration_ns = api_check_duration(L, -1, "phase.duration");
		if (!sp->duration_ns)
			api_input_error(L, "phase.duration: 0 (give a duration above zero, e.g. \"10s\")");
	}
	if (lua_getfield(L, phase, "ios") != LUA_TNIL)
		sp->ios = (uint64_t)api_check_int(L, -1, "phase.ios", 1, INT64_MAX);
	if (lua_getfield(L, phase, "bytes") != LUA_TNIL) {
		uint64_t least = wl_min_bs(&rs->wl);

		sp->bytes = api_check_size(L, -1, "phase.bytes");
		if (sp->bytes < least)
			api_input_error(L, "phase.bytes: %llu is less than one I/O of %llu bytes (the quota counts whole I/Os; "
					"give at least one block)", (unsigned long long)sp->bytes, (unsigned long long)least);
	}
	lua_pop(L, 4);
	parse_pacing(L, phase, rs);
	if (!sp->duration_ns && !sp->ios && !sp->bytes)
		sp->duration_ns = 10000000000ull; /* 10 s, when nothing else ends the phase */
}

/* dist, pattern, verify's kind, seed, interval, on_error, trace, sim_latency. */
static void parse_options(lua_State *L, int phase, struct run_state *rs)
{
	struct phase_spec *sp = &rs->sp;
	const char *s;

	rs->wl.dist = DIST_UNIFORM;
	snprintf(rs->dist, sizeof(rs->dist), "uniform");
	if (lua_getfield(L, phase, "dist") != LUA_TNIL) {
		if (lua_type(L, -1) != LUA_TSTRING)
			api_input_error(L, "phase.dist: a %s is not a distribution (e.g. \"zipf:1.2\")", luaL_typename(L, -1));
		parse_dist(L, lua_tostring(L, -1), &rs->wl);
		snprintf(rs->dist, sizeof(rs->dist), "%s", lua_tostring(L, -1));
		check_zones(L, rs);
	}
	sp->pattern = PATTERN_RANDOM;
	if (lua_getfield(L, phase, "pattern") != LUA_TNIL) {
		s = lua_tostring(L, -1);
		if (!s || (strcmp(s, "random") && strcmp(s, "zero") && strcmp(s, "offset")))
			api_input_error(L, "phase.pattern: '%s' is not a data pattern (allowed: \"random\", \"zero\", \"offset\")",
					s ? s : luaL_typename(L, -1));
		sp->pattern = !strcmp(s, "zero") ? PATTERN_ZERO : !strcmp(s, "offset") ? PATTERN_OFFSET : PATTERN_RANDOM;
	}
	if (lua_getfield(L, phase, "verify") != LUA_TNIL && lua_toboolean(L, -1)) {
		s = lua_tostring(L, -1);
		if (s && !strcmp(s, "offset")) {
			sp->verify = VERIFY_OFFSET;
			sp->pattern = PATTERN_OFFSET;
		} else if (s && !strcmp(s, "crc32c")) {
			sp->verify = VERIFY_CRC;
		} else {
			api_input_error(L, "phase.verify: '%s' is not a verification (allowed: \"crc32c\", or \"offset\" "
					"for the \"offset\" pattern)", s ? s : luaL_typename(L, -1));
		}
	}
	sp->seed = 1;
	if (lua_getfield(L, phase, "seed") != LUA_TNIL)
		sp->seed = (uint64_t)api_check_int(L, -1, "phase.seed", 0, INT64_MAX);
	sp->interval_ns = 1000000000ull;
	if (lua_getfield(L, phase, "interval") != LUA_TNIL) {
		sp->interval_ns = api_check_duration(L, -1, "phase.interval");
		if (sp->interval_ns < 10000000ull)
			api_input_error(L, "phase.interval: %s is shorter than 10 ms (the shortest sampling interval)",
					lua_tostring(L, -1));
	}
	if (lua_getfield(L, phase, "on_error") != LUA_TNIL) {
		s = lua_tostring(L, -1);
		if (!s || (strcmp(s, "stop") && strcmp(s, "continue")))
			api_input_error(L, "phase.on_error: '%s' is not allowed (\"stop\" or \"continue\")",
					s ? s : luaL_typename(L, -1));
		sp->on_error_continue = !strcmp(s, "continue");
	}
	if (lua_getfield(L, phase, "trace") != LUA_TNIL)
		sp->trace_max = (uint64_t)api_check_int(L, -1, "phase.trace", 0, 100000000);
	sp->sim_latency_ns = 100000;
	if (lua_getfield(L, phase, "sim_latency") != LUA_TNIL) {
		if (sp->engine != &engine_sim)
			api_input_error(L, "phase.sim_latency: given for engine %s (it sets the service time of engine \"sim\")",
					sp->engine->name);
		sp->sim_latency_ns = api_check_duration(L, -1, "phase.sim_latency");
	}
	lua_pop(L, 8);
}

/* Buffers within bounds, and write permission on every target if the mix
 * writes. */
static void check_limits(lua_State *L, struct run_state *rs)
{
	struct phase_spec *sp = &rs->sp;
	uint64_t per = wl_max_bs(&rs->wl) * sp->qd;

	if ((double)per * sp->workers > (double)PHASE_MAX_BUFFERS)
		api_input_error(L, "phase: qd %u x bs %llu x workers %u needs %.1f GiB of buffers (at most 8 GiB)", sp->qd,
				(unsigned long long)wl_max_bs(&rs->wl), sp->workers, (double)per * sp->workers / 1073741824.0);
	for (unsigned i = 0; i < rs->wl.nspecs; i++) {
		if (rs->wl.spec[i].read_thr >= WL_ONE)
			continue;
		/* the mix writes: may it, to every target? */
		for (unsigned t = 0; t < sp->ntargets; t++) {
			char w[1400];

			if (target_may_write(sp->targets[t], w, sizeof(w)) < 0)
				api_input_error(L, "%s", w);
		}
		break;
	}
}

/* Parse and check the whole phase table at index 1. Nothing is created,
 * opened for writing or filled: a wrong field raises an input error. The
 * run_state is left at index 2, the targets above it. */
static struct run_state *check_phase(lua_State *L)
{
	struct run_state *rs;
	struct phase_spec *sp;
	const int phase = 1;

	if (!lua_istable(L, 1))
		api_input_error(L, "iomoon.run: expects a phase table, got a %s", luaL_typename(L, 1));
	lua_settop(L, 1);
	api_check_keys(L, phase, "phase", phase_keys);
	rs = lua_newuserdatauv(L, sizeof(*rs), 0); /* index 2 */
	memset(rs, 0, sizeof(*rs));
	sp = &rs->sp;
	sp->wl = &rs->wl;
	sp->pace = &rs->pace;

	parse_targets(L, phase, rs);
	parse_basics(L, phase, rs);
	parse_mix(L, phase, &rs->wl);
	parse_window(L, phase, rs);
	parse_options(L, phase, rs);
	parse_uring_options(L, phase, sp);
	parse_verify(L, phase, rs);
	if (lua_getfield(L, phase, "meta") != LUA_TNIL && !lua_istable(L, -1))
		api_input_error(L, "phase.meta: a %s is not a table (give a table of your own fields)", luaL_typename(L, -1));
	lua_pop(L, 1);
	check_limits(L, rs);
	return rs;
}

/* iomoon.check(phase): every check iomoon.run makes, touching nothing.
 * Returns true or raises the input error run would raise. */
int api_check(lua_State *L)
{
	check_phase(L);
	lua_pushboolean(L, 1);
	return 1;
}

/* A phase that ran to its end and completed no I/O measured nothing: a
 * failure, not a zero. */
static void fail_if_idle(struct phase_result *res)
{
	const struct counters *c = &res->total;

	if (res->interrupted || res->failed || c->op[0].lat.count + c->op[1].lat.count ||
	    c->op[0].errors + c->op[1].errors)
		return;
	res->failed = 1;
	snprintf(res->error, sizeof(res->error),
		 "no I/O completed in the measured time (shorter than one I/O's service time, "
		 "or than one gap of the rate asked, or than the set-up of this many workers and slots)");
}

/* iomoon.run(phase): check the phase (input errors), create what its
 * option-table targets ask for, run it, and return the result table. */
int api_run(lua_State *L)
{
	struct run_state *rs;
	struct phase_spec *sp;
	struct phase_result res;
	char why[512] = "";
	int rc;

	if (run_interrupted || phase_interrupt) /* a stop asked between phases too */
		return api_raise_error(L, IOMOON_RUN_ERROR, "interrupted");
	rs = check_phase(L);
	sp = &rs->sp;
	if (progress_on && isatty(2))
		sp->progress = progress_cb;
	materialize_targets(L, rs);
	rc = phase_run(sp, &res, why, sizeof(why));
	if (sp->progress)
		fprintf(stderr, "\r\033[K");
	if (rc == -2) {
		/* refused at open (e.g. no O_DIRECT here): leave no file behind */
		for (unsigned i = 0; i < sp->ntargets; i++)
			if (rs->is_pending[i])
				target_unlink_created(sp->targets[i]);
		return api_input_error(L, "%s", why);
	}
	if (rc < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, why);
	if (res.interrupted)
		run_interrupted = 1;
	fail_if_idle(&res);
	api_push_result(L, rs, &res);
	phase_result_free(&res);
	/* meta: the caller's own table (checked above), carried into the result */
	lua_getfield(L, 1, "meta");
	lua_setfield(L, -2, "meta");
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

