/* phase_check.c - a parsed phase, checked as a whole before anything is
 * created, opened for writing or filled: its targets (inspected read-only),
 * its engine, its geometry on every target, its verification and whether
 * it may write. Each check returns RC_OK or RC_INPUT with a message that
 * starts with the field it is about; RC_FAIL is a system failure (a stat
 * that failed). The defaults that depend on other fields are set here
 * too (workers, the 10 s duration). No Lua: the binding raises.
 */
#include <math.h>
#include <string.h>

#include "core/rc.h"
#include "io/discard.h"
#include "io/engine.h"
#include "io/protect.h"
#include "lua/lua_int.h"
#include "lua/lua_phase.h"
#include "lua/phase_check.h"
#include "lua/phase_read.h"
#include "run/data.h"
#include "verify/genmap.h"


/* No target: the engines doing no I/O (null, sim) run on a nominal region (phase.region's size, 1 GiB). */
static int nominal_target(struct run_state *rs, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;
	struct target *t = &rs->nominal;

	if (sp->engine != &engine_null && sp->engine != &engine_sim)
		REFUSE("%s.target: missing (give iomoon.target{...}, {path=, size=}, a path, or a list; "
		       "engines null and sim need none)", rs->path);
	if (sp->verify != VERIFY_NONE)
		REFUSE("%s.verify: engine %s without a target has no data to verify (give a target)", rs->path, sp->engine->name);
	*t = (struct target){ .path = (char *)"(none)", .kind = TARGET_NONE, .sector = 512, .mem_align = 512,
			      .exists = 1, .ours = 1 };
	t->size = (sp->region_len ? sp->region_len : 1ull << 30) + sp->region_off;
	sp->targets[0] = t;
	sp->ntargets = 1;
	return RC_OK;
}

/* Every target: not one of the run's own files (iomoon.protect); a path
 * or option table inspected (what it is, whose, its size). */
int phase_check_targets(struct run_state *rs, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;

	if (!sp->ntargets)
		return nominal_target(rs, why, why_len);
	for (unsigned i = 0; i < sp->ntargets; i++) {
		const char *path = rs->is_pending[i] ? rs->pending[i].path : sp->targets[i]->path;
		const char *is = path ? protect_find(path) : NULL;

		if (is)
			REFUSE("%s: %s is %s of this run; it cannot also be a target", rs->what[i], path, is);
		if (rs->is_pending[i])
			CHECK(target_inspect(sp->targets[i], &rs->pending[i], why, why_len));
	}
	return RC_OK;
}

/* A network target takes its scheme's engine: "auto" picks it, another is refused, as is a local one beside it. */
static int check_net_engine(struct run_state *rs, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;
	const struct engine_ops *net = NULL;
	int local = 0;
	char no[WHY_LEN] = "";

	for (unsigned t = 0; t < sp->ntargets; t++) {
		const struct target *tg = sp->targets[t];

		if (tg->net && net && tg->net != net)
			REFUSE("%s: %s and %s are reached by different engines (one engine runs a workload: give them "
			       "streams of their own)", rs->what[t], tg->path, sp->targets[0]->path);
		if (tg->net)
			net = tg->net;
		else if (tg->kind != TARGET_NONE)
			local = 1;
	}
	if (net && local)
		REFUSE("%s.target: a network target beside a local one (one engine runs a workload: give them streams "
		       "of their own)", rs->path);
	if (!net) {
		if (sp->engine->net)
			REFUSE("%s.engine: %s reaches a LUN or export by its URL (iscsi://..., nbd://... or nfs://...); %s is not one",
			       rs->path, sp->engine->name, sp->targets[0]->path);
		return RC_OK;
	}
	if (!rs->engine_auto && sp->engine != net)
		REFUSE("%s.engine: %s cannot reach %s (give engine = \"auto\" or \"%s\")", rs->path, sp->engine->name,
		       sp->targets[0]->path, net->name);
	sp->engine = net;
	if (net->probe(no, sizeof(no)))
		REFUSE("%s.engine: %s does not work here: %s", rs->path, net->name, no);
	return RC_OK;
}

/* The engine works here and can do what is asked of it: a queue, a batch,
 * io_uring's options, a simulated service time. */
