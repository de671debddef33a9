/* cluster_end.c - the end of a clustered phase: everything counted,
 * reduced exactly onto rank 0 and broadcast (so that every rank holds the
 * very same bytes, whatever order the reduction took), and each rank's
 * own figures gathered. (HAVE_MPI; without it,
 * a phase never ends as a cluster.)
 *
 * The payload is a run of sections, 16-byte aligned: a head, then per
 * unit (the phase, each stream) its counters, batch sizes, per-spec
 * figures and replay lag when it has them. The layout follows from the
 * phase, which every rank agreed on; the reduction's operator walks it.
 */

#include "cluster/cluster_phase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "run/replay.h"

#ifdef HAVE_MPI
#include "cluster/cluster_int.h"

/* What is not a histogram or a counter: reduced by sum, max or min. */
struct end_head {
	uint64_t seconds_ns;          /* max */
	uint64_t user_ns, sys_ns;     /* sum */
	uint64_t util_milli;          /* sum (divided by the ranks after) */
	uint64_t other_milli;         /* sum (divided by the ranks after) */
	uint64_t other_user_milli;    /* sum (divided by the ranks after) */
	uint64_t user_milli, sys_milli, self_milli; /* sum (divided by the ranks after) */
	int64_t rt_max, rt_negmin;    /* max: the spread of the start clocks */
	uint64_t interrupted, failed; /* max */
};

struct end_unit {
	unsigned nspecs;
	int replay;
};

/* The layout of the payload being reduced: one phase at a time, on the
 * thread that runs Lua, so a static is the operator's only context. */
static struct {
	unsigned nu;
	struct end_unit u[PHASE_MAX_STREAMS + 1];
} layout;

#define ALIGN16(x) (((x) + 15) & ~(size_t)15)

static size_t unit_size(const struct end_unit *u)
{
	return ALIGN16(sizeof(struct counters)) + ALIGN16(sizeof(struct batch_stats)) +
	       ALIGN16(u->nspecs * sizeof(struct spec_stats)) + (u->replay ? ALIGN16(sizeof(struct replay_stats)) : 0);
}

static size_t end_size(void)
{
	size_t s = ALIGN16(sizeof(struct end_head));

	for (unsigned i = 0; i < layout.nu; i++)
		s += unit_size(&layout.u[i]);
	return s;
}

static void head_merge(struct end_head *b, const struct end_head *a)
{
	if (a->seconds_ns > b->seconds_ns)
		b->seconds_ns = a->seconds_ns;
	b->user_ns += a->user_ns;
	b->sys_ns += a->sys_ns;
	b->util_milli += a->util_milli;
	b->other_milli += a->other_milli;
	b->other_user_milli += a->other_user_milli;
	b->user_milli += a->user_milli;
	b->sys_milli += a->sys_milli;
	b->self_milli += a->self_milli;
	if (a->rt_max > b->rt_max)
		b->rt_max = a->rt_max;
	if (a->rt_negmin > b->rt_negmin)
		b->rt_negmin = a->rt_negmin;
	if (a->interrupted > b->interrupted)
		b->interrupted = a->interrupted;
	if (a->failed > b->failed)
		b->failed = a->failed;
}

/* The operator: inout += in, section by section. */
static void end_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	char *a = in, *b = inout;

	(void)dt;
	for (int n = 0; n < *len; n++) {
		head_merge((struct end_head *)b, (const struct end_head *)a);
		a += ALIGN16(sizeof(struct end_head));
		b += ALIGN16(sizeof(struct end_head));
		for (unsigned i = 0; i < layout.nu; i++) {
			const struct end_unit *u = &layout.u[i];
			struct spec_stats *ts;
			const struct spec_stats *fs;

			counters_merge((struct counters *)b, (const struct counters *)a);
			a += ALIGN16(sizeof(struct counters));
			b += ALIGN16(sizeof(struct counters));
			batch_stats_merge((struct batch_stats *)b, (const struct batch_stats *)a);
			a += ALIGN16(sizeof(struct batch_stats));
			b += ALIGN16(sizeof(struct batch_stats));
			ts = (struct spec_stats *)b;
			fs = (const struct spec_stats *)a;
			for (unsigned k = 0; k < u->nspecs; k++) {
				hist_merge(&ts[k].lat, &fs[k].lat);
				for (int op = 0; op < OP_NTYPES; op++)
					ts[k].ios[op] += fs[k].ios[op];
				ts[k].bytes += fs[k].bytes;
			}
			a += ALIGN16(u->nspecs * sizeof(struct spec_stats));
			b += ALIGN16(u->nspecs * sizeof(struct spec_stats));
			if (u->replay) {
				replay_stats_merge((struct replay_stats *)b, (const struct replay_stats *)a);
				a += ALIGN16(sizeof(struct replay_stats));
				b += ALIGN16(sizeof(struct replay_stats));
			}
		}
	}
}

