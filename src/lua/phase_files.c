/* phase_files.c - a files phase (run/files.h) from Lua: a phase table with
 * `files = {...}` is read and checked here, run by files_run, and its
 * result made here (result.ops[op], result.files, and the fields every
 * result has, so that the reports and saved.lua read it as any other).
 * iomoon.run and iomoon.check hand such a table here first (lua_phase.c).
 */
#include "lua/phase_files.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cluster/cluster_files.h"
#include "core/stop.h"
#include "io/netblk.h"
#include "lua/lua_api.h"
#include "lua/lua_cluster.h"
#include "lua/lua_int.h"
#include "run/files.h"

static const char *const phase_keys[] = { "name", "files", "op", "ops", "engine", "workers", "qd", "duration",
					  "ios", "fsync", "bs", "direct", "seed", "meta", "interval", NULL };
static const char *const files_keys[] = { "dir", "dirs", "files", "depth", "width", "size", "shared", "allow_write",
					  "foreign_tree", NULL };

int api_is_files_phase(lua_State *L, int idx)
{
	int is;

	if (!lua_istable(L, idx))
		return 0;
	is = lua_getfield(L, idx, "files") != LUA_TNIL;
	lua_pop(L, 1);
	return is;
}

static enum files_op op_named(lua_State *L, const char *s, const char *field)
{
	for (int op = 0; op < FOP_N; op++)
		if (!strcmp(s, files_op_names[op]))
			return (enum files_op)op;
	{
		const char *names[FOP_N + 1]; /* api_nearest takes a NULL-ended list */
		const char *near;

		memcpy(names, files_op_names, sizeof(files_op_names));
		names[FOP_N] = NULL;
		near = api_nearest(s, names);

		api_input_error(L, "phase.%s: '%s' is not an operation of a files phase (one of mkdir, create, write, append, "
				"read, stat, dirstat, open, rename, readdir, delete, rmdir%s%s%s)", field, s, near ? "; did you mean '" : "",
				near ? near : "", near ? "'?" : "");
	}
	return FOP_N;
}

/* files.size: a size, or a weighted list {{"4k", 50}, {"64k", 50}}. */
static void read_sizes(lua_State *L, int t, struct files_spec *sp)
{
	int ty = lua_getfield(L, t, "size");

	sp->nsize = 1;
	sp->size[0] = 0;
	sp->size_weight[0] = 1;
	if (ty == LUA_TNIL) {
		sp->size[0] = 0;
	} else if (ty == LUA_TTABLE) {
		lua_Integer n = (lua_Integer)lua_rawlen(L, -1);

		if (n < 1 || n > FILES_MAX_SIZES)
			api_input_error(L, "phase.files.size: a list of 1 to %d {size, weight} pairs, got %lld entries",
					FILES_MAX_SIZES, (long long)n);
		sp->nsize = (unsigned)n;
		for (lua_Integer i = 1; i <= n; i++) {
			char f[64];

			snprintf(f, sizeof(f), "files.size[%lld]", (long long)i);
			if (lua_rawgeti(L, -1, i) != LUA_TTABLE)
				api_input_error(L, "phase.%s: a {size, weight} pair, e.g. {\"4k\", 50}", f);
			lua_rawgeti(L, -1, 1);
			sp->size[i - 1] = api_check_size(L, -1, f);
			lua_rawgeti(L, -2, 2);
			sp->size_weight[i - 1] = lua_isnil(L, -1) ? 1 : api_check_pct(L, -1, f);
			lua_pop(L, 3);
		}
	} else {
		sp->size[0] = api_check_size(L, -1, "files.size");
	}
	lua_pop(L, 1);
}

static lua_Integer opt_int(lua_State *L, int t, const char *k, const char *field, lua_Integer dflt, lua_Integer lo,
			   lua_Integer hi)
{
	lua_Integer v = dflt;

	if (lua_getfield(L, t, k) != LUA_TNIL)
		v = api_check_int(L, -1, field, lo, hi);
	lua_pop(L, 1);
	return v;
}

static int opt_bool(lua_State *L, int t, const char *k, const char *field, int dflt)
{
	int v = dflt;

	if (lua_getfield(L, t, k) != LUA_TNIL)
		v = api_check_bool(L, -1, field);
	lua_pop(L, 1);
	return v;
}

