/* lua_result_fields.c - the fields of a result's tables, described once
 * (lua_result_fields.h says who reads them). A field pushed by
 * lua_result.c, lua_verify.c, phase_replay.c, lua_cluster.c or
 * lua_definition.c is a row here; one pushed only sometimes is RF_OPTIONAL.
 * The first rows of "result", "lat", "cpu" and "op" are those every report
 * needs (RF_SAVED), in the order a results file is checked.
 */
#include <lauxlib.h>
#include <string.h>

#include "lua/lua_result_fields.h"

#define O RF_OPTIONAL
#define S RF_SAVED
#define C RF_COUNT
#define M RF_MEASURE
#define D RF_DEFINES

static const struct result_field result_fields[] = {
	{ "name", "string", S, NULL },
	{ "iops", "number", S | M, NULL },
	{ "mb_per_s", "number", S | M, NULL },
	{ "mib_per_s", "number", S | M, NULL },
	{ "seconds", "number", S | M, NULL },
	{ "started", "string", O, NULL }, /* the measured window on the wall clock: ISO 8601, UTC */
	{ "ended", "string", O, NULL },
	{ "errors", "number", S | C, NULL },
	{ "workers", "number", S | C | D, NULL },
	{ "qd", "number", S | C | D, NULL },
	{ "engine", "string", S | D, NULL },
	{ "interrupted", "boolean", S, NULL },
	{ "failed", "boolean", S, NULL },
	{ "stopped", "table", O, "stopped" }, /* stop_if: the limit that stopped the phase */
	{ "lat", "table", S, "lat" },
	{ "cpu", "table", S, "cpu" },
	{ "read", "table", S, "op" },
	{ "write", "table", S, "op" },
	{ "target", "any", D, NULL }, /* a path, or a list of paths */
	{ "area_bytes", "number", O | C | D, NULL },        /* the test area the I/O stayed in, per target */
	{ "area_offset_bytes", "number", O | C | D, NULL }, /* where it starts */
	{ "engine_features", "string", D, NULL },
	{ "direct", "boolean", D, NULL },
	{ "qd_max", "number", M, NULL },
	{ "inflight", "table", O, "inflight" }, /* optional: saved by an iomoon before it */
	{ "bottleneck", "string", O, NULL },    /* "device", "tool" or "rate" */
	{ "device", "table", O, "device" },     /* the kernel's witness: a local block device or a file on one */
	{ "ramp_s", "number", M | D, NULL },
	{ "mix", "table", D | RF_LIST, "mix" },
	{ "dist", "string", D, NULL },
	{ "seed", "number", D, NULL },
	{ "duration_s", "number", M | D, NULL },
	{ "quota_ios", "number", C | D, NULL },
	{ "quota_bytes", "number", C | D, NULL },
	{ "batch", "any", D, NULL }, /* a number, or "auto" */
	{ "interval_s", "number", M | D, NULL },
	{ "open_sync", "string", D, NULL },
	{ "ios", "number", C, NULL },
	{ "bytes", "number", C, NULL },
	{ "trim", "table", O, "op" },
	{ "sync", "table", O, "op" },
	{ "svc", "table", O, "op_lat" },
	{ "commit", "table", O, "commit" }, /* each write followed by its own sync: the two as one */
	{ "rate_iops", "number", O | D, NULL },
	{ "rate_asked_iops", "number", O | D, NULL },
	{ "rate_arrival", "string", O | D, NULL },
	{ "errors_by_errno", "table", 0, NULL }, /* a map of errno names: data, not sealed */
	{ "first_errors", "table", RF_LIST, "first_error" },
	{ "first_error", "table", O, "first_error" },
	{ "error", "string", O, NULL },
	{ "verify", "table", O, "verify" },
	{ "data", "table", O, "data" }, /* phases that wrote: what the writes carried */
	{ "crash", "table", O, "crash" }, /* an after_crash pass (lua_verify.c) */
	{ "intervals", "table", RF_LIST, "interval" },
	{ "trace", "table", O, "trace" },
	{ "batch_used", "number", 0, NULL },
	{ "submit_sizes", "table", 0, "sizes" },
	{ "reap_sizes", "table", 0, "sizes" },
	{ "specs", "table", O | RF_MAP, "spec" },
	{ "streams", "table", O | RF_LIST, NULL }, /* each a whole result, sealed as one when it is made */
	{ "stream", "number", O, NULL }, /* a stream's result: its number */
	{ "replay", "table", O, "replay" },
	{ "cluster", "table", O, "cluster" },
	{ "hosts", "table", O | RF_LIST, "host" },
	{ "definition", "table", O, NULL }, /* the phase as it ran: plain data to run again */
	{ "engine_asked", "string", O, NULL },
	{ "meta", "any", O | D, NULL }, /* the caller's own */
	{ "ops", "table", O | RF_MAP, "file_op" }, /* a files phase (phase_files.c): each operation's */
	{ "files", "table", O, "files" },          /* a files phase: what its tree gained and lost */
	{ NULL, NULL, 0, NULL },
};

