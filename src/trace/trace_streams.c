/* trace_streams.c - the stream detector (trace_streams.h): per device, a
 * table of candidate heads and a table of runs; runs summed into groups;
 * how many runs were in progress at once, exactly.
 *
 * Concurrency without a record kept: the runs in progress when run i
 * starts (at the record that first continued it) are runs already in the
 * table that will be continued again before they end. So when i starts it
 * notes the table's other runs (live), and each of them that is continued
 * later moves to i's seen; when i ends, 1 + |seen| runs were in progress at
 * its start. The most at once is the largest of these over all runs, since
 * the most overlapping intervals always include one's start. */
#include "trace/trace_streams.h"

#include <stdlib.h>
#include <string.h>

struct ts_head {
	uint64_t serial;         /* which head this is */
	uint64_t records;        /* in its run, the first included */
	uint64_t syncs;          /* syncs after its writes, not yet its group's */
	uint64_t wrote;          /* when it last wrote (records fed; 0: never) */
	struct trace_io first;   /* its first record */
	struct trace_io second;  /* a run's second, while it is not yet a stream */
	uint8_t in_use;
	uint8_t counted;         /* runs: a stream (three records, or two one after the other) */
	int16_t group;           /* counted runs: into ts_detector.group, -1: none */
	uint32_t live, seen, seen_op, seen_group; /* runs: masks of run slots (above) */
};

/* The offsets the heads wait for (TS_FREE: no head there) and when each
 * was last used (records fed; 0: free) are kept apart from the rest, so
 * that the scans every record makes read 512 bytes. */
struct ts_dev {
	uint64_t cand_next[TS_PROBATION], run_next[TS_STREAMS];
	uint64_t cand_used[TS_PROBATION], run_used[TS_STREAMS];
	struct ts_head cand[TS_PROBATION], run[TS_STREAMS];
	unsigned cand_turn;    /* the candidate replaced next */
	uint64_t last_data;    /* the serial of the head the last data record made or continued */
	uint64_t last_sync;    /* when the last sync came (records fed) */
	struct ts_counts c;
};

#define TS_FREE UINT64_MAX /* offsets end below 2^63 */

_Static_assert(TS_STREAMS <= 32, "the run masks are 32 bits");

void ts_init(struct ts_detector *d, uint64_t gap, ts_judged_fn *judged, void *ctx)
{
	memset(d, 0, sizeof(*d));
	d->gap = gap;
	d->judged = judged;
	d->ctx = ctx;
}

void ts_free(struct ts_detector *d)
{
	for (unsigned i = 0; i < TRACE_MAX_DEVS; i++) {
		free(d->dev[i]);
		d->dev[i] = NULL;
	}
}

static void judge(struct ts_detector *d, const struct trace_io *io, int group, int verdict)
{
	if (d->judged)
		d->judged(d->ctx, io, group, verdict);
}

/* The head of next[0..n) a record at off continues: the nearest at or up
 * to gap below it, the most recently used of equals; -1: none. */
static int match(const uint64_t *next, const uint64_t *used, unsigned n, uint64_t off, uint64_t gap, uint64_t *dist)
{
	int best = -1;

	*dist = 0;
	if (!gap) { /* the usual case: exactly at a head; most records are at none (a branch the CPU predicts) */
		unsigned i = 0;

		while (i < n && next[i] != off)
			i++;
		for (best = i < n ? (int)i : -1; i < n; i++)
			if (next[i] == off && used[i] > used[best])
				best = (int)i;
		return best;
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t dd;

		if (next[i] > off || (dd = off - next[i]) > gap)
			continue;
		if (best < 0 || dd < *dist || (dd == *dist && used[i] > used[best])) {
			best = (int)i;
			*dist = dd;
		}
	}
	return best;
}

static unsigned popcount(uint32_t m)
{
	return (unsigned)__builtin_popcount(m);
}

/* Run s of dev ends: a stream's concurrency counted, a run of two records
 * apart that never became one judged random; no other run waits for it. */
static void run_end(struct ts_detector *d, struct ts_dev *v, unsigned s)
{
	struct ts_head *h = &v->run[s];
	unsigned all = 1 + popcount(h->seen), same_op = 1 + popcount(h->seen_op);

	if (!h->counted) {
		judge(d, &h->first, -1, TS_RANDOM);
		judge(d, &h->second, -1, TS_RANDOM);
	} else {
		if (all > v->c.streams)
			v->c.streams = all;
		if (same_op > v->c.streams_op[h->first.op])
			v->c.streams_op[h->first.op] = same_op;
		if (h->group >= 0 && 1 + popcount(h->seen_group) > d->group[h->group].concurrent)
			d->group[h->group].concurrent = 1 + popcount(h->seen_group);
	}
	for (unsigned i = 0; i < TS_STREAMS; i++)
		v->run[i].live &= ~(1u << s);
	h->in_use = 0;
	v->run_next[s] = TS_FREE;
	v->run_used[s] = 0;
}

/* The run slot a new run takes: a free one, else the least recently used
 * of the short runs, else of all. */