static void read_tree(lua_State *L, int p, struct files_spec *sp)
{
	int t;
	int has_dirs, has_tree;

	if (lua_getfield(L, p, "files") != LUA_TTABLE)
		api_input_error(L, "phase.files: a table {dir = PATH, dirs = N, files = N, ...}, got a %s",
				luaL_typename(L, -1));
	t = lua_gettop(L);
	api_check_keys(L, t, "phase.files", files_keys);
	if (lua_getfield(L, t, "dir") != LUA_TSTRING || !lua_tostring(L, -1)[0])
		api_input_error(L, "phase.files.dir: the directory the tree is made in (a path), got %s",
				lua_isnil(L, -1) ? "nothing" : luaL_typename(L, -1));
	if (lua_rawlen(L, -1) >= sizeof(sp->dir) - 64)
		api_input_error(L, "phase.files.dir: a path shorter than %zu bytes", sizeof(sp->dir) - 64);
	snprintf(sp->dir, sizeof(sp->dir), "%s", lua_tostring(L, -1));
	sp->nfs = !strncasecmp(sp->dir, "nfs://", 6);
	if (sp->nfs)
		memcpy(sp->dir, "nfs", 3); /* libnfs takes its scheme in lower case */
	lua_pop(L, 1);
	lua_getfield(L, t, "dirs");
	has_dirs = !lua_isnil(L, -1);
	lua_pop(L, 1);
	lua_getfield(L, t, "depth");
	has_tree = !lua_isnil(L, -1);
	lua_pop(L, 1);
	if (has_dirs && has_tree)
		api_input_error(L, "phase.files: give dirs (one level of that many directories) or depth and width "
				"(a tree of width^depth leaves), not both");
	if (has_tree) {
		sp->depth = (unsigned)opt_int(L, t, "depth", "files.depth", 1, 1, 16);
		sp->width = (unsigned)opt_int(L, t, "width", "files.width", 2, 1, 1 << 20);
	} else {
		sp->depth = 1;
		sp->width = (unsigned)opt_int(L, t, "dirs", "files.dirs", 1, 1, 1 << 24);
		if (opt_int(L, t, "width", "files.width", 0, 0, 1 << 20))
			api_input_error(L, "phase.files.width: goes with depth (a tree); with dirs give no width");
	}
	if (files_leaves(sp) > (1ull << 32))
		api_input_error(L, "phase.files: width^depth is %llu leaf directories; at most 2^32",
				(unsigned long long)files_leaves(sp));
	sp->files = (uint64_t)opt_int(L, t, "files", "files.files", 1, 1, (lua_Integer)1 << 40);
	if (files_leaves(sp) * sp->files > (1ull << 40))
		api_input_error(L, "phase.files: %llu files per tree; at most 2^40", (unsigned long long)(files_leaves(sp) * sp->files));
	sp->shared = opt_bool(L, t, "shared", "files.shared", 0);
	sp->allow_write = opt_bool(L, t, "allow_write", "files.allow_write", 0);
	sp->foreign_tree = opt_bool(L, t, "foreign_tree", "files.foreign_tree", 0);
	read_sizes(L, t, sp);
	lua_pop(L, 1);
}

static void read_ops(lua_State *L, int p, struct files_spec *sp)
{
	int has_op = lua_getfield(L, p, "op") != LUA_TNIL, has_ops;

	if (has_op) {
		if (lua_type(L, -1) != LUA_TSTRING)
			api_input_error(L, "phase.op: an operation's name (\"create\", \"stat\", ...), got a %s",
					luaL_typename(L, -1));
		sp->op = op_named(L, lua_tostring(L, -1), "op");
	}
	lua_pop(L, 1);
	has_ops = lua_getfield(L, p, "ops") != LUA_TNIL;
	if (has_op == has_ops)
		api_input_error(L, "phase: a files phase gives op = \"create\" (one operation over every file) or ops = "
				"{ create = 20, read = 50, ... } (a weighted mix), %s", has_op ? "not both" : "got neither");
	if (has_ops) {
		double total = 0;

		if (!lua_istable(L, -1))
			api_input_error(L, "phase.ops: a table of weights { read = 50, append = 50 }, got a %s",
					luaL_typename(L, -1));
		sp->mix = 1;
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			char f[48];
			enum files_op op;

			if (lua_type(L, -2) != LUA_TSTRING)
				api_input_error(L, "phase.ops: keys are operations' names (read = 50), got a %s",
						luaL_typename(L, -2));
			op = op_named(L, lua_tostring(L, -2), "ops");
			snprintf(f, sizeof(f), "ops.%s", files_op_names[op]);
			if (op == FOP_MKDIR || op == FOP_RMDIR)
				api_input_error(L, "phase.%s: directories are made and removed by op = \"%s\" phases, not in a mix",
						f, files_op_names[op]);
			sp->weight[op] = api_check_pct(L, -1, f);
			total += sp->weight[op];
			lua_pop(L, 1);
		}
		if (total <= 0)
			api_input_error(L, "phase.ops: the weights add up to 0; give at least one above 0");
	}
	lua_pop(L, 1);
}

