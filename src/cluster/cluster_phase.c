/* cluster_phase.c - rounds, merged intervals and the end reduction of a
 * phase every rank runs (cluster_phase.h).
 *
 * Three communicators keep the collectives of each kind in one order on
 * every rank whatever the timing: rounds (headers) on one, intervals on
 * another (interval k is reduced k-th everywhere), agreements and the end
 * on MPI_COMM_WORLD. A round is posted when the previous one completed;
 * every rank sees the same answers, so all post the same number.
 */
#include "cluster/cluster_phase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/rc.h"
#include "run/batch.h"
#include "run/phase_metrics.h"

#ifdef HAVE_MPI
#include <mpi.h>

#include "cluster/cluster_int.h"

/* Reduce n iv_pay elements of in into inout. */
static void iv_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	const struct iv_pay *a = in;
	struct iv_pay *b = inout;
	int size = 0;
	size_t n;

	MPI_Type_size(*dt, &size);
	n = (size_t)size / sizeof(*a) * (size_t)*len;
	for (size_t u = 0; u < n; u++, a++, b++) {
		if (a->t_s > b->t_s)
			b->t_s = a->t_s;
		for (int op = 0; op < OP_NDATA; op++) {
			b->ios[op] += a->ios[op];
			b->bytes[op] += a->bytes[op];
		}
		if (a->count && (!b->count || a->min < b->min))
			b->min = a->min;
		b->count += a->count;
		if (a->max > b->max)
			b->max = a->max;
		for (unsigned i = 0; i < HIST_BUCKETS; i++)
			b->buckets[i] += a->buckets[i];
		if (a->replays > b->replays)
			b->replays = a->replays;
		if (a->lag_count && (!b->lag_count || a->lag_min < b->lag_min))
			b->lag_min = a->lag_min;
		b->lag_count += a->lag_count;
		if (a->lag_max > b->lag_max)
			b->lag_max = a->lag_max;
		for (unsigned i = 0; a->lag_count && i < HIST_BUCKETS; i++)
			b->lag_buckets[i] += a->lag_buckets[i];
	}
}

static MPI_Op iv_mpi_op = MPI_OP_NULL;
static MPI_Comm hd_comm, iv_comm; /* the rounds', the intervals' */

/* The local intervals of unit u. */
static struct interval *local_list(const struct cluster_phase *cp, unsigned u, unsigned *n)
{
	if (!u) {
		*n = cp->res->nintervals;
		return cp->res->intervals;
	}
	*n = cp->res->streams[u - 1].nintervals;
	return cp->res->streams[u - 1].intervals;
}

struct cluster_phase *cluster_phase_new(const struct phase_spec *sp, struct phase_result *res)
{
	struct cluster_phase *cp;

	if (!cluster_on())
		return NULL;
	cp = calloc(1, sizeof(*cp));
	if (!cp)
		abort();
	cp->sp = sp;
	cp->res = res;
	cp->nu = 1 + sp->nstreams;
	cp->stopped_by = -1;
	cp->list = calloc(cp->nu, sizeof(*cp->list));
	cp->nlist = calloc(cp->nu, sizeof(*cp->nlist));
	cp->cap = calloc(cp->nu, sizeof(*cp->cap));
	if (!cp->list || !cp->nlist || !cp->cap)
		abort();
	if (iv_mpi_op == MPI_OP_NULL) {
		/* made once, by every rank at its first phase, and kept: a
		 * communicator costs a collective to make */
		MPI_Op_create(iv_op, 1, &iv_mpi_op);
		MPI_Comm_dup(MPI_COMM_WORLD, &hd_comm);
		MPI_Comm_dup(MPI_COMM_WORLD, &iv_comm);
	}
	cp->hd_comm = hd_comm;
	cp->iv_comm = iv_comm;
	MPI_Type_contiguous((int)(sizeof(struct iv_pay) * cp->nu), MPI_BYTE, &cp->iv_type);
	MPI_Type_commit(&cp->iv_type);
	/* the hosts' names onto rank 0, for its exporter's host labels (every
	 * rank takes part: only rank 0 knows whether it exports) */
	if (cluster_rank() == 0 && !(cp->hosts = calloc(cluster_ranks(), sizeof(*cp->hosts))))
		abort();
	{
		char me[CLUSTER_HOST_LEN] = { 0 };

		snprintf(me, sizeof(me), "%s", cluster_host());
		MPI_Gather(me, CLUSTER_HOST_LEN, MPI_CHAR, cp->hosts, CLUSTER_HOST_LEN, MPI_CHAR, 0, cp->iv_comm);
	}
	return cp;
}

