/* stats.c - merging worker counters, counting errors, and CPU accounting. */
#include "core/stats.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

void counters_init(struct counters *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < OP_NTYPES; i++) {
		hist_init(&c->op[i].lat);
		hist_init(&c->op[i].svc);
	}
	hist_init(&c->commit);
}

/* Does error a come before b? In time, then by rank (ranks merge their
 * errors in any order, and all must keep the same ones). */
static int before(const struct first_error *a, const struct first_error *b)
{
	return a->at_ns < b->at_ns || (a->at_ns == b->at_ns && a->rank < b->rank);
}

/* Keep e among the earliest STATS_FIRST_ERRORS errors, in time order. */
static void keep_first(struct counters *c, const struct first_error *e)
{
	unsigned i = c->nfirst;

	if (i == STATS_FIRST_ERRORS) {
		if (!before(e, &c->first_errors[i - 1]))
			return;
		i--;
	} else {
		c->nfirst++;
	}
	while (i > 0 && before(e, &c->first_errors[i - 1])) {
		c->first_errors[i] = c->first_errors[i - 1];
		i--;
	}
	c->first_errors[i] = *e;
}

void counters_merge(struct counters *dst, const struct counters *src)
{
	for (int i = 0; i < OP_NTYPES; i++) {
		hist_merge(&dst->op[i].lat, &src->op[i].lat);
		hist_merge(&dst->op[i].svc, &src->op[i].svc);
		dst->op[i].bytes += src->op[i].bytes;
		dst->op[i].errors += src->op[i].errors;
	}
	hist_merge(&dst->commit, &src->commit);
	for (int i = 0; i < STATS_MAX_ERRNO && src->errno_count[i].n; i++) {
		int j;

		for (j = 0; j < STATS_MAX_ERRNO; j++)
			if (!dst->errno_count[j].n || (dst->errno_count[j].err == src->errno_count[i].err &&
						       dst->errno_count[j].op == src->errno_count[i].op))
				break;
		if (j < STATS_MAX_ERRNO) {
			dst->errno_count[j].err = src->errno_count[i].err;
			dst->errno_count[j].op = src->errno_count[i].op;
			dst->errno_count[j].n += src->errno_count[i].n;
		}
	}
	for (unsigned i = 0; i < src->nfirst; i++)
		keep_first(dst, &src->first_errors[i]);
	if (src->last_done_ns > dst->last_done_ns)
		dst->last_done_ns = src->last_done_ns;
	if (src->max_inflight > dst->max_inflight)
		dst->max_inflight = src->max_inflight;
	dst->inflight_ns += src->inflight_ns;
	if (src->cpu_busiest > dst->cpu_busiest)
		dst->cpu_busiest = src->cpu_busiest;
	if (src->cpu_waited > dst->cpu_waited)
		dst->cpu_waited = src->cpu_waited;
	verify_counts_merge(&dst->verify, &src->verify);
	data_counts_merge(&dst->data, &src->data);
}

void data_counts_merge(struct data_counts *dst, const struct data_counts *src)
{
	dst->units += src->units;
	dst->distinct += src->distinct;
	if (src->distinct_max > dst->distinct_max)
		dst->distinct_max = src->distinct_max;
	for (int i = 0; i < 4; i++)
		dst->values[i] |= src->values[i];
	dst->sampled += src->sampled;
	dst->sampled_bytes += src->sampled_bytes;
	dst->compressed_bytes += src->compressed_bytes;
	dst->other_bytes += src->other_bytes;
	dst->zstd_bytes += src->zstd_bytes;
	dst->zlib_bytes += src->zlib_bytes;
	dst->checked += src->checked;
	dst->check_failed += src->check_failed;
	dst->records += src->records;
	for (int i = 0; i < 3; i++) {
		dst->rec_small[i] += src->rec_small[i];
		dst->rec_large[i] += src->rec_large[i];
	}
}

