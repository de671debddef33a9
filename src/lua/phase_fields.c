/* phase_fields.c - the fields of a phase table, described once.
 *
 * `fields` below is the whole vocabulary of iomoon.run: each row names a
 * field, how it is read (a kind, a range, a default) and where its value
 * goes in struct run_state. One loop reads them, in the table's order, so a
 * reader may rely on the rows above it (schedule sees whether rate was
 * given). The plain kinds need no code of their own; the rows with a
 * reader are the fields with structure (targets, mix, pacing, dist).
 * Parsing checks types, ranges and names only: what needs other fields or
 * the targets is phase_check.c's.
 */
#include <lauxlib.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/engine.h"
#include "lua/lua_cluster.h"
#include "lua/lua_int.h"
#include "lua/lua_phase.h"
#include "lua/phase_read.h"
#include "core/shown.h"
#include "run/data.h"

/* How a field's value is read. */
enum field_kind {
	FK_BOOL,     /* true or false; stored as an int */
	FK_INT,      /* a whole number in lo..hi */
	FK_SIZE,     /* bytes (4096, "4k"); lo 1: above zero */
	FK_DURATION, /* ns from seconds or "10ms"; at least lo ns */
	FK_ENUM,     /* one of names; stored as its index */
	FK_FLAG,     /* true sets bit lo of an unsigned, false leaves it */
	FK_READER,   /* read by the row's function */
	FK_PART,     /* read by another row's function (bs, read, random, align: the mix's) */
};

struct phase_field {
	const char *name;
	enum field_kind kind;
	size_t off, size;        /* where in struct run_state, and its width (4 or 8 bytes) */
	uint64_t dflt;           /* the value when absent */
	int64_t lo, hi;
	const char *const *names; /* FK_ENUM */
	field_reader *read;       /* FK_READER */
	const char *hint;         /* FK_DURATION below lo: why; FK_ENUM: what a value is */
	int phase_only;           /* the phase's alone: a stream may not give it */
	unsigned group;           /* G_*: fields a stream gives together, replacing the phase's */
};

/* A stream that gives one field of a group replaces the phase's whole
 * group: its own mix (not the phase's bs with the stream's read %), its
 * own pacing, its own targets, its own region, its own fsync or fdatasync. */
#define G_MIX 1u
#define G_PACE 2u
#define G_TARGET 4u
#define G_REGION 8u
#define G_SYNC 16u

static field_reader read_name, read_targets, read_engine, read_batch, read_region, read_verify, read_meta,
	read_streams, read_compress, read_dedupe, read_verify_state, read_stop_if;

static const char *const patterns[] = { "random", "zero", "offset", "repeat", "reuse", NULL };
static const char *const on_errors[] = { "stop", "continue", NULL };
static const char *const open_syncs[] = { "none", "dsync", "sync", NULL };

#define AT(m) .off = offsetof(struct run_state, m), .size = sizeof(((struct run_state *)0)->m)
#define READER(n, fn, ...) { .name = n, .kind = FK_READER, .read = fn, __VA_ARGS__ }
#define PART(n) { .name = n, .kind = FK_PART, .group = G_MIX }
#define PHASE_ONLY .phase_only = 1

