/* lua_cluster.c - the cluster in Lua: iomoon.cluster, {rank} and {host}
 * in target paths, iomoon.run's agreements (every rank checks its phase,
 * an input error on any stops all with that rank's message), what a
 * phase counts split across ranks, and result.cluster / result.hosts.
 */
#include "lua/lua_cluster.h"
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "cluster/cluster_phase.h"
#include "lua/lua_api.h"
#include "lua/lua_int.h"
#include "lua/lua_phase.h"

#define PATHS_KEY "iomoon.cluster_paths"

/* iomoon.cluster: { rank, ranks, host, on, build }, pushed. */
void api_push_cluster_table(lua_State *L)
{
	lua_createtable(L, 0, 5);
	lua_pushinteger(L, cluster_rank());
	lua_setfield(L, -2, "rank");
	lua_pushinteger(L, cluster_ranks());
	lua_setfield(L, -2, "ranks");
	lua_pushstring(L, cluster_host());
	lua_setfield(L, -2, "host");
	lua_pushboolean(L, cluster_on());
	lua_setfield(L, -2, "on");
	lua_pushstring(L, cluster_build());
	lua_setfield(L, -2, "build");
}

/* s with every {rank} and {host} replaced, pushed. */
static void push_expanded(lua_State *L, const char *s)
{
	luaL_Buffer b;

	luaL_buffinit(L, &b);
	while (*s) {
		if (!strncmp(s, "{rank}", 6)) {
			char n[16];

			snprintf(n, sizeof(n), "%u", cluster_rank());
			luaL_addstring(&b, n);
			s += 6;
		} else if (!strncmp(s, "{host}", 6)) {
			luaL_addstring(&b, cluster_host());
			s += 6;
		} else {
			luaL_addchar(&b, *s++);
		}
	}
	luaL_pushresult(&b);
}

const char *api_expand_path(lua_State *L, const char *path)
{
	const char *kept;

	if (!strstr(path, "{rank}") && !strstr(path, "{host}"))
		return path;
	/* kept in a registry table (path -> itself): the string a target
	 * points to lives as long as the state; one entry per distinct path */
	if (lua_getfield(L, LUA_REGISTRYINDEX, PATHS_KEY) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, LUA_REGISTRYINDEX, PATHS_KEY);
	}
	push_expanded(L, path);                   /* T E */
	lua_pushvalue(L, -1);                     /* T E E */
	if (lua_rawget(L, -3) != LUA_TSTRING) {   /* T E V */
		lua_pop(L, 1);                    /* T E */
		lua_pushvalue(L, -1);             /* T E E */
		lua_pushvalue(L, -1);             /* T E E E */
		lua_rawset(L, -4);                /* T E: T[E] = E */
		lua_pushvalue(L, -1);             /* T E E */
		lua_rawget(L, -3);                /* T E V */
	}
	kept = lua_tostring(L, -1);
	lua_pop(L, 3);
	return kept;
}

/* The shape every rank's phase must share, and what each value is. */
static const char *const shape_names[CLUSTER_SHAPE] = {
	"name", "streams", "duration", "ramp", "interval", "access specs (named)", "replay", "ios/bytes",
	"rate or schedule",
};

static int64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return (int64_t)(h >> 1);
}

/* FNV-1a of every workload's rate or schedule (the cluster's: split
 * across the ranks, so every rank must pace the same way). */
static int64_t pacing_of(const struct phase_spec *sp)
{
	uint64_t h = 1469598103934665603ull;

	for (unsigned i = 0; i < phase_nstreams(sp); i++) {
		const struct pace *p = phase_stream(sp, i)->pace;
		unsigned n = p ? p->nseg : 0;

		h = (h ^ n) * 1099511628211ull;
		for (unsigned k = 0; k < n; k++) {
			h = (h ^ p->seg[k].end_ns) * 1099511628211ull;
			h = (h ^ (uint64_t)(p->seg[k].iops * 1000.0)) * 1099511628211ull;
			h = (h ^ (uint64_t)p->seg[k].poisson) * 1099511628211ull;
		}
	}
	return (int64_t)(h >> 1);
}