/* result.ops[name] of a files phase */
static const struct result_field file_op_fields[] = {
	{ "ops", "number", C, NULL },
	{ "ops_per_s", "number", M, NULL },
	{ "errors", "number", C, NULL },
	{ "missing", "number", C, NULL }, /* delete, rmdir: already gone */
	{ "lat", "table", 0, "op_lat" },
	{ "how", "string", 0, NULL }, /* "io_uring" or "syscall" */
	{ NULL, NULL, 0, NULL },
};

/* result.files of a files phase */
static const struct result_field files_fields[] = {
	{ "dir", "string", D, NULL },
	{ "op", "string", O | D, NULL },
	{ "created", "number", C, NULL },
	{ "deleted", "number", C, NULL },
	{ "dirs", "number", C, NULL },
	{ "dirs_removed", "number", C, NULL },
	{ "bytes", "number", C, NULL },
	{ "bytes_read", "number", C, NULL },
	{ "prefilled", "number", C, NULL },
	{ "first_done_s", "number", M, NULL },
	{ "last_done_s", "number", M, NULL },
	{ "depth", "number", C | D, NULL },
	{ "width", "number", C | D, NULL },
	{ "per_dir", "number", C | D, NULL },
	{ "shared", "boolean", D, NULL },
	{ NULL, NULL, 0, NULL },
};

/* A latency table: the result's own (with its histogram and percentiles)
 * and, as op_lat, every other (an op type's, a service time's, a spec's). */
#define LAT_FIELDS                                                                                                     \
	{ "mean_ns", "number", S | M, NULL }, { "max_ns", "number", S | M, NULL }, { "min_ns", "number", M, NULL },   \
	{ "stdev_ns", "number", M, NULL }, { "p90_ns", "number", M, NULL }

static const struct result_field lat_fields[] = {
	LAT_FIELDS,
	{ "p50_ns", "number", S | M, NULL },
	{ "p99_ns", "number", S | M, NULL },
	{ "p999_ns", "number", S | M, NULL },
	{ "p9999_ns", "number", S | M, NULL },
	{ "hist", "userdata", 0, NULL },
	{ "percentiles", "table", 0, NULL }, /* {p, ns} pairs */
	{ NULL, NULL, 0, NULL },
};

static const struct result_field op_lat_fields[] = {
	LAT_FIELDS,
	{ "p50_ns", "number", M, NULL },
	{ "p99_ns", "number", M, NULL },
	{ "p999_ns", "number", M, NULL },
	{ "p9999_ns", "number", M, NULL },
	{ NULL, NULL, 0, NULL },
};

/* read, write, trim, sync; the last five of the rows only for some */
static const struct result_field op_fields[] = {
	{ "iops", "number", S | M, NULL },
	{ "mib_per_s", "number", S | M, NULL },
	{ "mb_per_s", "number", S | M, NULL },
	{ "errors", "number", S | C, NULL },
	{ "bytes", "number", S | C, NULL },
	{ "ios", "number", S | C, NULL },
	{ "lat", "table", S, "op_lat" },
	{ "errors_by_errno", "table", 0, NULL },
	{ "svc", "table", O, "op_lat" }, /* paced phases */
	{ "how", "string", O, NULL },    /* trim: "engine" or "syscall" */
	{ "call", "string", O, NULL },   /* sync: fsync or fdatasync */
	{ "every", "number", O, NULL },  /* sync: every how many writes */
	{ NULL, NULL, 0, NULL },
};

/* result.commit: a write and its own sync, timed together */
static const struct result_field commit_fields[] = {
	{ "ios", "number", C, NULL },
	{ "iops", "number", M, NULL },
	{ "lat", "table", 0, "op_lat" },
	{ NULL, NULL, 0, NULL },
};

