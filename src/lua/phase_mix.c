/* phase_mix.c - what a phase does: its access specs (phase.mix, or bs=,
 * read=, random=, align= on the phase) and the distribution of offsets
 * (phase.dist), read into the run_state's workload. */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "lua/lua_int.h"
#include "lua/phase_read.h"

void phase_cumulate(const double *w, unsigned n, uint64_t *cum, size_t stride)
{
	double sum = 0;

	for (unsigned i = 0; i < n; i++) {
		sum += w[i];
		*(uint64_t *)((char *)cum + i * stride) = i + 1 == n ? WL_ONE : (uint64_t)(sum / 100.0 * (double)WL_ONE);
	}
}

/* One block size, or a list of sizes (equal shares) or {size, weight %}. */
static void read_bs(lua_State *L, int v, struct wl_spec *s, const char *field)
{
	char f[192]; /* field (under 160 bytes) and "[N] weight" */
	double w[WL_MAX_BS], sum = 0;
	int weighted = -1;
	lua_Integer n;

	if (!lua_istable(L, v)) {
		s->nbs = 1;
		s->bs[0] = (struct wl_bs){ .bytes = api_check_size(L, v, field), .cum = WL_ONE };
		return;
	}
	n = api_check_list(L, v, field);
	if (n < 1 || n > WL_MAX_BS)
		api_input_error(L, "%s: a list of %lld sizes (give 1 to %d sizes, or {size, weight %%} pairs)", field,
				(long long)n, WL_MAX_BS);
	s->nbs = (unsigned)n;
	for (lua_Integer i = 1; i <= n; i++) {
		int pair = lua_rawgeti(L, v, i) == LUA_TTABLE;

		if (weighted >= 0 && weighted != pair)
			api_input_error(L, "%s: mixes plain sizes and {size, weight} pairs (use one form)", field);
		weighted = pair;
		snprintf(f, sizeof(f), "%s[%lld]", field, (long long)i);
		if (pair)
			lua_rawgeti(L, -1, 1);
		s->bs[i - 1].bytes = api_check_size(L, -1, f);
		w[i - 1] = 100.0 / (double)n;
		if (pair) {
			snprintf(f, sizeof(f), "%s[%lld] weight", field, (long long)i);
			lua_rawgeti(L, -2, 2);
			w[i - 1] = api_check_pct(L, -1, f);
			lua_pop(L, 2);
		}
		sum += w[i - 1];
		lua_pop(L, 1);
	}
	if (weighted && fabs(sum - 100) > 1e-6)
		api_input_error(L, "%s: weights sum to %g %% (they must sum to 100)", field, sum);
	phase_cumulate(w, s->nbs, &s->bs[0].cum, sizeof(s->bs[0]));
}