static unsigned run_victim(const struct ts_dev *v)
{
	int best = -1, best_long = 1;

	for (unsigned i = 0; i < TS_STREAMS; i++) {
		int is_long = v->run[i].records >= TS_LONG;

		if (!v->run[i].in_use)
			return i;
		if (best < 0 || is_long < best_long || (is_long == best_long && v->run_used[i] < v->run_used[best])) {
			best = (int)i;
			best_long = is_long;
		}
	}
	return (unsigned)best;
}

/* The group of device dev's runs whose first record had op and len; -1
 * when every group is taken. */
static int group_of(struct ts_detector *d, unsigned dev, uint8_t op, uint32_t len)
{
	for (unsigned g = 0; g < d->ngroups; g++)
		if (d->group[g].dev == dev && d->group[g].op == op && d->group[g].bs == len)
			return (int)g;
	if (d->ngroups == TS_MAX_GROUPS)
		return -1;
	d->group[d->ngroups] = (struct ts_group){ .dev = dev, .op = op, .bs = len, .lo = UINT64_MAX };
	return (int)d->ngroups++;
}

/* A record of one of group g's runs; seq: one that continued it, gap:
 * the gap from the group's last such record counted. */
static void group_count(struct ts_group *g, const struct trace_io *io, int seq, int gap)
{
	unsigned i;

	if (gap && g->cont_ns) {
		double ns = io->t_ns + 1 > g->cont_ns ? (double)(io->t_ns + 1 - g->cont_ns) : 0;

		g->gaps++;
		g->gap_sum_ns += ns;
		g->gap_sq_ns += ns * ns;
	}
	if (seq && io->t_ns + 1 > g->cont_ns)
		g->cont_ns = io->t_ns + 1; /* 0: none yet */
	if (!g->ios || io->t_ns < g->first_ns)
		g->first_ns = io->t_ns;
	if (io->t_ns > g->last_ns)
		g->last_ns = io->t_ns;
	g->ios++;
	g->n_op[io->op]++;
	g->bytes_op[io->op] += io->len;
	if (io->offset < g->lo)
		g->lo = io->offset;
	if (io->offset + io->len > g->hi)
		g->hi = io->offset + io->len;
	for (i = 0; i < g->nsizes && g->size[i] != io->len; i++)
		;
	if (i == g->nsizes && i < TS_GROUP_SIZES) {
		g->size[g->nsizes++] = io->len;
		g->size_n[i] = 0;
	}
	if (i < g->nsizes)
		g->size_n[i]++;
	else
		g->size_other++;
}

/* Run h is a stream from now: counted in its group, its first two
 * records judged. */
static void run_counted(struct ts_detector *d, struct ts_dev *v, unsigned dev, struct ts_head *h)
{
	struct ts_group *g;

	h->counted = 1;
	h->group = (int16_t)group_of(d, dev, h->first.op, h->first.len);
	v->c.runs++;
	v->c.runs_op[h->first.op]++;
	if (h->group < 0) {
		d->ungrouped++;
	} else {
		g = &d->group[h->group];
		g->runs++;
		g->syncs += h->syncs;
		h->syncs = 0;
		group_count(g, &h->first, 0, 0);
		group_count(g, &h->second, 1, 0);
	}
	judge(d, &h->first, h->group, TS_FIRST);
	judge(d, &h->second, h->group, TS_SEQ);
}

/* Run s continued: the runs that were waiting to know whether it was
 * still in progress when they started learn that it was. */
static void run_continued(struct ts_dev *v, unsigned s)
{
	const struct ts_head *h = &v->run[s];
	uint32_t bit = 1u << s;

	for (unsigned i = 0; i < TS_STREAMS; i++) {
		struct ts_head *o = &v->run[i];

		if (i == s || !o->in_use || !(o->live & bit))
			continue;
		o->seen |= bit;
		if (o->first.op == h->first.op)
			o->seen_op |= bit;
		if (o->first.op == h->first.op && o->first.len == h->first.len) /* the same group, once both are streams */
			o->seen_group |= bit;
		o->live &= ~bit;
	}
}

/* Candidate c was continued by io: a run of two records (ending the run
 * whose slot it takes); the slot it took. */
static unsigned promote(struct ts_detector *d, struct ts_dev *v, unsigned c, const struct trace_io *io)
{
	unsigned s = run_victim(v);
	struct ts_head *h = &v->run[s];

	if (h->in_use)
		run_end(d, v, s);
	*h = v->cand[c];
	h->second = *io;
	h->records = 2;
	h->group = -1;
	v->cand[c].in_use = 0;
	v->cand_next[c] = TS_FREE;
	v->cand_used[c] = 0;
	h->live = h->seen = h->seen_op = h->seen_group = 0;
	for (unsigned i = 0; i < TS_STREAMS; i++)
		if (i != s && v->run[i].in_use)
			h->live |= 1u << i;
	return s;
}

/* Candidate h goes without having been continued: its record was random. */
static void released(struct ts_detector *d, struct ts_head *h)
{
	h->in_use = 0;
	judge(d, &h->first, -1, TS_RANDOM);
}

