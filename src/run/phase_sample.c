/* phase_sample.c - a phase's intervals from snapshots (phase_sample.h). */
#include "run/phase_sample.h"
#include "run/replay.h"

#include <stdlib.h>
#include <string.h>

#include "core/rc.h"

/* The counts of n running workers now, per op type: histograms and bytes;
 * when they replay a trace, their lags too (one histogram more a tick,
 * nothing per I/O: the workers record each lag anyway). */
void snapshot_take(struct snapshot *s, struct worker *w, unsigned n)
{
	for (int op = 0; op < OP_NDATA; op++) {
		hist_init(&s->h[op]);
		s->bytes[op] = 0;
		for (unsigned i = 0; i < n; i++) {
			hist_add_live(&s->h[op], &w[i].c.op[op].lat);
			s->bytes[op] += stats_bytes(&w[i].c.op[op]);
		}
	}
	s->replays = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!w[i].replay)
			continue;
		if (!s->replays)
			hist_init(&s->lag);
		s->replays = 1;
		hist_add_live(&s->lag, &w[i].replay->lag);
	}
}

void snapshot_add_lag(struct snapshot *dst, const struct snapshot *src)
{
	if (!src->replays)
		return;
	if (!dst->replays)
		hist_init(&dst->lag);
	dst->replays = 1;
	hist_merge(&dst->lag, &src->lag);
}

/* The lag of the records submitted between snapshots a and b (into
 * lag_out too, when not NULL: empty when they replay nothing). */
static void interval_lag(struct interval *iv, const struct snapshot *a, const struct snapshot *b,
			 struct hist *scratch, struct hist *lag_out)
{
	if (lag_out)
		hist_init(lag_out);
	if (!a->replays || !b->replays)
		return;
	hist_delta(scratch, &b->lag, &a->lag);
	if (lag_out)
		*lag_out = *scratch;
	iv->has_lag = 1;
	iv->lag_p99_ns = hist_percentile(scratch, 99);
	iv->lag_max_ns = scratch->count ? scratch->max : 0;
}

/* An interval from two snapshots. `scratch` holds the delta histograms;
 * `both` (when not NULL) gets the interval's histogram of all ops, and
 * both[1] that of its replay's lag. */
static void interval_make(struct interval *iv, const struct snapshot *a, const struct snapshot *b,
			  struct hist *scratch, double t_s, double len_s, struct hist *both_out)
{
	struct hist both;

	memset(iv, 0, sizeof(*iv));
	iv->t_s = t_s;
	iv->len_s = len_s;
	hist_init(&both);
	for (int op = 0; op < OP_NDATA; op++) {
		hist_delta(scratch, &b->h[op], &a->h[op]);
		iv->ios[op] = scratch->count;
		iv->bytes[op] = b->bytes[op] - a->bytes[op];
		hist_merge(&both, scratch);
	}
	iv->p50_ns = hist_percentile(&both, 50);
	iv->p99_ns = hist_percentile(&both, 99);
	iv->max_ns = both.count ? both.max : 0;
	interval_lag(iv, a, b, scratch, both_out ? &both_out[1] : NULL);
	if (both_out)
		both_out[0] = both;
}

/* Append iv to a list of *n intervals (*cap allocated); RC_FAIL when out
 * of memory. */
static int push_interval(struct interval **list, unsigned *n, unsigned *cap, const struct interval *iv)
{
	if (*n == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 64;
		struct interval *p = realloc(*list, ncap * sizeof(*p));

		if (!p)
			return RC_FAIL;
		*list = p;
		*cap = ncap;
	}
	(*list)[(*n)++] = *iv;
	return RC_OK;
}

/* Start a sampler's first interval at t0 from zero counts: workers count
 * nothing before measure_ns, and what they count from then (before this
 * thread wakes) belongs to the first interval. */
void sampler_begin(struct sampler *m, uint64_t t0)
{
	for (int op = 0; op < OP_NDATA; op++) {
		hist_init(&m->prev->h[op]);
		m->prev->bytes[op] = 0;
	}
	m->prev->replays = 0;
	for (unsigned i = 0; i < m->n && !m->prev->replays; i++)
		m->prev->replays = m->w[i].replay != NULL;
	if (m->prev->replays)
		hist_init(&m->prev->lag);
	m->prev_tick_ns = t0;
}

/* The sampler's interval from its last tick to now (t: since measure_ns),
 * from its cur snapshot (take_all). */
void sampler_tick(struct sampler *m, struct hist *scratch, uint64_t measure_ns, uint64_t now)
{
	struct interval iv;

	interval_make(&iv, m->prev, m->cur, scratch, (double)(now - measure_ns) / 1e9,
		      (double)(now - m->prev_tick_ns) / 1e9, m->both);
	if (push_interval(m->list, m->nlist, &m->cap, &iv) == RC_OK) {
		struct snapshot *t = m->prev;

		m->prev = m->cur;
		m->cur = t;
		m->prev_tick_ns = now;
	}
}

/* The last, partial interval up to end, from its cur snapshot (take_all):
 * kept when keep says so, or (keep < 0: the phase's sampler decides) when
 * it saw any I/O or lasted a tenth of an interval. Returns the decision,
 * for the streams' samplers to follow. */
int sampler_last(struct sampler *m, struct hist *scratch, uint64_t measure_ns, uint64_t end,
			uint64_t interval_ns, int keep)
{
	struct interval iv;

	interval_make(&iv, m->prev, m->cur, scratch, (double)(end - measure_ns) / 1e9,
		      end > m->prev_tick_ns ? (double)(end - m->prev_tick_ns) / 1e9 : 0, m->both);
	if (end <= m->prev_tick_ns) {
		/* the last tick came at the end: what workers recorded after its
		 * snapshot (completed by the end) still belongs to it */
		for (int op = 0; *m->nlist && op < OP_NDATA; op++) {
			(*m->list)[*m->nlist - 1].ios[op] += iv.ios[op];
			(*m->list)[*m->nlist - 1].bytes[op] += iv.bytes[op];
		}
		return 0;
	}
	if (keep < 0)
		keep = iv.ios[0] + iv.ios[1] + iv.ios[2] || end - m->prev_tick_ns >= interval_ns / 10;
	if (keep)
		push_interval(m->list, m->nlist, &m->cap, &iv);
	return keep;
}


void replay_stats_merge(struct replay_stats *t, const struct replay_stats *f)
{
	if (f->ios && (!t->ios || f->first_ns < t->first_ns))
		t->first_ns = f->first_ns;
	if (f->ios && f->last_ns > t->last_ns)
		t->last_ns = f->last_ns;
	hist_merge(&t->lag, &f->lag);
	t->ios += f->ios;
	t->late += f->late;
	t->missed += f->missed;
	t->planned = t->planned > UINT64_MAX - f->planned ? UINT64_MAX : t->planned + f->planned;
	t->endless += f->endless;
}