static void shape_of(const struct run_state *rs, struct cluster_shape *sh)
{
	const struct phase_spec *sp = &rs->sp;
	uint64_t specs = 1469598103934665603ull; /* FNV-1a of every unit's count: no two lists alike */
	int64_t replay = 0;

	for (unsigned i = 0; i < phase_nstreams(sp); i++) {
		specs = (specs ^ (phase_stream(sp, i)->per_spec ? phase_stream(sp, i)->wl->nspecs : 0)) * 1099511628211ull;
		specs = (specs ^ 0xff) * 1099511628211ull; /* the end of this unit's count */
		replay = replay * 2 + (phase_stream(sp, i)->replay != NULL);
	}
	*sh = (struct cluster_shape){ { hash_str(rs->name), sp->nstreams, (int64_t)sp->duration_ns, (int64_t)sp->ramp_ns,
					(int64_t)sp->interval_ns, (int64_t)(specs >> 1), replay,
					(int64_t)(sp->ios != 0) * 2 + (sp->bytes != 0), pacing_of(sp) } };
}

/* A quota of the phase's (ios, bytes) is the cluster's: RC_INPUT with
 * why when it is smaller than the ranks. */
static int check_quota(const struct run_state *rs, char *why, size_t why_len)
{
	const struct phase_spec *sp = &rs->sp;
	const char *path = rs->path;
	const unsigned n = cluster_ranks();

	if (sp->read_once)
		return RC_OK; /* verify_only's own region: each rank reads all of its own */

	/* the last rank's part is the smallest; 0 would mean no quota at all */
	if ((sp->ios && sp->ios < n) || (sp->bytes && !phase_bytes_part(sp, sp->bytes, n, n - 1))) {
		snprintf(why, why_len, "%s.%s: %llu cannot be split over %u ranks (the phase's quota is the cluster's; "
			 "give at least one %s per rank)", path, sp->ios ? "ios" : "bytes",
			 (unsigned long long)(sp->ios ? sp->ios : sp->bytes), n, sp->ios ? "I/O" : "block");
		return RC_INPUT;
	}
	return RC_OK;
}

int api_cluster_split(struct run_state *rs, char *why, size_t why_len)
{
	if (!cluster_on())
		return RC_OK;
	for (unsigned i = 0; i <= rs->nstreams; i++) {
		struct run_state *w = i ? rs->stream[i - 1] : rs;

		if (check_quota(w, why, why_len))
			return RC_INPUT;
		w->sp.rate_share = cluster_ranks(); /* rates: the workers of every rank share them */
	}
	return RC_OK;
}

/* The workloads of rs that verify with crc32c: its streams, or itself. */
static struct phase_spec *crc_workload(struct run_state *rs, unsigned i)
{
	struct phase_spec *sp = rs->nstreams ? &rs->stream[i]->sp : &rs->sp;

	return sp->verify == VERIFY_CRC ? sp : NULL;
}

/* At most this many paths a phase verifies (every stream's targets). */
#define SHARE_KEYS (PHASE_MAX_STREAMS * PHASE_MAX_TARGETS)

/* The key of a target's path: FNV-1a, never 0 (cluster_share's padding). */
static uint64_t path_key(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h | 1;
}

/* verify_only's default bytes, when ranks share a target: each target's
 * region is this rank's slice of it now. */
static void own_bytes(struct run_state *w)
{
	if (w->sp.read_once)
		w->sp.bytes = phase_read_once_bytes(&w->sp);
}