/* Keep the lowest CRASH_FIRST offsets of both lists of each class. */
static void crash_counts_merge(struct crash_counts *dst, const struct crash_counts *src)
{
	for (unsigned k = 0; k < CRASH_NCLASS; k++) {
		uint64_t out[CRASH_FIRST], na = dst->n[k] < CRASH_FIRST ? dst->n[k] : CRASH_FIRST,
			 nb = src->n[k] < CRASH_FIRST ? src->n[k] : CRASH_FIRST, i = 0, j = 0, o = 0;

		while (o < CRASH_FIRST && (i < na || j < nb))
			out[o++] = j >= nb || (i < na && dst->at[k][i] <= src->at[k][j]) ? dst->at[k][i++] : src->at[k][j++];
		memcpy(dst->at[k], out, o * sizeof(out[0]));
		dst->n[k] += src->n[k];
	}
	dst->judged = dst->judged || src->judged;
}

void verify_counts_merge(struct verify_counts *dst, const struct verify_counts *src)
{
	dst->units_checked += src->units_checked;
	dst->units_unwritten += src->units_unwritten;
	dst->units_unexpected += src->units_unexpected;
	dst->units_skipped += src->units_skipped;
	if (src->written_end > dst->written_end)
		dst->written_end = src->written_end;
	if (src->known > dst->known)
		dst->known = src->known;
	crash_counts_merge(&dst->crash, &src->crash);
}

void counters_error(struct counters *c, int op, int err, uint64_t offset, uint32_t len, int64_t res, uint64_t at_ns)
{
	struct first_error e = { .offset = offset, .len = len, .op = op, .err = err, .res = res, .at_ns = at_ns };

	hist_bump(&c->op[op].errors, 1); /* read live by the exporter (phase_metrics.c) */
	for (int j = 0; j < STATS_MAX_ERRNO; j++) {
		if (!c->errno_count[j].n || (c->errno_count[j].err == err && c->errno_count[j].op == op)) {
			c->errno_count[j].err = err;
			c->errno_count[j].op = op;
			c->errno_count[j].n++;
			break;
		}
	}
	if (c->nfirst < STATS_FIRST_ERRORS)
		c->first_errors[c->nfirst++] = e;
}

void counters_verify_error(struct counters *c, int err, uint64_t offset, uint32_t len, uint64_t unit_offset,
			   uint64_t expected, uint64_t found, uint64_t at_ns)
{
	unsigned had = c->nfirst;

	counters_error(c, 0 /* OP_READ */, err, offset, len, len, at_ns);
	if (c->nfirst > had) {
		struct first_error *e = &c->first_errors[c->nfirst - 1];

		e->unit_offset = unit_offset;
		e->expected = expected;
		e->found = found;
	}
}

void cpu_mark(struct cpu_mark *m)
{
	struct rusage ru;
	unsigned long long v[10] = { 0 };
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		m->user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		m->sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	f = fopen("/proc/stat", "r");
	if (!f)
		return;
	/* cpu user nice system idle iowait irq softirq steal guest guest_nice */
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8) {
		m->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		m->user = v[0] + v[1];
		m->sys = v[2] + v[5] + v[6];
	}
	fclose(f);
}

uint64_t thread_wait_ns(void)
{
	unsigned long long on_cpu, waited = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &on_cpu, &waited) != 2)
		waited = 0;
	fclose(f);
	return waited;
}

void cpu_between(const struct cpu_mark *a, const struct cpu_mark *b, struct cpu_use *out)
{
	const double total = (double)(b->total - a->total), ticks = (double)sysconf(_SC_CLK_TCK);
	double other;

	out->user_s = b->user_s - a->user_s;
	out->sys_s = b->sys_s - a->sys_s;
	out->user_pct = total > 0 ? 100.0 * (double)(b->user - a->user) / total : 0;
	out->sys_pct = total > 0 ? 100.0 * (double)(b->sys - a->sys) / total : 0;
	out->util_pct = out->user_pct + out->sys_pct;
	/* this process's own CPU time in ticks; the busy ticks less it */
	out->self_pct = total > 0 ? 100.0 * (out->user_s + out->sys_s) * ticks / total : 0;
	if (out->self_pct > out->util_pct)
		out->self_pct = out->util_pct; /* the machine's ticks are coarser than the process's times */
	other = out->util_pct - out->self_pct;
	out->other_pct = other < 0 ? 0 : other;
	other = out->user_pct - (total > 0 ? 100.0 * out->user_s * ticks / total : 0);
	out->other_user_pct = other < 0 ? 0 : other;
}