static int check_engine(struct run_state *rs, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;
	char no[WHY_LEN] = "";

	CHECK(check_net_engine(rs, why, why_len));
	if (!rs->engine_auto && sp->engine->probe(no, sizeof(no)))
		REFUSE("%s.engine: %s does not work on this kernel: %s", rs->path, sp->engine->name, no);
	if (sp->engine->sync && sp->qd > 1)
		REFUSE("%s.qd: %u with engine %s, which does one I/O at a time (use qd=1 and more workers, or engine "
		       "io_uring or libaio)", rs->path, sp->qd, sp->engine->name);
	if (sp->batch > sp->qd)
		REFUSE("%s.batch: %u is out of range (allowed: 1 to %u): a batch is at most the qd, or \"auto\"", rs->path,
		       sp->batch, sp->qd);
	if (phase_given(rs, "sim_latency") && sp->engine != &engine_sim)
		REFUSE("%s.sim_latency: given for engine %s (it sets the service time of engine \"sim\")", rs->path,
		       sp->engine->name);
	if (sp->engine_flags && sp->engine != &engine_uring)
		REFUSE("%s.%s: an io_uring feature, asked of engine %s (set engine=\"io_uring\")", rs->path,
		       sp->engine_flags & ENGINE_SQPOLL ? "sqpoll" : sp->engine_flags & ENGINE_IOPOLL ? "iopoll" : "defer_taskrun",
		       sp->engine->name);
	if ((sp->engine_flags & ENGINE_SQPOLL) && (sp->engine_flags & ENGINE_DEFER_TASKRUN))
		REFUSE("%s.defer_taskrun: not with sqpoll (the poll thread runs completions itself)", rs->path);
	if (!(sp->engine_flags & ENGINE_IOPOLL))
		return RC_OK;
	if (!sp->direct)
		REFUSE("%s.iopoll: needs direct=true (polled I/O bypasses the page cache)", rs->path);
	for (unsigned t = 0; t < sp->ntargets; t++) {
		char dev[64];

		if (target_polls(sp->targets[t], dev, sizeof(dev)) == 0)
			REFUSE("%s.iopoll: %s is on %s, which does not do polled I/O (its queue/io_poll is 0; an NVMe "
			       "drive needs poll queues: nvme.poll_queues)", rs->path, sp->targets[t]->path, dev);
	}
	return RC_OK;
}

/* Must I/O on tg be in whole sectors? Under direct I/O; and on a LUN or
 * export always (its protocol moves whole blocks). Why, for messages. */
static int whole_sectors(const struct phase_spec *sp, const struct target *tg, const char **why_so)
{
	*why_so = tg->net ? "a LUN or export moves whole blocks" : "direct=true";
	return sp->direct || tg->net;
}

/* A spec's sizes and region on target tg (f: "phase." or "phase.mix[2].";
 * len: the phase's region on tg). */
static int check_spec_geometry(const struct phase_spec *sp, const struct wl_spec *s, const struct target *tg,
			       uint64_t len, const char *f, char *why, size_t why_len)
{
	const char *so;
	const int direct = whole_sectors(sp, tg, &so);

	for (unsigned j = 0; j < s->nbs; j++) {
		unsigned long long bs = s->bs[j].bytes;

		if (!s->region_len && bs > len)
			REFUSE("%sbs: %llu bytes is larger than the region (%llu bytes of %s)", f, bs,
			       (unsigned long long)len, tg->path);
		if (direct && bs % tg->sector)
			REFUSE("%sbs: %llu is not a multiple of the %u-byte sector of %s (%s)", f, bs, tg->sector,
			       tg->path, so);
		if (s->region_len && bs > s->region_len)
			REFUSE("%sbs: %llu bytes is larger than the spec's region (%llu bytes)", f, bs,
			       (unsigned long long)s->region_len);
	}
	if (direct && s->align % tg->sector)
		REFUSE("%salign: %llu is not a multiple of the %u-byte sector of %s (%s)", f,
		       (unsigned long long)s->align, tg->sector, tg->path, so);
	if (s->region_len && s->region_off + s->region_len > tg->size)
		REFUSE("%sregion: offset %llu + size %llu runs past the end of %s (%llu bytes)", f,
		       (unsigned long long)s->region_off, (unsigned long long)s->region_len, tg->path,
		       (unsigned long long)tg->size);
	if (s->region_len && direct && s->region_off % tg->sector)
		REFUSE("%sregion.offset: %llu is not a multiple of the %u-byte sector of %s (%s)", f,
		       (unsigned long long)s->region_off, tg->sector, tg->path, so);
	return RC_OK;
}

/* Direct I/O alignment and region bounds, for every target and spec. */
static int check_geometry(const struct run_state *rs, char *why, size_t why_len)
{
	const struct phase_spec *sp = &rs->sp;

	for (unsigned t = 0; t < sp->ntargets; t++) {
		const struct target *tg = sp->targets[t];
		uint64_t len = phase_region_len(sp, t);
		const char *so;

		if (sp->region_off >= tg->size || sp->region_off + len > tg->size)
			REFUSE("%s.region: offset %llu + size %llu runs past the end of %s (%llu bytes)", rs->path,
			       (unsigned long long)sp->region_off, (unsigned long long)len, tg->path,
			       (unsigned long long)tg->size);
		if (whole_sectors(sp, tg, &so) && sp->region_off % tg->sector)
			REFUSE("%s.region.offset: %llu is not a multiple of the %u-byte sector of %s (%s)", rs->path,
			       (unsigned long long)sp->region_off, tg->sector, tg->path, so);
		if (sp->seq_start && (phase_sliced(sp) || sp->workers > sp->ntargets))
			REFUSE("%s.seq_start: %u workers share the region of %s, each a part of it, and seq_start is "
			       "where one worker's stream starts (give one worker per target, or no seq_start)",
			       rs->path, sp->workers, tg->path);
		if (sp->seq_start >= len)
			REFUSE("%s.seq_start: %llu bytes is not inside the region (%llu bytes of %s; give where the "
			       "sequential stream starts, from 0 to the region's size less one)", rs->path,
			       (unsigned long long)sp->seq_start, (unsigned long long)len, tg->path);
		for (unsigned i = 0; i < rs->wl.nspecs; i++) {
			char f[64];

			if (rs->wl.nspecs > 1)
				snprintf(f, sizeof(f), "%s.mix[%u].", rs->path, i + 1);
			else
				snprintf(f, sizeof(f), "%s.", rs->path);
			CHECK(check_spec_geometry(sp, &rs->wl.spec[i], tg, len, f, why, why_len));
		}
	}
	return RC_OK;
}