/* Over nfs://, engine nfs: qd chains of calls in flight per worker. */
static void read_engine_nfs(lua_State *L, struct files_spec *sp, const char *e)
{
	if (strcmp(e, "auto") && strcmp(e, "nfs"))
		api_input_error(L, "phase.engine: a files phase over nfs:// runs on \"nfs\" (or \"auto\"), not '%s'", e);
	sp->uring = 0;
}

static void read_engine(lua_State *L, int p, struct files_spec *sp)
{
	const char *e = "auto";

	if (lua_getfield(L, p, "engine") != LUA_TNIL) {
		if (lua_type(L, -1) != LUA_TSTRING)
			api_input_error(L, "phase.engine: \"psync\" or \"io_uring\", got a %s", luaL_typename(L, -1));
		e = lua_tostring(L, -1);
	}
	if (sp->nfs)
		read_engine_nfs(L, sp, e);
	else if (!strcmp(e, "auto"))
		sp->uring = sp->qd > 1;
	else if (!strcmp(e, "io_uring"))
		sp->uring = 1;
	else if (!strcmp(e, "psync"))
		sp->uring = 0;
	else
		api_input_error(L, "phase.engine: a files phase runs on \"psync\" or \"io_uring\" (or \"auto\"), not '%s'", e);
	if (!sp->nfs && !sp->uring && sp->qd > 1)
		api_input_error(L, "phase.qd: psync does one operation at a time per worker; qd %u asks for io_uring "
				"(engine = \"io_uring\") or qd = 1", sp->qd);
	lua_pop(L, 1);
}

static void parse(lua_State *L, int p, struct files_spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	api_check_keys(L, p, "phase (a files phase)", phase_keys);
	read_tree(L, p, sp);
	read_ops(L, p, sp);
	sp->workers = (unsigned)opt_int(L, p, "workers", "workers", 1, 1, 1024);
	sp->qd = (unsigned)opt_int(L, p, "qd", "qd", 1, 1, 4096);
	read_engine(L, p, sp);
	if (lua_getfield(L, p, "duration") != LUA_TNIL)
		sp->duration_ns = api_check_duration(L, -1, "duration");
	lua_pop(L, 1);
	sp->ios = (uint64_t)opt_int(L, p, "ios", "ios", 0, 0, (lua_Integer)1 << 50);
	sp->interval_ns = 1000000000ull;
	if (lua_getfield(L, p, "interval") != LUA_TNIL) {
		sp->interval_ns = api_check_duration(L, -1, "interval");
		if (sp->interval_ns && sp->interval_ns < 10000000ull)
			api_input_error(L, "phase.interval: at least 10 ms (or 0: no intervals), got %llu ns",
					(unsigned long long)sp->interval_ns);
	}
	lua_pop(L, 1);
	if (sp->mix && !sp->ios && !sp->duration_ns)
		api_input_error(L, "phase: a mix (ops) runs for a duration or a number of operations (ios); give one");
	sp->bs = 64 * 1024;
	if (lua_getfield(L, p, "bs") != LUA_TNIL)
		sp->bs = api_check_size(L, -1, "bs");
	lua_pop(L, 1);
	if (!sp->bs || sp->bs > (1u << 30))
		api_input_error(L, "phase.bs: the I/O size inside a file, from 1 byte to 1 GiB, got %llu",
				(unsigned long long)sp->bs);
	sp->fsync = opt_bool(L, p, "fsync", "fsync", 0);
	sp->direct = opt_bool(L, p, "direct", "direct", 0);
	if (sp->direct && sp->nfs)
		api_input_error(L, "phase.direct: over nfs:// there is no local page cache to bypass; leave direct out");
	if (sp->direct) {
		if (sp->bs % 512)
			api_input_error(L, "phase.bs: %llu is not a multiple of 512 (direct = true)", (unsigned long long)sp->bs);
		for (unsigned i = 0; i < sp->nsize; i++)
			if (sp->size[i] % 512)
				api_input_error(L, "phase.files.size: %llu is not a multiple of 512 (direct = true)",
						(unsigned long long)sp->size[i]);
	}
	sp->seed = (uint64_t)opt_int(L, p, "seed", "seed", 1, 0, LUA_MAXINTEGER);
	sp->rank = cluster_on() ? (int)cluster_rank() : -1;
	sp->ranks = cluster_ranks();
	if (lua_getfield(L, p, "name") != LUA_TNIL && lua_type(L, -1) != LUA_TSTRING)
		api_input_error(L, "phase.name: a string, got a %s", luaL_typename(L, -1));
	lua_pop(L, 1);
}

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