static const struct phase_field fields[] = {
	READER("name", read_name),
	READER("target", read_targets, .group = G_TARGET),
	READER("engine", read_engine, PHASE_ONLY),
	{ .name = "direct", .kind = FK_BOOL, AT(sp.direct), .dflt = 1 },
	{ .name = "workers", .kind = FK_INT, AT(sp.workers), .dflt = 0, .lo = 1, .hi = PHASE_MAX_WORKERS }, /* 0: one per target */
	{ .name = "qd", .kind = FK_INT, AT(sp.qd), .dflt = 1, .lo = 1, .hi = PHASE_MAX_QD },
	READER("batch", read_batch),
	PART("bs"), PART("read"), PART("trim"), PART("random"), PART("align"), PART("skip"), /* before mix, which reads them */
	READER("mix", read_mix, .group = G_MIX),
	READER("region", read_region, .group = G_REGION),
	{ .name = "seq_start", .kind = FK_SIZE, AT(sp.seq_start), .group = G_REGION },
	{ .name = "random_map", .kind = FK_BOOL, AT(wl.random_map), .dflt = 0 },
	{ .name = "ramp", .kind = FK_DURATION, AT(sp.ramp_ns), PHASE_ONLY },
	{ .name = "duration", .kind = FK_DURATION, AT(sp.duration_ns), .lo = 1,
	  .hint = "give a duration above zero, e.g. \"10s\"", PHASE_ONLY },
	{ .name = "start_delay", .kind = FK_DURATION, AT(sp.start_delay_ns) },
	{ .name = "ios", .kind = FK_INT, AT(sp.ios), .lo = 1, .hi = INT64_MAX },
	{ .name = "bytes", .kind = FK_SIZE, AT(sp.bytes) },
	READER("rate", read_rate, .group = G_PACE),
	READER("schedule", read_schedule, .group = G_PACE),
	READER("think", read_think, .group = G_PACE),
	READER("dist", read_dist),
	{ .name = "pattern", .kind = FK_ENUM, AT(sp.pattern), .dflt = PATTERN_RANDOM, .names = patterns,
	  .hint = "a data pattern" },
	READER("compress", read_compress),
	READER("dedupe", read_dedupe),
	{ .name = "dedupe_unit", .kind = FK_SIZE, AT(sp.dedupe_unit), .dflt = 4096 },
	{ .name = "dedupe_sets", .kind = FK_INT, AT(sp.dedupe_sets), .dflt = 0, .lo = 1, .hi = 1ll << 32 },
	READER("verify", read_verify),
	{ .name = "fsync", .kind = FK_INT, AT(sp.fsync_every), .lo = 1, .hi = 1000000000, .group = G_SYNC },
	{ .name = "fdatasync", .kind = FK_INT, AT(sp.fdatasync_every), .lo = 1, .hi = 1000000000, .group = G_SYNC },
	{ .name = "sync", .kind = FK_ENUM, AT(sp.open_sync), .dflt = OPEN_SYNC_NONE, .names = open_syncs,
	  .hint = "a way to open for writing" },
	{ .name = "verify_only", .kind = FK_BOOL, AT(verify_only) },
	{ .name = "after_crash", .kind = FK_BOOL, AT(sp.after_crash) },
	{ .name = "atomic", .kind = FK_BOOL, AT(sp.atomic) },
	{ .name = "need_state", .kind = FK_BOOL, AT(sp.need_state) },
	{ .name = "trim_secure", .kind = FK_BOOL, AT(sp.trim_secure) },
	READER("verify_state", read_verify_state, PHASE_ONLY),
	{ .name = "skip_unwritten", .kind = FK_BOOL, AT(sp.skip_unwritten), .dflt = (uint64_t)-1 }, /* -1: by the mix */
	{ .name = "seed", .kind = FK_INT, AT(sp.seed), .dflt = 1, .lo = 0, .hi = INT64_MAX, PHASE_ONLY },
	{ .name = "interval", .kind = FK_DURATION, AT(sp.interval_ns), .dflt = 1000000000ull, .lo = 10000000,
	  .hint = "is shorter than 10 ms (the shortest sampling interval)", PHASE_ONLY },
	{ .name = "on_error", .kind = FK_ENUM, AT(sp.on_error_continue), .dflt = 0, .names = on_errors,
	  .hint = "allowed", PHASE_ONLY },
	{ .name = "trace", .kind = FK_INT, AT(sp.trace_max), .lo = 0, .hi = 100000000, PHASE_ONLY },
	{ .name = "sim_latency", .kind = FK_DURATION, AT(sp.sim_latency_ns), .dflt = 100000, PHASE_ONLY },
	READER("meta", read_meta),
	READER("stop_if", read_stop_if, PHASE_ONLY),
	{ .name = "end_first", .kind = FK_BOOL, AT(sp.end_first), .dflt = 0, PHASE_ONLY },
	READER("ioprio", read_ioprio),
	READER("cmdprio", read_cmdprio),
	{ .name = "sqpoll", .kind = FK_FLAG, AT(sp.engine_flags), .lo = ENGINE_SQPOLL, PHASE_ONLY },
	{ .name = "iopoll", .kind = FK_FLAG, AT(sp.engine_flags), .lo = ENGINE_IOPOLL, PHASE_ONLY },
	{ .name = "defer_taskrun", .kind = FK_FLAG, AT(sp.engine_flags), .lo = ENGINE_DEFER_TASKRUN, PHASE_ONLY },
	READER("replay", read_replay, .group = G_MIX | G_PACE),
	READER("streams", read_streams, PHASE_ONLY), /* last: a stream starts from all of the above */
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
_Static_assert(NFIELDS <= 64, "run_state.given has a bit per field");

/* Put v where row f says, at the member's width (4 or 8 bytes). */
static void store(struct run_state *rs, const struct phase_field *f, uint64_t v)
{
	char *p = (char *)rs + f->off;

	if (f->size == sizeof(uint64_t)) {
		memcpy(p, &v, sizeof(v));
	} else {
		uint32_t u = (uint32_t)v;

		memcpy(p, &u, sizeof(u));
	}
}

/* What row f's member holds now. */
static uint64_t loaded(const struct run_state *rs, const struct phase_field *f)
{
	const char *p = (const char *)rs + f->off;
	uint64_t v = 0;
	uint32_t u;

	if (f->size == sizeof(uint64_t)) {
		memcpy(&v, p, sizeof(v));
		return v;
	}
	memcpy(&u, p, sizeof(u));
	return u;
}

/* The index of the string at v in the NULL-ended names, or an input error
 * listing them (in quotes, as Lua strings, unless they are bare words
 * users type on the command line too: engine names). */
static unsigned check_option(lua_State *L, int v, const char *field, const char *const *names, const char *what,
			     int quoted)
{
	const char *s = lua_type(L, v) == LUA_TSTRING ? lua_tostring(L, v) : NULL;
	char list[256] = "";
	size_t n = 0;

	for (unsigned i = 0; names[i]; i++) {
		if (s && !strcmp(s, names[i]))
			return i;
		n += snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, quoted ? "%s\"%s\"" : "%s%s",
			      i ? ", " : "", names[i]);
	}
	return (unsigned)api_input_error(L, "%s: '%s' is not %s (allowed: %s)", field,
					 s ? s : luaL_typename(L, v), what, list);
}