/* The largest random map of one worker (workload.h), in bytes. */
#define RANDOM_MAP_MAX (1ull << 30)

/* phase.random_map: on a uniform draw over the phase's region (fio keeps
 * none for a skewed distribution), of a size a worker can hold. */
static int check_random_map(const struct run_state *rs, char *why, size_t why_len)
{
	const struct phase_spec *sp = &rs->sp;
	uint64_t grid = UINT64_MAX;

	if (!rs->wl.random_map)
		return RC_OK;
	if (rs->wl.dist != DIST_UNIFORM)
		REFUSE("%s.random_map: given with a dist other than uniform (the map draws every block once per pass; a "
		       "skewed distribution draws some far more often, and fio keeps no map for one either): give one or "
		       "the other", rs->path);
	for (unsigned i = 0; i < rs->wl.nspecs; i++) {
		if (rs->wl.spec[i].region_len)
			REFUSE("%s.random_map: spec %u has a region of its own (the map covers the phase's region): give "
			       "the phase a random map only with specs on its region", rs->path, i + 1);
		if (rs->wl.spec[i].align < grid)
			grid = rs->wl.spec[i].align;
	}
	for (unsigned t = 0; t < sp->ntargets; t++)
		if (phase_region_len(sp, t) / grid / 8 > RANDOM_MAP_MAX)
			REFUSE("%s.random_map: %llu blocks of %llu bytes on %s need a map of %llu MiB per worker (at most "
			       "%llu): give a larger align or a smaller region", rs->path,
			       (unsigned long long)(phase_region_len(sp, t) / grid), (unsigned long long)grid,
			       sp->targets[t]->path, (unsigned long long)(phase_region_len(sp, t) / grid / 8 >> 20),
			       RANDOM_MAP_MAX >> 20);
	return RC_OK;
}

/* Workers (one per target by default, at least that), the byte quota,
 * every zone of a zoned distribution on every target, and the 10 s a
 * phase lasts when nothing else ends it. */
static int check_window(struct run_state *rs, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;
	uint64_t least = wl_min_bs(&rs->wl);

	if (!sp->workers)
		sp->workers = sp->ntargets;
	if (sp->workers < sp->ntargets)
		REFUSE("%s.workers: %u is fewer than the %u targets (each target needs a worker)", rs->path, sp->workers,
		       sp->ntargets);
	if (phase_given(rs, "bytes") && sp->bytes < least)
		REFUSE("%s.bytes: %llu is less than one I/O of %llu bytes (the quota counts whole I/Os; give at least "
		       "one block)", rs->path, (unsigned long long)sp->bytes, (unsigned long long)least);
	if (!sp->duration_ns && !sp->ios && !sp->bytes && !(sp->replay && sp->replay->loops))
		sp->duration_ns = PHASE_DEFAULT_DURATION_NS; /* a replay of some passes ends with its last record */
	for (unsigned t = 0; rs->wl.dist == DIST_ZONED && t < sp->ntargets; t++) {
		struct workload w = rs->wl;
		char no[256];

		w.region_off = sp->region_off;
		w.region_len = phase_region_len(sp, t);
		if (wl_prepare(&w, no, sizeof(no)) < 0)
			REFUSE("%s.%s on %s", rs->path, no, sp->targets[t]->path);
	}
	return RC_OK;
}

/* fsync / fdatasync every N writes, O_DSYNC / O_SYNC, and trims: asked
 * of a workload that does what they act on, of targets that can. A
 * stream that does not write drops the phase's syncs it inherited. */
