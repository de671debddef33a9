/* replay.c - a trace checked against a phase, and the workers' cursors
 * (replay.h). */
#include "run/replay.h"

#include <stdio.h>
#include <string.h>

#include "core/rc.h"
#include "run/phase.h"

#define REFUSE(...) return (snprintf(why, why_len, __VA_ARGS__), RC_INPUT)

/* Does device d go to target t? */
static int goes_to(const struct replay *rp, unsigned d, unsigned t)
{
	return rp->target_of[d] == REPLAY_EVERY || rp->target_of[d] == (int16_t)t;
}

/* Record i, as messages name it: its number from 1 and its time. */
static void record_name(const struct trace *tr, uint64_t i, char *s, size_t n)
{
	snprintf(s, n, "record %llu (at %.6f s, %s)", (unsigned long long)i + 1, (double)tr->io[i].t_ns / 1e9,
		 tr->devs[tr->io[i].dev]);
}

/* The devices' targets: as phase.replay.devices maps them (rp->mapped,
 * set by the parser), else the one device to every target, else device i
 * to target i when there are as many targets as devices. */
static int map_devices(struct replay *rp, const struct phase_spec *sp, const char *field, char *why, size_t why_len)
{
	const struct trace *tr = rp->tr;

	if (rp->mapped) {
		for (unsigned d = 0; d < tr->ndevs; d++)
			if (rp->target_of[d] >= (int)sp->ntargets)
				REFUSE("%s.devices: device %s goes to target %d, but the phase has %u", field, tr->devs[d],
				       rp->target_of[d] + 1, sp->ntargets);
		return RC_OK;
	}
	if (tr->ndevs == 1) {
		rp->target_of[0] = REPLAY_EVERY;
		return RC_OK;
	}
	if (tr->ndevs != sp->ntargets)
		REFUSE("%s: the trace has %u devices (%s, %s%s) and the phase %u target%s (give replay.devices = "
		       "{ [\"%s\"] = 1, ... }, or load one device: iomoon.trace.load(path, { device = \"%s\" }))",
		       field, tr->ndevs, tr->devs[0], tr->devs[1], tr->ndevs > 2 ? ", ..." : "", sp->ntargets,
		       sp->ntargets == 1 ? "" : "s", tr->devs[0], tr->devs[0]);
	for (unsigned d = 0; d < tr->ndevs; d++)
		rp->target_of[d] = (int16_t)d;
	return RC_OK;
}

/* One record's length and place on target t (of len bytes from the
 * region's start): i names it. */
static int check_record(const struct replay *rp, const struct phase_spec *sp, uint64_t i, unsigned t, uint64_t len,
			uint64_t max_bs, const char *field, char *why, size_t why_len)
{
	const struct trace_io *r = &rp->tr->io[i];
	const struct target *tg = sp->targets[t];
	char rec[128];

	if (r->op == OP_SYNC)
		return RC_OK;
	record_name(rp->tr, i, rec, sizeof(rec));
	if (!r->len)
		REFUSE("%s: %s has no length (a read, write or trim moves at least a sector)", field, rec);
	if (r->len > max_bs || r->len > len)
		REFUSE("%s: %s is %u bytes, larger than %s (%llu bytes)", field, rec, r->len,
		       r->len > max_bs ? "the largest I/O iomoon issues" : "the phase's region on the target",
		       (unsigned long long)(r->len > max_bs ? max_bs : len));
	if ((sp->direct || tg->net) && (r->len % tg->sector || r->offset % tg->sector))
		REFUSE("%s: %s, offset %llu length %u, is not in whole %u-byte sectors of %s (%s)", field, rec,
		       (unsigned long long)r->offset, r->len, tg->sector, tg->path,
		       tg->net ? "a LUN or export moves whole blocks" : "direct=true; give direct=false");
	if (rp->offsets == REPLAY_EXACT && r->offset + r->len > len)
		REFUSE("%s: %s, offset %llu + length %u, runs past the phase's region on %s (%llu bytes; give "
		       "offsets = \"wrap\" or \"scale\", or a larger region)", field, rec, (unsigned long long)r->offset,
		       r->len, tg->path, (unsigned long long)len);
	return RC_OK;
}

