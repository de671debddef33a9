/* worker_verify.c - a worker's part in verification: what a completed
 * write records and a read is checked against, overlaps in flight, the
 * set-up before the barrier and the save after the loop. Only verifying
 * phases call these; the plain hot loop (worker.c) never does. */
#include "run/worker_verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "verify/genmap.h"
#include "verify/verify.h"
#include "verify/verify_read.h"

/* 1 if a read returned the OFFSET pattern for where it read. */
static int offsets_ok(const struct io_slot *s)
{
	const uint64_t *p = s->buf;

	for (uint32_t i = 0; i < s->op.len / 8; i++)
		if (p[i] != s->op.offset + 8ull * i)
			return 0;
	return 1;
}

/* Writes made durable since the record's last sync, when dsync: synced
 * every CRASH_DSYNC_BATCH (a record behind claims less, never more). */
#define CRASH_DSYNC_BATCH 16

/* A verified write completed: durable now (dsync), else waiting for a
 * flush issued after it. */
static void crash_done(struct crash_track *ct, const struct io_slot *s)
{
	if (ct->dsync) {
		crash_durable(ct->rec, s->op.offset, s->op.len, ct->unit, s->gen);
		if (++ct->since == CRASH_DSYNC_BATCH) {
			ct->since = 0;
			crash_rec_sync(ct->rec);
		}
		return;
	}
	if (ct->done - ct->base == ct->cap)
		ct->base++; /* the oldest dropped: claimed durable by no one */
	ct->e[ct->done % ct->cap] = (struct crash_entry){ .off = s->op.offset, .gen = s->gen, .len = s->op.len };
	ct->done++;
}

void worker_crash_synced(struct worker *w, const struct io_slot *s)
{
	struct crash_track *ct = w->ct;
	const uint64_t upto = s->gen;

	if (upto <= ct->base)
		return;
	for (uint64_t i = ct->base; i < upto; i++) {
		const struct crash_entry *e = &ct->e[i % ct->cap];

		crash_durable(ct->rec, e->off, e->len, ct->unit, e->gen);
	}
	ct->base = upto;
	crash_rec_sync(ct->rec);
}

/* A completed I/O under verification: a write records its generation, a
 * read is checked, every bad unit counted. 0 when a read failed. */
int worker_verified(struct worker *w, const struct io_slot *s, uint64_t now)
{
	const struct phase_spec *sp = w->spec;
	struct gen_map *m = w->target->gmap;
	const uint32_t unit = sp->verify_unit;
	uint64_t at, want, got;
	int bad, nbad = 0;

	if (sp->verify == VERIFY_OFFSET) {
		if (s->op.op == OP_READ && !offsets_ok(s)) {
			counters_error(&w->c, OP_READ, EILSEQ, s->op.offset, s->op.len, -EILSEQ, now);
			return 0;
		}
		return 1;
	}
	if (s->op.op == OP_WRITE) {
		if (!m)
			return 1;
		for (uint64_t o = 0; o < s->op.len; o += unit)
			__atomic_store_n(&m->gens[(s->op.offset + o) / unit], s->gen, __ATOMIC_RELAXED);
		if (!__atomic_load_n(&m->dirty, __ATOMIC_RELAXED)) {
			__atomic_store_n(&m->written, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&m->dirty, 1, __ATOMIC_RELAXED);
		}
		if (w->ct)
			crash_done(w->ct, s);
		return 1;
	}
	for (uint32_t from = 0; from < s->op.len; from = (uint32_t)(at - s->op.offset) + unit) {
		bad = verify_read(&w->vv, s->buf, s->op.len, s->op.offset, from, &w->c.verify, &at, &want, &got);
		if (!bad)
			break;
		counters_verify_error(&w->c, bad, s->op.offset, s->op.len, at, want, got, now);
		nbad++;
	}
	return !nbad;
}

/* Does s (taken from the free slots) overlap an I/O of this worker in
 * flight, one of them a write? (A read racing a write of the same unit may
 * see either, or a mix.) In flight: every slot neither free nor s. Only
 * verifying phases ask, so the hot loop keeps no bookkeeping for it. */
int worker_overlaps(const struct worker *w, struct io_slot *const *freeq, unsigned nfree, unsigned qd,
		    const struct io_slot *s)
{
	unsigned char idle[PHASE_MAX_QD];

	memset(idle, 0, qd);
	for (unsigned j = 0; j < nfree; j++)
		idle[freeq[j]->index] = 1;
	idle[s->index] = 1;
	for (unsigned j = 0; j < qd; j++) {
		const struct wl_op *o = &w->slots[j].op;

		if (!idle[j] && (o->op == OP_WRITE || s->op.op == OP_WRITE) && o->offset < s->op.offset + s->op.len &&
		    s->op.offset < o->offset + o->len)
			return 1;
	}
	return 0;
}