static int check_durability(struct run_state *rs, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;

	if (sp->fsync_every && sp->fdatasync_every)
		REFUSE("%s.fdatasync: given with fsync (give one: fsync syncs data and metadata, fdatasync the data "
		       "and what reading it back needs)", rs->path);
	if ((sp->fsync_every || sp->fdatasync_every) && !wl_writes_data(&rs->wl)) {
		if (phase_given(rs, "fsync") || phase_given(rs, "fdatasync"))
			REFUSE("%s.%s: the mix never writes (a sync follows every N writes of a slot: give a mix with "
			       "writes)", rs->path, sp->fsync_every ? "fsync" : "fdatasync");
		sp->fsync_every = sp->fdatasync_every = 0; /* the phase's, for streams that write */
	}
	if (sp->open_sync != OPEN_SYNC_NONE && !wl_writes_data(&rs->wl)) {
		if (phase_given(rs, "sync"))
			REFUSE("%s.sync: the mix never writes (O_DSYNC and O_SYNC make writes durable: give a mix with "
			       "writes)", rs->path);
		sp->open_sync = OPEN_SYNC_NONE;
	}
	for (unsigned t = 0; sp->open_sync != OPEN_SYNC_NONE && t < sp->ntargets; t++)
		if (sp->targets[t]->url && !sp->targets[t]->net_fua) /* on a LUN or export: FUA on every write */
			REFUSE("%s.sync: %s does not offer FUA (Force Unit Access), so a write to it cannot be made "
			       "durable as it completes (use fsync or fdatasync = N: its flush)", rs->path,
			       sp->targets[t]->path);
	if ((sp->engine_flags & ENGINE_IOPOLL) && (sp->fsync_every || sp->fdatasync_every || wl_trims(&rs->wl)))
		REFUSE("%s.iopoll: with %s (a polled ring does reads and writes only: give syncs and trims a phase "
		       "without iopoll)", rs->path, wl_trims(&rs->wl) ? "trims" : "fsync or fdatasync");
	for (unsigned t = 0; wl_trims(&rs->wl) && t < sp->ntargets; t++) {
		char no[WHY_LEN];

		if (target_can_trim(sp->targets[t], no, sizeof(no)) != RC_OK)
			REFUSE("%s.%s: trims %s, which cannot discard: %s", rs->path, sp->replay ? "replay" : "mix",
			       sp->targets[t]->path, no);
	}
	for (unsigned t = 0; sp->trim_secure && t < sp->ntargets; t++) {
		char no[WHY_LEN];

		if (!wl_trims(&rs->wl))
			REFUSE("%s.trim_secure: true, but the mix has no trims (give trim = N, the percentage of I/Os "
			       "that discard)", rs->path);
		if (target_can_secure_trim(sp->targets[t], no, sizeof(no)) != RC_OK)
			REFUSE("%s.trim_secure: %s", rs->path, no);
	}
	if (wl_trims(&rs->wl) && sp->verify != VERIFY_NONE)
		REFUSE("%s.verify: with trims (a trimmed range holds no data to check: verify in a phase without "
		       "trims)", rs->path);
	return RC_OK;
}

/* verify_only without a quota reads every unit of the region once: each
 * worker its part (phase_part_of), in blocks of one size on a grid of that
 * size, the tail under a block unread (refused if written: attach_gen_maps);
 * no ramp (what a ramp reads counts for nothing). */
static int check_read_once(struct run_state *rs, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;
	const uint64_t bs = wl_min_bs(&rs->wl);

	if (bs != wl_max_bs(&rs->wl))
		REFUSE("%s.verify_only: reads the region once in blocks of one size, but bs gives %llu to %llu bytes "
		       "(give one bs, or a bytes quota)", rs->path, (unsigned long long)bs,
		       (unsigned long long)wl_max_bs(&rs->wl));
	for (unsigned i = 0; i < rs->wl.nspecs; i++)
		if (rs->wl.spec[i].region_len)
			REFUSE("%s.mix[%u].region: given with verify_only, which reads the phase's region once (give "
			       "the region on the phase, or a bytes quota)", rs->path, i + 1);
	if (sp->seq_start)
		REFUSE("%s.seq_start: given with verify_only, which reads the region once from the start of each "
		       "worker's part (give no seq_start, or a bytes quota)", rs->path);
	if (sp->ramp_ns)
		REFUSE("phase.ramp: given with %s.verify_only, which reads each unit once (what a ramp reads would "
		       "count for nothing: give no ramp, or a bytes quota)", rs->path);
	for (unsigned i = 0; i < rs->wl.nspecs; i++)
		rs->wl.spec[i].align = bs; /* the grid the workers' parts are laid out on */
	sp->read_once = 1;
	sp->bytes = phase_read_once_bytes(sp); /* this rank's: api_cluster_share sets it again */
	sp->duration_ns = 0;
	if (!sp->bytes)
		REFUSE("%s.verify_only: the region holds no whole block of %llu bytes", rs->path, (unsigned long long)bs);
	return RC_OK;
}

/* verify_only reads the whole region back, in order: once without a
 * quota (check_read_once); skip_unwritten needs crc32c. */