/* One plain field's value at v into rs. */
static void read_plain(lua_State *L, int v, struct run_state *rs, const struct phase_field *f, const char *field)
{
	uint64_t x = 0;

	switch (f->kind) {
	case FK_BOOL:
		x = (uint64_t)api_check_bool(L, v, field);
		break;
	case FK_FLAG:
		x = loaded(rs, f) | (api_check_bool(L, v, field) ? (uint64_t)f->lo : 0);
		break;
	case FK_INT:
		x = (uint64_t)api_check_int(L, v, field, f->lo, f->hi);
		break;
	case FK_SIZE:
		x = api_check_size(L, v, field);
		break;
	case FK_DURATION:
		x = api_check_duration(L, v, field);
		if (x < (uint64_t)f->lo && f->lo == 1)
			api_input_error(L, "%s: 0 (%s)", field, f->hint);
		if (x < (uint64_t)f->lo)
			api_input_error(L, "%s: %s %s", field, lua_tostring(L, v), f->hint);
		break;
	case FK_ENUM:
		x = check_option(L, v, field, f->names, f->hint, 1);
		break;
	default:
		return;
	}
	store(rs, f, x);
}

/* The field names, NULL-ended, for api_check_keys: a phase's, or (stream)
 * a stream's, which has no phase-only field. */
static const char *const *field_names(int stream)
{
	static const char *names[2][NFIELDS + 1];

	if (!names[stream][0])
		for (unsigned i = 0, n = 0; i < NFIELDS; i++)
			if (!stream || !fields[i].phase_only)
				names[stream][n++] = fields[i].name;
	return names[stream];
}

/* fio's names of a phase's fields (a job file's habits): each refused
 * naming iomoon's field, which edit distance alone would not find. */
static const struct {
	const char *fio, *ours;
} fio_names[] = {
	{ "iodepth", "qd" },
	{ "numjobs", "workers" },
	{ "rw", "read and random (fio's rw=randrw, rwmixread=70 is read = 70, random = 100)" },
	{ "readwrite", "read and random (fio's rw=randrw, rwmixread=70 is read = 70, random = 100)" },
	{ "rwmixread", "read (the percentage of reads)" },
	{ "runtime", "duration" },
	{ "blocksize", "bs" },
	{ "ioengine", "engine" },
	{ "ramp_time", "ramp" },
	{ "number_ios", "ios" },
};

