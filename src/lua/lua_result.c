/* lua_result.c - the result table of iomoon.run: a phase_result becomes
 * a table, with the phase's definition. How it is sealed and where it goes
 * then (iomoon.keep_results, iomoon.on_result) is lua_result_seal.c's.
 */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/hist.h"
#include "core/rc.h"
#include "lua/lua_api.h"
#include "lua/lua_cluster.h"
#include "lua/lua_int.h"
#include "lua/lua_phase.h"
#include "lua/lua_repro.h"
#include "lua/lua_result_fields.h"
#include "run/phase.h"
#include "run/phase_witness.h"
#include "verify/verify.h"



static void push_lat(lua_State *L, const struct hist *h, int with_hist)
{
	lua_createtable(L, 0, 10);
	api_set_int(L, "min_ns", h->count ? h->min : 0);
	api_set_num(L, "mean_ns", hist_mean(h));
	api_set_int(L, "max_ns", h->max);
	api_set_num(L, "stdev_ns", hist_stdev(h));
	api_set_int(L, "p50_ns", hist_percentile(h, 50));
	api_set_int(L, "p90_ns", hist_percentile(h, 90));
	api_set_int(L, "p99_ns", hist_percentile(h, 99));
	api_set_int(L, "p999_ns", hist_percentile(h, 99.9));
	api_set_int(L, "p9999_ns", hist_percentile(h, 99.99));
	if (with_hist) {
		*api_push_hist(L) = *h;
		lua_setfield(L, -2, "hist");
		api_push_percentiles(L, h);
	}
}

static void push_rates(lua_State *L, uint64_t ios, uint64_t bytes, double secs)
{
	api_set_int(L, "ios", ios);
	api_set_int(L, "bytes", bytes);
	api_set_num(L, "iops", secs > 0 ? (double)ios / secs : 0);
	api_set_num(L, "mb_per_s", secs > 0 ? (double)bytes / secs / 1e6 : 0);
	api_set_num(L, "mib_per_s", secs > 0 ? (double)bytes / secs / 1048576.0 : 0);
}

/* The rate a paced phase asked for over its measured time: the I/Os its
 * segments intended in [0, seconds), per second (a schedule's segments
 * count for the part of them that was measured). */
static double asked_rate(const struct pace *p, double seconds)
{
	double at = 0, ios = 0;

	if (seconds <= 0)
		return p->nseg ? p->seg[0].iops : 0;
	for (unsigned i = 0; i < p->nseg && at < seconds; i++) {
		double end = p->seg[i].end_ns == UINT64_MAX ? seconds : (double)p->seg[i].end_ns / 1e9;

		if (end > seconds)
			end = seconds;
		if (end > at)
			ios += p->seg[i].iops * (end - at);
		at = end;
	}
	return ios / seconds;
}

/* A share on the 2^32 scale as a percentage, to 6 decimals. */
static double pct_of_one(uint64_t thr)
{
	return round((double)thr / (double)WL_ONE * 1e8) / 1e6;
}

/* How the targets were opened for writing: "none", "dsync", "sync", or
 * for a phase whose streams differ, "mixed". */
static const char *open_sync_name(const struct phase_spec *ph)
{
	static const char *const names[] = { "none", "dsync", "sync" };
	enum open_sync o = phase_stream(ph, 0)->open_sync;

	for (unsigned k = 1; k < phase_nstreams(ph); k++)
		if (phase_stream(ph, k)->open_sync != o)
			return "mixed";
	return names[o];
}

/* What the phase asked for, so that every option reaches the result: the
 * mix (sizes, shares), dist, seed, the asked duration and quotas, batch. */
