/* lua_trace_profile.c - iomoon.trace.profile: what a trace does, summed up
 * (trace_profile.c computes, this file makes the table doc/replay.md
 * lists). It also makes iomoon.trace.to_phase and print_profile, written
 * in Lua (lua/iomoon/trace.lua), reachable from the iomoon.trace table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/shown.h"
#include "lua/lua_int.h"
#include "lua/lua_trace.h"
#include "run/workload.h"
#include "trace/trace_profile.h"

_Static_assert(TP_MAX_ZONES <= WL_MAX_ZONES && TP_MAX_BUCKETS <= WL_MAX_SEGMENTS,
	       "a profile suggests what a phase can take");

static const char *const op_name[OP_NTYPES] = { "read", "write", "trim", "sync" };

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* {{bytes=, pct=}, ...} most common first, as a field k, and k_other_pct. */
static void push_sizes(lua_State *L, const struct tp_sizes *s, const char *k)
{
	char f[64];

	lua_createtable(L, (int)s->n, 0);
	for (unsigned i = 0; i < s->n; i++) {
		lua_createtable(L, 0, 2);
		api_set_int(L, "bytes", s->size[i].bytes);
		api_set_num(L, "pct", pct(s->size[i].n, s->total));
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, k);
	snprintf(f, sizeof(f), "%s_other_pct", k);
	api_set_num(L, f, pct(s->other, s->total));
}

/* The counts every level shares: n, iops, op shares, bytes, sequential
 * share, touched extent. */
static void push_counts(lua_State *L, const struct tp_counts *c)
{
	uint64_t data = c->n - c->n_op[OP_SYNC], seq = c->seq_op[OP_READ] + c->seq_op[OP_WRITE] + c->seq_op[OP_TRIM];
	double span = (double)(c->last_ns - c->first_ns) / 1e9;
	char f[32];

	api_set_int(L, "n", c->n);
	api_set_num(L, "span_s", span);
	api_set_num(L, "iops", span > 0 ? (double)(c->n - 1) / span : 0);
	for (unsigned op = 0; op < OP_NTYPES; op++) {
		snprintf(f, sizeof(f), "%s_pct", op_name[op]);
		api_set_num(L, f, pct(c->n_op[op], c->n));
		snprintf(f, sizeof(f), "%ss", op_name[op]);
		api_set_int(L, f, c->n_op[op]);
	}
	api_set_int(L, "bytes_read", c->bytes_op[OP_READ]);
	api_set_int(L, "bytes_written", c->bytes_op[OP_WRITE]);
	api_set_int(L, "bytes_trimmed", c->bytes_op[OP_TRIM]);
	api_set_num(L, "seq_pct", pct(seq, data));
	for (unsigned op = 0; op < OP_NDATA; op++) {
		snprintf(f, sizeof(f), "%s_seq_pct", op_name[op]);
		api_set_num(L, f, pct(c->seq_op[op], c->n_op[op]));
	}
	api_set_int(L, "offset_min_bytes", data ? c->lo : 0);
	api_set_int(L, "offset_end_bytes", data ? c->hi : 0);
	api_set_int(L, "extent_bytes", data ? c->hi - c->lo : 0);
}

/* The sequential runs found, and the most in progress at once (per op). */
static void push_runs(lua_State *L, const struct ts_counts *c)
{
	char f[32];

	api_set_int(L, "seq_runs", c->runs);
	api_set_int(L, "seq_streams", c->streams);
	for (unsigned op = 0; op < OP_NDATA; op++) {
		snprintf(f, sizeof(f), "%s_seq_streams", op_name[op]);
		api_set_int(L, f, c->streams_op[op]);
	}
}

/* A list of counts per bucket as IOPS, as field k. */
static void push_series(lua_State *L, const struct trace_profile *p, const uint64_t *bucket, const char *k)
{
	lua_createtable(L, (int)p->nbuckets, 0);
	for (unsigned b = 0; b < p->nbuckets; b++) {
		lua_pushnumber(L, p->bucket_s > 0 ? (double)bucket[b] / p->bucket_s : 0);
		lua_rawseti(L, -2, b + 1);
	}
	lua_setfield(L, -2, k);
}