int api_cluster_share(struct run_state *rs, char *why, size_t why_len)
{
	uint64_t keys[SHARE_KEYS];
	unsigned count[SHARE_KEYS], index[SHARE_KEYS];
	const unsigned nw = rs->nstreams ? rs->nstreams : 1;
	unsigned n = 0, k;
	struct phase_spec *sp;

	if (!cluster_on())
		return RC_OK;
	for (unsigned i = 0; i < nw; i++)
		for (unsigned t = 0; (sp = crc_workload(rs, i)) && t < sp->ntargets; t++) {
			const uint64_t key = path_key(sp->targets[t]->path);

			for (k = 0; k < n && keys[k] != key; k++)
				;
			if (sp->targets[t]->kind != TARGET_NONE && k == n)
				keys[n++] = key;
		}
	if (cluster_share(keys, n, count, index)) {
		snprintf(why, why_len, "phase.target: no memory to agree which targets the ranks share");
		return RC_FAIL;
	}
	for (unsigned i = 0; i < nw; i++) {
		for (unsigned t = 0; (sp = crc_workload(rs, i)) && t < sp->ntargets; t++) {
			const uint64_t key = path_key(sp->targets[t]->path);

			for (k = 0; k < n && keys[k] != key; k++)
				;
			sp->rank_parts[t] = k < n ? count[k] : 0;
			sp->rank_part[t] = k < n ? index[k] : 0;
		}
		if (!(sp = crc_workload(rs, i)))
			continue;
		own_bytes(rs->nstreams ? rs->stream[i] : rs);
		if (phase_check_slices(sp, why, why_len))
			return RC_INPUT;
	}
	return RC_OK;
}

/* This rank's share of a quota of the cluster's (0: none). */
static uint64_t share(uint64_t q)
{
	const unsigned n = cluster_ranks(), me = cluster_rank();

	return q ? q / n + (me < q % n) : 0;
}

void api_cluster_apply(struct run_state *rs, struct cluster_saved *saved)
{
	for (unsigned i = 0; cluster_on() && i <= rs->nstreams; i++) {
		struct run_state *w = i ? rs->stream[i - 1] : rs;
		struct phase_spec *sp = &w->sp;

		saved->ios[i] = sp->ios;
		saved->bytes[i] = sp->bytes;
		saved->seed[i] = sp->seed;
		sp->ios = share(sp->ios);
		if (!sp->read_once)
			sp->bytes = sp->bytes ? phase_bytes_part(sp, sp->bytes, cluster_ranks(), cluster_rank()) : 0;
		sp->seed ^= 0x9e3779b97f4a7c15ull * (cluster_rank() + 1); /* offsets and arrivals of its own */
	}
}

void api_cluster_restore(struct run_state *rs, const struct cluster_saved *saved)
{
	for (unsigned i = 0; cluster_on() && i <= rs->nstreams; i++) {
		struct phase_spec *sp = i ? &rs->stream[i - 1]->sp : &rs->sp;

		sp->ios = saved->ios[i];
		sp->bytes = saved->bytes[i];
		sp->seed = saved->seed[i];
	}
}

int api_cluster_agreed(enum cluster_point p, int rc, const char *why, const struct cluster_shape *sh,
		       const struct cluster_phrases *say, char *out, size_t out_len)
{
	struct cluster_answer a;

	if (!cluster_agree(p, rc, why, sh, &a))
		return RC_OK;
	if (a.failed_rank >= 0) {
		snprintf(out, out_len, "%s", a.msg);
		return a.rc == RC_INPUT ? RC_INPUT : RC_FAIL;
	}
	if (a.diverged && a.exiting_rank >= 0)
		snprintf(out, out_len, "rank %d ended its script (exit status %d%s%s) while this rank started phase '%s' "
			 "(every rank must run the same phases)", a.exiting_rank, a.exit_code, a.msg[0] ? ": " : "",
			 a.msg, say->name);
	else if (a.diverged)
		snprintf(out, out_len, "the ranks are at different points of phase '%s' (every rank must run the same "
			 "phases)", say->name);
	else
		snprintf(out, out_len, "phase '%s': the ranks' %s differ in their %s (every rank must run the same "
			 "phases; %s may differ)", say->name, say->kind, say->fields[a.shape_field], say->may_differ);
	return RC_INPUT;
}