static void push_definition(lua_State *L, const struct run_state *rs)
{
	const struct phase_spec *sp = &rs->sp;
	const struct workload *wl = &rs->wl;
	uint64_t prev = 0;

	lua_createtable(L, (int)wl->nspecs, 0);
	for (unsigned i = 0; i < wl->nspecs; i++) {
		const struct wl_spec *s = &wl->spec[i];
		uint64_t bprev = 0;

		lua_createtable(L, 0, 6);
		lua_createtable(L, (int)s->nbs, 0);
		lua_createtable(L, (int)s->nbs, 0);
		for (unsigned j = 0; j < s->nbs; j++) {
			lua_pushinteger(L, (lua_Integer)s->bs[j].bytes);
			lua_rawseti(L, -3, j + 1);
			lua_pushnumber(L, pct_of_one(s->bs[j].cum - bprev));
			lua_rawseti(L, -2, j + 1);
			bprev = s->bs[j].cum;
		}
		lua_setfield(L, -3, "bs_weight_pct");
		lua_setfield(L, -2, "bs");
		api_set_num(L, "read_pct", pct_of_one(s->read_thr));
		api_set_num(L, "random_pct", pct_of_one(s->random_thr));
		api_set_int(L, "align", s->align);
		if (s->skip) {
			lua_pushinteger(L, s->skip);
			lua_setfield(L, -2, "skip");
		}
		api_set_num(L, "weight_pct", pct_of_one(s->cum - prev));
		prev = s->cum;
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "mix");
	lua_pushstring(L, rs->dist);
	lua_setfield(L, -2, "dist");
	api_set_int(L, "seed", sp->seed);
	api_set_num(L, "duration_s", (double)sp->duration_ns / 1e9);
	api_set_int(L, "quota_ios", sp->ios);
	api_set_int(L, "quota_bytes", sp->bytes);
	if (sp->batch == BATCH_AUTO)
		lua_pushstring(L, "auto");
	else
		lua_pushinteger(L, (lua_Integer)sp->batch);
	lua_setfield(L, -2, "batch");
	api_set_num(L, "interval_s", (double)sp->interval_ns / 1e9);
	lua_pushstring(L, open_sync_name(sp));
	lua_setfield(L, -2, "open_sync");
}

static const char *const opname[OP_NTYPES] = { "read", "write", "trim", "sync" };

/* Do rs's workloads (it, or its streams) trim; sync? */
static int phase_ops_trim(const struct run_state *rs)
{
	for (unsigned k = 0; k < phase_nstreams(&rs->sp); k++)
		if (wl_trims(phase_stream(&rs->sp, k)->wl))
			return 1;
	return 0;
}

static int phase_ops_sync(const struct run_state *rs)
{
	for (unsigned k = 0; k < phase_nstreams(&rs->sp); k++)
		if (phase_stream(&rs->sp, k)->fsync_every || phase_stream(&rs->sp, k)->fdatasync_every ||
		    (phase_stream(&rs->sp, k)->replay && phase_stream(&rs->sp, k)->replay->ops[OP_SYNC]))
			return 1;
	return 0;
}

/* How sp's trims reach the device: "engine" (io_uring's fallocate; psync's
 * system call in the engine) or "syscall" (the worker's, where the engine
 * has no way: libaio, and io_uring on a block device); "mixed" for a phase
 * whose streams' trims go both ways. */
static const char *trim_how(const struct phase_spec *ph)
{
	int by[2] = { 0, 0 }; /* trims by the engine, by system call */

	for (unsigned k = 0; k < phase_nstreams(ph); k++) {
		const struct phase_spec *sp = phase_stream(ph, k);

		for (unsigned t = 0; wl_trims(sp->wl) && t < sp->ntargets; t++)
			by[sp->targets[t]->kind == TARGET_BLOCK ? !sp->engine->trim_blocks : !sp->engine->trim_files] = 1;
	}
	return by[0] && by[1] ? "mixed" : by[1] ? "syscall" : "engine";
}

/* Which call a workload's syncs are, and every how many writes; for a
 * phase whose streams sync differently, "mixed" and 0 (each stream's
 * result says its own). */
static void push_sync_kind(lua_State *L, const struct phase_spec *ph)
{
	const char *call = NULL;
	unsigned every = 0;

	for (unsigned k = 0; k < phase_nstreams(ph); k++) {
		const struct phase_spec *sp = phase_stream(ph, k);
		const char *c = sp->fsync_every ? "fsync" : "fdatasync";
		unsigned n = sp->fsync_every ? sp->fsync_every : sp->fdatasync_every;

		if (!n && sp->replay && sp->replay->ops[OP_SYNC])
			c = "fsync"; /* a trace's syncs, where it has them: every 0 */
		else if (!n)
			continue;
		if (call && (strcmp(call, c) || every != n)) {
			call = strcmp(call, c) ? "mixed" : call;
			every = 0;
			break;
		}
		call = c;
		every = n;
	}
	lua_pushstring(L, call ? call : "none");
	lua_setfield(L, -2, "call");
	api_set_int(L, "every", every);
}