static void refuse_fio_names(lua_State *L, int idx, const char *what)
{
	for (unsigned i = 0; i < sizeof(fio_names) / sizeof(fio_names[0]); i++) {
		if (lua_getfield(L, idx, fio_names[i].fio) != LUA_TNIL)
			api_input_error(L, "%s: unknown field '%s', fio's name: did you mean %s? (doc/lua-api.md, \"Phases\"; "
					"iomoon fio runs a job file as it is)", what, fio_names[i].fio, fio_names[i].ours);
		lua_pop(L, 1);
	}
}

/* Which fields the table at idx gives (rs->given), and the keys it has
 * that are no field (an input error, with the nearest field's name). */
static void find_given(lua_State *L, int idx, struct run_state *rs, int stream)
{
	rs->given = 0;
	for (unsigned i = 0; stream && i < NFIELDS; i++) {
		if (!fields[i].phase_only)
			continue;
		if (lua_getfield(L, idx, fields[i].name) != LUA_TNIL)
			api_input_error(L, "%s.%s: belongs to the phase, not to a stream (the phase's %s holds for every "
					"stream)", rs->path, fields[i].name, fields[i].name);
		lua_pop(L, 1);
	}
	refuse_fio_names(L, idx, rs->path);
	api_check_keys(L, idx, rs->path, field_names(stream));
	for (unsigned i = 0; i < NFIELDS; i++) {
		if (lua_getfield(L, idx, fields[i].name) != LUA_TNIL)
			rs->given |= 1ull << i;
		lua_pop(L, 1);
	}
}

/* Read row f of the table at rs->table into rs. */
static void read_row(lua_State *L, struct run_state *rs, const struct phase_field *f, int given)
{
	char field[64];

	snprintf(field, sizeof(field), "%s.%s", rs->path, f->name);
	lua_getfield(L, rs->table, f->name);
	if (f->kind == FK_READER)
		f->read(L, lua_gettop(L), rs, field); /* a reader sees nil too: its default is its own */
	else if (!given && f->kind != FK_PART && f->kind != FK_FLAG)
		store(rs, f, f->dflt);
	else if (given)
		read_plain(L, -1, rs, f, field);
	lua_pop(L, 1);
}

void phase_parse(lua_State *L, int idx, struct run_state *rs)
{
	rs->table = lua_absindex(L, idx);
	snprintf(rs->path, sizeof(rs->path), "phase");
	find_given(L, rs->table, rs, 0);
	rs->qd_given = phase_given(rs, "qd");
	for (unsigned i = 0; i < NFIELDS; i++)
		read_row(L, rs, &fields[i], (rs->given >> i) & 1);
}

int phase_given(const struct run_state *rs, const char *name)
{
	for (unsigned i = 0; i < NFIELDS; i++)
		if (!strcmp(fields[i].name, name))
			return (rs->given >> i) & 1;
	return 0;
}

/* ---- the fields with structure ---- */

/* A phase's or stream's name: a string (or number), no NUL, under 128
 * bytes; absent, lua_phase.c (a phase) or new_stream (a stream) names it. */
static void read_name(lua_State *L, int v, struct run_state *rs, const char *field)
{
	size_t len;

	rs->sp.name = rs->name;
	if (lua_isnil(L, v))
		return; /* lua_phase.c numbers it */
	if (lua_type(L, v) != LUA_TSTRING && lua_type(L, v) != LUA_TNUMBER)
		api_input_error(L, "%s: a %s is not a name (give a string)", field, luaL_typename(L, v));
	lua_pushvalue(L, v); /* lua_tolstring would turn a number in the table into a string */
	if (strlen(lua_tolstring(L, -1, &len)) != len)
		api_input_error(L, "%s: holds a NUL byte (every report would cut the name there)", field);
	if (len >= sizeof(rs->name))
		api_input_error(L, "%s: %zu bytes (at most %zu)", field, len, sizeof(rs->name) - 1);
	memcpy(rs->name, lua_tostring(L, -1), len + 1);
	lua_pop(L, 1);
}

/* Keep the target userdata on top of the stack alive as long as rs (its
 * user value's table), and pop it. */
static void anchor_target(lua_State *L, struct run_state *rs, unsigned i)
{
	lua_getiuservalue(L, rs->self, 1);
	lua_pushvalue(L, -2);
	lua_rawseti(L, -2, (lua_Integer)i + 1);
	lua_pop(L, 2);
}

