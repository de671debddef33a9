/* cluster_files.c - a files phase under MPI (cluster_files.h): the start's
 * agreement and barrier, and the end's exact reduction onto rank 0,
 * broadcast so every rank holds the very same bytes (as cluster_end.c
 * does for data phases), with every rank's own row gathered.
 */
#include "cluster/cluster_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/rc.h"

#ifdef HAVE_MPI
#include <mpi.h>

/* Everything a rank counted, reduced: sums, and the maxima and minima. */
struct files_end {
	struct files_opres op[FOP_N];
	uint64_t created, deleted, dirs_made, dirs_removed, bytes_written, bytes_read, prefilled, chains; /* sum */
	double seconds, last_done_s;     /* max */
	double first_done_s;             /* min */
	double user_s, sys_s;            /* sum */
	double util_pct, user_pct, sys_pct, self_pct, other_pct, other_user_pct; /* sum: the machines' (their mean after) */
	int64_t started_ns;              /* min */
	int64_t ended_ns;                /* max */
	int interrupted;                 /* max */
};

/* A rank's row, and its first error (the lowest rank's is the cluster's). */
struct files_row {
	struct cluster_host h;
	int first_errno;
	char first_error[sizeof(((struct files_result *)0)->first_error)];
};

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static void end_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	const struct files_end *a = in;
	struct files_end *b = inout;

	(void)dt;
	for (int n = 0; n < *len; n++, a++, b++) {
		for (int op = 0; op < FOP_N; op++) {
			b->op[op].ops += a->op[op].ops;
			b->op[op].errors += a->op[op].errors;
			b->op[op].missing += a->op[op].missing;
			for (int e = 0; e < FILES_ERRNO_N; e++)
				b->op[op].by_errno[e] += a->op[op].by_errno[e];
			hist_merge(&b->op[op].lat, &a->op[op].lat);
		}
		b->created += a->created;
		b->deleted += a->deleted;
		b->dirs_made += a->dirs_made;
		b->dirs_removed += a->dirs_removed;
		b->bytes_written += a->bytes_written;
		b->bytes_read += a->bytes_read;
		b->prefilled += a->prefilled;
		b->chains += a->chains;
		b->seconds = MAX(a->seconds, b->seconds);
		b->last_done_s = MAX(a->last_done_s, b->last_done_s);
		b->first_done_s = MIN(a->first_done_s, b->first_done_s);
		b->user_s += a->user_s;
		b->sys_s += a->sys_s;
		b->util_pct += a->util_pct;
		b->user_pct += a->user_pct;
		b->sys_pct += a->sys_pct;
		b->self_pct += a->self_pct;
		b->other_pct += a->other_pct;
		b->other_user_pct += a->other_user_pct;
		b->started_ns = MIN(a->started_ns, b->started_ns);
		b->ended_ns = MAX(a->ended_ns, b->ended_ns);
		b->interrupted = MAX(a->interrupted, b->interrupted);
	}
}

/* Interval k of every rank (timed from the common start): summed; its
 * percentiles the highest rank's (a bound: a rank keeps no histogram per
 * interval), its max exact. */
static void iv_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	const struct files_interval *a = in;
	struct files_interval *b = inout;

	(void)dt;
	for (int n = 0; n < *len; n++, a++, b++) {
		b->t_s = MAX(a->t_s, b->t_s);
		b->len_s = MAX(a->len_s, b->len_s);
		b->ops += a->ops;
		b->read_ops += a->read_ops;
		b->write_ops += a->write_ops;
		b->bytes += a->bytes;
		b->p50_ns = MAX(a->p50_ns, b->p50_ns);
		b->p99_ns = MAX(a->p99_ns, b->p99_ns);
		b->max_ns = MAX(a->max_ns, b->max_ns);
	}
}