/* Who ran what where: name, target(s), engine, workers and queue depth. */
/* target: the path, or a list of the paths of every workload (the phase's
 * streams', each once: phase_targets, whose places the trace's records
 * name). */
static void push_targets(lua_State *L, const struct phase_spec *ph)
{
	const struct target *seen[PHASE_MAX_WORKERS];
	const unsigned n = phase_targets(ph, seen);

	if (n == 1) {
		lua_pushstring(L, seen[0]->path);
	} else {
		lua_createtable(L, (int)n, 0);
		for (unsigned i = 0; i < n; i++) {
			lua_pushstring(L, seen[i]->path);
			lua_rawseti(L, -2, i + 1);
		}
	}
	lua_setfield(L, -2, "target");
}

/* The test area the I/O stayed in: area_bytes (and area_offset_bytes) of
 * every target, when the targets of every workload share one (a --size
 * smaller than an existing file: 64 MiB of it); absent when they differ. */
static void push_area(lua_State *L, const struct phase_spec *ph)
{
	uint64_t len = 0, off = 0;

	for (unsigned k = 0; k < phase_nstreams(ph); k++) {
		const struct phase_spec *s = phase_stream(ph, k);

		for (unsigned t = 0; t < s->ntargets; t++) {
			const uint64_t l = phase_region_len(s, t);

			if (len && (l != len || s->region_off != off))
				return;
			len = l;
			off = s->region_off;
		}
	}
	if (!len)
		return;
	api_set_int(L, "area_bytes", (lua_Integer)len);
	api_set_int(L, "area_offset_bytes", (lua_Integer)off);
}

static void push_setup(lua_State *L, const struct phase_spec *sp, const struct phase_result *r)
{
	unsigned qd = sp->qd;

	for (unsigned k = 0; k < sp->nstreams; k++)
		qd = k && qd > sp->streams[k]->qd ? qd : sp->streams[k]->qd;
	lua_pushstring(L, sp->name);
	lua_setfield(L, -2, "name");
	push_targets(L, sp);
	push_area(L, sp);
	lua_pushstring(L, r->engine);
	lua_setfield(L, -2, "engine");
	lua_pushstring(L, r->features);
	lua_setfield(L, -2, "engine_features");
	lua_pushboolean(L, sp->direct);
	lua_setfield(L, -2, "direct");
	api_set_int(L, "workers", sp->workers); /* with streams: all of theirs */
	api_set_int(L, "qd", qd);               /* with streams: the largest of theirs */
	api_set_int(L, "qd_max", r->total.max_inflight);
	api_set_num(L, "ramp_s", (double)sp->ramp_ns / 1e9);
}

/* Rates and latencies: of both op types together (all: the merged latency
 * histogram), per op type in read and write, and for a paced phase the
 * service times and the rate asked. */