void cluster_phase_started(struct cluster_phase *cp, int64_t realtime_ns)
{
	if (cp)
		cp->realtime_ns = realtime_ns;
}

void cluster_phase_free(struct cluster_phase *cp)
{
	if (!cp)
		return;
	while (cp->head) {
		struct iv_node *n = cp->head;

		cp->head = n->next;
		free(n);
	}
	for (unsigned i = 0; i < cp->nin; i++) {
		struct iv_req *r = &cp->inflight[(cp->first_in + i) % IV_INFLIGHT];

		MPI_Wait(&r->req, MPI_STATUS_IGNORE);
		MPI_Wait(&r->greq, MPI_STATUS_IGNORE);
		free(r->send);
		free(r->recv);
		free(r->gsend);
		free(r->grecv);
	}
	free(cp->hosts);
	if (cp->hd_active)
		MPI_Wait(&cp->hd_req, MPI_STATUS_IGNORE);
	if (cp->list)
		MPI_Type_free(&cp->iv_type);
	for (unsigned u = 0; cp->list && u < cp->nu; u++)
		free(cp->list[u]);
	free(cp->list);
	free(cp->nlist);
	free(cp->cap);
	free(cp);
}

void cluster_phase_made(struct cluster_phase *cp, const struct hist *const *both)
{
	struct iv_node *n;

	if (!cp)
		return;
	n = malloc(sizeof(*n) + 2 * cp->nu * sizeof(struct hist));
	if (!n)
		abort(); /* the ranks would lose step: no way to go on */
	n->next = NULL;
	for (unsigned u = 0; u < cp->nu; u++) {
		n->h[2 * u] = both[u][0];
		n->h[2 * u + 1] = both[u][1];
	}
	if (cp->tail)
		cp->tail->next = n;
	else
		cp->head = n;
	cp->tail = n;
	cp->made++;
}

/* Does unit u (0: the phase, then each stream) replay a trace here? The
 * phase does when it or one of its streams does. */
static int unit_replays(const struct cluster_phase *cp, unsigned u)
{
	if (u)
		return phase_stream(cp->sp, u - 1)->replay != NULL;
	for (unsigned i = 0; i < phase_nstreams(cp->sp); i++)
		if (phase_stream(cp->sp, i)->replay)
			return 1;
	return 0;
}

/* Post the reduction of interval cp->posted: this rank's, or nothing when
 * it made fewer (it ended earlier). */