/* Unit i's parts of the result. */
struct unit_parts {
	struct counters *c;
	struct batch_stats *b;
	struct spec_stats **specs;
	struct replay_stats **replay;
};

static struct unit_parts parts_of(struct phase_result *res, unsigned i)
{
	if (!i)
		return (struct unit_parts){ &res->total, &res->batch, &res->specs, &res->replay };
	return (struct unit_parts){ &res->streams[i - 1].total, &res->streams[i - 1].batch,
				    &res->streams[i - 1].specs, &res->streams[i - 1].replay };
}

static void set_layout(const struct phase_spec *sp)
{
	int any_replay = 0;

	layout.nu = 1 + sp->nstreams;
	for (unsigned i = 0; i < sp->nstreams; i++) {
		const struct phase_spec *s = sp->streams[i];

		layout.u[i + 1] = (struct end_unit){ s->per_spec ? s->wl->nspecs : 0, s->replay != NULL };
		any_replay |= s->replay != NULL;
	}
	layout.u[0] = (struct end_unit){ !sp->nstreams && sp->per_spec ? sp->wl->nspecs : 0,
					 sp->nstreams ? any_replay : sp->replay != NULL };
}

/* A time on this rank's clock as ns since its measurement began, and back. */
static void rebase(struct counters *c, uint64_t measure_ns, int to_common)
{
	for (unsigned k = 0; k < c->nfirst; k++) {
		struct first_error *e = &c->first_errors[k];

		if (to_common) {
			e->at_ns = e->at_ns > measure_ns ? e->at_ns - measure_ns : 0;
			e->rank = cluster_rank();
		} else {
			e->at_ns += measure_ns;
		}
	}
	if (to_common)
		c->last_done_ns = c->last_done_ns > measure_ns ? c->last_done_ns - measure_ns : 0;
	else if (c->last_done_ns)
		c->last_done_ns += measure_ns;
}

/* Copy the result into the payload (to 1) or back out of it (to 0). */
static void pack(struct phase_result *res, char *p, struct end_head *h, int to, uint64_t measure_ns)
{
	if (to)
		memcpy(p, h, sizeof(*h));
	else
		memcpy(h, p, sizeof(*h));
	p += ALIGN16(sizeof(*h));
	for (unsigned i = 0; i < layout.nu; i++) {
		const struct end_unit *u = &layout.u[i];
		struct unit_parts pt = parts_of(res, i);

		if (to) {
			rebase(pt.c, measure_ns, 1);
			memcpy(p, pt.c, sizeof(*pt.c));
		} else {
			memcpy(pt.c, p, sizeof(*pt.c));
			rebase(pt.c, measure_ns, 0);
		}
		p += ALIGN16(sizeof(struct counters));
		memcpy(to ? (void *)p : (void *)pt.b, to ? (void *)pt.b : (void *)p, sizeof(*pt.b));
		p += ALIGN16(sizeof(struct batch_stats));
		if (u->nspecs && !*pt.specs && (*pt.specs = calloc(u->nspecs, sizeof(**pt.specs))))
			for (unsigned k = 0; k < u->nspecs; k++)
				hist_init(&(*pt.specs)[k].lat); /* none here (out of memory): counts nothing */
		if (u->nspecs && *pt.specs)
			memcpy(to ? (void *)p : (void *)*pt.specs, to ? (void *)*pt.specs : (void *)p,
			       u->nspecs * sizeof(struct spec_stats));
		p += ALIGN16(u->nspecs * sizeof(struct spec_stats));
		if (!u->replay)
			continue;
		if (!*pt.replay && (*pt.replay = calloc(1, sizeof(**pt.replay))))
			hist_init(&(*pt.replay)->lag); /* this rank replayed nothing */
		if (*pt.replay)
			memcpy(to ? (void *)p : (void *)*pt.replay, to ? (void *)*pt.replay : (void *)p,
			       sizeof(struct replay_stats));
		p += ALIGN16(sizeof(struct replay_stats));
	}
}

/* What this rank ran: its workers, queue depth (with streams, the largest
 * of theirs, as result.qd) and targets (not null's and sim's nowhere). */
static void own_setup(const struct phase_spec *sp, struct cluster_host *me)
{
	const struct target *seen[PHASE_MAX_WORKERS];
	const unsigned n = phase_targets(sp, seen);

	me->workers = sp->workers;
	me->qd = sp->qd;
	for (unsigned k = 0; k < sp->nstreams; k++)
		me->qd = k && me->qd > sp->streams[k]->qd ? me->qd : sp->streams[k]->qd;
	for (unsigned i = 0; i < n; i++)
		me->targets += seen[i]->kind != TARGET_NONE;
}