static int check_verify_only(struct run_state *rs, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;

	if (sp->skip_unwritten > 0 && sp->verify != VERIFY_CRC)
		REFUSE("%s.skip_unwritten: needs verify = \"crc32c\" (only crc32c knows which units were written)",
		       rs->path);
	if (sp->atomic && !sp->after_crash)
		REFUSE("%s.atomic: true, but after_crash is not (atomic says a torn unit fails the judgement after a "
		       "crash: give after_crash = true)", rs->path);
	if (sp->after_crash && !rs->verify_only)
		REFUSE("%s.after_crash: true, but verify_only is not (the judgement after a crash only reads: give "
		       "verify_only = true, verify = \"crc32c\")", rs->path);
	if (sp->verify_state && sp->verify != VERIFY_CRC && !phase_writes(sp))
		REFUSE("%s.verify_state: given, but the phase neither verifies with crc32c nor writes (the directory "
		       "holds the state of data written with verify = \"crc32c\": give verify = \"crc32c\", or leave "
		       "verify_state out)", rs->path);
	if (sp->need_state && (!rs->verify_only || sp->verify != VERIFY_CRC))
		REFUSE("%s.need_state: true, but the phase is not a verify_only pass with verify = \"crc32c\" (only "
		       "that reads against a state)", rs->path);
	if (sp->after_crash && sp->verify != VERIFY_CRC)
		REFUSE("%s.after_crash: needs verify = \"crc32c\" (only crc32c knows what was written and made durable)",
		       rs->path);
	if (!rs->verify_only)
		return RC_OK;
	if (sp->verify == VERIFY_NONE)
		REFUSE("%s.verify_only: needs verify = \"crc32c\" (or \"offset\")", rs->path);
	for (unsigned i = 0; i < rs->wl.nspecs; i++) {
		rs->wl.spec[i].read_thr = WL_ONE;
		rs->wl.spec[i].random_thr = 0;
	}
	return sp->bytes || sp->ios ? RC_OK : check_read_once(rs, why, why_len);
}

/* crc32c works in whole 512-byte units, 4096 where every size allows:
 * sp->verify_unit. */
static int check_crc_units(struct run_state *rs, int *four_k, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;

	*four_k = sp->region_off % 4096 == 0;
	for (unsigned i = 0; i < rs->wl.nspecs; i++) {
		const struct wl_spec *w = &rs->wl.spec[i];

		for (unsigned j = 0; j < w->nbs; j++) {
			if (w->bs[j].bytes % 512)
				REFUSE("%s.verify: crc32c verifies whole 512-byte units; block size %llu is not one", rs->path,
				       (unsigned long long)w->bs[j].bytes);
			*four_k = *four_k && w->bs[j].bytes % 4096 == 0;
		}
		if (w->align % 512 || (w->region_len && w->region_off % 512))
			REFUSE("%s.verify: crc32c verifies whole 512-byte units; spec %u's alignment or region is not in them", rs->path,
			       i + 1);
		*four_k = *four_k && w->align % 4096 == 0 && (!w->region_len || w->region_off % 4096 == 0);
	}
	if (sp->region_off % 512)
		REFUSE("%s.verify: crc32c verifies whole 512-byte units; the region's offset is not one", rs->path);
	sp->verify_unit = *four_k ? 4096 : 512;
	return RC_OK;
}

/* Buffers within bounds, and write permission on every target if the mix
 * writes. */
static int check_limits(const struct run_state *rs, char *why, size_t why_len)
{
	const struct phase_spec *sp = &rs->sp;
	uint64_t per = wl_max_bs(&rs->wl) * sp->qd;

	if ((double)per * sp->workers > (double)PHASE_MAX_BUFFERS)
		REFUSE("%s: qd %u x bs %llu x workers %u needs %.1f GiB of buffers (at most 8 GiB)", rs->path, sp->qd,
		       (unsigned long long)wl_max_bs(&rs->wl), sp->workers, (double)per * sp->workers / 1073741824.0);
	for (unsigned t = 0; phase_writes(sp) && t < sp->ntargets; t++) {
		char no[WHY_LEN];
		int rc = target_may_write(sp->targets[t], no, sizeof(no));

		if (rc == RC_INPUT) /* the field that named the target first (err.field), then the path */
			REFUSE("%s: %s", rs->what[t][0] ? rs->what[t] : "phase.target",
			       strncmp(no, "target ", 7) ? no : no + 7);
		if (rc != RC_OK) {
			snprintf(why, why_len, "%s", no);
			return rc;
		}
	}
	return RC_OK;
}

/* A unit size refused (why: in what the data was written): say which of
 * the phase's sizes is not whole units. */
static int unit_refused(const struct workload *wl, const char *path, char *why, size_t why_len)
{
	char was[WHY_LEN];

	snprintf(was, sizeof(was), "%s", why);
	for (unsigned i = 0; i < wl->nspecs; i++)
		for (unsigned j = 0; j < wl->spec[i].nbs; j++)
			if (wl->spec[i].bs[j].bytes % 4096)
				REFUSE("%s.bs: %llu, but the data to verify was written in %s; a read must cover whole "
				       "units to check them (give a multiple of the unit)", path,
				       (unsigned long long)wl->spec[i].bs[j].bytes, was);
	REFUSE("%s.region: the offset or alignment is not in whole units, but the data to verify was written in %s "
	       "(give multiples of the unit)", path, was);
}