static void post_interval(struct cluster_phase *cp)
{
	struct iv_req *r = &cp->inflight[(cp->first_in + cp->nin) % IV_INFLIGHT];
	const size_t size = sizeof(struct iv_pay) * cp->nu;
	struct iv_node *n = NULL;

	r->send = calloc(1, size);
	r->recv = calloc(1, size);
	if (!r->send || !r->recv)
		abort(); /* as above */
	if (cp->posted < cp->made && cp->head) {
		n = cp->head;
		cp->head = n->next;
		if (!cp->head)
			cp->tail = NULL;
	}
	for (unsigned u = 0; n && u < cp->nu; u++) {
		struct iv_pay *p = &r->send[u];
		unsigned cnt;
		const struct interval *iv = local_list(cp, u, &cnt);

		if (cp->posted < cnt) {
			p->t_s = iv[cp->posted].t_s;
			memcpy(p->ios, iv[cp->posted].ios, sizeof(p->ios));
			memcpy(p->bytes, iv[cp->posted].bytes, sizeof(p->bytes));
		}
		p->count = n->h[2 * u].count;
		p->min = n->h[2 * u].min;
		p->max = n->h[2 * u].max;
		memcpy(p->buckets, n->h[2 * u].buckets, sizeof(p->buckets));
		p->replays = (uint64_t)unit_replays(cp, u);
		p->lag_count = n->h[2 * u + 1].count;
		p->lag_min = n->h[2 * u + 1].min;
		p->lag_max = n->h[2 * u + 1].max;
		memcpy(p->lag_buckets, n->h[2 * u + 1].buckets, sizeof(p->lag_buckets));
	}
	free(n);
	MPI_Iallreduce(r->send, r->recv, 1, cp->iv_type, iv_mpi_op, cp->iv_comm, &r->req);
	/* this rank's own I/Os and bytes of it, onto rank 0 (posted after the
	 * reduction on every rank: one order of collectives on iv_comm) */
	r->gsend = calloc(cp->nu, IV_OWN * sizeof(uint64_t));
	r->grecv = cluster_rank() == 0 ? calloc((size_t)cluster_ranks() * cp->nu, IV_OWN * sizeof(uint64_t)) : NULL;
	if (!r->gsend || (cluster_rank() == 0 && !r->grecv))
		abort(); /* as above */
	for (unsigned u = 0; u < cp->nu; u++) {
		memcpy(r->gsend + u * IV_OWN, r->send[u].ios, sizeof(r->send[u].ios));
		memcpy(r->gsend + u * IV_OWN + OP_NDATA, r->send[u].bytes, sizeof(r->send[u].bytes));
	}
	MPI_Igather(r->gsend, (int)(cp->nu * IV_OWN), MPI_UINT64_T, r->grecv, (int)(cp->nu * IV_OWN), MPI_UINT64_T, 0,
		    cp->iv_comm, &r->greq);
	cp->nin++;
	cp->posted++;
}

/* The merged interval k from a reduced payload, appended to each unit's
 * list; own: each rank's own figures of it (rank 0), or NULL. */
static void take_interval(struct cluster_phase *cp, const struct iv_pay *p, const uint64_t *own)
{
	struct hist *h = malloc(sizeof(*h));

	if (!h)
		abort();
	for (unsigned u = 0; u < cp->nu; u++, p++) {
		struct interval iv = { .t_s = p->t_s, .len_s = p->t_s - cp->last_t };

		if (cp->nlist[u] == cp->cap[u]) {
			unsigned nc = cp->cap[u] ? cp->cap[u] * 2 : 64;
			struct interval *l = realloc(cp->list[u], nc * sizeof(*l));

			if (!l)
				abort();
			cp->list[u] = l;
			cp->cap[u] = nc;
		}
		hist_init(h);
		memcpy(h->buckets, p->buckets, sizeof(h->buckets));
		h->count = p->count;
		h->min = p->min;
		h->max = p->max;
		memcpy(iv.ios, p->ios, sizeof(iv.ios));
		memcpy(iv.bytes, p->bytes, sizeof(iv.bytes));
		iv.p50_ns = hist_percentile(h, 50);
		iv.p99_ns = hist_percentile(h, 99);
		iv.max_ns = h->count ? h->max : 0;
		/* rank 0's exporter, when it exports: each rank's own, then the
		 * merged (which publishes them all) */
		for (unsigned k = 0; own && k < cluster_ranks(); k++) {
			struct interval mine = iv;
			const uint64_t *o = own + ((size_t)k * cp->nu + u) * IV_OWN;

			memcpy(mine.ios, o, sizeof(mine.ios));
			memcpy(mine.bytes, o + OP_NDATA, sizeof(mine.bytes));
			phase_metrics_rank(k, cp->hosts[k], u, &mine);
		}
		phase_metrics_merged(u, &iv, h);
		if (p->replays) { /* the lag of every rank's records submitted in it */
			hist_init(h);
			memcpy(h->buckets, p->lag_buckets, sizeof(h->buckets));
			h->count = p->lag_count;
			h->min = p->lag_min;
			h->max = p->lag_max;
			iv.has_lag = 1;
			iv.lag_p99_ns = hist_percentile(h, 99);
			iv.lag_max_ns = h->count ? h->max : 0;
		}
		cp->list[u][cp->nlist[u]++] = iv;
	}
	cp->last_t = (p - cp->nu)->t_s;
	free(h);
}

/* Complete what interval reductions have completed, in order; wait for
 * them when `wait`. */