/* The trace described as one access spec: its read and trim shares on
 * the 2^32 scale (a spec that writes keeps read + trim below the top, one
 * that does not reaches it), its sizes by how often they come (the
 * largest always among them), and its random share. */
static void describe(const struct replay *rp, struct workload *wl, const uint64_t *sizes, const uint64_t *counts,
		     unsigned nsizes)
{
	struct wl_spec *s = &wl->spec[0];
	uint64_t data = rp->ops[OP_READ] + rp->ops[OP_WRITE] + rp->ops[OP_TRIM], cum = 0, total = 0;

	memset(s, 0, sizeof(*s));
	wl->nspecs = 1;
	s->cum = WL_ONE;
	s->align = 512;
	s->read_thr = (uint64_t)((double)rp->ops[OP_READ] / (double)data * (double)WL_ONE);
	s->trim_thr = rp->ops[OP_TRIM] ? (uint64_t)((double)rp->ops[OP_TRIM] / (double)data * (double)WL_ONE) + 1 : 0;
	if (!rp->ops[OP_WRITE])
		s->read_thr = WL_ONE - s->trim_thr;
	else if (s->read_thr + s->trim_thr >= WL_ONE)
		s->read_thr = WL_ONE - s->trim_thr - 1;
	s->random_thr = WL_ONE - (uint64_t)((double)rp->sequential / (double)data * (double)WL_ONE);
	for (unsigned j = 0; j < nsizes; j++)
		total += counts[j];
	for (unsigned j = 0; j < nsizes; j++) {
		cum += counts[j];
		s->bs[j].bytes = sizes[j];
		s->bs[j].cum = j + 1 == nsizes ? WL_ONE : (uint64_t)((double)cum / (double)total * (double)WL_ONE);
	}
	s->nbs = nsizes;
}

/* Count size len in the list of at most WL_MAX_BS sizes; a size past them
 * takes the last place when it is larger than every size there (the
 * largest must be among them: the buffers are as large). */
static void count_size(uint64_t *sizes, uint64_t *counts, unsigned *n, uint32_t len)
{
	unsigned j;

	for (j = 0; j < *n; j++)
		if (sizes[j] == len) {
			counts[j]++;
			return;
		}
	if (*n < WL_MAX_BS) {
		sizes[*n] = len;
		counts[(*n)++] = 1;
		return;
	}
	for (j = 0; j < *n; j++)
		if (sizes[j] >= len)
			return;
	sizes[*n - 1] = len;
	counts[*n - 1] = 1;
}