static const struct result_field cpu_fields[] = {
	{ "util_pct", "number", S | M, NULL },
	{ "user_s", "number", S | M, NULL },
	{ "sys_s", "number", S | M, NULL },
	{ "other_pct", "number", M, NULL }, /* the CPUs busy with other work than iomoon's */
	{ "worker_max_pct", "number", O | M, NULL }, /* the busiest worker thread's CPU over its loop's time */
	{ "user_pct", "number", O | M, NULL },       /* the machine's CPUs in user mode (util_pct = user + sys) */
	{ "sys_pct", "number", O | M, NULL },        /* ... in the kernel */
	{ "self_pct", "number", O | M, NULL },       /* iomoon's own CPU, as a share of the machine's CPUs */
	{ "wait_pct", "number", O | M, NULL },       /* the longest a worker waited for a CPU, of its loop's time */
	{ "other_user_pct", "number", O | M, NULL }, /* other processes in user mode (not the kernel's threads) */
	{ NULL, NULL, 0, NULL },
};

static const struct result_field device_fields[] = {
	{ "name", "string", 0, NULL },
	{ "reads", "number", C, NULL },
	{ "writes", "number", C, NULL },
	{ "trims", "number", C, NULL },
	{ "flushes", "number", C, NULL },
	{ "bytes", "number", M, NULL },
	{ "read_bytes", "number", M, NULL },
	{ "write_bytes", "number", M, NULL },
	{ "read_mean_ns", "number", M, NULL },
	{ "write_mean_ns", "number", M, NULL },
	{ "inflight_mean", "number", M, NULL },
	{ "util_pct", "number", M, NULL },
	{ "seconds", "number", M, NULL },
	{ "others", "boolean", 0, NULL },
	{ NULL, NULL, 0, NULL },
};

static const struct result_field inflight_fields[] = {
	{ "mean", "number", M, NULL },    /* time-weighted, over the measured time, all workers */
	{ "max", "number", M, NULL },     /* the most in flight at once in one worker */
	{ "allowed", "number", M, NULL }, /* qd x workers (summed over streams) */
	{ NULL, NULL, 0, NULL },
};

static const struct result_field mix_fields[] = {
	{ "bs", "table", 0, NULL },
	{ "bs_weight_pct", "table", 0, NULL },
	{ "read_pct", "number", 0, NULL },
	{ "random_pct", "number", 0, NULL },
	{ "align", "number", 0, NULL },
	{ "skip", "number", O, NULL }, /* spec.skip, when given */
	{ "weight_pct", "number", 0, NULL },
	{ NULL, NULL, 0, NULL },
};

static const struct result_field interval_fields[] = {
	{ "t_s", "number", M, NULL },
	{ "len_s", "number", M, NULL },
	{ "iops", "number", M, NULL },
	{ "mb_per_s", "number", M, NULL },
	{ "p50_ns", "number", M, NULL },
	{ "p99_ns", "number", M, NULL },
	{ "max_ns", "number", M, NULL },
	{ "ios", "number", C, NULL },
	{ "read_iops", "number", M, NULL },
	{ "write_iops", "number", M, NULL },
	{ "trim_iops", "number", M, NULL },
	{ "lag_p99_ns", "number", O | M, NULL }, /* a replay: the lag of the records submitted in it */
	{ "lag_max_ns", "number", O | M, NULL },
	{ NULL, NULL, 0, NULL },
};

static const struct result_field stopped_fields[] = {
	{ "by", "string", 0, NULL }, /* latency, read_rate, write_rate, read_iops, write_iops */
	{ "value", "number", 0, NULL }, /* the interval's figure: ns, bytes/s or IOPS */
	{ "limit", "number", 0, NULL },
	{ "t_s", "number", 0, NULL },   /* the end of that interval */
	{ NULL, NULL, 0, NULL },
};

static const struct result_field first_error_fields[] = {
	{ "op", "string", 0, NULL },
	{ "offset", "number", 0, NULL },
	{ "len", "number", 0, NULL },
	{ "errno", "number", 0, NULL },
	{ "message", "string", 0, NULL },
	{ "kind", "string", O, NULL }, /* a verification failure: what, and where */
	{ "unit_offset", "number", O, NULL },
	{ "expected", "number", O, NULL },
	{ "found", "number", O, NULL },
	{ "rank", "number", O, NULL }, /* under MPI: the rank that saw it */
	{ NULL, NULL, 0, NULL },
};

static const struct result_field verify_fields[] = {
	{ "units_checked", "number", C, NULL },
	{ "units_unwritten", "number", C, NULL },
	{ "units_unexpected", "number", C, NULL },
	{ "units_skipped", "number", C, NULL },
	{ "unit_bytes", "number", C, NULL },
	{ "written_end_bytes", "number", O | C, NULL }, /* when a state said what was written */
	{ "skip_unwritten", "boolean", 0, NULL },
	{ NULL, NULL, 0, NULL },
};

