/* files_sample.c - a files phase's intervals (files.h): while the workers
 * run, the phase's thread takes a snapshot of their histograms every
 * interval (relaxed reads, as phase_sample.c does for a phase) and keeps
 * the difference from the one before: operations, bytes and latency of
 * that interval alone.
 */
#include "run/files.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/stop.h"
#include "run/phase.h"

#define FILES_PROGRESS_NS 500000000ull

struct files_sampler {
	struct hist now, last, delta;
	uint64_t last_ops[FOP_N], last_bytes, last_read_ops, last_write_ops, last_ns;
	uint64_t prog_ops, prog_bytes, prog_ns;
};

/* The workers' histograms and bytes now, summed. */
static void snapshot(const struct files_result *per, unsigned n, struct files_sampler *s, uint64_t *ops,
		     uint64_t *bytes)
{
	hist_init(&s->now);
	*bytes = 0;
	for (int op = 0; op < FOP_N; op++)
		ops[op] = 0;
	for (unsigned i = 0; i < n; i++) {
		for (int op = 0; op < FOP_N; op++) {
			hist_add_live(&s->now, &per[i].op[op].lat);
			ops[op] += hist_count_live(&per[i].op[op].lat);
		}
		*bytes += __atomic_load_n(&per[i].bytes_written, __ATOMIC_RELAXED) +
			  __atomic_load_n(&per[i].bytes_read, __ATOMIC_RELAXED);
	}
}

static int take(struct files_result *res, const struct files_result *per, unsigned n, struct files_sampler *s,
		uint64_t start_ns)
{
	uint64_t ops[FOP_N], bytes, t = clock_ns(), all = 0, rd, wr;
	struct files_interval *iv;

	snapshot(per, n, s, ops, &bytes);
	hist_delta(&s->delta, &s->now, &s->last);
	if (res->niv == res->cap_iv) {
		unsigned cap = res->cap_iv ? 2 * res->cap_iv : 64;
		void *p = realloc(res->iv, cap * sizeof(*res->iv));

		if (!p)
			return -1;
		res->iv = p;
		res->cap_iv = cap;
	}
	iv = &res->iv[res->niv++];
	for (int op = 0; op < FOP_N; op++)
		all += ops[op] - s->last_ops[op];
	rd = ops[FOP_READ] - s->last_ops[FOP_READ];
	wr = ops[FOP_CREATE] + ops[FOP_WRITE] + ops[FOP_APPEND] - s->last_ops[FOP_CREATE] - s->last_ops[FOP_WRITE] -
	     s->last_ops[FOP_APPEND];
	iv->t_s = (double)(s->last_ns - start_ns) / 1e9;
	iv->len_s = (double)(t - s->last_ns) / 1e9;
	iv->ops = all;
	iv->read_ops = rd;
	iv->write_ops = wr;
	iv->bytes = bytes - s->last_bytes;
	iv->p50_ns = hist_percentile(&s->delta, 50);
	iv->p99_ns = hist_percentile(&s->delta, 99);
	iv->max_ns = s->delta.count ? hist_percentile(&s->delta, 100) : 0;
	memcpy(s->last_ops, ops, sizeof(ops));
	s->last_bytes = bytes;
	s->last = s->now;
	s->last_ns = t;
	return 0;
}

/* A progress line (phase.h's callback): operations of every kind since
 * the start and their rate over the last period, as a data phase shows. */
static void progress(const struct files_spec *sp, const struct files_result *per, unsigned n,
		     struct files_sampler *s, uint64_t start_ns, uint64_t t)
{
	struct phase_progress pg = { .name = sp->progress_name };
	uint64_t ops = 0, bytes = 0;

	for (unsigned i = 0; i < n; i++) {
		for (int op = 0; op < FOP_N; op++)
			ops += hist_count_live(&per[i].op[op].lat);
		bytes += __atomic_load_n(&per[i].bytes_written, __ATOMIC_RELAXED) +
			 __atomic_load_n(&per[i].bytes_read, __ATOMIC_RELAXED);
	}
	pg.elapsed_s = (double)(t - start_ns) / 1e9;
	pg.total_s = (double)sp->duration_ns / 1e9;
	pg.ios = ops;
	pg.iops = t > s->prog_ns ? (double)(ops - s->prog_ops) * 1e9 / (double)(t - s->prog_ns) : 0;
	pg.mb_per_s = t > s->prog_ns ? (double)(bytes - s->prog_bytes) * 1e3 / (double)(t - s->prog_ns) : 0;
	s->prog_ops = ops;
	s->prog_bytes = bytes;
	s->prog_ns = t;
	sp->progress(&pg);
}

void files_sample(const struct files_spec *sp, struct files_result *res, const struct files_result *per, unsigned n,
		  const unsigned *finished, uint64_t start_ns, uint64_t interval_ns)
{
	struct files_sampler *s = calloc(1, sizeof(*s));
	uint64_t next = start_ns + interval_ns, next_prog = sp->progress ? start_ns + FILES_PROGRESS_NS : UINT64_MAX;

	if (!s)
		return;
	hist_init(&s->last);
	s->last_ns = start_ns;
	s->prog_ns = start_ns;
	while (__atomic_load_n(finished, __ATOMIC_ACQUIRE) < n) {
		uint64_t t = clock_ns();

		if (t >= next_prog) {
			progress(sp, per, n, s, start_ns, t);
			next_prog = t + FILES_PROGRESS_NS;
		}
		if (interval_ns && t >= next) {
			if (take(res, per, n, s, start_ns) < 0)
				break;
			next += interval_ns;
			continue;
		}
		usleep(interval_ns && next - t < 10000000 ? (useconds_t)((next - t) / 1000) + 1 : 10000);
	}
	/* the last part: every operation in some interval, but no empty sliver */
	if (interval_ns && take(res, per, n, s, start_ns) == 0 && !res->iv[res->niv - 1].ops &&
	    res->iv[res->niv - 1].len_s * 1e9 < (double)interval_ns / 20)
		res->niv--;
	free(s);
}