/* One element of phase.target: a target object, an option table, or a
 * path (used as it is). Option tables and paths are created later. */
static void read_one_target(lua_State *L, int v, struct run_state *rs, unsigned i, const char *what)
{
	struct target_opts *o = &rs->pending[i];

	if (luaL_testudata(L, v, TARGET_MT)) {
		rs->sp.targets[i] = api_check_target(L, v);
		lua_pushvalue(L, v);
		anchor_target(L, rs, i);
		return;
	}
	if (lua_type(L, v) == LUA_TSTRING) {
		*o = (struct target_opts){ .what = what, .path = api_expand_path(L, lua_tostring(L, v)), .create = 0,
					   .fill = FILL_NONE };
	} else if (lua_istable(L, v)) {
		api_target_opts(L, v, o, what);
		lua_pop(L, 1); /* the path string: the phase table keeps it alive */
	} else {
		api_input_error(L, "%s: a %s is not a target (give iomoon.target{...}, {path=, size=}, or a path)", what,
				luaL_typename(L, v));
	}
	rs->sp.targets[i] = api_new_target(L);
	rs->is_pending[i] = 1;
	anchor_target(L, rs, i);
}

/* phase.target: one target or a list; none is phase_check's to judge
 * (null and sim run without). */
static void read_targets(lua_State *L, int v, struct run_state *rs, const char *field)
{
	lua_Integer n;

	if (lua_isnil(L, v))
		return;
	snprintf(rs->what[0], sizeof(rs->what[0]), "%s", field);
	if (!lua_istable(L, v) || lua_getfield(L, v, "path") != LUA_TNIL) { /* one target, not a list */
		if (lua_istable(L, v))
			lua_pop(L, 1); /* its path */
		rs->sp.ntargets = 1;
		read_one_target(L, v, rs, 0, rs->what[0]);
		return;
	}
	lua_pop(L, 1); /* the list's nil path */
	n = api_check_list(L, v, field);
	if (n < 1 || n > PHASE_MAX_TARGETS)
		api_input_error(L, "%s: a list of %lld targets (give 1 to %d)", field, (long long)n, PHASE_MAX_TARGETS);
	for (lua_Integer i = 1; i <= n; i++) {
		snprintf(rs->what[i - 1], sizeof(rs->what[0]), "%s[%lld]", field, (long long)i);
		lua_rawgeti(L, v, i);
		read_one_target(L, lua_gettop(L), rs, (unsigned)(i - 1), rs->what[i - 1]);
		lua_pop(L, 1);
	}
	rs->sp.ntargets = (unsigned)n;
}

/* Engine names: "auto" and those of engine.c's table (engine_all). */
static void read_engine(lua_State *L, int v, struct run_state *rs, const char *field)
{
	const struct engine_ops *const *e = engine_all();
	const char *names[16] = { "auto" };
	unsigned n = 1, i;

	for (; e[n - 1] && n < 15; n++)
		names[n] = e[n - 1]->name;
	names[n] = NULL;
	i = lua_isnil(L, v) ? 0 : check_option(L, v, field, names, "an engine", 0);
	rs->engine_auto = i == 0;
	rs->sp.engine = i ? e[i - 1] : engine_auto();
}

/* batch: a bound on I/Os per submission (1..qd, checked against qd
 * later), or "auto" (BATCH_AUTO), the default. */
static void read_batch(lua_State *L, int v, struct run_state *rs, const char *field)
{
	lua_Number n;

	rs->sp.batch = BATCH_AUTO;
	if (lua_isnil(L, v) || (lua_type(L, v) == LUA_TSTRING && !strcmp(lua_tostring(L, v), "auto")))
		return;
	if (!api_number(L, v, field, "a batch: \"auto\", or a number of I/Os from 1 to the qd", &n))
		api_input_error(L, "%s: a %s is not a batch (give \"auto\", or a number of I/Os from 1 to the qd)", field,
				luaL_typename(L, v));
	rs->sp.batch = (unsigned)api_check_int(L, v, field, 1, PHASE_MAX_QD);
}

/* verify_state: a directory path ({rank} and {host} expanded), no NUL;
 * phase_check judges whether the phase has a state to keep there. */
