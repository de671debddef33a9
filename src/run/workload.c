/* workload.c - the op generator: access-spec mix, offsets, distributions,
 * and the pacing of I/O starts (think time, rate, schedule).
 *
 * Offsets. A random offset is drawn on the spec's alignment and always lies
 * wholly inside the region. Uniform draws the aligned block directly; the
 * skewed distributions (zipf, pareto, normal, zoned) draw a cell of the
 * region's grid (the smallest alignment of any spec) and the popularity rank
 * is spread over the region by a multiplicative bijection, as fio spreads
 * its hot blocks, so "hot" is not "at the start of the disk". A sequential
 * I/O continues where the worker's last I/O ended and wraps at the region's
 * end, as IOMeter's percent-random mix does; each worker's stream starts at
 * its part of its target's region (wl_part: the parts tile the region in
 * whole cells of its grid, so a phase that reads a region once gives each
 * worker the same part as its quota). A spec with a region of its own
 * (a log file's area, say) keeps its own sequential stream there, and its
 * random offsets are uniform within it. A spec's skip (fio's rw=write:112k
 * or rw=read:-8k) moves its stream that many bytes past the end of each
 * I/O, or back: forward past the region's end it wraps to the start; back
 * before the start it goes on from the region's end, as fio's does (its
 * first I/O after the wrap is skip bytes before the end).
 *
 * The random map (phase.random_map, fio's default without norandommap): a
 * worker's random offsets each take a grid cell not yet taken in this pass
 * over the region (a taken one moves on to the next free cell, as fio's
 * axmap_next_free), and an I/O is cut short where the run of free cells
 * ends (fio's mark_random_map), so that each cell is done once per pass.
 */
#include "run/workload.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

uint64_t wl_max_bs(const struct workload *wl)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < wl->nspecs; i++)
		for (unsigned j = 0; j < wl->spec[i].nbs; j++)
			if (wl->spec[i].bs[j].bytes > m)
				m = wl->spec[i].bs[j].bytes;
	return m;
}

int wl_trims(const struct workload *wl)
{
	for (unsigned i = 0; i < wl->nspecs; i++)
		if (wl->spec[i].trim_thr)
			return 1;
	return 0;
}

int wl_writes_data(const struct workload *wl)
{
	for (unsigned i = 0; i < wl->nspecs; i++)
		if (wl->spec[i].read_thr + wl->spec[i].trim_thr < WL_ONE)
			return 1;
	return 0;
}