/* errors_by_errno of operations ops (n of them; NULL: all) by name, into
 * the table on top. */
static void push_by_errno(lua_State *L, const struct files_result *r, const enum files_op *ops, unsigned n)
{
	lua_newtable(L);
	luaL_setmetatable(L, OBJECT_MT);
	for (int e = 1; e < FILES_ERRNO_N; e++) {
		uint64_t c = 0;
		const char *name = strerrorname_np(e);

		for (unsigned i = 0; i < (ops ? n : FOP_N); i++)
			c += r->op[ops ? ops[i] : (enum files_op)i].by_errno[e];
		if (c)
			api_set_int(L, name ? name : "unknown", c);
	}
	lua_setfield(L, -2, "errors_by_errno");
}

/* read / write: the operations that read and wrote file data, as a
 * block phase's op table. */
static void push_io(lua_State *L, const struct files_result *r, const enum files_op *ops, unsigned n, uint64_t bytes)
{
	struct hist h;
	uint64_t ios = 0, errors = 0;

	hist_init(&h);
	for (unsigned i = 0; i < n; i++) {
		hist_merge(&h, &r->op[ops[i]].lat);
		ios += r->op[ops[i]].ops;
		errors += r->op[ops[i]].errors;
	}
	lua_createtable(L, 0, 8);
	api_set_int(L, "ios", ios);
	api_set_int(L, "bytes", bytes);
	api_set_num(L, "iops", r->seconds > 0 ? (double)ios / r->seconds : 0);
	api_set_num(L, "mb_per_s", r->seconds > 0 ? (double)bytes / r->seconds / 1e6 : 0);
	api_set_num(L, "mib_per_s", r->seconds > 0 ? (double)bytes / r->seconds / 1048576.0 : 0);
	api_set_int(L, "errors", errors);
	push_lat(L, &h, 0);
	lua_setfield(L, -2, "lat");
	push_by_errno(L, r, ops, n);
}

static void push_ops(lua_State *L, const struct files_spec *sp, const struct files_result *r)
{
	lua_newtable(L);
	for (int op = 0; op < FOP_N; op++) {
		const struct files_opres *o = &r->op[op];

		if (!o->ops && !o->errors && !(sp->mix ? sp->weight[op] > 0 : sp->op == (enum files_op)op))
			continue;
		lua_createtable(L, 0, 5);
		api_set_int(L, "ops", o->ops);
		api_set_num(L, "ops_per_s", r->seconds > 0 ? (double)o->ops / r->seconds : 0);
		api_set_int(L, "errors", o->errors);
		api_set_int(L, "missing", o->missing);
		push_lat(L, &o->lat, 0);
		lua_setfield(L, -2, "lat");
		lua_pushstring(L, sp->nfs ? "libnfs" : sp->uring && op != FOP_READDIR ? "io_uring" : "syscall");
		lua_setfield(L, -2, "how");
		lua_setfield(L, -2, files_op_names[op]);
	}
	lua_setfield(L, -2, "ops");
}