/* The block sizes of s: above zero, at most PHASE_MAX_BS; the smallest. */
static uint64_t check_sizes(lua_State *L, const struct wl_spec *s, const char *f)
{
	uint64_t min_bs = UINT64_MAX;

	for (unsigned i = 0; i < s->nbs; i++) {
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
	return min_bs;
}

static const char *const spec_keys[] = { "bs", "read", "trim", "random", "align", "skip", "weight", "name", "region",
					   NULL };

/* spec.skip: bytes moved past the end of each I/O of the spec's sequential
 * stream, a size (a number or "112k"), "-8k" or a negative number back. */
static int64_t read_skip(lua_State *L, int t, const char *prefix)
{
	char f[160];
	int64_t v = 0;

	snprintf(f, sizeof(f), "%sskip", prefix);
	if (lua_getfield(L, t, "skip") == LUA_TNUMBER && lua_tonumber(L, -1) < 0) {
		lua_pushnumber(L, -lua_tonumber(L, -1));
		v = -(int64_t)api_check_size(L, -1, f);
		lua_pop(L, 1);
	} else if (lua_type(L, -1) == LUA_TSTRING && lua_tostring(L, -1)[0] == '-') {
		lua_pushstring(L, lua_tostring(L, -1) + 1);
		v = -(int64_t)api_check_size(L, -1, f);
		lua_pop(L, 1);
	} else if (!lua_isnil(L, -1)) {
		v = (int64_t)api_check_size(L, -1, f);
	}
	lua_pop(L, 1);
	if (v > (1ll << 60) || v < -(1ll << 60))
		api_input_error(L, "%s: %lld bytes is past 1 EiB (give a step within the region)", f, (long long)v);
	return v;
}

/* An access spec's name (for result.specs): a string without NUL bytes
 * or control characters, under 64 bytes. */
static void read_spec_name(lua_State *L, int t, char *name, const char *prefix)
{
	char f[160];
	size_t len = 0;
	const char *s;

	snprintf(f, sizeof(f), "%sname", prefix);
	name[0] = 0;
	if (lua_getfield(L, t, "name") == LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
	if (!s || !len || len >= 64 || strlen(s) != len)
		api_input_error(L, "%s: give a name of 1 to 63 bytes (a string, no NUL byte)", f);
	memcpy(name, s, len + 1);
	lua_pop(L, 1);
}

/* One access spec from table t; *weight gets its weight or -1. prefix:
 * "phase.mix[2]." or, for the shorthand on the phase itself, "phase.". */
static void read_spec(lua_State *L, int t, struct wl_spec *s, double *weight, const char *prefix, int shorthand)
{
	char f[160];

	if (!shorthand) {
		snprintf(f, sizeof(f), "%.*s", (int)strlen(prefix) - 1, prefix);
		api_check_keys(L, t, f, spec_keys);
	}
	snprintf(f, sizeof(f), "%sbs", prefix);
	if (lua_getfield(L, t, "bs") == LUA_TNIL)
		api_input_error(L, "%s: missing (a block size such as \"4k\", or a list of sizes)", f);
	read_bs(L, lua_gettop(L), s, f);
	s->align = check_sizes(L, s, f);
	s->read_thr = WL_ONE;
	snprintf(f, sizeof(f), "%sread", prefix);
	if (lua_getfield(L, t, "read") != LUA_TNIL)
		s->read_thr = (uint64_t)(api_check_share(L, -1, f) / 100.0 * (double)WL_ONE);
	s->trim_thr = 0;
	snprintf(f, sizeof(f), "%strim", prefix);
	if (lua_getfield(L, t, "trim") != LUA_TNIL) {
		double trim = api_check_share(L, -1, f), read = (double)s->read_thr / (double)WL_ONE * 100.0;

		if (read + trim > 100.0 + 1e-9)
			api_input_error(L, "%s: %g %% with %g %% reads is over 100 %% (reads, trims and writes share 100)",
					f, trim, read);
		s->trim_thr = (uint64_t)(trim / 100.0 * (double)WL_ONE);
		if (s->trim_thr > WL_ONE - s->read_thr)
			s->trim_thr = WL_ONE - s->read_thr;
	}
	snprintf(f, sizeof(f), "%srandom", prefix);
	if (lua_getfield(L, t, "random") != LUA_TNIL)
		s->random_thr = (uint64_t)(api_check_share(L, -1, f) / 100.0 * (double)WL_ONE);
	snprintf(f, sizeof(f), "%salign", prefix);
	if (lua_getfield(L, t, "align") != LUA_TNIL && !(s->align = api_check_size(L, -1, f)))
		api_input_error(L, "%s: 0 bytes (an alignment must be above zero)", f);
	*weight = -1;
	snprintf(f, sizeof(f), "%sweight", prefix);
	if (!shorthand && lua_getfield(L, t, "weight") != LUA_TNIL)
		*weight = api_check_pct(L, -1, f);
	lua_pop(L, shorthand ? 5 : 6);
	s->skip = read_skip(L, t, prefix);
	if (shorthand)
		return; /* phase.region is the phase's own */
	snprintf(f, sizeof(f), "%sregion", prefix);
	lua_getfield(L, t, "region");
	phase_read_region(L, lua_gettop(L), f, &s->region_off, &s->region_len, 1);
	lua_pop(L, 1);
}

/* phase.mix as a list of specs, each with a weight (one may go without). */
static void read_spec_list(lua_State *L, int v, struct workload *wl, char (*names)[64], const char *field)
{
	double w[WL_MAX_SPECS], sum = 0;
	lua_Integer n = api_check_list(L, v, field);
	int given = 0;

	if (n < 1 || n > WL_MAX_SPECS)
		api_input_error(L, "%s: %lld access specs (give 1 to %d)", field, (long long)n, WL_MAX_SPECS);
	wl->nspecs = (unsigned)n;
	for (lua_Integer i = 1; i <= n; i++) {
		char f[64];

		snprintf(f, sizeof(f), "%s[%lld]", field, (long long)i);
		if (lua_rawgeti(L, v, i) != LUA_TTABLE)
			api_input_error(L, "%s: a %s is not an access spec {bs=, read=, random=, weight=}", f,
					luaL_typename(L, -1));
		snprintf(f, sizeof(f), "%s[%lld].", field, (long long)i);
		read_spec(L, lua_gettop(L), &wl->spec[i - 1], &w[i - 1], f, 0);
		read_spec_name(L, lua_gettop(L), names[i - 1], f);
		for (lua_Integer j = 1; names[i - 1][0] && j < i; j++)
			if (!strcmp(names[i - 1], names[j - 1]))
				api_input_error(L, "%sname: '%s' is also the name of %s[%lld] (each spec's figures go under "
						"its own name)", f, names[i - 1], field, (long long)j);
		lua_pop(L, 1);
		given += w[i - 1] >= 0;
		sum += w[i - 1] >= 0 ? w[i - 1] : 0;
	}
	if (n == 1 && !given)
		w[0] = sum = 100;
	else if (given != n)
		api_input_error(L, "%s: %d of %lld specs have a weight (with several specs, give each a weight %%; they sum to 100)",
				field, given, (long long)n);
	if (fabs(sum - 100) > 1e-6)
		api_input_error(L, "%s: weights sum to %g %% (they must sum to 100)", field, sum);
	phase_cumulate(w, wl->nspecs, &wl->spec[0].cum, sizeof(wl->spec[0]));
}

/* phase.mix: a list of specs, one spec, or (absent) bs= and the rest on
 * the phase itself. */
void read_mix(lua_State *L, int v, struct run_state *rs, const char *field)
{
	struct workload *wl = &rs->wl;
	int has_short = phase_given(rs, "bs");
	double w;

	if (lua_isnil(L, v) && !has_short && (phase_given(rs, "streams") || phase_given(rs, "replay")))
		return; /* each stream gives its own; a replay's is its trace's (replay_prepare) */
	if (lua_isnil(L, v) && !has_short)
		api_input_error(L, "%s: missing (a list of access specs {bs=, read=, random=, weight=}, or bs= on the %s)",
				field, rs->nstreams || strchr(rs->path, '[') ? "stream" : "phase");
	for (unsigned i = 0; !lua_isnil(L, v) && spec_keys[i]; i++)
		if (strcmp(spec_keys[i], "weight") && strcmp(spec_keys[i], "name") && strcmp(spec_keys[i], "region") &&
		    phase_given(rs, spec_keys[i]))
			api_input_error(L, "%s.%s: given with %s (put bs, read, trim, random, align and skip in the mix's specs)",
					rs->path, spec_keys[i], field);
	if (!lua_isnil(L, v) && !lua_istable(L, v))
		api_input_error(L, "%s: a %s is not a list of access specs", field, luaL_typename(L, v));
	wl->nspecs = 1;
	wl->spec[0].cum = WL_ONE;
	memset(rs->spec_name, 0, sizeof(rs->spec_name));
	if (lua_isnil(L, v)) {
		char prefix[40];

		snprintf(prefix, sizeof(prefix), "%s.", rs->path);
		read_spec(L, rs->table, &wl->spec[0], &w, prefix, 1);
	} else if (lua_getfield(L, v, "bs") != LUA_TNIL) { /* one spec, not a list */
		char f[64];

		snprintf(f, sizeof(f), "%s.", field);
		read_spec(L, v, &wl->spec[0], &w, f, 0);
		read_spec_name(L, v, rs->spec_name[0], f);
		if (w >= 0 && fabs(w - 100) > 1e-6)
			api_input_error(L, "%s.weight: %g %% for the only spec (it must be 100, or left out)", field, w);
	} else {
		read_spec_list(L, v, wl, rs->spec_name, field);
	}
	if (!lua_isnil(L, v))
		lua_pop(L, 1);
	rs->sp.per_spec = 0;
	for (unsigned i = 0; i < wl->nspecs; i++)
		rs->sp.per_spec |= rs->spec_name[i][0] != 0;
}

/* sequence:I,J,... (or sequence_stride:): the block indices random I/Os
 * take in turn, 1 to WL_MAX_SEQ of them (fio's random_distribution=
 * sequence, and random_sequence_stride=1 for the strided form). */
static void read_sequence(lua_State *L, const char *s, struct workload *wl, const char *field)
{
	const char *p = strchr(s, ':') + 1;
	char *end;

	wl->dist = DIST_SEQUENCE;
	wl->seq_stride = s[8] == '_';
	wl->seq_n = 0;
	for (;;) {
		unsigned long long i = strtoull(p, &end, 10);

		if (end == p || *p == '-' || wl->seq_n == WL_MAX_SEQ || (*end && *end != ','))
			api_input_error(L, "%s: '%s': give 1 to %d block indices (whole numbers from 0) separated by commas",
					field, s, WL_MAX_SEQ);
		wl->seq_idx[wl->seq_n++] = i;
		if (!*end)
			return;
		p = end + 1;
	}
}

/* zoned:A/R:A/R...: access % over region %, both summing to 100. */
static void read_zones(lua_State *L, const char *s, struct workload *wl, const char *field)
{
	const char *p = s + 6;
	double acc = 0, reg = 0;
	char *end;

	wl->nzones = 0;
	while (*p) {
		double a, r;

		if (wl->nzones == WL_MAX_ZONES)
			api_input_error(L, "%s: '%s' has more than %d zones", field, s, WL_MAX_ZONES);
		a = strtod(p, &end);
		if (end == p || *end != '/')
			api_input_error(L, "%s: '%s': a zone is access%%/region%% (e.g. \"zoned:60/10:30/20:10/70\")", field, s);
		p = end + 1;
		r = strtod(p, &end);
		if (end == p || (*end && *end != ':') || !(a >= 0) || !(r > 0))
			api_input_error(L, "%s: '%s': a zone is access%%/region%% with region%% above 0 (e.g. \"zoned:60/10:30/20:10/70\")",
					field, s);
		p = *end ? end + 1 : end;
		acc += a;
		reg += r;
		wl->zone[wl->nzones].cum = (uint64_t)(acc / 100.0 * (double)WL_ONE);
		wl->zone[wl->nzones++].region_pct = r;
	}
	if (!wl->nzones || fabs(acc - 100) > 1e-6 || fabs(reg - 100) > 1e-6)
		api_input_error(L, "%s: '%s': access shares sum to %g %% and region shares to %g %% (both must sum to 100)",
				field, s, acc, reg);
	wl->zone[wl->nzones - 1].cum = WL_ONE;
}

/* The skewed distributions with one number: name, its range, an example. */
static const struct {
	const char *prefix;
	enum wl_dist dist;
	double lo, hi;      /* the argument is > lo and <= hi (< hi for pareto) */
	const char *rule;
} skews[] = {
	{ "zipf:", DIST_ZIPF, 0, 100, "zipf's theta must be a number above 0 and not 1 (e.g. \"zipf:1.2\")" },
	{ "pareto:", DIST_PARETO, 0, 1, "pareto's h must be between 0 and 1 (e.g. \"pareto:0.9\")" },
	{ "normal:", DIST_NORMAL, 0, 100,
	  "normal's deviation is a % of the region, above 0 and at most 100 (e.g. \"normal:20\")" },
};

/* dist: "uniform", "zipf:THETA", "pareto:H", "normal:DEV%", "zoned:A/R:..." */
void read_dist(lua_State *L, int v, struct run_state *rs, const char *field)
{
	struct workload *wl = &rs->wl;
	const char *s;
	char *end;

	wl->dist = DIST_UNIFORM;
	snprintf(rs->dist, sizeof(rs->dist), "uniform");
	if (lua_isnil(L, v))
		return;
	if (lua_type(L, v) != LUA_TSTRING)
		api_input_error(L, "%s: a %s is not a distribution (e.g. \"zipf:1.2\")", field, luaL_typename(L, v));
	s = lua_tostring(L, v);
	snprintf(rs->dist, sizeof(rs->dist), "%s", s);
	if (!strcmp(s, "uniform") || !strcmp(s, "random"))
		return;
	if (!strncmp(s, "sequence:", 9) || !strncmp(s, "sequence_stride:", 16)) {
		read_sequence(L, s, wl, field);
		return;
	}
	if (!strncmp(s, "zoned:", 6)) {
		wl->dist = DIST_ZONED;
		read_zones(L, s, wl, field);
		return;
	}
	for (unsigned i = 0; i < sizeof(skews) / sizeof(skews[0]); i++) {
		size_t n = strlen(skews[i].prefix);
		double a;

		if (strncmp(s, skews[i].prefix, n))
			continue;
		a = strtod(s + n, &end);
		if (*end || end == s + n || !(a > skews[i].lo && a <= skews[i].hi) ||
		    (skews[i].dist == DIST_ZIPF && a == 1) || (skews[i].dist == DIST_PARETO && a == 1))
			api_input_error(L, "%s: '%s': %s", field, s, skews[i].rule);
		wl->dist = skews[i].dist;
		wl->dist_arg = a;
		return;
	}
	api_input_error(L, "%s: '%s' is not a distribution (allowed: \"uniform\", \"zipf:THETA\", \"pareto:H\", "
			"\"normal:DEV%%\", \"zoned:A/R:A/R...\", \"sequence:I,J,...\")", field, s);
}