/* after_crash over a whole target cut short inside a unit (a file that
 * lost its tail): the written tail at `at` is that unit, judged lost by
 * the pass (worker_verify.c), not a bs that leaves it unread. */
static int crash_cut_mid(const struct phase_spec *sp, unsigned t, uint64_t at)
{
	const struct gen_map *m = sp->targets[t]->gmap;

	return sp->after_crash && !sp->region_off && !sp->region_len && m && m->unit &&
	       at == sp->targets[t]->size / m->unit * m->unit;
}

/* after_crash: t's state, and the record of what its writing phase made
 * durable (verify/crash.h), or RC_INPUT saying which is missing. */
static int crash_record(struct run_state *rs, struct target *t, char *why, size_t why_len)
{
	char no[WHY_LEN], dir[4096];
	int rc;

	if (!t->exists || !genmap_known(t->gmap))
		REFUSE("%s.after_crash: target %s has no verification state to judge it by in %s (give the "
		       "verify_state or IOMOON_STATE_DIR the writing phase had; a phase writing with verify = "
		       "\"crc32c\" and a durability point makes it)", rs->path, t->path,
		       genmap_dir(rs->sp.verify_state, dir, sizeof(dir)));
	rc = genmap_durable(t, 0, no, sizeof(no));
	if (rc == RC_INPUT)
		REFUSE("%s.after_crash: target %s: %s", rs->path, t->path, no);
	if (rc < 0)
		snprintf(why, why_len, "%s", no);
	return rc;
}

/* need_state: a verify_only pass found no state of t to verify it
 * against: RC_INPUT naming where it looked. */
static int no_state(struct run_state *rs, const struct target *t, char *why, size_t why_len)
{
	char dir[4096];

	REFUSE("%s.need_state: %s has none in %s to verify it against: every unit would pass that holds an intact "
	       "header, a lost write too (give the directory the writing run kept it in: --verify-state DIR, "
	       "verify_state or IOMOON_STATE_DIR; root's default is /var/lib/iomoon, another user's "
	       "~/.local/state/iomoon; or check the headers alone, which finds damaged and misplaced units but no lost "
	       "write: iomoon verify --no-state, need_state = false)",
	       rs->path, t->path, genmap_dir(rs->sp.verify_state, dir, sizeof(dir)));
}

/* Each existing target's generation map (a file this phase creates gets
 * its map in the workers): the unit of data already written with
 * verification is the phase's, when its sizes allow. Last of the checks:
 * it allocates maps and reads state files. */
int phase_attach_gen_maps(struct run_state *rs, int four_k, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;
	uint64_t probe = UINT64_MAX, at, tail; /* probe: a phase that only writes reads no header */
	int mode = phase_writes(sp) ? GENMAP_WRITES : 0;

	for (unsigned i = 0; i < rs->wl.nspecs; i++)
		if (rs->wl.spec[i].read_thr) {
			probe = sp->after_crash ? UINT64_MAX : sp->region_off; /* after_crash: the state, or nothing */
			mode |= GENMAP_READS | (rs->state_planned ? GENMAP_PLANNED : 0) | (sp->after_crash ? GENMAP_CRASH : 0);
		}
	if ((mode & GENMAP_WRITES) && genmap_dir_check(sp->verify_state, 1, why, why_len))
		return RC_INPUT;
	if (!(mode & GENMAP_WRITES) && sp->verify_state && !rs->state_planned &&
	    genmap_dir_check(sp->verify_state, 0, why, why_len))
		return RC_INPUT;
	genmap_collect(); /* every target of this phase attaches again below */
	for (int pass = 0; pass < 2; pass++)
		for (unsigned t = 0; t < sp->ntargets; t++) {
			uint32_t unit = sp->verify_unit;
			int rc;

			sp->targets[t]->gmap = NULL;
			if (!sp->targets[t]->exists)
				continue;
			rc = genmap_attach(sp->targets[t], sp->verify_state, &unit, four_k, 0, probe, mode, why,
					   why_len);
			if (rc == RC_INPUT)
				return unit_refused(&rs->wl, rs->path, why, why_len);
			if (rc == RC_REFUSED)
				return RC_INPUT;
			if (rc == RC_OK && pass && unit != sp->verify_unit)
				REFUSE("%s.target: the targets hold data verified in different unit sizes "
				       "(verify them in separate phases)", rs->path);
			if (rc < 0)
				return rc;
			sp->verify_unit = unit;
			if (pass && sp->after_crash && !rs->state_planned &&
			    (rc = crash_record(rs, sp->targets[t], why, why_len)))
				return rc;
			if (pass && sp->need_state && rs->verify_only && !rs->state_planned && sp->targets[t]->gmap &&
			    !genmap_known(sp->targets[t]->gmap))
				return no_state(rs, sp->targets[t], why, why_len);
			if (pass && sp->read_once && (at = phase_tail_written(sp, t, &tail)) && !crash_cut_mid(sp, t, at))
				REFUSE("%s.bs: %llu leaves the last %llu bytes of %s unread, written at %llu (give a bs that "
				       "divides the region)", rs->path, (unsigned long long)wl_min_bs(&rs->wl),
				       (unsigned long long)tail, sp->targets[t]->path, (unsigned long long)at);
		}
	return phase_check_slices(sp, why, why_len);
}