static const struct result_field data_fields[] = {
	{ "pattern", "string", D, NULL },
	{ "compress", "number", O | M | D, NULL }, /* absent: streams that differ ("mixed") */
	{ "dedupe", "number", O | M | D, NULL },
	{ "dedupe_unit", "number", O | C | D, NULL },
	{ "dedupe_sets", "number", O | C | D, NULL },
	{ "units", "number", C, NULL },
	{ "written_once", "boolean", 0, NULL },
	{ "distinct", "number", O | C, NULL },
	{ "dedupe_measured", "number", O | M, NULL },
	{ "dedupe_sectors", "number", O | M, NULL },
	{ "compress_measured", "number", O | M, NULL },
	{ "sampled", "number", O | C, NULL },
	{ "compress_zstd", "number", O | M, NULL },
	{ "compress_zlib", "number", O | M, NULL },
	{ "records_sampled", "number", O | C, NULL },
	{ "record_128k_lz4", "number", O | M, NULL },
	{ "record_128k_zstd", "number", O | M, NULL },
	{ "record_128k_zlib", "number", O | M, NULL },
	{ "record_1m_lz4", "number", O | M, NULL },
	{ "record_1m_zstd", "number", O | M, NULL },
	{ "dedupe_checked", "number", O | C, NULL },
	{ "dedupe_check_failed", "number", O | C, NULL },
	{ "measured_with", "string", 0, NULL },
	{ NULL, NULL, 0, NULL },
};

static const struct result_field crash_fields[] = {
	{ "durable_ok", "number", C, NULL },     { "lost_durable", "number", C, NULL },
	{ "unflushed_kept", "number", C, NULL }, { "unflushed_lost", "number", C, NULL },
	{ "torn", "number", C, NULL },           { "corrupt", "number", C, NULL },
	{ "misdirected", "number", C, NULL },    { "foreign", "number", C, NULL },
	{ "offsets", "table", 0, NULL },         { "atomic", "boolean", 0, NULL },
	{ NULL, NULL, 0, NULL },
};

static const struct result_field trace_fields[] = {
	{ "start_ns", "table", 0, NULL }, { "submit_ns", "table", 0, NULL }, { "lat_ns", "table", 0, NULL },
	{ "op", "table", 0, NULL },       { "offset", "table", 0, NULL },    { "len", "table", 0, NULL },
	{ "worker", "table", 0, NULL },   { "target", "table", 0, NULL },    { NULL, NULL, 0, NULL },
};

static const struct result_field sizes_fields[] = {
	{ "count", "number", 0, NULL }, { "ios", "number", 0, NULL }, { "mean", "number", 0, NULL },
	{ "max", "number", 0, NULL },   { "hist", "table", 0, NULL }, { NULL, NULL, 0, NULL },
};

static const struct result_field spec_fields[] = {
	{ "ios", "number", 0, NULL },      { "bytes", "number", 0, NULL },     { "iops", "number", 0, NULL },
	{ "mb_per_s", "number", 0, NULL }, { "mib_per_s", "number", 0, NULL }, { "read_ios", "number", 0, NULL },
	{ "write_ios", "number", 0, NULL }, { "trim_ios", "number", 0, NULL }, { "lat", "table", 0, "op_lat" },
	{ NULL, NULL, 0, NULL },
};

/* phase_replay.c; a replay's trace and settings only where it has them */
static const struct result_field replay_fields[] = {
	{ "ios", "number", C, NULL },
	{ "planned_ios", "number", C, NULL },
	{ "due_ios", "number", C, NULL },
	{ "on_time_ios", "number", C, NULL },
	{ "late_ios", "number", C, NULL },
	{ "missed_ios", "number", C, NULL },
	{ "cut_ios", "number", C, NULL },
	{ "on_time_pct", "number", M, NULL },
	{ "late_ns", "number", M, NULL },
	{ "lag_p50_ns", "number", M, NULL },
	{ "lag_p99_ns", "number", M, NULL },
	{ "lag_p999_ns", "number", M, NULL },
	{ "lag_max_ns", "number", M, NULL },
	{ "lag_mean_ns", "number", M, NULL },
	{ "span_s", "number", M, NULL },
	{ "recorded_span_s", "number", O | M, NULL },
	{ "speed", "number", O | M, NULL },
	{ "no_stall", "boolean", O, NULL },
	{ "offsets", "string", O, NULL },
	{ "loop", "number", O | C, NULL },
	{ "trace", "string", O, NULL },
	{ "format", "string", O, NULL },
	{ "records", "number", O | C, NULL },
	{ "skipped", "number", O | C, NULL },
	{ NULL, NULL, 0, NULL },
};