/* n items of size bytes at buf, reduced by fn onto rank 0, then broadcast. */
static void reduce(void *buf, size_t size, int n, MPI_User_function *fn)
{
	MPI_Datatype t;
	MPI_Op op;
	void *merged = NULL;

	if (cluster_rank() == 0 && !(merged = malloc(size * (size_t)n + 1)))
		abort(); /* the other ranks would wait for this one */
	MPI_Type_contiguous((int)size, MPI_BYTE, &t);
	MPI_Type_commit(&t);
	MPI_Op_create(fn, 1, &op);
	MPI_Reduce(buf, merged, n, t, op, 0, MPI_COMM_WORLD);
	if (merged)
		memcpy(buf, merged, size * (size_t)n);
	MPI_Bcast(buf, n, t, 0, MPI_COMM_WORLD);
	MPI_Op_free(&op);
	MPI_Type_free(&t);
	free(merged);
}

int cluster_files_start(int rc, char *why, size_t why_len, uint64_t *start_ns, int64_t *realtime_ns)
{
	struct cluster_answer a;

	if (!cluster_on()) {
		*start_ns = clock_ns();
		*realtime_ns = clock_realtime_ns();
		return rc;
	}
	if (cluster_agree(CLUSTER_START, rc, why, NULL, &a)) {
		snprintf(why, why_len, "%s", a.failed_rank >= 0 ? a.msg : "the ranks lost step before the start");
		return a.failed_rank >= 0 && a.rc != RC_OK ? a.rc : RC_FAIL;
	}
	*start_ns = cluster_barrier(realtime_ns);
	return RC_OK;
}

static void own_row(const struct files_spec *sp, const struct files_result *r, struct files_row *me)
{
	struct hist all;

	memset(me, 0, sizeof(*me));
	hist_init(&all);
	for (int op = 0; op < FOP_N; op++) {
		me->h.ios += r->op[op].ops;
		me->h.errors += r->op[op].errors;
		hist_merge(&all, &r->op[op].lat);
	}
	snprintf(me->h.host, sizeof(me->h.host), "%s", cluster_host());
	me->h.rank = cluster_rank();
	me->h.workers = sp->workers;
	me->h.qd = sp->qd;
	me->h.targets = 1;
	me->h.interrupted = r->interrupted;
	me->h.bytes = r->bytes_read + r->bytes_written;
	me->h.seconds = r->seconds;
	me->h.p50_ns = hist_percentile(&all, 50);
	me->h.p99_ns = hist_percentile(&all, 99);
	me->h.max_ns = all.max;
	me->h.mean_ns = hist_mean(&all);
	me->h.user_s = r->user_s;
	me->h.sys_s = r->sys_s;
	me->h.util_pct = r->cpu.util_pct; /* its machine's CPUs busy, as a phase's */
	me->h.other_pct = r->cpu.other_pct;
	me->h.other_user_pct = r->cpu.other_user_pct;
	me->h.user_pct = r->cpu.user_pct;
	me->h.sys_pct = r->cpu.sys_pct;
	me->h.self_pct = r->cpu.self_pct;
	me->h.started_ns = r->started_ns;
	me->first_errno = r->first_errno;
	memcpy(me->first_error, r->first_error, sizeof(me->first_error));
}

static void merge_intervals(struct files_result *res)
{
	long long n = res->niv;

	MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
	if (!n)
		return;
	if (n > res->cap_iv) {
		struct files_interval *iv = realloc(res->iv, (size_t)n * sizeof(*iv));

		if (!iv)
			abort(); /* the other ranks would wait for this one */
		res->iv = iv;
		res->cap_iv = (unsigned)n;
	}
	memset(res->iv + res->niv, 0, (size_t)(n - res->niv) * sizeof(*res->iv)); /* a rank that made fewer */
	res->niv = (unsigned)n;
	reduce(res->iv, sizeof(*res->iv), (int)n, iv_op);
}