static void reap_intervals(struct cluster_phase *cp, int wait)
{
	while (cp->nin) {
		struct iv_req *r = &cp->inflight[cp->first_in];
		int done = 0;

		if (wait) {
			MPI_Wait(&r->req, MPI_STATUS_IGNORE);
			MPI_Wait(&r->greq, MPI_STATUS_IGNORE);
		} else {
			MPI_Test(&r->req, &done, MPI_STATUS_IGNORE); /* done: req is MPI_REQUEST_NULL, tested done again */
			if (done)
				MPI_Test(&r->greq, &done, MPI_STATUS_IGNORE);
		}
		if (!wait && !done)
			return;
		take_interval(cp, r->recv, r->grecv);
		free(r->send);
		free(r->recv);
		free(r->gsend);
		free(r->grecv);
		cp->first_in = (cp->first_in + 1) % IV_INFLIGHT;
		cp->nin--;
		cp->merged++;
	}
}

/* What a completed round says; the next round is posted unless every rank
 * is done. */
static int round_done(struct cluster_phase *cp, const struct cluster_local *l)
{
	const unsigned ranks = cluster_ranks();
	int bits = 0;

	cp->rounds++;
	cp->hd_active = 0;
	if (cp->hd_recv[0] && !l->stop) {
		bits |= CLUSTER_STOP;
		if (cp->stopped_by < 0)
			cp->stopped_by = (int)(ranks - cp->hd_recv[0]);
	} else if (cp->hd_recv[0] && cp->stopped_by < 0) {
		cp->stopped_by = (int)(ranks - cp->hd_recv[0]);
	}
	if (cp->hd_recv[1] && !l->interrupted)
		bits |= CLUSTER_INTERRUPT;
	cp->all_done = -cp->hd_recv[3] == 1;
	cp->target = cp->all_done ? (unsigned)cp->hd_recv[4] : (unsigned)-cp->hd_recv[2];
	return bits;
}

int cluster_phase_poll(struct cluster_phase *cp, const struct cluster_local *l)
{
	int bits = 0;

	if (!cp)
		return CLUSTER_DONE;
	if (cp->hd_active) {
		int done = 0;

		MPI_Test(&cp->hd_req, &done, MPI_STATUS_IGNORE);
		if (done)
			bits = round_done(cp, l);
	}
	while (cp->posted < cp->target && cp->nin < IV_INFLIGHT)
		post_interval(cp);
	reap_intervals(cp, 0);
	if (cp->all_done)
		return cp->merged == cp->target ? bits | CLUSTER_DONE : bits;
	if (!cp->hd_active) {
		/* ready: the intervals that will not change (the last one made
		 * may still get the I/Os completed after its snapshot) */
		int64_t ready = l->done ? INT64_MAX / 2 : (int64_t)(cp->made ? cp->made - 1 : 0);

		cp->hd_send[0] = l->stop ? (int64_t)(cluster_ranks() - cluster_rank()) : 0;
		cp->hd_send[1] = l->interrupted;
		cp->hd_send[2] = -ready;
		cp->hd_send[3] = -(int64_t)l->done;
		cp->hd_send[4] = cp->made;
		MPI_Iallreduce(cp->hd_send, cp->hd_recv, HD_LEN, MPI_INT64_T, MPI_MAX, cp->hd_comm, &cp->hd_req);
		cp->hd_active = 1;
	}
	return bits;
}

#else /* !HAVE_MPI */

struct cluster_phase *cluster_phase_new(const struct phase_spec *sp, struct phase_result *res)
{
	(void)sp;
	(void)res;
	return NULL;
}

void cluster_phase_started(struct cluster_phase *cp, int64_t realtime_ns)
{
	(void)cp;
	(void)realtime_ns;
}

void cluster_phase_made(struct cluster_phase *cp, const struct hist *const *both)
{
	(void)cp;
	(void)both;
}

int cluster_phase_poll(struct cluster_phase *cp, const struct cluster_local *l)
{
	(void)cp;
	(void)l;
	return CLUSTER_DONE;
}

void cluster_phase_free(struct cluster_phase *cp)
{
	(void)cp;
}

#endif