/* files.dir as it may be shown: an nfs:// URL without its password. */
static const char *shown_dir(const struct files_spec *sp, char *out, size_t len)
{
	if (!sp->nfs)
		return sp->dir;
	net_redact(sp->dir, out, len);
	return out;
}

static const char *engine_name(const struct files_spec *sp)
{
	return sp->nfs ? "nfs" : sp->uring ? "io_uring" : "psync";
}

static void push_files(lua_State *L, const struct files_spec *sp, const struct files_result *r)
{
	char dir[PATH_MAX];

	lua_createtable(L, 0, 16);
	lua_pushstring(L, shown_dir(sp, dir, sizeof(dir)));
	lua_setfield(L, -2, "dir");
	if (!sp->mix) {
		lua_pushstring(L, files_op_names[sp->op]);
		lua_setfield(L, -2, "op");
	}
	api_set_int(L, "created", r->created);
	api_set_int(L, "deleted", r->deleted);
	api_set_int(L, "dirs", r->dirs_made);
	api_set_int(L, "dirs_removed", r->dirs_removed);
	api_set_int(L, "bytes", r->bytes_written);
	api_set_int(L, "bytes_read", r->bytes_read);
	api_set_int(L, "prefilled", r->prefilled);
	api_set_int(L, "linked", r->chains);
	api_set_num(L, "first_done_s", r->first_done_s);
	api_set_num(L, "last_done_s", r->last_done_s);
	api_set_int(L, "depth", sp->depth);
	api_set_int(L, "width", sp->width);
	api_set_int(L, "per_dir", sp->files);
	lua_pushboolean(L, sp->shared);
	lua_setfield(L, -2, "shared");
	lua_setfield(L, -2, "files");
}

/* result.intervals: each interval's operations (as iops), bytes, latency */
static void push_intervals(lua_State *L, const struct files_result *r)
{
	lua_createtable(L, (int)r->niv, 0);
	for (unsigned i = 0; i < r->niv; i++) {
		const struct files_interval *iv = &r->iv[i];
		const double s = iv->len_s > 0 ? iv->len_s : 1;

		lua_createtable(L, 0, 11);
		api_set_num(L, "t_s", iv->t_s);
		api_set_num(L, "len_s", iv->len_s);
		api_set_num(L, "iops", (double)iv->ops / s);
		api_set_num(L, "mb_per_s", (double)iv->bytes / s / 1e6);
		api_set_int(L, "p50_ns", iv->p50_ns);
		api_set_int(L, "p99_ns", iv->p99_ns);
		api_set_int(L, "max_ns", iv->max_ns);
		api_set_int(L, "ios", iv->ops);
		api_set_num(L, "read_iops", (double)iv->read_ops / s);
		api_set_num(L, "write_iops", (double)iv->write_ops / s);
		api_set_num(L, "trim_iops", 0);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "intervals");
}