static void push_measures(lua_State *L, const struct run_state *rs, const struct phase_result *r,
			  const struct hist *all)
{
	const struct counters *c = &r->total;
	const int paced = rs->pace.nseg > 0 || rs->sp.replay; /* a replay is open loop too */
	const int has[OP_NTYPES] = { 1, 1, phase_ops_trim(rs), phase_ops_sync(rs) };
	struct hist svc_all = c->op[OP_READ].svc;

	push_rates(L, all->count, c->op[0].bytes + c->op[1].bytes, r->seconds); /* trims move no data */
	api_set_num(L, "seconds", r->seconds);
	api_set_time(L, "started", r->started_ns);
	api_set_time(L, "ended", r->ended_ns);
	for (int op = 0; op < OP_NTYPES; op++) {
		if (!has[op])
			continue;
		lua_createtable(L, 0, 8);
		push_rates(L, c->op[op].lat.count, c->op[op].bytes, r->seconds);
		push_lat(L, &c->op[op].lat, 0);
		lua_setfield(L, -2, "lat");
		if (paced) {
			push_lat(L, &c->op[op].svc, 0);
			lua_setfield(L, -2, "svc");
		}
		api_set_int(L, "errors", c->op[op].errors);
		if (op == OP_TRIM) {
			lua_pushstring(L, trim_how(&rs->sp));
			lua_setfield(L, -2, "how");
		}
		if (op == OP_SYNC)
			push_sync_kind(L, &rs->sp);
		lua_setfield(L, -2, opname[op]);
	}
	push_lat(L, all, 1);
	lua_setfield(L, -2, "lat");
	if (c->commit.count) { /* each write with its own sync: the commit, both as one figure */
		lua_createtable(L, 0, 3);
		api_set_int(L, "ios", c->commit.count);
		api_set_num(L, "iops", r->seconds > 0 ? (double)c->commit.count / r->seconds : 0);
		push_lat(L, &c->commit, 0);
		lua_setfield(L, -2, "lat");
		lua_setfield(L, -2, "commit");
	}
	if (!paced)
		return;
	hist_merge(&svc_all, &c->op[OP_WRITE].svc);
	hist_merge(&svc_all, &c->op[OP_TRIM].svc);
	push_lat(L, &svc_all, 0);
	lua_setfield(L, -2, "svc");
	if (!rs->pace.nseg)
		return;
	api_set_num(L, "rate_iops", rs->pace.seg[0].iops);
	api_set_num(L, "rate_asked_iops", asked_rate(&rs->pace, r->seconds));
	lua_pushstring(L, rs->pace.seg[0].poisson ? "poisson" : "fixed");
	lua_setfield(L, -2, "rate_arrival");
}

static void push_cpu(lua_State *L, const struct cpu_use *cpu, const struct counters *c)
{
	lua_createtable(L, 0, 4);
	api_set_num(L, "user_s", cpu->user_s);
	api_set_num(L, "sys_s", cpu->sys_s);
	api_set_num(L, "util_pct", cpu->util_pct);
	api_set_num(L, "other_pct", cpu->other_pct);
	api_set_num(L, "other_user_pct", cpu->other_user_pct);
	api_set_num(L, "user_pct", cpu->user_pct);
	api_set_num(L, "sys_pct", cpu->sys_pct);
	api_set_num(L, "self_pct", cpu->self_pct);
	api_set_num(L, "worker_max_pct", 100.0 * c->cpu_busiest);
	api_set_num(L, "wait_pct", 100.0 * c->cpu_waited);
	lua_setfield(L, -2, "cpu");
}

/* result.device: what the kernel counted on the devices under the
 * targets over the measured time, beside iomoon's own figures. Its mean
 * time per request and, by Little's law, the mean in flight at the
 * device; `others` when it moved more than iomoon did (10 % and 1 MiB
 * over: another program's I/O, writeback, a journal), which makes those
 * means partly someone else's. */
void api_push_device(lua_State *L, const struct device_result *dev, double ours)
{
	const struct devstat *d = &dev->counts;
	const double ms = dev->seconds * 1e3;
	const double moved = 512.0 * (double)(d->sectors[DEVSTAT_READ] + d->sectors[DEVSTAT_WRITE] +
					      d->sectors[DEVSTAT_DISCARD]);

	lua_createtable(L, 0, 14);
	lua_pushstring(L, dev->name);
	lua_setfield(L, -2, "name");
	api_set_int(L, "reads", (lua_Integer)d->ios[DEVSTAT_READ]);
	api_set_int(L, "writes", (lua_Integer)d->ios[DEVSTAT_WRITE]);
	api_set_int(L, "trims", (lua_Integer)d->ios[DEVSTAT_DISCARD]);
	api_set_int(L, "flushes", (lua_Integer)d->ios[DEVSTAT_FLUSH]);
	api_set_num(L, "bytes", moved);
	api_set_num(L, "read_bytes", 512.0 * (double)d->sectors[DEVSTAT_READ]);
	api_set_num(L, "write_bytes", 512.0 * (double)d->sectors[DEVSTAT_WRITE]);
	api_set_num(L, "read_mean_ns", d->ios[0] ? 1e6 * (double)d->ticks_ms[0] / (double)d->ios[0] : 0);
	api_set_num(L, "write_mean_ns", d->ios[1] ? 1e6 * (double)d->ticks_ms[1] / (double)d->ios[1] : 0);
	api_set_num(L, "inflight_mean", ms > 0 ? (double)d->in_queue_ms / ms : 0);
	api_set_num(L, "util_pct", ms > 0 ? 100.0 * (double)d->io_ticks_ms / ms : 0);
	api_set_num(L, "seconds", dev->seconds);
	lua_pushboolean(L, moved > 1.1 * ours + 1048576.0);
	lua_setfield(L, -2, "others");
	lua_setfield(L, -2, "device");
}