/* A replay's qd when none is given: enough that the device, not the
 * queue, sets the pace of a recorded workload. */
#define REPLAY_DEFAULT_QD 64

/* The fields a replay takes from its trace, and those it has no use for. */
static const char *const not_with_replay[] = { "bs", "read", "trim", "random", "align", "skip", "mix", "dist", "rate",
					       "schedule", "think", "verify_only", "random_map", NULL };

/* phase.replay: no field the trace replaces, no ramp (a replay is
 * measured from its first record), no verification; the trace checked
 * against the targets and described as the workload (replay.h); its
 * default qd. */
static int check_replay(struct run_state *rs, char *why, size_t why_len)
{
	struct phase_spec *sp = &rs->sp;
	char field[64];

	if (!sp->replay)
		return RC_OK;
	for (unsigned i = 0; not_with_replay[i]; i++)
		if (phase_given(rs, not_with_replay[i]))
			REFUSE("%s.%s: given with replay (a replay's ops, sizes, offsets and times are the trace's; "
			       "give one or the other)", rs->path, not_with_replay[i]);
	if (sp->ramp_ns)
		REFUSE("phase.ramp: given with replay (a replay is measured from its first record: give no ramp)");
	if (sp->verify != VERIFY_NONE)
		REFUSE("%s.verify: given with replay (a trace's writes and reads do not follow the order verification "
		       "needs: verify in a phase of its own)", rs->path);
	if (!rs->qd_given && !sp->engine->sync)
		sp->qd = REPLAY_DEFAULT_QD;
	snprintf(field, sizeof(field), "%s.replay", rs->path);
	return replay_prepare(&rs->replay, sp, &rs->wl, PHASE_MAX_BS, field, why, why_len);
}

/* One workload (a phase without streams, or one stream): everything but
 * the generation maps. */
/* Are t and u one file or device (the same target, or the same device
 * and inode: a hard link, a symlink, another spelling)? */
int phase_same_target(const struct target *t, const struct target *u)
{
	return t->kind != TARGET_NONE &&
	       (t == u || (t->exists && u->exists && t->id_dev == u->id_dev && t->id_ino == u->id_ino));
}

/* A verifying phase that writes one file under two of its targets: the
 * slices of its workers are per target, so two workers would write the
 * same units and report lost writes on healthy storage. */
static int check_verify_twice(const struct run_state *rs, char *why, size_t why_len)
{
	const struct phase_spec *sp = &rs->sp;

	if (sp->verify == VERIFY_NONE || !phase_writes(sp))
		return RC_OK;
	for (unsigned i = 1; i < sp->ntargets; i++)
		for (unsigned j = 0; j < i; j++)
			if (phase_same_target(sp->targets[i], sp->targets[j]))
				REFUSE("%s: %s is the file or device of %s too (%s), and a phase that writes with "
				       "verify gives each target's workers slices of it: name it once",
				       rs->what[i][0] ? rs->what[i] : rs->path, sp->targets[i]->path,
				       rs->what[j][0] ? rs->what[j] : rs->path, sp->targets[j]->path);
	return RC_OK;
}

/* A dedupe ratio and sets a worker's data region can carry (data.h: at
 * most 64 MiB of units, 1 in dedupe unique, each set a duplicate unit);
 * before, a ratio it could not carry ran as the most it could (1 MiB
 * units at dedupe 4 and QD 1: 1.0). */
static int check_dedupe_room(const struct run_state *rs, char *why, size_t why_len)
{
	const struct phase_spec *sp = &rs->sp;
	const size_t io_len = (wl_max_bs(&rs->wl) + 4095) / 4096 * 4096;
	double most;
	uint64_t sets;

	if (data_dedupe_room(sp, io_len, &most, &sets))
		return RC_OK;
	if (most < 0.99 * sp->dedupe)
		REFUSE("%s.dedupe: %g with a dedupe_unit of %u bytes at qd %u is more than a worker's data region "
		       "(at most 64 MiB) can hold: at most %.4g (give a smaller dedupe_unit, or a smaller dedupe)",
		       rs->path, sp->dedupe, sp->dedupe_unit, sp->qd, floor(most * 1000) / 1000);
	REFUSE("%s.dedupe_sets: %llu is more than the %llu duplicate units the data regions hold at dedupe %g with a "
	       "dedupe_unit of %u bytes (each set is one of them): give at most %llu", rs->path,
	       (unsigned long long)sp->dedupe_sets, (unsigned long long)sets, sp->dedupe, sp->dedupe_unit,
	       (unsigned long long)sets);
}