int replay_prepare(struct replay *rp, const struct phase_spec *sp, struct workload *wl, uint64_t max_bs,
		   const char *field, char *why, size_t why_len)
{
	const struct trace *tr = rp->tr;
	uint64_t end[TRACE_MAX_DEVS] = { 0 }, sizes[WL_MAX_BS], counts[WL_MAX_BS], first_len[TRACE_MAX_DEVS] = { 0 };
	unsigned nsizes = 0;
	int rc;

	if ((rc = map_devices(rp, sp, field, why, why_len)) != RC_OK)
		return rc;
	memset(rp->nrec, 0, sizeof(rp->nrec));
	memset(rp->ops, 0, sizeof(rp->ops));
	rp->sequential = 0;
	rp->min_len = UINT32_MAX;
	rp->max_len = 0;
	for (uint64_t i = 0; i < tr->n; i++) {
		const struct trace_io *r = &tr->io[i];

		if (rp->target_of[r->dev] == REPLAY_NONE)
			continue;
		for (unsigned t = 0; t < sp->ntargets; t++)
			if (goes_to(rp, r->dev, t) &&
			    (rc = check_record(rp, sp, i, t, phase_region_len(sp, t), max_bs, field, why, why_len)) != RC_OK)
				return rc;
		rp->nrec[r->dev]++;
		rp->ops[r->op]++;
		if (r->op == OP_SYNC)
			continue;
		rp->sequential += first_len[r->dev] && r->offset == end[r->dev];
		first_len[r->dev] = 1;
		end[r->dev] = r->offset + r->len;
		rp->min_len = r->len < rp->min_len ? r->len : rp->min_len;
		rp->max_len = r->len > rp->max_len ? r->len : rp->max_len;
		count_size(sizes, counts, &nsizes, r->len);
	}
	if (!rp->ops[OP_READ] && !rp->ops[OP_WRITE] && !rp->ops[OP_TRIM])
		REFUSE("%s: the trace has no read, write or trim on the devices replayed (%llu records in all)", field,
		       (unsigned long long)tr->n);
	/* the next pass starts one mean gap after this one's last record */
	rp->pass_ns = replay_scaled(rp, tr->span_ns + (tr->n > 1 ? tr->span_ns / (tr->n - 1) : 1000000));
	if (!rp->pass_ns)
		rp->pass_ns = 1;
	describe(rp, wl, sizes, counts, nsizes);
	return RC_OK;
}

void replay_cursor_init(const struct replay *rp, struct replay_cursor *c, int t, unsigned k, unsigned m,
			uint64_t region_off, uint64_t region_len, uint64_t align, uint64_t base_ns)
{
	uint64_t mine = 0;

	memset(c, 0, sizeof(*c));
	c->io = rp->tr->io;
	c->target = t;
	c->share = k;
	c->nshare = m;
	c->region_off = region_off;
	c->region_len = region_len;
	c->align = align < 512 ? 512 : align;
	c->base_ns = base_ns;
	for (unsigned d = 0; d < rp->tr->ndevs; d++)
		if (goes_to(rp, d, (unsigned)t))
			mine += rp->nrec[d];
	c->n = mine > k ? rp->tr->n : 0;
	c->mine = mine;
	c->per_pass = mine / m + (k < mine % m);
}

uint64_t replay_planned(const struct replay *rp, const struct replay_cursor *c)
{
	uint64_t n;

	if (!rp->loops)
		return 0;
	return __builtin_mul_overflow(c->per_pass, rp->loops, &n) ? UINT64_MAX : n;
}

/* At the end of cursor c's pass (nothing of its target left in it): the
 * passes after it whose last record is due before until_ns, skipped (c
 * then ends the last of them); how many. */
static uint64_t skip_passes(const struct replay *rp, struct replay_cursor *c, uint64_t until_ns)
{
	const uint64_t last = replay_scaled(rp, rp->tr->span_ns), next = c->pass + 1;
	uint64_t p;

	if (until_ns <= c->base_ns || until_ns - c->base_ns <= last)
		return 0;
	p = (until_ns - c->base_ns - last - 1) / rp->pass_ns; /* the last pass wholly due */
	if (rp->loops && p >= rp->loops)
		p = rp->loops - 1;
	if (p < next)
		return 0;
	c->pass = p;
	return p - next + 1;
}

uint64_t replay_due_left(const struct replay *rp, struct replay_cursor *c, uint64_t until_ns)
{
	uint64_t n = 0, at, skipped;
	struct wl_op op;

	if (!c->n)
		return 0;
	for (;;) {
		if (c->seen == c->mine) { /* the pass holds no more of its target's */
			c->i = c->n;
			skipped = skip_passes(rp, c, until_ns);
			n = __builtin_mul_overflow(skipped, c->per_pass, &at) || n > UINT64_MAX - at ? UINT64_MAX : n + at;
		}
		if (!replay_next(rp, c, &op, &at) || at >= until_ns)
			return n;
		n += n < UINT64_MAX;
	}
}