/* Did the phase (or one of its streams) hold its I/Os back by design: a
 * rate, a schedule, think time, bursts, a replay's times? */
static int held_by_design(const struct run_state *rs)
{
	for (unsigned i = 0; i < rs->nstreams; i++)
		if (held_by_design(rs->stream[i]))
			return 1;
	return rs->pace.nseg > 0 || rs->pace.think != THINK_NONE || rs->pace.burst || rs->sp.replay;
}

/* How many I/Os the phase allowed in flight: qd x workers, over its streams. */
static unsigned allowed_inflight(const struct run_state *rs)
{
	unsigned n = 0;

	for (unsigned i = 0; i < rs->nstreams; i++)
		n += allowed_inflight(rs->stream[i]);
	return rs->nstreams ? n : rs->sp.qd * rs->sp.workers;
}

/* The workers of a phase, over its streams. */
static unsigned phase_workers(const struct run_state *rs)
{
	unsigned n = 0;

	for (unsigned i = 0; i < rs->nstreams; i++)
		n += phase_workers(rs->stream[i]);
	return rs->nstreams ? n : rs->sp.workers;
}

/* The process's CPU over the measured time, per worker: the kernel's own
 * threads that serve a worker (io_uring's io-wq on a buffered file that
 * cannot be read without blocking, as tmpfs here) are on the CPU for it,
 * and its thread's own share misses them. Asked of a measured time of
 * PROC_SHARE_MIN_S or more: in a shorter one, the workers' start and end
 * would weigh. Streams have no CPU figures of their own (0). */
#define PROC_SHARE_MIN_S 0.2
static double proc_share(const struct run_state *rs, const struct phase_result *r)
{
	return r->seconds >= PROC_SHARE_MIN_S ? (r->cpu.user_s + r->cpu.sys_s) / (r->seconds * phase_workers(rs)) : 0;
}

/* result.inflight and result.bottleneck: who set the figures
 * (phase_bottleneck; doc/performance.md, "Who set the figures"). */
static void push_inflight(lua_State *L, const struct run_state *rs, const struct phase_result *r)
{
	const double allowed = allowed_inflight(rs), measured = r->seconds * 1e9;
	const double mean = measured > 0 ? (double)r->total.inflight_ns / measured : 0;
	const double busy = r->total.cpu_busiest > proc_share(rs, r) ? r->total.cpu_busiest : proc_share(rs, r);
	const double rd = (double)r->total.op[OP_READ].bytes, wr = (double)r->total.op[OP_WRITE].bytes;
	const struct devstat *d = &r->device.counts;
	const int sim = r->engine && !strcmp(r->engine, "sim");
	/* the page cache: a device that moved under a tenth of our bytes, in
	 * each direction we moved any (another program's writes under a
	 * read-only phase are not ours to count; engine sim moves none of
	 * them, by design) */
	const int cached = !sim && r->has_device && rd + wr > 1048576.0 &&
			   (rd == 0 || 512.0 * (double)d->sectors[DEVSTAT_READ] < 0.1 * rd) &&
			   (wr == 0 || 512.0 * (double)d->sectors[DEVSTAT_WRITE] < 0.1 * wr);
	const struct bottleneck_in in = { .instant_engine = r->engine && !strcmp(r->engine, "null"),
					  .spinning_engine = sim, .held_by_design = held_by_design(rs),
					  .host_served = r->in_memory || cached, .inflight_mean = mean,
					  .allowed = allowed, .cpu_busiest = busy, .cpu_waited = r->total.cpu_waited,
					  .other_user_pct = r->cpu.other_user_pct, .others_unseen = r->seconds < PROC_SHARE_MIN_S,
					  .workers = phase_workers(rs),
					  .cpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN) };

	lua_createtable(L, 0, 3);
	api_set_num(L, "mean", mean);
	api_set_int(L, "max", r->total.max_inflight);
	api_set_int(L, "allowed", (lua_Integer)allowed);
	lua_setfield(L, -2, "inflight");
	lua_pushstring(L, phase_bottleneck(&in));
	lua_setfield(L, -2, "bottleneck");
}