/* A record that continued nothing: a candidate head of its own, in the
 * next slot in turn (candidates are replaced in the order they were made;
 * one that waits where another does is the one continued, the most
 * recently used); its serial. */
static uint64_t candidate(struct ts_detector *d, struct ts_dev *v, const struct trace_io *io)
{
	unsigned c = v->cand_turn;
	struct ts_head *h;

	v->cand_turn = (c + 1) % TS_PROBATION;
	if (v->cand[c].in_use)
		released(d, &v->cand[c]);
	v->cand_next[c] = io->offset + io->len;
	v->cand_used[c] = d->now;
	h = &v->cand[c]; /* field by field: the rest is set when it becomes a run (this is the hot path) */
	h->serial = ++d->serial;
	h->records = 1;
	h->syncs = 0;
	h->wrote = io->op == OP_WRITE ? d->now : 0;
	h->first = *io;
	h->in_use = 1;
	h->counted = 0;
	return h->serial;
}

static struct ts_dev *device(struct ts_detector *d, unsigned dev)
{
	struct ts_dev *v = d->dev[dev];

	if (!v && (v = d->dev[dev] = calloc(1, sizeof(*v)))) {
		for (unsigned i = 0; i < TS_PROBATION; i++)
			v->cand_next[i] = TS_FREE;
		for (unsigned i = 0; i < TS_STREAMS; i++)
			v->run_next[i] = TS_FREE;
	}
	return v;
}

/* io continued run s (a run of two until now, or a stream). */
static void continued(struct ts_detector *d, struct ts_dev *v, unsigned s, const struct trace_io *io)
{
	struct ts_head *h = &v->run[s];

	run_continued(v, s);
	h->records++;
	if (!h->counted)
		run_counted(d, v, io->dev, h);
	if (h->group >= 0)
		group_count(&d->group[h->group], io, 1, 1);
	judge(d, io, h->group, TS_SEQ);
}

int ts_record(struct ts_detector *d, const struct trace_io *io)
{
	struct ts_dev *v = device(d, io->dev);
	uint64_t ds = 0, dc = 0, serial = 0;
	int s, c;

	if (!v)
		return -1;
	d->now++;
	s = match(v->run_next, v->run_used, TS_STREAMS, io->offset, d->gap, &ds);
	c = match(v->cand_next, v->cand_used, TS_PROBATION, io->offset, d->gap, &dc);
	if (s < 0 && c < 0) {
		serial = candidate(d, v, io);
	} else if (s < 0 || (c >= 0 && dc < ds)) {
		int next_to = v->cand[c].serial == v->last_data; /* it continues the device's previous record */

		s = (int)promote(d, v, (unsigned)c, io);
		if (next_to)
			run_counted(d, v, io->dev, &v->run[s]);
	} else {
		continued(d, v, (unsigned)s, io);
	}
	if (s >= 0) {
		v->run_next[s] = io->offset + io->len;
		v->run_used[s] = d->now;
		serial = v->run[s].serial;
		if (io->op == OP_WRITE)
			v->run[s].wrote = d->now;
	}
	v->last_data = serial;
	return 0;
}

/* The head of tab[0..n) that wrote last since the device's last sync; -1: none. */
static int wrote_last(const struct ts_head *tab, unsigned n, uint64_t since)
{
	int best = -1;

	for (unsigned i = 0; i < n; i++)
		if (tab[i].in_use && tab[i].wrote > since && (best < 0 || tab[i].wrote > tab[best].wrote))
			best = (int)i;
	return best;
}

void ts_sync(struct ts_detector *d, const struct trace_io *io)
{
	struct ts_dev *v = d->dev[io->dev];
	struct ts_head *h;
	int i;

	if (!v)
		return;
	d->now++;
	if ((i = wrote_last(v->run, TS_STREAMS, v->last_sync)) >= 0) {
		h = &v->run[i];
		if (h->counted && h->group >= 0)
			d->group[h->group].syncs++;
		else if (!h->counted)
			h->syncs++; /* its group's, if it becomes a stream */
	} else if ((i = wrote_last(v->cand, TS_PROBATION, v->last_sync)) >= 0) {
		v->cand[i].syncs++;
	}
	v->last_sync = d->now;
}

void ts_finish(struct ts_detector *d)
{
	for (unsigned dev = 0; dev < TRACE_MAX_DEVS; dev++) {
		struct ts_dev *v = d->dev[dev];

		if (!v)
			continue;
		for (unsigned s = 0; s < TS_STREAMS; s++)
			if (v->run[s].in_use)
				run_end(d, v, s);
		for (unsigned c = 0; c < TS_PROBATION; c++) /* in the order they were made */
			if (v->cand[(v->cand_turn + c) % TS_PROBATION].in_use)
				released(d, &v->cand[(v->cand_turn + c) % TS_PROBATION]);
	}
}

void ts_device_counts(const struct ts_detector *d, unsigned dev, struct ts_counts *c)
{
	if (d->dev[dev])
		*c = d->dev[dev]->c;
	else
		memset(c, 0, sizeof(*c));
}