static void set_str(lua_State *L, const char *k, const char *v)
{
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

static void set_bool(lua_State *L, const char *k, int v)
{
	lua_pushboolean(L, v);
	lua_setfield(L, -2, k);
}

/* The fields every result has (lua_result_fields.c), as a files phase fills them. */
static void push_common(lua_State *L, const struct files_spec *sp, const struct files_result *r, const char *name)
{
	static const enum files_op rd[] = { FOP_READ }, wr[] = { FOP_CREATE, FOP_WRITE, FOP_APPEND };
	uint64_t ops = 0, errors = 0, bytes = r->bytes_read + r->bytes_written;
	struct hist all;
	const double s = r->seconds;
	char dir[PATH_MAX];

	hist_init(&all);
	for (int op = 0; op < FOP_N; op++) {
		ops += r->op[op].ops;
		errors += r->op[op].errors;
		hist_merge(&all, &r->op[op].lat);
	}
	set_str(L, "name", name);
	api_set_int(L, "ios", ops);
	api_set_int(L, "bytes", bytes);
	api_set_num(L, "iops", s > 0 ? (double)ops / s : 0);
	api_set_num(L, "mb_per_s", s > 0 ? (double)bytes / s / 1e6 : 0);
	api_set_num(L, "mib_per_s", s > 0 ? (double)bytes / s / 1048576.0 : 0);
	api_set_num(L, "seconds", s);
	api_set_time(L, "started", r->started_ns);
	api_set_time(L, "ended", r->ended_ns);
	api_set_int(L, "errors", errors);
	api_set_int(L, "workers", sp->workers);
	api_set_int(L, "qd", sp->qd);
	api_set_int(L, "qd_max", sp->qd);
	set_str(L, "engine", engine_name(sp));
	const int opens = sp->mix || sp->op == FOP_CREATE || sp->op == FOP_WRITE || sp->op == FOP_APPEND ||
			  sp->op == FOP_READ || sp->op == FOP_OPEN;

	set_str(L, "engine_features", sp->nfs ? "files: libnfs, qd operations in flight per worker on one connection"
		: !sp->uring ? ""
		: r->chains ? "files: open, write, fsync, close linked in one submission (direct descriptors); "
			      "readdir by syscall (no getdents in the ring)"
		: opens ? "files: step by step (this ring has no direct descriptors); readdir by syscall (no getdents "
			  "in the ring)"
			: "files: one opcode per operation; readdir by syscall (no getdents in the ring)");
	set_bool(L, "interrupted", r->interrupted);
	set_bool(L, "failed", 0);
	set_bool(L, "direct", sp->direct);
	set_str(L, "target", shown_dir(sp, dir, sizeof(dir)));
	push_lat(L, &all, 1);
	lua_setfield(L, -2, "lat");
	lua_createtable(L, 0, 7);
	/* as a block phase's: the machine's CPUs (under MPI the ranks' mean),
	 * this process's times (the ranks' sum) and its share of the machine */
	api_set_num(L, "util_pct", r->cpu.util_pct);
	api_set_num(L, "user_pct", r->cpu.user_pct);
	api_set_num(L, "sys_pct", r->cpu.sys_pct);
	api_set_num(L, "self_pct", r->cpu.self_pct);
	api_set_num(L, "other_pct", r->cpu.other_pct);
	api_set_num(L, "other_user_pct", r->cpu.other_user_pct);
	api_set_num(L, "user_s", r->user_s);
	api_set_num(L, "sys_s", r->sys_s);
	lua_setfield(L, -2, "cpu");
	push_io(L, r, rd, 1, r->bytes_read);
	lua_setfield(L, -2, "read");
	push_io(L, r, wr, 3, r->bytes_written);
	lua_setfield(L, -2, "write");
	api_set_num(L, "ramp_s", 0);
	lua_newtable(L);
	lua_setfield(L, -2, "mix");
	set_str(L, "dist", "uniform");
	api_set_int(L, "seed", sp->seed);
	api_set_num(L, "duration_s", (double)sp->duration_ns / 1e9);
	api_set_int(L, "quota_ios", sp->ios);
	api_set_int(L, "quota_bytes", 0);
	api_set_int(L, "batch", 1);
	api_set_num(L, "interval_s", (double)sp->interval_ns / 1e9);
	set_str(L, "open_sync", sp->fsync ? "fsync" : "none");
	push_by_errno(L, r, NULL, 0);
	lua_newtable(L);
	if (r->first_errno) {
		lua_createtable(L, 0, 5);
		set_str(L, "op", "file");
		api_set_int(L, "offset", 0);
		api_set_int(L, "len", 0);
		api_set_int(L, "errno", (uint64_t)r->first_errno);
		set_str(L, "message", r->first_error);
		lua_pushvalue(L, -1);
		lua_setfield(L, -4, "first_error");
		lua_rawseti(L, -2, 1);
	}
	lua_setfield(L, -2, "first_errors");
	push_intervals(L, r);
	api_set_int(L, "batch_used", 1);
}

/* result.definition: the phase as it ran, plain data iomoon.run takes
 * again (iomoon rerun). */
static void push_definition(lua_State *L, const struct files_spec *sp, const char *name)
{
	char dir[PATH_MAX];

	lua_createtable(L, 0, 12);
	set_str(L, "name", name);
	lua_createtable(L, 0, 8);
	set_str(L, "dir", shown_dir(sp, dir, sizeof(dir)));
	if (sp->depth == 1) {
		api_set_int(L, "dirs", sp->width);
	} else {
		api_set_int(L, "depth", sp->depth);
		api_set_int(L, "width", sp->width);
	}
	api_set_int(L, "files", sp->files);
	lua_createtable(L, (int)sp->nsize, 0);
	for (unsigned i = 0; i < sp->nsize; i++) {
		lua_createtable(L, 2, 0);
		lua_pushinteger(L, (lua_Integer)sp->size[i]);
		lua_rawseti(L, -2, 1);
		lua_pushnumber(L, sp->size_weight[i]);
		lua_rawseti(L, -2, 2);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "size");
	set_bool(L, "shared", sp->shared);
	set_bool(L, "allow_write", sp->allow_write);
	if (sp->foreign_tree)
		set_bool(L, "foreign_tree", 1);
	lua_setfield(L, -2, "files");
	if (sp->mix) {
		lua_newtable(L);
		for (int op = 0; op < FOP_N; op++)
			if (sp->weight[op] > 0)
				api_set_num(L, files_op_names[op], sp->weight[op]);
		lua_setfield(L, -2, "ops");
	} else {
		set_str(L, "op", files_op_names[sp->op]);
	}
	api_set_int(L, "workers", sp->workers);
	api_set_int(L, "qd", sp->qd);
	set_str(L, "engine", engine_name(sp));
	if (sp->duration_ns)
		api_set_num(L, "duration", (double)sp->duration_ns / 1e9);
	if (sp->ios)
		api_set_int(L, "ios", sp->ios);
	api_set_int(L, "bs", sp->bs);
	set_bool(L, "fsync", sp->fsync);
	set_bool(L, "direct", sp->direct);
	api_set_int(L, "seed", sp->seed);
	lua_setfield(L, -2, "definition");
}

static void check_spec(lua_State *L, const struct files_spec *sp)
{
	char why[WHY_LEN];
	int rc = files_check(sp, why, sizeof(why));

	if (rc == RC_INPUT)
		api_raise_error(L, IOMOON_INPUT_ERROR, why);
	if (rc != RC_OK)
		api_raise_error(L, IOMOON_RUN_ERROR, why);
	if (sp->ranks > 1 && sp->ios && sp->ios < sp->ranks)
		api_input_error(L, "phase.ios: %llu cannot be split over %u ranks (the phase's quota is the cluster's; "
				"give at least one operation per rank)", (unsigned long long)sp->ios, sp->ranks);
	if (sp->ranks > 1 && sp->shared && !sp->mix && (sp->op == FOP_MKDIR || sp->op == FOP_RMDIR) && sp->depth > 1)
		api_input_error(L, "phase.files.depth: %u; a tree shared by %u ranks makes and removes its directories "
				"(op = \"%s\") only at depth 1 (dirs = N): a level must be whole before the next, and ranks do "
				"not wait for each other between levels (shared = false, or dirs)", sp->depth, sp->ranks,
				files_op_names[sp->op]);
}

int api_check_files(lua_State *L)
{
	struct files_spec *sp = lua_newuserdatauv(L, sizeof(*sp), 0);

	parse(L, 1, sp);
	check_spec(L, sp);
	lua_pushboolean(L, 1);
	return 1;
}

/* --- under MPI: the check and the tree's root agreed on by every rank --- */

static const char *const shape_names[CLUSTER_SHAPE] = { "name", "op or ops", "duration", "ios", "interval",
							"shared", "workers (of a shared tree)", "depth, width or dirs",
							"files" };

static int64_t fnv(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ *c++) * 1099511628211ull;
	return (int64_t)(h >> 1);
}