/* An errno's name (EIO), a verification failure's kind, or "short". */
static const char *error_name(int err)
{
	const char *n = verify_err_name(err) ? verify_err_name(err) : err ? strerrorname_np(err) : "short";

	return n ? n : "unknown";
}

/* errors_by_errno into the table on top: the errors of op type `which`
 * (-1: both) by name. */
static void push_errors_by_errno(lua_State *L, const struct counters *c, int which)
{
	lua_newtable(L);
	luaL_setmetatable(L, OBJECT_MT);
	for (int i = 0; i < STATS_MAX_ERRNO && c->errno_count[i].n; i++) {
		const struct err_count *ec = &c->errno_count[i];
		const char *n = error_name(ec->err);
		uint64_t have;

		if (which >= 0 && ec->op != which)
			continue;
		lua_getfield(L, -1, n);
		have = (uint64_t)lua_tointeger(L, -1); /* nil: 0 */
		lua_pop(L, 1);
		api_set_int(L, n, have + ec->n);
	}
	lua_setfield(L, -2, "errors_by_errno");
}

/* One of the first errors, as a table with its message. */
static void push_first_error(lua_State *L, const struct first_error *e)
{
	char msg[WHY_LEN];

	lua_createtable(L, 0, 5);
	lua_pushstring(L, opname[e->op]);
	lua_setfield(L, -2, "op");
	api_set_int(L, "offset", e->offset);
	api_set_int(L, "len", e->len);
	api_set_int(L, "errno", (uint64_t)e->err);
	if (verify_err_name(e->err)) {
		lua_pushstring(L, verify_err_name(e->err));
		lua_setfield(L, -2, "kind");
		api_set_int(L, "unit_offset", e->unit_offset);
		api_set_int(L, "expected", e->expected);
		api_set_int(L, "found", e->found);
		verify_message(msg, sizeof(msg), e->err, e->len, e->offset, e->unit_offset, e->expected, e->found);
	} else if (e->err) {
		snprintf(msg, sizeof(msg), "%s of %u bytes at offset %llu: %s", opname[e->op], e->len,
			 (unsigned long long)e->offset, strerror(e->err));
	} else {
		snprintf(msg, sizeof(msg), "%s of %u bytes at offset %llu: short, %lld bytes done", opname[e->op],
			 e->len, (unsigned long long)e->offset, (long long)e->res);
	}
	if (cluster_on()) { /* which host saw it */
		size_t n = strlen(msg);

		snprintf(msg + n, sizeof(msg) - n, " (rank %u)", e->rank);
		api_set_int(L, "rank", e->rank);
	}
	lua_pushstring(L, msg);
	lua_setfield(L, -2, "message");
}

/* errors, errors_by_errno (also in read and write), first_errors and
 * first_error; then how the phase ended: interrupted, failed, error. */
static void push_errors(lua_State *L, const struct phase_result *r)
{
	const struct counters *c = &r->total;

	api_set_int(L, "errors", c->op[0].errors + c->op[1].errors + c->op[2].errors + c->op[3].errors);
	push_errors_by_errno(L, c, -1);
	for (int op = 0; op < OP_NTYPES; op++) {
		if (lua_getfield(L, -1, opname[op]) == LUA_TTABLE) /* trim and sync: when there */
			push_errors_by_errno(L, c, op);
		lua_pop(L, 1);
	}
	lua_createtable(L, (int)c->nfirst, 0);
	for (unsigned i = 0; i < c->nfirst; i++) {
		push_first_error(L, &c->first_errors[i]);
		lua_rawseti(L, -2, i + 1);
	}
	if (c->nfirst) {
		lua_rawgeti(L, -1, 1);
		lua_setfield(L, -3, "first_error");
	}
	lua_setfield(L, -2, "first_errors");
	lua_pushboolean(L, r->interrupted);
	lua_setfield(L, -2, "interrupted");
	lua_pushboolean(L, r->failed);
	lua_setfield(L, -2, "failed");
	if (r->stopped_by[0]) { /* stop_if: the limit crossed */
		lua_createtable(L, 0, 4);
		lua_pushstring(L, r->stopped_by);
		lua_setfield(L, -2, "by");
		api_set_num(L, "value", r->stop_value);
		api_set_num(L, "limit", r->stop_limit);
		api_set_num(L, "t_s", r->stop_t_s);
		lua_setfield(L, -2, "stopped");
	}
	if (r->error[0]) {
		lua_pushstring(L, r->error);
		lua_setfield(L, -2, "error");
	}
}