/* A writing phase with a durability point: the target's record open,
 * and this worker's ring of writes not yet durable (room for what its
 * slots write between two flushes, twice over). 0, or -1 with w->error. */
static int crash_track_setup(struct worker *w)
{
	const struct phase_spec *sp = w->spec;
	struct target *t = w->target;
	uint64_t cap = 2ull * sp->qd * ((sp->fsync_every ? sp->fsync_every : sp->fdatasync_every) + 1) + 64;

	if (genmap_durable(t, 1, w->error, sizeof(w->error)) < 0)
		return -1;
	if (!t->gmap || !t->gmap->crash)
		return 0;
	if (cap > (1u << 20))
		cap = 1u << 20;
	w->ct = calloc(1, sizeof(*w->ct) + cap * sizeof(struct crash_entry));
	if (!w->ct) {
		snprintf(w->error, sizeof(w->error), "verification: no memory for the durability record");
		return -1;
	}
	w->ct->rec = t->gmap->crash;
	w->ct->unit = sp->verify_unit;
	w->ct->dsync = !sp->fsync_every && !sp->fdatasync_every;
	w->ct->cap = cap;
	return 0;
}

/* Before the start barrier: the generation map of a file this phase
 * created (its inspection found nothing to attach), and how its reads are
 * judged (w->vv): strictly, a header in every unit, when the phase only
 * reads and no map says what was written. */
int worker_verify_setup(struct worker *w)
{
	const struct phase_spec *sp = w->spec;
	struct target *t = w->target;
	uint32_t unit = sp->verify_unit;
	int reads_only = 1;

	if (sp->verify != VERIFY_CRC)
		return 0;
	if (t->created && genmap_attach(t, sp->verify_state, &unit, 1, 1, 0, GENMAP_WRITES, w->error,
						 sizeof(w->error)) < 0)
		return -1;
	for (unsigned i = 0; i < w->wl->nspecs; i++)
		reads_only = reads_only && w->wl->spec[i].read_thr >= WL_ONE;
	verify_view_init(&w->vv, t->gmap, sp->verify_unit, reads_only && !genmap_known(t->gmap),
			 sp->skip_unwritten < 0 ? !reads_only || sp->after_crash : sp->skip_unwritten);
	if (sp->after_crash && t->gmap && t->gmap->crash)
		verify_view_crash(&w->vv, t->gmap->crash, sp->atomic);
	if (!reads_only && (sp->fsync_every || sp->fdatasync_every || sp->open_sync != OPEN_SYNC_NONE))
		return crash_track_setup(w);
	return 0;
}

/* An after_crash pass over a target cut short (a file that lost its
 * tail): the units past its end, and the one it ends inside (cut short
 * mid-unit, never read whole), whose writes the crash lost, classed
 * from the record by the worker with the last part of the region (which
 * runs to the end). */
static void crash_cut(struct worker *w, uint64_t now)
{
	const struct verify_view *v = &w->vv;
	const uint64_t size = w->target->size;

	if (!v->after_crash || w->part + 1 != w->nparts || w->spec->region_len)
		return;
	for (uint64_t i = size / v->unit; i < v->ngens; i++) {
		const uint64_t d = i < v->ncrash ? v->durable[i] : 0, is = i < v->ncrash ? v->issued[i] : 0,
			       wr = v->gens[i] > is ? v->gens[i] : is;

		if (!d && !wr)
			continue; /* never written */
		w->c.verify.units_checked++;
		crash_count(&w->c.verify.crash, d ? CRASH_LOST_DURABLE : CRASH_UNFLUSHED_LOST, i * v->unit);
		if (d)
			counters_verify_error(&w->c, VERR_LOST_CUT, i * v->unit, 0, i * v->unit, d, size, now);
	}
}

/* The last worker of a phase out saves the maps its writes changed. */
void worker_verify_finish(struct worker *w)
{
	struct phase_shared *sh = w->sh;
	const struct phase_spec *ph = sh->spec;

	if (w->ct && w->ct->since)
		crash_rec_sync(w->ct->rec);
	crash_cut(w, clock_ns());
	if (__atomic_add_fetch(&sh->exiting, 1, __ATOMIC_ACQ_REL) != ph->workers)
		return;
	for (unsigned i = 0; i < phase_nstreams(ph); i++) {
		const struct phase_spec *sp = phase_stream(ph, i);

		for (unsigned t = 0; sp->verify == VERIFY_CRC && t < sp->ntargets; t++)
			if (genmap_save(sp->targets[t], w->error, sizeof(w->error)) < 0)
				w->engine_failed = 1;
	}
}