static void files_shape(const struct files_spec *sp, const char *name, struct cluster_shape *sh)
{
	const int64_t ops = sp->mix ? fnv(sp->weight, sizeof(sp->weight)) : (int64_t)sp->op;

	*sh = (struct cluster_shape){ { fnv(name, strlen(name)), ops, (int64_t)sp->duration_ns, (int64_t)sp->ios,
					(int64_t)sp->interval_ns, sp->shared, sp->shared ? sp->workers : 0,
					(int64_t)sp->depth << 32 | sp->width, (int64_t)sp->files } };
}

/* In a cluster, every rank's rc (why) at p, and its phase (sp, or NULL
 * when its check failed): RC_OK, or the agreed failure with out. */
static int agree(enum cluster_point p, const struct files_spec *sp, const char *name, int rc, const char *why,
		 char *out, size_t len)
{
	const struct cluster_phrases say = { name, "files phases", shape_names, "dir, engine and qd" };
	struct cluster_shape sh;

	if (sp)
		files_shape(sp, name, &sh);
	return api_cluster_agreed(p, rc, why, sp ? &sh : NULL, &say, out, len);
}

static int check_fn(lua_State *L)
{
	struct files_spec *sp = lua_touserdata(L, 2);

	parse(L, 1, sp);
	check_spec(L, sp);
	return 0;
}