/* intervals: one table per interval; max_ns is a bucket's bound, never
 * above the phase's exact maximum max_ns; a replay's have its lag. */
static void push_intervals(lua_State *L, const struct phase_result *r, uint64_t max_ns)
{
	lua_createtable(L, (int)r->nintervals, 0);
	for (unsigned i = 0; i < r->nintervals; i++) {
		const struct interval *iv = &r->intervals[i];

		lua_createtable(L, 0, 10);
		api_set_num(L, "t_s", iv->t_s);
		api_set_num(L, "len_s", iv->len_s);
		api_set_int(L, "ios", iv->ios[0] + iv->ios[1] + iv->ios[2]);
		api_set_num(L, "iops", (double)(iv->ios[0] + iv->ios[1] + iv->ios[2]) / iv->len_s);
		api_set_num(L, "read_iops", (double)iv->ios[0] / iv->len_s);
		api_set_num(L, "write_iops", (double)iv->ios[1] / iv->len_s);
		api_set_num(L, "trim_iops", (double)iv->ios[2] / iv->len_s);
		api_set_num(L, "mb_per_s", (double)(iv->bytes[0] + iv->bytes[1]) / iv->len_s / 1e6);
		api_set_int(L, "p50_ns", iv->p50_ns);
		api_set_int(L, "p99_ns", iv->p99_ns);
		api_set_int(L, "max_ns", iv->max_ns < max_ns ? iv->max_ns : max_ns);
		if (iv->has_lag) { /* a replay's: the lag of the records submitted in it */
			api_set_int(L, "lag_p99_ns", iv->lag_p99_ns);
			api_set_int(L, "lag_max_ns", iv->lag_max_ns);
		}
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "intervals");
}