/* This rank's own figures, before the merge. */
static void own_figures(const struct phase_spec *sp, const struct phase_result *res, struct cluster_host *me)
{
	struct hist all = res->total.op[OP_READ].lat;

	memset(me, 0, sizeof(*me));
	snprintf(me->host, sizeof(me->host), "%s", cluster_host());
	me->rank = cluster_rank();
	own_setup(sp, me);
	me->failed = res->failed;
	me->interrupted = res->interrupted;
	hist_merge(&all, &res->total.op[OP_WRITE].lat);
	hist_merge(&all, &res->total.op[OP_TRIM].lat);
	me->ios = all.count;
	me->bytes = res->total.op[OP_READ].bytes + res->total.op[OP_WRITE].bytes;
	for (int op = 0; op < OP_NTYPES; op++)
		me->errors += res->total.op[op].errors;
	me->seconds = res->seconds;
	me->p50_ns = hist_percentile(&all, 50);
	me->p99_ns = hist_percentile(&all, 99);
	me->max_ns = all.count ? all.max : 0;
	me->mean_ns = hist_mean(&all);
	me->util_pct = res->cpu.util_pct;
	me->user_s = res->cpu.user_s;
	me->sys_s = res->cpu.sys_s;
	me->other_pct = res->cpu.other_pct;
	me->other_user_pct = res->cpu.other_user_pct;
	me->user_pct = res->cpu.user_pct;
	me->sys_pct = res->cpu.sys_pct;
	me->self_pct = res->cpu.self_pct;
	me->started_ns = res->started_ns;
	me->inflight_mean = res->seconds > 0 ? (double)res->total.inflight_ns / (res->seconds * 1e9) : 0;
	me->has_device = res->has_device;
	me->device = res->device;
	snprintf(me->error, sizeof(me->error), "%.*s", (int)sizeof(me->error) - 1, res->failed ? res->error : "");
	memcpy(me->stopped_by, res->stopped_by, sizeof(me->stopped_by));
	me->stopped_by[sizeof(me->stopped_by) - 1] = 0;
	me->stop_value = res->stop_value;
	me->stop_limit = res->stop_limit;
	me->stop_t_s = res->stop_t_s;
}

/* result.stopped: the stop_if limit that stopped the phase, as the rank
 * that crossed it said (the one that stopped the cluster, else the lowest
 * that crossed one), so every rank holds the same. */
static void merged_stop(struct phase_result *res, const struct cluster_host *hosts, unsigned ranks, int by)
{
	const struct cluster_host *h = by >= 0 && (unsigned)by < ranks && hosts[by].stopped_by[0] ? &hosts[by] : NULL;

	for (unsigned r = 0; !h && r < ranks; r++)
		if (hosts[r].stopped_by[0])
			h = &hosts[r];
	memset(res->stopped_by, 0, sizeof(res->stopped_by));
	if (!h)
		return;
	memcpy(res->stopped_by, h->stopped_by, sizeof(res->stopped_by) - 1);
	res->stop_value = h->stop_value;
	res->stop_limit = h->stop_limit;
	res->stop_t_s = h->stop_t_s;
}

/* The merged intervals in place of this rank's own. */
static void swap_intervals(struct cluster_phase *cp)
{
	struct phase_result *res = cp->res;

	free(res->intervals);
	res->intervals = cp->list[0];
	res->nintervals = cp->nlist[0];
	cp->list[0] = NULL;
	for (unsigned u = 1; u < cp->nu; u++) {
		struct stream_result *s = &res->streams[u - 1];

		free(s->intervals);
		s->intervals = cp->list[u];
		s->nintervals = s->icap = cp->nlist[u];
		cp->list[u] = NULL;
	}
}

/* Reduce the payload onto rank 0 and hand rank 0's to all. */
static void reduce_all(char *mine, char *merged, size_t size)
{
	MPI_Datatype t;
	MPI_Op op;

	MPI_Type_contiguous((int)size, MPI_BYTE, &t);
	MPI_Type_commit(&t);
	MPI_Op_create(end_op, 1, &op);
	MPI_Reduce(mine, merged, 1, t, op, 0, MPI_COMM_WORLD);
	MPI_Bcast(merged, 1, t, 0, MPI_COMM_WORLD);
	MPI_Op_free(&op);
	MPI_Type_free(&t);
}

/* The head of this rank's figures. */
static struct end_head head_of(const struct cluster_phase *cp)
{
	const struct phase_result *res = cp->res;