int api_cluster_agree(enum cluster_point p, const struct run_state *rs, int rc, const char *why, char *out,
		      size_t out_len)
{
	const struct cluster_phrases say = { rs ? rs->name : "?", "phases", shape_names,
					     "targets, workers, qd and the mix" };
	struct cluster_shape sh;

	if (!cluster_on())
		return RC_OK;
	if (rs)
		shape_of(rs, &sh);
	return api_cluster_agreed(p, rc, why, rs ? &sh : NULL, &say, out, out_len);
}

/* One rank's figures, pushed. */
static void push_host(lua_State *L, const struct cluster_host *h)
{
	lua_createtable(L, 0, 21);
	api_set_int(L, "rank", h->rank);
	lua_pushstring(L, h->host);
	lua_setfield(L, -2, "host");
	api_set_int(L, "workers", h->workers);
	api_set_int(L, "qd", h->qd);
	api_set_int(L, "targets", h->targets);
	api_set_int(L, "ios", h->ios);
	api_set_num(L, "iops", h->seconds > 0 ? (double)h->ios / h->seconds : 0);
	api_set_num(L, "mb_per_s", h->seconds > 0 ? (double)h->bytes / h->seconds / 1e6 : 0);
	api_set_int(L, "bytes", h->bytes);
	api_set_num(L, "seconds", h->seconds);
	api_set_int(L, "p50_ns", h->p50_ns);
	api_set_int(L, "p99_ns", h->p99_ns);
	api_set_int(L, "max_ns", h->max_ns);
	api_set_num(L, "mean_ns", h->mean_ns);
	api_set_num(L, "util_pct", h->util_pct);
	api_set_num(L, "user_s", h->user_s);
	api_set_num(L, "sys_s", h->sys_s);
	api_set_num(L, "user_pct", h->user_pct);
	api_set_num(L, "sys_pct", h->sys_pct);
	api_set_num(L, "self_pct", h->self_pct);
	api_set_int(L, "errors", h->errors);
	api_set_num(L, "inflight_mean", h->inflight_mean);
	if (h->has_device)
		api_push_device(L, &h->device, (double)h->bytes);
	lua_pushboolean(L, h->failed);
	lua_setfield(L, -2, "failed");
	lua_pushboolean(L, h->interrupted);
	lua_setfield(L, -2, "interrupted");
	if (h->failed) {
		lua_pushstring(L, h->error);
		lua_setfield(L, -2, "error");
	}
}

void api_push_cluster_result(lua_State *L, const struct phase_result *r)
{
	api_push_cluster(L, r->cluster);
}

void api_push_cluster(lua_State *L, const struct cluster_result *c)
{
	if (!c)
		return;
	lua_createtable(L, 0, 8);
	api_set_int(L, "ranks", c->ranks);
	api_set_int(L, "start_skew_ns", c->start_skew_ns);
	if (c->stopped_by >= 0)
		api_set_int(L, "stopped_by", (uint64_t)c->stopped_by);
	api_set_int(L, "rounds", c->rounds);
	api_set_int(L, "end_bytes", c->end_bytes);
	api_set_int(L, "end_ns", c->end_ns);
	api_set_int(L, "interval_bytes", c->interval_bytes);
	lua_setfield(L, -2, "cluster");
	lua_createtable(L, (int)c->ranks, 0);
	for (unsigned i = 0; c->hosts && i < c->ranks; i++) {
		push_host(L, &c->hosts[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "hosts");
}

/* iomoon.write_atomic's gate: ranks but 0 write no report unless
 * IOMOON_ALL_RANKS=1 (their standard output is /dev/null too). */
int api_cluster_writes(void)
{
	const char *all = getenv("IOMOON_ALL_RANKS");

	return cluster_rank() == 0 || (all && !strcmp(all, "1"));
}