/* trace: one array per column, a row per kept I/O. */
static void push_trace(lua_State *L, const struct phase_result *r)
{
	static const char *const cols[] = { "start_ns", "submit_ns", "lat_ns", "op", "offset", "len", "worker", "target" };

	lua_createtable(L, 0, 8);
	for (int k = 0; k < 8; k++) {
		lua_createtable(L, (int)r->ntrace, 0);
		for (uint64_t i = 0; i < r->ntrace; i++) {
			const struct trace_rec *t = &r->trace[i];

			switch (k) {
			case 0: lua_pushinteger(L, t->start_ns); break;
			case 1: lua_pushinteger(L, t->submit_ns); break;
			case 2: lua_pushinteger(L, (lua_Integer)t->lat_ns); break;
			case 3: lua_pushstring(L, opname[t->op]); break;
			case 4: lua_pushinteger(L, (lua_Integer)t->offset); break;
			case 5: lua_pushinteger(L, t->len); break;
			case 6: lua_pushinteger(L, t->worker); break;
			default: lua_pushinteger(L, t->target + 1); break; /* from 1, as result.target's list */
			}
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		lua_setfield(L, -2, cols[k]);
	}
	lua_setfield(L, -2, "trace");
}

/* One of submit_sizes, reap_sizes: how many, the I/Os in them, their
 * mean and max, and hist[k] (k = 1..): how many of 2^(k-1) to 2^k - 1 I/Os. */
static void push_sizes(lua_State *L, const struct batch_sizes *b, const char *field)
{
	uint64_t n = 0;
	unsigned last = 0;

	for (unsigned k = 0; k < BATCH_HIST; k++)
		if (b->hist[k]) {
			n += b->hist[k];
			last = k + 1;
		}
	lua_createtable(L, 0, 5);
	api_set_int(L, "count", n);
	api_set_int(L, "ios", b->ios);
	api_set_num(L, "mean", n ? (double)b->ios / (double)n : 0);
	api_set_int(L, "max", b->max);
	lua_createtable(L, (int)last, 0);
	for (unsigned k = 0; k < last; k++) {
		lua_pushinteger(L, (lua_Integer)b->hist[k]);
		lua_rawseti(L, -2, k + 1);
	}
	lua_setfield(L, -2, "hist");
	lua_setfield(L, -2, field);
}

/* The result table of a phase that ran, section after section: its set-up,
 * what it asked for (push_definition), its rates and latencies, CPU,
 * errors and end, intervals and trace. */
/* result.specs: the figures of each named access spec, under its name. */
static void push_specs(lua_State *L, const struct run_state *rs, const struct phase_result *r)
{
	lua_newtable(L);
	luaL_setmetatable(L, OBJECT_MT);
	for (unsigned i = 0; r->specs && i < rs->wl.nspecs; i++) {
		const struct spec_stats *st = &r->specs[i];

		if (!rs->spec_name[i][0])
			continue;
		lua_createtable(L, 0, 10);
		push_rates(L, st->ios[OP_READ] + st->ios[OP_WRITE] + st->ios[OP_TRIM], st->bytes, r->seconds);
		api_set_int(L, "read_ios", st->ios[OP_READ]);
		api_set_int(L, "write_ios", st->ios[OP_WRITE]);
		api_set_int(L, "trim_ios", st->ios[OP_TRIM]);
		push_lat(L, &st->lat, 0);
		lua_setfield(L, -2, "lat");
		lua_setfield(L, -2, rs->spec_name[i]);
	}
	lua_setfield(L, -2, "specs");
}

/* result.streams: each stream's result, a whole result table of its own
 * (the phase's time, CPU and ending; its own counters and intervals). */
static void push_streams(lua_State *L, const struct run_state *rs, const struct phase_result *r)
{
	struct phase_result *v = lua_newuserdatauv(L, sizeof(*v), 0); /* freed with the stack if a push fails */

	lua_createtable(L, (int)rs->nstreams, 0);
	for (unsigned i = 0; i < rs->nstreams; i++) {
		const struct stream_result *sr = &r->streams[i];

		*v = *r;
		v->total = sr->total;
		v->intervals = sr->intervals;
		v->nintervals = sr->nintervals;
		v->batch = sr->batch;
		v->nstreams = 0;
		v->streams = NULL;
		v->specs = sr->specs;
		v->replay = sr->replay;
		v->has_device = 0; /* the devices' counts are the phase's, not a stream's */
		v->seconds = sr->seconds;
		api_push_result(L, rs->stream[i], v);
		api_set_int(L, "stream", i + 1);
		api_seal_result(L);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -3, "streams");
	lua_pop(L, 1);
}

void api_push_result(lua_State *L, const struct run_state *rs, const struct phase_result *r)
{
	struct hist all = r->total.op[OP_READ].lat;

	hist_merge(&all, &r->total.op[OP_WRITE].lat);
	hist_merge(&all, &r->total.op[OP_TRIM].lat);
	lua_createtable(L, 0, 40);
	push_setup(L, &rs->sp, r);
	push_definition(L, rs);
	push_measures(L, rs, r, &all);
	push_cpu(L, &r->cpu, &r->total);
	push_inflight(L, rs, r);
	if (r->has_device)
		api_push_device(L, &r->device, (double)(r->total.op[OP_READ].bytes + r->total.op[OP_WRITE].bytes +
							 r->total.op[OP_TRIM].bytes));
	push_errors(L, r);
	api_push_verify(L, rs, r); /* lua_verify.c: crc32c phases only */
	api_push_data(L, rs, r);   /* lua_data.c: phases that wrote */
	push_intervals(L, r, all.max);
	if (rs->sp.trace_max)
		push_trace(L, r);
	api_set_int(L, "batch_used", r->batch.bound);
	push_sizes(L, &r->batch.submit, "submit_sizes");
	push_sizes(L, &r->batch.reap, "reap_sizes");
	if (rs->sp.per_spec && !rs->nstreams)
		push_specs(L, rs, r);
	if (rs->nstreams)
		push_streams(L, rs, r);
	if (r->replay)
		api_push_replay(L, rs, r->replay); /* phase_replay.c */
	api_push_cluster_result(L, r); /* lua_cluster.c: clustered phases only */
	if (!strcmp(rs->path, "phase")) /* the phase's own (its table at rs->table), not a stream's */
		api_push_definition(L, rs, r->engine);
}