int cluster_files_end(const struct files_spec *sp, struct files_result *res, struct cluster_result *out)
{
	struct files_end *e = calloc(1, sizeof(*e));
	struct files_row me, *rows = calloc(cluster_ranks(), sizeof(*rows));
	int64_t failed = !e || !rows, rt_min = INT64_MAX, rt_max = INT64_MIN;

	memset(out, 0, sizeof(*out));
	if (!cluster_on()) {
		free(e);
		free(rows);
		return 0;
	}
	MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	if (failed) {
		free(e);
		free(rows);
		return -1;
	}
	own_row(sp, res, &me);
	MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, rows, (int)sizeof(me), MPI_BYTE, MPI_COMM_WORLD);
	memcpy(e->op, res->op, sizeof(e->op));
	e->created = res->created;
	e->deleted = res->deleted;
	e->dirs_made = res->dirs_made;
	e->dirs_removed = res->dirs_removed;
	e->bytes_written = res->bytes_written;
	e->bytes_read = res->bytes_read;
	e->prefilled = res->prefilled;
	e->chains = res->chains;
	e->seconds = res->seconds;
	e->last_done_s = res->last_done_s;
	e->first_done_s = res->first_done_s;
	e->user_s = res->user_s;
	e->sys_s = res->sys_s;
	e->util_pct = res->cpu.util_pct;
	e->user_pct = res->cpu.user_pct;
	e->sys_pct = res->cpu.sys_pct;
	e->self_pct = res->cpu.self_pct;
	e->other_pct = res->cpu.other_pct;
	e->other_user_pct = res->cpu.other_user_pct;
	e->started_ns = res->started_ns;
	e->ended_ns = res->ended_ns;
	e->interrupted = res->interrupted;
	reduce(e, sizeof(*e), 1, end_op);
	memcpy(res->op, e->op, sizeof(e->op));
	res->created = e->created;
	res->deleted = e->deleted;
	res->dirs_made = e->dirs_made;
	res->dirs_removed = e->dirs_removed;
	res->bytes_written = e->bytes_written;
	res->bytes_read = e->bytes_read;
	res->prefilled = e->prefilled;
	res->chains = e->chains;
	res->seconds = e->seconds;
	res->last_done_s = e->last_done_s;
	res->first_done_s = e->first_done_s;
	res->user_s = e->user_s;
	res->sys_s = e->sys_s;
	res->cpu.user_s = e->user_s;
	res->cpu.sys_s = e->sys_s;
	res->cpu.util_pct = e->util_pct / cluster_ranks();
	res->cpu.user_pct = e->user_pct / cluster_ranks();
	res->cpu.sys_pct = e->sys_pct / cluster_ranks();
	res->cpu.self_pct = e->self_pct / cluster_ranks();
	res->cpu.other_pct = e->other_pct / cluster_ranks();
	res->cpu.other_user_pct = e->other_user_pct / cluster_ranks();
	res->started_ns = e->started_ns;
	res->ended_ns = e->ended_ns;
	res->interrupted = e->interrupted;
	free(e);
	merge_intervals(res);
	res->first_errno = 0;
	res->first_error[0] = 0;
	out->ranks = cluster_ranks();
	out->stopped_by = -1;
	out->hosts = calloc(out->ranks, sizeof(*out->hosts));
	for (unsigned i = 0; i < out->ranks; i++) {
		if (rows[i].first_errno && !res->first_errno) {
			res->first_errno = rows[i].first_errno;
			snprintf(res->first_error, sizeof(res->first_error), "%.480s (rank %u)", rows[i].first_error, i);
		}
		rt_min = MIN(rt_min, rows[i].h.started_ns);
		rt_max = MAX(rt_max, rows[i].h.started_ns);
		if (out->hosts)
			out->hosts[i] = rows[i].h;
	}
	out->start_skew_ns = (uint64_t)(rt_max - rt_min);
	out->end_bytes = sizeof(struct files_end);
	free(rows);
	return 0;
}

#else /* !HAVE_MPI: never in a cluster */

int cluster_files_start(int rc, char *why, size_t why_len, uint64_t *start_ns, int64_t *realtime_ns)
{
	(void)why;
	(void)why_len;
	*start_ns = clock_ns();
	*realtime_ns = clock_realtime_ns();
	return rc;
}

int cluster_files_end(const struct files_spec *sp, struct files_result *res, struct cluster_result *out)
{
	(void)sp;
	(void)res;
	memset(out, 0, sizeof(*out));
	return 0;
}

#endif

void cluster_files_free(struct cluster_result *c)
{
	free(c->hosts);
	c->hosts = NULL;
}