static void read_verify_state(lua_State *L, int v, struct run_state *rs, const char *field)
{
	const char *p;
	size_t len;
	int pushed = 0;

	if (lua_isnil(L, v))
		return;
	if (lua_type(L, v) != LUA_TSTRING)
		api_input_error(L, "%s: a %s is not a directory (give a path, e.g. \"/mnt/other/iomoon-state\")", field,
				luaL_typename(L, v));
	p = lua_tolstring(L, v, &len);
	if (!len || strlen(p) != len)
		api_input_error(L, "%s: %s (give the path of a directory)", field, len ? "holds a NUL byte" : "empty");
	p = api_expand_path(L, p);
	/* absolute: a result's definition, rerun from elsewhere, names the same one */
	if (p[0] != '/') {
		char cwd[4096];

		if (!getcwd(cwd, sizeof(cwd)))
			api_input_error(L, "%s: %s is relative and the current directory cannot be named (give an "
					"absolute path)", field, p);
		p = lua_pushfstring(L, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", p);
		pushed = 1;
	}
	if (strlen(p) >= sizeof(rs->verify_state))
		api_input_error(L, "%s: %zu bytes (at most %zu)", field, strlen(p), sizeof(rs->verify_state) - 1);
	memcpy(rs->verify_state, p, strlen(p) + 1);
	rs->sp.verify_state = rs->verify_state;
	if (pushed)
		lua_pop(L, 1);
}

static void read_meta(lua_State *L, int v, struct run_state *rs, const char *field)
{
	(void)rs;
	if (!lua_isnil(L, v) && !lua_istable(L, v))
		api_input_error(L, "%s: a %s is not a table (give a table of your own fields)", field, luaL_typename(L, v));
}

/* A data ratio: 1 (the default) to max. */
static double check_ratio(lua_State *L, int v, const char *field, double max, const char *one)
{
	lua_Number n;

	if (lua_isnil(L, v))
		return 1.0;
	if (!api_number(L, v, field, "a ratio", &n))
		api_input_error(L, "%s: a %s is not a ratio (give a number from 1, %s, to %g)", field, luaL_typename(L, v),
				one, max);
	if (!(n >= 1.0 && n <= max))
		api_input_error(L, "%s: %s is not a ratio from 1 to %g (1: %s; 2: half the bytes%s)", field,
				lua_tostring(L, v), max, one, max == DATA_MAX_DEDUPE ? " are repeats" : " after compression");
	return n;
}

static void read_compress(lua_State *L, int v, struct run_state *rs, const char *field)
{
	rs->sp.compress = check_ratio(L, v, field, DATA_MAX_COMPRESS, "incompressible");
}

static void read_dedupe(lua_State *L, int v, struct run_state *rs, const char *field)
{
	rs->sp.dedupe = check_ratio(L, v, field, DATA_MAX_DEDUPE, "every unit unique");
}

/* verify: false/nil, "crc32c", or "offset" (which also sets the pattern). */
static void read_verify(lua_State *L, int v, struct run_state *rs, const char *field)
{
	const char *s = lua_type(L, v) == LUA_TSTRING ? lua_tostring(L, v) : NULL;

	rs->sp.verify = VERIFY_NONE;
	if (!lua_toboolean(L, v))
		return;
	if (!s || (strcmp(s, "crc32c") && strcmp(s, "offset")))
		api_input_error(L, "%s: '%s' is not a verification (allowed: \"crc32c\", or \"offset\" for the \"offset\" pattern)",
				field, s ? s : luaL_typename(L, v));
	rs->sp.verify = strcmp(s, "offset") ? VERIFY_CRC : VERIFY_OFFSET;
	if (rs->sp.verify == VERIFY_OFFSET)
		rs->sp.pattern = PATTERN_OFFSET;
}

/* phase.region or a spec's: a size, or {offset=, size=}; size 0 refused.
 * need_size: a spec's region table must give its size. */
void phase_read_region(lua_State *L, int v, const char *field, uint64_t *off, uint64_t *len, int need_size)
{
	char f[160];

	if (lua_isnil(L, v))
		return;
	if (!lua_istable(L, v)) {
		*len = api_check_size(L, v, field);
		if (!*len)
			api_input_error(L, "%s: 0 bytes (give a size above zero%s)", field,
					need_size ? "" : ", or leave it out for the whole target");
		return;
	}
	api_check_keys(L, v, field, (const char *const[]){ "offset", "size", NULL });
	snprintf(f, sizeof(f), "%s.offset", field);
	if (lua_getfield(L, v, "offset") != LUA_TNIL)
		*off = api_check_size(L, -1, f);
	snprintf(f, sizeof(f), "%s.size", field);
	if (lua_getfield(L, v, "size") == LUA_TNIL && need_size)
		api_input_error(L, "%s: missing (a spec's region needs its size)", f);
	if (!lua_isnil(L, -1)) {
		*len = api_check_size(L, -1, f);
		if (!*len)
			api_input_error(L, "%s: 0 bytes (give a size above zero%s)", f,
					need_size ? "" : ", or leave it out for the whole target");
	}
	lua_pop(L, 2);
}

static void read_region(lua_State *L, int v, struct run_state *rs, const char *field)
{
	phase_read_region(L, v, field, &rs->sp.region_off, &rs->sp.region_len, 0);
}

/* stop_if = { latency = DURATION, read_rate = SIZE, write_rate = SIZE,
 * read_iops = N, write_iops = N }: limits checked at each interval's tick
 * (phase.c); a rate of 0 is no limit. */
static void read_stop_if(lua_State *L, int v, struct run_state *rs, const char *field)
{
	static const char *const keys[] = { "latency", "read_rate", "write_rate", "read_iops", "write_iops", NULL };
	struct phase_stop_if *l = &rs->sp.stop_if;
	char f[160];

	memset(l, 0, sizeof(*l));
	if (lua_isnil(L, v))
		return;
	if (!lua_istable(L, v))
		api_input_error(L, "%s: a %s, not a table (give e.g. { latency = \"10ms\", read_rate = \"100m\" })",
				field, luaL_typename(L, v));
	api_check_keys(L, v, field, keys);
	snprintf(f, sizeof(f), "%s.latency", field);
	if (lua_getfield(L, v, "latency") != LUA_TNIL && !(l->latency_ns = api_check_duration(L, -1, f)))
		api_input_error(L, "%s: 0 (give a latency above zero, e.g. \"10ms\")", f);
	lua_pop(L, 1);
	for (int d = 0; d < 2; d++) {
		snprintf(f, sizeof(f), "%s.%s", field, keys[1 + d]);
		if (lua_getfield(L, v, keys[1 + d]) != LUA_TNIL)
			l->rate[d] = api_check_size(L, -1, f);
		lua_pop(L, 1);
		snprintf(f, sizeof(f), "%s.%s", field, keys[3 + d]);
		if (lua_getfield(L, v, keys[3 + d]) != LUA_TNIL)
			l->iops[d] = (uint64_t)api_check_int(L, -1, f, 0, INT64_MAX);
		lua_pop(L, 1);
	}
}

/* ---- streams ---- */

/* The groups (G_*) of the fields st's table gives. */
static unsigned groups_given(const struct run_state *st)
{
	unsigned g = 0;

	for (unsigned i = 0; i < NFIELDS; i++)
		if ((st->given >> i) & 1)
			g |= fields[i].group;
	return g;
}

/* The stream table at st->table over st, a copy of the phase's run_state:
 * a field it gives replaces the phase's (a group's fields all together);
 * one it does not give is the phase's. */
static void parse_stream(lua_State *L, struct run_state *st)
{
	unsigned g;

	find_given(L, st->table, st, 1);
	st->qd_given |= phase_given(st, "qd");
	g = groups_given(st);
	if (g & (G_MIX | G_PACE))
		st->sp.replay = NULL; /* its own workload: not the phase's replay (nor its own, read below) */
	if (g & G_MIX)
		memset(&st->wl, 0, sizeof(st->wl));
	if (g & G_PACE)
		memset(&st->pace, 0, sizeof(st->pace));
	if (g & G_TARGET) {
		st->sp.ntargets = 0;
		memset(st->sp.targets, 0, sizeof(st->sp.targets));
	}
	if (g & G_REGION)
		st->sp.region_off = st->sp.region_len = st->sp.seq_start = 0;
	if (g & G_SYNC)
		st->sp.fsync_every = st->sp.fdatasync_every = 0;
	for (unsigned i = 0; i < NFIELDS; i++) {
		const struct phase_field *f = &fields[i];
		int given = (st->given >> i) & 1;

		/* the mix reads its group's fields itself, given or not */
		if (f->phase_only || f->kind == FK_PART || (!given && !(f->read == read_mix && (g & G_MIX))))
			continue;
		read_row(L, st, f, given);
	}
	if (!st->wl.nspecs && !st->sp.replay)
		api_input_error(L, "%s.mix: missing (give the stream a mix or bs=, or the phase one for every stream)",
				st->path);
}

/* A new run_state for stream i (from 1) of rs, anchored by rs, left on the
 * stack: rs's copy, without what only the phase has. */
static struct run_state *new_stream(lua_State *L, struct run_state *rs, lua_Integer i, const char *field)
{
	struct run_state *st = lua_newuserdatauv(L, sizeof(*st), 1);

	memcpy(st, rs, sizeof(*st));
	lua_createtable(L, 4, 0);
	lua_setiuservalue(L, -2, 1);
	st->self = lua_gettop(L);
	st->sp.wl = &st->wl;
	st->sp.pace = &st->pace;
	st->sp.name = st->name;
	if (st->sp.replay)
		st->sp.replay = &st->replay;
	snprintf(st->name, sizeof(st->name), "stream %lld", (long long)i);
	snprintf(st->path, sizeof(st->path), "%s[%lld]", field, (long long)i);
	memset(st->is_pending, 0, sizeof(st->is_pending)); /* the phase's targets are the phase's to create */
	st->nstreams = 0;
	lua_getiuservalue(L, rs->self, 1);
	lua_pushvalue(L, st->self);
	lua_rawseti(L, -2, PHASE_MAX_TARGETS + i); /* after the targets' anchors */
	lua_pop(L, 1);
	return st;
}

/* Fields a phase with streams may not give: each stream has its own, and
 * one for the phase would be ambiguous (a total, or each stream's?). */
static const char *const per_stream_only[] = { "rate", "schedule", "think", "ios", "bytes", NULL };

/* Whether names a and b read the same wherever they are shown (a URL's
 * password left out, a byte that is not UTF-8 as U+FFFD): two streams so
 * named would be one row, one label set on the metrics endpoint. */
static int same_shown(const char *a, const char *b)
{
	char x[512], y[512];

	redact_copy(a, x, sizeof(x));
	redact_copy(b, y, sizeof(y));
	shown_canon(x);
	shown_canon(y);
	return !strcmp(x, y);
}

/* phase.streams: workloads run together, each from the phase's fields
 * with its own over them. */
static void read_streams(lua_State *L, int v, struct run_state *rs, const char *field)
{
	lua_Integer n;

	if (lua_isnil(L, v))
		return;
	for (unsigned i = 0; per_stream_only[i]; i++)
		if (phase_given(rs, per_stream_only[i]))
			api_input_error(L, "phase.%s: given with %s (give each stream its own %s: one for the whole "
					"phase would be ambiguous, a total or each stream's)", per_stream_only[i], field,
					per_stream_only[i]);
	if (!lua_istable(L, v))
		api_input_error(L, "%s: a %s is not a list of streams (give a list of tables)", field, luaL_typename(L, v));
	n = api_check_list(L, v, field);
	if (n < 1 || n > PHASE_MAX_STREAMS)
		api_input_error(L, "%s: %lld streams (give 1 to %d)", field, (long long)n, PHASE_MAX_STREAMS);
	for (lua_Integer i = 1; i <= n; i++) {
		struct run_state *st;

		if (lua_rawgeti(L, v, i) != LUA_TTABLE)
			api_input_error(L, "%s[%lld]: a %s is not a stream (give a table of fields)", field, (long long)i,
					luaL_typename(L, -1));
		st = new_stream(L, rs, i, field);
		st->table = lua_gettop(L) - 1;
		parse_stream(L, st);
		for (lua_Integer j = 1; phase_given(st, "name") && j < i; j++)
			if (same_shown(rs->stream[j - 1]->name, st->name))
				api_input_error(L, "%s.name: '%s' %s the name of %s[%lld] (each stream's row and result "
						"go under its own name%s)", st->path, st->name,
						strcmp(rs->stream[j - 1]->name, st->name) ? "reads as" : "is also", field,
						(long long)j, strcmp(rs->stream[j - 1]->name, st->name) ? ", and every byte that "
						"is not UTF-8 shows as U+FFFD, a URL's password not at all" : "");
		rs->stream[i - 1] = st;
		lua_pop(L, 2);
	}
	rs->nstreams = (unsigned)n;
}