/* What writes carry (data.h): a dedupe unit that is a power of two from
 * 512 bytes to 1 MiB and divides every block size; ratios on random data
 * only; a compress the unit can hold; no dedupe under crc32c, whose
 * headers make every unit unique. */
static int check_data(const struct run_state *rs, char *why, size_t why_len)
{
	static const char *const patterns[] = { "random", "zero", "offset", "repeat", "reuse" };
	const struct phase_spec *sp = &rs->sp;
	const uint32_t u = sp->dedupe_unit;
	const char *field = sp->dedupe > 1.0 ? "dedupe" : "compress";

	if (u < 512 || u > (1u << 20) || (u & (u - 1)))
		REFUSE("%s.dedupe_unit: %u is not a power of two from 512 to 1m (the default is 4k)", rs->path, u);
	if (sp->dedupe_sets && sp->dedupe <= 1.0)
		REFUSE("%s.dedupe_sets: %llu without dedupe (give dedupe = a ratio above 1, or leave dedupe_sets out)",
		       rs->path, (unsigned long long)sp->dedupe_sets);
	if (!data_reduces(sp))
		return RC_OK;
	if (sp->verify == VERIFY_OFFSET)
		REFUSE("%s.%s: %g with verify = \"offset\", whose pattern holds offsets (give verify = \"crc32c\", or "
		       "leave %s out)", rs->path, field, sp->dedupe > 1.0 ? sp->dedupe : sp->compress, field);
	if (sp->pattern != PATTERN_RANDOM)
		REFUSE("%s.%s: %g with pattern = \"%s\" (reducible data is made of random bytes: give pattern = "
		       "\"random\", the default, or leave %s out)", rs->path, field,
		       sp->dedupe > 1.0 ? sp->dedupe : sp->compress, patterns[sp->pattern], field);
	if (sp->dedupe > 1.0 && sp->verify == VERIFY_CRC)
		REFUSE("%s.dedupe: %g with verify = \"crc32c\" (each unit's header holds its offset and generation, so "
		       "no two units could be alike: verify in a phase without dedupe)", rs->path, sp->dedupe);
	if (sp->compress > data_max_compress(u))
		REFUSE("%s.compress: %g with a dedupe_unit of %u bytes (at most %g: each %u bytes keep a 32-byte stamp "
		       "and 16 random bytes; give a larger dedupe_unit)", rs->path, sp->compress, u, data_max_compress(u),
		       u < 4096 ? u : 4096);
	for (unsigned i = 0; i < rs->wl.nspecs; i++)
		for (unsigned j = 0; j < rs->wl.spec[i].nbs; j++)
			if (rs->wl.spec[i].bs[j].bytes % u)
				REFUSE("%s.dedupe_unit: %u does not divide the block size %llu (give a unit that divides "
				       "every bs, e.g. 512 or 4k)", rs->path, u, (unsigned long long)rs->wl.spec[i].bs[j].bytes);
	return RC_OK;
}

int phase_check_workload(struct run_state *rs, int *four_k, char *why, size_t why_len)
{
	CHECK(check_data(rs, why, why_len));
	CHECK(phase_check_targets(rs, why, why_len));
	CHECK(check_engine(rs, why, why_len));
	CHECK(check_geometry(rs, why, why_len));
	CHECK(check_replay(rs, why, why_len));
	CHECK(check_window(rs, why, why_len));
	CHECK(check_random_map(rs, why, why_len));
	if (data_reduces(&rs->sp) && rs->sp.dedupe > 1.0) /* after the workers are known */
		CHECK(check_dedupe_room(rs, why, why_len));
	CHECK(check_durability(rs, why, why_len));
	CHECK(check_verify_only(rs, why, why_len));
	CHECK(check_verify_twice(rs, why, why_len));
	if (rs->sp.verify == VERIFY_CRC)
		CHECK(check_crc_units(rs, four_k, why, why_len));
	return check_limits(rs, why, why_len);
}

int phase_check(struct run_state *rs, char *why, size_t why_len)
{
	int four_k = 0;

	if (rs->nstreams)
		return phase_check_streams(rs, why, why_len);
	if (pace_schedule_ns(&rs->pace) && !phase_given(rs, "duration")) /* the schedule, from the workers' start */
		rs->sp.duration_ns = pace_schedule_ns(&rs->pace) + pace_late_ns(&rs->sp, rs->sp.ramp_ns);
	CHECK(phase_check_workload(rs, &four_k, why, why_len));
	if (rs->sp.verify == VERIFY_CRC)
		CHECK(phase_attach_gen_maps(rs, four_k, why, why_len));
	return RC_OK;
}