	return (struct end_head){
		.seconds_ns = (uint64_t)(res->seconds * 1e9 + 0.5),
		.user_ns = (uint64_t)(res->cpu.user_s * 1e9),
		.sys_ns = (uint64_t)(res->cpu.sys_s * 1e9),
		.util_milli = (uint64_t)(res->cpu.util_pct * 1000),
		.other_milli = (uint64_t)(res->cpu.other_pct * 1000),
		.other_user_milli = (uint64_t)(res->cpu.other_user_pct * 1000),
		.user_milli = (uint64_t)(res->cpu.user_pct * 1000),
		.sys_milli = (uint64_t)(res->cpu.sys_pct * 1000),
		.self_milli = (uint64_t)(res->cpu.self_pct * 1000),
		.rt_max = cp->realtime_ns,
		.rt_negmin = -cp->realtime_ns,
		.interrupted = (uint64_t)res->interrupted,
		.failed = (uint64_t)res->failed,
	};
}

/* result.cluster and result.hosts, and the merged failure named by rank. */
static void cluster_result(struct cluster_phase *cp, const struct end_head *h, struct cluster_host *hosts,
			   uint64_t t0, size_t size)
{
	struct phase_result *res = cp->res;
	struct cluster_result *cr = calloc(1, sizeof(*cr));

	if (!cr) {
		free(hosts);
		return;
	}
	cr->ranks = cluster_ranks();
	cr->start_skew_ns = (uint64_t)(h->rt_max + h->rt_negmin);
	cr->stopped_by = cp->stopped_by;
	cr->rounds = cp->rounds;
	cr->end_bytes = size;
	cr->end_ns = clock_ns() - t0;
	cr->interval_bytes = sizeof(struct iv_pay) * cp->nu;
	cr->hosts = hosts;
	res->cluster = cr;
	merged_stop(res, hosts, cr->ranks, cp->stopped_by);
	res->failed = (int)h->failed;
	res->interrupted = (int)h->interrupted;
	for (unsigned r = 0; res->failed && hosts && r < cr->ranks; r++)
		if (hosts[r].failed) {
			snprintf(res->error, sizeof(res->error), "rank %u (%.64s): %.192s", r, hosts[r].host, hosts[r].error);
			break;
		}
}

void cluster_phase_end(struct cluster_phase *cp, const struct cluster_local *l, uint64_t measure_ns)
{
	const struct timespec wait = { 0, 200000 }; /* 0.2 ms: the end waits on the last rank */
	struct phase_result *res;
	struct cluster_host me, *hosts;
	struct end_head h;
	char *mine, *merged;
	uint64_t t0;
	size_t size;

	if (!cp)
		return;
	res = cp->res;
	while (!(cluster_phase_poll(cp, l) & CLUSTER_DONE))
		nanosleep(&wait, NULL);
	t0 = clock_ns();
	set_layout(cp->sp);
	size = end_size();
	mine = aligned_alloc(16, size);
	merged = aligned_alloc(16, size);
	hosts = calloc(cluster_ranks(), sizeof(*hosts));
	if (!mine || !merged || !hosts)
		abort(); /* the other ranks wait in the reduction: no way to go on */
	own_figures(cp->sp, res, &me);
	res->has_device = 0; /* each host's devices are its own: in result.hosts[i].device, not merged */
	MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, hosts, (int)sizeof(me), MPI_BYTE, MPI_COMM_WORLD);
	h = head_of(cp);
	memset(mine, 0, size);
	pack(res, mine, &h, 1, measure_ns);
	reduce_all(mine, merged, size);
	pack(res, merged, &h, 0, measure_ns);
	free(mine);
	free(merged);
	res->seconds = (double)h.seconds_ns / 1e9;
	res->cpu.user_s = (double)h.user_ns / 1e9;
	res->cpu.sys_s = (double)h.sys_ns / 1e9;
	res->cpu.util_pct = (double)h.util_milli / 1000.0 / cluster_ranks();
	res->cpu.other_pct = (double)h.other_milli / 1000.0 / cluster_ranks();
	res->cpu.other_user_pct = (double)h.other_user_milli / 1000.0 / cluster_ranks();
	res->cpu.user_pct = (double)h.user_milli / 1000.0 / cluster_ranks();
	res->cpu.sys_pct = (double)h.sys_milli / 1000.0 / cluster_ranks();
	res->cpu.self_pct = (double)h.self_milli / 1000.0 / cluster_ranks();
	/* when the cluster measured: rank 0's wall clock, so every rank holds the same */
	res->started_ns = hosts[0].started_ns;
	res->ended_ns = res->started_ns + (int64_t)h.seconds_ns;
	swap_intervals(cp);
	cluster_result(cp, &h, hosts, t0, size);
	cluster_phase_free(cp);
}

#else /* !HAVE_MPI */

void cluster_phase_end(struct cluster_phase *cp, const struct cluster_local *l, uint64_t measure_ns)
{
	(void)cp;
	(void)l;
	(void)measure_ns;
}

#endif