/* lua_cluster.c: a phase run under MPI */
static const struct result_field cluster_fields[] = {
	{ "ranks", "number", C, NULL },
	{ "start_skew_ns", "number", M, NULL },
	{ "stopped_by", "number", O | C, NULL }, /* the rank that stopped the phase */
	{ "rounds", "number", C, NULL },
	{ "end_bytes", "number", C, NULL },
	{ "end_ns", "number", M, NULL },
	{ "interval_bytes", "number", C, NULL },
	{ NULL, NULL, 0, NULL },
};

/* one rank's figures (result.hosts[i]) */
static const struct result_field host_fields[] = {
	{ "rank", "number", C, NULL },
	{ "host", "string", 0, NULL },
	{ "workers", "number", O | C, NULL }, /* its phase's: workers, queue depth, targets */
	{ "qd", "number", O | C, NULL },
	{ "targets", "number", O | C, NULL },
	{ "ios", "number", C, NULL },
	{ "iops", "number", M, NULL },
	{ "mb_per_s", "number", M, NULL },
	{ "bytes", "number", C, NULL },
	{ "seconds", "number", M, NULL },
	{ "p50_ns", "number", M, NULL },
	{ "p99_ns", "number", M, NULL },
	{ "max_ns", "number", M, NULL },
	{ "mean_ns", "number", M, NULL },
	{ "util_pct", "number", M, NULL },
	{ "user_s", "number", M, NULL },
	{ "sys_s", "number", M, NULL },
	{ "user_pct", "number", O | M, NULL }, /* as result.cpu's, of its machine */
	{ "sys_pct", "number", O | M, NULL },
	{ "self_pct", "number", O | M, NULL },
	{ "errors", "number", C, NULL },
	{ "inflight_mean", "number", O | M, NULL },
	{ "device", "table", O, "device" },
	{ "failed", "boolean", 0, NULL },
	{ "interrupted", "boolean", 0, NULL },
	{ "error", "string", O, NULL }, /* a rank that failed: why */
	{ NULL, NULL, 0, NULL },
};

static const struct result_table tables[] = {
	{ "result", result_fields },   { "lat", lat_fields },         { "op_lat", op_lat_fields },
	{ "op", op_fields },           { "cpu", cpu_fields },         { "mix", mix_fields },
	{ "interval", interval_fields }, { "first_error", first_error_fields }, { "stopped", stopped_fields }, { "verify", verify_fields },
	{ "data", data_fields },
	{ "crash", crash_fields },
	{ "commit", commit_fields },
	{ "trace", trace_fields },     { "sizes", sizes_fields },     { "spec", spec_fields },
	{ "replay", replay_fields },   { "cluster", cluster_fields }, { "host", host_fields },
	{ "inflight", inflight_fields }, { "device", device_fields },
	{ "file_op", file_op_fields }, { "files", files_fields },
	{ NULL, NULL },
};

const struct result_table *result_table_named(const char *name)
{
	for (unsigned i = 0; tables[i].name; i++)
		if (!strcmp(tables[i].name, name))
			return &tables[i];
	return NULL;
}

static void set_flag(lua_State *L, const char *key, unsigned flags, unsigned flag)
{
	if (flags & flag) {
		lua_pushboolean(L, 1);
		lua_setfield(L, -2, key);
	}
}

static void push_field(lua_State *L, const struct result_field *f)
{
	lua_createtable(L, 0, 8);
	lua_pushstring(L, f->name);
	lua_setfield(L, -2, "name");
	lua_pushstring(L, f->type);
	lua_setfield(L, -2, "type");
	set_flag(L, "optional", f->flags, RF_OPTIONAL);
	set_flag(L, "saved", f->flags, RF_SAVED);
	set_flag(L, "count", f->flags, RF_COUNT);
	set_flag(L, "measure", f->flags, RF_MEASURE);
	set_flag(L, "defines", f->flags, RF_DEFINES);
	if (f->table) {
		lua_pushstring(L, f->table);
		lua_setfield(L, -2, "table");
	}
	if (f->flags & (RF_LIST | RF_MAP)) {
		lua_pushstring(L, f->flags & RF_LIST ? "list" : "map");
		lua_setfield(L, -2, "entries");
	}
}

void api_push_result_fields(lua_State *L)
{
	lua_newtable(L);
	for (unsigned i = 0; tables[i].name; i++) {
		lua_newtable(L);
		for (unsigned j = 0; tables[i].fields[j].name; j++) {
			push_field(L, &tables[i].fields[j]);
			lua_rawseti(L, -2, (lua_Integer)j + 1);
		}
		lua_setfield(L, -2, tables[i].name);
	}
}