/* The phase at index 1 parsed and checked into sp: in a cluster on every
 * rank, agreed on, then the tree's root made by rank 0 before the others
 * open it (the same dir on a shared file system), agreed on. An input
 * error (the same on every rank) otherwise. */
static void check_agreed(lua_State *L, struct files_spec *sp, const char *name)
{
	char why[WHY_LEN] = "", out[WHY_LEN];
	int rc, root;

	if (!cluster_on()) {
		parse(L, 1, sp);
		check_spec(L, sp);
		return;
	}
	lua_pushvalue(L, 1);
	lua_pushlightuserdata(L, sp);
	rc = api_pcall_why(L, check_fn, 2, why, sizeof(why));
	rc = agree(CLUSTER_CHECK, rc == RC_OK ? sp : NULL, name, rc, why, out, sizeof(out));
	if (rc == RC_OK) { /* every rank here, or none */
		if (cluster_rank() == 0 && (sp->mix || sp->op == FOP_MKDIR || sp->op == FOP_CREATE)) {
			rc = sp->nfs ? files_nfs_tree_open(sp, 1, why, sizeof(why)) : files_tree_open(sp, 1, &root, why,
												     sizeof(why));
			if (rc == RC_OK && !sp->nfs)
				close(root);
		}
		rc = agree(CLUSTER_CREATE, sp, name, rc, why, out, sizeof(out));
	}
	if (rc != RC_OK)
		api_raise_error(L, rc == RC_INPUT ? IOMOON_INPUT_ERROR : IOMOON_RUN_ERROR, out);
}

int api_run_files(lua_State *L, long long phase_no)
{
	struct files_spec *sp = lua_newuserdatauv(L, sizeof(*sp), 0); /* index 2 */
	struct files_result *r;
	struct cluster_result cres;
	char why[WHY_LEN], name[128];
	uint64_t asked;
	int rc;

	lua_settop(L, 2);
	if (lua_getfield(L, 1, "name") == LUA_TSTRING)
		snprintf(name, sizeof(name), "%s", lua_tostring(L, -1));
	else
		snprintf(name, sizeof(name), "phase %lld", phase_no);
	lua_pop(L, 1);
	check_agreed(L, sp, name);
	sp->progress = api_progress_fn();
	snprintf(sp->progress_name, sizeof(sp->progress_name), "%s", name);
	r = malloc(sizeof(*r));
	if (!r)
		return api_raise_error(L, IOMOON_RUN_ERROR, "files: out of memory for the result");
	asked = sp->ios; /* under MPI the quota is the cluster's: this rank's share of it */
	sp->ios = sp->ranks > 1 && asked ? asked / sp->ranks + (cluster_rank() < asked % sp->ranks) : asked;
	rc = files_run(sp, r, why, sizeof(why));
	sp->ios = asked;
	if (sp->progress)
		fprintf(stderr, "\r\033[K");
	if (rc == RC_OK && cluster_files_end(sp, r, &cres)) {
		rc = RC_FAIL;
		snprintf(why, sizeof(why), "files: out of memory for the cluster's result (on some rank)");
	}
	if (rc != RC_OK) {
		files_result_free(r);
		free(r);
		return api_raise_error(L, rc == RC_INPUT ? IOMOON_INPUT_ERROR : IOMOON_RUN_ERROR, why);
	}
	lua_createtable(L, 0, 48);
	push_common(L, sp, r, name);
	push_ops(L, sp, r);
	push_files(L, sp, r);
	push_definition(L, sp, name);
	if (cluster_on())
		api_push_cluster(L, &cres);
	cluster_files_free(&cres);
	lua_getfield(L, 1, "meta");
	lua_setfield(L, -2, "meta");
	files_result_free(r);
	free(r);
	return 1;
}