/* One significant stream's sizes: {{bytes=, pct=}, ...} most common first. */
static void push_stream_sizes(lua_State *L, const struct ts_group *g)
{
	unsigned order[TS_GROUP_SIZES], n = g->nsizes;

	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	for (unsigned i = 1; i < n; i++) /* insertion sort, most first; ties: first seen first */
		for (unsigned j = i; j > 0 && g->size_n[order[j]] > g->size_n[order[j - 1]]; j--) {
			unsigned x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	lua_createtable(L, (int)n, 0);
	for (unsigned i = 0; i < n; i++) {
		lua_createtable(L, 0, 2);
		api_set_int(L, "bytes", g->size[order[i]]);
		api_set_num(L, "pct", pct(g->size_n[order[i]], g->ios));
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "bs");
	api_set_num(L, "bs_other_pct", pct(g->size_other, g->ios));
}

static void push_stream(lua_State *L, const struct trace *t, const struct trace_profile *p, const struct tp_stream *s)
{
	const struct ts_group *g = &s->g;
	uint64_t data = p->all.n - p->all.n_op[OP_SYNC];
	double mean = g->gaps ? g->gap_sum_ns / (double)g->gaps : 0;
	double var = g->gaps ? g->gap_sq_ns / (double)g->gaps - mean * mean : 0;
	double cv = mean > 0 && var > 0 ? sqrt(var) / mean : 0;
	char f[32];

	lua_createtable(L, 0, 32);
	lua_pushstring(L, g->dev < t->ndevs ? t->devs[g->dev] : "");
	lua_setfield(L, -2, "device");
	lua_pushstring(L, op_name[g->op]);
	lua_setfield(L, -2, "op");
	api_set_int(L, "ios", g->ios);
	api_set_num(L, "pct", pct(g->ios, data));
	for (unsigned op = 0; op < OP_NDATA; op++) {
		snprintf(f, sizeof(f), "%ss", op_name[op]);
		api_set_int(L, f, g->n_op[op]);
		snprintf(f, sizeof(f), "%s_pct", op_name[op]);
		api_set_num(L, f, pct(g->n_op[op], g->ios));
	}
	api_set_int(L, "bytes_read", g->bytes_op[OP_READ]);
	api_set_int(L, "bytes_written", g->bytes_op[OP_WRITE]);
	api_set_int(L, "bytes_trimmed", g->bytes_op[OP_TRIM]);
	push_stream_sizes(L, g);
	api_set_int(L, "runs", g->runs);
	api_set_num(L, "ios_per_run", g->runs ? (double)g->ios / (double)g->runs : 0);
	api_set_int(L, "concurrent", g->concurrent);
	api_set_int(L, "offset_min_bytes", g->lo);
	api_set_int(L, "offset_end_bytes", g->hi);
	api_set_int(L, "extent_bytes", g->hi - g->lo);
	api_set_num(L, "first_s", (double)(g->first_ns - p->all.first_ns) / 1e9);
	api_set_num(L, "last_s", (double)(g->last_ns - p->all.first_ns) / 1e9);
	api_set_num(L, "iops", p->span_s > 0 ? (double)g->ios / p->span_s : 0);
	api_set_int(L, "syncs", g->syncs);
	api_set_num(L, "writes_per_sync", g->syncs ? (double)g->n_op[OP_WRITE] / (double)g->syncs : 0);
	lua_createtable(L, 0, 3);
	api_set_int(L, "n", g->gaps);
	api_set_num(L, "mean_ns", mean);
	api_set_num(L, "cv", cv);
	lua_setfield(L, -2, "gap");
	lua_pushstring(L, !g->gaps || cv < 0.5 ? "fixed" : cv < 2 ? "poisson" : "bursty");
	lua_setfield(L, -2, "arrival");
	push_series(L, p, s->bucket, "iops_over_time");
}

/* streams: the significant sequential streams; random: everything else. */
static void push_streams(lua_State *L, const struct trace *t, const struct trace_profile *p)
{
	lua_createtable(L, (int)p->nstreams, 0);
	for (unsigned i = 0; i < p->nstreams; i++) {
		push_stream(L, t, p, &p->stream[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "streams");
	lua_createtable(L, 0, 40);
	push_counts(L, &p->random);
	push_sizes(L, &p->random_sizes_all, "bs");
	for (unsigned op = 0; op < OP_NDATA; op++) {
		char k[16];

		snprintf(k, sizeof(k), "%s_bs", op_name[op]);
		push_sizes(L, &p->random_sizes_op[op], k);
	}
	push_series(L, p, p->random_bucket, "iops_over_time");
	lua_setfield(L, -2, "random");
}

static void push_gaps(lua_State *L, const struct trace_profile *p)
{
	lua_createtable(L, 0, 6);
	api_set_int(L, "n", p->gaps);
	api_set_num(L, "mean_ns", p->gap_mean_ns);
	api_set_num(L, "cv", p->gap_cv);
	api_set_int(L, "p50_ns", p->gap_p50_ns);
	api_set_int(L, "p99_ns", p->gap_p99_ns);
	api_set_int(L, "max_ns", p->gap_max_ns);
	lua_setfield(L, -2, "gap");
	lua_pushstring(L, p->arrival);
	lua_setfield(L, -2, "arrival");
}

static void push_timeline(lua_State *L, const struct trace_profile *p)
{
	push_series(L, p, p->bucket, "iops_over_time");
	api_set_num(L, "interval_s", p->bucket_s);
}

static void push_hot(lua_State *L, const struct trace_profile *p)
{
	lua_pushstring(L, p->zoned);
	lua_setfield(L, -2, "dist");
	lua_createtable(L, 0, 5);
	lua_pushstring(L, p->zoned);
	lua_setfield(L, -2, "dist");
	lua_createtable(L, (int)p->nzones, 0);
	for (unsigned z = 0; z < p->nzones; z++) {
		lua_createtable(L, 0, 2);
		api_set_num(L, "access_pct", p->zone[z].access_pct);
		api_set_num(L, "region_pct", p->zone[z].region_pct);
		lua_rawseti(L, -2, z + 1);
	}
	lua_setfield(L, -2, "zones");
	lua_createtable(L, (int)p->ncells, 0);
	for (unsigned c = 0; c < p->ncells; c++) {
		lua_pushnumber(L, pct(p->cell[c], p->cell_total));
		lua_rawseti(L, -2, c + 1);
	}
	lua_setfield(L, -2, "cells_pct");
	api_set_int(L, "ios", p->cell_total);
	lua_pushboolean(L, p->cells_random);
	lua_setfield(L, -2, "random_only");
	api_set_num(L, "misplaced_pct", p->fit_error_pct);
	lua_setfield(L, -2, "hot");
}

static void push_devices(lua_State *L, const struct trace *t, const struct trace_profile *p)
{
	lua_createtable(L, (int)p->ndevs, 0);
	for (unsigned d = 0; d < p->ndevs; d++) {
		lua_createtable(L, 0, 24);
		lua_pushstring(L, p->dev_index[d] < t->ndevs ? t->devs[p->dev_index[d]] : "");
		lua_setfield(L, -2, "name");
		push_counts(L, &p->dev[d]);
		push_runs(L, &p->dev[d].streams);
		lua_rawseti(L, -2, d + 1);
	}
	lua_setfield(L, -2, "devices");
}

/* opts.device: a device's name as the trace gives it, or its number from 1. */
static int read_device(lua_State *L, const struct trace *t)
{
	char buf[128];

	if (lua_getfield(L, 2, "device") == LUA_TNIL) {
		lua_pop(L, 1);
		return -1;
	}
	if (lua_isinteger(L, -1)) {
		lua_Integer i = api_check_int(L, -1, "profile.device", 1, t->ndevs ? t->ndevs : 1);

		lua_pop(L, 1);
		return (int)i - 1;
	}
	if (lua_type(L, -1) != LUA_TSTRING)
		api_input_error(L, "profile.device: a %s is not a device (give its name or its number from 1)",
				luaL_typename(L, -1));
	for (unsigned d = 0; d < t->ndevs; d++)
		if (!strcmp(t->devs[d], lua_tostring(L, -1))) {
			lua_pop(L, 1);
			return (int)d;
		}
	api_input_error(L, "profile.device: '%s' is not a device of the trace (it has %u)",
			shown(lua_tostring(L, -1), buf, sizeof(buf)), t->ndevs);
	return -1;
}

static void read_opts(lua_State *L, const struct trace *t, struct tp_opts *o)
{
	static const char *const keys[] = { "device", "cells", "zones", "buckets", "seq_gap", NULL };

	*o = (struct tp_opts){ .dev = -1, .cells = 50, .max_zones = 4 };
	if (lua_isnoneornil(L, 2))
		return;
	if (!lua_istable(L, 2))
		api_input_error(L, "profile: a %s is not a table of options", luaL_typename(L, 2));
	api_check_keys(L, 2, "profile", keys);
	o->dev = read_device(L, t);
	if (lua_getfield(L, 2, "cells") != LUA_TNIL)
		o->cells = (unsigned)api_check_int(L, -1, "profile.cells", 1, TP_MAX_CELLS);
	if (lua_getfield(L, 2, "zones") != LUA_TNIL)
		o->max_zones = (unsigned)api_check_int(L, -1, "profile.zones", 1, TP_MAX_ZONES);
	if (lua_getfield(L, 2, "buckets") != LUA_TNIL)
		o->buckets = (unsigned)api_check_int(L, -1, "profile.buckets", 1, TP_MAX_BUCKETS);
	if (lua_getfield(L, 2, "seq_gap") != LUA_TNIL && (o->seq_gap = api_check_size(L, -1, "profile.seq_gap")) > TS_MAX_GAP)
		api_input_error(L, "profile.seq_gap: %llu bytes is too large (at most 1 GiB: how far past where a stream "
				"would continue a record may start and continue it)", (unsigned long long)o->seq_gap);
	lua_pop(L, 4);
}

/* iomoon.trace.profile(trace [, {device=, cells=, zones=, buckets=}]) */
static int l_profile(lua_State *L)
{
	struct trace *t = lua_trace_test(L, 1);
	struct trace_profile *p;
	struct tp_opts o;
	char why[WHY_LEN];
	int rc;

	if (!t)
		return api_input_error(L, "profile: a %s is not a trace (iomoon.trace.load gives one)", luaL_typename(L, 1));
	read_opts(L, t, &o);
	p = malloc(sizeof(*p));
	if (!p)
		return luaL_error(L, "no memory for a trace profile");
	rc = trace_profile(t, &o, p, why, sizeof(why));
	if (rc != RC_OK) {
		free(p);
		if (rc == RC_INPUT)
			return api_input_error(L, "profile: %s", why);
		return luaL_error(L, "%s", why);
	}
	lua_createtable(L, 0, 56);
	push_counts(L, &p->all);
	push_runs(L, &p->all.streams);
	push_sizes(L, &p->sizes_all, "bs");
	for (unsigned op = 0; op < OP_NDATA; op++) {
		char k[16];

		snprintf(k, sizeof(k), "%s_bs", op_name[op]);
		push_sizes(L, &p->sizes_op[op], k);
	}
	push_gaps(L, p);
	push_timeline(L, p);
	push_hot(L, p);
	push_devices(L, t, p);
	push_streams(L, t, p);
	if (o.dev >= 0) {
		lua_pushstring(L, t->devs[o.dev]);
		lua_setfield(L, -2, "device");
	}
	lua_pushstring(L, trace_format_name(t->format));
	lua_setfield(L, -2, "format");
	trace_profile_free(p);
	free(p);
	return 1;
}

/* iomoon.trace's __index: the functions lua/iomoon/trace.lua adds, taken
 * from require("iomoon.trace") when first asked for. */
static int l_trace_index(lua_State *L)
{
	const char *k = lua_tostring(L, 2);

	if (!k || (strcmp(k, "to_phase") && strcmp(k, "print_profile")))
		return 0;
	lua_getglobal(L, "require");
	lua_pushliteral(L, "iomoon.trace");
	lua_call(L, 1, 1);
	lua_getfield(L, -1, k);
	return 1;
}

void lua_trace_profile_register(lua_State *L)
{
	lua_pushcfunction(L, l_profile);
	lua_setfield(L, -2, "profile");
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, l_trace_index);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
}