uint64_t wl_min_bs(const struct workload *wl)
{
	uint64_t m = UINT64_MAX;

	for (unsigned i = 0; i < wl->nspecs; i++)
		for (unsigned j = 0; j < wl->spec[i].nbs; j++)
			if (wl->spec[i].bs[j].bytes < m)
				m = wl->spec[i].bs[j].bytes;
	return m == UINT64_MAX ? 0 : m;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* zeta(n, theta) = sum 1/i^theta for i = 1..n: exact for the first 10^4
 * terms, the Euler-Maclaurin integral for the rest (relative error < 1e-9). */
static double zeta(uint64_t n, double theta)
{
	const uint64_t exact = n < 10000 ? n : 10000;
	double z = 0;

	for (uint64_t i = 1; i <= exact; i++)
		z += pow((double)i, -theta);
	if (n > exact) {
		double a = (double)exact + 0.5, b = (double)n + 0.5;

		z += (pow(b, 1 - theta) - pow(a, 1 - theta)) / (1 - theta);
	}
	return z;
}

int wl_prepare(struct workload *wl, char *why, size_t why_len)
{
	uint64_t grid = UINT64_MAX;

	for (unsigned i = 0; i < wl->nspecs; i++)
		if (wl->spec[i].align < grid)
			grid = wl->spec[i].align;
	wl->grid = grid;
	wl->ncells = wl->region_len / grid;
	if (!wl->ncells) {
		snprintf(why, why_len, "region: %llu bytes is smaller than one %llu-byte block",
			 (unsigned long long)wl->region_len, (unsigned long long)grid);
		return -1;
	}
	wl->scramble = 0x9e3779b97f4a7c15ull % wl->ncells;
	while (wl->ncells > 1 && (wl->scramble == 0 || gcd64(wl->scramble, wl->ncells) != 1))
		wl->scramble++;
	if (wl->ncells == 1)
		wl->scramble = 1;

	switch (wl->dist) {
	case DIST_ZIPF: {
		double theta = wl->dist_arg, n = (double)wl->ncells;

		wl->zipf_zetan = zeta(wl->ncells, theta);
		wl->zipf_alpha = 1.0 / (1.0 - theta);
		wl->zipf_2theta = 1.0 + pow(0.5, theta);
		wl->zipf_eta = (1.0 - pow(2.0 / n, 1.0 - theta)) / (1.0 - zeta(2, theta) / wl->zipf_zetan);
		break;
	}
	case DIST_PARETO:
		wl->pareto_pow = log(wl->dist_arg) / log(1.0 - wl->dist_arg);
		break;
	case DIST_ZONED: {
		double at = 0;

		for (unsigned z = 0; z < wl->nzones; z++) {
			uint64_t first = (uint64_t)(at / 100.0 * (double)wl->ncells);
			uint64_t last = (uint64_t)((at + wl->zone[z].region_pct) / 100.0 * (double)wl->ncells);

			at += wl->zone[z].region_pct;
			if (z + 1 == wl->nzones)
				last = wl->ncells;
			if (last <= first) {
				snprintf(why, why_len, "dist: zone %u (%.4g %% of the region) holds no %llu-byte block",
					 z + 1, wl->zone[z].region_pct, (unsigned long long)grid);
				return -1;
			}
			wl->zone[z].first = first;
			wl->zone[z].n = last - first;
		}
		break;
	}
	default:
		break;
	}
	return 0;
}

void wl_part(uint64_t len, uint64_t grain, unsigned part, unsigned nparts, uint64_t *off, uint64_t *part_len)
{
	const uint64_t cells = len / grain, each = cells / nparts, more = cells % nparts;

	*off = (part * each + (part < more ? part : more)) * grain;
	*part_len = (each + (part < more)) * grain;
}

void wl_state_init(const struct workload *wl, struct wl_state *st, uint64_t seed, unsigned worker, unsigned part,
		   unsigned nparts)
{
	uint64_t len;

	rng_seed(&st->rng, seed, worker + 1);
	st->seq_k = 0;
	st->map = st->map_full = NULL; /* wl_map_attach gives it one */
	st->map_used = 0;
	wl_part(wl->region_len, wl->grid, part, nparts, &st->next_seq[0], &len);
	st->next_seq[0] += wl->seq_start; /* past the region's end: wl_next wraps it to the start */
	for (unsigned i = 0; i < wl->nspecs; i++) {
		const struct wl_spec *s = &wl->spec[i];

		st->next_seq[i + 1] = 0;
		if (s->region_len)
			wl_part(s->region_len, s->align, part, nparts, &st->next_seq[i + 1], &len);
	}
}

/* ---- the random map: bit c of map[] is cell c; bit w of map_full[] is
 * word w of map[] full. Bits past the last cell are set at a clear, as
 * taken, and never counted in map_used. ---- */

static inline uint64_t map_nwords(const struct workload *wl)
{
	return (wl->ncells + 63) / 64;
}

size_t wl_map_words(const struct workload *wl)
{
	const uint64_t n = map_nwords(wl);
	int random = 0;

	for (unsigned i = 0; i < wl->nspecs; i++)
		random |= wl->spec[i].random_thr > 0;
	return wl->random_map && random ? (size_t)(n + (n + 63) / 64) : 0;
}

static void map_clear(const struct workload *wl, struct wl_state *st)
{
	const uint64_t n = map_nwords(wl), tail = wl->ncells % 64;

	memset(st->map, 0, (n + (n + 63) / 64) * sizeof(uint64_t));
	if (tail)
		st->map[n - 1] = ~0ull << tail;
	st->map_used = 0;
}

void wl_map_attach(const struct workload *wl, struct wl_state *st, uint64_t *mem)
{
	st->map = mem;
	st->map_full = mem ? mem + map_nwords(wl) : NULL;
	if (mem)
		map_clear(wl, st);
}

/* The first word at or after w (wrapping) whose map_full bit is clear:
 * the summary word of w from w on, the others, then that one below w. */
static uint64_t map_word_free(const struct workload *wl, const struct wl_state *st, uint64_t w)
{
	const uint64_t n = map_nwords(wl), nf = (n + 63) / 64;

	for (uint64_t k = 0; k <= nf; k++) {
		const uint64_t fw = (w / 64 + k) % nf;
		uint64_t bits = ~st->map_full[fw];

		if (k == 0)
			bits &= ~0ull << (w % 64);
		if (fw == nf - 1 && n % 64)
			bits &= (1ull << (n % 64)) - 1; /* no word of the map there */
		if (bits)
			return fw * 64 + (uint64_t)__builtin_ctzll(bits);
	}
	return 0; /* not reached: a full map is cleared when it fills */
}

/* The first free cell at or after c, wrapping past the last. */
static uint64_t map_next_free(const struct workload *wl, const struct wl_state *st, uint64_t c)
{
	uint64_t w = c / 64, bits = ~st->map[w] & (~0ull << (c % 64));

	if (bits)
		return w * 64 + (uint64_t)__builtin_ctzll(bits);
	w = map_word_free(wl, st, w + 1 < map_nwords(wl) ? w + 1 : 0);
	return w * 64 + (uint64_t)__builtin_ctzll(~st->map[w]);
}

/* Take up to n free cells from c on (c is free); how many were taken. */
static uint64_t map_take(const struct workload *wl, struct wl_state *st, uint64_t c, uint64_t n)
{
	uint64_t k = 0;

	while (k < n && c + k < wl->ncells && !(st->map[(c + k) / 64] >> ((c + k) % 64) & 1)) {
		const uint64_t w = (c + k) / 64;

		st->map[w] |= 1ull << ((c + k) % 64);
		if (st->map[w] == ~0ull)
			st->map_full[w / 64] |= 1ull << (w % 64);
		k++;
	}
	st->map_used += k;
	return k;
}

/* A random I/O of bs bytes on the map: its offset (region-relative) and
 * its length, bs or less where the free run ends. */
static uint64_t map_random(const struct workload *wl, struct wl_state *st, uint64_t *bs)
{
	const uint64_t c = map_next_free(wl, st, rng_below(&st->rng, wl->ncells));
	const uint64_t want = (*bs + wl->grid - 1) / wl->grid, got = map_take(wl, st, c, want);

	if (got * wl->grid < *bs)
		*bs = got * wl->grid;
	if (st->map_used >= wl->ncells) /* the pass is done: the next starts */
		map_clear(wl, st);
	return c * wl->grid;
}

/* A popularity rank (0 = hottest) to a grid cell, bijectively. */
static inline uint64_t spread(const struct workload *wl, uint64_t rank)
{
	return (uint64_t)(((unsigned __int128)rank * wl->scramble) % wl->ncells);
}

static uint64_t skewed_cell(const struct workload *wl, struct rng *r)
{
	switch (wl->dist) {
	case DIST_ZIPF: {
		double u = rng_unit(r), uz = u * wl->zipf_zetan;
		uint64_t rank;

		if (uz < 1.0)
			rank = 0;
		else if (uz < wl->zipf_2theta)
			rank = 1;
		else
			rank = (uint64_t)((double)wl->ncells *
					  pow(wl->zipf_eta * u - wl->zipf_eta + 1.0, wl->zipf_alpha));
		if (rank >= wl->ncells)
			rank = wl->ncells - 1;
		return spread(wl, rank);
	}
	case DIST_PARETO: {
		uint64_t rank = (uint64_t)((double)(wl->ncells - 1) * pow(rng_unit(r), wl->pareto_pow));

		if (rank >= wl->ncells)
			rank = wl->ncells - 1;
		return spread(wl, rank);
	}
	case DIST_NORMAL: {
		/* centred on the middle of the region, dev % of it as sigma */
		double sigma = wl->dist_arg / 100.0 * (double)wl->ncells, mid = (double)wl->ncells / 2, x;

		do {
			double u1 = rng_unit(r), u2 = rng_unit(r);

			x = mid + sigma * sqrt(-2.0 * log(1.0 - u1)) * cos(2 * M_PI * u2);
		} while (x < 0 || x >= (double)wl->ncells);
		return (uint64_t)x;
	}
	case DIST_ZONED: {
		uint64_t u = rng_next(r) >> 32;
		unsigned z = 0;

		while (z + 1 < wl->nzones && u >= wl->zone[z].cum)
			z++;
		return wl->zone[z].first + rng_below(r, wl->zone[z].n);
	}
	default:
		return rng_below(r, wl->ncells);
	}
}

void wl_next(const struct workload *wl, struct wl_state *st, struct wl_op *op)
{
	unsigned idx = 0;
	const struct wl_spec *s;
	uint64_t bs, off, roff, rlen, *seq;

	if (wl->nspecs > 1) {
		uint64_t u = rng_next(&st->rng) >> 32;

		while (idx + 1 < wl->nspecs && u >= wl->spec[idx].cum)
			idx++;
	}
	s = &wl->spec[idx];
	op->spec = (uint8_t)idx;
	bs = s->bs[0].bytes;
	if (s->nbs > 1) {
		uint64_t u = rng_next(&st->rng) >> 32;
		unsigned i = 0;

		while (i + 1 < s->nbs && u >= s->bs[i].cum)
			i++;
		bs = s->bs[i].bytes;
	}
	{
		const uint64_t u = rng_next(&st->rng) >> 32;

		/* on the scale, reads below read_thr, trims in the top trim_thr,
		 * writes between: OP_READ 0, OP_WRITE 1, OP_TRIM 2, without a
		 * branch (u + 0 never reaches WL_ONE: a spec without trims) */
		op->op = (uint8_t)((u >= s->read_thr) + (u + s->trim_thr >= WL_ONE));
	}
	if (s->region_len) { /* a region of its own, and its own stream */
		roff = s->region_off;
		rlen = s->region_len;
		seq = &st->next_seq[idx + 1];
	} else {
		roff = wl->region_off;
		rlen = wl->region_len;
		seq = &st->next_seq[0];
	}

	if (s->random_thr && (s->random_thr >= WL_ONE || (rng_next(&st->rng) >> 32) < s->random_thr)) {
		uint64_t last = (rlen - bs) / s->align; /* highest block that fits */

		if (st->map) { /* phase_check: uniform, on the phase's region */
			off = map_random(wl, st, &bs);
		} else if (wl->dist == DIST_UNIFORM || s->region_len) {
			off = rng_below(&st->rng, last + 1) * s->align;
		} else if (wl->dist == DIST_SEQUENCE) { /* fio's sequence:I,J,K: the blocks given, in turn */
			const uint64_t k = st->seq_k++;

			off = (wl->seq_idx[k % wl->seq_n] + (wl->seq_stride ? k / wl->seq_n * wl->seq_n : 0)) % (last + 1) *
			      s->align;
		} else {
			off = skewed_cell(wl, &st->rng) * wl->grid;
			off -= off % s->align;
			if (off > last * s->align)
				off = last * s->align;
		}
	} else {
		off = *seq;
		if (off + bs > rlen)
			off = 0;
	}
	op->prio = wl->prio_thr && (rng_next(&st->rng) >> 32) < wl->prio_thr ? wl->prio : 0;
	*seq = off + bs;
	if (s->skip > 0)
		*seq += (uint64_t)s->skip;
	else if (s->skip < 0) /* back: before the start, on from the region's end (as fio) */
		*seq = *seq >= (uint64_t)-s->skip ? *seq - (uint64_t)-s->skip
			: rlen >= (uint64_t)-s->skip ? rlen - (uint64_t)-s->skip : 0;
	op->offset = roff + off;
	op->len = (uint32_t)bs;
}

/* ---- pacing ---- */

uint64_t pace_think_ns(const struct pace *p, struct rng *r)
{
	switch (p->think) {
	case THINK_FIXED:
		return p->think_a_ns;
	case THINK_UNIFORM:
		return p->think_a_ns + rng_below(r, p->think_b_ns - p->think_a_ns + 1);
	case THINK_EXP:
		return (uint64_t)(-log(1.0 - rng_unit(r)) * (double)p->think_a_ns);
	default:
		return 0;
	}
}

/* The mean gap between arrivals at this segment's rate, for one worker. */
static double mean_gap_ns(const struct pace_seg *s, unsigned nworkers)
{
	return 1e9 * nworkers / s->iops;
}

/* Gap to the next arrival at this segment's rate, for one worker. */
static uint64_t gap_ns(const struct pace_seg *s, unsigned nworkers, struct rng *r)
{
	double mean = mean_gap_ns(s, nworkers);

	if (s->poisson)
		return (uint64_t)(-log(1.0 - rng_unit(r)) * mean);
	return (uint64_t)mean;
}

/* Move to the segment that holds next_ns, skipping idle ones. An arrival
 * due past its segment's end keeps the part of its gap still to go, as a
 * share of a gap, into the next segment with arrivals, at that one's rate:
 * the arrivals run on across a boundary as if there were none (an idle
 * segment holds them), so each segment gets its rate times its length.
 * (Poisson arrivals forget: the rest of an exponential gap, rescaled, is
 * an exponential gap at the new rate.) */
static void pace_settle(const struct pace *p, struct pace_state *ps, uint64_t t0, unsigned nworkers,
			double rest /* of a gap, still to go at the boundary */)
{
	while (ps->seg < p->nseg) {
		const struct pace_seg *s = &p->seg[ps->seg];
		uint64_t end = s->end_ns == UINT64_MAX ? UINT64_MAX : t0 + s->end_ns;

		if (ps->next_ns < end && s->iops > 0)
			return;
		if (s->iops > 0) { /* due past the end: carry the rest over */
			rest = (double)(ps->next_ns - end) / mean_gap_ns(s, nworkers);
			ps->next_ns = end;
		} else if (ps->next_ns < end) { /* idle segment: jump to its end */
			ps->next_ns = end;
		}
		ps->seg++;
		if (ps->seg < p->nseg && p->seg[ps->seg].iops > 0) {
			ps->next_ns += (uint64_t)(rest * mean_gap_ns(&p->seg[ps->seg], nworkers));
			rest = 0;
		}
	}
	ps->next_ns = UINT64_MAX;
}

void pace_start(const struct pace *p, struct pace_state *ps, uint64_t t0, uint64_t first_ns,
		unsigned nworkers, struct rng *r)
{
	ps->seg = 0;
	/* Workers start staggered by a random fraction of a gap, so that W
	 * workers at a fixed rate do not fire in lock-step. */
	ps->next_ns = first_ns;
	if (p->nseg && p->seg[0].iops > 0)
		ps->next_ns += (uint64_t)(rng_unit(r) * (double)gap_ns(&p->seg[0], nworkers, r));
	/* a schedule that starts idle: the stagger is a share of the first gap */
	pace_settle(p, ps, t0, nworkers, p->nseg && p->seg[0].iops > 0 ? 0 : rng_unit(r));
}

void pace_advance(const struct pace *p, struct pace_state *ps, uint64_t t0, unsigned nworkers, struct rng *r)
{
	if (ps->seg >= p->nseg)
		return;
	ps->next_ns += gap_ns(&p->seg[ps->seg], nworkers, r);
	pace_settle(p, ps, t0, nworkers, 0);
}
